//! The evolve figure (`timeline.png` / `.svg`): privacy spent (left) and
//! MSE (right) against batch for the three policies of `evolve` — the
//! store's `correlated` answers (one path per owner), `resample` (fresh
//! noise at each new ε: privacy Σ ε, the pooled answers' error) and `frozen`
//! (the first answer only) — with the correlated answers' theoretical MSE
//! dashed. Both y axes are logarithmic.

use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::Result;
use crate::store::TimelineRow;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

type Series = (&'static str, RGBColor, Vec<(f64, f64)>);

/// The figure's data: per panel, one series per policy.
pub struct TimelineFigure {
    spent: Vec<Series>,
    mse: Vec<Series>,
    theory: Vec<(f64, f64)>,
}

fn pts(rows: &[TimelineRow], f: impl Fn(&TimelineRow) -> Option<f64>) -> Vec<(f64, f64)> {
    rows.iter()
        .filter_map(|r| {
            f(r).filter(|y| y.is_finite() && *y > 0.0)
                .map(|y| (r.batch as f64, y))
        })
        .collect()
}

impl TimelineFigure {
    /// From the timeline rows.
    pub fn new(rows: &[TimelineRow]) -> TimelineFigure {
        let (c, r, f) = (style::OI_BLUE, style::OI_VERMILLION, style::OI_GREEN);
        TimelineFigure {
            spent: vec![
                ("correlated (max ε)", c, pts(rows, |r| r.eps_spent)),
                ("resample (Σ ε)", r, pts(rows, |r| r.resample_eps_spent)),
                ("frozen (first ε)", f, pts(rows, |r| r.frozen_eps_spent)),
            ],
            mse: vec![
                ("correlated (best answer)", c, pts(rows, |r| r.mse)),
                ("resample (pooled)", r, pts(rows, |r| r.resample_mse)),
                ("frozen (first answer)", f, pts(rows, |r| r.frozen_mse)),
            ],
            theory: pts(rows, |r| r.mse_theory),
        }
    }
}

fn panel<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    fonts: &Fonts,
    caption: &str,
    y_desc: &str,
    series: &[Series],
    theory: &[(f64, f64)],
) -> DrawResult<DB> {
    let all = || series.iter().flat_map(|s| s.2.iter()).chain(theory.iter());
    let (xhi, ylo, yhi) = all().fold((1.0f64, f64::INFINITY, f64::NEG_INFINITY), |a, p| {
        (a.0.max(p.0), a.1.min(p.1), a.2.max(p.1))
    });
    let (ylo, yhi) = if ylo.is_finite() {
        (ylo, yhi)
    } else {
        (0.1, 1.0)
    };
    let (y0, y1) = style::pad_log_range(ylo, yhi, 1.3);
    let mut chart = ChartBuilder::on(area)
        .caption(caption, style::bold(fonts.caption))
        .margin(12)
        .x_label_area_size((fonts.axis * 2.6) as u32)
        .y_label_area_size((fonts.axis * 4.0) as u32)
        .build_cartesian_2d(0.0..xhi.max(1.0), y_axis(y0, y1))?;
    let fmt = |v: &f64| y_label(*v);
    chart
        .configure_mesh()
        .x_desc("batch")
        .y_desc(y_desc)
        .y_label_formatter(&fmt)
        .x_label_formatter(&style::lin_tick)
        .axis_desc_style(style::regular(fonts.axis))
        .label_style(style::regular(fonts.label))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(0xE0, 0xE0, 0xE0))
        .draw()?;
    for (name, c, ps) in series {
        let c = *c;
        chart
            .draw_series(LineSeries::new(ps.iter().copied(), c.stroke_width(2)))?
            .label(*name)
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(2)));
    }
    if !theory.is_empty() {
        let c = style::OI_BLUE;
        chart
            .draw_series(DashedLineSeries::new(
                theory.iter().copied(),
                8,
                6,
                c.stroke_width(1),
            ))?
            .label("correlated, theory")
            .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 20, y)], c.stroke_width(1)));
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperLeft)
        .label_font(style::regular(fonts.label))
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK)
        .draw()
}

impl Figure for TimelineFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        let top = style::title_height(&fonts, false);
        let (head, body) = root.split_vertically(top);
        style::draw_title(
            &head,
            "A changing network: three release policies on one trigger",
            None,
            &fonts,
        )?;
        let (l, r) = body.split_horizontally(body.dim_in_pixel().0 / 2);
        panel(
            &l,
            &fonts,
            "Privacy spent per pair",
            "mean ε spent",
            &self.spent,
            &[],
        )?;
        panel(
            &r,
            &fonts,
            "Error of the answer a pair holds",
            "mean ‖y − u‖²",
            &self.mse,
            &self.theory,
        )
    }
}

/// The y ticks: [`style::log_ticks`] (1-2-5 per decade, or every mantissa
/// 1–9 on a range under a decade, as the privacy spent and the MSE usually
/// are), or, when that leaves fewer than three on a range narrower still,
/// linear 1-2-5 steps (a log axis a fraction of a decade wide is nearly
/// linear).
fn y_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let (lo, hi) = style::safe_log_range(lo, hi);
    let t = style::log_ticks(lo, hi);
    if t.len() >= 3 {
        return t;
    }
    style::linear_ticks(lo, hi, 6)
        .into_iter()
        .filter(|&v| v > 0.0 && v >= lo && v <= hi)
        .collect()
}

/// The log y axis over `[lo, hi]` with the ticks of [`y_ticks`].
fn y_axis(
    lo: f64,
    hi: f64,
) -> plotters::coord::combinators::WithKeyPoints<plotters::coord::combinators::LogCoord<f64>> {
    use plotters::coord::combinators::BindKeyPoints;
    let (lo, hi) = style::safe_log_range(lo, hi);
    (lo..hi).log_scale().with_key_points(y_ticks(lo, hi))
}

/// The label of a y tick: every tick of [`y_ticks`] is labelled
/// ([`style::log_tick`] blanks all but mantissas 1, 2, 5, which left the
/// privacy axis, ≈ 4–9, with the single label 5).
fn y_label(v: f64) -> String {
    style::short(v)
}

/// Draws `timeline.png` and `timeline.svg` into `dir`.
pub fn draw(dir: &Path, rows: &[TimelineRow]) -> Result<()> {
    let fig = TimelineFigure::new(rows);
    style::render(&fig, &dir.join("timeline.png"), super::DEFAULT_SIZE)?;
    style::render(&fig, &dir.join("timeline.svg"), super::DEFAULT_SIZE)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The y labels of a panel whose data span `[lo, hi]`, as drawn.
    fn labels(lo: f64, hi: f64) -> Vec<String> {
        let (y0, y1) = style::pad_log_range(lo, hi, 1.3);
        y_ticks(y0, y1)
            .into_iter()
            .map(y_label)
            .filter(|s| !s.is_empty())
            .collect()
    }

    #[test]
    fn both_y_axes_carry_several_labels() {
        // facebook, 10 % held out, at the last batch: privacy spent 5.6–6.8,
        // MSE 0.100–0.131; the ego net's narrower ranges; one wide range.
        for (lo, hi) in [(5.5997, 6.7874), (0.1004, 0.1306), (2.0, 2.05), (0.01, 3.0)] {
            let l = labels(lo, hi);
            assert!(l.len() >= 3, "[{lo}, {hi}]: labels {l:?}");
            let mut u = l.clone();
            u.dedup();
            assert_eq!(u, l, "[{lo}, {hi}]: two ticks print alike");
        }
        assert_eq!(labels(5.5997, 6.7874), ["5", "6", "7", "8"]);
    }
}
