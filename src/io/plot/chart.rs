//! The chart every panel draws on: two [`Scale`] axes (ticks chosen by the
//! figure, one number format each), the house mesh, and the bridge from
//! data coordinates to the pixels its [`PanelLayout`] records.

use super::axis::Scale;
use super::layout::{Mark, PanelLayout, Rect};
use super::style::{self, Fonts};
use plotters::coord::Shift;
use plotters::prelude::*;

/// A panel's chart: both axes [`Scale`]s.
pub type Chart<'a, DB> = ChartContext<'a, DB, Cartesian2d<Scale, Scale>>;

pub use super::style::DrawError;

/// The axes of a panel and their descriptions.
#[derive(Clone, Debug)]
pub struct Axes {
    /// x axis.
    pub x: Scale,
    /// y axis.
    pub y: Scale,
    /// x description.
    pub x_desc: String,
    /// y description.
    pub y_desc: String,
}

/// Builds the chart of `axes` on `area`: an optional caption above,
/// `margin` pixels around, label areas sized from the fonts (`y_labels`:
/// the width of the y tick labels, in label heights).
pub fn build<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    fonts: &Fonts,
    caption: Option<&str>,
    axes: &Axes,
    y_labels: f64,
) -> Result<Chart<'a, DB>, DrawError<DB>> {
    build_with(area, fonts, caption, axes, y_labels, 1.0)
}

/// [`build`], then its [`mesh`] with a grid: where most panels start.
pub fn gridded<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    fonts: &Fonts,
    caption: Option<&str>,
    axes: &Axes,
    y_labels: f64,
) -> Result<Chart<'a, DB>, DrawError<DB>> {
    let mut chart = build(area, fonts, caption, axes, y_labels)?;
    mesh(&mut chart, fonts, axes, true)?;
    Ok(chart)
}

/// As [`build`], with room for `x_lines` lines of x tick labels.
pub fn build_with<'a, DB: DrawingBackend>(
    area: &'a DrawingArea<DB, Shift>,
    fonts: &Fonts,
    caption: Option<&str>,
    axes: &Axes,
    y_labels: f64,
    x_lines: f64,
) -> Result<Chart<'a, DB>, DrawError<DB>> {
    let mut b = ChartBuilder::on(area);
    if let Some(c) = caption {
        b.caption(c, style::regular(fonts.caption));
    }
    b.margin(12)
        .margin_right(20)
        .x_label_area_size((fonts.axis * 1.8 + fonts.label * 1.3 * x_lines) as u32)
        .y_label_area_size((fonts.axis * 1.6 + fonts.label * y_labels) as u32);
    b.build_cartesian_2d(axes.x.clone(), axes.y.clone())
}

/// Draws the axes, ticks, labels and a light grid at the ticks.
pub fn mesh<DB: DrawingBackend>(
    chart: &mut Chart<'_, DB>,
    fonts: &Fonts,
    axes: &Axes,
    grid: bool,
) -> Result<(), DrawError<DB>> {
    let xf = |v: &f64| axes.x.label(*v);
    let yf = |v: &f64| axes.y.label(*v);
    let mut m = chart.configure_mesh();
    m.x_desc(axes.x_desc.as_str())
        .y_desc(axes.y_desc.as_str())
        .x_label_formatter(&xf)
        .y_label_formatter(&yf)
        .axis_desc_style(style::regular(fonts.axis))
        .label_style(style::regular(fonts.label))
        .light_line_style(WHITE)
        .bold_line_style(RGBColor(0xE4, 0xE4, 0xE4));
    if !grid {
        m.disable_mesh();
    }
    m.draw()
}

/// The pixel of data point `p`.
pub fn px<DB: DrawingBackend>(chart: &Chart<'_, DB>, p: (f64, f64)) -> (i32, i32) {
    chart.plotting_area().map_coordinate(&p)
}

/// The pixels of `pts`.
pub fn pxs<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    pts: impl IntoIterator<Item = (f64, f64)>,
) -> Vec<(i32, i32)> {
    pts.into_iter().map(|p| px(chart, p)).collect()
}

/// The layout of a drawn panel.
pub fn layout<DB: DrawingBackend>(
    chart: &Chart<'_, DB>,
    name: &str,
    axes: &Axes,
    marks: Vec<Mark>,
) -> PanelLayout {
    PanelLayout {
        name: name.to_string(),
        plot: Rect::of_ranges(chart.plotting_area().get_pixel_range()),
        marks,
        x: axes.x.ticks(&axes.x_desc),
        y: axes.y.ticks(&axes.y_desc),
    }
}
