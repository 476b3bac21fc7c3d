//! The relay figure (`relay.png` / `.svg`, `plot --kind relay`): the
//! privacy level a recipient actually learned relative to its own,
//! `eps_learned / eps(d)`, against its distance from the owner
//! (`relay_by_distance.csv`, log y axis; whole ticks when every bucket is a
//! whole hop), one colour per untrimmed fraction — the mean as markers
//! joined by a line, the largest dashed in the same colour. Every relay
//! trimming gives the flat line at 1.

use super::axis::Scale;
use super::chart::{self, Axes, Chart};
use super::layout::Mark;
use super::legend::{self, Entry, MarksResult, Plot};
use super::style::{self, Fonts};
use crate::error::{Error, Result};
use crate::relay::RelayByDistanceRow;
use plotters::prelude::*;
use std::path::Path;

/// One fraction's points: (distance, mean ratio, largest ratio).
type Pt = (f64, f64, f64);

/// The figure's data.
#[derive(Clone, Debug)]
pub struct RelayFigure {
    series: Vec<(f64, Vec<Pt>)>,
    /// Every bucket is one whole distance (hops).
    whole: bool,
}

/// Legend text of the dashed lines.
const LARGEST: &str = "largest in the bucket (dashed, same colour)";

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
        let whole = rows
            .iter()
            .all(|r| r.distance_lo == r.distance_hi && r.distance_lo.fract() == 0.0);
        RelayFigure { series, whole }
    }

    fn label(f: f64) -> String {
        format!("untrimmed fraction {}", crate::util::fmt_f64(f))
    }
}

impl Plot for RelayFigure {
    const NAME: &'static str = "relay";
    const Y_LABELS: f64 = 3.0;

    fn title(&self) -> String {
        "Relay: privacy level learned relative to one's own, against distance".into()
    }

    fn axes(&self) -> Axes {
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
        Axes {
            x: Scale::linear_or_integer(x0, x1, self.whole),
            y: Scale::log_with(y0, y1, 1.0),
            x_desc: if self.whole {
                "distance from the owner (hops)".into()
            } else {
                "distance from the owner".into()
            },
            y_desc: "ε learned / ε(d): mean over the bucket (log scale)".into(),
        }
    }

    fn entries(&self) -> Vec<Entry> {
        let mut e: Vec<Entry> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, (f, _))| Entry::marker(Self::label(*f), 0, style::series_color(i), true))
            .collect();
        if !self.series.is_empty() {
            e.push(Entry::dashed(LARGEST, style::MID_GREY, 2));
        }
        e
    }

    fn marks<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        fonts: &Fonts,
        _axes: &Axes,
    ) -> MarksResult<DB> {
        let r = legend::marker_radius(fonts);
        let mut marks = Vec::new();
        let mut largest = Mark::new(LARGEST);
        for (i, (f, ps)) in self.series.iter().enumerate() {
            let c = style::series_color(i);
            let mean: Vec<(f64, f64)> = ps.iter().map(|p| (p.0, p.1)).collect();
            let top: Vec<(f64, f64)> = ps.iter().map(|p| (p.0, p.2)).collect();
            chart.draw_series(DashedLineSeries::new(top.clone(), 10, 6, c.stroke_width(2)))?;
            largest.line(chart::pxs(chart, top));
            chart.draw_series(LineSeries::new(mean.clone(), c.stroke_width(2)))?;
            chart.draw_series(mean.iter().map(|&p| Circle::new(p, r as u32, c.filled())))?;
            let mut m = Mark::new(Self::label(*f));
            m.line(chart::pxs(chart, mean.iter().copied()));
            m.points(chart::pxs(chart, mean), r);
            marks.push(m);
        }
        if !largest.shapes.is_empty() {
            marks.push(largest);
        }
        Ok(marks)
    }
}

/// Loads the figure from `relay_by_distance.csv` (`input` is the file or
/// the run directory holding it).
pub fn load(input: &Path) -> Result<RelayFigure> {
    let file = super::input_file(input, "relay_by_distance.csv");
    let rows = super::data::read_relay_by_distance(&file)?;
    if rows.is_empty() {
        return Err(Error::NothingToDraw {
            file,
            reason: "the file has a header and no rows".into(),
        });
    }
    Ok(RelayFigure::new(&rows))
}

/// Draws `relay.png` and `relay.svg` into `dir` from the run's rows (the
/// same bytes as `plot --kind relay` draws from `relay_by_distance.csv`).
pub fn draw(dir: &Path, rows: &[RelayByDistanceRow]) -> Result<()> {
    let fig = RelayFigure::new(rows);
    super::render_pair(&fig, dir, super::Kind::Relay, super::DEFAULT_SIZE).map(|_| ())
}
