//! The sweep figure (one panel per metric, one series per varying key)
//! drawn from the [`SweepFigure`] data read back from a sweep CSV.

use super::style::{self, DrawResult, Figure, Fonts};
use crate::Result;
use crate::sweep::figure::{Panel, PlotSpec, SweepFigure, load};
use crate::sweep::side_file;
use plotters::coord::Shift;
use plotters::coord::ranged1d::{DefaultFormatting, KeyPointHint, Ranged};
use plotters::element::DashedPathElement;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

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
    fn linear_ticks_are_round() {
        assert_eq!(lin_ticks(0.0, 10.0), [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]);
        assert_eq!(lin_ticks(0.0, 1.0).len(), 6);
    }
}
