//! The sweep figure (one panel per metric, one series per varying key)
//! drawn from the [`SweepFigure`] data read back from a sweep CSV.

use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::Result;
use crate::io::figure_input::MAX_ROWS;
use crate::io::sweep_figure::{Panel, PlotSpec, Series, SweepFigure, load, load_with, side_file};
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// The figure's size: 900 px per panel and the legend column.
fn size_of(fig: &SweepFigure) -> (u32, u32) {
    let w = 900 * fig.panels.len() as u32 + 420;
    (w.min(3200), 800)
}

/// Draws the figure of `csv` as `<stem>.png` and `<stem>.svg` beside it.
pub fn draw_sweep_figure(csv: &Path, spec: &PlotSpec) -> Result<Vec<PathBuf>> {
    let fig = load(csv, spec)?;
    let size = size_of(&fig);
    let mut out = Vec::new();
    for ext in ["png", "svg"] {
        let p = side_file(csv, ext);
        style::render(&fig, &p, size)?;
        out.push(p);
    }
    Ok(out)
}

/// `plot --kind sweep`: draws the figure of the sweep CSV `csv` to `out`
/// (PNG or SVG by its extension; `size` or the default size), refusing an
/// existing `out` as `existing` says, and a CSV of more than [`MAX_ROWS`]
/// rows.
pub fn draw_sweep_to(
    csv: &Path,
    spec: &PlotSpec,
    out: &Path,
    size: Option<(u32, u32)>,
    existing: crate::util::Existing,
) -> Result<()> {
    crate::util::atomic::check_new(out, existing)?;
    let fig = load_with(csv, spec, Some(MAX_ROWS))?;
    style::render_with(&fig, out, size.unwrap_or_else(|| size_of(&fig)), existing)
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
    if !(step.is_finite() && step > 0.0 && t.is_finite() && t + step != t) {
        // A step below the spacing of f64 there would never advance.
        return vec![lo, hi];
    }
    // At most 8 ticks by the choice of step; the bound is a guard.
    while t <= hi + 1e-9 * step && out.len() < 1000 {
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
        let (lo, hi) = style::safe_range(lo, hi);
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

/// Pairs of shades (dark, light) of one hue, after ColorBrewer's "Paired"
/// (its pale yellow, unreadable on white, replaced by a tan): lines that
/// differ only by mechanism share a hue, correlated dark, independent
/// light.
const PAIRED: [(RGBColor, RGBColor); 6] = [
    (RGBColor(0x1F, 0x78, 0xB4), RGBColor(0xA6, 0xCE, 0xE3)),
    (RGBColor(0xE3, 0x1A, 0x1C), RGBColor(0xFB, 0x9A, 0x99)),
    (RGBColor(0x33, 0xA0, 0x2C), RGBColor(0xB2, 0xDF, 0x8A)),
    (RGBColor(0xFF, 0x7F, 0x00), RGBColor(0xFD, 0xBF, 0x6F)),
    (RGBColor(0x6A, 0x3D, 0x9A), RGBColor(0xCA, 0xB2, 0xD6)),
    (RGBColor(0xB1, 0x59, 0x28), RGBColor(0xDF, 0xB4, 0x8C)),
];

/// The colour of a line: a palette colour, or its mechanism's shade of
/// its group's hue (a third mechanism: the dark shade darkened).
fn color_of(s: &Series) -> RGBColor {
    match s.shade {
        None => style::series_color(s.color),
        Some(k) => {
            let (dark, light) = PAIRED[s.color % PAIRED.len()];
            match k {
                0 => dark,
                1 => light,
                _ => RGBColor(dark.0 / 2, dark.1 / 2, dark.2 / 2),
            }
        }
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
        let log_ok = |y: &f64| !p.log || *y > 0.0;
        let ys = p.series.iter().flat_map(|s| {
            s.points.iter().chain(&s.theory).map(|q| q.1).chain(
                s.band
                    .iter()
                    .chain(&s.whiskers)
                    .flat_map(|b| [b.1, b.2])
                    .filter(log_ok),
            )
        });
        let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(y), b.max(y))
        });
        let mut floor = f64::NEG_INFINITY;
        let y_axis = if p.log {
            let (l, h) = style::pad_log_range(lo, hi, 1.15);
            floor = l;
            let t: Vec<f64> = style::log_ticks(l, h).into_iter().map(f64::log10).collect();
            Axis::new(l.log10(), h.log10(), t)
        } else {
            let (l, h) = style::pad_range(lo.min(0.0), hi, 0.06);
            Axis::new(l, h, lin_ticks(l, h))
        };
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
            .caption(&p.caption, style::bold(fonts.caption))
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
        // A gain of 1: the coalition does as well as its best member.
        if p.metric.starts_with("gain") {
            let ax = self.x_axis();
            chart.draw_series(DashedLineSeries::new(
                vec![(ax.lo, tf(1.0)), (ax.hi, tf(1.0))],
                6,
                4,
                style::MID_GREY.stroke_width(1),
            ))?;
        }
        // Bands first, under every line.
        for s in &p.series {
            if s.band.len() > 1 {
                let c = color_of(s);
                let mut poly: Vec<(f64, f64)> = s.band.iter().map(|b| (b.0, tf(b.2))).collect();
                poly.extend(s.band.iter().rev().map(|b| (b.0, tf(b.1.max(floor)))));
                chart.draw_series(std::iter::once(Polygon::new(poly, c.mix(0.16).filled())))?;
            }
        }
        let r = (fonts.label * 0.35).max(2.0) as i32;
        // Replicate intervals: whiskers at each point, under the lines.
        let ax = self.x_axis();
        let half = (ax.hi - ax.lo) * 0.008;
        for s in &p.series {
            let c = color_of(s);
            for &(x, lo, hi) in &s.whiskers {
                let (lo, hi) = (tf(lo.max(floor)), tf(hi));
                chart.draw_series(style::whisker(x, lo, hi, half, c.stroke_width(2)))?;
            }
        }
        for s in &p.series {
            let c = color_of(s);
            if s.theory.len() > 1 {
                let pts: Vec<(f64, f64)> = s.theory.iter().map(|q| (q.0, tf(q.1))).collect();
                chart.draw_series(DashedLineSeries::new(pts, 10, 6, c.stroke_width(2)))?;
            }
            let pts: Vec<(f64, f64)> = s.points.iter().map(|q| (q.0, tf(q.1))).collect();
            chart.draw_series(LineSeries::new(pts.clone(), c.stroke_width(2)))?;
            for &q in &pts {
                super::markers::draw_marker(chart.plotting_area(), q, s.marker, r, c)?;
            }
        }
        Ok(())
    }

    /// The legend, in its own column beside the panels (never over data):
    /// every line's label (the union over panels), the dashed theory and the
    /// band when drawn.
    fn draw_legend<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> DrawResult<DB> {
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        let mut entries: Vec<(String, RGBColor, usize)> = Vec::new();
        for p in &self.panels {
            for s in &p.series {
                if !entries.iter().any(|e| e.0 == s.label) {
                    entries.push((s.label.clone(), color_of(s), s.marker));
                }
            }
        }
        let theory = self
            .panels
            .iter()
            .flat_map(|p| &p.series)
            .any(|s| s.theory.len() > 1);
        let lh = (fonts.note * 1.5) as i32;
        let r = (fonts.label * 0.35).max(2.0) as i32;
        let x0 = 10;
        let mut y = 60;
        let text = |s: String, y: i32| {
            Text::new(
                s,
                (x0 + 36, y),
                style::regular(fonts.note).pos(Pos::new(HPos::Left, VPos::Center)),
            )
        };
        for (label, c, marker) in &entries {
            let c = *c;
            area.draw(&PathElement::new(
                vec![(x0, y), (x0 + 28, y)],
                c.stroke_width(2),
            ))?;
            super::markers::draw_marker(area, (x0 + 14, y), *marker, r, c)?;
            area.draw(&text(label.clone(), y))?;
            y += lh;
        }
        if theory {
            y += lh / 2;
            area.draw(&DashedPathElement::new(
                vec![(x0, y), (x0 + 28, y)],
                5,
                3,
                style::MID_GREY.stroke_width(2),
            ))?;
            area.draw(&text("theory (dashed)".into(), y))?;
            y += lh;
        }
        if self
            .panels
            .iter()
            .flat_map(|p| &p.series)
            .any(|s| s.band.len() > 1)
        {
            y += lh / 2;
            area.draw(&Rectangle::new(
                [(x0, y - lh / 3), (x0 + 28, y + lh / 3)],
                style::MID_GREY.mix(0.3).filled(),
            ))?;
            area.draw(&text("95% interval".into(), y))?;
            y += lh;
        }
        if self
            .panels
            .iter()
            .flat_map(|p| &p.series)
            .any(|s| !s.whiskers.is_empty())
        {
            y += lh / 2;
            let st = style::MID_GREY.stroke_width(2);
            let (xm, lo, hi) = (x0 + 14, y - lh / 3, y + lh / 3);
            for seg in [
                [(xm, lo), (xm, hi)],
                [(xm - 5, lo), (xm + 5, lo)],
                [(xm - 5, hi), (xm + 5, hi)],
            ] {
                area.draw(&PathElement::new(seg.to_vec(), st))?;
            }
            area.draw(&text(
                format!("± {} SE over replicates", crate::io::sweep_intervals::Z95),
                y,
            ))?;
        }
        Ok(())
    }
}

impl Figure for SweepFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        let note = (!self.note.is_empty()).then_some(self.note.as_str());
        style::draw_title(root, &self.title, note, &fonts)?;
        let (_, body) = root.split_vertically(style::title_height(&fonts, note.is_some()));
        let (w, _) = body.dim_in_pixel();
        let longest = self
            .panels
            .iter()
            .flat_map(|p| &p.series)
            .map(|s| s.label.chars().count())
            .max()
            .unwrap_or(10)
            .max(15);
        let legend_w = ((longest as f64 * fonts.note * 0.6) as u32 + 60).min(w / 2);
        let (plots, legend) = body.split_horizontally(w - legend_w);
        let panels = plots.split_evenly((1, self.panels.len().max(1)));
        for (area, p) in panels.iter().zip(&self.panels) {
            self.draw_panel(area, p, &fonts)?;
        }
        self.draw_legend(&legend, &fonts)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn linear_ticks_are_round() {
        assert_eq!(lin_ticks(0.0, 10.0), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(lin_ticks(0.0, 1.0).len(), 6);
    }
}
