//! Figure 4 (`--kind coalition`): how much a coalition gains by pooling.
//!
//! One panel per mechanism (correlated, independent, gaussian — as present),
//! sharing a log y axis of gain = MSE(best member) / MSE(estimator); x = the
//! coalitions of `coalition.csv` ordered by size (label and member count on
//! the ticks); one colour per estimator, and the line gain = 1 (no better than
//! the best member).
//!
//! Aggregation over owners, per (mechanism, coalition, estimator): with one
//! owner the point is its gain and the whisker its 95% interval
//! `[gain_lo, gain_hi]`; with several owners the point is the median gain over
//! owners and the whisker spans the smallest to the largest owner's gain (the
//! spread across owners, which contains the per-owner sampling noise).

use super::data::{CoalitionRow, read_coalition};
use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
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
    /// printed alone, so that neighbouring ticks do not collide.
    pub fn tick(&self) -> String {
        let names_size = self.label.contains(&format!("m={}", self.size_min))
            || self.label.contains(&format!("m={},", self.size_min));
        if self.size_min == self.size_max && names_size {
            self.label.clone()
        } else if self.size_min == self.size_max {
            format!("{} (m={})", self.label, self.size_min)
        } else {
            format!("{} (m≈{})", self.label, self.size_median)
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
    let file = if input.is_dir() {
        input.join("coalition.csv")
    } else {
        input.to_path_buf()
    };
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

    fn draw_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
        mechanism: &str,
        per_est: &[Vec<GainPoint>],
        first: bool,
    ) -> DrawResult<DB> {
        let k = self.coalitions.len();
        let (y0, y1) = self.y_range();
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!("{mechanism} mechanism"),
                style::regular(fonts.caption),
            )
            .margin(12)
            .x_label_area_size((fonts.axis * 3.0) as u32)
            .y_label_area_size((fonts.axis * 4.4) as u32)
            .build_cartesian_2d(-0.5..k as f64 - 0.5, style::log_axis(y0, y1))?;
        let xfmt = |v: &f64| {
            let i = v.round();
            if (v - i).abs() < 1e-6 && i >= 0.0 && (i as usize) < k {
                self.coalitions[i as usize].tick()
            } else {
                String::new()
            }
        };
        let yfmt = |v: &f64| style::log_tick(*v);
        chart
            .configure_mesh()
            .x_desc("coalition (m = members), ordered by size")
            .y_desc("gain = MSE(best member) / MSE(estimator), log")
            // k labels over a width of k: plotters' tick search lands on the
            // integers (the slots); anything else prints blank.
            .x_labels(k)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .axis_desc_style(style::regular(fonts.axis))
            .label_style(style::regular(
                fonts.label * if k > 3 { 0.72 } else { 0.85 },
            ))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(0xE0, 0xE0, 0xE0))
            .draw()?;
        let ref_style = style::OI_BLACK.stroke_width(2);
        let s = chart.draw_series(DashedLineSeries::new(
            vec![(-0.5, 1.0), (k as f64 - 0.5, 1.0)],
            10,
            6,
            ref_style,
        ))?;
        if first {
            s.label("gain = 1: no better than the best member")
                .legend(move |(x, y)| {
                    DashedPathElement::new(vec![(x, y), (x + 24, y)], 5, 3, ref_style)
                });
        }
        let m = self.estimators.len() as f64;
        let half = 0.12 / m.max(1.0);
        let r = (fonts.label * 0.3).max(2.0) as u32;
        for (e, pts) in per_est.iter().enumerate() {
            let c = style::series_color(e);
            let dx = |slot: usize| slot as f64 + 0.5 * (e as f64 - (m - 1.0) / 2.0) / m.max(1.0);
            chart.draw_series(LineSeries::new(
                pts.iter().map(|p| (dx(p.slot), p.gain)),
                c.stroke_width(2),
            ))?;
            chart.draw_series(pts.iter().flat_map(|p| {
                style::whisker(
                    dx(p.slot),
                    p.lo.max(y0),
                    p.hi.min(y1),
                    half,
                    c.stroke_width(2),
                )
            }))?;
            let s = chart.draw_series(
                pts.iter()
                    .map(|p| Circle::new((dx(p.slot), p.gain), r, c.filled())),
            )?;
            if first {
                s.label(self.estimators[e].clone())
                    .legend(move |(x, y)| Circle::new((x + 12, y), r, c.filled()));
            }
        }
        if first {
            chart
                .configure_series_labels()
                .position(SeriesLabelPosition::UpperLeft)
                .label_font(style::regular(fonts.label))
                .background_style(WHITE.mix(0.85))
                .border_style(BLACK)
                .draw()?;
        }
        Ok(())
    }
}

impl Figure for CoalitionFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        let how = if self.owners <= 1 {
            "one owner; whiskers: 95% confidence interval of the gain".to_string()
        } else {
            format!(
                "median over {} owners, whiskers: range over owners",
                self.owners
            )
        };
        style::draw_title(
            root,
            "Coalition gain of pooled estimators over the best member",
            Some(&how),
            &fonts,
        )?;
        let body = root.margin(style::title_height(&fonts, true), 0, 0, 0);
        let panels = body.split_evenly((1, self.panels.len().max(1)));
        for (i, ((mech, per), area)) in self.panels.iter().zip(&panels).enumerate() {
            self.draw_panel(area, &fonts, mech, per, i == 0)?;
        }
        Ok(())
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
        assert_eq!(f.coalitions[0].tick(), "small (m≈6)");
        assert_eq!(f.coalitions[1].tick(), "big (m=50)");
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
