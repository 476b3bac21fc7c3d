//! What a drawing computed, in pixels of its canvas: each panel's plotting
//! rectangle, the marks of its series, its ticks and their labels, and every
//! legend's box and entries. The figures return it from
//! [`Figure::draw`](super::style::Figure::draw), so that tests check the
//! figure's own geometry (no plotted point under a legend, a legend entry
//! per series, whole ticks on whole-numbered axes) rather than its pixels,
//! and so that a legend can be placed where no data is
//! ([`super::legend`]).

/// A pixel rectangle, `[x0, x1) × [y0, y1)` (y grows downwards).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Rect {
    /// Left edge.
    pub x0: i32,
    /// Top edge.
    pub y0: i32,
    /// Right edge (exclusive).
    pub x1: i32,
    /// Bottom edge (exclusive).
    pub y1: i32,
}

impl Rect {
    /// The rectangle with corners `(x0, y0)` and `(x1, y1)`, in any order.
    pub fn new((x0, y0): (i32, i32), (x1, y1): (i32, i32)) -> Rect {
        Rect {
            x0: x0.min(x1),
            y0: y0.min(y1),
            x1: x0.max(x1),
            y1: y0.max(y1),
        }
    }

    /// From plotters' pixel ranges (`DrawingArea::get_pixel_range`).
    pub fn of_ranges((x, y): (std::ops::Range<i32>, std::ops::Range<i32>)) -> Rect {
        Rect {
            x0: x.start,
            y0: y.start,
            x1: x.end,
            y1: y.end,
        }
    }

    /// Width in pixels.
    pub fn width(&self) -> i32 {
        self.x1 - self.x0
    }

    /// Height in pixels.
    pub fn height(&self) -> i32 {
        self.y1 - self.y0
    }

    /// Whether `p` lies inside.
    pub fn contains(&self, (x, y): (i32, i32)) -> bool {
        x >= self.x0 && x < self.x1 && y >= self.y0 && y < self.y1
    }

    /// Grown by `d` pixels on every side.
    pub fn inflate(&self, d: i32) -> Rect {
        Rect {
            x0: self.x0 - d,
            y0: self.y0 - d,
            x1: self.x1 + d,
            y1: self.y1 + d,
        }
    }

    /// Whether the two overlap.
    pub fn intersects(&self, o: &Rect) -> bool {
        self.x0 < o.x1 && o.x0 < self.x1 && self.y0 < o.y1 && o.y0 < self.y1
    }

    /// The overlap of the two, if any.
    pub fn intersection(&self, o: &Rect) -> Option<Rect> {
        self.intersects(o).then(|| Rect {
            x0: self.x0.max(o.x0),
            y0: self.y0.max(o.y0),
            x1: self.x1.min(o.x1),
            y1: self.y1.min(o.y1),
        })
    }

    /// Whether the segment `a`–`b` passes through (Liang–Barsky clipping).
    pub fn meets_segment(&self, a: (i32, i32), b: (i32, i32)) -> bool {
        if self.contains(a) || self.contains(b) {
            return true;
        }
        let (x0, y0) = (a.0 as f64, a.1 as f64);
        let (dx, dy) = ((b.0 - a.0) as f64, (b.1 - a.1) as f64);
        let (mut t0, mut t1) = (0.0f64, 1.0f64);
        for (p, q) in [
            (-dx, x0 - self.x0 as f64),
            (dx, (self.x1 - 1) as f64 - x0),
            (-dy, y0 - self.y0 as f64),
            (dy, (self.y1 - 1) as f64 - y0),
        ] {
            if p == 0.0 {
                if q < 0.0 {
                    return false;
                }
            } else {
                let r = q / p;
                if p < 0.0 {
                    t0 = t0.max(r);
                } else {
                    t1 = t1.min(r);
                }
                if t0 > t1 {
                    return false;
                }
            }
        }
        true
    }
}

/// One drawn primitive, in canvas pixels.
#[derive(Clone, Debug, PartialEq)]
pub enum Shape {
    /// A marker: centre and radius.
    Point((i32, i32), i32),
    /// A polyline (a step line, a whisker, a dashed curve).
    Line(Vec<(i32, i32)>),
    /// A filled area (a histogram bar, a band's bounding box).
    Area(Rect),
}

impl Shape {
    /// Whether the shape reaches into `r`.
    pub fn meets(&self, r: &Rect) -> bool {
        match self {
            Shape::Point(c, rad) => r.inflate(*rad).contains(*c),
            Shape::Line(p) => match p.as_slice() {
                [] => false,
                [a] => r.contains(*a),
                _ => p.windows(2).any(|w| r.meets_segment(w[0], w[1])),
            },
            Shape::Area(a) => a.intersects(r),
        }
    }

    /// The points that define it (a marker's centre, a line's vertices, an
    /// area's corners).
    pub fn vertices(&self) -> Vec<(i32, i32)> {
        match self {
            Shape::Point(c, _) => vec![*c],
            Shape::Line(p) => p.clone(),
            Shape::Area(a) => vec![(a.x0, a.y0), (a.x1 - 1, a.y1 - 1)],
        }
    }
}

/// What one series (or reference line) put on a panel, and its legend text.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Mark {
    /// The legend entry that explains it.
    pub label: String,
    /// Its primitives.
    pub shapes: Vec<Shape>,
}

impl Mark {
    /// An empty mark explained by the legend entry `label`.
    pub fn new(label: impl Into<String>) -> Mark {
        Mark {
            label: label.into(),
            shapes: Vec::new(),
        }
    }

    /// Adds a polyline through `pts` (already in pixels).
    pub fn line(&mut self, pts: impl IntoIterator<Item = (i32, i32)>) {
        let p: Vec<(i32, i32)> = pts.into_iter().collect();
        if !p.is_empty() {
            self.shapes.push(Shape::Line(p));
        }
    }

    /// Adds markers of radius `r` at `pts` (pixels).
    pub fn points(&mut self, pts: impl IntoIterator<Item = (i32, i32)>, r: i32) {
        self.shapes
            .extend(pts.into_iter().map(|p| Shape::Point(p, r)));
    }

    /// Adds a filled area.
    pub fn area(&mut self, r: Rect) {
        self.shapes.push(Shape::Area(r));
    }
}

/// The ticks of one axis as drawn.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct AxisTicks {
    /// Tick values (data units), each labelled.
    pub values: Vec<f64>,
    /// Their labels.
    pub labels: Vec<String>,
    /// The axis counts whole things (hops, batches, members, degrees):
    /// every tick must be a whole number.
    pub integer: bool,
    /// The axis description.
    pub title: String,
}

/// One panel: its plotting rectangle, marks and axes.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct PanelLayout {
    /// Caption (or a name for a panel without one).
    pub name: String,
    /// The plotting rectangle.
    pub plot: Rect,
    /// Series and reference lines drawn.
    pub marks: Vec<Mark>,
    /// The x axis.
    pub x: AxisTicks,
    /// The y axis.
    pub y: AxisTicks,
}

/// One legend: its box and entries, in order.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LegendLayout {
    /// The box (background and border).
    pub rect: Rect,
    /// Entry texts.
    pub entries: Vec<String>,
}

/// Everything a figure drew.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Layout {
    /// The panels, left to right, top to bottom.
    pub panels: Vec<PanelLayout>,
    /// The legends.
    pub legends: Vec<LegendLayout>,
}

impl Layout {
    /// Adds another drawing's panels and legends.
    pub fn extend(&mut self, other: Layout) {
        self.panels.extend(other.panels);
        self.legends.extend(other.legends);
    }

    /// What a reader would trip over, one sentence each (empty: none):
    /// a plotted point or line under a legend box, a series without a legend
    /// entry, a fractional tick on a whole-numbered axis, a tick whose label
    /// repeats another's.
    pub fn problems(&self) -> Vec<String> {
        let mut out = Vec::new();
        for (pi, p) in self.panels.iter().enumerate() {
            for m in &p.marks {
                if !self.legends.iter().any(|l| l.entries.contains(&m.label)) {
                    out.push(format!(
                        "panel {pi} ({}): '{}' has no legend entry",
                        p.name, m.label
                    ));
                }
                for l in &self.legends {
                    // Only what is visible: inside the plotting rectangle.
                    let Some(under) = l.rect.intersection(&p.plot) else {
                        continue;
                    };
                    if let Some(s) = m.shapes.iter().find(|s| s.meets(&under)) {
                        out.push(format!(
                            "panel {pi} ({}): '{}' is drawn under the legend at {:?} ({s:?})",
                            p.name, m.label, l.rect
                        ));
                    }
                }
            }
            for (axis, a) in [("x", &p.x), ("y", &p.y)] {
                if a.integer
                    && let Some(v) = a.values.iter().find(|v| v.fract() != 0.0)
                {
                    out.push(format!(
                        "panel {pi} ({}): {axis} axis counts whole things but has a tick at {v}",
                        p.name
                    ));
                }
                let mut seen: Vec<&String> = Vec::new();
                for l in a.labels.iter().filter(|l| !l.is_empty()) {
                    if seen.contains(&l) {
                        out.push(format!(
                            "panel {pi} ({}): {axis} axis prints '{l}' twice",
                            p.name
                        ));
                    }
                    seen.push(l);
                }
            }
        }
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn segments_meet_rectangles_they_cross() {
        let r = Rect::new((10, 10), (20, 20));
        assert!(r.meets_segment((0, 15), (30, 15)));
        assert!(r.meets_segment((12, 12), (100, 100)));
        assert!(!r.meets_segment((0, 0), (30, 5)));
        assert!(!r.meets_segment((0, 30), (30, 30)));
        assert!(r.meets_segment((0, 0), (30, 30)));
        assert!(!r.meets_segment((21, 0), (21, 40)));
    }

    /// The checks can fail: each flaw of the figures, drawn into a
    /// layout by hand, is reported.
    #[test]
    fn problems_name_each_flaw() {
        let mut m = Mark::new("owner 0");
        m.points([(50, 50)], 3);
        let mut theory = Mark::new("theory");
        theory.line([(0, 90), (99, 90)]);
        let layout = Layout {
            panels: vec![PanelLayout {
                name: "a".into(),
                plot: Rect::new((0, 0), (100, 100)),
                marks: vec![m, theory],
                x: AxisTicks {
                    values: vec![1.0, 1.5, 2.0],
                    labels: vec!["1".into(), "1.5".into(), "2".into()],
                    integer: true,
                    title: "hops".into(),
                },
                y: AxisTicks {
                    values: vec![1e5, 1e6],
                    labels: vec!["1e5".into(), "1e5".into()],
                    integer: false,
                    title: String::new(),
                },
            }],
            legends: vec![LegendLayout {
                rect: Rect::new((40, 40), (60, 60)),
                entries: vec!["owner 0".into()],
            }],
        };
        let p = layout.problems();
        assert_eq!(p.len(), 4, "{p:#?}");
        assert!(p[0].contains("under the legend"));
        assert!(p[1].contains("'theory' has no legend entry"));
        assert!(p[2].contains("tick at 1.5"));
        assert!(p[3].contains("'1e5' twice"));
    }
}
