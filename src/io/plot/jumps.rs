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
//! span more than two decades.
//!
//! Theory (memo §1a, §2): jumps of a path form a Poisson process in ln ε of
//! rate λ = 2n (ℓ1) or n + 1 (ℓ2), so an owner whose path covers
//! `[d_min, d_max]` expects `λ·|ln ε(d₁) − ln ε(d₂)|` jumps in any
//! `[d₁, d₂] ⊂ [d_min, d_max]` — a density `λ·|d ln ε/dd|` in distance.

use super::data::{
    JumpRow, OwnerRow, PathTable, RunSummary, read_jumps, read_owners, read_paths,
    read_summary_if_present,
};
use super::style::{self, DrawResult, Figure, Fonts};
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::HashMap;
use std::path::Path;

pub use crate::special::{gamma_q, ln_gamma};

/// Expected number of jumps per histogram bin, summed over owners.
///
/// `edges` are the ascending bin edges (k + 1 of them for k bins); `ranges`
/// the `[distance_min, distance_max]` each owner's path covers; `rate` = λ;
/// `ln_eps(d)` = ln ε(d), continuous and monotone in d. For each owner and
/// bin, the overlap `[d₁', d₂']` of the bin with the owner's range adds
/// `λ·|ln ε(d₁') − ln ε(d₂')|` (exact: the integral of the density). Ranges
/// that are empty or not finite add nothing.
pub fn expected_jump_counts(
    edges: &[f64],
    ranges: &[(f64, f64)],
    rate: f64,
    ln_eps: &dyn Fn(f64) -> f64,
) -> Vec<f64> {
    let k = edges.len().saturating_sub(1);
    let mut out = vec![0.0; k];
    for &(lo, hi) in ranges {
        if !(lo.is_finite() && hi.is_finite() && hi > lo) {
            continue;
        }
        for (b, slot) in out.iter_mut().enumerate() {
            let a = edges[b].max(lo);
            let z = edges[b + 1].min(hi);
            if z > a {
                let d = (ln_eps(a) - ln_eps(z)).abs();
                if d.is_finite() {
                    *slot += rate * d;
                }
            }
        }
    }
    out
}

/// `bins` equal-width bins over `[lo, hi]` (k + 1 edges; the last edge is
/// exactly `hi`).
pub fn histogram_edges(lo: f64, hi: f64, bins: usize) -> Vec<f64> {
    let bins = bins.max(1);
    let w = (hi - lo) / bins as f64;
    let mut e: Vec<f64> = (0..bins).map(|i| lo + w * i as f64).collect();
    e.push(hi);
    e
}

/// Counts of `xs` per bin: bin `i` is `[edges[i], edges[i+1])`, the last bin
/// also takes `x = edges[k]`. Values outside the edges (and NaN) are ignored.
pub fn bin_counts(edges: &[f64], xs: impl IntoIterator<Item = f64>) -> Vec<f64> {
    let k = edges.len().saturating_sub(1);
    let mut out = vec![0.0; k];
    if k == 0 {
        return out;
    }
    for x in xs {
        if !(x >= edges[0] && x <= edges[k]) {
            continue;
        }
        // First edge > x, minus one; x = last edge goes to the last bin.
        let i = edges
            .partition_point(|&e| e <= x)
            .saturating_sub(1)
            .min(k - 1);
        out[i] += 1.0;
    }
    out
}

/// Number of bins for `n` jumps: Rice's rule 2·n^{1/3}, kept within 8..=40.
pub fn default_bins(n: usize) -> usize {
    ((2.0 * (n as f64).cbrt()).ceil() as usize).clamp(8, 40)
}

/// Histogram of jump distances with its theoretical counterpart.
#[derive(Clone, Debug, PartialEq)]
pub struct JumpHistogram {
    /// Bin edges (k + 1).
    pub edges: Vec<f64>,
    /// Observed jumps per bin.
    pub counts: Vec<f64>,
    /// Expected jumps per bin ([`expected_jump_counts`]); empty when the jump
    /// rate is unknown.
    pub expected: Vec<f64>,
    /// λ used for `expected`.
    pub rate: Option<f64>,
}

impl JumpHistogram {
    /// Bins `distances` over the union of the owners' ranges and computes the
    /// expected counts (when `rate` is known).
    pub fn new(
        distances: &[f64],
        ranges: &[(f64, f64)],
        rate: Option<f64>,
        ln_eps: &dyn Fn(f64) -> f64,
        bins: usize,
    ) -> JumpHistogram {
        let finite = ranges
            .iter()
            .filter(|(a, b)| a.is_finite() && b.is_finite() && b >= a);
        let lo = finite.clone().map(|r| r.0).fold(f64::INFINITY, f64::min);
        let hi = finite.map(|r| r.1).fold(f64::NEG_INFINITY, f64::max);
        let (lo, hi) = if lo < hi { (lo, hi) } else { (0.0, 1.0) };
        let edges = histogram_edges(lo, hi, bins);
        let counts = bin_counts(&edges, distances.iter().copied());
        let expected = match rate {
            Some(r) => expected_jump_counts(&edges, ranges, r, ln_eps),
            None => Vec::new(),
        };
        JumpHistogram {
            edges,
            counts,
            expected,
            rate,
        }
    }

    /// Pearson's chi-square of the counts against the expected counts (see
    /// [`chi_square`]); None when there is no theory.
    pub fn chi_square(&self) -> Option<ChiSquare> {
        (self.expected.len() == self.counts.len() && !self.expected.is_empty())
            .then(|| chi_square(&self.counts, &self.expected))
    }
}

/// Result of a chi-square goodness-of-fit test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChiSquare {
    /// Σ (O − E)² / E over the pooled groups.
    pub statistic: f64,
    /// Degrees of freedom (= groups: the total is not conditioned on, since
    /// the jump counts are Poisson with known means).
    pub df: usize,
    /// Upper-tail probability, `Q(df/2, statistic/2)`.
    pub p_value: f64,
}

/// Chi-square test of Poisson counts `observed` against known means
/// `expected`. Adjacent bins are pooled left to right until each group expects
/// at least 5 (a last short group joins its neighbour), so the χ²
/// approximation holds.
pub fn chi_square(observed: &[f64], expected: &[f64]) -> ChiSquare {
    let mut groups: Vec<(f64, f64)> = Vec::new();
    let (mut o, mut e) = (0.0, 0.0);
    for (&ob, &ex) in observed.iter().zip(expected) {
        o += ob;
        e += ex;
        if e >= 5.0 {
            groups.push((o, e));
            o = 0.0;
            e = 0.0;
        }
    }
    if e > 0.0 || o > 0.0 {
        match groups.last_mut() {
            Some(last) => {
                last.0 += o;
                last.1 += e;
            }
            None => groups.push((o, e)),
        }
    }
    let mut stat = 0.0;
    for &(o, e) in &groups {
        stat += if e > 0.0 {
            (o - e) * (o - e) / e
        } else if o > 0.0 {
            f64::INFINITY
        } else {
            0.0
        };
    }
    let df = groups.len();
    ChiSquare {
        statistic: stat,
        df,
        p_value: if df == 0 {
            1.0
        } else {
            gamma_q(df as f64 / 2.0, stat / 2.0)
        },
    }
}

/// ln ε(d) for the theory: the run's privacy map when `summary.json` records
/// it, otherwise a piecewise-linear interpolation through the exact
/// `(distance, ln ε)` pairs the data carry (owner ranges and jumps), which is
/// exact for `exp:` and `range:` maps.
#[derive(Clone, Debug)]
pub enum LnEps {
    /// The recorded map.
    Map(EpsilonMap),
    /// Knots `(d, ln ε)`, ascending in d.
    Knots(Vec<(f64, f64)>),
}

impl LnEps {
    /// Builds the interpolant from the data.
    pub fn from_data(owners: &[OwnerRow], jumps: &[JumpRow]) -> LnEps {
        let mut k: Vec<(f64, f64)> = owners
            .iter()
            .filter_map(OwnerRow::range)
            .flat_map(|o| {
                [
                    (o.distance_min, o.eps_hi.ln()),
                    (o.distance_max, o.eps_lo.ln()),
                ]
            })
            .chain(jumps.iter().map(|j| (j.distance, j.eps.ln())))
            .filter(|(d, l)| d.is_finite() && l.is_finite())
            .collect();
        k.sort_by(|a, b| a.0.total_cmp(&b.0));
        k.dedup_by(|b, a| a.0 == b.0);
        LnEps::Knots(k)
    }

    /// ln ε(d).
    pub fn ln_eps(&self, d: f64) -> f64 {
        match self {
            LnEps::Map(m) => m.ln_eps(d),
            LnEps::Knots(k) => {
                if k.is_empty() {
                    return f64::NAN;
                }
                let i = k.partition_point(|p| p.0 <= d);
                if i == 0 {
                    return k[0].1;
                }
                if i == k.len() {
                    return k[k.len() - 1].1;
                }
                let (a, b) = (k[i - 1], k[i]);
                a.1 + (b.1 - a.1) * (d - a.0) / (b.0 - a.0)
            }
        }
    }

    /// ε of the answer at distance d (for the RMS envelope).
    pub fn eps(&self, d: f64) -> f64 {
        match self {
            LnEps::Map(m) => m.eps(d),
            LnEps::Knots(_) => self.ln_eps(d).exp(),
        }
    }
}

/// One owner's path drawn against distance.
#[derive(Clone, Debug, PartialEq)]
pub struct OwnerTrace {
    /// Owner id.
    pub owner: String,
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
    /// Traces of up to four owners.
    pub traces: Vec<OwnerTrace>,
    /// ±RMS envelope `(d, sqrt(E‖V‖²))`, when the map and norm are known.
    pub envelope: Vec<(f64, f64)>,
    /// Histogram of all jumps.
    pub hist: JumpHistogram,
    /// Number of owners behind the histogram.
    pub owners: usize,
    /// Whether ln ε came from the recorded map (else interpolated from data).
    pub from_map: bool,
    /// Axis text for distances.
    pub distance_label: String,
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

/// Builds the traces of `paths` (up to 4, or only `only`): each breakpoint
/// level is placed at the distance `jumps.csv` gives for it (owner, ε), the
/// first (bottom) level at the owner's `distance_max`.
pub fn traces(
    paths: &PathTable,
    paths_file: &Path,
    owners: &[OwnerRow],
    jumps: &[JumpRow],
    theory: &LnEps,
    only: Option<&str>,
) -> Result<Vec<OwnerTrace>> {
    let by_owner: HashMap<&str, &OwnerRow> = owners.iter().map(|o| (o.owner.as_str(), o)).collect();
    let at: HashMap<(&str, u64), f64> = jumps
        .iter()
        .map(|j| ((j.owner.as_str(), j.eps.to_bits()), j.distance))
        .collect();
    let chosen: Vec<_> = match only {
        Some(id) => {
            let s: Vec<_> = paths.series.iter().filter(|s| s.id == id).collect();
            if s.is_empty() {
                let have: Vec<&str> = paths.series.iter().map(|s| s.id.as_str()).collect();
                return Err(Error::param(
                    "owner",
                    id,
                    format!("an owner with a path in paths.csv ({})", have.join(", ")),
                ));
            }
            s
        }
        None => paths.series.iter().take(4).collect(),
    };
    let dim = paths.dim;
    let mut out = Vec::with_capacity(chosen.len());
    for s in chosen {
        let o = by_owner.get(s.id.as_str()).ok_or_else(|| {
            Error::input(
                paths_file,
                s.first_line,
                format!("owner '{}' has no row in owners.csv", s.id),
            )
        })?;
        let o = o.range().ok_or_else(|| {
            Error::input(
                paths_file,
                s.first_line,
                format!(
                    "owner '{}' has a path but no recipients in owners.csv",
                    s.id
                ),
            )
        })?;
        let k = s.eps.len();
        // Distance of each breakpoint level; level 0 is eps_lo ↔ distance_max.
        let mut d = Vec::with_capacity(k);
        d.push(o.distance_max);
        for &e in &s.eps[1..] {
            let dist = at
                .get(&(s.id.as_str(), e.to_bits()))
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
    Ok(JumpsFigure {
        dim: paths.dim,
        traces,
        envelope,
        hist,
        owners: owners.len(),
        from_map,
        distance_label: summary
            .as_ref()
            .map_or_else(|| super::data::distance_label(None), |s| s.distance_label()),
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
        self.draw_traces(&top, &fonts)?;
        self.draw_hist(&bottom, &fonts)
    }
}

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

    fn draw_traces<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> DrawResult<DB> {
        let (x0, x1) = self.x_range();
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
        let axis = style::AsinhAxis::new(y0, y1, scale);
        let nonlinear = axis.is_asinh();
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "(a) answer error of {} owner(s): one path, read off at ε(d)",
                    self.traces.len()
                ),
                style::regular(fonts.caption),
            )
            .margin(10)
            .x_label_area_size((fonts.axis * 2.6) as u32)
            .y_label_area_size((fonts.axis * 4.2) as u32)
            .build_cartesian_2d(x0..x1, axis)?;
        let y_desc = match (self.dim, nonlinear) {
            (1, false) => "answer error V = y − u".to_string(),
            (1, true) => "error V = y − u (asinh scale)".to_string(),
            (n, false) => format!("answer error ‖y − u‖₂ (n = {n})"),
            (n, true) => format!("error ‖y − u‖₂, n = {n} (asinh)"),
        };
        chart
            .configure_mesh()
            .x_desc(self.distance_label.as_str())
            .y_desc(y_desc)
            .x_label_formatter(&style::lin_tick)
            .y_label_formatter(&style::lin_tick)
            .axis_desc_style(style::regular(fonts.axis))
            .label_style(style::regular(fonts.label))
            .light_line_style(RGBColor(0xF4, 0xF4, 0xF4))
            .bold_line_style(RGBColor(0xE0, 0xE0, 0xE0))
            .draw()?;
        if !self.envelope.is_empty() {
            let env = self.envelope.clone();
            let grey = ShapeStyle::from(&style::MID_GREY).stroke_width(2);
            chart
                .draw_series(DashedLineSeries::new(env.clone(), 8, 6, grey))?
                .label("RMS error √E‖V‖² at ε(d) (theory)")
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], style::MID_GREY.stroke_width(2))
                });
            if self.dim == 1 {
                chart.draw_series(DashedLineSeries::new(
                    env.into_iter().map(|(d, r)| (d, -r)),
                    8,
                    6,
                    grey,
                ))?;
            }
        }
        for (i, t) in self.traces.iter().enumerate() {
            let c = style::series_color(i);
            chart
                .draw_series(LineSeries::new(t.steps.clone(), c.stroke_width(2)))?
                .label(format!(
                    "owner {} ({})",
                    t.owner,
                    style::plural(t.jumps.len(), "jump")
                ))
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(3))
                });
            let r = (fonts.label * 0.3).max(2.0) as u32;
            chart.draw_series(t.jumps.iter().map(|&p| Circle::new(p, r, c.filled())))?;
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(style::regular(fonts.label))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
    }

    fn draw_hist<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> DrawResult<DB> {
        let h = &self.hist;
        let (x0, x1) = self.x_range();
        let top = h
            .counts
            .iter()
            .chain(&h.expected)
            .copied()
            .filter(|x| x.is_finite())
            .fold(1.0f64, f64::max);
        let mut chart = ChartBuilder::on(area)
            .caption(
                format!(
                    "(b) where jumps fall: {} jumps of {} owners, {} bins",
                    h.counts.iter().sum::<f64>(),
                    self.owners,
                    h.counts.len()
                ),
                style::regular(fonts.caption),
            )
            .margin(10)
            .x_label_area_size((fonts.axis * 2.6) as u32)
            .y_label_area_size((fonts.axis * 4.2) as u32)
            .build_cartesian_2d(x0..x1, 0.0..style::safe_range(0.0, top * 1.18).1)?;
        chart
            .configure_mesh()
            .x_desc(self.distance_label.as_str())
            .y_desc("jumps per bin (count)")
            .x_label_formatter(&style::lin_tick)
            .y_label_formatter(&style::lin_tick)
            .axis_desc_style(style::regular(fonts.axis))
            .label_style(style::regular(fonts.label))
            .light_line_style(RGBColor(0xF4, 0xF4, 0xF4))
            .bold_line_style(RGBColor(0xE0, 0xE0, 0xE0))
            .draw()?;
        let bar = style::OI_SKY_BLUE;
        chart
            .draw_series(h.counts.iter().enumerate().map(|(i, &c)| {
                Rectangle::new([(h.edges[i], 0.0), (h.edges[i + 1], c)], bar.filled())
            }))?
            .label("observed jumps (jumps.csv)")
            .legend(move |(x, y)| Rectangle::new([(x, y - 6), (x + 24, y + 6)], bar.filled()));
        chart.draw_series(h.counts.iter().enumerate().map(|(i, &c)| {
            Rectangle::new(
                [(h.edges[i], 0.0), (h.edges[i + 1], c)],
                style::OI_BLUE.stroke_width(1),
            )
        }))?;
        if !h.expected.is_empty() {
            let mut line = Vec::with_capacity(2 * h.expected.len());
            for (i, &e) in h.expected.iter().enumerate() {
                line.push((h.edges[i], e));
                line.push((h.edges[i + 1], e));
            }
            let c = style::OI_VERMILLION;
            let source = if self.from_map {
                "map of summary.json"
            } else {
                "ln ε interpolated from the data"
            };
            let label = match (h.rate, h.chi_square()) {
                (Some(rate), Some(cs)) => format!(
                    "expected: Σ owners λ·|Δ ln ε| per bin, λ = {} ({source}); χ² = {:.1}, df = {}, p = {:.3}",
                    style::short(rate),
                    cs.statistic,
                    cs.df,
                    cs.p_value
                ),
                _ => "expected count per bin".to_string(),
            };
            chart
                .draw_series(LineSeries::new(line, c.stroke_width(3)))?
                .label(label)
                .legend(move |(x, y)| {
                    PathElement::new(vec![(x, y), (x + 24, y)], c.stroke_width(3))
                });
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_counts_exp_map_are_rate_times_b_times_overlap() {
        // exp:a=3,b=0.5 → ln ε = 3 − 0.5 d; λ = 3; owners cover [1,5] and [2,3].
        let ln = |d: f64| 3.0 - 0.5 * d;
        let e = histogram_edges(0.0, 6.0, 6);
        let got = expected_jump_counts(&e, &[(1.0, 5.0), (2.0, 3.0), (4.0, 4.0)], 3.0, &ln);
        let want = [0.0, 1.5, 3.0, 1.5, 1.5, 0.0];
        for (g, w) in got.iter().zip(want) {
            assert!((g - w).abs() < 1e-12, "{got:?}");
        }
    }

    #[test]
    fn binning_edges_and_outside_values() {
        let e = histogram_edges(0.0, 1.0, 4);
        assert_eq!(e.len(), 5);
        assert_eq!(e[4], 1.0);
        let c = bin_counts(&e, [0.0, 0.24, 0.25, 0.99, 1.0, -0.1, 1.1, f64::NAN]);
        assert_eq!(c, vec![2.0, 1.0, 0.0, 2.0]);
    }

    #[test]
    fn gamma_q_known_values() {
        // Q(1, x) = e^{−x}; Q(1/2, x) = erfc(√x); chi-square df = 2: p = e^{−x/2}.
        for x in [0.1, 1.0, 2.5, 10.0, 40.0] {
            assert!((gamma_q(1.0, x) - (-x).exp()).abs() < 1e-14 * (1.0 + (-x).exp()));
        }
        // erfc(1) = 0.157299207050285, erfc(3) = 2.20904969985854e-5.
        assert!((gamma_q(0.5, 1.0) - 0.157_299_207_050_285).abs() < 1e-13);
        assert!((gamma_q(0.5, 9.0) / 2.209_049_699_858_54e-5 - 1.0).abs() < 1e-10);
        // Chi-square df = 10 at its median 9.341818: p = 0.5.
        assert!((gamma_q(5.0, 9.341_818 / 2.0) - 0.5).abs() < 1e-6);
        assert!((ln_gamma(10.0) - 362_880f64.ln()).abs() < 1e-12);
        assert!((ln_gamma(0.5) - std::f64::consts::PI.sqrt().ln()).abs() < 1e-12);
    }

    #[test]
    fn chi_square_pools_small_bins() {
        let cs = chi_square(&[1.0, 2.0, 10.0, 0.0], &[1.0, 3.0, 10.0, 1.0]);
        // Groups: (3,4)→ pooled until ≥5 with the 10: (13,14); last (0,1) joins it.
        assert_eq!(cs.df, 1);
        assert!((cs.statistic - 4.0 / 15.0).abs() < 1e-12);
    }
}
