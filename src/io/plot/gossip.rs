//! The gossip figure (`privacy.png` / `.svg`): privacy loss ε at δ against
//! hop distance (`privacy_by_distance.csv`, `two_schools.csv`, log y axis):
//! the reference code's accounting (median, capped at the local level), the
//! exact loss (median as points joined by a line, worst pair dashed in the
//! same colour), and diffusion's Laplace mechanism matched to them (pure ε,
//! median and worst). A flat exact line at the cap means no amplification.

use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::Result;
use crate::gossip::{PrivacyByDistanceRow, TwoSchoolsRow};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One curve: its name, colour index, dashed or not, points (hop, ε).
type Curve = (String, usize, bool, Vec<(f64, f64)>);

/// The figure's data.
pub struct GossipFigure {
    curves: Vec<Curve>,
}

impl GossipFigure {
    /// From a run's per-hop rows.
    pub fn new(by_distance: &[PrivacyByDistanceRow], two: &[TwoSchoolsRow]) -> GossipFigure {
        let pts = |f: &dyn Fn(&PrivacyByDistanceRow) -> Option<f64>| -> Vec<(f64, f64)> {
            by_distance
                .iter()
                .filter(|r| r.distance > 0)
                .filter_map(|r| f(r).filter(|y| *y > 0.0).map(|y| (r.distance as f64, y)))
                .collect()
        };
        let lap = |stat: &str| -> Vec<(f64, f64)> {
            two.iter()
                .filter(|r| r.statistic == stat)
                .filter_map(|r| {
                    let d = r.distance?;
                    r.eps_laplace.filter(|y| *y > 0.0).map(|y| (d as f64, y))
                })
                .collect()
        };
        let curves = vec![
            (
                "code's accounting (8), median, capped".to_string(),
                0,
                false,
                pts(&|r| r.eps_paper.median),
            ),
            (
                "exact loss (11), median".into(),
                1,
                false,
                pts(&|r| r.eps_exact.median),
            ),
            (
                "exact loss (11), worst pair".into(),
                1,
                true,
                pts(&|r| r.eps_exact.max),
            ),
            (
                "diffusion, Laplace matched, median".into(),
                2,
                false,
                lap("median"),
            ),
            (
                "diffusion, Laplace matched, worst".into(),
                2,
                true,
                lap("worst"),
            ),
        ];
        GossipFigure {
            curves: curves.into_iter().filter(|c| !c.3.is_empty()).collect(),
        }
    }
}

impl Figure for GossipFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        let pts = || self.curves.iter().flat_map(|c| c.3.iter());
        let (xlo, xhi, ylo, yhi) = pts().fold(
            (
                f64::INFINITY,
                f64::NEG_INFINITY,
                f64::INFINITY,
                f64::NEG_INFINITY,
            ),
            |(a, b, c, d), p| (a.min(p.0), b.max(p.0), c.min(p.1), d.max(p.1)),
        );
        let (xlo, xhi) = if xlo.is_finite() {
            (xlo, xhi)
        } else {
            (1.0, 2.0)
        };
        let (ylo, yhi) = if ylo.is_finite() {
            (ylo, yhi)
        } else {
            (0.1, 1.0)
        };
        let (x0, x1) = style::pad_range(xlo, xhi, 0.05);
        // Room above the curves for the legend.
        let (y0, y1) = style::pad_log_range(ylo, yhi * 4.0, 1.3);
        let mut chart = ChartBuilder::on(root)
            .caption(
                "Gossip averaging: privacy loss against hop distance",
                style::bold(fonts.title * 0.9),
            )
            .margin(15)
            .x_label_area_size((fonts.axis * 2.8) as u32)
            .y_label_area_size((fonts.axis * 4.4) as u32)
            .build_cartesian_2d(x0..x1, style::log_axis(y0, y1))?;
        let fmt = |v: &f64| style::log_tick(*v);
        chart
            .configure_mesh()
            .x_desc("hop distance from source to observer")
            .y_desc("ε at δ (gossip: tight Gaussian curve; Laplace: pure ε)")
            .x_label_formatter(&style::lin_tick)
            .y_label_formatter(&fmt)
            .axis_desc_style(style::regular(fonts.axis))
            .label_style(style::regular(fonts.label))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(0xE0, 0xE0, 0xE0))
            .draw()?;
        let r = (fonts.label * 0.32).max(2.0) as u32;
        for (name, ci, dashed, ps) in &self.curves {
            let c = style::series_color(*ci);
            if *dashed {
                chart
                    .draw_series(DashedLineSeries::new(ps.clone(), 10, 6, c.stroke_width(2)))?
                    .label(name.clone())
                    .legend(move |(x, y)| PathElement::new(vec![(x, y), (x + 24, y)], c));
            } else {
                chart.draw_series(LineSeries::new(ps.clone(), c.stroke_width(2)))?;
                chart
                    .draw_series(ps.iter().map(|p| Circle::new(*p, r, c.filled())))?
                    .label(name.clone())
                    .legend(move |(x, y)| Circle::new((x + 12, y), r, c.filled()));
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

/// Draws `privacy.png` and `privacy.svg` into `dir`.
pub fn draw(dir: &Path, by_distance: &[PrivacyByDistanceRow], two: &[TwoSchoolsRow]) -> Result<()> {
    let fig = GossipFigure::new(by_distance, two);
    style::render(&fig, &dir.join("privacy.png"), super::DEFAULT_SIZE)?;
    style::render(&fig, &dir.join("privacy.svg"), super::DEFAULT_SIZE)
}
