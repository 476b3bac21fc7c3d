//! Figure 1 (`--kind jumps`): where the one noise path jumps as you walk away
//! from the owner.
//!
//! One figure, two panels stacked: (a) the answer error `V_ε(d)` against
//! distance for up to four owners, a step line with a marker at every jump
//! (the seed thesis' Fig. 6); (b) the histogram of jump locations in distance
//! over all owners with the theoretical expected count per bin overlaid.
//! One file rather than two, so `--out` names one figure and the panels share
//! the distance axis. For n > 1 panel (a) shows ‖V‖₂ (the error whose square
//! the MSE averages); a dashed ±RMS envelope `√(c)/ε(d)` (c = E‖V‖²·ε²) is
//! drawn when the map is known, and the y axis turns asinh when the errors
//! span more than two decades. With replicates (`--replicates K`) panel (a)
//! draws every replicate of the owners it shows, each path in its own colour
//! (at most [`MAX_TRACES`] paths: fewer owners when K is large, at most
//! [`MAX_REPLICATES`] replicates; the legend counts the paths left out),
//! and panel (b) pools the jumps of every owner and replicate against the
//! expected count of every (owner, replicate) row of `owners.csv`.
//!
//! Theory (memo §1a, §2): jumps of a path form a Poisson process in ln ε of
//! rate λ = 2n (ℓ1) or n + 1 (ℓ2), so an owner whose path covers
//! `[d_min, d_max]` expects `λ·|ln ε(d₁) − ln ε(d₂)|` jumps in any
//! `[d₁, d₂] ⊂ [d_min, d_max]` — a density `λ·|d ln ε/dd|` in distance.

use super::axis::Scale;
use super::chart::{self, Axes};
use super::data::{
    JumpRow, MAX_REPLICATES, OwnerRow, PathTable, RunSummary, read_jumps, read_owners, read_paths,
    read_summary_if_present,
};
use super::layout::{Mark, Rect};
use super::legend::{self, Entry, Panel, PanelResult, Swatch};
use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::HashMap;
use std::path::Path;

pub use super::jump_stats::{
    ChiSquare, JumpHistogram, LnEps, bin_counts, chi_square, default_bins, expected_jump_counts,
    gamma_q, histogram_edges, ln_gamma,
};

/// Most paths panel (a) draws: four owners, or fewer owners with each of
/// their replicates.
pub const MAX_TRACES: usize = 8;

/// Owners panel (a) draws without replicates.
const MAX_OWNERS: usize = 4;

/// One owner's path drawn against distance.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnerTrace {
    /// Owner id.
    pub owner: String,
    /// Replicate of the path (0 in a file without the column).
    pub replicate: u32,
    /// Legend name of the path (`owner 7`, `owner 7 · replicate 1`).
    pub label: String,
    /// Step polyline `(d, y)` from `distance_min` to `distance_max`.
    pub steps: Vec<(f64, f64)>,
    /// `(d, y)` at every jump (y = the value beyond the jump, farther out).
    pub jumps: Vec<(f64, f64)>,
}

/// Data of figure 1.
#[derive(Clone, Debug)]
pub struct JumpsFigure {
    /// Dimension n of the values.
    pub dim: usize,
    /// Paths drawn: up to four owners, every replicate of each (at most
    /// [`MAX_TRACES`] in all).
    pub traces: Vec<OwnerTrace>,
    /// Paths of `paths.csv` (owners × replicates) not drawn.
    pub left_out: usize,
    /// Replicates in `owners.csv`.
    pub replicates: usize,
    /// ±RMS envelope `(d, sqrt(E‖V‖²))`, when the map and norm are known.
    pub envelope: Vec<(f64, f64)>,
    /// Histogram of all jumps.
    pub hist: JumpHistogram,
    /// Number of owners behind the histogram (distinct ids).
    pub owners: usize,
    /// Whether ln ε came from the recorded map (else interpolated from data).
    pub from_map: bool,
    /// Axis text for distances.
    pub distance_label: String,
    /// Distances are whole numbers (hops): whole ticks.
    pub whole: bool,
}

/// The y value drawn for a path value: the value itself in 1-D, else its
/// Euclidean norm ‖V‖₂ (the error whose square the MSE averages).
fn trace_y(v: &[f64]) -> f64 {
    if v.len() == 1 {
        v[0]
    } else {
        v.iter().map(|x| x * x).sum::<f64>().sqrt()
    }
}

/// Which paths of `paths` panel (a) draws, in file order: every
/// replicate (up to [`MAX_REPLICATES`]) of the first owners (up to four, and
/// at most [`MAX_TRACES`] paths in all), or of `only`.
fn chosen<'a>(
    paths: &'a PathTable,
    only: Option<&str>,
) -> Result<Vec<&'a super::data::PathSeries>> {
    let mut owners: Vec<&str> = Vec::new();
    for s in &paths.series {
        if !owners.contains(&s.id.as_str()) {
            owners.push(&s.id);
        }
    }
    let reps: Vec<Option<u32>> = {
        let mut r: Vec<Option<u32>> = Vec::new();
        for s in &paths.series {
            if !r.contains(&s.replicate) {
                r.push(s.replicate);
            }
        }
        r.truncate(MAX_REPLICATES);
        r
    };
    let owners: Vec<&str> = match only {
        Some(id) => {
            if !owners.contains(&id) {
                return Err(Error::param(
                    "owner",
                    id,
                    format!("an owner with a path in paths.csv ({})", owners.join(", ")),
                ));
            }
            vec![id]
        }
        None => {
            let n = (MAX_TRACES / reps.len().max(1)).clamp(1, MAX_OWNERS);
            owners.into_iter().take(n).collect()
        }
    };
    Ok(paths
        .series
        .iter()
        .filter(|s| owners.contains(&s.id.as_str()) && reps.contains(&s.replicate))
        .collect())
}

/// Builds the traces panel (a) draws (every replicate, up to
/// [`MAX_REPLICATES`], of the first owners: at most [`MAX_TRACES`] paths;
/// or of `only`): each breakpoint level is placed at the distance
/// `jumps.csv` gives for it (owner, replicate, ε), the first (bottom) level
/// at the owner's `distance_max` in that replicate's row of `owners.csv`.
pub fn traces(
    paths: &PathTable,
    paths_file: &Path,
    owners: &[OwnerRow],
    jumps: &[JumpRow],
    theory: &LnEps,
    only: Option<&str>,
) -> Result<Vec<OwnerTrace>> {
    let by_owner: HashMap<(&str, u32), &OwnerRow> = owners
        .iter()
        .map(|o| ((o.owner.as_str(), o.replicate), o))
        .collect();
    let at: HashMap<(&str, u32, u64), f64> = jumps
        .iter()
        .map(|j| ((j.owner.as_str(), j.replicate, j.eps.to_bits()), j.distance))
        .collect();
    let dim = paths.dim;
    let chosen = chosen(paths, only)?;
    let mut out = Vec::with_capacity(chosen.len());
    for s in chosen {
        let rep = s.replicate.unwrap_or(0);
        let name = paths.label(s);
        let o = by_owner.get(&(s.id.as_str(), rep)).ok_or_else(|| {
            Error::input(
                paths_file,
                s.first_line,
                format!("{name} has no row in owners.csv"),
            )
        })?;
        let o = o.range().ok_or_else(|| {
            Error::input(
                paths_file,
                s.first_line,
                format!("{name} has a path but no recipients in owners.csv"),
            )
        })?;
        let k = s.eps.len();
        // Distance of each breakpoint level; level 0 is eps_lo ↔ distance_max.
        let mut d = Vec::with_capacity(k);
        d.push(o.distance_max);
        for &e in &s.eps[1..] {
            let dist = at
                .get(&(s.id.as_str(), rep, e.to_bits()))
                .copied()
                .unwrap_or_else(|| match theory {
                    LnEps::Map(m) => m.distance_at(e),
                    LnEps::Knots(_) => {
                        // Linear in ln ε between the owner's two ends.
                        let (l_hi, l_lo) = (o.eps_hi.ln(), o.eps_lo.ln());
                        if l_hi > l_lo {
                            o.distance_min
                                + (l_hi - e.ln()) / (l_hi - l_lo)
                                    * (o.distance_max - o.distance_min)
                        } else {
                            o.distance_min
                        }
                    }
                });
            d.push(dist);
        }
        let y: Vec<f64> = (0..k).map(|i| trace_y(s.value(i, dim))).collect();
        // Walk outwards: the top level (last row) holds nearest the owner.
        let mut steps = Vec::with_capacity(2 * k + 1);
        let mut marks = Vec::with_capacity(k.saturating_sub(1));
        steps.push((o.distance_min, y[k - 1]));
        for i in (1..k).rev() {
            steps.push((d[i], y[i]));
            steps.push((d[i], y[i - 1]));
            marks.push((d[i], y[i - 1]));
        }
        steps.push((o.distance_max, y[0]));
        out.push(OwnerTrace {
            owner: s.id.clone(),
            replicate: rep,
            label: name,
            steps,
            jumps: marks,
        });
    }
    Ok(out)
}

fn rate_from_owners(owners: &[OwnerRow]) -> Option<f64> {
    let mut r: Vec<f64> = owners
        .iter()
        .filter_map(|o| Some((o.jumps_expected, o.range()?)))
        .filter(|(_, o)| o.eps_hi > o.eps_lo && o.eps_lo > 0.0)
        .map(|(expected, o)| expected / (o.eps_hi / o.eps_lo).ln())
        .filter(|x| x.is_finite() && *x > 0.0)
        .collect();
    if r.is_empty() {
        return None;
    }
    r.sort_by(f64::total_cmp);
    Some(r[r.len() / 2])
}

/// The histogram of figure 1b from the files in `dir` (`jumps.csv`,
/// `owners.csv`, optional `summary.json` for the map and λ).
pub fn load_histogram(dir: &Path) -> Result<JumpHistogram> {
    let jumps = read_jumps(&dir.join("jumps.csv"))?;
    let owners = read_owners(&dir.join("owners.csv"))?;
    let summary = read_summary_if_present(dir)?;
    let (theory, _) = theory(summary.as_ref(), &owners, &jumps)?;
    Ok(histogram(&jumps, &owners, summary.as_ref(), &theory))
}

fn theory(
    summary: Option<&RunSummary>,
    owners: &[OwnerRow],
    jumps: &[JumpRow],
) -> Result<(LnEps, bool)> {
    match summary.map(RunSummary::map).transpose()?.flatten() {
        Some(m) => Ok((LnEps::Map(m), true)),
        None => Ok((LnEps::from_data(owners, jumps), false)),
    }
}

fn histogram(
    jumps: &[JumpRow],
    owners: &[OwnerRow],
    summary: Option<&RunSummary>,
    theory: &LnEps,
) -> JumpHistogram {
    let rate = summary
        .and_then(RunSummary::jump_rate)
        .or_else(|| rate_from_owners(owners));
    // Owners without recipients have no path and no jumps.
    let ranges: Vec<(f64, f64)> = owners
        .iter()
        .filter_map(OwnerRow::range)
        .map(|o| (o.distance_min, o.distance_max))
        .collect();
    let distances: Vec<f64> = jumps.iter().map(|j| j.distance).collect();
    JumpHistogram::new(
        &distances,
        &ranges,
        rate,
        &|d| theory.ln_eps(d),
        default_bins(jumps.len()),
    )
}

/// Loads figure 1 from `dir` (`paths.csv`, `jumps.csv`, `owners.csv`, and
/// `summary.json` when present). `only`: draw this owner's path alone.
pub fn load(dir: &Path, only: Option<&str>) -> Result<JumpsFigure> {
    let paths_file = dir.join("paths.csv");
    let jumps = read_jumps(&dir.join("jumps.csv"))?;
    let owners = read_owners(&dir.join("owners.csv"))?;
    let paths = read_paths(&paths_file)?;
    let summary = read_summary_if_present(dir)?;
    let (theory, from_map) = theory(summary.as_ref(), &owners, &jumps)?;
    let traces = traces(&paths, &paths_file, &owners, &jumps, &theory, only)?;
    let hist = histogram(&jumps, &owners, summary.as_ref(), &theory);
    // RMS envelope sqrt(E‖y − u‖²) = Δ·sqrt(c)/ε(d), c = 2n (ℓ1), n(n+1)
    // (ℓ2), Δ the sensitivity (paths.csv holds the answer errors).
    let norm = summary.as_ref().and_then(|s| s.config().norm);
    let delta = summary
        .as_ref()
        .and_then(|s| s.config().sensitivity)
        .filter(|d| d.is_finite() && *d > 0.0)
        .unwrap_or(1.0);
    let factor = match (paths.dim, norm) {
        (1, _) => Some(2.0),
        (n, Some(norm)) => Some(norm.mse_factor(n)),
        _ => None,
    };
    let mut envelope = Vec::new();
    if let Some(c) = factor {
        let lo = traces
            .iter()
            .map(|t| t.steps[0].0)
            .fold(f64::INFINITY, f64::min);
        let hi = traces
            .iter()
            .map(|t| t.steps[t.steps.len() - 1].0)
            .fold(f64::NEG_INFINITY, f64::max);
        if lo < hi {
            for i in 0..=400 {
                let d = lo + (hi - lo) * i as f64 / 400.0;
                let r = delta * c.sqrt() / theory.eps(d);
                if r.is_finite() {
                    envelope.push((d, r));
                }
            }
        }
    }
    let mut ids: Vec<&str> = owners.iter().map(|o| o.owner.as_str()).collect();
    ids.sort_unstable();
    ids.dedup();
    Ok(JumpsFigure {
        dim: paths.dim,
        left_out: paths.series.len() - traces.len(),
        replicates: super::data::replicates(owners.iter().map(|o| o.replicate)).len(),
        traces,
        envelope,
        hist,
        owners: ids.len(),
        from_map,
        distance_label: summary
            .as_ref()
            .map_or_else(|| super::data::distance_label(None), |s| s.distance_label()),
        whole: summary.as_ref().is_some_and(RunSummary::whole_distances),
    })
}

impl Figure for JumpsFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        style::draw_title(
            root,
            "Jumps of the noise path against distance from the owner",
            None,
            &fonts,
        )?;
        let (_, h) = root.dim_in_pixel();
        let th = style::title_height(&fonts, false);
        let body = root.margin(th, 0, 0, 0);
        let (top, bottom) = body.split_vertically((h - th) / 2);
        let mut layout = legend::with_legend(&top, &fonts, &Traces(self), &self.trace_entries())?;
        layout.extend(legend::with_legend(
            &bottom,
            &fonts,
            &Hist(self),
            &self.hist_entries(),
        )?);
        Ok(layout)
    }
}

/// Legend text of the envelope.
const ENVELOPE: &str = "RMS error √E‖V‖² at ε(d) (theory)";
/// Legend text of the bars.
const OBSERVED: &str = "observed jumps";

/// Panel (a).
struct Traces<'a>(&'a JumpsFigure);
/// Panel (b).
struct Hist<'a>(&'a JumpsFigure);

impl JumpsFigure {
    fn x_range(&self) -> (f64, f64) {
        let e = &self.hist.edges;
        let mut lo = e[0];
        let mut hi = e[e.len() - 1];
        for t in &self.traces {
            for &(d, _) in t.steps.iter().filter(|p| p.0.is_finite()) {
                lo = lo.min(d);
                hi = hi.max(d);
            }
        }
        style::pad_range(lo, hi, 0.02)
    }

    fn x_axis(&self) -> Scale {
        let (x0, x1) = self.x_range();
        Scale::linear_or_integer(x0, x1, self.whole)
    }

    fn trace_label(t: &OwnerTrace) -> String {
        format!("{} ({})", t.label, style::plural(t.jumps.len(), "jump"))
    }

    fn left_out_label(&self) -> String {
        format!(
            "+ {} of paths.csv not drawn (at most {MAX_TRACES})",
            style::plural(self.left_out, "path")
        )
    }

    fn trace_entries(&self) -> Vec<Entry> {
        let mut e = Vec::new();
        if !self.envelope.is_empty() {
            e.push(Entry::dashed(ENVELOPE, style::MID_GREY, 2));
        }
        for (i, t) in self.traces.iter().enumerate() {
            e.push(Entry::marker(
                Self::trace_label(t),
                0,
                style::series_color(i),
                true,
            ));
        }
        if self.left_out > 0 {
            e.push(Entry::new(self.left_out_label(), Swatch::Blank));
        }
        e
    }

    fn expected_label(&self) -> String {
        let source = if self.from_map {
            "map of summary.json"
        } else {
            "ln ε interpolated"
        };
        match self.hist.rate {
            Some(rate) => format!(
                "expected: λ·|Δ ln ε|, λ = {} ({source})",
                style::short(rate)
            ),
            None => "expected count per bin".to_string(),
        }
    }

    fn hist_entries(&self) -> Vec<Entry> {
        let mut e = vec![Entry::new(
            OBSERVED,
            Swatch::Bar {
                fill: style::OI_SKY_BLUE,
                edge: style::OI_BLUE,
            },
        )];
        if !self.hist.expected.is_empty() {
            e.push(Entry::line(self.expected_label(), style::OI_VERMILLION, 3));
        }
        e
    }

    fn trace_axes(&self) -> Axes {
        let ys = self
            .traces
            .iter()
            .flat_map(|t| t.steps.iter().map(|p| p.1))
            .chain(self.envelope.iter().flat_map(|p| {
                let lower = if self.dim == 1 { -p.1 } else { 0.0 };
                [p.1, lower]
            }))
            .filter(|y| y.is_finite());
        let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(y), b.max(y))
        });
        let lo = if self.dim == 1 { lo } else { 0.0f64.min(lo) };
        let (y0, y1) = style::pad_range(lo, hi, 0.08);
        // When ε falls by orders of magnitude the errors far out dwarf those
        // near the owner: switch to an asinh axis scaled at the typical error
        // near the owner (the RMS at the smallest distance, else the median).
        let mut mags: Vec<f64> = self
            .traces
            .iter()
            .flat_map(|t| t.steps.iter().map(|p| p.1.abs()))
            .filter(|y| y.is_finite() && *y > 0.0)
            .collect();
        mags.sort_by(f64::total_cmp);
        let typical = self
            .envelope
            .first()
            .map(|p| p.1)
            .or_else(|| mags.get(mags.len() / 2).copied())
            .unwrap_or(1.0);
        let top = y0.abs().max(y1.abs());
        let scale = (top > 100.0 * typical).then_some(typical);
        let y = Scale::asinh(y0, y1, scale);
        let y_desc = match (self.dim, y.is_asinh()) {
            (1, false) => "answer error V = y − u".to_string(),
            (1, true) => "answer error V = y − u (asinh scale)".to_string(),
            (n, false) => format!("answer error ‖y − u‖₂ (n = {n})"),
            (n, true) => format!("answer error ‖y − u‖₂, n = {n} (asinh scale)"),
        };
        Axes {
            x: self.x_axis(),
            y,
            x_desc: self.distance_label.clone(),
            y_desc,
        }
    }
}

impl Panel for Traces<'_> {
    fn chart<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> PanelResult<DB> {
        let f = self.0;
        let axes = f.trace_axes();
        let caption = if f.replicates > 1 {
            format!(
                "(a) answer error along {}: one per owner and replicate, read off at ε(d)",
                style::plural(f.traces.len(), "path")
            )
        } else {
            format!(
                "(a) answer error of {}: one path each, read off at ε(d)",
                style::plural(f.traces.len(), "owner")
            )
        };
        let mut chart = chart::gridded(area, fonts, Some(caption.as_str()), &axes, 2.6)?;
        let mut marks = Vec::new();
        if !f.envelope.is_empty() {
            let grey = ShapeStyle::from(&style::MID_GREY).stroke_width(2);
            let mut m = Mark::new(ENVELOPE);
            chart.draw_series(DashedLineSeries::new(f.envelope.clone(), 8, 6, grey))?;
            m.line(chart::pxs(&chart, f.envelope.iter().copied()));
            if f.dim == 1 {
                let lower: Vec<(f64, f64)> = f.envelope.iter().map(|&(d, r)| (d, -r)).collect();
                chart.draw_series(DashedLineSeries::new(lower.clone(), 8, 6, grey))?;
                m.line(chart::pxs(&chart, lower));
            }
            marks.push(m);
        }
        let r = legend::marker_radius(fonts);
        for (i, t) in f.traces.iter().enumerate() {
            let c = style::series_color(i);
            chart.draw_series(LineSeries::new(t.steps.clone(), c.stroke_width(2)))?;
            chart.draw_series(
                t.jumps
                    .iter()
                    .map(|&p| Circle::new(p, r as u32, c.filled())),
            )?;
            let mut m = Mark::new(JumpsFigure::trace_label(t));
            m.line(chart::pxs(&chart, t.steps.iter().copied()));
            m.points(chart::pxs(&chart, t.jumps.iter().copied()), r);
            marks.push(m);
        }
        Ok(chart::layout(&chart, &caption, &axes, marks))
    }
}

impl Panel for Hist<'_> {
    fn chart<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> PanelResult<DB> {
        let f = self.0;
        let h = &f.hist;
        let top = h
            .counts
            .iter()
            .chain(&h.expected)
            .copied()
            .filter(|x| x.is_finite())
            .fold(1.0f64, f64::max);
        let axes = Axes {
            x: f.x_axis(),
            y: Scale::integer(0.0, style::safe_range(0.0, top * 1.12).1),
            x_desc: f.distance_label.clone(),
            y_desc: "jumps per bin".into(),
        };
        let test = match h.chi_square() {
            Some(cs) => format!(
                " (χ² = {:.1}, df = {}, p = {:.3})",
                cs.statistic, cs.df, cs.p_value
            ),
            None => String::new(),
        };
        let caption = format!(
            "(b) where jumps fall: {} jumps of {}{}, {} bins{test}",
            h.counts.iter().sum::<f64>(),
            style::plural(f.owners, "owner"),
            if f.replicates > 1 {
                format!(" × {} replicates", f.replicates)
            } else {
                String::new()
            },
            h.counts.len()
        );
        let mut chart = chart::gridded(area, fonts, Some(caption.as_str()), &axes, 2.6)?;
        let mut bars = Mark::new(OBSERVED);
        for (i, &c) in h.counts.iter().enumerate() {
            let (a, b) = ((h.edges[i], 0.0), (h.edges[i + 1], c));
            chart.draw_series(std::iter::once(Rectangle::new(
                [a, b],
                style::OI_SKY_BLUE.filled(),
            )))?;
            chart.draw_series(std::iter::once(Rectangle::new(
                [a, b],
                style::OI_BLUE.stroke_width(1),
            )))?;
            if c > 0.0 {
                bars.area(Rect::new(chart::px(&chart, a), chart::px(&chart, b)));
            }
        }
        let mut marks = vec![bars];
        if !h.expected.is_empty() {
            let mut line = Vec::with_capacity(2 * h.expected.len());
            for (i, &e) in h.expected.iter().enumerate() {
                line.push((h.edges[i], e));
                line.push((h.edges[i + 1], e));
            }
            chart.draw_series(LineSeries::new(
                line.clone(),
                style::OI_VERMILLION.stroke_width(3),
            ))?;
            let mut m = Mark::new(f.expected_label());
            m.line(chart::pxs(&chart, line));
            marks.push(m);
        }
        Ok(chart::layout(&chart, &caption, &axes, marks))
    }
}
