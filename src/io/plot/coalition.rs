//! Figure 4 (`--kind coalition`): how much a coalition gains by pooling.
//!
//! One panel per mechanism (correlated, independent, gaussian — as present),
//! sharing a log y axis of gain = MSE(best member) / MSE(estimator); x = the
//! coalitions of `coalition.csv` ordered by size (label and member count on
//! the ticks, on two lines); one colour and marker per estimator, dodged
//! within each coalition and not joined (the coalitions are kinds, not a
//! scale), and the line gain = 1 (no better than the best member), which
//! is also a tick. One legend for the panels (the colours mean the same in
//! each), where it covers no marker.
//!
//! Aggregation over owners, per (mechanism, coalition, estimator): with one
//! owner the point is its gain and the whisker its 95% interval
//! `[gain_lo, gain_hi]`; with several owners the point is the median gain over
//! owners and the whisker spans the smallest to the largest owner's gain (the
//! spread across owners, which contains the per-owner sampling noise).

use super::axis::Scale;
use super::chart::{self, Axes};
use super::data::{CoalitionRow, read_coalition};
use super::layout::Mark;
use super::legend::{self, Entry, Panel, PanelResult, Swatch};
use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::Path;

/// One aggregated point.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GainPoint {
    /// Coalition slot (index into [`CoalitionFigure::coalitions`]).
    pub slot: usize,
    /// Median gain over owners (the gain itself for one owner).
    pub gain: f64,
    /// Lower whisker.
    pub lo: f64,
    /// Upper whisker.
    pub hi: f64,
    /// Owners aggregated.
    pub owners: usize,
}

/// A coalition slot on the x axis.
#[derive(Clone, Debug, PartialEq)]
pub struct CoalitionSlot {
    /// Label from `coalition.csv`.
    pub label: String,
    /// Smallest and largest size over owners, and the median.
    pub size_min: u64,
    /// See `size_min`.
    pub size_max: u64,
    /// See `size_min`.
    pub size_median: u64,
}

impl CoalitionSlot {
    /// Tick text: label and member count (a median when owners differ). A
    /// spec that already names its size (`m=M`) and has it for every owner is
    /// printed alone.
    pub fn tick(&self) -> String {
        match self.tick_lines() {
            (l, Some(m)) => format!("{l} ({m})"),
            (l, None) => l,
        }
    }

    /// The tick on two lines: the spec, and its member count when the spec
    /// does not name it (`m = 65`, or `m ≈ 65`: the median over owners).
    pub fn tick_lines(&self) -> (String, Option<String>) {
        let names_size = self.label.contains(&format!("m={}", self.size_min));
        if self.size_min == self.size_max && names_size {
            (self.label.clone(), None)
        } else if self.size_min == self.size_max {
            (self.label.clone(), Some(format!("m = {}", self.size_min)))
        } else {
            (
                self.label.clone(),
                Some(format!("m ≈ {}", self.size_median)),
            )
        }
    }
}

/// Data of figure 4.
#[derive(Clone, Debug)]
pub struct CoalitionFigure {
    /// Coalitions ordered by median size (then label).
    pub coalitions: Vec<CoalitionSlot>,
    /// Estimators in order of first appearance.
    pub estimators: Vec<String>,
    /// Mechanisms (panels) in order of first appearance, each with its points
    /// per estimator.
    pub panels: Vec<(String, Vec<Vec<GainPoint>>)>,
    /// Distinct owners in the file.
    pub owners: usize,
}

fn median_f(v: &mut [f64]) -> f64 {
    v.sort_by(f64::total_cmp);
    let n = v.len();
    if n % 2 == 1 {
        v[n / 2]
    } else {
        0.5 * (v[n / 2 - 1] + v[n / 2])
    }
}

fn first_seen<'a>(it: impl Iterator<Item = &'a str>) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for s in it {
        if !out.iter().any(|x| x == s) {
            out.push(s.to_string());
        }
    }
    out
}

/// Aggregates the rows (see the module docs for how owners are combined).
/// Rows whose gain is not a finite positive number are left out.
pub fn aggregate(rows: &[CoalitionRow]) -> CoalitionFigure {
    let labels = first_seen(rows.iter().map(|r| r.coalition.as_str()));
    let mut coalitions: Vec<CoalitionSlot> = labels
        .iter()
        .map(|l| {
            let mut sizes: Vec<u64> = rows
                .iter()
                .filter(|r| &r.coalition == l)
                .map(|r| r.size)
                .collect();
            sizes.sort_unstable();
            CoalitionSlot {
                label: l.clone(),
                size_min: sizes[0],
                size_max: sizes[sizes.len() - 1],
                size_median: sizes[sizes.len() / 2],
            }
        })
        .collect();
    coalitions.sort_by(|a, b| {
        a.size_median
            .cmp(&b.size_median)
            .then_with(|| a.label.cmp(&b.label))
    });
    let estimators = first_seen(rows.iter().map(|r| r.estimator.as_str()));
    let mechanisms = first_seen(rows.iter().map(|r| r.mechanism.as_str()));
    let owners = first_seen(rows.iter().map(|r| r.owner.as_str())).len();
    let ok = |g: f64| g.is_finite() && g > 0.0;
    let panels = mechanisms
        .iter()
        .map(|m| {
            let per_est = estimators
                .iter()
                .map(|e| {
                    coalitions
                        .iter()
                        .enumerate()
                        .filter_map(|(slot, c)| {
                            let group: Vec<&CoalitionRow> = rows
                                .iter()
                                .filter(|r| {
                                    &r.mechanism == m
                                        && &r.estimator == e
                                        && r.coalition == c.label
                                        && ok(r.gain)
                                })
                                .collect();
                            match group.len() {
                                0 => None,
                                1 => {
                                    let r = group[0];
                                    Some(GainPoint {
                                        slot,
                                        gain: r.gain,
                                        lo: if r.gain_lo.is_finite() {
                                            r.gain_lo
                                        } else {
                                            r.gain
                                        },
                                        hi: if r.gain_hi.is_finite() {
                                            r.gain_hi
                                        } else {
                                            r.gain
                                        },
                                        owners: 1,
                                    })
                                }
                                n => {
                                    let mut g: Vec<f64> = group.iter().map(|r| r.gain).collect();
                                    let med = median_f(&mut g);
                                    Some(GainPoint {
                                        slot,
                                        gain: med,
                                        lo: g[0],
                                        hi: g[n - 1],
                                        owners: n,
                                    })
                                }
                            }
                        })
                        .collect()
                })
                .collect();
            (m.clone(), per_est)
        })
        .collect();
    CoalitionFigure {
        coalitions,
        estimators,
        panels,
        owners,
    }
}

/// Loads figure 4 from `coalition.csv` (`input` is the file or its directory).
pub fn load(input: &Path) -> Result<CoalitionFigure> {
    let file = super::input_file(input, "coalition.csv");
    let rows = read_coalition(&file)?;
    let fig = aggregate(&rows);
    let points: usize = fig
        .panels
        .iter()
        .flat_map(|(_, e)| e.iter().map(Vec::len))
        .sum();
    if points == 0 {
        return Err(Error::NothingToDraw {
            file,
            reason: "no row with a finite positive gain (are all coalitions empty?)".into(),
        });
    }
    Ok(fig)
}

/// Legend text of the reference line.
const ONE: &str = "gain = 1: no better than the best member";

/// The estimator legend text of the whiskers.
fn whisker_text(owners: usize) -> String {
    if owners <= 1 {
        "whisker: 95% confidence interval of the gain".into()
    } else {
        format!("marker: median over {owners} owners; whisker: their range")
    }
}

impl CoalitionFigure {
    fn y_range(&self) -> (f64, f64) {
        let mut lo: f64 = 1.0;
        let mut hi: f64 = 1.0;
        for (_, per) in &self.panels {
            for p in per.iter().flatten() {
                for y in [p.gain, p.lo, p.hi] {
                    if y.is_finite() && y > 0.0 {
                        lo = lo.min(y);
                        hi = hi.max(y);
                    }
                }
            }
        }
        style::pad_log_range(lo, hi, 1.6)
    }

    fn axes(&self) -> Axes {
        let k = self.coalitions.len();
        let (y0, y1) = self.y_range();
        let ticks: Vec<(f64, String)> = self
            .coalitions
            .iter()
            .enumerate()
            .map(|(i, c)| (i as f64, c.tick()))
            .collect();
        Axes {
            x: Scale::categories(-0.5, k as f64 - 0.5, &ticks, true),
            y: Scale::log_with(y0, y1, 1.0),
            x_desc: "coalition, ordered by size (m: members)".into(),
            y_desc: "gain = MSE(best member) / MSE(estimator), log scale".into(),
        }
    }

    fn entries(&self) -> Vec<Entry> {
        let mut e = vec![Entry::dashed(ONE, style::OI_BLACK, 2)];
        for (i, name) in self.estimators.iter().enumerate() {
            e.push(Entry::marker(
                name.clone(),
                marker(i),
                style::series_color(i),
                false,
            ));
        }
        e.push(Entry::new(
            whisker_text(self.owners),
            Swatch::Whisker(style::MID_GREY),
        ));
        e
    }
}

/// The marker of estimator `i`: a shape of its own besides its colour.
fn marker(i: usize) -> usize {
    [0, 1, 2, 6, 4, 5, 7, 3][i % 8]
}

/// One mechanism's panel.
struct CoalitionPanel<'a> {
    fig: &'a CoalitionFigure,
    mechanism: &'a str,
    per_est: &'a [Vec<GainPoint>],
}

impl Panel for CoalitionPanel<'_> {
    fn chart<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> PanelResult<DB> {
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        let fig = self.fig;
        let k = fig.coalitions.len();
        let axes = fig.axes();
        let (y0, y1) = axes.y.bounds();
        let caption = format!("{} mechanism", self.mechanism);
        let mut chart = chart::build_with(area, fonts, Some(caption.as_str()), &axes, 2.6, 2.0)?;
        // The tick labels are drawn below by hand, on two lines.
        let mut bare = axes.clone();
        bare.x = Scale::categories(-0.5, k as f64 - 0.5, &[], true);
        chart::mesh(&mut chart, fonts, &bare, true)?;
        let plot = chart.plotting_area().get_pixel_range();
        let below = area.get_base_pixel();
        let f = style::regular(fonts.label).pos(Pos::new(HPos::Center, VPos::Top));
        for (i, c) in fig.coalitions.iter().enumerate() {
            let (x, _) = chart::px(&chart, (i as f64, y0));
            let y = plot.1.end - below.1 + (fonts.label * 0.5) as i32;
            let (first, second) = c.tick_lines();
            area.draw(&Text::new(first, (x - below.0, y), f.clone()))?;
            if let Some(s) = second {
                let y2 = y + (fonts.label * 1.25) as i32;
                area.draw(&Text::new(s, (x - below.0, y2), f.clone()))?;
            }
        }
        let mut marks = Vec::new();
        let one = vec![(-0.5, 1.0), (k as f64 - 0.5, 1.0)];
        chart.draw_series(DashedLineSeries::new(
            one.clone(),
            10,
            6,
            style::OI_BLACK.stroke_width(2),
        ))?;
        let mut m = Mark::new(ONE);
        m.line(chart::pxs(&chart, one));
        marks.push(m);
        let n = fig.estimators.len() as f64;
        let half = 0.12 / n.max(1.0);
        let r = legend::marker_radius(fonts);
        for (e, pts) in self.per_est.iter().enumerate() {
            let c = style::series_color(e);
            // Dodged sideways within the slot; no line: the coalitions are
            // kinds, not points of a scale.
            let dx = |slot: usize| slot as f64 + 0.5 * (e as f64 - (n - 1.0) / 2.0) / n.max(1.0);
            let mut m = Mark::new(fig.estimators[e].clone());
            for p in pts {
                let (lo, hi) = (p.lo.max(y0), p.hi.min(y1));
                chart.draw_series(style::whisker(dx(p.slot), lo, hi, half, c.stroke_width(2)))?;
                m.line(chart::pxs(&chart, [(dx(p.slot), lo), (dx(p.slot), hi)]));
            }
            for p in pts {
                super::markers::draw_marker(
                    chart.plotting_area(),
                    (dx(p.slot), p.gain),
                    marker(e),
                    r,
                    c,
                )?;
            }
            m.points(
                chart::pxs(&chart, pts.iter().map(|p| (dx(p.slot), p.gain))),
                r,
            );
            marks.push(m);
        }
        Ok(chart::layout(&chart, &caption, &axes, marks))
    }
}

impl Figure for CoalitionFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        let how = if self.owners <= 1 {
            "one owner".to_string()
        } else {
            format!("median over {} owners", self.owners)
        };
        style::draw_title(
            root,
            "Coalition gain of pooled estimators over the best member",
            Some(&how),
            &fonts,
        )?;
        let body = root.margin(style::title_height(&fonts, true), 0, 0, 0);
        let panels: Vec<CoalitionPanel<'_>> = self
            .panels
            .iter()
            .map(|(m, per)| CoalitionPanel {
                fig: self,
                mechanism: m,
                per_est: per,
            })
            .collect();
        legend::with_shared_legend(&body, &fonts, &panels, &self.entries())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(owner: &str, coal: &str, size: u64, mech: &str, est: &str, gain: f64) -> CoalitionRow {
        CoalitionRow {
            owner: owner.into(),
            coalition: coal.into(),
            size,
            eps_max: 1.0,
            eps_sum: 2.0,
            mechanism: mech.into(),
            estimator: est.into(),
            mse: 1.0,
            gain,
            gain_lo: gain * 0.9,
            gain_hi: gain * 1.1,
            win_rate: 0.5,
        }
    }

    #[test]
    fn one_owner_uses_ci_many_owners_median_and_range() {
        let rows = vec![
            row("1", "big", 50, "independent", "ivw", 4.0),
            row("1", "small", 5, "independent", "ivw", 2.0),
            row("2", "small", 7, "independent", "ivw", 3.0),
            row("3", "small", 6, "independent", "ivw", 10.0),
            row("3", "small", 6, "correlated", "ivw", f64::NAN),
        ];
        let f = aggregate(&rows);
        assert_eq!(f.coalitions[0].label, "small");
        assert_eq!(f.coalitions[0].tick(), "small (m ≈ 6)");
        assert_eq!(f.coalitions[1].tick(), "big (m = 50)");
        let (m, per) = &f.panels[0];
        assert_eq!(m, "independent");
        let small = per[0].iter().find(|p| p.slot == 0).unwrap();
        assert_eq!(
            (small.gain, small.lo, small.hi, small.owners),
            (3.0, 2.0, 10.0, 3)
        );
        let big = per[0].iter().find(|p| p.slot == 1).unwrap();
        assert_eq!((big.lo, big.hi, big.owners), (4.0 * 0.9, 4.0 * 1.1, 1));
        // The correlated panel has no finite gain.
        assert!(f.panels[1].1[0].is_empty());
    }
}
