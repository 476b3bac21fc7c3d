//! One gossip run in memory: the graph's W and λ₂, the number of steps, the
//! dense spectrum (timed apart), the accounting (8) per owner, the exact
//! loss (11) per observer, the coalitions, the utility replicates and the
//! side-by-side with diffusion — typed rows, nothing written.

use super::compare::{Matching, two_schools};
use super::config::{DEFAULT_OWNERS, GossipConfig};
use super::conversion::{gaussian_eps, local_level, mu_of};
use super::exact::{ExactLoss, ExactScratch, RANK_TOLERANCE, basis_bytes, exact_loss, max_columns};
use super::iteration::{Recursion, mixing_steps};
use super::metropolis::Metropolis;
use super::paper::{PaperAccounting, PaperScratch};
use super::rows::{
    CoalitionLossRow, PrivacyByDistanceRow, PrivacyRow, RankRow, Stats, TwoSchoolsRow,
};
use super::spectral_gap::{SpectralGap, spectral_gap};
use super::spectrum::Spectrum;
use crate::control::Control;
use crate::distance::{DistanceKind, DistanceOptions, Distances};
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::sim::{Owners, SimConfig};
use crate::utility::UtilityRow;
use crate::values::Values;
use rayon::prelude::*;
use serde::Serialize;
use std::collections::HashMap;
use std::time::Instant;

/// `summary.json` of a gossip run.
#[derive(Clone, Debug, Serialize)]
pub struct GossipSummary {
    /// The configuration (re-run with it).
    pub config: GossipConfig,
    /// Nodes.
    pub nodes: u64,
    /// Edges.
    pub edges: u64,
    /// λ₂ by Lanczos.
    pub lambda2: SpectralGap,
    /// Smallest eigenvalue of W (dense spectrum).
    pub lambda_min: f64,
    /// γ (1 for simple gossip).
    pub gamma: f64,
    /// T.
    pub steps: u64,
    /// Whether T came from the mixing rule (6).
    pub steps_from_rule: bool,
    /// Δ.
    pub sensitivity: f64,
    /// The values' public range.
    pub value_range: [f64; 2],
    /// The local level αΔ²/(2σ²): the cap (9) and the unit of Π.
    pub local_level: f64,
    /// ‖P_T‖_F² (memo (14); → 1).
    pub frobenius2: f64,
    /// Sources of (8).
    pub owners: u64,
    /// Observers of (11).
    pub observers: u64,
    /// How the columns are computed.
    pub accounting: &'static str,
    /// Tolerance of the rank decisions of (11).
    pub rank_tolerance: f64,
    /// Per observer: rank of its view and the margins of its rank decisions.
    pub ranks: Vec<RankRow>,
    /// The `utility.csv` row over all members.
    pub totals: Vec<UtilityRow>,
}

/// `timings.json` of a gossip run (the eigendecomposition timed apart).
#[derive(Clone, Debug, Default, Serialize)]
pub struct GossipTimings {
    /// Worker threads.
    pub threads: usize,
    /// Loading the graph (filled by the caller that loads it).
    pub load_s: f64,
    /// λ₂ by Lanczos.
    pub lambda2_s: f64,
    /// The dense eigendecomposition of W.
    pub eigen_s: f64,
    /// The message norms D_t from it.
    pub norms_s: f64,
    /// (8) for every owner.
    pub paper_s: f64,
    /// (11) for every observer.
    pub exact_s: f64,
    /// Coalitions.
    pub coalitions_s: f64,
    /// Utility replicates.
    pub utility_s: f64,
    /// The side-by-side.
    pub compare_s: f64,
    /// Figures (filled by the writer).
    pub plots_s: f64,
    /// Everything.
    pub total_s: f64,
}

/// Everything a run produces.
#[derive(Clone, Debug)]
pub struct GossipOutput {
    /// `privacy.csv`.
    pub privacy: Vec<PrivacyRow>,
    /// `privacy_by_distance.csv`.
    pub by_distance: Vec<PrivacyByDistanceRow>,
    /// `utility.csv`.
    pub utility: Vec<UtilityRow>,
    /// `coalition.csv` (empty without coalitions).
    pub coalitions: Vec<CoalitionLossRow>,
    /// `two_schools.csv`.
    pub two_schools: Vec<TwoSchoolsRow>,
    /// `summary.json`.
    pub summary: GossipSummary,
    /// `timings.json`.
    pub timings: GossipTimings,
}

fn resolve(owners: &Owners, graph: &Graph, seed: u64, name: &str) -> Result<Vec<u32>> {
    let owners = match owners {
        Owners::Count(k) if *k == DEFAULT_OWNERS && graph.n() <= DEFAULT_OWNERS => Owners::All,
        o => o.clone(),
    };
    let sim = SimConfig {
        owners,
        seed,
        ..SimConfig::default()
    };
    let mut v = crate::sim::plan::select_owners(&sim, graph).map_err(|e| match e {
        Error::Parameter {
            value, expected, ..
        } => Error::Parameter {
            name: name.into(),
            value,
            expected,
        },
        e => e,
    })?;
    v.sort_unstable();
    Ok(v)
}

/// The private values, checked against their public range before use: a
/// value outside is refused naming its owner, never the value.
fn secrets(config: &GossipConfig, graph: &Graph, lo: f64, hi: f64) -> Result<Vec<f64>> {
    let spec = match &config.values {
        crate::values::ValueSpec::Auto => crate::values::ValueSpec::Uniform { lo: 0.0, hi: 1.0 },
        s => s.clone(),
    };
    let path = graph
        .source()
        .map(|p| p.to_path_buf())
        .unwrap_or_else(|| config.graph.clone());
    let values = Values::resolve(&spec, graph, &path, 1, config.seed)?;
    let mut x = vec![0.0; graph.n()];
    let mut one = [0.0];
    for (v, xv) in x.iter_mut().enumerate() {
        values.value(v as u32, &mut one);
        if !(one[0] >= lo && one[0] <= hi) {
            return Err(Error::param(
                "values",
                format!("(owner {}: not shown)", graph.ids().label(v as u32)),
                format!(
                    "values within the public range [{lo}, {hi}] that the sensitivity refers to"
                ),
            ));
        }
        *xv = one[0];
    }
    Ok(x)
}

fn hop_rows(graph: &Graph, nodes: &[u32]) -> Result<HashMap<u32, Vec<u32>>> {
    let d = Distances::new(graph, DistanceKind::Hop, &DistanceOptions::default())?;
    let rows: Vec<(u32, Vec<u32>)> = nodes
        .par_iter()
        .map_init(
            || (d.workspace(), Vec::new()),
            |(ws, buf), &u| {
                d.from_owner(u, ws, buf);
                (u, buf.iter().map(|&x| x as u32).collect())
            },
        )
        .collect();
    Ok(rows.into_iter().collect())
}

/// Ordered pairs at each hop over the whole graph (bit-parallel searches).
fn pairs_by_hop(graph: &Graph) -> Result<Vec<u64>> {
    let d = Distances::new(graph, DistanceKind::Hop, &DistanceOptions::default())?;
    let all: Vec<u32> = (0..graph.n() as u32).collect();
    let mut hist: Vec<u64> = Vec::new();
    d.hop_levels(
        &all,
        &mut d.workspace(),
        |_| false,
        |_, lv| {
            let h = lv.hist();
            if hist.len() < h.len() {
                hist.resize(h.len(), 0);
            }
            for (a, b) in hist.iter_mut().zip(h) {
                *a += b;
            }
        },
    )?;
    Ok(hist)
}

/// The local level α·Δ²/(2σ²) (9), which bounds every privacy number of the
/// run: refused unless finite and > 0, before the run (it used to surface as
/// "privacy.csv could not be formatted").
fn checked_local_level(config: &GossipConfig, sensitivity: f64) -> Result<f64> {
    let local = local_level(config.alpha, sensitivity, config.sigma);
    if local.is_finite() && local > 0.0 {
        return Ok(local);
    }
    Err(Error::param(
        "sigma",
        config.sigma,
        format!(
            "a σ at which the local level α·Δ²/(2σ²) is a finite number > 0 (α = {}, Δ = {}: \
             it is {local})",
            config.alpha, sensitivity
        ),
    ))
}

/// Runs `config` on `graph` (its `graph` path is not read).
pub fn run_gossip(graph: &Graph, config: &GossipConfig, control: &Control) -> Result<GossipOutput> {
    let t_all = Instant::now();
    config.check()?;
    let mut timings = GossipTimings {
        threads: rayon::current_num_threads(),
        ..Default::default()
    };
    let w = Metropolis::new(graph)?;
    let n = w.n();
    let (lo, hi, sensitivity) = config.interval()?;
    let local = checked_local_level(config, sensitivity)?;
    let owners = resolve(&config.owners, graph, config.seed, "owners")?;
    let observers = match &config.observers {
        Some(o) => resolve(o, graph, config.seed, "observers")?,
        None => owners.clone(),
    };
    let x = secrets(config, graph, lo, hi)?;
    check_sizes(&w, config, &owners, &observers)?;
    control.check()?;

    let clock = Instant::now();
    let gap = spectral_gap(&w)?;
    timings.lambda2_s = clock.elapsed().as_secs_f64();
    let steps = match config.steps {
        Some(t) => t,
        None => mixing_steps(n, config.sigma, gap.lambda2, config.gossip)?,
    };
    let rec = Recursion::new(config.gossip, gap.lambda2);
    control.check()?;

    let clock = Instant::now();
    let spectrum = Spectrum::new(&w)?;
    timings.eigen_s = clock.elapsed().as_secs_f64();
    let clock = Instant::now();
    let norms = spectrum.message_norms(&rec, steps)?;
    timings.norms_s = clock.elapsed().as_secs_f64();
    control.check()?;

    let units = Units {
        local,
        sensitivity,
        sigma: config.sigma,
        delta: config.delta,
    };

    // (8) for every owner.
    let clock = Instant::now();
    let paper = PaperAccounting::new(&w, rec, steps, &norms);
    let done = std::sync::atomic::AtomicU64::new(0);
    let paper_rows: Vec<Vec<f64>> = owners
        .par_iter()
        .map_init(PaperScratch::default, |s, &u| {
            control.check()?;
            let mut out = Vec::new();
            paper.source(u, s, &mut out);
            let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            control.report("sources", k, owners.len() as u64);
            Ok(out)
        })
        .collect::<Result<_>>()?;
    timings.paper_s = clock.elapsed().as_secs_f64();

    // (11) for every observer.
    let clock = Instant::now();
    let exact = exact_for(&w, &observers, steps, control)?;
    timings.exact_s = clock.elapsed().as_secs_f64();

    // Rows: every owner to every member, every member to every observer.
    let hops = {
        let mut nodes: Vec<u32> = owners.iter().chain(&observers).copied().collect();
        nodes.sort_unstable();
        nodes.dedup();
        hop_rows(graph, &nodes)?
    };
    let pairs = Pairs {
        owners: &owners,
        paper: &paper_rows,
        observers: &observers,
        exact: &exact,
        hops: &hops,
    };
    let privacy = privacy_rows(graph, &pairs, units, control)?;
    let by_distance = by_distance(&privacy);

    // Coalitions.
    let run = Run {
        graph,
        w: &w,
        config,
        rec,
        steps,
        control,
    };
    let clock = Instant::now();
    let coalitions = coalition_rows(&run, &pairs, units)?;
    timings.coalitions_s = clock.elapsed().as_secs_f64();

    // Utility.
    let clock = Instant::now();
    let utility = utility_rows(&run, &x, &norms)?;
    timings.utility_s = clock.elapsed().as_secs_f64();

    // The side-by-side.
    let clock = Instant::now();
    let exact_by_hop = exact_by_hop(&observers, &hops, &exact);
    let total = utility.last().expect("the all-members row");
    let compare = two_schools(&Matching {
        exact_by_hop: &exact_by_hop,
        pairs_by_hop: &pairs_by_hop(graph)?,
        n,
        sensitivity,
        sigma: config.sigma,
        alpha: config.alpha,
        delta: config.delta,
        mse_gossip: (total.mse, total.mse_theory.unwrap_or(f64::NAN)),
    });
    timings.compare_s = clock.elapsed().as_secs_f64();

    let summary = GossipSummary {
        config: config.clone(),
        nodes: n as u64,
        edges: graph.m(),
        lambda2: gap,
        lambda_min: spectrum.values()[0],
        gamma: rec.gamma(),
        steps,
        steps_from_rule: config.steps.is_none(),
        sensitivity,
        value_range: [lo, hi],
        local_level: local,
        frobenius2: spectrum.frobenius2(&rec, steps),
        owners: owners.len() as u64,
        observers: observers.len() as u64,
        accounting: "paper: memo (8), t0 = 0, the P_t of the gossip run, capped at the local \
                     level (9); exact: memo (11) by block Lanczos (11b)",
        rank_tolerance: RANK_TOLERANCE,
        ranks: rank_rows(graph, &observers, &exact),
        totals: vec![total.clone()],
    };
    timings.total_s = t_all.elapsed().as_secs_f64();
    Ok(GossipOutput {
        privacy,
        by_distance,
        utility,
        coalitions,
        two_schools: compare,
        summary,
        timings,
    })
}

/// A pairwise privacy `p` (in units of the local level) as a Rényi
/// divergence `p·local` and as the (ε, δ) of the Gaussian mechanism.
#[derive(Clone, Copy)]
struct Units {
    local: f64,
    sensitivity: f64,
    sigma: f64,
    delta: f64,
}

impl Units {
    fn rdp(self, p: f64) -> f64 {
        p * self.local
    }

    fn eps(self, p: f64) -> f64 {
        gaussian_eps(mu_of(p, self.sensitivity, self.sigma), self.delta)
    }
}

/// What the privacy rows read: the owners' paper accounting (8), the
/// observers' exact one (11), hop rows of both.
struct Pairs<'a> {
    owners: &'a [u32],
    paper: &'a [Vec<f64>],
    observers: &'a [u32],
    exact: &'a [ExactLoss],
    hops: &'a HashMap<u32, Vec<u32>>,
}

/// One row per ordered pair (source, observer) where the source is an owner
/// (the paper's accounting, capped at the local level) or the observer is
/// one (the exact loss), in node order.
fn privacy_rows(
    graph: &Graph,
    pairs: &Pairs<'_>,
    units: Units,
    control: &Control,
) -> Result<Vec<PrivacyRow>> {
    let n = graph.n();
    let ids = graph.ids();
    let label = |v: u32| ids.label(v).to_string();
    let owner_at: HashMap<u32, usize> = pairs
        .owners
        .iter()
        .enumerate()
        .map(|(i, &u)| (u, i))
        .collect();
    let observer_at: HashMap<u32, usize> = pairs
        .observers
        .iter()
        .enumerate()
        .map(|(i, &v)| (v, i))
        .collect();
    let mut privacy = Vec::new();
    for u in 0..n as u32 {
        let as_owner = owner_at.get(&u).map(|&i| &pairs.paper[i]);
        for v in 0..n as u32 {
            if v == u {
                continue;
            }
            let ex = observer_at.get(&v).map(|&j| pairs.exact[j].pi[u as usize]);
            if as_owner.is_none() && ex.is_none() {
                continue;
            }
            let distance = match pairs.hops.get(&u) {
                Some(r) => r[v as usize],
                None => pairs.hops[&v][u as usize],
            };
            let pp = as_owner.map(|s| s[v as usize].min(1.0));
            privacy.push(PrivacyRow {
                source: label(u),
                observer: label(v),
                distance,
                rdp_paper: pp.map(|p| units.rdp(p)),
                rdp_exact: ex.map(|p| units.rdp(p)),
                eps_paper: pp.map(|p| units.eps(p)),
                eps_exact: ex.map(|p| units.eps(p)),
            });
        }
        control.check()?;
    }
    Ok(privacy)
}

/// Each observer's rank of its exact loss (11b) and the singular values
/// around the cut.
fn rank_rows(graph: &Graph, observers: &[u32], exact: &[ExactLoss]) -> Vec<RankRow> {
    observers
        .iter()
        .zip(exact)
        .map(|(&v, e)| RankRow {
            observer: graph.ids().label(v).to_string(),
            degree: graph.degree(v) as u64,
            rank: e.rank as u64,
            smallest_kept: e.smallest_kept,
            largest_dropped: e.largest_dropped,
        })
        .collect()
}

/// Refuses, before anything large is allocated, observers or owners whose
/// rows and bases do not fit the memory budget.
fn check_sizes(
    w: &Metropolis,
    config: &GossipConfig,
    owners: &[u32],
    observers: &[u32],
) -> Result<()> {
    let n = w.n();
    let t = crate::limits::pool_threads();
    let widest = observers
        .iter()
        .map(|&v| max_columns(w, &[v], config.steps.unwrap_or(1)))
        .max()
        .unwrap_or(0);
    crate::limits::check_memory(
        "observers",
        observers.len(),
        crate::limits::bytes_of(&[observers.len() as u64 + t, n as u64, 8])
            + t * basis_bytes(n, if config.steps.is_some() { widest } else { n }),
    )?;
    crate::limits::check_memory(
        "owners",
        owners.len(),
        crate::limits::bytes_of(&[owners.len() as u64 + observers.len() as u64, n as u64, 160]),
    )
}

/// Per hop distance, the exact loss (11) of every member towards every
/// observer at that distance (the side-by-side's gossip column).
fn exact_by_hop(
    observers: &[u32],
    hops: &HashMap<u32, Vec<u32>>,
    exact: &[ExactLoss],
) -> Vec<Vec<f64>> {
    let mut by_hop: Vec<Vec<f64>> = Vec::new();
    for (j, &v) in observers.iter().enumerate() {
        for (u, &d) in hops[&v].iter().enumerate() {
            if u as u32 == v {
                continue;
            }
            let d = d as usize;
            if by_hop.len() <= d {
                by_hop.resize(d + 1, Vec::new());
            }
            by_hop[d].push(exact[j].pi[u]);
        }
    }
    by_hop
}

/// (11) for each observer alone, in parallel (one basis per worker).
fn exact_for(
    w: &Metropolis,
    observers: &[u32],
    steps: u64,
    control: &Control,
) -> Result<Vec<ExactLoss>> {
    let done = std::sync::atomic::AtomicU64::new(0);
    observers
        .par_iter()
        .map_init(ExactScratch::default, |s, &v| {
            control.check()?;
            let e = exact_loss(w, &[v], steps, s);
            let k = done.fetch_add(1, std::sync::atomic::Ordering::Relaxed) + 1;
            control.report("observers", k, observers.len() as u64);
            Ok(e)
        })
        .collect()
}

type CoalitionResult = (u32, String, u64, u64, Option<f64>, Option<f64>);

/// Each owner's coalitions (`config.coalitions`): the exact loss (11) of
/// the coalition against the owner, and the largest of its members' own.
fn coalition_rows(run: &Run<'_>, pairs: &Pairs<'_>, units: Units) -> Result<Vec<CoalitionLossRow>> {
    let (graph, w, config, steps, control) = (run.graph, run.w, run.config, run.steps, run.control);
    let (owners, observers, exact, hops) = (pairs.owners, pairs.observers, pairs.exact, pairs.hops);
    if config.coalitions.is_empty() {
        return Ok(Vec::new());
    }
    for c in &config.coalitions {
        c.check(graph.ids())?;
    }
    // Members of every (owner, coalition), in order.
    let mut jobs = Vec::new();
    for &u in owners {
        let dist: Vec<f64> = hops[&u].iter().map(|&d| d as f64).collect();
        for c in &config.coalitions {
            let m = c.select(u, &dist, None, graph.ids(), config.seed)?;
            let members: Vec<u32> = m.members.iter().filter_map(|x| x.node).collect();
            jobs.push((u, c.label().to_string(), members));
        }
    }
    // Every member's own loss: from the observers' runs, else computed.
    let mut single: HashMap<u32, Vec<f64>> = observers
        .iter()
        .zip(exact)
        .map(|(&v, e)| (v, e.pi.clone()))
        .collect();
    let mut missing: Vec<u32> = jobs
        .iter()
        .flat_map(|j| j.2.iter().copied())
        .filter(|m| !single.contains_key(m))
        .collect();
    missing.sort_unstable();
    missing.dedup();
    for (v, e) in missing.iter().zip(exact_for(w, &missing, steps, control)?) {
        single.insert(*v, e.pi);
    }
    let raw: Vec<CoalitionResult> = jobs
        .par_iter()
        .map_init(ExactScratch::default, |s, (u, label, members)| {
            control.check()?;
            if members.is_empty() {
                return Ok((*u, label.clone(), 0, 0, None, None));
            }
            let e = exact_loss(w, members, steps, s);
            let max_member = members
                .iter()
                .map(|m| single[m][*u as usize])
                .fold(0.0f64, f64::max);
            Ok((
                *u,
                label.clone(),
                members.len() as u64,
                e.rank as u64,
                Some(e.pi[*u as usize]),
                Some(max_member),
            ))
        })
        .collect::<Result<_>>()?;
    Ok(raw
        .into_iter()
        .map(|(u, c, members, rank, pi, max_member)| CoalitionLossRow {
            source: graph.ids().label(u).to_string(),
            coalition: c,
            members,
            rank,
            rdp_coalition: pi.map(|p| units.rdp(p)),
            eps_coalition: pi.map(|p| units.eps(p)),
            rdp_max_member: max_member.map(|p| units.rdp(p)),
            eps_max_member: max_member.map(|p| units.eps(p)),
        })
        .collect())
}

/// One gossip run's fixed parts, for the phases after the spectrum.
struct Run<'a> {
    graph: &'a Graph,
    w: &'a Metropolis,
    config: &'a GossipConfig,
    rec: Recursion,
    steps: u64,
    control: &'a Control,
}

/// The utility rows: every replicate's errors (one seeded gossip run
/// each, in parallel) and the theory at `steps`, per degree bucket.
fn utility_rows(run: &Run<'_>, x: &[f64], norms: &[f64]) -> Result<Vec<UtilityRow>> {
    let (w, config, steps) = (run.w, run.config, run.steps);
    let n = w.n();
    let reps: Vec<Vec<f64>> = (0..config.replicates as u64)
        .into_par_iter()
        .map(|r| {
            run.control.check()?;
            Ok(super::utility::replicate_errors(
                w,
                &run.rec,
                steps,
                x,
                config.sigma,
                config.seed,
                r,
            ))
        })
        .collect::<Result<_>>()?;
    let norms_t = &norms[steps as usize * n..(steps as usize + 1) * n];
    let theory = super::utility::theory(w, &run.rec, steps, x, config.sigma, norms_t);
    let degrees: Vec<u64> = (0..n as u32).map(|v| run.graph.degree(v) as u64).collect();
    Ok(super::utility::rows(
        &format!("gossip-{}", config.gossip),
        &degrees,
        &reps,
        &theory,
    ))
}

/// Per hop: pairs and the statistics of each column.
fn by_distance(rows: &[PrivacyRow]) -> Vec<PrivacyByDistanceRow> {
    let top = rows.iter().map(|r| r.distance).max().unwrap_or(0) as usize;
    let mut cols: Vec<[Vec<f64>; 4]> = vec![Default::default(); top + 1];
    let mut pairs = vec![0u64; top + 1];
    for r in rows {
        let d = r.distance as usize;
        pairs[d] += 1;
        for (k, x) in [r.rdp_paper, r.rdp_exact, r.eps_paper, r.eps_exact]
            .into_iter()
            .enumerate()
        {
            if let Some(x) = x {
                cols[d][k].push(x);
            }
        }
    }
    cols.into_iter()
        .enumerate()
        .filter(|(d, _)| pairs[*d] > 0)
        .map(|(d, mut c)| PrivacyByDistanceRow {
            distance: d as u32,
            pairs: pairs[d],
            pairs_paper: c[0].len() as u64,
            pairs_exact: c[1].len() as u64,
            rdp_paper: Stats::of(&mut c[0]),
            rdp_exact: Stats::of(&mut c[1]),
            eps_paper: Stats::of(&mut c[2]),
            eps_exact: Stats::of(&mut c[3]),
        })
        .collect()
}
