//! The utility figure (`utility.png` / `.svg`): root-mean-square error of
//! each recipient's estimate of its network mean against its degree (log₂
//! degree buckets of `utility.csv`, log-log axes), one colour per scheme (its
//! fixed colour, [`crate::io::sweep_intervals::SCHEMES`]) —
//! empirical as points joined by lines (whiskers ± 1.96 se with
//! replicates), theory dashed in the same colour (none for `access`, whose
//! error is a deterministic bias).

use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::Result;
use crate::utility::UtilityRow;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One scheme's points: (degree centre, rmse, lo, hi, theory rmse).
type Pt = (f64, f64, f64, f64, Option<f64>);

/// The figure's data.
pub struct UtilityFigure {
    series: Vec<(String, Vec<Pt>)>,
}

impl UtilityFigure {
    /// From `utility.csv` rows (bucket rows only).
    pub fn new(rows: &[UtilityRow]) -> UtilityFigure {
        let mut series: Vec<(String, Vec<Pt>)> = Vec::new();
        for r in rows {
            let (Some(lo), Some(hi)) = (r.degree_lo, r.degree_hi) else {
                continue;
            };
            // Degree 0 drawn at ½ on the log axis.
            let x = if hi == 0 {
                0.5
            } else {
                ((lo as f64) * (hi as f64)).sqrt()
            };
            let (l, h) = super::error::rmse_interval(r.mse, r.mse_se.unwrap_or(0.0));
            let p = (x, r.mse.sqrt(), l, h, r.mse_theory.map(f64::sqrt));
            match series.iter_mut().find(|s| s.0 == r.scheme) {
                Some(s) => s.1.push(p),
                None => series.push((r.scheme.clone(), vec![p])),
            }
        }
        UtilityFigure { series }
    }
}

impl Figure for UtilityFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        let pts = || self.series.iter().flat_map(|s| s.1.iter());
        let (xlo, xhi) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
        let (xlo, xhi) = if xlo.is_finite() {
            (xlo, xhi)
        } else {
            (0.5, 2.0)
        };
        let ys = pts()
            .flat_map(|p| [p.1, p.2, p.3, p.4.unwrap_or(f64::NAN)])
            .filter(|y| y.is_finite() && *y > 0.0);
        let (ylo, yhi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(y), b.max(y))
        });
        let (ylo, yhi) = if ylo.is_finite() {
            (ylo, yhi)
        } else {
            (1e-3, 1.0)
        };
        let (x0, x1) = style::pad_log_range(xlo, xhi, 1.5);
        let (y0, y1) = style::pad_log_range(ylo, yhi, 1.4);
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Network-wide mean: estimation error against recipient degree",
                style::bold(fonts.title * 0.9),
            )
            .margin(15)
            .x_label_area_size((fonts.axis * 2.8) as u32)
            .y_label_area_size((fonts.axis * 4.4) as u32)
            .build_cartesian_2d(style::log_axis(x0, x1), style::log_axis(y0, y1))?;
        let fmt = |v: &f64| style::log_tick(*v);
        chart
            .configure_mesh()
            .x_desc("recipient degree (log₂ buckets; degree 0 at ½)")
            .y_desc("RMSE of the recipient's estimate of ū_j")
            .x_label_formatter(&fmt)
            .y_label_formatter(&fmt)
            .axis_desc_style(style::regular(fonts.axis))
            .label_style(style::regular(fonts.label))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(0xE0, 0xE0, 0xE0))
            .draw()?;
        let r = (fonts.label * 0.32).max(2.0) as u32;
        for (i, (name, ps)) in self.series.iter().enumerate() {
            // The scheme's colour of every utility figure (sweep figures too).
            let c = style::series_color(
                crate::io::sweep_intervals::scheme_style(name).map_or(i, |s| s.color),
            );
            let good: Vec<&Pt> = ps.iter().filter(|p| p.1 > 0.0).collect();
            chart.draw_series(LineSeries::new(
                good.iter().map(|p| (p.0, p.1)),
                c.stroke_width(2),
            ))?;
            chart.draw_series(good.iter().flat_map(|p| {
                style::whisker(p.0, p.2.max(y0), p.3.min(y1), 0.03 * p.0, c.stroke_width(2))
            }))?;
            chart
                .draw_series(good.iter().map(|p| Circle::new((p.0, p.1), r, c.filled())))?
                .label(name.clone())
                .legend(move |(x, y)| Circle::new((x + 12, y), r, c.filled()));
            let th: Vec<(f64, f64)> = ps
                .iter()
                .filter_map(|p| p.4.filter(|t| *t > 0.0).map(|t| (p.0, t)))
                .collect();
            if !th.is_empty() {
                chart.draw_series(DashedLineSeries::new(th, 10, 6, c.stroke_width(1)))?;
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperRight)
            .label_font(style::regular(fonts.label))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
    }
}

/// Draws `utility.png` and `utility.svg` into `dir`.
pub fn draw(dir: &Path, rows: &[UtilityRow]) -> Result<()> {
    let fig = UtilityFigure::new(rows);
    style::render(&fig, &dir.join("utility.png"), super::DEFAULT_SIZE)?;
    style::render(&fig, &dir.join("utility.svg"), super::DEFAULT_SIZE)
}
