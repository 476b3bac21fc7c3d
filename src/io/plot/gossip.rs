//! The gossip figure (`privacy.png` / `.svg`): privacy loss ε at δ against
//! hop distance (`privacy_by_distance.csv`, `two_schools.csv`, log y axis):
//! the reference code's accounting (median, capped at the local level), the
//! exact loss (median as points joined by a line, worst pair dashed in the
//! same colour), and diffusion's Laplace mechanism matched to them (pure ε,
//! median and worst). A flat exact line at the cap means no amplification.

use super::axis::Scale;
use super::chart::{self, Axes, Chart};
use super::layout::Mark;
use super::legend::{self, Entry, MarksResult, Plot};
use super::style::{self, Fonts};
use crate::error::Result;
use crate::gossip::{PrivacyByDistanceRow, TwoSchoolsRow};
use plotters::prelude::*;
use std::path::Path;

/// One curve: its name, colour index, dashed or not, points (hop, ε).
type Curve = (String, usize, bool, Vec<(f64, f64)>);

/// The figure's data.
#[derive(Clone, Debug)]
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

impl GossipFigure {}

impl Plot for GossipFigure {
    const NAME: &'static str = "gossip";
    const Y_LABELS: f64 = 3.0;

    fn title(&self) -> String {
        "Gossip averaging: privacy loss against hop distance".into()
    }

    fn axes(&self) -> Axes {
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
        let (y0, y1) = style::pad_log_range(ylo, yhi, 1.3);
        Axes {
            x: Scale::integer(x0, x1),
            y: Scale::log(y0, y1, false),
            x_desc: "hop distance from source to observer".into(),
            y_desc: "ε at δ (gossip: tight Gaussian curve; Laplace: pure ε)".into(),
        }
    }

    fn entries(&self) -> Vec<Entry> {
        self.curves
            .iter()
            .map(|(name, ci, dashed, _)| {
                let c = style::series_color(*ci);
                if *dashed {
                    Entry::dashed(name.clone(), c, 2)
                } else {
                    Entry::marker(name.clone(), 0, c, true)
                }
            })
            .collect()
    }

    fn marks<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        fonts: &Fonts,
        _axes: &Axes,
    ) -> MarksResult<DB> {
        let r = legend::marker_radius(fonts);
        let mut marks = Vec::new();
        for (name, ci, dashed, ps) in &self.curves {
            let c = style::series_color(*ci);
            let mut m = Mark::new(name.clone());
            if *dashed {
                chart.draw_series(DashedLineSeries::new(ps.clone(), 10, 6, c.stroke_width(2)))?;
                m.line(chart::pxs(chart, ps.iter().copied()));
            } else {
                chart.draw_series(LineSeries::new(ps.clone(), c.stroke_width(2)))?;
                chart.draw_series(ps.iter().map(|&p| Circle::new(p, r as u32, c.filled())))?;
                m.line(chart::pxs(chart, ps.iter().copied()));
                m.points(chart::pxs(chart, ps.iter().copied()), r);
            }
            marks.push(m);
        }
        Ok(marks)
    }
}

/// Reads a gossip run directory's `privacy_by_distance.csv` and
/// `two_schools.csv` (what `plot --kind gossip` draws).
pub fn load(dir: &Path) -> Result<GossipFigure> {
    let by = dir.join("privacy_by_distance.csv");
    let rows = super::data::read_privacy_by_distance(&by)?;
    let two = super::data::read_two_schools(&dir.join("two_schools.csv"))?;
    let fig = GossipFigure::new(&rows, &two);
    if fig.curves.is_empty() {
        return Err(crate::error::Error::NothingToDraw {
            file: by,
            reason: "no hop with a positive privacy loss".into(),
        });
    }
    Ok(fig)
}

/// Draws `privacy.png` and `privacy.svg` into `dir` from the run's rows (the
/// same bytes as `plot --kind gossip` draws from the run's files).
pub fn draw(dir: &Path, by_distance: &[PrivacyByDistanceRow], two: &[TwoSchoolsRow]) -> Result<()> {
    let fig = GossipFigure::new(by_distance, two);
    super::render_pair(&fig, dir, super::Kind::Gossip, super::DEFAULT_SIZE).map(|_| ())
}
