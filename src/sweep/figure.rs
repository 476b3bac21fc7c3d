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
use super::{side_file, split_line};
use crate::output::plot::style::{self, DrawResult, Figure, Fonts};
use crate::{Error, Result};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

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
                "--x",
                &self.x,
                format!("one of the grid keys ({})", cols.join(", ")),
            ));
        }
        if self.metrics.is_empty() {
            return Err(Error::param("--metric", "", "at least one metric"));
        }
        if let Some(m) = self.metrics.iter().find(|m| !METRICS.contains(&m.as_str())) {
            return Err(Error::param(
                "--metric",
                m,
                format!("one of {}", METRICS.join(", ")),
            ));
        }
        for (c, _) in &self.only {
            if !cols.iter().any(|k| k == c) && !OUTPUT_COLUMNS.contains(&c.as_str()) {
                return Err(Error::param(
                    "--only",
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
struct Series {
    label: String,
    color: usize,
    marker: usize,
    points: Vec<(f64, f64)>,
    theory: Vec<(f64, f64)>,
}

#[derive(Clone, Debug)]
struct Panel {
    metric: String,
    log: bool,
    series: Vec<Series>,
}

/// A sweep figure built from the CSV.
#[derive(Clone, Debug)]
pub struct SweepFigure {
    title: String,
    x_label: String,
    /// x position and tick text of each distinct value.
    x_ticks: Vec<(f64, String)>,
    panels: Vec<Panel>,
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
    let text = std::fs::read_to_string(csv).map_err(|e| Error::io(csv, e))?;
    let mut lines = text.lines();
    let header = lines
        .next()
        .and_then(split_line)
        .ok_or_else(|| Error::input(csv, 1, "expected a sweep CSV header"))?;
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
                "--x",
                &spec.x,
                format!(
                    "a grid key of {} ({})",
                    csv.display(),
                    header[..nk].join(", ")
                ),
            )
        })?;
    let mut rows = Vec::new();
    for (ln, l) in lines.enumerate() {
        let f = split_line(l)
            .filter(|f| f.len() == header.len())
            .ok_or_else(|| {
                Error::input(csv, ln + 2, format!("expected {} fields", header.len()))
            })?;
        rows.push(f);
    }
    let filters: Vec<(usize, &str)> = spec
        .only
        .iter()
        .filter_map(|(c, v)| col(c).map(|i| (i, v.as_str())))
        .collect();
    rows.retain(|r| filters.iter().all(|(i, v)| r[*i].is_empty() || r[*i] == *v));
    // Keys that vary (other than x) label the lines.
    let mut distinct: Vec<Vec<String>> = vec![Vec::new(); nk];
    for r in &rows {
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
    let (mi, ei, ci, me, dlo, dhi, vi) = (nk, nk + 1, nk + 2, nk + 3, nk + 4, nk + 5, nk + 6);
    let in_at = |r: &[String]| -> bool {
        if spec.at.is_empty() || r[dlo].is_empty() {
            return true;
        }
        let (Ok(lo), Ok(hi)) = (r[dlo].parse::<f64>(), r[dhi].parse::<f64>()) else {
            return false;
        };
        spec.at.iter().any(|d| lo - 1e-12 <= *d && *d <= hi + 1e-12)
    };
    let mut panels = Vec::new();
    for metric in &spec.metrics {
        let theory = format!("{metric}_theory");
        let mut series: Vec<(Vec<String>, Series)> = Vec::new();
        let mut colors: Vec<Vec<String>> = Vec::new();
        for r in rows.iter().filter(|r| in_at(r)) {
            let is_theory = r[me] == theory;
            if r[me] != *metric && !is_theory {
                continue;
            }
            let (Some(x), Ok(y)) = (xpos(&r[xi]), r[vi].parse::<f64>()) else {
                continue;
            };
            if !y.is_finite() {
                continue;
            }
            let mut ckey: Vec<String> = varying
                .iter()
                .map(|&k| format!("{}={}", header[k], r[k]))
                .collect();
            if !r[ci].is_empty() {
                ckey.push(r[ci].clone());
            }
            if !r[ei].is_empty() {
                ckey.push(r[ei].clone());
            }
            if !r[dlo].is_empty() {
                ckey.push(if r[dlo] == r[dhi] {
                    format!("d={}", r[dlo])
                } else {
                    format!(
                        "d∈[{}, {}]",
                        style::short(r[dlo].parse().unwrap_or(f64::NAN)),
                        style::short(r[dhi].parse().unwrap_or(f64::NAN))
                    )
                });
            }
            let mut key = ckey.clone();
            key.push(r[mi].clone());
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
                    if !r[mi].is_empty() {
                        parts.push(r[mi].clone());
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
                            marker: mechanism_marker(&r[mi]),
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
                "--metric",
                metric,
                format!(
                    "a metric with rows in {} (after --at-distance/--only)",
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
        let ds: Vec<String> = spec.at.iter().map(|d| style::short(*d)).collect();
        title.push_str(&format!(" at distance {}", ds.join(", ")));
    }
    Ok(SweepFigure {
        title,
        x_label,
        x_ticks,
        panels,
    })
}

/// Draws the figure of `csv` as `<stem>.png` and `<stem>.svg` beside it.
pub fn draw_sweep_figure(csv: &Path, spec: &PlotSpec) -> Result<Vec<PathBuf>> {
    let fig = load(csv, spec)?;
    let w = 900 * fig.panels.len() as u32 + 300;
    let size = (w.min(3000), 800);
    let mut out = Vec::new();
    for ext in ["png", "svg"] {
        let p = side_file(csv, ext);
        style::render(&fig, &p, size)?;
        out.push(p);
    }
    Ok(out)
}

/// Tick values 1-2-5 × 10^k over `[lo, hi]` (linear axes).
fn lin_ticks(lo: f64, hi: f64) -> Vec<f64> {
    let span = hi - lo;
    if !(span > 0.0 && span.is_finite()) {
        return vec![lo];
    }
    let raw = span / 6.0;
    let mag = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * mag)
        .find(|s| span / s <= 7.0)
        .unwrap_or(10.0 * mag);
    let mut t = (lo / step).ceil() * step;
    let mut out = Vec::new();
    while t <= hi + 1e-9 * step {
        out.push(if t.abs() < 1e-12 * step { 0.0 } else { t });
        t += step;
    }
    out
}

/// A linear axis whose ticks are exactly the given values (plotters'
/// `WithKeyPoints` over a plain `f64` range has no default formatter).
#[derive(Clone, Debug)]
struct Axis {
    lo: f64,
    hi: f64,
    keys: Vec<f64>,
}

impl Axis {
    fn new(lo: f64, hi: f64, keys: Vec<f64>) -> Axis {
        Axis { lo, hi, keys }
    }
}

impl Ranged for Axis {
    type FormatOption = DefaultFormatting;
    type ValueType = f64;

    fn map(&self, v: &f64, limit: (i32, i32)) -> i32 {
        let span = self.hi - self.lo;
        let t = if span > 0.0 {
            (v - self.lo) / span
        } else {
            0.5
        };
        limit.0 + (t * (limit.1 - limit.0) as f64).round() as i32
    }

    fn key_points<Hint: KeyPointHint>(&self, hint: Hint) -> Vec<f64> {
        let max = hint.max_num_points().max(1);
        let step = self.keys.len().div_ceil(max).max(1);
        self.keys.iter().step_by(step).copied().collect()
    }

    fn range(&self) -> std::ops::Range<f64> {
        self.lo..self.hi
    }
}

impl SweepFigure {
    fn x_axis(&self) -> Axis {
        let lo = self
            .x_ticks
            .iter()
            .map(|t| t.0)
            .fold(f64::INFINITY, f64::min);
        let hi = self
            .x_ticks
            .iter()
            .map(|t| t.0)
            .fold(f64::NEG_INFINITY, f64::max);
        let pad = if hi > lo { (hi - lo) * 0.06 } else { 0.5 };
        let keys: Vec<f64> = self.x_ticks.iter().map(|t| t.0).collect();
        Axis::new(lo - pad, hi + pad, keys)
    }

    fn draw_panel<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        p: &Panel,
        fonts: &Fonts,
    ) -> DrawResult<DB> {
        let tf = |y: f64| if p.log { y.log10() } else { y };
        let ys = p
            .series
            .iter()
            .flat_map(|s| s.points.iter().chain(&s.theory))
            .map(|q| q.1);
        let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(y), b.max(y))
        });
        // Head room for the legend (upper left): a share of the span per entry.
        let room = (0.07 * (p.series.len() + 1) as f64).min(0.6);
        let (y_axis, ticks): (Axis, Vec<f64>) = if p.log {
            let (l, h) = style::pad_log_range(lo, hi, 1.3);
            let h = h * (h / l).powf(room);
            let t: Vec<f64> = style::log_ticks(l, h).into_iter().map(f64::log10).collect();
            (Axis::new(l.log10(), h.log10(), t.clone()), t)
        } else {
            let (l, h) = style::pad_range(lo.min(0.0), hi, 0.08);
            let h = h + (h - l) * room;
            let t = lin_ticks(l, h);
            (Axis::new(l, h, t.clone()), t)
        };
        let _ = ticks;
        let log = p.log;
        let yfmt = move |v: &f64| {
            if log {
                style::log_tick(10f64.powf(*v))
            } else {
                style::lin_tick(v)
            }
        };
        let labels = self.x_ticks.clone();
        let xfmt = move |v: &f64| {
            labels
                .iter()
                .find(|t| (t.0 - v).abs() < 1e-9 * (1.0 + v.abs()))
                .map(|t| t.1.clone())
                .unwrap_or_default()
        };
        let ylabel = if p.log {
            format!("{} (log scale)", p.metric)
        } else {
            p.metric.clone()
        };
        let mut chart = ChartBuilder::on(area)
            .caption(&p.metric, style::bold(fonts.caption))
            .margin(15)
            .x_label_area_size((fonts.axis * 2.8) as u32)
            .y_label_area_size((fonts.axis * 4.4) as u32)
            .build_cartesian_2d(self.x_axis(), y_axis)?;
        chart
            .configure_mesh()
            .x_desc(self.x_label.as_str())
            .y_desc(ylabel)
            .x_label_formatter(&xfmt)
            .y_label_formatter(&yfmt)
            .axis_desc_style(style::regular(fonts.axis))
            .label_style(style::regular(fonts.label))
            .light_line_style(WHITE)
            .bold_line_style(RGBColor(0xE0, 0xE0, 0xE0))
            .draw()?;
        let r = (fonts.label * 0.35).max(2.0) as i32;
        let mut theory_drawn = false;
        for s in &p.series {
            let c = style::series_color(s.color);
            if s.theory.len() > 1 || (s.theory.len() == 1 && s.points.len() == 1) {
                let pts: Vec<(f64, f64)> = s.theory.iter().map(|q| (q.0, tf(q.1))).collect();
                let e = chart.draw_series(DashedLineSeries::new(pts, 10, 6, c.stroke_width(2)))?;
                if !theory_drawn {
                    theory_drawn = true;
                    e.label(format!("{}_theory (dashed)", p.metric))
                        .legend(|(x, y)| {
                            DashedPathElement::new(
                                vec![(x, y), (x + 24, y)],
                                5,
                                3,
                                style::MID_GREY.stroke_width(2),
                            )
                        });
                }
            }
            let pts: Vec<(f64, f64)> = s.points.iter().map(|q| (q.0, tf(q.1))).collect();
            chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?;
            let label = s.label.clone();
            let line = move |x: i32, y: i32| {
                EmptyElement::at((x, y))
                    + PathElement::new(vec![(0, 0), (24, 0)], c.stroke_width(2))
            };
            match s.marker {
                1 => {
                    chart
                        .draw_series(
                            pts.iter()
                                .map(|&q| TriangleMarker::new(q, r + 1, c.filled())),
                        )?
                        .label(label)
                        .legend(move |(x, y)| {
                            line(x, y) + TriangleMarker::new((12, 0), r + 1, c.filled())
                        });
                }
                2 => {
                    chart
                        .draw_series(pts.iter().map(|&q| {
                            EmptyElement::at(q) + Rectangle::new([(-r, -r), (r, r)], c.filled())
                        }))?
                        .label(label)
                        .legend(move |(x, y)| {
                            line(x, y) + Rectangle::new([(12 - r, -r), (12 + r, r)], c.filled())
                        });
                }
                _ => {
                    chart
                        .draw_series(pts.iter().map(|&q| Circle::new(q, r, c.filled())))?
                        .label(label)
                        .legend(move |(x, y)| line(x, y) + Circle::new((12, 0), r, c.filled()));
                }
            }
        }
        chart
            .configure_series_labels()
            .position(SeriesLabelPosition::UpperLeft)
            .label_font(style::regular(fonts.note))
            .background_style(WHITE.mix(0.85))
            .border_style(BLACK)
            .draw()
    }
}

impl Figure for SweepFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        style::draw_title(root, &self.title, None, &fonts)?;
        let (_, body) = root.split_vertically(style::title_height(&fonts, false));
        let panels = body.split_evenly((1, self.panels.len().max(1)));
        for (area, p) in panels.iter().zip(&self.panels) {
            self.draw_panel(area, p, &fonts)?;
        }
        Ok(())
    }
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
    fn linear_ticks_are_round() {
        assert_eq!(lin_ticks(0.0, 10.0), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(lin_ticks(0.0, 1.0).len(), 6);
    }
}
