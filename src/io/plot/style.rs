//! Look and output of every figure: the Okabe–Ito palette, a viridis colour
//! map, fonts (DejaVu bytes registered once, no system font libraries), tick
//! arithmetic, and the output: one SVG drawing, written as it is or
//! rasterised to PNG ([`super::raster`]), with atomic writes.

use super::layout::Layout;
use crate::error::{Error, Result};
use crate::util::{AtomicFile, Existing};
use plotters::coord::Shift;
use plotters::prelude::*;
use plotters::style::{FontStyle, register_font};
use std::io::Write;
use std::path::Path;
use std::sync::OnceLock;

/// Okabe–Ito black.
pub const OI_BLACK: RGBColor = RGBColor(0x00, 0x00, 0x00);
/// Okabe–Ito orange.
pub const OI_ORANGE: RGBColor = RGBColor(0xE6, 0x9F, 0x00);
/// Okabe–Ito sky blue.
pub const OI_SKY_BLUE: RGBColor = RGBColor(0x56, 0xB4, 0xE9);
/// Okabe–Ito bluish green.
pub const OI_GREEN: RGBColor = RGBColor(0x00, 0x9E, 0x73);
/// Okabe–Ito yellow.
pub const OI_YELLOW: RGBColor = RGBColor(0xF0, 0xE4, 0x42);
/// Okabe–Ito blue.
pub const OI_BLUE: RGBColor = RGBColor(0x00, 0x72, 0xB2);
/// Okabe–Ito vermillion.
pub const OI_VERMILLION: RGBColor = RGBColor(0xD5, 0x5E, 0x00);
/// Okabe–Ito reddish purple.
pub const OI_PURPLE: RGBColor = RGBColor(0xCC, 0x79, 0xA7);

/// Series colours in order of use: the Okabe–Ito palette (colour-blind safe),
/// most contrasting on white first, yellow last.
pub const SERIES: [RGBColor; 8] = [
    OI_BLUE,
    OI_VERMILLION,
    OI_GREEN,
    OI_PURPLE,
    OI_ORANGE,
    OI_SKY_BLUE,
    OI_BLACK,
    OI_YELLOW,
];

/// Colour of series `i` (cycles through [`SERIES`]).
pub fn series_color(i: usize) -> RGBColor {
    SERIES[i % SERIES.len()]
}

/// Fixed colours for the mechanisms, so that every figure agrees.
pub fn mechanism_color(name: &str, fallback: usize) -> RGBColor {
    match name {
        "correlated" => OI_BLUE,
        "independent" => OI_VERMILLION,
        "gaussian" => OI_GREEN,
        _ => series_color(3 + fallback),
    }
}

/// Light grey for shading and grids.
pub const LIGHT_GREY: RGBColor = RGBColor(0xEE, 0xEE, 0xEE);
/// Mid grey for reference lines.
pub const MID_GREY: RGBColor = RGBColor(0x88, 0x88, 0x88);

/// Viridis (perceptually uniform, colour-blind safe) at `t ∈ [0, 1]`,
/// interpolated linearly between nine anchors of matplotlib's table.
pub fn viridis(t: f64) -> RGBColor {
    const A: [(u8, u8, u8); 9] = [
        (0x44, 0x01, 0x54),
        (0x47, 0x2d, 0x7b),
        (0x3b, 0x52, 0x8b),
        (0x2c, 0x72, 0x8e),
        (0x21, 0x91, 0x8c),
        (0x28, 0xae, 0x80),
        (0x5e, 0xc9, 0x62),
        (0xad, 0xdc, 0x30),
        (0xfd, 0xe7, 0x25),
    ];
    let t = if t.is_nan() { 0.0 } else { t.clamp(0.0, 1.0) };
    let x = t * (A.len() - 1) as f64;
    let i = (x.floor() as usize).min(A.len() - 2);
    let f = x - i as f64;
    let mix = |a: u8, b: u8| (a as f64 + (b as f64 - a as f64) * f).round() as u8;
    RGBColor(
        mix(A[i].0, A[i + 1].0),
        mix(A[i].1, A[i + 1].1),
        mix(A[i].2, A[i + 1].2),
    )
}

/// Font sizes (pixels) scaled to the figure: readable at 1200×800 and still
/// proportionate on small test canvases.
#[derive(Clone, Copy, Debug)]
pub struct Fonts {
    /// Figure title.
    pub title: f64,
    /// Panel caption.
    pub caption: f64,
    /// Axis description.
    pub axis: f64,
    /// Tick labels and legend.
    pub label: f64,
    /// Notes.
    pub note: f64,
}

impl Fonts {
    /// Sizes for a canvas of `(w, h)` pixels.
    pub fn for_size((w, h): (u32, u32)) -> Fonts {
        let s = (w.min(h * 3 / 2) as f64 / 1200.0).clamp(0.35, 3.0);
        Fonts {
            title: 30.0 * s,
            caption: 24.0 * s,
            axis: 21.0 * s,
            label: 17.0 * s,
            note: 16.0 * s,
        }
    }
}

/// A bold text style of `size` pixels.
pub fn bold(size: f64) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", size, FontStyle::Bold).into_font())
}

/// A regular text style of `size` pixels.
pub fn regular(size: f64) -> TextStyle<'static> {
    TextStyle::from(("sans-serif", size).into_font())
}

/// Registers DejaVu Sans (regular and bold) under "sans-serif", once per
/// process: plotters' `ab_glyph` backend has no system font lookup.
pub fn ensure_fonts() -> Result<()> {
    static FONTS: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    FONTS
        .get_or_init(|| {
            register_font("sans-serif", FontStyle::Normal, dejavu::sans::regular())
                .map_err(|_| "DejaVu Sans (regular) is not a valid font".to_string())?;
            register_font("sans-serif", FontStyle::Bold, dejavu::sans::bold())
                .map_err(|_| "DejaVu Sans (bold) is not a valid font".to_string())
        })
        .clone()
        .map_err(Error::Unsupported)
}

/// Errors of drawing on `DB`.
pub type DrawError<DB> = DrawingAreaErrorKind<<DB as DrawingBackend>::ErrorType>;

/// Result of drawing a whole figure or a legend.
pub type LayoutResult<DB> = std::result::Result<Layout, DrawError<DB>>;

/// Result of drawing a figure: where everything landed.
pub type DrawResult<DB> = LayoutResult<DB>;

/// A figure that can be drawn onto any plotters backend.
pub trait Figure {
    /// Draws the whole figure onto `root` (already sized) and returns its
    /// layout (panels, marks, ticks, legends in canvas pixels).
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB>;
}

/// The two output formats: one drawing, the SVG, rasterised for the PNG.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    /// Raster: the SVG rendered by resvg (text shaped with the embedded
    /// DejaVu Sans), see [`super::raster`].
    Png,
    /// Vector, text kept as `<text>` elements.
    Svg,
}

impl Format {
    /// The format named by `path`'s extension (`.png` or `.svg`, any case).
    pub fn of(path: &Path) -> Result<Format> {
        match path
            .extension()
            .and_then(|e| e.to_str())
            .map(|e| e.to_ascii_lowercase())
            .as_deref()
        {
            Some("png") => Ok(Format::Png),
            Some("svg") => Ok(Format::Svg),
            _ => Err(Error::param(
                "out",
                path.display(),
                "a file name ending in .png or .svg",
            )),
        }
    }
}

fn draw_error(out: &Path, e: impl std::fmt::Display) -> Error {
    Error::io(out, std::io::Error::other(format!("drawing failed: {e}")))
}

/// Smallest and largest canvas side accepted, in pixels.
pub const MIN_SIDE: u32 = 100;
/// See [`MIN_SIDE`].
pub const MAX_SIDE: u32 = 10_000;

fn check_size((w, h): (u32, u32)) -> Result<()> {
    for (name, v) in [("width", w), ("height", h)] {
        if !(MIN_SIDE..=MAX_SIDE).contains(&v) {
            return Err(Error::param(
                name,
                v,
                format!("a size in pixels between {MIN_SIDE} and {MAX_SIDE}"),
            ));
        }
    }
    Ok(())
}

/// Draws `fig` at `size` as SVG text and returns it with the layout the
/// drawing computed. `out` names the file in errors.
pub fn svg(fig: &impl Figure, size: (u32, u32), out: &Path) -> Result<(String, Layout)> {
    check_size(size)?;
    ensure_fonts()?;
    let mut svg = String::new();
    let layout = {
        let root = SVGBackend::with_string(&mut svg, size).into_drawing_area();
        let layout = fig.draw(&root).map_err(|e| draw_error(out, e))?;
        root.present().map_err(|e| draw_error(out, e))?;
        layout
    };
    Ok((svg, layout))
}

/// The bytes of `fig` at `size` in `format`, and its layout: the SVG, or
/// that SVG rasterised to PNG — one drawing for both formats.
pub fn encode(
    fig: &impl Figure,
    size: (u32, u32),
    format: Format,
    out: &Path,
) -> Result<(Vec<u8>, Layout)> {
    check_size(size)?;
    crate::limits::check_memory(
        "width",
        format!("{} (× height {})", size.0, size.1),
        crate::limits::image_bytes(size.0, size.1),
    )?;
    let (text, layout) = svg(fig, size, out)?;
    let bytes = match format {
        Format::Svg => text.into_bytes(),
        Format::Png => super::raster::png(&text, size).map_err(|e| draw_error(out, e))?,
    };
    Ok((bytes, layout))
}

/// Draws `fig` at `size` into `out` (PNG or SVG by extension); the file
/// appears only when complete ([`AtomicFile`]). Returns the layout.
pub fn render(fig: &impl Figure, out: &Path, size: (u32, u32)) -> Result<Layout> {
    render_with(fig, out, size, Existing::Replace)
}

/// As [`render`], with the policy `existing` for a file that exists (see
/// [`Existing`]).
pub fn render_with(
    fig: &impl Figure,
    out: &Path,
    size: (u32, u32),
    existing: Existing,
) -> Result<Layout> {
    let format = Format::of(out)?;
    check_size(size)?;
    // Claimed (and an unwritable destination reported) before drawing; a
    // failed drawing drops the staged file.
    let mut f = AtomicFile::create_with(out, existing)?;
    let (bytes, layout) = encode(fig, size, format, out)?;
    f.write_all(&bytes).map_err(|e| Error::io(out, e))?;
    f.commit()?;
    Ok(layout)
}

/// Writes `text` centred at the top of `area` in the title style, and
/// `subtitle` (if any) below it in a smaller regular face.
pub fn draw_title<DB: DrawingBackend>(
    area: &DrawingArea<DB, Shift>,
    text: &str,
    subtitle: Option<&str>,
    fonts: &Fonts,
) -> std::result::Result<(), DrawError<DB>> {
    use plotters::style::text_anchor::{HPos, Pos, VPos};
    let (w, _) = area.dim_in_pixel();
    let top = Pos::new(HPos::Center, VPos::Top);
    area.draw(&Text::new(
        text.to_string(),
        ((w / 2) as i32, 8),
        bold(fonts.title).pos(top),
    ))?;
    if let Some(sub) = subtitle {
        area.draw(&Text::new(
            sub.to_string(),
            ((w / 2) as i32, 8 + (fonts.title * 1.3) as i32),
            regular(fonts.note).color(&MID_GREY).pos(top),
        ))?;
    }
    Ok(())
}

/// Height in pixels reserved for a figure title (and its subtitle).
pub fn title_height(fonts: &Fonts, subtitle: bool) -> u32 {
    let sub = if subtitle { fonts.note * 1.4 } else { 0.0 };
    (fonts.title * 1.5 + sub) as u32 + 8
}

/// Tick values for a log axis over `[lo, hi]` (both > 0): 1-2-5 per decade
/// (mantissas 1, 1.5, 2, 3, …, 9 when that gives fewer than four ticks, so
/// that a range such as 1.2–15 is labelled near both ends and not only over
/// 2–10; powers of ten only when the range spans more than five decades).
/// plotters' own log ticks start at the first power of ten inside the range,
/// which leaves narrow ranges unlabelled.
pub fn log_ticks(lo: f64, hi: f64) -> Vec<f64> {
    // Powers of ten from floor(log10 lo) to ceil(log10 hi): bounded (about
    // 630 decades at most) only for positive finite ends.
    if !(lo > 0.0 && hi >= lo && hi.is_finite()) {
        return Vec::new();
    }
    let decades = (hi / lo).log10();
    let at = |ms: &[f64]| -> Vec<f64> {
        let mut out = Vec::new();
        let k0 = lo.log10().floor() as i32;
        let k1 = hi.log10().ceil() as i32;
        for k in k0..=k1 {
            for m in ms {
                // Divide for negative powers so that 0.6 prints as 0.6.
                let v = if k < 0 {
                    m / 10f64.powi(-k)
                } else {
                    m * 10f64.powi(k)
                };
                if v >= lo * (1.0 - 1e-12) && v <= hi * (1.0 + 1e-12) {
                    out.push(v);
                }
            }
        }
        out
    };
    if decades > 5.0 {
        return at(&[1.0]);
    }
    let t = at(&[1.0, 2.0, 5.0]);
    if t.len() >= 4 {
        t
    } else {
        at(&[1.0, 1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0])
    }
}

/// Largest magnitude of an axis end: beyond, a range's width overflows and
/// plotters' tick search never ends.
const AXIS_MAX: f64 = 1e300;

/// A linear axis range that plotters can tick in bounded time: both ends
/// finite and within ±1e300 (data beyond is drawn at the edge), and at least
/// 1e-9 of its magnitude wide — a narrower range is widened around its
/// centre, since plotters would otherwise step by less than the spacing of
/// `f64` near the range and never stop. Ordinary ranges pass unchanged.
pub fn safe_range(lo: f64, hi: f64) -> (f64, f64) {
    let clamp = |x: f64| {
        if x.is_nan() {
            0.0
        } else {
            x.clamp(-AXIS_MAX, AXIS_MAX)
        }
    };
    let (mut lo, mut hi) = (clamp(lo), clamp(hi));
    if hi < lo {
        std::mem::swap(&mut lo, &mut hi);
    }
    let min_width = (lo.abs().max(hi.abs()) * 1e-9).max(1e-300);
    if hi - lo < min_width {
        let c = lo / 2.0 + hi / 2.0;
        (lo, hi) = (c - min_width, c + min_width);
    }
    (lo, hi)
}

/// [`safe_range`] for a log axis: both ends within [1e-300, 1e300] and `hi`
/// at least `lo · (1 + 1e-9)`.
pub fn safe_log_range(lo: f64, hi: f64) -> (f64, f64) {
    let clamp = |x: f64| {
        if x.is_nan() {
            1.0
        } else {
            x.clamp(1.0 / AXIS_MAX, AXIS_MAX)
        }
    };
    let (mut lo, mut hi) = (clamp(lo), clamp(hi));
    if hi < lo {
        std::mem::swap(&mut lo, &mut hi);
    }
    if hi < lo * (1.0 + 1e-9) {
        (lo, hi) = (lo / (1.0 + 1e-9), lo * (1.0 + 1e-9));
    }
    (lo, hi)
}

/// Most ticks a tick function returns: a guard, never reached by the 1-2-5
/// steps of a well-formed range.
const MAX_TICKS: usize = 1000;

/// About `n` ticks at a 1-2-5 step over `[lo, hi]`.
pub fn linear_ticks(lo: f64, hi: f64, n: usize) -> Vec<f64> {
    if !(hi > lo && lo.is_finite() && hi.is_finite()) {
        return vec![lo];
    }
    let raw = (hi - lo) / n.max(1) as f64;
    let p = 10f64.powf(raw.log10().floor());
    let step = [1.0, 2.0, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|st| *st >= raw)
        .unwrap_or(10.0 * p);
    let mut out = Vec::new();
    let mut k = (lo / step).ceil();
    if !(step.is_finite() && step > 0.0 && k.is_finite() && k + 1.0 != k) {
        // A width that overflows, or a step below the spacing of f64 there.
        return vec![lo, hi];
    }
    while k * step <= hi + 1e-9 * step && out.len() < MAX_TICKS {
        // Round away float noise such as 0.30000000000000004.
        let v = k * step;
        out.push(if v.abs() < 1e-12 * step { 0.0 } else { v });
        k += 1.0;
    }
    out
}

/// "1 jump", "3 jumps".
pub fn plural(n: usize, word: &str) -> String {
    if n == 1 {
        format!("1 {word}")
    } else {
        format!("{n} {word}s")
    }
}

/// A vertical interval `[lo, hi]` at `x` with caps of half-width `half` (in x
/// units): three path elements (plotters' own `ErrorBar` needs a feature we do
/// not build).
pub fn whisker(
    x: f64,
    lo: f64,
    hi: f64,
    half: f64,
    style: ShapeStyle,
) -> [PathElement<(f64, f64)>; 3] {
    [
        PathElement::new(vec![(x, lo), (x, hi)], style),
        PathElement::new(vec![(x - half, lo), (x + half, lo)], style),
        PathElement::new(vec![(x - half, hi), (x + half, hi)], style),
    ]
}

/// Padded `[lo, hi]` for a linear axis (a degenerate range gets ±1).
pub fn pad_range(lo: f64, hi: f64, frac: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite()) {
        return (0.0, 1.0);
    }
    if hi <= lo {
        let c = lo;
        let d = if c == 0.0 { 1.0 } else { c.abs() * 0.1 };
        return (c - d, c + d);
    }
    let d = (hi - lo) * frac;
    safe_range(lo - d, hi + d)
}

/// Padded `[lo, hi]` for a log axis (factor `f` each side; both > 0).
pub fn pad_log_range(lo: f64, hi: f64, f: f64) -> (f64, f64) {
    if !(lo.is_finite() && hi.is_finite() && lo > 0.0 && hi > 0.0) {
        return (0.1, 10.0);
    }
    if hi <= lo {
        return (lo / 2.0, hi * 2.0);
    }
    (lo / f, hi * f)
}

pub use crate::util::num::short;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ticks_end_on_ranges_finer_than_f64_or_wider_than_it() {
        // 1e20 + 2¹⁵: the 1-2-5 step (5000) is below the spacing of f64 near
        // 1e20 (16384), so `k += 1` no longer advanced: an endless loop.
        let t = linear_ticks(1e20, 1e20 + 32768.0, 8);
        assert!(t.len() <= 2, "{t:?}");
        let t = linear_ticks(-1e308, 1e308, 8);
        assert!(t.len() <= MAX_TICKS);
        assert!(log_ticks(0.0, 1.0).is_empty());
        assert!(log_ticks(5e-324, 1e308).len() < 700);
        // Ordinary ranges are untouched.
        assert_eq!(
            linear_ticks(0.0, 1.0, 5),
            [0.0, 0.2, 0.4, 0.6000000000000001, 0.8, 1.0]
        );
        assert_eq!(safe_range(0.5, 15.0), (0.5, 15.0));
        assert_eq!(safe_range(-1e308, f64::INFINITY), (-1e300, 1e300));
        let (lo, hi) = safe_range(1e20, 1e20);
        assert!(hi - lo >= 1e11, "{lo} {hi}");
        assert_eq!(safe_log_range(0.0, f64::INFINITY), (1e-300, 1e300));
    }

    #[test]
    fn viridis_ends_and_monotone_lightness() {
        assert_eq!(viridis(0.0), RGBColor(0x44, 0x01, 0x54));
        assert_eq!(viridis(1.0), RGBColor(0xfd, 0xe7, 0x25));
        assert_eq!(viridis(f64::NAN), viridis(0.0));
        let lum = |c: RGBColor| 0.2126 * c.0 as f64 + 0.7152 * c.1 as f64 + 0.0722 * c.2 as f64;
        let mut last = -1.0;
        for i in 0..=50 {
            let l = lum(viridis(i as f64 / 50.0));
            assert!(l > last, "lightness must increase");
            last = l;
        }
    }

    #[test]
    fn format_by_extension() {
        assert_eq!(Format::of(Path::new("a/b.PNG")).unwrap(), Format::Png);
        assert_eq!(Format::of(Path::new("b.svg")).unwrap(), Format::Svg);
        assert!(Format::of(Path::new("b.pdf")).is_err());
        assert!(Format::of(Path::new("b")).is_err());
    }

    #[test]
    fn short_numbers() {
        assert_eq!(short(1.5), "1.5");
        assert_eq!(short(0.1234), "0.123");
        assert_eq!(short(123.4), "123");
        assert_eq!(short(2e-5), "2.00e-5");
        assert_eq!(
            linear_ticks(-0.3, 3.3, 8),
            vec![0.0, 0.5, 1.0, 1.5, 2.0, 2.5, 3.0]
        );
        assert_eq!(
            log_ticks(0.15, 80.0),
            vec![0.2, 0.5, 1.0, 2.0, 5.0, 10.0, 20.0, 50.0]
        );
        // Narrow: every integer mantissa and 1.5, so that both ends of
        // the path figure's ≈ 1.2–15 carry a label (not only 2–10).
        assert_eq!(log_ticks(0.55, 1.7), vec![0.6, 0.7, 0.8, 0.9, 1.0, 1.5]);
        assert_eq!(
            log_ticks(1.15, 15.6),
            vec![1.5, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 15.0]
        );
    }
}
