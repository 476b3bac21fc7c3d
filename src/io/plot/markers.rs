//! Point markers by code (the codes of
//! [`sweep_intervals::marker`](crate::io::sweep_intervals::marker)): filled
//! circle, triangle and square as the sweep figure always drew them (3 also
//! a circle), hollow circle and triangle, filled and hollow diamond, so that
//! each utility scheme has a marker of its own.

use super::style::DrawError;
use plotters::coord::CoordTranslate;
use plotters::prelude::*;

/// Draws marker `code` of radius `r` (pixels) and colour `c` at `at` on
/// `area` (a chart's plotting area or a pixel area).
pub fn draw_marker<DB: DrawingBackend, CT: CoordTranslate>(
    area: &DrawingArea<DB, CT>,
    at: CT::From,
    code: usize,
    r: i32,
    c: RGBColor,
) -> Result<(), DrawError<DB>>
where
    CT::From: Clone + 'static,
{
    let hollow = c.stroke_width(2);
    let diamond = |k: i32| vec![(0, -k), (k, 0), (0, k), (-k, 0)];
    let t = r + 1;
    // TriangleMarker's vertices: up, down-right, down-left.
    let (h, w) = ((t as f64 * 0.866) as i32, t / 2);
    let triangle = vec![(0, -t), (h, w), (-h, w)];
    match code {
        1 => area.draw(&(EmptyElement::at(at) + TriangleMarker::new((0, 0), t, c.filled()))),
        2 => area.draw(&(EmptyElement::at(at) + Rectangle::new([(-r, -r), (r, r)], c.filled()))),
        4 => area.draw(&(EmptyElement::at(at) + Circle::new((0, 0), r, hollow))),
        5 => {
            let mut p = triangle.clone();
            p.push(triangle[0]);
            area.draw(&(EmptyElement::at(at) + PathElement::new(p, hollow)))
        }
        6 => area.draw(&(EmptyElement::at(at) + Polygon::new(diamond(r + 1), c.filled()))),
        7 => {
            let mut p = diamond(r + 1);
            p.push((0, -(r + 1)));
            area.draw(&(EmptyElement::at(at) + PathElement::new(p, hollow)))
        }
        _ => area.draw(&(EmptyElement::at(at) + Circle::new((0, 0), r, c.filled()))),
    }
}
