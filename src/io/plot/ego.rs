//! Figure 2 (`--kind ego`): one owner's view of the network (the seed's Fig. 7).
//!
//! The owner sits at the centre; every recipient at radius = its distance, at
//! a deterministic angle (recipients at one distance are spread evenly, in the
//! order of a hash of their id); colour = the error of its answer on a
//! quantile (rank) scale of viridis. Dashed circles mark the distances where
//! the owner's path jumps, and the bands between consecutive circles are
//! shaded alternately: everyone inside one band reads the path at levels where
//! it is constant, so they all receive the same answer — same band, same
//! colour.
//!
//! With replicates (`simulate --replicates K`), each replicate's jump
//! circles are drawn in its own colour, as the thesis' Fig. 7 draws its blue
//! and red circles (at most [`MAX_REPLICATES`]; the key counts those left
//! out); the bands and the dots' colours are those of the first replicate.
//! The colour is `error_norm`, ‖raw − u‖: the error before post-processing,
//! which the colour bar says when the answers were post-processed (with
//! `--post bit` every released |y − u| is 0 or 1). With `--post bit` the
//! `correct` column marks every member whose released bit is wrong (a
//! thick black ring; first replicate). `--edges` draws the friendships among
//! the members faintly, from the graph that `summary.json` names (its view
//! too; a relative path is looked up as [`resolve_recorded`] says).

use super::axis::Scale;
use super::chart::{self, Axes};
use super::data::{
    EgoRow, MAX_REPLICATES, RunSummary, read_ego, read_jumps, read_owners, read_summary_if_present,
    resolve_recorded,
};
use super::layout::{Layout, LegendLayout, Mark, PanelLayout, Rect};
use super::style::{self, DrawResult, Figure, Fonts};
use crate::error::{Error, Result};
use plotters::coord::Shift;
use plotters::prelude::*;
use std::collections::{HashMap, HashSet};
use std::f64::consts::PI;
use std::path::Path;

/// A segment between two points of the plane.
pub type Segment = ((f64, f64), (f64, f64));

/// One recipient placed in the plane.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EgoPoint {
    /// Position (x, y), |(x, y)| = distance.
    pub xy: (f64, f64),
    /// Distance from the owner.
    pub distance: f64,
    /// Error of its answer.
    pub error: f64,
    /// Colour coordinate: the empirical quantile of `error` in [0, 1].
    pub quantile: f64,
    /// With `--post bit`: whether the released bit equals the owner's.
    pub correct: Option<bool>,
}

/// What the colour of a recipient measures: its `error_norm` = ‖raw − u‖,
/// named by what the answers went through.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Measure {
    /// No post-processing changed an answer: raw = y, the error of the
    /// released answer.
    Answer,
    /// Post-processed answers (`post`): the error before it.
    BeforePost,
    /// `post = bit` (the `correct` column): the error before the bit
    /// projection.
    BeforeBit,
    /// A file without the value columns: raw = y unknown.
    Raw,
}

impl Measure {
    /// From the rows drawn: `correct` present → bit; a released y that
    /// differs from its raw answer → post-processed.
    pub fn of(rows: &[EgoRow]) -> Measure {
        if rows.iter().any(|r| r.correct.is_some()) {
            Measure::BeforeBit
        } else if rows.iter().any(|r| r.values.is_empty()) {
            Measure::Raw
        } else if rows.iter().any(|r| r.raw() != r.y()) {
            Measure::BeforePost
        } else {
            Measure::Answer
        }
    }

    /// The colour bar's caption, in lines.
    pub fn caption(self) -> [&'static str; 2] {
        match self {
            Measure::Answer => ["error ‖y − u‖", "of the answer"],
            Measure::BeforePost => ["error ‖raw − u‖", "before post-processing"],
            Measure::BeforeBit => ["error ‖raw − u‖", "before the bit projection"],
            Measure::Raw => ["error ‖raw − u‖", "(before any post-processing)"],
        }
    }

    /// Short form for the subtitle.
    fn short(self) -> &'static str {
        match self {
            Measure::Answer => "error of the answer",
            Measure::BeforePost => "error before post-processing",
            Measure::BeforeBit => "error before the bit projection",
            Measure::Raw => "error of the raw answer",
        }
    }
}

/// Data of figure 2.
#[derive(Clone, Debug)]
pub struct EgoFigure {
    /// Owner id.
    pub owner: String,
    /// Recipients.
    pub points: Vec<EgoPoint>,
    /// Distances of the owner's jumps inside the plotted radius, ascending
    /// (first replicate drawn: the bands).
    pub circles: Vec<f64>,
    /// Every replicate drawn (at most [`MAX_REPLICATES`]) and its jump
    /// distances (ascending).
    pub rings: Vec<(u32, Vec<f64>)>,
    /// Replicates of the owner in `ego.csv` whose circles are not drawn.
    pub rings_left_out: usize,
    /// What the colour measures.
    pub measure: Measure,
    /// Friendship edges among the members and the owner (`--edges`), as
    /// segments in the plane.
    pub edges: Vec<Segment>,
    /// Largest recipient distance.
    pub radius: f64,
    /// Sorted errors (for the colour bar's quantile labels).
    pub sorted_errors: Vec<f64>,
    /// Distinct answers (distinct error values).
    pub distinct: usize,
    /// Bands (between consecutive circles) that hold recipients.
    pub bands_used: usize,
    /// Axis text for distances.
    pub distance_label: String,
    /// Distances are whole numbers (hops): whole ticks.
    pub whole: bool,
}

/// FNV-1a: a stable hash of a recipient id, independent of platform and
/// process (unlike `std`'s randomly keyed hasher).
fn fnv1a(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.bytes() {
        h ^= b as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    h
}

/// Places recipients: radius = distance; those at one distance are spread
/// evenly around the circle in hash order, each ring rotated by the golden
/// angle so rings do not line up.
pub fn layout(rows: &[EgoRow]) -> Vec<(f64, f64)> {
    let mut order: Vec<usize> = (0..rows.len()).collect();
    order.sort_by(|&a, &b| {
        rows[a]
            .distance
            .total_cmp(&rows[b].distance)
            .then(fnv1a(&rows[a].recipient).cmp(&fnv1a(&rows[b].recipient)))
            .then(rows[a].recipient.cmp(&rows[b].recipient))
    });
    let golden = PI * (3.0 - 5f64.sqrt());
    let mut xy = vec![(0.0, 0.0); rows.len()];
    let mut ring = 0usize;
    let mut i = 0;
    while i < order.len() {
        let d = rows[order[i]].distance;
        let mut j = i;
        while j < order.len() && rows[order[j]].distance.to_bits() == d.to_bits() {
            j += 1;
        }
        let k = (j - i) as f64;
        let phase = golden * ring as f64 + (fnv1a(&d.to_string()) % 1000) as f64 / 1000.0;
        for (r, &idx) in order[i..j].iter().enumerate() {
            let a = phase + 2.0 * PI * (r as f64 + 0.5) / k;
            xy[idx] = (d * a.cos(), d * a.sin());
        }
        ring += 1;
        i = j;
    }
    xy
}

/// Empirical quantile of each value in [0, 1] (ties share their lowest rank).
fn quantiles(values: &[f64], sorted: &[f64]) -> Vec<f64> {
    let n = sorted.len();
    values
        .iter()
        .map(|v| {
            if n <= 1 {
                0.5
            } else {
                sorted.partition_point(|x| x < v) as f64 / (n - 1) as f64
            }
        })
        .collect()
}

/// Loads figure 2 from `dir` (`ego.csv`, `jumps.csv`, and `owners.csv` for the
/// owner's id when `ego.csv` has no `owner` column). `edges`: also the
/// friendships among the members, from the graph `summary.json` names.
pub fn load(dir: &Path, owner: Option<&str>, edges: bool) -> Result<EgoFigure> {
    let ego_file = dir.join("ego.csv");
    let mut rows = read_ego(&ego_file)?;
    let owner = select_owner(dir, &mut rows, owner)?;
    rows.retain(|r| r.distance.is_finite() && r.error_norm.is_finite());
    if rows.is_empty() {
        return Err(Error::input(
            &ego_file,
            1,
            format!("no recipients with finite distance and error for owner '{owner}'"),
        ));
    }
    // Replicates in file order; the first one gives the dots and the bands.
    let mut replicates: Vec<u32> = Vec::new();
    for r in &rows {
        if !replicates.contains(&r.replicate) {
            replicates.push(r.replicate);
        }
    }
    let first = replicates[0];
    rows.retain(|r| r.replicate == first);
    let rings_left_out = replicates.len().saturating_sub(MAX_REPLICATES);
    replicates.truncate(MAX_REPLICATES);
    let jumps = read_jumps(&dir.join("jumps.csv"))?;
    let radius = rows.iter().map(|r| r.distance).fold(0.0, f64::max);
    let rings: Vec<(u32, Vec<f64>)> = replicates
        .iter()
        .map(|&rep| {
            let mut c: Vec<f64> = jumps
                .iter()
                .filter(|j| j.owner == owner && j.replicate == rep && j.distance.is_finite())
                .map(|j| j.distance)
                .filter(|&d| d > 0.0 && d <= radius)
                .collect();
            c.sort_by(f64::total_cmp);
            (rep, c)
        })
        .collect();
    let circles = rings[0].1.clone();
    let xy = layout(&rows);
    let errors: Vec<f64> = rows.iter().map(|r| r.error_norm).collect();
    let mut sorted = errors.clone();
    sorted.sort_by(f64::total_cmp);
    let q = quantiles(&errors, &sorted);
    let points: Vec<EgoPoint> = rows
        .iter()
        .enumerate()
        .map(|(i, r)| EgoPoint {
            xy: xy[i],
            distance: r.distance,
            error: r.error_norm,
            quantile: q[i],
            correct: r.correct.map(|c| c == 1),
        })
        .collect();
    let distinct = errors
        .iter()
        .map(|e| e.to_bits())
        .collect::<HashSet<_>>()
        .len();
    let bands_used = points
        .iter()
        .map(|p| circles.partition_point(|&c| c < p.distance))
        .collect::<HashSet<_>>()
        .len();
    let summary = read_summary_if_present(dir)?;
    let segments = if edges {
        let mut at: HashMap<String, (f64, f64)> = rows
            .iter()
            .zip(&xy)
            .map(|(r, &p)| (r.recipient.clone(), p))
            .collect();
        at.insert(owner.clone(), (0.0, 0.0));
        edge_segments(dir, summary.as_ref(), &at)?
    } else {
        Vec::new()
    };
    Ok(EgoFigure {
        owner,
        points,
        circles,
        rings,
        rings_left_out,
        measure: Measure::of(&rows),
        edges: segments,
        radius,
        sorted_errors: sorted,
        distinct,
        bands_used,
        distance_label: summary
            .as_ref()
            .map_or_else(|| super::data::distance_label(None), |s| s.distance_label()),
        whole: summary.as_ref().is_some_and(RunSummary::whole_distances),
    })
}

/// The owner the figure draws (`owner`, else the file's first), its rows
/// kept in `rows`: an owner ego.csv does not record is refused, naming the
/// ones it does.
fn select_owner(dir: &Path, rows: &mut Vec<EgoRow>, owner: Option<&str>) -> Result<String> {
    let file_owner = match rows.first().and_then(|r| r.owner.clone()) {
        Some(o) => o,
        None => {
            let owners = read_owners(&dir.join("owners.csv"))?;
            owners.first().map(|o| o.owner.clone()).ok_or_else(|| {
                Error::input(
                    dir.join("owners.csv"),
                    2,
                    "no owners: expected at least one row",
                )
            })?
        }
    };
    let has_owner_column = rows.first().is_some_and(|r| r.owner.is_some());
    let recorded = || {
        let mut ids: Vec<String> = Vec::new();
        for r in rows.iter() {
            if let Some(o) = &r.owner
                && !ids.contains(o)
            {
                ids.push(o.clone());
            }
        }
        if ids.is_empty() {
            ids.push(file_owner.clone());
        }
        ids.join(", ")
    };
    Ok(match owner {
        Some(id) if has_owner_column => {
            if !rows.iter().any(|r| r.owner.as_deref() == Some(id)) {
                return Err(Error::param(
                    "owner",
                    id,
                    format!(
                        "an owner whose recipients ego.csv records ({}; record more with \
                         `ego_owners` of simulate)",
                        recorded()
                    ),
                ));
            }
            rows.retain(|r| r.owner.as_deref() == Some(id));
            id.to_string()
        }
        Some(id) if id != file_owner => {
            return Err(Error::param(
                "owner",
                id,
                format!("the owner whose recipients ego.csv lists ({file_owner})"),
            ));
        }
        Some(id) => id.to_string(),
        None => {
            if has_owner_column {
                rows.retain(|r| r.owner.as_deref() == Some(file_owner.as_str()));
            }
            file_owner
        }
    })
}

/// The edges of the run's graph (as `summary.json`'s configuration loads
/// it, view included; its relative files found by [`resolve_recorded`])
/// whose two ends are both placed in `at`. A graph whose size differs from
/// the one `summary.json` records is refused: the file found is not the
/// run's.
fn edge_segments(
    dir: &Path,
    summary: Option<&RunSummary>,
    at: &HashMap<String, (f64, f64)>,
) -> Result<Vec<Segment>> {
    let file = dir.join("summary.json");
    let text = std::fs::read_to_string(&file).map_err(|e| Error::io(&file, e))?;
    let v: serde_json::Value = serde_json::from_str(&text)
        .map_err(|e| Error::input(&file, e.line(), format!("not JSON: {e}")))?;
    let config: crate::sim::SimConfig = v
        .get("config")
        .cloned()
        .ok_or_else(|| {
            Error::input(
                &file,
                0,
                "no `config`: drawing `edges` needs the run's graph",
            )
        })
        .and_then(|c| {
            serde_json::from_value(c).map_err(|e| {
                Error::input(
                    &file,
                    0,
                    format!("config: {e} (drawing `edges` needs the run's graph)"),
                )
            })
        })?;
    let mut config = config;
    config.graph = resolve_recorded(&config.graph, dir);
    config.nodes = config.nodes.map(|n| resolve_recorded(&n, dir));
    if let Some(crate::graph::GraphView::Subgraph(p)) = &mut config.view {
        *p = resolve_recorded(p, dir);
    }
    let g = config.load_graph()?;
    if let Some(stats) = summary.and_then(|s| s.summary.graph.as_ref())
        && (stats.nodes, stats.edges) != (g.n(), g.m())
    {
        return Err(Error::input(
            &file,
            0,
            format!(
                "graph: {} gives {} nodes and {} edges where the run had {} and {} \
                 (not the run's graph)",
                config.graph.display(),
                g.n(),
                g.m(),
                stats.nodes,
                stats.edges
            ),
        ));
    }
    let mut out = Vec::new();
    for (u, v, _) in g.edges() {
        let (a, b) = (g.ids().label(u).to_string(), g.ids().label(v).to_string());
        if let (Some(&p), Some(&q)) = (at.get(&a), at.get(&b)) {
            out.push((p, q));
        }
    }
    Ok(out)
}

fn ring(r: f64) -> Vec<(f64, f64)> {
    (0..=240)
        .map(|i| {
            let a = 2.0 * PI * i as f64 / 240.0;
            (r * a.cos(), r * a.sin())
        })
        .collect()
}

impl EgoFigure {
    /// Error value at quantile `q` of the recipients.
    fn error_at(&self, q: f64) -> f64 {
        let n = self.sorted_errors.len();
        let i = ((q.clamp(0.0, 1.0) * (n - 1) as f64).round() as usize).min(n - 1);
        self.sorted_errors[i]
    }

    fn recipient_text(&self) -> String {
        if self.rings.len() > 1 {
            format!(
                "recipient (colour = its error, replicate {})",
                self.rings[0].0
            )
        } else {
            "recipient (colour = its error)".to_string()
        }
    }

    fn ring_text(&self, rep: u32) -> String {
        if self.rings.len() > 1 {
            format!("jump distances, replicate {rep}")
        } else {
            "distance of a jump of the path".to_string()
        }
    }

    fn wrong_text(&self) -> String {
        let wrong = self
            .points
            .iter()
            .filter(|p| p.correct == Some(false))
            .count();
        format!(
            "bit wrong ({wrong} of {}{})",
            self.points.len(),
            if self.rings.len() > 1 {
                format!(", replicate {}", self.rings[0].0)
            } else {
                String::new()
            }
        )
    }

    fn edges_text(&self) -> String {
        format!(
            "friendship ({} drawn faintly)",
            style::plural(self.edges.len(), "edge")
        )
    }

    fn draw_disc<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> std::result::Result<PanelLayout, chart::DrawError<DB>> {
        let (_, r) = style::safe_range(-self.radius * 1.08, self.radius.max(1e-9) * 1.08);
        // Ticks on the positive half only: a radius read from the owner out.
        let half = Scale::linear_or_integer(0.0, r, self.whole);
        let ticks: Vec<(f64, String)> =
            half.values().iter().map(|v| (*v, half.label(*v))).collect();
        let axis = Scale::categories(-r, r, &ticks, self.whole);
        let axes = Axes {
            x: axis.clone(),
            y: axis,
            x_desc: self.distance_label.clone(),
            y_desc: self.distance_label.clone(),
        };
        let mut chart = chart::build(area, fonts, None, &axes, 2.0)?;
        chart::mesh(&mut chart, fonts, &axes, false)?;
        // Bands between jump circles, alternately shaded, outermost first.
        let mut edges = self.circles.clone();
        edges.push(self.radius * 1.04);
        for (j, &e) in edges.iter().enumerate().rev() {
            let fill = if j % 2 == 1 { BAND } else { WHITE };
            chart.draw_series(std::iter::once(Polygon::new(ring(e), fill.filled())))?;
        }
        let mut marks = Vec::new();
        if !self.edges.is_empty() {
            let mut m = Mark::new(self.edges_text());
            for &(a, b) in &self.edges {
                chart.draw_series(std::iter::once(PathElement::new(
                    vec![a, b],
                    style::OI_BLACK.mix(EDGE_ALPHA).stroke_width(1),
                )))?;
                m.line(chart::pxs(&chart, [a, b]));
            }
            marks.push(m);
        }
        for (k, (rep, cs)) in self.rings.iter().enumerate() {
            let st = ring_style(k, self.rings.len());
            let mut m = Mark::new(self.ring_text(*rep));
            for &c in cs {
                chart.draw_series(DashedLineSeries::new(ring(c), 6, 5, st))?;
                m.line(chart::pxs(&chart, ring(c)));
            }
            marks.push(m);
        }
        let size = dot_size(fonts);
        chart.draw_series(
            self.points
                .iter()
                .map(|p| Circle::new(p.xy, size, style::viridis(p.quantile).filled())),
        )?;
        chart.draw_series(
            self.points
                .iter()
                .map(|p| Circle::new(p.xy, size, style::OI_BLACK.mix(0.35).stroke_width(1))),
        )?;
        let mut m = Mark::new(self.recipient_text());
        m.points(
            chart::pxs(&chart, self.points.iter().map(|p| p.xy)),
            size as i32,
        );
        marks.push(m);
        let wrong: Vec<(f64, f64)> = self
            .points
            .iter()
            .filter(|p| p.correct == Some(false))
            .map(|p| p.xy)
            .collect();
        chart.draw_series(
            wrong
                .iter()
                .map(|&p| Circle::new(p, size + 3, style::OI_BLACK.stroke_width(2))),
        )?;
        if self.points.iter().any(|p| p.correct.is_some()) {
            let mut m = Mark::new(self.wrong_text());
            m.points(chart::pxs(&chart, wrong), size as i32 + 3);
            marks.push(m);
        }
        chart.draw_series(std::iter::once(Cross::new(
            (0.0, 0.0),
            (fonts.label * 0.6) as u32,
            style::OI_VERMILLION.stroke_width(3),
        )))?;
        let mut m = Mark::new(format!("owner {}", self.owner));
        m.points([chart::px(&chart, (0.0, 0.0))], (fonts.label * 0.6) as i32);
        marks.push(m);
        Ok(chart::layout(&chart, "ego", &axes, marks))
    }

    fn draw_colorbar<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> std::result::Result<(), chart::DrawError<DB>> {
        use plotters::style::text_anchor::{HPos, Pos, VPos};
        // The caption in its own strip above the bar, two lines, with half a
        // label of room below it for the top tick's label (centred on the
        // bar's top): nothing overlaps at any canvas size.
        let line = fonts.axis * 1.25;
        let strip = (2.0 * line + fonts.label * 0.4) as u32;
        for (i, text) in self.measure.caption().iter().enumerate() {
            area.draw(&Text::new(
                text.to_string(),
                (10, (fonts.label * 0.4 + i as f64 * line) as i32),
                style::regular(fonts.axis).pos(Pos::new(HPos::Left, VPos::Top)),
            ))?;
        }
        let area = area.margin(strip, 0, 0, 0);
        let (w, _) = area.dim_in_pixel();
        let labels = (fonts.label * 7.0) as u32;
        let bar = (fonts.label * 2.2) as u32;
        let mut chart = ChartBuilder::on(&area)
            .margin_top((fonts.label * 0.9) as u32)
            .margin_bottom((fonts.label * 0.8) as u32)
            .margin_left(10)
            .margin_right(w.saturating_sub(10 + labels + bar).max(5))
            .y_label_area_size(labels)
            .x_label_area_size(2)
            .build_cartesian_2d(0.0..1.0, 0.0..1.0)?;
        // A label only where the value differs from the tick below (ties
        // of many recipients would repeat it: "0.076 (q80)", "0.076 (q90)").
        let fmt = |q: &f64| {
            let here = style::short(self.error_at(*q));
            if *q > 0.05 && style::short(self.error_at(*q - 0.1)) == here {
                return String::new();
            }
            format!("{here} (q{})", (q * 100.0).round())
        };
        chart
            .configure_mesh()
            .disable_mesh()
            .disable_x_axis()
            .y_labels(11)
            .y_label_formatter(&fmt)
            .label_style(style::regular(fonts.label * 0.85))
            .draw()?;
        let steps = 200;
        chart.draw_series((0..steps).map(|i| {
            let a = i as f64 / steps as f64;
            let b = (i + 1) as f64 / steps as f64;
            Rectangle::new([(0.0, a), (1.0, b)], style::viridis((a + b) / 2.0).filled())
        }))?;
        // Mark the quantile of every distinct answer on the bar.
        chart.draw_series(self.points.iter().map(|p| {
            PathElement::new(
                vec![(0.0, p.quantile), (0.25, p.quantile)],
                style::OI_BLACK.stroke_width(1),
            )
        }))?;
        Ok(())
    }

    fn draw_key<DB: DrawingBackend>(
        &self,
        area: &DrawingArea<DB, Shift>,
        fonts: &Fonts,
    ) -> std::result::Result<LegendLayout, chart::DrawError<DB>> {
        let mut entries: Vec<String> = Vec::new();
        let step = (fonts.note * 1.5) as i32;
        let x = 12;
        let mut y = 8 + step / 2;
        let glyph = (fonts.note * 1.6) as i32;
        let text = |s: &str, y: i32| {
            Text::new(
                s.to_string(),
                (x + glyph + 8, y),
                style::regular(fonts.note).pos(plotters::style::text_anchor::Pos::new(
                    plotters::style::text_anchor::HPos::Left,
                    plotters::style::text_anchor::VPos::Center,
                )),
            )
        };
        area.draw(&Cross::new(
            (x + glyph / 2, y),
            (fonts.note * 0.45) as u32,
            style::OI_VERMILLION.stroke_width(3),
        ))?;
        entries.push(format!("owner {}", self.owner));
        area.draw(&text(&entries[entries.len() - 1], y))?;
        y += step;
        area.draw(&Circle::new(
            (x + glyph / 2, y),
            dot_size(fonts),
            style::viridis(0.6).filled(),
        ))?;
        entries.push(self.recipient_text());
        area.draw(&text(&entries[entries.len() - 1], y))?;
        y += step;
        for (k, (rep, _)) in self.rings.iter().enumerate() {
            area.draw(&PathElement::new(
                vec![(x, y), (x + glyph, y)],
                ring_style(k, self.rings.len()),
            ))?;
            entries.push(self.ring_text(*rep));
            area.draw(&text(&entries[entries.len() - 1], y))?;
            y += step;
        }
        if self.rings_left_out > 0 {
            area.draw(&text(
                &format!(
                    "+ {} not drawn (at most {MAX_REPLICATES})",
                    style::plural(self.rings_left_out, "more replicate")
                ),
                y,
            ))?;
            y += step;
        }
        if self.points.iter().any(|p| p.correct.is_some()) {
            area.draw(&Circle::new(
                (x + glyph / 2, y),
                dot_size(fonts) + 3,
                style::OI_BLACK.stroke_width(2),
            ))?;
            entries.push(self.wrong_text());
            area.draw(&text(&entries[entries.len() - 1], y))?;
            y += step;
        }
        if !self.edges.is_empty() {
            area.draw(&PathElement::new(
                vec![(x, y), (x + glyph, y)],
                style::OI_BLACK.mix(0.5).stroke_width(1),
            ))?;
            entries.push(self.edges_text());
            area.draw(&text(&entries[entries.len() - 1], y))?;
            y += step;
        }
        area.draw(&Rectangle::new(
            [(x, y - step / 3), (x + glyph, y + step / 3)],
            BAND.filled(),
        ))?;
        area.draw(&text("band between jumps: one answer", y))?;
        y += step * 3 / 2;
        let lines = [
            format!(
                "{}, {} at {}",
                style::plural(self.points.len(), "recipient"),
                style::plural(self.distinct, "distinct error"),
                style::plural(self.bands_used, "occupied band")
            ),
            "Everyone between two circles reads the".to_string(),
            "path where it is constant: same answer,".to_string(),
            "same colour.".to_string(),
        ];
        for l in lines {
            area.draw(&Text::new(l, (x, y), style::regular(fonts.note)))?;
            y += step;
        }
        let (bx, by) = area.get_base_pixel();
        let (w, _) = area.dim_in_pixel();
        Ok(LegendLayout {
            rect: Rect::new((bx, by), (bx + w as i32, by + y)),
            entries,
        })
    }
}

/// Shade of every other band.
const BAND: RGBColor = RGBColor(0xE4, 0xE4, 0xE4);

/// Opacity of the friendship edges (`--edges`).
const EDGE_ALPHA: f64 = 0.06;

/// Jump circles of the `k`-th of `n` replicates: black for one, else the
/// series colours.
fn ring_style(k: usize, n: usize) -> ShapeStyle {
    if n <= 1 {
        style::OI_BLACK.mix(0.7).stroke_width(1)
    } else {
        style::series_color(k).stroke_width(2)
    }
}

fn dot_size(fonts: &Fonts) -> u32 {
    (fonts.label * 0.32).max(2.0) as u32
}

impl Figure for EgoFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> DrawResult<DB> {
        let fonts = Fonts::for_size(root.dim_in_pixel());
        root.fill(&WHITE)?;
        style::draw_title(
            root,
            &format!(
                "Ego view of owner {}: who receives which answer",
                self.owner
            ),
            Some(&format!(
                "radius = distance from the owner; colour = {} (quantile scale)",
                self.measure.short()
            )),
            &fonts,
        )?;
        let body = root.margin(style::title_height(&fonts, true), 0, 0, 0);
        let (bw, bh) = body.dim_in_pixel();
        let side = bh.min(bw * 2 / 3);
        let (left, right) = body.split_horizontally(side);
        let (_, rh) = right.dim_in_pixel();
        let (bar, key) = right.split_vertically(rh * 55 / 100);
        let disc = self.draw_disc(&left, &fonts)?;
        self.draw_colorbar(&bar, &fonts)?;
        let key = self.draw_key(&key, &fonts)?;
        Ok(Layout {
            panels: vec![disc],
            legends: vec![key],
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(id: &str, d: f64) -> EgoRow {
        EgoRow {
            owner: None,
            replicate: 0,
            recipient: id.into(),
            distance: d,
            eps: 1.0,
            error_norm: 0.0,
            correct: None,
            values: Vec::new(),
        }
    }

    #[test]
    fn layout_puts_recipients_on_their_radius_deterministically() {
        let rows: Vec<EgoRow> = (0..30)
            .map(|i| row(&format!("n{i}"), (i % 3 + 1) as f64))
            .collect();
        let a = layout(&rows);
        let b = layout(&rows);
        assert_eq!(a, b);
        for (r, (x, y)) in rows.iter().zip(&a) {
            assert!(((x * x + y * y).sqrt() - r.distance).abs() < 1e-12);
        }
        // Ten per ring, evenly spread: no two closer than the chord of 2π/10.
        for i in 0..30 {
            for j in 0..i {
                if rows[i].distance == rows[j].distance {
                    let d = ((a[i].0 - a[j].0).powi(2) + (a[i].1 - a[j].1).powi(2)).sqrt();
                    let chord = 2.0 * rows[i].distance * (PI / 10.0).sin();
                    assert!(d > chord * 0.999, "{d} < {chord}");
                }
            }
        }
    }

    #[test]
    fn quantiles_rank_ties_together() {
        let v = [3.0, 1.0, 2.0, 2.0, 5.0];
        let mut s = v.to_vec();
        s.sort_by(f64::total_cmp);
        assert_eq!(quantiles(&v, &s), vec![0.75, 0.0, 0.25, 0.25, 1.0]);
    }
}
