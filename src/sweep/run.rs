//! The sweep engine: loads each graph once, prepares each distance once,
//! builds every point's plan and runs the points in parallel, handing each
//! point's rows to a [`PointSink`]; and the dry run's calibrated estimate.

use super::eta::{Eta, Work, work};
use super::grid::{Grid, Point};
use super::metrics::{gossip_rows, point_rows, utility_rows};
use super::rows::SweepRow;
use crate::collusion::DEFAULT_OWNERS;
use crate::control::Control;
use crate::distance::{DistanceKind, DistanceOptions, Distances};
use crate::error::{Error, Result};
use crate::graph::{Graph, GraphView, HeaderMode};
use crate::sim::{Plan, SimConfig};
use rayon::prelude::*;
use std::path::PathBuf;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

/// The metric columns after the grid keys.
pub const TAIL_COLUMNS: [&str; 7] = super::grid::OUTPUT_COLUMNS;

/// What one point will compute (`dry_run`).
#[derive(Clone, Debug, PartialEq)]
pub struct PointEstimate {
    /// Index in grid order.
    pub index: usize,
    /// Its key values (as [`Grid::columns`]).
    pub values: Vec<String>,
    /// Data owners simulated.
    pub owners: usize,
    /// Answers drawn: owners × other nodes × mechanisms (at most: only the
    /// reachable nodes get one).
    pub answers: u64,
    /// Collusion trials: owners × coalitions × mechanisms × trials.
    pub trials: u64,
    /// Estimated seconds on one thread.
    pub seconds: f64,
}

/// The estimate of a dry run.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Estimate {
    /// Every point.
    pub points: Vec<PointEstimate>,
    /// Threads the sweep would run on.
    pub threads: usize,
    /// Seconds to load the graphs and prepare the distances (measured).
    pub prepare_seconds: f64,
    /// Seconds the calibration took.
    pub calibration_seconds: f64,
    /// Estimated wall seconds of the sweep: preparation + Σ point seconds /
    /// threads.
    pub seconds: f64,
}

/// The graph a point loads: (graph, nodes, directed, header, view).
type GraphKey = (
    PathBuf,
    Option<PathBuf>,
    bool,
    HeaderMode,
    Option<GraphView>,
);

fn graph_key(c: &SimConfig) -> GraphKey {
    (
        c.graph.clone(),
        c.nodes.clone(),
        c.directed,
        c.header,
        c.view.clone(),
    )
}

/// The distinct graphs (with their views) of `points`, each loaded once, and
/// their keys in first-seen order.
fn load_graphs<'a>(points: impl Iterator<Item = &'a Point>) -> Result<(Vec<GraphKey>, Vec<Graph>)> {
    let mut gkeys: Vec<GraphKey> = Vec::new();
    for p in points {
        let k = graph_key(&p.config);
        if !gkeys.contains(&k) {
            gkeys.push(k);
        }
    }
    let graphs = gkeys
        .iter()
        .map(|(path, nodes, directed, header, view)| {
            // The configuration's own loading, with only these options.
            SimConfig {
                graph: path.clone(),
                nodes: nodes.clone(),
                directed: *directed,
                header: *header,
                view: view.clone(),
                ..SimConfig::default()
            }
            .load_graph()
        })
        .collect::<Result<_>>()?;
    Ok((gkeys, graphs))
}

/// The options that matter for `kind` (hop and weighted need none).
fn distance_key(kind: DistanceKind, o: &DistanceOptions) -> String {
    match kind {
        DistanceKind::Hop | DistanceKind::Weighted => String::new(),
        _ => serde_json::to_string(o).unwrap_or_default(),
    }
}

/// Owners a configuration simulates on a graph of `nodes` nodes.
fn owner_count(c: &SimConfig, nodes: usize) -> usize {
    match &c.owners {
        crate::sim::Owners::All => nodes,
        crate::sim::Owners::Count(k) => (*k).min(nodes),
        crate::sim::Owners::Ids(ids) => ids.len(),
    }
}

/// What [`distance_classes`] returns.
type DistanceClasses = (
    Vec<(usize, DistanceKind, String, DistanceOptions)>,
    Vec<usize>,
);

/// The distinct (graph, distance kind, options) of `points` — each is
/// prepared once — and each point's index among them.
fn distance_classes<'p>(
    gkeys: &[GraphKey],
    points: impl Iterator<Item = &'p Point>,
) -> DistanceClasses {
    let mut dkeys: Vec<(usize, DistanceKind, String, DistanceOptions)> = Vec::new();
    let mut point_dist = Vec::new();
    for p in points {
        let g = gkeys
            .iter()
            .position(|k| *k == graph_key(&p.config))
            .unwrap_or(0);
        let kind = p.config.distance;
        let dk = distance_key(kind, &p.config.distance_options);
        let i = match dkeys
            .iter()
            .position(|(gg, kk, s, _)| *gg == g && *kk == kind && *s == dk)
        {
            Some(i) => i,
            None => {
                dkeys.push((g, kind, dk, p.config.distance_options.clone()));
                dkeys.len() - 1
            }
        };
        point_dist.push(i);
    }
    (dkeys, point_dist)
}

/// A dry run's estimate (and the number of graphs loaded): loads the graphs
/// and prepares the distances (as the sweep would), then calibrates. Points that differ only in their seed cost the
/// same, so one point per class is timed, on one and on three owners (the
/// per-owner slope and the fixed cost); a point's estimate is fixed + slope
/// × owners, and the sweep's is the preparation plus the sum over points
/// divided by the threads. Nothing is written.
pub fn estimate(points: &[Point]) -> Result<(Estimate, usize)> {
    let t0 = Instant::now();
    let (gkeys, graphs) = load_graphs(points.iter())?;
    let (dkeys, point_dist) = distance_classes(&gkeys, points.iter());
    let distances: Vec<Distances<'_>> = dkeys
        .iter()
        .map(|(g, kind, _, o)| Distances::new(&graphs[*g], *kind, o))
        .collect::<Result<_>>()?;
    let prepare_seconds = t0.elapsed().as_secs_f64();
    let t_cal = Instant::now();
    // Cost classes: the configuration with its seed set to 0.
    let class_of = |p: &Point| -> String {
        let mut c = p.config.clone();
        c.seed = 0;
        c.owners = crate::sim::Owners::All;
        let co = p.collude.as_ref().map(|cp| {
            let o = &cp.options;
            let specs: Vec<String> = o.coalitions.iter().map(|c| c.label().to_string()).collect();
            format!("{specs:?}{:?}{}", o.estimators, o.trials)
        });
        format!("{}|{:?}", serde_json::to_string(&c).unwrap_or_default(), co)
    };
    let mut classes: Vec<(String, f64, f64)> = Vec::new();
    let mut estimates = Vec::with_capacity(points.len());
    for (p, &d) in points.iter().zip(&point_dist) {
        let dist = &distances[d];
        let nodes = dist.graph().n();
        let mut owners = owner_count(&p.config, nodes);
        if p.owners_default && nodes < DEFAULT_OWNERS {
            owners = nodes;
        }
        let class = class_of(p);
        let (fixed, slope) = match classes.iter().find(|c| c.0 == class) {
            Some(c) => (c.1, c.2),
            None => {
                let time = |k: usize| -> Result<f64> {
                    let mut c = p.config.clone();
                    c.owners = crate::sim::Owners::Count(k.min(nodes).max(1));
                    let plan = Plan::new(&c, dist.graph(), dist)?;
                    let t = Instant::now();
                    point_rows(&plan, p.collude.as_ref())?;
                    Ok(t.elapsed().as_secs_f64())
                };
                let t1 = time(1)?;
                let t3 = time(3)?;
                let slope = ((t3 - t1) / 2.0).max(t3 / 3.0 * 0.5);
                let fixed = (t1 - slope).max(0.0);
                classes.push((class, fixed, slope));
                (fixed, slope)
            }
        };
        let mechanisms = p.config.mechanism.mechanisms().len() as u64;
        let trials = p.collude.as_ref().map_or(0, |cp| {
            owners as u64
                * cp.options.coalitions.len() as u64
                * mechanisms
                * cp.options.trials as u64
        });
        estimates.push(PointEstimate {
            index: p.index,
            values: p.values.clone(),
            owners,
            answers: owners as u64 * nodes.saturating_sub(1) as u64 * mechanisms,
            trials,
            seconds: fixed + slope * owners as f64,
        });
    }
    let threads = rayon::current_num_threads().max(1);
    let total: f64 = estimates.iter().map(|e| e.seconds).sum();
    let estimate = Estimate {
        points: estimates,
        threads,
        prepare_seconds,
        calibration_seconds: t_cal.elapsed().as_secs_f64(),
        seconds: prepare_seconds + total / threads as f64,
    };
    Ok((estimate, graphs.len()))
}

/// Where a sweep's points go as they finish (the progress file and the CSV
/// of [`crate::io`], or memory).
pub trait PointSink: Sync {
    /// Every pending point's plan is built (a bad point has failed by now):
    /// the points are about to run.
    fn ready(&self) -> Result<()> {
        Ok(())
    }
    /// `point` finished in `seconds` with `rows` (called from the worker
    /// threads, in completion order).
    fn point(&self, point: &Point, rows: Vec<SweepRow>, seconds: f64) -> Result<()>;
}

/// What [`run_points`] prepared and ran.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RunStats {
    /// Graphs loaded.
    pub graphs_loaded: usize,
    /// Distance preparations, per kind (each (graph, kind, options) once).
    pub distances_prepared: Vec<(DistanceKind, usize)>,
}

/// Runs `pending` points of `grid`: loads each graph once, prepares each
/// (graph, distance kind, options) once and shares it across points, builds
/// every point's plan before any runs (`collude`'s default owner sample
/// becomes every node on a smaller graph, as there), then runs the points in
/// parallel on the current rayon pool, handing each one's rows to `sink` as
/// it finishes. `control` is checked before each point and told of the
/// points done; after `stop_after` points no new point starts (an
/// interruption, for tests).
pub fn run_points(
    grid: &Grid,
    pending: &[&Point],
    control: &Control,
    stop_after: Option<usize>,
    sink: &dyn PointSink,
) -> Result<RunStats> {
    control.phase("loading graphs");
    let (gkeys, graphs) = load_graphs(pending.iter().copied())?;
    let (dkeys, point_dist) = distance_classes(&gkeys, pending.iter().copied());
    control.phase("preparing distances");
    let distances: Vec<Distances<'_>> = dkeys
        .iter()
        .map(|(g, kind, _, o)| Distances::new(&graphs[*g], *kind, o))
        .collect::<Result<_>>()?;
    let mut prepared: Vec<(DistanceKind, usize)> = Vec::new();
    for (_, kind, _, _) in &dkeys {
        match prepared.iter_mut().find(|(k, _)| k == kind) {
            Some(e) => e.1 += 1,
            None => prepared.push((*kind, 1)),
        }
    }
    let configs: Vec<SimConfig> = pending
        .iter()
        .zip(&point_dist)
        .map(|(p, &d)| {
            let mut c = p.config.clone();
            if p.owners_default && distances[d].graph().n() < DEFAULT_OWNERS {
                c.owners = crate::sim::Owners::All;
            }
            c
        })
        .collect();
    control.phase("planning points");
    let plans: Vec<Plan<'_>> = pending
        .par_iter()
        .zip(point_dist.par_iter())
        .zip(configs.par_iter())
        .map(|((p, &d), c)| {
            let dist = &distances[d];
            Plan::new(c, dist.graph(), dist).map_err(|e| at_point(grid, p, e))
        })
        .collect::<Result<_>>()?;
    sink.ready()?;
    // The points' bar counts its ETA from here.
    control.phase("running points");
    let total_points = plans.len() as u64;
    let works: Vec<Work> = plans
        .iter()
        .zip(pending)
        .map(|(plan, p)| work(plan, p))
        .collect();
    let eta = Eta::new(&works, rayon::current_num_threads());
    let started = AtomicUsize::new(0);
    let finished = AtomicUsize::new(0);
    let limit = stop_after.unwrap_or(usize::MAX);
    pending
        .par_iter()
        .zip(plans.par_iter())
        .zip(works.par_iter())
        .try_for_each(|((p, plan), w)| -> Result<()> {
            if started.fetch_add(1, Ordering::SeqCst) >= limit {
                return Ok(());
            }
            control.check()?;
            let t = Instant::now();
            let rows = match (&p.utility, &p.gossip) {
                (Some(up), _) => utility_rows(plan.graph(), plan.distances(), up, control),
                (None, Some(gp)) => gossip_rows(plan.graph(), gp, control),
                (None, None) => point_rows(plan, p.collude.as_ref()),
            }
            .map_err(|e| at_point(grid, p, e))?;
            let seconds = t.elapsed().as_secs_f64();
            sink.point(p, rows, seconds)?;
            let done = finished.fetch_add(1, Ordering::SeqCst) as u64 + 1;
            match eta.finished(*w, seconds) {
                Some(left) => control.report_left("points", done, total_points, left),
                None => control.report("points", done, total_points),
            }
            Ok(())
        })?;
    Ok(RunStats {
        graphs_loaded: graphs.len(),
        distances_prepared: prepared,
    })
}

/// Names the point in a run-time error (plan or simulation): ` [sweep
/// point N: key=value …]` appended; nothing when the sweep has no axes (its
/// one point is the whole configuration).
pub(crate) fn at_point(grid: &Grid, p: &Point, e: Error) -> Error {
    if grid.axes.is_empty() {
        return e;
    }
    let here: Vec<String> = grid
        .axes
        .iter()
        .zip(&p.values)
        .map(|(a, v)| format!("{}={v}", a.key))
        .collect();
    let at = format!(" [sweep point {}: {}]", p.index, here.join(" "));
    match e {
        Error::Parameter {
            name,
            value,
            expected,
        } => Error::param(name, value, format!("{expected}{at}")),
        Error::Unsupported(m) => Error::Unsupported(format!("{m}{at}")),
        other => other,
    }
}
