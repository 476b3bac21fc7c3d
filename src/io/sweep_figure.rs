//! The sweep figure (`sweep --plots --x KEY`, `plot --kind sweep --input
//! FILE.csv`): each metric against one key column, one panel per metric.
//!
//! * Seeds (and replicates) are pooled: each line is the mean over the seeds
//!   with a band of its 95 % interval, mean ± t(0.975, n−1)·se (the same
//!   aggregate as `STEM.summary.csv`, see [`super::sweep_summary`]);
//!   `per_seed` draws each seed as a line of its own instead.
//! * Utility metrics (`utility_mse`, `utility_mse_all`: each a mean over
//!   replicates) at one seed: the point with whiskers ± 1.96·se, its `_se`
//!   row being the standard error over the replicates; each scheme in its own
//!   fixed colour and marker, labelled with its estimator
//!   ([`super::sweep_intervals`]).
//! * One line per combination of the columns that still vary after `only`
//!   (other keys, mechanism, estimator, coalition, distance bucket), except
//!   those that the x value determines (`coalition.m` or the coalition spec
//!   when x is the template variable `m`); the legend names exactly those. A
//!   panel of more than [`MAX_SERIES`] lines is refused with a message naming
//!   the columns to fix with `only`.
//! * Colours: one per line; when the mechanism splits lines, the two (or
//!   three) mechanisms of one combination of the other columns share a hue
//!   in distinct shades (dark: correlated, light: independent), with their
//!   own marker too; when only the mechanism splits them, each mechanism
//!   has its colour of every other figure.
//! * Metrics and keys are named in words ([`metric_label`], [`key_label`]:
//!   `mean gain of the coalition`, not `gain_mean`). A panel of collusion
//!   rows names its estimator in its caption (`…, estimator ivw`), or says
//!   the lines are per estimator; a figure of one panel shows no caption
//!   (its title names the metric) and says it in the note.
//! * The metric's `_theory` companion (when the CSV has one) is dashed in the
//!   same colour.
//! * Numbers are checked as every figure's inputs are: `NaN` only as a
//!   metric's value, `inf` only as a bucket's edge, finite ones within
//!   ±1e300, and at most [`MAX_ROWS`](super::figure_input::MAX_ROWS) rows
//!   (`plot`); otherwise an error names the file, line and column.
//! * The x axis: the key's values; a common prefix is cut off (`exp:a=4,b=0.5`,
//!   `exp:a=4,b=1` → 0.5, 1, axis "eps = exp:a=4,b=…") and the rest is placed
//!   on a numeric axis (points connected) when every value is a number (log
//!   with `log_x`), at equal steps otherwise. The y axis is logarithmic when
//!   every value is positive.
//!
//! Same look as the plot module: DejaVu Sans, Okabe–Ito colours, PNG + SVG
//! written atomically; legends off the data, one per panel when the colours
//! mean different things in different panels ([`crate::io::plot::sweep`]).

use super::sweep_summary::{Aggregate, POOLED_KEYS, SweepTable, aggregate, t975};
use crate::error::{Error, Result};
use crate::sweep::grid::{Grid, OUTPUT_COLUMNS};
use crate::sweep::metrics::METRICS;
use crate::sweep::rows::SweepRow;
use crate::util::fmt_f64;
use std::collections::HashMap;
use std::path::Path;

/// Most lines one panel may hold (a legend of more covers the figure).
pub const MAX_SERIES: usize = 12;

/// What to draw.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PlotSpec {
    /// The key column on the x axis (a grid key, a template variable or a
    /// derived `KEY.PARAM` column); empty: the first numeric key column that
    /// varies, other than the seed.
    pub x: String,
    /// Metrics, one panel each (e.g. `mse`, `gain`); empty when drawing a
    /// finished sweep: `gain_median` when it has collusion rows, else `mse`.
    pub metrics: Vec<String>,
    /// Keep only distance buckets containing one of these distances
    /// (per-bucket metrics; empty = every bucket).
    pub at: Vec<f64>,
    /// Keep only rows whose column equals the value (`mechanism=correlated`);
    /// a filter on a column that is empty in a row does not apply to it.
    pub only: Vec<(String, String)>,
    /// Logarithmic x axis (every x a positive number).
    pub log_x: bool,
    /// One line per seed instead of their mean and interval.
    pub per_seed: bool,
}

impl PlotSpec {
    /// Checks, before a sweep computes anything, that `x` is a key column
    /// of the grid's CSV, the metrics exist and the filters name columns.
    pub fn check(&self, grid: &Grid) -> Result<()> {
        let cols = grid.columns();
        let x = self.x.trim().replace('-', "_");
        let found = grid.axes.iter().any(|a| a.key == x || a.column() == x) || cols.contains(&x);
        if !found {
            return Err(Error::param(
                "x",
                &self.x,
                format!("one of the grid's key columns ({})", cols.join(", ")),
            ));
        }
        if self.metrics.is_empty() {
            return Err(Error::param("metrics", "", "at least one metric"));
        }
        // Checked before the sweep runs: a distance that no bucket can hold
        // would fail only after every point was computed.
        if let Some(d) = self.at.iter().find(|d| !(d.is_finite() && **d >= 0.0)) {
            return Err(Error::param(
                "at",
                fmt_f64(*d),
                "distances: finite numbers ≥ 0",
            ));
        }
        if let Some(m) = self
            .metrics
            .iter()
            .find(|m| !METRICS.contains(&crate::sweep::metrics::canonical_metric(m)))
        {
            return Err(Error::param(
                "metrics",
                m,
                format!("one of {}", METRICS.join(", ")),
            ));
        }
        for (c, _) in &self.only {
            let spec = format!("{c}_spec");
            if !cols.iter().any(|k| k == c || *k == spec) && !OUTPUT_COLUMNS.contains(&c.as_str()) {
                return Err(Error::param(
                    "only",
                    c,
                    format!(
                        "a column: {} or {}",
                        cols.join(", "),
                        OUTPUT_COLUMNS.join(", ")
                    ),
                ));
            }
        }
        Ok(())
    }
}

#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "plots"), allow(dead_code))]
pub(crate) struct Series {
    pub(crate) label: String,
    /// Palette colour, or with `shade` the hue of a group of lines.
    pub(crate) color: usize,
    /// The mechanism's shade of the hue `color` (0 correlated, 1
    /// independent, 2 gaussian) when the mechanism splits lines that other
    /// columns split too.
    pub(crate) shade: Option<usize>,
    pub(crate) marker: usize,
    pub(crate) points: Vec<(f64, f64)>,
    /// (x, low, high) of the 95 % interval, where there are ≥ 2 seeds.
    pub(crate) band: Vec<(f64, f64, f64)>,
    /// (x, low, high): mean ± 1.96 se over the replicates of one seed
    /// (utility metrics, [`super::sweep_intervals`]).
    pub(crate) whiskers: Vec<(f64, f64, f64)>,
    pub(crate) theory: Vec<(f64, f64)>,
}

#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "plots"), allow(dead_code))]
pub(crate) struct Panel {
    pub(crate) metric: String,
    /// The metric in words and what it is of: `mean gain of the coalition,
    /// estimator ivw`.
    pub(crate) caption: String,
    /// The y axis: the metric in words.
    pub(crate) y_label: String,
    pub(crate) log: bool,
    pub(crate) series: Vec<Series>,
}

/// A sweep figure built from the CSV.
#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "plots"), allow(dead_code))]
pub struct SweepFigure {
    pub(crate) title: String,
    /// What a line and its band are (mean over n seeds, 95 % interval).
    pub(crate) note: String,
    pub(crate) x_label: String,
    /// x position (log10 with `log_x`) and tick text of each distinct value.
    pub(crate) x_ticks: Vec<(f64, String)>,
    /// The x values are whole numbers on a linear axis.
    pub(crate) x_integer: bool,
    pub(crate) panels: Vec<Panel>,
}

impl SweepFigure {
    /// Lines in each panel.
    pub fn series_per_panel(&self) -> Vec<usize> {
        self.panels.iter().map(|p| p.series.len()).collect()
    }

    /// The legend labels of panel `i`.
    pub fn labels(&self, i: usize) -> Vec<String> {
        self.panels
            .get(i)
            .map(|p| p.series.iter().map(|s| s.label.clone()).collect())
            .unwrap_or_default()
    }

    /// Each line of panel `i`: its label and (x, mean) points, x as drawn.
    pub fn lines(&self, i: usize) -> Vec<(String, Vec<(f64, f64)>)> {
        self.panels
            .get(i)
            .map(|p| {
                p.series
                    .iter()
                    .map(|s| (s.label.clone(), s.points.clone()))
                    .collect()
            })
            .unwrap_or_default()
    }
}

/// Longest common prefix of `xs`, cut back to just after its last `=` or `:`
/// so that numbers stay whole.
fn common_prefix(xs: &[String]) -> String {
    if xs.len() < 2 {
        return String::new();
    }
    let mut p = xs[0].as_str();
    for x in &xs[1..] {
        let n = p
            .char_indices()
            .zip(x.chars())
            .take_while(|((_, a), b)| a == b)
            .last()
            .map(|((i, a), _)| i + a.len_utf8())
            .unwrap_or(0);
        p = &p[..n];
    }
    match p.rfind(['=', ':']) {
        Some(i) => p[..=i].to_string(),
        None => String::new(),
    }
}

/// A numeric x value as its tick reads it: as typed, or rounded to four
/// significant digits when typed longer than eight characters
/// (`1.9364916731037085` → `1.936`).
fn tick_label(s: &str) -> String {
    let t = s.trim();
    match t.parse::<f64>() {
        Ok(x) if t.len() > 8 && x.is_finite() && x != 0.0 => {
            let digits = 3 - x.abs().log10().floor() as i32;
            if digits <= 0 || digits > 12 {
                return t.to_string();
            }
            let r = format!("{:.*}", digits as usize, x);
            let r = r.trim_end_matches('0').trim_end_matches('.');
            r.to_string()
        }
        _ => t.to_string(),
    }
}

fn mechanism_marker(m: &str) -> usize {
    match m {
        "correlated" | "" => 0,
        "independent" => 1,
        "gaussian" => 2,
        _ => 3,
    }
}

/// The key column `x` names (`coalition` → `coalition_spec`, `-` as `_`).
fn key_index(keys: &[String], x: &str) -> Option<usize> {
    let x = x.trim().replace('-', "_");
    let spec = format!("{x}_spec");
    keys.iter()
        .position(|k| *k == spec)
        .or_else(|| keys.iter().position(|k| *k == x))
}

/// The text of a row's distance bucket (one number when both edges read so).
fn bucket(r: &SweepRow) -> String {
    match r.distance_lo {
        None => String::new(),
        Some(lo) => {
            let hi = r.distance_hi.unwrap_or(f64::NAN);
            if fmt_f64(lo) == fmt_f64(hi) {
                format!("d={}", fmt_f64(lo))
            } else {
                format!(
                    "d∈[{}, {}]",
                    crate::util::num::short(lo),
                    crate::util::num::short(hi)
                )
            }
        }
    }
}

/// A column that may split the lines: a key column or a tail column.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Dim {
    Key(usize),
    Mechanism,
    Estimator,
    Coalition,
    Bucket,
}

/// Reads the sweep CSV and builds the figure (every row, its numbers
/// checked as every figure's are).
pub fn load(csv: &Path, spec: &PlotSpec) -> Result<SweepFigure> {
    load_with(csv, spec, None)
}

/// As [`load`], reading at most `max_rows` rows of the CSV (`plot --kind
/// sweep`: [`MAX_ROWS`](super::figure_input::MAX_ROWS)).
pub fn load_with(csv: &Path, spec: &PlotSpec, max_rows: Option<usize>) -> Result<SweepFigure> {
    let t = SweepTable::read_drawable(csv, max_rows)?;
    super::sweep_intervals::check_se(csv, &t.rows)?;
    let keys = &t.keys;
    if keys.is_empty() {
        return Err(Error::input(
            csv,
            1,
            "a sweep CSV with at least one key column (this sweep had no grid axis)",
        ));
    }
    let metrics = metrics_to_draw(spec, &t.rows);
    let xi = x_column(csv, spec, &t)?;
    let rows = rows_kept(csv, spec, &t)?;
    let pooled: Vec<usize> = if spec.per_seed {
        Vec::new()
    } else {
        (0..keys.len())
            .filter(|&i| i != xi && is_pooled(keys, i))
            .collect()
    };
    let aggs = aggregate(rows.iter().map(|(k, r)| (&k[..], r)), &pooled);
    let axis = XAxis::of(&aggs, xi, spec, keys)?;
    let layout = Layout {
        csv,
        spec,
        keys,
        xi,
        pooled: &pooled,
        aggs: &aggs,
        xpos: axis.positions(),
        replicate_se: super::sweep_intervals::ReplicateSe::new(&aggs),
    };
    let mut pooling = Pooling::default();
    let mut panels = Vec::new();
    for metric in &metrics {
        panels.push(layout.panel(metric, &mut pooling)?);
    }
    let x_label = x_label(spec, &keys[xi], &axis.prefix);
    let title = figure_title(spec, &panels, &keys[xi]);
    let pooled_names: Vec<&str> = pooled.iter().map(|&i| keys[i].as_str()).collect();
    let of_replicates = metrics
        .iter()
        .any(|m| super::sweep_intervals::replicate_se_metric(m).is_some());
    let note = pooling.note(&pooled_names, of_replicates);
    let note = with_panel_remark(note, &panels);
    let x_integer = !spec.log_x
        && axis.numeric
        && axis
            .ticks
            .iter()
            .all(|t| t.0.fract() == 0.0 && t.1.trim().parse::<f64>().is_ok());
    Ok(SweepFigure {
        title,
        note,
        x_label,
        x_ticks: axis.ticks,
        x_integer,
        panels,
    })
}

/// A key column pooled into a line's mean (`seed`, `replicate`).
fn is_pooled(keys: &[String], i: usize) -> bool {
    POOLED_KEYS.contains(&keys[i].as_str())
}

/// The metrics drawn, canonical; none named: the collusion gain when the
/// sweep has collusion rows, else the MSE.
fn metrics_to_draw(spec: &PlotSpec, rows: &[(Vec<String>, SweepRow)]) -> Vec<String> {
    if spec.metrics.is_empty() {
        if rows.iter().any(|(_, r)| r.metric == "gain_median") {
            vec!["gain_median".into()]
        } else {
            vec!["mse".into()]
        }
    } else {
        spec.metrics
            .iter()
            .map(|m| crate::sweep::metrics::canonical_metric(m).to_string())
            .collect()
    }
}

/// The x column: named, or the first numeric key column that varies.
fn x_column(csv: &Path, spec: &PlotSpec, t: &SweepTable) -> Result<usize> {
    let keys = &t.keys;
    let nk = keys.len();
    if !spec.x.trim().is_empty() {
        return key_index(keys, &spec.x).ok_or_else(|| {
            Error::param(
                "x",
                &spec.x,
                format!("a key column of {} ({})", csv.display(), keys.join(", ")),
            )
        });
    }
    let distinct_of = |i: usize| {
        let mut d: Vec<&String> = Vec::new();
        for (r, _) in &t.rows {
            if !d.contains(&&r[i]) {
                d.push(&r[i]);
            }
        }
        d
    };
    Ok((0..nk)
        .filter(|&i| !is_pooled(keys, i))
        .find(|&i| {
            let d = distinct_of(i);
            d.len() > 1 && d.iter().all(|v| v.trim().parse::<f64>().is_ok())
        })
        .or_else(|| (0..nk).find(|&i| !is_pooled(keys, i) && distinct_of(i).len() > 1))
        .unwrap_or(0))
}

/// The text of output column `j` ([`OUTPUT_COLUMNS`]) of a row, for `only`.
fn tail_cell(r: &SweepRow, j: usize) -> String {
    match j {
        0 => r.mechanism.clone(),
        1 => r.estimator.clone(),
        2 => r.coalition.clone(),
        3 => r.metric.clone(),
        4 => r.distance_lo.map(fmt_f64).unwrap_or_default(),
        5 => r.distance_hi.map(fmt_f64).unwrap_or_default(),
        _ => String::new(),
    }
}

/// The rows `only` keeps. A filter names a key column (or its `_spec`) or
/// an output column; one on a cell that is empty does not apply to it.
fn rows_kept(csv: &Path, spec: &PlotSpec, t: &SweepTable) -> Result<Vec<(Vec<String>, SweepRow)>> {
    let keys = &t.keys;
    let mut filters: Vec<(Option<usize>, usize, &str)> = Vec::new();
    for (c, v) in &spec.only {
        if let Some(i) = key_index(keys, c) {
            filters.push((Some(i), 0, v.as_str()));
        } else if let Some(j) = OUTPUT_COLUMNS.iter().position(|o| o == c) {
            filters.push((None, j, v.as_str()));
        } else {
            return Err(Error::param(
                "only",
                c,
                format!(
                    "a column of {}: {} or {}",
                    csv.display(),
                    keys.join(", "),
                    OUTPUT_COLUMNS.join(", ")
                ),
            ));
        }
    }
    Ok(t.rows
        .iter()
        .filter(|(k, r)| {
            filters.iter().all(|(ki, j, v)| {
                let cell = match ki {
                    Some(i) => k[*i].clone(),
                    None => tail_cell(r, *j),
                };
                cell.is_empty() || cell.trim() == v.trim()
            })
        })
        .cloned()
        .collect())
}

/// The x axis: each distinct x value, its position and its tick.
struct XAxis {
    /// The x values in order of first appearance.
    values: Vec<String>,
    /// The position of each of `values` (log10 with `log_x`).
    positions: Vec<f64>,
    /// (position, text) of each value, by position when numeric.
    ticks: Vec<(f64, String)>,
    /// The common prefix cut off the tick texts.
    prefix: String,
    /// Every value (after the prefix) is a finite number.
    numeric: bool,
}

impl XAxis {
    fn of(aggs: &[Aggregate], xi: usize, spec: &PlotSpec, keys: &[String]) -> Result<XAxis> {
        let mut values: Vec<String> = Vec::new();
        for a in aggs {
            if !values.contains(&a.keys[xi]) {
                values.push(a.keys[xi].clone());
            }
        }
        let prefix = common_prefix(&values);
        let rest: Vec<&str> = values.iter().map(|s| &s[prefix.len()..]).collect();
        let nums: Option<Vec<f64>> = rest
            .iter()
            .map(|s| s.trim().parse::<f64>().ok().filter(|x| x.is_finite()))
            .collect();
        let numeric = nums.is_some();
        if spec.log_x && !nums.as_ref().is_some_and(|v| v.iter().all(|x| *x > 0.0)) {
            return Err(Error::param(
                "log_x",
                &keys[xi],
                "an x column of positive numbers for a logarithmic axis",
            ));
        }
        let mut ticks: Vec<(f64, String)> = match nums {
            Some(v) => v
                .into_iter()
                .map(|x| if spec.log_x { x.log10() } else { x })
                .zip(rest.iter().map(|s| tick_label(s)))
                .collect(),
            None => rest
                .iter()
                .enumerate()
                .map(|(i, s)| (i as f64, s.to_string()))
                .collect(),
        };
        let positions = ticks.iter().map(|t| t.0).collect();
        if numeric {
            ticks.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        Ok(XAxis {
            values,
            positions,
            ticks,
            prefix,
            numeric,
        })
    }

    /// Each x value's position.
    fn positions(&self) -> HashMap<&str, f64> {
        self.values
            .iter()
            .map(String::as_str)
            .zip(self.positions.iter().copied())
            .collect()
    }
}

/// Whether a row's distance bucket holds one of `at` (every row when `at`
/// is empty; rows without a bucket always).
fn in_at(at: &[f64], r: &SweepRow) -> bool {
    match (r.distance_lo, r.distance_hi) {
        _ if at.is_empty() => true,
        (None, _) => true,
        (Some(_), None) => false,
        (Some(lo), Some(hi)) => at.iter().any(|d| lo - 1e-12 <= *d && *d <= hi + 1e-12),
    }
}

/// An aggregate's cell of column `d`.
fn cell(a: &Aggregate, d: Dim) -> String {
    match d {
        Dim::Key(i) => a.keys[i].clone(),
        Dim::Mechanism => a.row.mechanism.clone(),
        Dim::Estimator => a.row.estimator.clone(),
        Dim::Coalition => a.row.coalition.clone(),
        Dim::Bucket => bucket(&a.row),
    }
}

/// Column `d` as `only` names it.
fn dim_name(keys: &[String], d: Dim) -> String {
    match d {
        Dim::Key(i) => keys[i].clone(),
        Dim::Mechanism => "mechanism".into(),
        Dim::Estimator => "estimator".into(),
        Dim::Coalition => "coalition".into(),
        Dim::Bucket => "distance bucket (`at`)".into(),
    }
}

/// What the lines of every panel pooled, for the figure's note.
#[derive(Default)]
struct Pooling {
    /// Most values pooled into one point.
    max_n: usize,
    /// Some point has whiskers over its replicates.
    any_whiskers: bool,
}

impl Pooling {
    /// What a line and its band (or a point and its whiskers) are.
    fn note(&self, pooled_names: &[&str], of_replicates: bool) -> String {
        let max_n = self.max_n;
        if max_n >= 2 && !pooled_names.is_empty() {
            if of_replicates {
                format!(
                    "lines: mean over {max_n} {}s (each a mean over its replicates); bands: 95% interval over the {}s",
                    pooled_names.join("/"),
                    pooled_names.join("/")
                )
            } else {
                format!(
                    "lines: mean over {max_n} {}s; bands: 95% interval",
                    pooled_names.join("/")
                )
            }
        } else if self.any_whiskers {
            format!(
                "points: mean over the replicates; whiskers: ± {} SE over the replicates (95%)",
                super::sweep_intervals::Z95
            )
        } else {
            String::new()
        }
    }
}

/// One panel shows no caption: its remark (`estimator ivw`) leads the note.
fn with_panel_remark(note: String, panels: &[Panel]) -> String {
    match panels {
        [p] if p.caption != p.y_label => {
            let remark = p.caption[p.y_label.len()..].trim_start_matches(", ");
            if note.is_empty() {
                remark.to_string()
            } else {
                format!("{remark}; {note}")
            }
        }
        _ => note,
    }
}

/// The x axis in words, with the prefix cut off its ticks.
fn x_label(spec: &PlotSpec, key: &str, prefix: &str) -> String {
    let x_label = if prefix.is_empty() {
        key_label(key)
    } else {
        format!("{} = {prefix}…", key_label(key))
    };
    if spec.log_x {
        format!("{x_label} (log scale)")
    } else {
        x_label
    }
}

/// The title names the metrics in words; what a panel is of (its
/// estimator) stays in its caption, or with one panel in the note.
fn figure_title(spec: &PlotSpec, panels: &[Panel], key: &str) -> String {
    let words: Vec<&str> = panels.iter().map(|p: &Panel| p.y_label.as_str()).collect();
    let mut title = format!("{} against the {}", words.join(" and "), key_label(key));
    if let Some(c) = title.get(..1) {
        title = c.to_uppercase() + &title[1..];
    }
    if !spec.at.is_empty() {
        let ds: Vec<String> = spec
            .at
            .iter()
            .map(|d| crate::util::num::short(*d))
            .collect();
        title.push_str(&format!(" at distance {}", ds.join(", ")));
    }
    title
}

/// The aggregated table laid out on the x axis: what every panel is drawn
/// from.
struct Layout<'a> {
    csv: &'a Path,
    spec: &'a PlotSpec,
    keys: &'a [String],
    /// The x column.
    xi: usize,
    /// The key columns pooled into a line's mean.
    pooled: &'a [usize],
    aggs: &'a [Aggregate],
    xpos: HashMap<&'a str, f64>,
    replicate_se: super::sweep_intervals::ReplicateSe,
}

impl Layout<'_> {
    /// The panel of `metric`.
    fn panel(&self, metric: &str, pooling: &mut Pooling) -> Result<Panel> {
        let main: Vec<&Aggregate> = self
            .aggs
            .iter()
            .filter(|a| a.row.metric == *metric && in_at(&self.spec.at, &a.row))
            .collect();
        if main.is_empty() {
            return Err(Error::param(
                "metrics",
                metric,
                format!(
                    "a metric with rows in {} (after `at`/`only`)",
                    self.csv.display()
                ),
            ));
        }
        let mut lines = Lines::new(self.keys, metric, self.line_dims(&main), &main);
        for a in &main {
            let Some(&x) = self.xpos.get(a.keys[self.xi].as_str()) else {
                continue;
            };
            let y = a.row.value;
            if !y.is_finite() {
                continue;
            }
            pooling.max_n = pooling.max_n.max(a.n);
            let s = lines.line_of(a);
            s.points.push((x, y));
            if a.n >= 2 && a.se.is_finite() {
                let h = t975(a.n - 1) * a.se;
                s.band.push((x, y - h, y + h));
            } else if let Some((lo, hi)) = self.replicate_se.interval(a) {
                s.whiskers.push((x, lo, hi));
                pooling.any_whiskers = true;
            }
        }
        if lines.series.len() > MAX_SERIES {
            return Err(self.too_many_lines(&lines, &main));
        }
        self.add_theory(&mut lines);
        let mut series: Vec<Series> = lines.series.into_iter().map(|(_, s)| s).collect();
        for s in &mut series {
            s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            s.band.sort_by(|a, b| a.0.total_cmp(&b.0));
            s.whiskers.sort_by(|a, b| a.0.total_cmp(&b.0));
            s.theory.sort_by(|a, b| a.0.total_cmp(&b.0));
            s.theory.dedup_by(|a, b| a.0 == b.0);
        }
        // Log y when every line is positive (a band reaching 0 or below is
        // cut at the axis).
        let log = series
            .iter()
            .all(|s| s.points.iter().chain(&s.theory).all(|p| p.1 > 0.0));
        let words = metric_label(metric);
        Ok(Panel {
            metric: metric.to_string(),
            caption: caption(&words, &main),
            y_label: words,
            log,
            series,
        })
    }

    /// The columns that split the lines of `main`: they vary, and are not
    /// fixed by x.
    fn line_dims(&self, main: &[&Aggregate]) -> Vec<Dim> {
        let keys = self.keys;
        let candidates = (0..keys.len())
            .filter(|&i| i != self.xi && !self.pooled.contains(&i))
            .map(Dim::Key)
            .chain([Dim::Coalition, Dim::Estimator, Dim::Mechanism, Dim::Bucket]);
        let mut dims: Vec<Dim> = candidates.filter(|&d| self.splits(main, d)).collect();
        // `eps.b` says nothing more than `eps` when both split the lines.
        let named: Vec<String> = dims
            .iter()
            .filter_map(|d| match d {
                Dim::Key(i) => Some(keys[*i].trim_end_matches("_spec").to_string()),
                _ => None,
            })
            .collect();
        dims.retain(|d| match d {
            Dim::Key(i) => !keys[*i]
                .split_once('.')
                .is_some_and(|(k, _)| named.iter().any(|n| n == k)),
            _ => true,
        });
        dims
    }

    /// Whether column `d` takes several values in `main`, not one per x.
    fn splits(&self, main: &[&Aggregate], d: Dim) -> bool {
        let mut seen: Vec<String> = Vec::new();
        let mut by_x: HashMap<&str, &String> = HashMap::new();
        let mut fixed_by_x = true;
        let cells: Vec<String> = main.iter().map(|a| cell(a, d)).collect();
        for (a, c) in main.iter().zip(&cells) {
            if !seen.contains(c) {
                seen.push(c.clone());
            }
            match by_x.get(a.keys[self.xi].as_str()) {
                Some(prev) if *prev != c => fixed_by_x = false,
                Some(_) => {}
                None => {
                    by_x.insert(a.keys[self.xi].as_str(), c);
                }
            }
        }
        seen.len() > 1 && !fixed_by_x
    }

    /// The metric's `_theory` rows, on the lines they belong to.
    fn add_theory(&self, lines: &mut Lines<'_>) {
        let theory = format!("{}_theory", lines.metric);
        for a in self
            .aggs
            .iter()
            .filter(|a| a.row.metric == theory && in_at(&self.spec.at, &a.row))
        {
            let (Some(&x), y) = (self.xpos.get(a.keys[self.xi].as_str()), a.row.value) else {
                continue;
            };
            if !y.is_finite() {
                continue;
            }
            let id = lines.ident(a);
            if let Some((_, s)) = lines.series.iter_mut().find(|(k, _)| *k == id) {
                s.theory.push((x, y));
            }
        }
    }

    /// A panel of more than [`MAX_SERIES`] lines: the error naming the
    /// columns that vary, for `only`.
    fn too_many_lines(&self, lines: &Lines<'_>, main: &[&Aggregate]) -> Error {
        let spec = self.spec;
        let why: Vec<String> = lines
            .dims
            .iter()
            .map(|&d| {
                let mut vals: Vec<String> = Vec::new();
                for a in main {
                    let c = cell(a, d);
                    if !vals.contains(&c) {
                        vals.push(c);
                    }
                }
                let shown: Vec<&String> = vals.iter().take(4).collect();
                format!(
                    "{} ({} values: {}{})",
                    dim_name(self.keys, d),
                    vals.len(),
                    shown
                        .iter()
                        .map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", "),
                    if vals.len() > 4 { ", …" } else { "" }
                )
            })
            .collect();
        Error::param(
            "only",
            if spec.only.is_empty() {
                "(none)".to_string()
            } else {
                spec.only
                    .iter()
                    .map(|(c, v)| format!("{c}={v}"))
                    .collect::<Vec<_>>()
                    .join(" ")
            },
            format!(
                "at most {MAX_SERIES} lines in panel {}, not {}: fix some of the columns that vary with `only` COLUMN=VALUE: {}",
                lines.metric,
                lines.series.len(),
                why.join("; ")
            ),
        )
    }
}

/// What a collusion metric's panel is of: its estimator, or one per line.
fn caption(words: &str, main: &[&Aggregate]) -> String {
    let mut estimators: Vec<&str> = Vec::new();
    for a in main {
        if !a.row.estimator.is_empty() && !estimators.contains(&a.row.estimator.as_str()) {
            estimators.push(&a.row.estimator);
        }
    }
    match estimators.as_slice() {
        [] => words.to_string(),
        [e] => format!("{words}, estimator {e}"),
        _ => format!("{words}, one line per estimator"),
    }
}

/// The lines of one panel as they are gathered, each keyed by its cells of
/// the columns that split them.
struct Lines<'a> {
    keys: &'a [String],
    metric: &'a str,
    /// The columns that split the lines.
    dims: Vec<Dim>,
    /// The mechanisms of one combination of the other columns share a hue
    /// in distinct shades. Mechanisms outside the known three (and outside
    /// utility's schemes, which have their own styles) — e.g. gossip's
    /// `gossip`, `diffusion-gaussian` — are an ordinary dimension of the
    /// lines: a palette colour each, never one shared shade.
    shades: bool,
    /// The combinations of the other columns, one hue each, in order.
    colors: Vec<Vec<String>>,
    series: Vec<(Vec<String>, Series)>,
}

impl<'a> Lines<'a> {
    fn new(keys: &'a [String], metric: &'a str, dims: Vec<Dim>, main: &[&Aggregate]) -> Self {
        let utility = super::sweep_intervals::is_utility_metric(metric);
        let shades = !main.iter().any(|a| {
            let m = &a.row.mechanism;
            mechanism_marker(m) == 3
                && !(utility && super::sweep_intervals::scheme_style(m).is_some())
        });
        Lines {
            keys,
            metric,
            dims,
            shades,
            colors: Vec::new(),
            series: Vec::new(),
        }
    }

    /// The key of `a`'s line: its cells of the splitting columns.
    fn ident(&self, a: &Aggregate) -> Vec<String> {
        self.dims.iter().map(|&d| cell(a, d)).collect()
    }

    /// The line `a` belongs to, started when it is the first of it.
    fn line_of(&mut self, a: &Aggregate) -> &mut Series {
        let id = self.ident(a);
        let i = match self.series.iter().position(|(k, _)| *k == id) {
            Some(i) => i,
            None => {
                let s = self.start(a);
                self.series.push((id, s));
                self.series.len() - 1
            }
        };
        &mut self.series[i].1
    }

    /// A new line, empty, styled and labelled after `a`.
    fn start(&mut self, a: &Aggregate) -> Series {
        let metric = self.metric;
        let dims = &self.dims;
        let ckey: Vec<String> = dims
            .iter()
            .filter(|d| !self.shades || **d != Dim::Mechanism)
            .map(|&d| cell(a, d))
            .collect();
        let by_mechanism = self.shades && dims.contains(&Dim::Mechanism);
        // A utility scheme: its own colour and marker in every figure.
        let scheme = super::sweep_intervals::is_utility_metric(metric)
            .then(|| super::sweep_intervals::scheme_style(&a.row.mechanism))
            .flatten();
        let (color, shade) = if let (Some(st), true, true) = (scheme, by_mechanism, ckey.is_empty())
        {
            (st.color, None)
        } else if by_mechanism && ckey.is_empty() {
            // The mechanism alone: its colour in every figure.
            (mechanism_marker(&a.row.mechanism), None)
        } else {
            let colors = &mut self.colors;
            let group = match colors.iter().position(|c| *c == ckey) {
                Some(i) => i,
                None => {
                    colors.push(ckey);
                    colors.len() - 1
                }
            };
            let shade = by_mechanism.then(|| mechanism_marker(&a.row.mechanism));
            (group, shade)
        };
        let parts: Vec<String> = dims
            .iter()
            .map(|&d| match d {
                Dim::Key(k) => format!("{}={}", self.keys[k], a.keys[k]),
                Dim::Mechanism if scheme.is_some() => {
                    super::sweep_intervals::scheme_label(&a.row.mechanism)
                        .unwrap_or_else(|| cell(a, d))
                }
                _ => cell(a, d),
            })
            .collect();
        Series {
            label: if parts.is_empty() {
                metric_label(metric)
            } else {
                parts.join(" · ")
            },
            color,
            shade,
            marker: scheme
                .map(|st| st.marker)
                .unwrap_or_else(|| mechanism_marker(&a.row.mechanism)),
            points: Vec::new(),
            band: Vec::new(),
            whiskers: Vec::new(),
            theory: Vec::new(),
        }
    }
}

/// A metric in words (the y axis and the caption of its panel; the CSV
/// column keeps its name, see [`crate::sweep::metrics`]).
pub fn metric_label(metric: &str) -> String {
    if let Some(m) = metric.strip_suffix("_theory") {
        return format!("{} (theory)", metric_label(m));
    }
    if let Some(m) = metric.strip_suffix("_se") {
        return format!("standard error of the {}", metric_label(m));
    }
    match metric {
        "mse" => "MSE of the answers".into(),
        "mse_all" => "MSE over all answers".into(),
        "jumps_per_path" => "jumps per path".into(),
        "gain_mean" => "mean gain of the coalition".into(),
        "gain_median" => "median gain of the coalition".into(),
        "coalition_mse" => "MSE of the coalition's estimate".into(),
        "eps_max" => "largest ε in the coalition".into(),
        "eps_sum" => "sum of ε in the coalition".into(),
        "coalition_size" => "coalition size".into(),
        "utility_mse" => "MSE of the recipients' estimates per degree bucket".into(),
        "utility_mse_all" => "MSE of every recipient's estimate".into(),
        "two_schools_mse" => "MSE of the network mean".into(),
        "gossip_eps_paper_median" => "ε at δ, code's accounting (8), median pair".into(),
        "gossip_eps_exact_median" => "ε at δ, exact loss (11), median pair".into(),
        "gossip_eps_exact_max" => "ε at δ, exact loss (11), worst pair".into(),
        other => other.replace('_', " "),
    }
}

/// A key column in words (the x axis).
pub fn key_label(key: &str) -> String {
    match key.trim_end_matches("_spec") {
        "eps" => "privacy map ε".into(),
        "dim" => "dimension n".into(),
        "m" => "coalition size m".into(),
        "b" => "decay b".into(),
        "norm" => "norm".into(),
        "distance" => "distance kind".into(),
        "coalition" => "coalition".into(),
        "owners" => "owners".into(),
        "values" => "value model".into(),
        "sigma" => "gossip noise σ".into(),
        other => other.replace('_', " "),
    }
}

/// `FILE.csv` → `FILE.<suffix>` beside it.
pub fn side_file(out: &Path, suffix: &str) -> std::path::PathBuf {
    let stem = out
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "sweep".into());
    out.with_file_name(format!("{stem}.{suffix}"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn common_prefix_keeps_numbers_whole() {
        let v = |xs: &[&str]| xs.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            common_prefix(&v(&["exp:a=4,b=0.5", "exp:a=4,b=1"])),
            "exp:a=4,b="
        );
        assert_eq!(common_prefix(&v(&["0.5", "0.25"])), "");
        assert_eq!(common_prefix(&v(&["hop", "resistance"])), "");
        assert_eq!(common_prefix(&v(&["exp:a=4,b=1"])), "");
    }

    #[test]
    fn long_numeric_ticks_are_rounded_short_ones_kept_as_typed() {
        assert_eq!(tick_label("1.9364916731037085"), "1.936");
        assert_eq!(tick_label("0.000123456789"), "0.0001235");
        assert_eq!(tick_label("0.5"), "0.5");
        assert_eq!(tick_label("1e-6"), "1e-6");
        assert_eq!(tick_label("123456789012"), "123456789012");
        assert_eq!(tick_label("exp:a=3,b=1"), "exp:a=3,b=1");
    }
}
