//! Axes whose ticks are chosen here rather than by plotters, so that a
//! figure knows (and its [`Layout`](super::layout::Layout) records) exactly
//! which ticks it drew: 1-2-5 steps on linear axes, whole steps on axes that
//! count whole things (hops, batches, members, degrees), 1-2-5 per decade
//! on log axes, and one number format per axis ([`tick_labels`]: the same
//! decimals throughout, or powers of ten throughout — never `1.00e6` beside
//! `10000`).

use super::layout::AxisTicks;
use super::style::{linear_ticks, log_ticks, safe_log_range, safe_range};
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};

/// How values map to positions.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Map {
    /// Proportional.
    Linear,
    /// Proportional to ln v (v > 0; smaller values sit at the low end).
    Log,
    /// Proportional to asinh(v / s): linear near 0, logarithmic far out.
    Asinh(f64),
}

/// An axis: its range, its mapping and its labelled ticks.
#[derive(Clone, Debug, PartialEq)]
pub struct Scale {
    lo: f64,
    hi: f64,
    map: Map,
    values: Vec<f64>,
    labels: Vec<String>,
    integer: bool,
}

impl Scale {
    /// An axis over `[lo, hi]` mapped by `map` with ticks at `values`
    /// (those in range), labelled by [`tick_labels`].
    pub fn with(lo: f64, hi: f64, map: Map, values: Vec<f64>, integer: bool) -> Scale {
        let values: Vec<f64> = values
            .into_iter()
            .filter(|v| *v >= lo - 1e-9 * (hi - lo).abs() && *v <= hi + 1e-9 * (hi - lo).abs())
            .collect();
        let labels = tick_labels(&values);
        Scale {
            lo,
            hi,
            map,
            values,
            labels,
            integer,
        }
    }

    /// A linear axis over `[lo, hi]`, about eight 1-2-5 ticks.
    pub fn linear(lo: f64, hi: f64) -> Scale {
        let (lo, hi) = safe_range(lo, hi);
        Scale::with(lo, hi, Map::Linear, linear_ticks(lo, hi, 8), false)
    }

    /// A linear axis of whole things: ticks at whole numbers, a step of at
    /// least 1.
    pub fn integer(lo: f64, hi: f64) -> Scale {
        let (lo, hi) = safe_range(lo, hi);
        Scale::with(lo, hi, Map::Linear, integer_ticks(lo, hi, 10), true)
    }

    /// [`Scale::integer`] when `integer`, else [`Scale::linear`].
    pub fn linear_or_integer(lo: f64, hi: f64, integer: bool) -> Scale {
        if integer {
            Scale::integer(lo, hi)
        } else {
            Scale::linear(lo, hi)
        }
    }

    /// A log axis over `[lo, hi]` (both > 0) with the ticks of
    /// [`log_ticks`]; `integer`: only whole ticks (a degree axis).
    pub fn log(lo: f64, hi: f64, integer: bool) -> Scale {
        let (lo, hi) = safe_log_range(lo, hi);
        let mut t = log_ticks(lo, hi);
        // At most twelve labels: 1 and 5 per decade, then powers of ten.
        let mantissa = |v: &f64| v / 10f64.powf(v.log10().floor());
        for keep in [&[1.0, 5.0][..], &[1.0][..]] {
            if t.len() > 12 {
                t.retain(|v| keep.iter().any(|m| (mantissa(v) - m).abs() < 1e-6));
            }
        }
        if integer {
            t.retain(|v| v.fract() == 0.0 && *v >= 1.0);
        }
        Scale::with(lo, hi, Map::Log, t, integer)
    }

    /// A log axis whose ticks include `v` (a reference line drawn at it,
    /// such as a gain of 1) when it lies in range.
    pub fn log_with(lo: f64, hi: f64, v: f64) -> Scale {
        let mut s = Scale::log(lo, hi, false);
        if v > s.lo && v < s.hi && !s.values.iter().any(|t| (t / v - 1.0).abs() < 1e-9) {
            let mut t = s.values.clone();
            t.push(v);
            t.sort_by(f64::total_cmp);
            s = Scale::with(s.lo, s.hi, Map::Log, t, false);
        }
        s
    }

    /// An axis linear near 0 and logarithmic far from it, positions
    /// proportional to asinh(v / s) (`scale` None: plain linear). Signed
    /// answer errors span decades when ε falls by orders of magnitude; this
    /// keeps the small steps near the owner and the large ones far out both
    /// visible, and (being monotone) keeps steps as steps.
    pub fn asinh(lo: f64, hi: f64, scale: Option<f64>) -> Scale {
        let (lo, hi) = if lo.is_finite() && hi.is_finite() && hi > lo {
            safe_range(lo, hi)
        } else {
            (0.0, 1.0)
        };
        match scale.filter(|s| s.is_finite() && *s > 0.0) {
            None => Scale::linear(lo, hi),
            Some(s) => {
                let top = lo.abs().max(hi.abs());
                let from = s.min(top / 10.0).max(top * 1e-12);
                let mut mags = log_ticks(from, top);
                if mags.len() > 6 {
                    mags.retain(|m| (m.log10() - m.log10().round()).abs() < 1e-9);
                }
                let mut t: Vec<f64> = mags.iter().map(|m| -m).filter(|v| *v >= lo).collect();
                t.reverse();
                if lo <= 0.0 && hi >= 0.0 {
                    t.push(0.0);
                }
                t.extend(mags.iter().copied().filter(|v| *v <= hi));
                Scale::with(lo, hi, Map::Asinh(s), t, false)
            }
        }
    }

    /// A linear axis over `[lo, hi]` with ticks at the given positions and
    /// texts (categories, or the values of a sweep's key).
    pub fn categories(lo: f64, hi: f64, ticks: &[(f64, String)], integer: bool) -> Scale {
        let (lo, hi) = safe_range(lo, hi);
        let inside: Vec<&(f64, String)> = ticks.iter().filter(|t| t.0 >= lo && t.0 <= hi).collect();
        Scale {
            lo,
            hi,
            map: Map::Linear,
            values: inside.iter().map(|t| t.0).collect(),
            labels: inside.iter().map(|t| t.1.clone()).collect(),
            integer,
        }
    }

    /// Whether the mapping is asinh.
    pub fn is_asinh(&self) -> bool {
        matches!(self.map, Map::Asinh(_))
    }

    /// The range `[lo, hi]`.
    pub fn bounds(&self) -> (f64, f64) {
        (self.lo, self.hi)
    }

    /// The tick values.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The label of tick `v` (empty for a value that is not a tick).
    pub fn label(&self, v: f64) -> String {
        self.values
            .iter()
            .position(|t| (t - v).abs() <= 1e-9 * (1.0 + v.abs()))
            .map(|i| self.labels[i].clone())
            .unwrap_or_default()
    }

    /// The ticks as the layout records them, with the axis title.
    pub fn ticks(&self, title: &str) -> AxisTicks {
        AxisTicks {
            values: self.values.clone(),
            labels: self.labels.clone(),
            integer: self.integer,
            title: title.to_string(),
        }
    }

    fn t(&self, v: f64) -> f64 {
        match self.map {
            Map::Linear => v,
            Map::Log => v.max(f64::MIN_POSITIVE).ln(),
            Map::Asinh(s) => (v / s).asinh(),
        }
    }
}

impl Ranged for Scale {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let (a, b) = (self.t(self.lo), self.t(self.hi));
        let f = if b > a {
            (self.t(*v) - a) / (b - a)
        } else {
            0.5
        };
        let p = limit.0 as f64 + (limit.1 - limit.0) as f64 * f;
        // `as` saturates (and maps NaN to 0): never a panic on odd data.
        p.round().clamp(-1e7, 1e7) as i32
    }

    fn key_points<H: KeyPointHint>(&self, hint: H) -> Vec<f64> {
        // Bold ticks only: light grid lines would double them.
        if hint.max_num_points() == 0 || hint.weight().allow_light_points() {
            return Vec::new();
        }
        self.values.clone()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

/// About `n` whole ticks over `[lo, hi]`: a 1-2-5 step of at least 1.
pub fn integer_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(hi > lo && lo.is_finite() && hi.is_finite()) {
        return if lo.is_finite() && lo.fract() == 0.0 {
            vec![lo]
        } else {
            Vec::new()
        };
    }
    let raw = ((hi - lo) / n.max(1) as f64).max(1.0);
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|s| *s >= raw)
        .unwrap_or(10.0 * p)
        .round()
        .max(1.0);
    let mut out = Vec::new();
    let mut k = (lo / step).ceil();
    if !(k.is_finite() && k + 1.0 != k) {
        return out;
    }
    while k * step <= hi && out.len() < 1000 {
        out.push(k * step + 0.0);
        k += 1.0;
    }
    out
}

/// Decimals that print `v` exactly (up to 6).
fn decimals(v: f64) -> usize {
    (0..=6)
        .find(|&d| {
            let p = 10f64.powi(d as i32);
            ((v * p).round() / p - v).abs() <= 1e-9 * v.abs().max(1e-12)
        })
        .unwrap_or(6)
}

const SUPERSCRIPT: [char; 10] = ['⁰', '¹', '²', '³', '⁴', '⁵', '⁶', '⁷', '⁸', '⁹'];

/// `10` with exponent `k` in superscript digits (`10⁻³`).
fn power_of_ten(k: i32) -> String {
    let mut s = String::from("10");
    if k < 0 {
        s.push('⁻');
    }
    for c in k.unsigned_abs().to_string().chars() {
        s.push(SUPERSCRIPT[c.to_digit(10).unwrap_or(0) as usize]);
    }
    s
}

/// The labels of one axis' ticks in one number format: powers of ten
/// (`10⁶`, `2×10⁵`) for every tick when one of them is 10⁵ or more, or
/// below 10⁻³ in magnitude; otherwise plain decimals, each tick with the
/// same number of decimals on a linear axis (`0.0, 0.5, 1.0`) — on a log
/// axis (ticks a factor apart) with the decimals it needs (`0.05, 0.1, 1`).
pub fn tick_labels(values: &[f64]) -> Vec<String> {
    let finite = || values.iter().copied().filter(|v| v.is_finite());
    let big = finite().map(f64::abs).fold(0.0, f64::max);
    let small = finite()
        .map(f64::abs)
        .filter(|v| *v > 0.0)
        .fold(f64::INFINITY, f64::min);
    if big >= 1e5 || small < 1e-3 {
        return values
            .iter()
            .map(|&v| {
                if v == 0.0 || !v.is_finite() {
                    return format!("{v}");
                }
                let k = v.abs().log10().floor() as i32;
                let m = v / 10f64.powi(k);
                let (m, k) = if (m.abs() - 10.0).abs() < 1e-9 {
                    (m / 10.0, k + 1)
                } else {
                    (m, k)
                };
                let mant = format!("{:.*}", decimals(m).min(2), m);
                if mant == "1" {
                    power_of_ten(k)
                } else if mant == "-1" {
                    format!("−{}", power_of_ten(k))
                } else {
                    format!("{}×{}", mant.replace('-', "−"), power_of_ten(k))
                }
            })
            .collect();
    }
    // Ticks a constant ratio apart (a log axis) keep their own decimals;
    // evenly spaced ones share the largest.
    let even = values.len() < 3
        || values
            .windows(3)
            .all(|w| ((w[2] - w[1]) - (w[1] - w[0])).abs() <= 1e-6 * (w[1] - w[0]).abs());
    let d = values.iter().map(|v| decimals(*v)).max().unwrap_or(0);
    values
        .iter()
        .map(|&v| {
            let d = if even { d } else { decimals(v) };
            let s = format!("{v:.d$}");
            // −0 prints as 0; the minus sign as a true minus.
            if s.trim_start_matches('-')
                .chars()
                .all(|c| c == '0' || c == '.')
            {
                s.trim_start_matches('-').to_string()
            } else {
                s.replace('-', "−")
            }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_format_per_axis() {
        // decay.png printed 1.00e6 beside 10000.
        assert_eq!(
            tick_labels(&[0.1, 1.0, 10.0, 1e4, 1e5, 1e6]),
            ["10⁻¹", "10⁰", "10¹", "10⁴", "10⁵", "10⁶"]
        );
        assert_eq!(tick_labels(&[2e5, 4e5]), ["2×10⁵", "4×10⁵"]);
        assert_eq!(
            tick_labels(&[0.0, 0.5, 1.0, 1.5]),
            ["0.0", "0.5", "1.0", "1.5"]
        );
        assert_eq!(
            tick_labels(&[0.05, 0.1, 0.2, 0.5, 1.0]),
            ["0.05", "0.1", "0.2", "0.5", "1"]
        );
        assert_eq!(tick_labels(&[-2.0, 0.0, 2.0]), ["−2", "0", "2"]);
        assert_eq!(
            tick_labels(&[0.0, 0.2, 0.4, 0.6000000000000001, 0.8]),
            ["0.0", "0.2", "0.4", "0.6", "0.8"]
        );
    }

    #[test]
    fn whole_axes_have_whole_ticks() {
        // relay and timeline plots put 1.5 and 2.5 on hops and batches.
        assert_eq!(integer_ticks(0.8, 3.2, 8), [1.0, 2.0, 3.0]);
        assert_eq!(integer_ticks(-0.1, 40.0, 8), [0.0, 10.0, 20.0, 30.0, 40.0]);
        assert_eq!(
            integer_ticks(-0.1, 40.0, 10),
            [0.0, 5.0, 10.0, 15.0, 20.0, 25.0, 30.0, 35.0, 40.0]
        );
        let s = Scale::integer(0.7, 3.3);
        assert_eq!(s.values(), [1.0, 2.0, 3.0]);
        assert_eq!(s.label(2.0), "2");
        let s = Scale::log(0.4, 30.0, true);
        assert!(
            s.values().iter().all(|v| v.fract() == 0.0),
            "{:?}",
            s.values()
        );
    }

    #[test]
    fn reference_value_is_a_tick() {
        // coalition_size.png: a dashed line at gain 1 and no tick there.
        let s = Scale::log_with(0.004, 60.0, 1.0);
        assert!(s.values().contains(&1.0), "{:?}", s.values());
        let a = Scale::asinh(-150.0, 80.0, Some(0.3));
        assert!(a.is_asinh());
        assert_eq!(a.values(), [-100.0, -10.0, -1.0, 0.0, 1.0, 10.0]);
    }
}
