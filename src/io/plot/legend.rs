//! Legends that never cover data: every figure lists what it drew as
//! [`Entry`]s, and [`with_legend`] draws the panel once on a backend that
//! draws nothing ([`NullBackend`]) to learn where its marks land, then puts
//! the legend box in the first corner of the plotting area (upper right,
//! upper left, lower right, lower left) under which nothing is drawn — or,
//! when every corner holds data, in a column of its own to the right of the
//! panel. Same data, same place: the choice is deterministic.

use super::chart::{self, Axes, Chart};
use super::layout::{Layout, LegendLayout, Mark, PanelLayout, Rect};
use super::style::{self, Fonts};
use plotters::coord::Shift;
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use plotters::style::text_anchor::{HPos, Pos, VPos};
use plotters_backend::{BackendColor, BackendCoord, DrawingErrorKind};

/// What a legend entry shows beside its text.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Swatch {
    /// A line sample (`dashed`: as a theory or reference line).
    Line {
        /// Colour.
        color: RGBColor,
        /// Stroke width in pixels.
        width: u32,
        /// Dashed.
        dashed: bool,
    },
    /// A marker (code of [`super::markers`]) on a line sample (`line`) or
    /// alone.
    Marker {
        /// Marker code.
        code: usize,
        /// Colour.
        color: RGBColor,
        /// Drawn on a line sample.
        line: bool,
    },
    /// A filled box with an edge (a histogram bar).
    Bar {
        /// Fill.
        fill: RGBColor,
        /// Edge.
        edge: RGBColor,
    },
    /// A pale box (a confidence band).
    Band(RGBColor),
    /// A vertical whisker with caps (an interval).
    Whisker(RGBColor),
    /// A downward arrowhead (an interval running off the axis).
    Arrow(RGBColor),
    /// No sample: a note (`+ 3 paths not drawn`).
    Blank,
}

/// One legend entry.
#[derive(Clone, Debug, PartialEq)]
pub struct Entry {
    /// Text.
    pub label: String,
    /// Sample.
    pub swatch: Swatch,
}

impl Entry {
    /// An entry `label` with `swatch`.
    pub fn new(label: impl Into<String>, swatch: Swatch) -> Entry {
        Entry {
            label: label.into(),
            swatch,
        }
    }

    /// A solid line sample of `color`, `width` pixels.
    pub fn line(label: impl Into<String>, color: RGBColor, width: u32) -> Entry {
        Entry::new(
            label,
            Swatch::Line {
                color,
                width,
                dashed: false,
            },
        )
    }

    /// A dashed line sample.
    pub fn dashed(label: impl Into<String>, color: RGBColor, width: u32) -> Entry {
        Entry::new(
            label,
            Swatch::Line {
                color,
                width,
                dashed: true,
            },
        )
    }

    /// A marker alone (`line` false) or on a line sample.
    pub fn marker(label: impl Into<String>, code: usize, color: RGBColor, line: bool) -> Entry {
        Entry::new(label, Swatch::Marker { code, color, line })
    }
}

/// Result of drawing a panel.
pub type PanelResult<DB> =
    std::result::Result<PanelLayout, DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>>;

pub use super::style::LayoutResult;

/// A chart whose legend [`with_legend`] places.
pub trait Panel {
    /// Draws the chart (axes, marks; no legend) on `area` and returns where
    /// everything landed.
    fn chart<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> PanelResult<DB>;
}

/// What a [`Plot`] draws: where its marks landed.
pub type MarksResult<DB> = std::result::Result<Vec<Mark>, style::DrawError<DB>>;

/// A figure of one gridded chart under a title, the common case: it gives
/// its parts, and its [`Panel`] (the chart, its layout named
/// [`Plot::NAME`]) and [`Figure`](style::Figure) (the title, the legend
/// where it covers no data) are built from them.
pub trait Plot {
    /// The panel's name in the layout.
    const NAME: &'static str;
    /// The width of the y tick labels, in label heights.
    const Y_LABELS: f64;
    /// The title above the chart.
    fn title(&self) -> String;
    /// The axes.
    fn axes(&self) -> Axes;
    /// The legend's entries.
    fn entries(&self) -> Vec<Entry>;
    /// Draws the data on the gridded `chart` of `axes`; returns the marks.
    fn marks<DB: DrawingBackend>(
        &self,
        chart: &mut Chart<'_, DB>,
        fonts: &Fonts,
        axes: &Axes,
    ) -> MarksResult<DB>;
}

impl<T: Plot> Panel for T {
    fn chart<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> PanelResult<DB> {
        let axes = self.axes();
        let mut chart = chart::gridded(area, fonts, None, &axes, T::Y_LABELS)?;
        let marks = self.marks(&mut chart, fonts, &axes)?;
        Ok(chart::layout(&chart, T::NAME, &axes, marks))
    }
}

impl<T: Plot> style::Figure for T {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> LayoutResult<DB> {
        titled(root, &self.title(), self, &self.entries())
    }
}

/// Pixel sizes of a legend, scaled with the fonts.
struct Metrics {
    pad: i32,
    line: i32,
    swatch: i32,
    gap: i32,
    inset: i32,
}

impl Metrics {
    fn of(fonts: &Fonts) -> Metrics {
        let f = fonts.label;
        Metrics {
            pad: (f * 0.5).round() as i32,
            line: (f * 1.4).round() as i32,
            swatch: (f * 1.7).round() as i32,
            gap: (f * 0.5).round() as i32,
            inset: (f * 0.5).round().max(4.0) as i32,
        }
    }
}

fn font(fonts: &Fonts) -> TextStyle<'static> {
    style::regular(fonts.label)
}

/// Width and height of the legend box of `entries`, in pixels.
pub fn legend_size<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    entries: &[Entry],
    fonts: &Fonts,
) -> std::result::Result<(i32, i32), DrawingAreaErrorKind<DB::ErrorType>> {
    let m = Metrics::of(fonts);
    let f = font(fonts);
    let mut w = 0;
    for e in entries {
        w = w.max(area.estimate_text_size(&e.label, &f)?.0 as i32);
    }
    Ok((
        2 * m.pad + m.swatch + m.gap + w,
        2 * m.pad + m.line * entries.len() as i32,
    ))
}

/// Draws the legend of `entries` with its top-left corner at `at` (pixels
/// relative to `area`), a white box with a thin grey border.
pub fn draw_legend<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    at: (i32, i32),
    entries: &[Entry],
    fonts: &Fonts,
) -> std::result::Result<LegendLayout, DrawingAreaErrorKind<DB::ErrorType>> {
    let m = Metrics::of(fonts);
    let (w, h) = legend_size(area, entries, fonts)?;
    let (x0, y0) = at;
    area.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        WHITE.filled(),
    ))?;
    area.draw(&Rectangle::new(
        [(x0, y0), (x0 + w, y0 + h)],
        RGBColor(0x99, 0x99, 0x99).stroke_width(1),
    ))?;
    let f = font(fonts).pos(Pos::new(HPos::Left, VPos::Center));
    let r = marker_radius(fonts);
    for (i, e) in entries.iter().enumerate() {
        let y = y0 + m.pad + m.line * i as i32 + m.line / 2;
        let (a, b) = (x0 + m.pad, x0 + m.pad + m.swatch);
        let mid = (a + b) / 2;
        match e.swatch {
            Swatch::Line {
                color,
                width,
                dashed,
            } => {
                let st = color.stroke_width(width);
                if dashed {
                    area.draw(&DashedPathElement::new(vec![(a, y), (b, y)], 6, 4, st))?;
                } else {
                    area.draw(&PathElement::new(vec![(a, y), (b, y)], st))?;
                }
            }
            Swatch::Marker { code, color, line } => {
                if line {
                    area.draw(&PathElement::new(
                        vec![(a, y), (b, y)],
                        color.stroke_width(2),
                    ))?;
                }
                super::markers::draw_marker(area, (mid, y), code, r, color)?;
            }
            Swatch::Bar { fill, edge } => {
                let q = m.line / 3;
                area.draw(&Rectangle::new([(a, y - q), (b, y + q)], fill.filled()))?;
                area.draw(&Rectangle::new(
                    [(a, y - q), (b, y + q)],
                    edge.stroke_width(1),
                ))?;
            }
            Swatch::Band(c) => {
                let q = m.line / 3;
                area.draw(&Rectangle::new(
                    [(a, y - q), (b, y + q)],
                    c.mix(0.3).filled(),
                ))?;
            }
            Swatch::Whisker(c) => {
                let (q, st) = (m.line / 3, c.stroke_width(2));
                for seg in [
                    [(mid, y - q), (mid, y + q)],
                    [(mid - 4, y - q), (mid + 4, y - q)],
                    [(mid - 4, y + q), (mid + 4, y + q)],
                ] {
                    area.draw(&PathElement::new(seg.to_vec(), st))?;
                }
            }
            Swatch::Arrow(c) => {
                let k = (fonts.label * 0.4).max(3.0) as i32;
                area.draw(&Polygon::new(
                    vec![(mid - k, y - k), (mid + k, y - k), (mid, y + k)],
                    c.filled(),
                ))?;
            }
            Swatch::Blank => {}
        }
        area.draw(&Text::new(e.label.clone(), (b + m.gap, y), f.clone()))?;
    }
    let (bx, by) = area.get_base_pixel();
    Ok(LegendLayout {
        rect: Rect::new((bx + x0, by + y0), (bx + x0 + w, by + y0 + h)),
        entries: entries.iter().map(|e| e.label.clone()).collect(),
    })
}

/// Radius of the markers of every figure and legend.
pub fn marker_radius(fonts: &Fonts) -> i32 {
    (fonts.label * 0.32).max(2.0) as i32
}

/// Where a box of `size` covers nothing of `marks` in `plot` (inset by
/// `inset`): the first of its corners — upper right, upper left, lower
/// right, lower left — that is free, else the first free place reached by
/// sliding the boxes of all four corners towards the middle in steps of a
/// few pixels (below a reference line along the top, say). None when the
/// box does not fit anywhere.
pub fn free_corner(plot: Rect, size: (i32, i32), marks: &[Mark], inset: i32) -> Option<Rect> {
    let (w, h) = size;
    if w + 2 * inset > plot.width() || h + 2 * inset > plot.height() {
        return None;
    }
    let (l, r) = (plot.x0 + inset, plot.x1 - inset - w);
    let (t, b) = (plot.y0 + inset, plot.y1 - inset - h);
    let step = 4;
    let room = (b - t) / 2;
    (0..=room / step)
        .flat_map(|k| {
            let d = k * step;
            [(r, t + d), (l, t + d), (r, b - d), (l, b - d)]
        })
        .map(|(x, y)| Rect::new((x, y), (x + w, y + h)))
        .find(|rect| {
            // A few pixels of air around the box.
            let air = rect.inflate(3);
            !marks.iter().flat_map(|m| &m.shapes).any(|s| s.meets(&air))
        })
}

/// A whole single-panel figure on `root`: white ground, `title` on top,
/// then `panel` with the legend of `entries` ([`with_legend`]). The figures
/// of one chart and one legend (error, path, utility, relay, gossip) are
/// drawn by this one function.
pub fn titled<DB: DrawingBackend, P: Panel>(
    root: &DrawingArea<DB, Shift>,
    title: &str,
    panel: &P,
    entries: &[Entry],
) -> LayoutResult<DB> {
    let fonts = Fonts::for_size(root.dim_in_pixel());
    root.fill(&WHITE)?;
    style::draw_title(root, title, None, &fonts)?;
    let body = root.margin(style::title_height(&fonts, false), 0, 0, 0);
    with_legend(&body, &fonts, panel, entries)
}

/// Draws `panel` on `area` with the legend of `entries` where it covers no
/// data (see the module docs); returns the panel's layout and the legend's.
pub fn with_legend<DB: DrawingBackend, P: Panel>(
    area: &DrawingArea<DB, Shift>,
    fonts: &Fonts,
    panel: &P,
    entries: &[Entry],
) -> LayoutResult<DB> {
    with_shared_legend(area, fonts, std::slice::from_ref(panel), entries)
}

/// Draws `panels` side by side on `area` (equal widths) with one legend of
/// `entries` for all of them: in the first free corner of the first panel
/// that has one (panels in order, corners as [`free_corner`] tries them),
/// else in a column to the right of every panel.
pub fn with_shared_legend<DB: DrawingBackend, P: Panel>(
    area: &DrawingArea<DB, Shift>,
    fonts: &Fonts,
    panels: &[P],
    entries: &[Entry],
) -> LayoutResult<DB> {
    let n = panels.len().max(1);
    let draw_all = |on: &DrawingArea<DB, Shift>| -> LayoutResult<DB> {
        let mut out = Layout::default();
        for (a, p) in on.split_evenly((1, n)).iter().zip(panels) {
            out.panels.push(p.chart(a, fonts)?);
        }
        Ok(out)
    };
    if entries.is_empty() {
        return draw_all(area);
    }
    let m = Metrics::of(fonts);
    let size = legend_size(area, entries, fonts)?;
    let (w, _) = area.dim_in_pixel();
    // The layout pass: the same split on a canvas of the same size.
    let dry = NullBackend::new(area.dim_in_pixel()).into_drawing_area();
    let corner = dry
        .split_evenly((1, n))
        .iter()
        .zip(panels)
        .find_map(|(a, p)| {
            let l = p.chart(a, fonts).ok()?;
            free_corner(l.plot, size, &l.marks, m.inset)
        });
    match corner {
        Some(rect) => {
            let mut out = draw_all(area)?;
            out.legends
                .push(draw_legend(area, (rect.x0, rect.y0), entries, fonts)?);
            Ok(out)
        }
        None => {
            let side = (size.0 + 2 * m.inset).min(w as i32 / 2).max(0) as u32;
            let (left, right) = area.split_horizontally(w.saturating_sub(side));
            let mut out = draw_all(&left)?;
            // Level with the top of the first plotting area.
            let top = out
                .panels
                .first()
                .map_or(0, |p| p.plot.y0 - right.get_base_pixel().1);
            out.legends.push(draw_legend(
                &right,
                (m.inset / 2, top.max(0)),
                entries,
                fonts,
            )?);
            Ok(out)
        }
    }
}

/// A backend that draws nothing: figures are drawn on it to learn their
/// layout (text is measured with the registered fonts, as on the real
/// backends).
pub struct NullBackend {
    size: (u32, u32),
}

impl NullBackend {
    /// A canvas of `size` pixels.
    pub fn new(size: (u32, u32)) -> NullBackend {
        NullBackend { size }
    }
}

/// [`NullBackend`] never fails; its error type is this empty one.
#[derive(Debug)]
pub struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("never")
    }
}

impl std::error::Error for Never {}

impl DrawingBackend for NullBackend {
    type ErrorType = Never;

    fn get_size(&self) -> (u32, u32) {
        self.size
    }

    fn ensure_prepared(&mut self) -> std::result::Result<(), DrawingErrorKind<Never>> {
        Ok(())
    }

    fn present(&mut self) -> std::result::Result<(), DrawingErrorKind<Never>> {
        Ok(())
    }

    fn draw_pixel(
        &mut self,
        _: BackendCoord,
        _: BackendColor,
    ) -> std::result::Result<(), DrawingErrorKind<Never>> {
        Ok(())
    }

    fn draw_line<S: plotters_backend::BackendStyle>(
        &mut self,
        _: BackendCoord,
        _: BackendCoord,
        _: &S,
    ) -> std::result::Result<(), DrawingErrorKind<Never>> {
        Ok(())
    }

    fn draw_rect<S: plotters_backend::BackendStyle>(
        &mut self,
        _: BackendCoord,
        _: BackendCoord,
        _: &S,
        _: bool,
    ) -> std::result::Result<(), DrawingErrorKind<Never>> {
        Ok(())
    }

    fn draw_path<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        _: I,
        _: &S,
    ) -> std::result::Result<(), DrawingErrorKind<Never>> {
        Ok(())
    }

    fn draw_circle<S: plotters_backend::BackendStyle>(
        &mut self,
        _: BackendCoord,
        _: u32,
        _: &S,
        _: bool,
    ) -> std::result::Result<(), DrawingErrorKind<Never>> {
        Ok(())
    }

    fn fill_polygon<S: plotters_backend::BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        _: I,
        _: &S,
    ) -> std::result::Result<(), DrawingErrorKind<Never>> {
        Ok(())
    }

    fn draw_text<T: plotters_backend::BackendTextStyle>(
        &mut self,
        _: &str,
        _: &T,
        _: BackendCoord,
    ) -> std::result::Result<(), DrawingErrorKind<Never>> {
        Ok(())
    }
}
