//! The relay figure (`relay.png` / `.svg`): the privacy level a recipient
//! actually learned relative to its own, `eps_learned / eps(d)`, against its
//! distance from the owner (`relay_by_distance.csv`, log y axis), one colour
//! per untrimmed fraction — the mean as points joined by a line, the largest
//! dashed in the same colour. Every relay trimming gives the flat line at 1.

use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::Result;
use crate::relay::RelayByDistanceRow;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One fraction's points: (distance, mean ratio, largest ratio).
type Pt = (f64, f64, f64);

/// The figure's data.
pub struct RelayFigure {
    series: Vec<(f64, Vec<Pt>)>,
}

impl RelayFigure {
    /// From `relay_by_distance.csv` rows (a bucket is drawn at its centre).
    pub fn new(rows: &[RelayByDistanceRow]) -> RelayFigure {
        let mut series: Vec<(f64, Vec<Pt>)> = Vec::new();
        for r in rows {
            let x = 0.5 * (r.distance_lo + r.distance_hi);
            let p = (x, r.eps_learned_ratio_mean, r.eps_learned_ratio_max);
            match series.iter_mut().find(|s| s.0 == r.untrimmed) {
                Some(s) => s.1.push(p),
                None => series.push((r.untrimmed, vec![p])),
            }
        }
        RelayFigure { series }
    }
}

impl Figure for RelayFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        let pts = || self.series.iter().flat_map(|s| s.1.iter());
        let (xlo, xhi) = pts().fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
            (a.min(p.0), b.max(p.0))
        });
        let yhi = pts()
            .map(|p| p.2)
            .filter(|y| y.is_finite())
            .fold(1.0, f64::max);
        let (x0, x1) = style::pad_range(xlo, xhi, 0.05);
        let (y0, y1) = style::pad_log_range(1.0, yhi.max(2.0), 1.15);
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Relay: privacy level learned relative to one's own, against distance",
                style::bold(fonts.title * 0.9),
            )
            .margin(15)
            .x_label_area_size((fonts.axis * 2.8) as u32)
            .y_label_area_size((fonts.axis * 4.4) as u32)
            .build_cartesian_2d(x0..x1, style::log_axis(y0, y1))?;
        let fmt = |v: &f64| style::log_tick(*v);
        chart
            .configure_mesh()
            .x_desc("distance from the owner")
            .y_desc("eps_learned / eps(d)  (mean; dashed: largest)")
            .x_label_formatter(&style::lin_tick)
            .y_label_formatter(&fmt)
            .axis_desc_style(style::regular(fonts.axis))
            .label_style(style::regular(fonts.label))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(0xE0, 0xE0, 0xE0))
            .draw()?;
        let r = (fonts.label * 0.32).max(2.0) as u32;
        for (i, (f, ps)) in self.series.iter().enumerate() {
            let c = style::series_color(i);
            chart.draw_series(LineSeries::new(
                ps.iter().map(|p| (p.0, p.1)),
                c.stroke_width(2),
            ))?;
            chart
                .draw_series(ps.iter().map(|p| Circle::new((p.0, p.1), r, c.filled())))?
                .label(format!("untrimmed {}", crate::util::fmt_f64(*f)))
                .legend(move |(x, y)| Circle::new((x + 12, y), r, c.filled()));
            chart.draw_series(DashedLineSeries::new(
                ps.iter().map(|p| (p.0, p.2)),
                10,
                6,
                c.stroke_width(1),
            ))?;
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

/// Draws `relay.png` and `relay.svg` into `dir`.
pub fn draw(dir: &Path, rows: &[RelayByDistanceRow]) -> Result<()> {
    let fig = RelayFigure::new(rows);
    style::render(&fig, &dir.join("relay.png"), super::DEFAULT_SIZE)?;
    style::render(&fig, &dir.join("relay.svg"), super::DEFAULT_SIZE)
}
