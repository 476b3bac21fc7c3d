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

use super::data::{ByDistanceRow, read_by_distance, read_summary_if_present};
use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
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
    Ok(ErrorFigure {
        series,
        post: rows.iter().any(|r| r.post_mse.is_some()),
        distance_label: summary
            .as_ref()
            .map_or_else(|| super::data::distance_label(None), |s| s.distance_label()),
    })
}

impl Figure for ErrorFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        let pts = || self.series.iter().flat_map(|s| s.points.iter());
        let (xlo, xhi) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.x), b.max(p.x))
        });
        // Smallest gap between bucket centres sets the dodge and padding.
        let mut xs: Vec<f64> = pts().map(|p| p.x).collect();
        xs.sort_by(f64::total_cmp);
        xs.dedup();
        let gap = xs
            .windows(2)
            .map(|w| w[1] - w[0])
            .fold(f64::INFINITY, f64::min);
        let gap = if gap.is_finite() && gap > 0.0 {
            gap
        } else {
            1.0
        };
        let (x0, x1) = style::safe_range(xlo - 0.6 * gap, xhi + 0.6 * gap);
        let (y0, y1) = self.y_range();
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Error against distance: empirical RMSE (95% CI) vs theory",
                style::bold(fonts.title * 0.9),
            )
            .margin(15)
            .x_label_area_size((fonts.axis * 2.8) as u32)
            .y_label_area_size((fonts.axis * 4.4) as u32)
            .build_cartesian_2d(x0..x1, style::log_axis(y0, y1))?;
        let fmt = |v: &f64| style::log_tick(*v);
        chart
            .configure_mesh()
            .x_desc(self.distance_label.as_str())
            .y_desc(if self.post {
                "RMSE √E‖raw − u‖² before post-processing (log scale)"
            } else {
                "RMSE √E‖y − u‖² (log scale)"
            })
            .y_label_formatter(&fmt)
            .x_label_formatter(&style::lin_tick)
            .axis_desc_style(style::regular(fonts.axis))
            .label_style(style::regular(fonts.label))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(0xE0, 0xE0, 0xE0))
            .draw()?;
        let m = self.series.len() as f64;
        let half = 0.05 * gap;
        let r = (fonts.label * 0.32).max(2.0) as u32;
        let w = (fonts.label * 0.4).max(3.0) as i32;
        // Theory: mechanisms with identical curves (correlated and independent
        // share their marginals) get one black line instead of hiding each other.
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
            chart
                .draw_series(DashedLineSeries::new(
                    curves[i].clone(),
                    10,
                    6,
                    c.stroke_width(2),
                ))?
                .label(format!("theoretical RMSE: {}", names.join(" = ")))
                .legend(move |(x, y)| {
                    DashedPathElement::new(vec![(x, y), (x + 24, y)], 5, 3, c.stroke_width(2))
                });
        }
        for (i, s) in self.series.iter().enumerate() {
            let c = style::mechanism_color(&s.mechanism, i);
            let dx = 0.12 * gap * (i as f64 - (m - 1.0) / 2.0);
            chart.draw_series(s.points.iter().filter(|p| p.rmse > 0.0).flat_map(|p| {
                style::whisker(
                    p.x + dx,
                    p.lo.max(y0),
                    p.hi.min(y1),
                    half,
                    c.stroke_width(2),
                )
            }))?;
            chart
                .draw_series(
                    s.points
                        .iter()
                        .filter(|p| p.rmse > 0.0)
                        .map(|p| Circle::new((p.x + dx, p.rmse), r, c.filled())),
                )?
                .label(format!("{}: empirical RMSE ± 95% CI", s.mechanism))
                .legend(move |(x, y)| Circle::new((x + 12, y), r, c.filled()));
            chart.draw_series(
                s.points
                    .iter()
                    .filter(|p| p.rmse > 0.0 && p.lo < y0)
                    .map(|p| {
                        EmptyElement::at((p.x + dx, y0)) + Polygon::new(arrowhead(w), c.filled())
                    }),
            )?;
        }
        if pts().any(|p| p.rmse > 0.0 && p.lo < y0) {
            chart
                .draw_series(std::iter::empty::<Circle<(f64, f64), u32>>())?
                .label("95% CI reaching below the axis (lower end ≤ 0 or off scale)")
                .legend(move |(x, y)| {
                    EmptyElement::at((x + 12, y + w))
                        + Polygon::new(arrowhead(w), style::MID_GREY.filled())
                });
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(style::regular(fonts.label))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
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
