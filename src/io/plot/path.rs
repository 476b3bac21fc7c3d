//! Figure 5 (`--kind path`): sample paths of the lazy Laplace process against
//! ε (the seed's Fig. 1).
//!
//! x = ε on a log axis; y = arctan(V) (ticks at multiples of π/4), so the whole real line fits
//! in (−π/2, π/2): at small ε the noise is wide and the path hugs ±π/2, as ε
//! grows it settles towards 0 in ever rarer jumps. Input: a `privdiffuse path`
//! CSV (`sample,eps,v1..vn`) or a simulation's `paths.csv` (`owner,eps,...`).
//! Breakpoint rows are drawn as steps (a row's value holds up to the next
//! row's ε; the last one up to the path's top level: `eps_hi` from the
//! sidecar `FILE.json` that `privdiffuse path --out FILE.csv` writes, or from
//! `owners.csv` beside a `paths.csv`, else the largest level in the file).
//! The x axis then spans the sidecar's `[eps_lo, eps_hi]`, with labelled ticks
//! at 1, 2, 5 × 10ᵏ (more mantissas on a short range, see
//! [`style::log_ticks`]). A `paths.csv` of a run with replicates holds one
//! path per owner and replicate; each is drawn in its own colour, at most
//! [`MAX_SAMPLES`] of them, the legend saying how many are left out.
//! A file whose samples all list the same levels (the `--at` form) is drawn
//! as points joined by thin lines. For n > 1, coordinate 1 is drawn.

use super::axis::Scale;
use super::chart::{self, Axes, Chart};
use super::data::{PathTable, read_owners, read_paths};
use super::layout::Mark;
use super::legend::{Entry, MarksResult, Plot, Swatch};
use super::style::{self, Fonts};
use crate::error::{Error, Result};
use plotters::prelude::*;
use std::collections::HashMap;
use std::f64::consts::FRAC_PI_2;
use std::path::Path;

/// Most samples drawn (one palette colour each).
pub const MAX_SAMPLES: usize = 8;

/// One drawn sample.
#[derive(Clone, Debug, PartialEq)]
pub struct SampleTrace {
    /// Sample or owner id.
    pub id: String,
    /// Replicate of an owner's path (`paths.csv`).
    pub replicate: Option<u32>,
    /// Legend text (`owner 0 · replicate 1`).
    pub label: String,
    /// Polyline `(ε, arctan v₁)`.
    pub line: Vec<(f64, f64)>,
    /// Marked points (breakpoints or `--at` levels).
    pub marks: Vec<(f64, f64)>,
}

/// Data of figure 5.
#[derive(Clone, Debug)]
pub struct PathFigure {
    /// Up to [`MAX_SAMPLES`] samples.
    pub traces: Vec<SampleTrace>,
    /// Samples in the file.
    pub total: usize,
    /// Dimension n.
    pub dim: usize,
    /// Rows are values at requested levels (`--at`), not breakpoints.
    pub at_levels: bool,
    /// Name of the id column (`sample` or `owner`).
    pub id_column: String,
    /// ε range drawn.
    pub eps_range: (f64, f64),
}

/// Builds the traces of `table` (the first [`MAX_SAMPLES`] paths);
/// `top(id, replicate)` gives a path's top level when known.
pub fn traces(table: &PathTable, top: &dyn Fn(&str, Option<u32>) -> Option<f64>) -> PathFigure {
    let dim = table.dim;
    let at_levels = table.series.len() >= 2
        && table.series.iter().all(|s| s.eps == table.series[0].eps)
        && table.series[0].eps.len() >= 2;
    let file_max = table
        .series
        .iter()
        .filter_map(|s| s.eps.last().copied())
        .fold(f64::NEG_INFINITY, f64::max);
    let file_min = table
        .series
        .iter()
        .filter_map(|s| s.eps.first().copied())
        .fold(f64::INFINITY, f64::min);
    let mut hi_all = file_max;
    let mut out = Vec::new();
    for s in table.series.iter().take(MAX_SAMPLES) {
        let y: Vec<f64> = (0..s.eps.len())
            .map(|i| s.value(i, dim)[0].atan())
            .collect();
        let marks: Vec<(f64, f64)> = s.eps.iter().copied().zip(y.iter().copied()).collect();
        let line = if at_levels {
            marks.clone()
        } else {
            let end = top(&s.id, s.replicate)
                .filter(|t| t.is_finite() && *t >= s.eps[s.eps.len() - 1])
                .unwrap_or(file_max);
            hi_all = hi_all.max(end);
            let mut l = Vec::with_capacity(2 * s.eps.len());
            for (i, (&e, &v)) in s.eps.iter().zip(&y).enumerate() {
                let next = s.eps.get(i + 1).copied().unwrap_or(end);
                l.push((e, v));
                l.push((next, v));
            }
            l
        };
        out.push(SampleTrace {
            id: s.id.clone(),
            replicate: s.replicate,
            label: table.label(s),
            line,
            marks,
        });
    }
    PathFigure {
        traces: out,
        total: table.series.len(),
        dim,
        at_levels,
        id_column: table.id_column.clone(),
        eps_range: (file_min, hi_all),
    }
}

/// The sidecar of a `privdiffuse path` CSV: `FILE.json` beside `FILE.csv`
/// (`eps_lo`, `eps_hi`, `dim`, `norm`, `samples`, `at`, `seed`).
pub fn sidecar_path(csv: &Path) -> std::path::PathBuf {
    crate::io::paths::sidecar_path(csv)
}

/// `(eps_lo, eps_hi)` of the sidecar of `csv`, if there is a readable one.
/// A sidecar that exists but does not parse, or holds no positive finite
/// range, is an input error naming it.
pub fn read_sidecar(csv: &Path) -> Result<Option<(f64, f64)>> {
    let json = sidecar_path(csv);
    let Ok(text) = std::fs::read_to_string(&json) else {
        return Ok(None);
    };
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::input(&json, e.line(), format!("not JSON: {e}")))?;
    let num = |k: &str| v.get(k).and_then(serde_json::Value::as_f64);
    match (num("eps_lo"), num("eps_hi")) {
        (Some(lo), Some(hi)) if lo > 0.0 && hi >= lo && hi.is_finite() => Ok(Some((lo, hi))),
        _ => Err(Error::input(
            &json,
            0,
            "expected numbers `eps_lo` and `eps_hi` with 0 < eps_lo ≤ eps_hi",
        )),
    }
}

/// Loads figure 5: `input` is a path CSV (with its sidecar `FILE.json` when
/// present), or a directory holding `paths.csv` (with `owners.csv` for each
/// path's top level, when present).
pub fn load(input: &Path) -> Result<PathFigure> {
    let (file, owners_file) = if input.is_dir() {
        (input.join("paths.csv"), Some(input.join("owners.csv")))
    } else {
        let o = input.parent().map(|p| p.join("owners.csv"));
        (input.to_path_buf(), o)
    };
    let table = read_paths(&file)?;
    if table.series.is_empty() {
        return Err(Error::NothingToDraw {
            file,
            reason: "the file has a header and no rows".into(),
        });
    }
    // The top level of each owner's path, per replicate (a file without
    // the column is replicate 0).
    let mut tops: HashMap<(String, u32), f64> = HashMap::new();
    if table.id_column == "owner"
        && let Some(of) = owners_file.filter(|p| p.exists())
    {
        for o in read_owners(&of)? {
            if let Some(top) = o.eps_hi {
                tops.insert((o.owner, o.replicate), top);
            }
        }
    }
    let range = if input.is_dir() {
        None
    } else {
        read_sidecar(input)?
    };
    let mut fig = traces(&table, &|id, rep| {
        tops.get(&(id.to_string(), rep.unwrap_or(0)))
            .copied()
            .or(range.map(|r| r.1))
    });
    if let Some((lo, hi)) = range {
        fig.eps_range = (fig.eps_range.0.min(lo), fig.eps_range.1.max(hi));
    }
    if !(fig.eps_range.0 > 0.0 && fig.eps_range.1.is_finite()) {
        return Err(Error::input(&file, 1, "no finite positive levels"));
    }
    Ok(fig)
}

/// Legend text of the asymptotes.
const ASYMPTOTES: &str = "±π/2: V = ±∞";

impl PathFigure {
    fn left_out(&self) -> Option<String> {
        (self.total > self.traces.len()).then(|| {
            format!(
                "+ {} not drawn (at most {MAX_SAMPLES})",
                style::plural(self.total - self.traces.len(), "more path")
            )
        })
    }
}

impl Plot for PathFigure {
    const NAME: &'static str = "path";
    const Y_LABELS: f64 = 2.6;

    fn title(&self) -> String {
        let shown = if self.total > self.traces.len() {
            format!("first {} of {} paths", self.traces.len(), self.total)
        } else {
            style::plural(self.total, "path")
        };
        format!("Sample paths of the lazy Laplace process ({shown})")
    }

    fn axes(&self) -> Axes {
        let (lo, hi) = self.eps_range;
        let (x0, x1) = if hi > lo {
            let ratio = hi / lo;
            let f = if ratio.is_finite() {
                ratio.powf(0.03)
            } else {
                // The ratio overflows: exp(0.03 · (ln hi − ln lo)).
                (0.03 * (hi.ln() - lo.ln())).exp()
            };
            style::safe_log_range(lo / f, hi * f)
        } else {
            style::safe_log_range(lo / 2.0, lo * 2.0)
        };
        let q = FRAC_PI_2 / 2.0;
        let y_ticks = [
            (-FRAC_PI_2, "−π/2"),
            (-q, "−π/4"),
            (0.0, "0"),
            (q, "π/4"),
            (FRAC_PI_2, "π/2"),
        ]
        .map(|(v, l)| (v, l.to_string()));
        Axes {
            x: Scale::log(x0, x1, false),
            y: Scale::categories(-1.7, 1.7, &y_ticks, false),
            x_desc: "privacy level ε (log scale)".into(),
            y_desc: if self.dim == 1 {
                "arctan(V_ε)".into()
            } else {
                format!("arctan(V₁), first coordinate of n = {}", self.dim)
            },
        }
    }

    fn entries(&self) -> Vec<Entry> {
        let mut e: Vec<Entry> = self
            .traces
            .iter()
            .enumerate()
            .map(|(i, t)| Entry::marker(t.label.clone(), 0, style::series_color(i), true))
            .collect();
        if let Some(l) = self.left_out() {
            e.push(Entry::new(l, Swatch::Blank));
        }
        e.push(Entry::dashed(ASYMPTOTES, style::MID_GREY, 1));
        e
    }

    fn marks<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        fonts: &Fonts,
        axes: &Axes,
    ) -> MarksResult<DB> {
        let (x0, x1) = axes.x.bounds();
        let mut marks = Vec::new();
        let mut asym = Mark::new(ASYMPTOTES);
        for b in [-FRAC_PI_2, FRAC_PI_2] {
            let line = vec![(x0, b), (x1, b)];
            chart.draw_series(DashedLineSeries::new(
                line.clone(),
                6,
                6,
                style::MID_GREY.stroke_width(1),
            ))?;
            asym.line(chart::pxs(chart, line));
        }
        marks.push(asym);
        let r = (fonts.label * 0.22).max(2.0) as i32;
        for (i, t) in self.traces.iter().enumerate() {
            let c = style::series_color(i);
            let width = if self.at_levels { 1 } else { 2 };
            chart.draw_series(LineSeries::new(t.line.clone(), c.stroke_width(width)))?;
            chart.draw_series(
                t.marks
                    .iter()
                    .map(|&p| Circle::new(p, r as u32, c.filled())),
            )?;
            let mut m = Mark::new(t.label.clone());
            m.line(chart::pxs(chart, t.line.iter().copied()));
            m.points(chart::pxs(chart, t.marks.iter().copied()), r);
            marks.push(m);
        }
        Ok(marks)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::io::plot::data::PathSeries;

    #[test]
    fn steps_extend_to_the_top_level() {
        let t = PathTable {
            id_column: "sample".into(),
            dim: 1,
            series: vec![PathSeries {
                id: "0".into(),
                replicate: None,
                eps: vec![0.5, 2.0],
                values: vec![10.0, 0.0],
                first_line: 2,
            }],
        };
        let f = traces(&t, &|_, _| Some(8.0));
        assert!(!f.at_levels);
        assert_eq!(
            f.traces[0].line,
            vec![
                (0.5, 10f64.atan()),
                (2.0, 10f64.atan()),
                (2.0, 0.0),
                (8.0, 0.0)
            ]
        );
        assert_eq!(f.eps_range, (0.5, 8.0));
    }
}
