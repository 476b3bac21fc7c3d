//! The sweep figure (one panel per metric, one series per varying key)
//! drawn from the [`SweepFigure`] data read back from a sweep CSV.

use super::axis::Scale;
use super::chart::{self, Axes};
use super::layout::Mark;
use super::legend::{self, Entry, PanelResult, Swatch};
use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::Result;
use crate::io::figure_input::MAX_ROWS;
use crate::io::sweep_figure::{Panel, PlotSpec, Series, SweepFigure, load, load_with, side_file};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// The figure's size: 900 px per panel and room for a legend column.
pub fn size_of(fig: &SweepFigure) -> (u32, u32) {
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
    style::render_with(&fig, out, size.unwrap_or_else(|| size_of(&fig)), existing).map(|_| ())
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

/// Legend text of the dashed theory lines.
const THEORY: &str = "theory (dashed, same colour)";
/// Legend text of the bands.
const BAND: &str = "95% interval";
/// Legend text of the reference line of gain metrics.
const ONE: &str = "gain = 1: no better than the best member";

/// Most labelled x ticks; beyond, every k-th value keeps its label.
const MAX_X_LABELS: usize = 12;

fn whisker_text() -> String {
    format!("± {} SE over replicates", crate::io::sweep_intervals::Z95)
}

impl SweepFigure {
    fn x_axis(&self) -> Scale {
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
        let every = self.x_ticks.len().div_ceil(MAX_X_LABELS).max(1);
        let ticks: Vec<(f64, String)> = self.x_ticks.iter().step_by(every).cloned().collect();
        Scale::categories(lo - pad, hi + pad, &ticks, self.x_integer)
    }

    fn axes(&self, p: &Panel) -> Axes {
        let ys = p.series.iter().flat_map(|s| {
            s.points.iter().chain(&s.theory).map(|q| q.1).chain(
                s.band
                    .iter()
                    .chain(&s.whiskers)
                    .flat_map(|b| [b.1, b.2])
                    .filter(|y| !p.log || *y > 0.0),
            )
        });
        let (lo, hi) = ys.fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), y| {
            (a.min(y), b.max(y))
        });
        let gain = p.metric.starts_with("gain");
        let y = if p.log {
            let (lo, hi) = if gain {
                (lo.min(1.0), hi.max(1.0))
            } else {
                (lo, hi)
            };
            let (l, h) = style::pad_log_range(lo, hi, 1.15);
            if gain {
                Scale::log_with(l, h, 1.0)
            } else {
                Scale::log(l, h, false)
            }
        } else {
            let (l, h) = style::pad_range(lo.min(0.0), hi, 0.06);
            Scale::linear(l, h)
        };
        Axes {
            x: self.x_axis(),
            y,
            x_desc: self.x_label.clone(),
            y_desc: if p.log {
                format!("{} (log scale)", p.y_label)
            } else {
                p.y_label.clone()
            },
        }
    }

    /// The legend of `panels`: every line's label (the union over them),
    /// the dashed theory, the band and the whiskers when drawn, the line at
    /// gain 1.
    fn entries(&self, panels: &[&Panel]) -> Vec<Entry> {
        let mut e: Vec<Entry> = Vec::new();
        for p in panels {
            for s in &p.series {
                if !e.iter().any(|x| x.label == s.label) {
                    e.push(Entry::marker(s.label.clone(), s.marker, color_of(s), true));
                }
            }
        }
        let all = || panels.iter().flat_map(|p| &p.series);
        if all().any(|s| s.theory.len() > 1) {
            e.push(Entry::dashed(THEORY, style::MID_GREY, 2));
        }
        if all().any(|s| s.band.len() > 1) {
            e.push(Entry::new(BAND, Swatch::Band(style::MID_GREY)));
        }
        if all().any(|s| !s.whiskers.is_empty()) {
            e.push(Entry::new(whisker_text(), Swatch::Whisker(style::MID_GREY)));
        }
        if panels.iter().any(|p| p.metric.starts_with("gain")) {
            e.push(Entry::dashed(ONE, style::MID_GREY, 1));
        }
        e
    }

    /// Whether every panel draws the same lines in the same colours (then
    /// one legend serves them all).
    fn same_lines(&self) -> bool {
        let key = |p: &Panel| -> Vec<(String, RGBColor, usize)> {
            p.series
                .iter()
                .map(|s| (s.label.clone(), color_of(s), s.marker))
                .collect()
        };
        self.panels.windows(2).all(|w| key(&w[0]) == key(&w[1]))
    }
}

/// One panel of the sweep figure and whether it shows its caption.
struct SweepPanel<'a> {
    fig: &'a SweepFigure,
    panel: &'a Panel,
    caption: bool,
}

impl super::legend::Panel for SweepPanel<'_> {
    fn chart<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> PanelResult<DB> {
        let p = self.panel;
        let axes = self.fig.axes(p);
        let (y0, _) = axes.y.bounds();
        let floor = if p.log { y0 } else { f64::NEG_INFINITY };
        let caption = self.caption.then_some(p.caption.as_str());
        let mut chart = chart::gridded(area, fonts, caption, &axes, 3.0)?;
        let (x0, x1) = axes.x.bounds();
        let mut marks = Vec::new();
        // A gain of 1: the coalition does as well as its best member.
        if p.metric.starts_with("gain") {
            let one = vec![(x0, 1.0), (x1, 1.0)];
            chart.draw_series(DashedLineSeries::new(
                one.clone(),
                6,
                4,
                style::MID_GREY.stroke_width(1),
            ))?;
            let mut m = Mark::new(ONE);
            m.line(chart::pxs(&chart, one));
            marks.push(m);
        }
        let mut lines: Vec<Mark> = p
            .series
            .iter()
            .map(|s| Mark::new(s.label.clone()))
            .collect();
        // Bands first, under every line.
        for (s, m) in p.series.iter().zip(&mut lines) {
            if s.band.len() > 1 {
                let c = color_of(s);
                let upper: Vec<(f64, f64)> = s.band.iter().map(|b| (b.0, b.2)).collect();
                let lower: Vec<(f64, f64)> = s.band.iter().map(|b| (b.0, b.1.max(floor))).collect();
                let mut poly = upper.clone();
                poly.extend(lower.iter().rev());
                chart.draw_series(std::iter::once(Polygon::new(poly, c.mix(0.16).filled())))?;
                m.line(chart::pxs(&chart, upper));
                m.line(chart::pxs(&chart, lower));
            }
        }
        let r = legend::marker_radius(fonts);
        // Replicate intervals: whiskers at each point, under the lines.
        let half = (x1 - x0) * 0.008;
        for (s, m) in p.series.iter().zip(&mut lines) {
            let c = color_of(s);
            for &(x, lo, hi) in &s.whiskers {
                let lo = lo.max(floor);
                chart.draw_series(style::whisker(x, lo, hi, half, c.stroke_width(2)))?;
                m.line(chart::pxs(&chart, [(x, lo), (x, hi)]));
            }
        }
        let mut theory = Mark::new(THEORY);
        for (s, m) in p.series.iter().zip(&mut lines) {
            let c = color_of(s);
            if s.theory.len() > 1 {
                chart.draw_series(DashedLineSeries::new(
                    s.theory.clone(),
                    10,
                    6,
                    c.stroke_width(2),
                ))?;
                theory.line(chart::pxs(&chart, s.theory.iter().copied()));
            }
            chart.draw_series(LineSeries::new(s.points.clone(), c.stroke_width(2)))?;
            for &q in &s.points {
                super::markers::draw_marker(chart.plotting_area(), q, s.marker, r, c)?;
            }
            m.line(chart::pxs(&chart, s.points.iter().copied()));
            m.points(chart::pxs(&chart, s.points.iter().copied()), r);
        }
        marks.extend(lines);
        if !theory.shapes.is_empty() {
            marks.push(theory);
        }
        Ok(chart::layout(&chart, &p.caption, &axes, marks))
    }
}

impl Figure for SweepFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        let note = (!self.note.is_empty()).then_some(self.note.as_str());
        style::draw_title(root, &self.title, note, &fonts)?;
        let (_, body) = root.split_vertically(style::title_height(&fonts, note.is_some()));
        // One panel: its caption is the title.
        let caption = self.panels.len() > 1;
        let panels: Vec<SweepPanel<'_>> = self
            .panels
            .iter()
            .map(|panel| SweepPanel {
                fig: self,
                panel,
                caption,
            })
            .collect();
        if self.same_lines() {
            let all: Vec<&Panel> = self.panels.iter().collect();
            return legend::with_shared_legend(&body, &fonts, &panels, &self.entries(&all));
        }
        // Colours mean different things in different panels: a legend each.
        let mut layout = super::layout::Layout::default();
        let areas = body.split_evenly((1, panels.len().max(1)));
        for (a, p) in areas.iter().zip(&panels) {
            layout.extend(legend::with_legend(
                a,
                &fonts,
                p,
                &self.entries(&[p.panel]),
            )?);
        }
        Ok(layout)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_legend_per_panel_when_colours_differ() {
        let fig = load(
            &Path::new(env!("CARGO_MANIFEST_DIR")).join("results/sweeps/decay.csv"),
            &PlotSpec {
                x: "eps".into(),
                metrics: vec!["mse".into(), "gain_mean".into()],
                at: vec![1.0, 3.0, 6.0],
                ..PlotSpec::default()
            },
        )
        .unwrap();
        assert!(!fig.same_lines());
        let (_, layout) = style::svg(&fig, size_of(&fig), Path::new("decay.svg")).unwrap();
        assert_eq!(layout.legends.len(), 2);
        assert!(layout.problems().is_empty(), "{:#?}", layout.problems());
    }

    /// Gossip's sweep names its lines by mechanisms outside the known
    /// three (`gossip`, `diffusion-gaussian`, `diffusion-laplace`): each gets
    /// its own colour, with or without a second dimension (the estimator).
    #[test]
    fn unknown_mechanisms_get_a_colour_each() {
        let file = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/two-schools/sigma.csv");
        for only in [
            vec![],
            vec![("estimator".to_string(), "median".to_string())],
        ] {
            let fig = load(
                &file,
                &PlotSpec {
                    x: "sigma".into(),
                    metrics: vec!["two_schools_mse".into()],
                    only: only.clone(),
                    ..PlotSpec::default()
                },
            )
            .unwrap();
            let colours: Vec<RGBColor> = fig.panels[0].series.iter().map(color_of).collect();
            let n = colours.len();
            assert_eq!(n, if only.is_empty() { 6 } else { 3 });
            for i in 0..n {
                for j in 0..i {
                    assert_ne!(colours[i], colours[j], "lines {i} and {j} share a colour");
                }
            }
        }
    }
}
