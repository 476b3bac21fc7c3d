//! The sweep figure (`sweep --plots --x KEY`): each metric against one grid
//! key, one line per combination of the other varying keys (and mechanism,
//! estimator, coalition, distance bucket), the metric's `_theory` companion
//! (when the CSV has one) dashed in the same colour. One panel per metric.
//! Same look as the plot module: DejaVu Sans, Okabe–Ito colours, PNG + SVG
//! written atomically beside the CSV.
//!
//! The x axis: the key's values in grid order; a common prefix is cut off
//! (`exp:a=4,b=0.5`, `exp:a=4,b=1` → 0.5, 1, axis "eps = exp:a=4,b=…") and the
//! rest is placed on a numeric axis when every value is a number, at equal
//! steps otherwise. The y axis is logarithmic when every value is positive.

use super::grid::{Grid, OUTPUT_COLUMNS};
use super::metrics::METRICS;
use super::rows::SweepRow;
use crate::util::fmt_f64;
use crate::util::table::{self, Reader};
use crate::{Error, Result};
use std::path::Path;

/// What to draw.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotSpec {
    /// The grid key on the x axis.
    pub x: String,
    /// Metrics, one panel each (e.g. `mse`, `gain`).
    pub metrics: Vec<String>,
    /// Keep only distance buckets containing one of these distances
    /// (per-bucket metrics; empty = every bucket).
    pub at: Vec<f64>,
    /// Keep only rows whose column equals the value (`mechanism=correlated`);
    /// a filter on a column that is empty in a row does not apply to it.
    pub only: Vec<(String, String)>,
}

impl PlotSpec {
    /// Checks that `x` is a grid key and the filters name columns.
    pub fn check(&self, grid: &Grid) -> Result<()> {
        let cols = grid.columns();
        let x = self.x.trim().replace('-', "_");
        if !grid.axes.iter().any(|a| a.key == x || a.column() == x) {
            return Err(Error::param(
                "x",
                &self.x,
                format!("one of the grid keys ({})", cols.join(", ")),
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
        if let Some(m) = self.metrics.iter().find(|m| !METRICS.contains(&m.as_str())) {
            return Err(Error::param(
                "metrics",
                m,
                format!("one of {}", METRICS.join(", ")),
            ));
        }
        for (c, _) in &self.only {
            if !cols.iter().any(|k| k == c) && !OUTPUT_COLUMNS.contains(&c.as_str()) {
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
    pub(crate) color: usize,
    pub(crate) marker: usize,
    pub(crate) points: Vec<(f64, f64)>,
    pub(crate) theory: Vec<(f64, f64)>,
}

#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "plots"), allow(dead_code))]
pub(crate) struct Panel {
    pub(crate) metric: String,
    pub(crate) log: bool,
    pub(crate) series: Vec<Series>,
}

/// A sweep figure built from the CSV.
#[derive(Clone, Debug)]
#[cfg_attr(not(feature = "plots"), allow(dead_code))]
pub struct SweepFigure {
    pub(crate) title: String,
    pub(crate) x_label: String,
    /// x position and tick text of each distinct value.
    pub(crate) x_ticks: Vec<(f64, String)>,
    pub(crate) panels: Vec<Panel>,
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

fn mechanism_marker(m: &str) -> usize {
    match m {
        "correlated" | "" => 0,
        "independent" => 1,
        "gaussian" => 2,
        _ => 3,
    }
}

/// Reads the sweep CSV and builds the figure.
pub fn load(csv: &Path, spec: &PlotSpec) -> Result<SweepFigure> {
    // Lines of at most 1 MiB, the file at most a quarter of the memory
    // budget (its rows are held in memory).
    let reader = Reader::open_limited(csv, crate::limits::memory_budget().bytes / 4)?;
    let header: Vec<String> = reader.header().iter().map(String::from).collect();
    if header.iter().all(String::is_empty) {
        return Err(Error::input(csv, 1, "expected a sweep CSV header"));
    }
    let nt = OUTPUT_COLUMNS.len();
    if header.len() < nt || header[header.len() - nt..] != OUTPUT_COLUMNS.map(String::from) {
        return Err(Error::input(
            csv,
            1,
            format!(
                "expected the columns to end with {}",
                OUTPUT_COLUMNS.join(",")
            ),
        ));
    }
    let nk = header.len() - nt;
    let col = |name: &str| header.iter().position(|h| h == name);
    let x = spec.x.trim().replace('-', "_");
    let xi = col(&x)
        .or_else(|| col(&format!("{x}_spec")))
        .filter(|&i| i < nk)
        .ok_or_else(|| {
            Error::param(
                "x",
                &spec.x,
                format!(
                    "a grid key of {} ({})",
                    csv.display(),
                    header[..nk].join(", ")
                ),
            )
        })?;
    // Each row: its cells as text (keys, filters) and its typed tail.
    let tail_names: Vec<String> = header[nk..].to_vec();
    let mut rows: Vec<(Vec<String>, SweepRow)> = Vec::new();
    reader.records(|line, rec| {
        let tail: csv::StringRecord = rec.iter().skip(nk).collect();
        let row = table::decode(csv, line, &tail_names, &tail)?;
        rows.push((rec.iter().map(String::from).collect(), row));
        Ok::<_, Error>(())
    })?;
    let filters: Vec<(usize, &str)> = spec
        .only
        .iter()
        .filter_map(|(c, v)| col(c).map(|i| (i, v.as_str())))
        .collect();
    rows.retain(|(r, _)| filters.iter().all(|(i, v)| r[*i].is_empty() || r[*i] == *v));
    // Keys that vary (other than x) label the lines.
    let mut distinct: Vec<Vec<String>> = vec![Vec::new(); nk];
    for (r, _) in &rows {
        for k in 0..nk {
            if !distinct[k].contains(&r[k]) {
                distinct[k].push(r[k].clone());
            }
        }
    }
    let varying: Vec<usize> = (0..nk)
        .filter(|&k| k != xi && distinct[k].len() > 1)
        .collect();
    let xs = &distinct[xi];
    let prefix = common_prefix(xs);
    let rest: Vec<&str> = xs.iter().map(|s| &s[prefix.len()..]).collect();
    let nums: Option<Vec<f64>> = rest.iter().map(|s| s.trim().parse::<f64>().ok()).collect();
    let x_ticks: Vec<(f64, String)> = match nums {
        Some(v) if v.iter().all(|x| x.is_finite()) => v
            .into_iter()
            .zip(rest.iter().map(|s| s.to_string()))
            .collect(),
        _ => rest
            .iter()
            .enumerate()
            .map(|(i, s)| (i as f64, s.to_string()))
            .collect(),
    };
    let xpos = |t: &str| xs.iter().position(|v| v == t).map(|i| x_ticks[i].0);
    let in_at = |r: &SweepRow| -> bool {
        match (r.distance_lo, r.distance_hi) {
            _ if spec.at.is_empty() => true,
            (None, _) => true,
            (Some(_), None) => false,
            (Some(lo), Some(hi)) => spec.at.iter().any(|d| lo - 1e-12 <= *d && *d <= hi + 1e-12),
        }
    };
    let mut panels = Vec::new();
    for metric in &spec.metrics {
        let theory = format!("{metric}_theory");
        let mut series: Vec<(Vec<String>, Series)> = Vec::new();
        let mut colors: Vec<Vec<String>> = Vec::new();
        for (r, t) in rows.iter().filter(|(_, t)| in_at(t)) {
            let is_theory = t.metric == theory;
            if t.metric != *metric && !is_theory {
                continue;
            }
            let (Some(x), y) = (xpos(&r[xi]), t.value) else {
                continue;
            };
            if !y.is_finite() {
                continue;
            }
            let mut ckey: Vec<String> = varying
                .iter()
                .map(|&k| format!("{}={}", header[k], r[k]))
                .collect();
            if !t.coalition.is_empty() {
                ckey.push(t.coalition.clone());
            }
            if !t.estimator.is_empty() {
                ckey.push(t.estimator.clone());
            }
            if let Some(lo) = t.distance_lo {
                let hi = t.distance_hi.unwrap_or(f64::NAN);
                // One point when the two cells read the same.
                ckey.push(if fmt_f64(lo) == fmt_f64(hi) {
                    format!("d={}", fmt_f64(lo))
                } else {
                    format!(
                        "d∈[{}, {}]",
                        crate::util::num::short(lo),
                        crate::util::num::short(hi)
                    )
                });
            }
            let mut key = ckey.clone();
            key.push(t.mechanism.clone());
            let color = match colors.iter().position(|c| *c == ckey) {
                Some(i) => i,
                None => {
                    colors.push(ckey.clone());
                    colors.len() - 1
                }
            };
            let s = match series.iter().position(|(k, _)| *k == key) {
                Some(i) => &mut series[i].1,
                None => {
                    let mut parts = ckey.clone();
                    if !t.mechanism.is_empty() {
                        parts.push(t.mechanism.clone());
                    }
                    series.push((
                        key,
                        Series {
                            label: if parts.is_empty() {
                                metric.clone()
                            } else {
                                parts.join(" · ")
                            },
                            color,
                            marker: mechanism_marker(&t.mechanism),
                            points: Vec::new(),
                            theory: Vec::new(),
                        },
                    ));
                    &mut series.last_mut().expect("just pushed").1
                }
            };
            if is_theory {
                s.theory.push((x, y));
            } else {
                s.points.push((x, y));
            }
        }
        let mut series: Vec<Series> = series.into_iter().map(|(_, s)| s).collect();
        series.retain(|s| !s.points.is_empty());
        for s in &mut series {
            s.points.sort_by(|a, b| a.0.total_cmp(&b.0));
            s.theory.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        if series.is_empty() {
            return Err(Error::param(
                "metrics",
                metric,
                format!(
                    "a metric with rows in {} (after `at`/`only`)",
                    csv.display()
                ),
            ));
        }
        let log = series
            .iter()
            .flat_map(|s| s.points.iter().chain(&s.theory))
            .all(|p| p.1 > 0.0);
        panels.push(Panel {
            metric: metric.clone(),
            log,
            series,
        });
    }
    let x_label = if prefix.is_empty() {
        header[xi].clone()
    } else {
        format!("{} = {prefix}…", header[xi])
    };
    let mut title = format!("{} against {}", spec.metrics.join(", "), header[xi]);
    if !spec.at.is_empty() {
        let ds: Vec<String> = spec
            .at
            .iter()
            .map(|d| crate::util::num::short(*d))
            .collect();
        title.push_str(&format!(" at distance {}", ds.join(", ")));
    }
    Ok(SweepFigure {
        title,
        x_label,
        x_ticks,
        panels,
    })
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
}
