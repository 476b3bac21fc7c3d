//! Figure 3 (`--kind error`): how error grows with distance.
//!
//! Per mechanism and distance bucket of `by_distance.csv`: the empirical RMSE
//! `√mse` with a 95% interval `√max(mse ± 1.96·mse_se, 0)` (a delta-free
//! transform of the normal interval on the MSE, whose standard error treats
//! owners as clusters), against the theoretical RMSE `√mse_theory` as a
//! dashed line of the same colour. Log y; mechanisms are dodged sideways so
//! their intervals do not hide each other. The axis reaches a decade below
//! the lowest point at most: an interval whose lower end lies below it (at 0
//! when the interval covers 0) ends at the axis with a downward arrowhead.
//! With `--post`, `mse` is the error before post-processing (‖raw − u‖),
//! and the axis says so.

use super::axis::Scale;
use super::chart::{self, Axes, Chart};
use super::data::{ByDistanceRow, read_by_distance, read_summary_if_present};
use super::layout::Mark;
use super::legend::{self, Entry, MarksResult, Plot, Swatch};
use super::style::{self, Fonts};
use crate::error::{Error, Result};
use plotters::prelude::*;
use std::path::Path;

/// One bucket of one mechanism.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ErrorPoint {
    /// Bucket centre (distance).
    pub x: f64,
    /// Empirical RMSE.
    pub rmse: f64,
    /// Lower end of the 95% interval (0 when clipped).
    pub lo: f64,
    /// Upper end of the 95% interval.
    pub hi: f64,
    /// Theoretical RMSE.
    pub theory: f64,
}

/// One mechanism's buckets, ascending in distance.
#[derive(Clone, Debug, PartialEq)]
pub struct ErrorSeries {
    /// Mechanism name.
    pub mechanism: String,
    /// Buckets.
    pub points: Vec<ErrorPoint>,
}

/// Data of figure 3.
#[derive(Clone, Debug)]
pub struct ErrorFigure {
    /// One series per mechanism, in order of first appearance.
    pub series: Vec<ErrorSeries>,
    /// The answers were post-processed (`post_mse` present): `mse` is the
    /// error of the raw answers.
    pub post: bool,
    /// Axis text for distances.
    pub distance_label: String,
    /// Every bucket is one whole distance (hops): whole ticks.
    pub whole: bool,
}

/// The 95% interval of the RMSE from the MSE and its standard error:
/// `(√max(mse − 1.96·se, 0), √(mse + 1.96·se))`.
pub fn rmse_interval(mse: f64, se: f64) -> (f64, f64) {
    let se = if se.is_finite() { se.max(0.0) } else { 0.0 };
    (
        (mse - 1.96 * se).max(0.0).sqrt(),
        (mse + 1.96 * se).max(0.0).sqrt(),
    )
}

/// Groups the rows by mechanism (skipping empty buckets and non-finite MSEs).
pub fn series(rows: &[ByDistanceRow]) -> Vec<ErrorSeries> {
    let mut out: Vec<ErrorSeries> = Vec::new();
    for r in rows {
        if r.count == 0 || !r.mse.is_finite() || r.mse < 0.0 {
            continue;
        }
        let (lo, hi) = rmse_interval(r.mse, r.mse_se);
        let p = ErrorPoint {
            x: 0.5 * (r.distance_lo + r.distance_hi),
            rmse: r.mse.sqrt(),
            lo,
            hi,
            theory: r.mse_theory.sqrt(),
        };
        match out.iter_mut().find(|s| s.mechanism == r.mechanism) {
            Some(s) => s.points.push(p),
            None => out.push(ErrorSeries {
                mechanism: r.mechanism.clone(),
                points: vec![p],
            }),
        }
    }
    for s in &mut out {
        s.points.sort_by(|a, b| a.x.total_cmp(&b.x));
    }
    out
}

/// Loads figure 3 from `by_distance.csv` (`input` is the file or its
/// directory; `summary.json` beside it names the distance kind).
pub fn load(input: &Path) -> Result<ErrorFigure> {
    let (file, dir) = if input.is_dir() {
        (input.join("by_distance.csv"), input.to_path_buf())
    } else {
        let dir = input.parent().map(Path::to_path_buf).unwrap_or_default();
        (input.to_path_buf(), dir)
    };
    let rows = read_by_distance(&file)?;
    let series = series(&rows);
    if series.is_empty() {
        return Err(Error::NothingToDraw {
            file,
            reason: "no bucket with responses and a finite mse".into(),
        });
    }
    let summary = read_summary_if_present(&dir)?;
    let whole = rows
        .iter()
        .filter(|r| r.count > 0 && r.mse.is_finite())
        .all(|r| r.distance_lo == r.distance_hi && r.distance_lo.fract() == 0.0);
    Ok(ErrorFigure {
        whole,
        series,
        post: rows.iter().any(|r| r.post_mse.is_some()),
        distance_label: summary
            .as_ref()
            .map_or_else(|| super::data::distance_label(None), |s| s.distance_label()),
    })
}

/// A theory curve: its legend text, colour and points.
type TheoryCurve = (String, RGBColor, Vec<(f64, f64)>);

/// Legend text of the arrowheads.
const ARROW: &str = "95% CI reaching below the axis (lower end ≤ 0 or off scale)";

impl ErrorFigure {
    /// Smallest gap between bucket centres (the dodge and padding).
    fn gap(&self) -> f64 {
        let mut xs: Vec<f64> = self
            .series
            .iter()
            .flat_map(|s| s.points.iter().map(|p| p.x))
            .collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let gap = xs
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(f64::INFINITY, f64::min);
        if gap.is_finite() && gap > 0.0 {
            gap
        } else {
            1.0
        }
    }

    /// Theory curves, mechanisms with identical curves (correlated and
    /// independent share their marginals) merged into one black line
    /// instead of hiding each other: (label, colour, points).
    fn theory_groups(&self) -> Vec<TheoryCurve> {
        let theory_of = |s: &ErrorSeries| -> Vec<(f64, f64)> {
            s.points
                .iter()
                .filter(|p| p.theory.is_finite() && p.theory > 0.0)
                .map(|p| (p.x, p.theory))
                .collect()
        };
        let curves: Vec<Vec<(f64, f64)>> = self.series.iter().map(theory_of).collect();
        let same = |a: &[(f64, f64)], b: &[(f64, f64)]| {
            a.len() == b.len()
                && a.iter()
                    .zip(b)
                    .all(|(p, q)| p.0 == q.0 && (p.1 - q.1).abs() <= 1e-9 * p.1)
        };
        let mut done = vec![false; curves.len()];
        let mut out = Vec::new();
        for i in 0..curves.len() {
            if done[i] || curves[i].is_empty() {
                continue;
            }
            let group: Vec<usize> = (i..curves.len())
                .filter(|&j| !done[j] && same(&curves[i], &curves[j]))
                .collect();
            let names: Vec<&str> = group
                .iter()
                .map(|&j| self.series[j].mechanism.as_str())
                .collect();
            for &j in &group {
                done[j] = true;
            }
            let c = if group.len() > 1 {
                style::OI_BLACK
            } else {
                style::mechanism_color(names[0], i)
            };
            out.push((
                format!("theoretical RMSE: {}", names.join(" = ")),
                c,
                curves[i].clone(),
            ));
        }
        out
    }

    fn label(s: &ErrorSeries) -> String {
        format!("{}: empirical RMSE ± 95% CI", s.mechanism)
    }
}

impl Plot for ErrorFigure {
    const NAME: &'static str = "error";
    const Y_LABELS: f64 = 2.6;

    fn title(&self) -> String {
        "Error against distance: empirical RMSE (95% CI) and theory".into()
    }

    fn axes(&self) -> Axes {
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        let (xlo, xhi) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.x), b.max(p.x))
        });
        let gap = self.gap();
        let (x0, x1) = style::safe_range(xlo - 0.6 * gap, xhi + 0.6 * gap);
        let (y0, y1) = self.y_range();
        Axes {
            x: Scale::linear_or_integer(x0, x1, self.whole),
            y: Scale::log(y0, y1, false),
            x_desc: self.distance_label.clone(),
            y_desc: if self.post {
                "RMSE √E‖raw − u‖² before post-processing (log scale)".into()
            } else {
                "RMSE √E‖y − u‖² (log scale)".into()
            },
        }
    }

    fn entries(&self) -> Vec<Entry> {
        let mut e: Vec<Entry> = self
            .theory_groups()
            .into_iter()
            .map(|(l, c, _)| Entry::dashed(l, c, 2))
            .collect();
        for (i, s) in self.series.iter().enumerate() {
            let c = style::mechanism_color(&s.mechanism, i);
            e.push(Entry::marker(Self::label(s), 0, c, false));
        }
        let (y0, _) = self.y_range();
        if self
            .series
            .iter()
            .flat_map(|s| &s.points)
            .any(|p| p.rmse > 0.0 && p.lo < y0)
        {
            e.push(Entry::new(ARROW, Swatch::Arrow(style::MID_GREY)));
        }
        e
    }

    fn marks<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        fonts: &Fonts,
        axes: &Axes,
    ) -> MarksResult<DB> {
        let (y0, y1) = axes.y.bounds();
        let gap = self.gap();
        let m = self.series.len() as f64;
        let half = 0.05 * gap;
        let r = legend::marker_radius(fonts);
        let w = (fonts.label * 0.4).max(3.0) as i32;
        let mut marks = Vec::new();
        for (label, c, pts) in self.theory_groups() {
            chart.draw_series(DashedLineSeries::new(pts.clone(), 10, 6, c.stroke_width(2)))?;
            let mut mark = Mark::new(label);
            mark.line(chart::pxs(chart, pts));
            marks.push(mark);
        }
        let mut arrows = Mark::new(ARROW);
        for (i, s) in self.series.iter().enumerate() {
            let c = style::mechanism_color(&s.mechanism, i);
            let dx = 0.12 * gap * (i as f64 - (m - 1.0) / 2.0);
            let shown: Vec<&ErrorPoint> = s.points.iter().filter(|p| p.rmse > 0.0).collect();
            let mut mark = Mark::new(Self::label(s));
            for p in &shown {
                let (lo, hi) = (p.lo.max(y0), p.hi.min(y1));
                chart.draw_series(style::whisker(p.x + dx, lo, hi, half, c.stroke_width(2)))?;
                mark.line(chart::pxs(chart, [(p.x + dx, lo), (p.x + dx, hi)]));
            }
            chart.draw_series(
                shown
                    .iter()
                    .map(|p| Circle::new((p.x + dx, p.rmse), r as u32, c.filled())),
            )?;
            mark.points(
                chart::pxs(chart, shown.iter().map(|p| (p.x + dx, p.rmse))),
                r,
            );
            marks.push(mark);
            let low: Vec<(f64, f64)> = shown
                .iter()
                .filter(|p| p.lo < y0)
                .map(|p| (p.x + dx, y0))
                .collect();
            chart.draw_series(
                low.iter()
                    .map(|&q| EmptyElement::at(q) + Polygon::new(arrowhead(w), c.filled())),
            )?;
            arrows.points(chart::pxs(chart, low), w);
        }
        if !arrows.shapes.is_empty() {
            marks.push(arrows);
        }
        Ok(marks)
    }
}

impl ErrorFigure {
    /// The log y range: every RMSE, theory and upper end, and lower ends
    /// down to a decade below the lowest of those (an interval reaching 0
    /// would otherwise have no end on a log axis, a tiny positive one would
    /// squash the points into the top).
    fn y_range(&self) -> (f64, f64) {
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        let positive = |y: &f64| y.is_finite() && *y > 0.0;
        let core = pts()
            .flat_map(|p| [p.rmse, p.hi, p.theory])
            .filter(positive);
        let (lo, hi) = core.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(y), b.max(y))
        });
        let ends = pts()
            .map(|p| p.lo)
            .filter(|y| positive(y) && *y >= lo / 10.0);
        let lo = ends.fold(lo, f64::min);
        style::pad_log_range(lo, hi, 1.4)
    }
}

/// A downward arrowhead of half-width `w` pixels with its tip at (0, 0):
/// the lower end of an interval that runs off the bottom of the axis.
fn arrowhead(w: i32) -> Vec<(i32, i32)> {
    vec![(-w, -2 * w), (w, -2 * w), (0, 0)]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interval_clips_at_zero() {
        let (lo, hi) = rmse_interval(4.0, 0.5);
        assert!((lo - (4.0f64 - 0.98).sqrt()).abs() < 1e-12);
        assert!((hi - (4.0f64 + 0.98).sqrt()).abs() < 1e-12);
        assert_eq!(rmse_interval(1.0, 10.0).0, 0.0);
        assert_eq!(rmse_interval(1.0, f64::NAN), (1.0, 1.0));
    }
}
