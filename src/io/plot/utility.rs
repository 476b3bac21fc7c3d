//! The utility figure (`utility.png` / `.svg`, `plot --kind utility`):
//! root-mean-square error of each recipient's estimate of its network mean
//! against its degree (log₂ degree buckets of `utility.csv`, log-log axes,
//! whole degrees on the ticks), one colour and marker per scheme (its fixed
//! style, [`crate::io::sweep_intervals::SCHEMES`]) — empirical as markers
//! joined by lines (whiskers ± 1.96 se with replicates), theory dashed in
//! the same colour (none for `access`, whose error is a deterministic
//! bias), every one of them in the legend.

use super::axis::Scale;
use super::chart::{self, Axes, Chart};
use super::layout::Mark;
use super::legend::{self, Entry, MarksResult, Plot, Swatch};
use super::style::{self, Fonts};
use crate::error::Result;
use crate::utility::UtilityRow;
use plotters::prelude::*;
use std::path::Path;

/// One scheme's points: (degree centre, rmse, lo, hi, theory rmse).
type Pt = (f64, f64, f64, f64, Option<f64>);

/// The figure's data.
#[derive(Clone, Debug)]
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

impl UtilityFigure {
    fn any_whiskers(&self) -> bool {
        self.series.iter().flat_map(|s| &s.1).any(|p| p.3 > p.2)
    }

    fn any_theory(&self) -> bool {
        self.series
            .iter()
            .flat_map(|s| &s.1)
            .any(|p| p.4.is_some_and(|t| t > 0.0))
    }

    fn color(name: &str, i: usize) -> RGBColor {
        // The scheme's colour of every utility figure (sweep figures too).
        style::series_color(crate::io::sweep_intervals::scheme_style(name).map_or(i, |s| s.color))
    }

    fn marker(name: &str) -> usize {
        crate::io::sweep_intervals::scheme_style(name).map_or(0, |s| s.marker)
    }
}

/// Legend text of the dashed theory lines.
const THEORY: &str = "theory (dashed, the scheme's colour)";
/// Legend text of the whiskers.
const WHISKERS: &str = "± 1.96 SE over the replicates";

impl Plot for UtilityFigure {
    const NAME: &'static str = "utility";
    const Y_LABELS: f64 = 3.6;

    fn title(&self) -> String {
        "Network-wide mean: estimation error against recipient degree".into()
    }

    fn axes(&self) -> Axes {
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
        Axes {
            x: Scale::log(x0, x1, true),
            y: Scale::log(y0, y1, false),
            x_desc: "recipient degree (log₂ buckets; degree 0 drawn at ½)".into(),
            y_desc: "RMSE of the recipient's estimate of its network mean".into(),
        }
    }

    fn entries(&self) -> Vec<Entry> {
        let mut e: Vec<Entry> = self
            .series
            .iter()
            .enumerate()
            .map(|(i, (name, _))| {
                Entry::marker(name.clone(), Self::marker(name), Self::color(name, i), true)
            })
            .collect();
        if self.any_theory() {
            e.push(Entry::dashed(THEORY, style::MID_GREY, 2));
        }
        if self.any_whiskers() {
            e.push(Entry::new(WHISKERS, Swatch::Whisker(style::MID_GREY)));
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
        let r = legend::marker_radius(fonts);
        let mut marks = Vec::new();
        let mut theory = Mark::new(THEORY);
        for (i, (name, ps)) in self.series.iter().enumerate() {
            let c = Self::color(name, i);
            let good: Vec<&Pt> = ps.iter().filter(|p| p.1 > 0.0).collect();
            let mut m = Mark::new(name.clone());
            let line: Vec<(f64, f64)> = good.iter().map(|p| (p.0, p.1)).collect();
            chart.draw_series(LineSeries::new(line.clone(), c.stroke_width(2)))?;
            m.line(chart::pxs(chart, line.iter().copied()));
            for p in &good {
                let (lo, hi) = (p.2.max(y0), p.3.min(y1));
                if hi > lo {
                    chart.draw_series(style::whisker(
                        p.0,
                        lo,
                        hi,
                        0.03 * p.0,
                        c.stroke_width(2),
                    ))?;
                    m.line(chart::pxs(chart, [(p.0, lo), (p.0, hi)]));
                }
            }
            for &q in &line {
                super::markers::draw_marker(chart.plotting_area(), q, Self::marker(name), r, c)?;
            }
            m.points(chart::pxs(chart, line.iter().copied()), r);
            marks.push(m);
            let th: Vec<(f64, f64)> = ps
                .iter()
                .filter_map(|p| p.4.filter(|t| *t > 0.0).map(|t| (p.0, t)))
                .collect();
            if !th.is_empty() {
                chart.draw_series(DashedLineSeries::new(th.clone(), 10, 6, c.stroke_width(2)))?;
                theory.line(chart::pxs(chart, th));
            }
        }
        if !theory.shapes.is_empty() {
            marks.push(theory);
        }
        Ok(marks)
    }
}

/// Draws `utility.png` and `utility.svg` into `dir` from the run's rows
/// (the same bytes as `plot --kind utility` draws from `utility.csv`).
pub fn draw(dir: &Path, rows: &[UtilityRow]) -> Result<()> {
    let fig = UtilityFigure::new(rows);
    super::render_pair(&fig, dir, super::Kind::Utility, super::DEFAULT_SIZE).map(|_| ())
}

/// Loads the figure from `utility.csv` (`input` is the file or the run
/// directory holding it).
pub fn load(input: &Path) -> Result<UtilityFigure> {
    let file = super::input_file(input, "utility.csv");
    let rows = super::data::read_utility(&file)?;
    let fig = UtilityFigure::new(&rows);
    if fig.series.is_empty() {
        return Err(crate::error::Error::NothingToDraw {
            file,
            reason: "no degree bucket rows".into(),
        });
    }
    Ok(fig)
}
