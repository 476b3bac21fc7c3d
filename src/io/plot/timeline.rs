//! The evolve figure (`timeline.png` / `.svg`): privacy spent (left) and
//! MSE (right) against batch for the three policies of `evolve` — the
//! store's `correlated` answers (one path per owner), `resample` (fresh
//! noise at each new ε: privacy Σ ε, the pooled answers' error) and `frozen`
//! (the first answer only) — with the correlated answers' theoretical MSE
//! dashed. Both y axes are logarithmic, the batch axis has whole ticks,
//! and each panel has its legend where it covers no line. `plot --kind
//! timeline` draws it again from `timeline.csv`.

use super::axis::{Map, Scale};
use super::chart::{self, Axes};
use super::layout::Mark;
use super::legend::{self, Entry, Panel, PanelResult};
use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::Result;
use crate::store::TimelineRow;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

type Series = (&'static str, RGBColor, Vec<(f64, f64)>);

/// The figure's data: per panel, one series per policy.
#[derive(Clone, Debug)]
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

/// One panel of the figure: its caption, y axis and series.
struct TimelinePanel<'a> {
    caption: &'a str,
    y_desc: &'a str,
    series: &'a [Series],
    theory: &'a [(f64, f64)],
}

/// Legend text of the theory line.
const THEORY: &str = "correlated, theory (dashed)";

impl TimelinePanel<'_> {
    fn axes(&self) -> Axes {
        let all = || {
            self.series
                .iter()
                .flat_map(|s| s.2.iter())
                .chain(self.theory.iter())
        };
        let (xhi, ylo, yhi) = all().fold((1.0f64, f64::INFINITY, f64::NEG_INFINITY), |a, p| {
            (a.0.max(p.0), a.1.min(p.1), a.2.max(p.1))
        });
        let (ylo, yhi) = if ylo.is_finite() {
            (ylo, yhi)
        } else {
            (0.1, 1.0)
        };
        let (y0, y1) = style::pad_log_range(ylo, yhi, 1.3);
        let (y0, y1) = style::safe_log_range(y0, y1);
        Axes {
            x: Scale::integer(0.0, xhi.max(1.0)),
            y: Scale::with(y0, y1, Map::Log, y_ticks(y0, y1), false),
            x_desc: "batch".into(),
            y_desc: format!("{} (log scale)", self.y_desc),
        }
    }

    fn entries(&self) -> Vec<Entry> {
        let mut e: Vec<Entry> = self
            .series
            .iter()
            .map(|(name, c, _)| Entry::line(*name, *c, 2))
            .collect();
        if !self.theory.is_empty() {
            e.push(Entry::dashed(THEORY, style::OI_BLUE, 2));
        }
        e
    }
}

impl Panel for TimelinePanel<'_> {
    fn chart<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> PanelResult<DB> {
        let axes = self.axes();
        let mut chart = chart::gridded(area, fonts, Some(self.caption), &axes, 3.0)?;
        let mut marks = Vec::new();
        for (name, c, ps) in self.series {
            chart.draw_series(LineSeries::new(ps.iter().copied(), c.stroke_width(2)))?;
            let mut m = Mark::new(*name);
            m.line(chart::pxs(&chart, ps.iter().copied()));
            marks.push(m);
        }
        if !self.theory.is_empty() {
            chart.draw_series(DashedLineSeries::new(
                self.theory.iter().copied(),
                8,
                6,
                style::OI_BLUE.stroke_width(2),
            ))?;
            let mut m = Mark::new(THEORY);
            m.line(chart::pxs(&chart, self.theory.iter().copied()));
            marks.push(m);
        }
        Ok(chart::layout(&chart, self.caption, &axes, marks))
    }
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
        let spent = TimelinePanel {
            caption: "Privacy spent per pair",
            y_desc: "mean ε spent",
            series: &self.spent,
            theory: &[],
        };
        let mse = TimelinePanel {
            caption: "Error of the answer a pair holds",
            y_desc: "mean ‖y − u‖²",
            series: &self.mse,
            theory: &self.theory,
        };
        let mut layout = legend::with_legend(&l, &fonts, &spent, &spent.entries())?;
        layout.extend(legend::with_legend(&r, &fonts, &mse, &mse.entries())?);
        Ok(layout)
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

/// Draws `timeline.png` and `timeline.svg` into `dir` from the run's rows
/// (the same bytes as `plot --kind timeline` draws from `timeline.csv`).
pub fn draw(dir: &Path, rows: &[TimelineRow]) -> Result<()> {
    let fig = TimelineFigure::new(rows);
    super::render_pair(&fig, dir, super::Kind::Timeline, super::DEFAULT_SIZE).map(|_| ())
}

/// Loads the figure from `timeline.csv` (`input` is the file or the
/// `evolve` output directory holding it).
pub fn load(input: &Path) -> Result<TimelineFigure> {
    let file = super::input_file(input, "timeline.csv");
    let rows = super::data::read_timeline(&file)?;
    if rows.is_empty() {
        return Err(crate::error::Error::NothingToDraw {
            file,
            reason: "the file has a header and no rows".into(),
        });
    }
    Ok(TimelineFigure::new(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The y labels of a panel whose data span `[lo, hi]`, as drawn.
    fn labels(lo: f64, hi: f64) -> Vec<String> {
        let p = TimelinePanel {
            caption: "",
            y_desc: "",
            series: &[("a", style::OI_BLUE, vec![(1.0, lo), (2.0, hi)])],
            theory: &[],
        };
        let y = p.axes().y;
        y.values().iter().map(|v| y.label(*v)).collect()
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
