//! The batch loop of [`Evolve::run`]: batch 0 (or the replay of a resumed
//! store), then one transaction per batch of events.

use super::events::read_events;
use super::graph::{Edges, graph_of};
use super::pairs::{
    Ctx, Delta, OwnerState, ReleaseRow, ReleaseScratch, Totals, advance, advance_changed, release,
    rounding_sq, skipped_pairs,
};
use super::relax::{Added, Relax, relax_hop};
use super::{Evolve, EvolveOutput, Timings};
use crate::distance::{DistanceKind, DistanceOptions, Distances};
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::graph::{Graph, LoadOptions, NodeIds};
use crate::process::discrete::DiscreteNoise;
use crate::sim::SimConfig;
use crate::store::{
    BatchTotals, EdgeEvent, Levels, NOISE_DISCRETE, NOISE_LAPLACE, OwnerPath, Store, StoreConfig,
    TimelineRow,
};
use crate::values::Values;
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::time::Instant;

/// START with `nodes`, as the run reads it.
pub(super) fn load_start(ev: &Evolve) -> Result<Graph> {
    Graph::load_with(
        &ev.graph,
        &LoadOptions {
            nodes_file: ev.nodes.clone(),
            header: ev.header,
            ..LoadOptions::default()
        },
    )
}

/// The run on START `g0` (loaded by [`load_start`], after [`check`]).
pub(super) fn run(ev: &mut Evolve, g0: &Graph) -> Result<EvolveOutput> {
    let ids = g0.ids().clone();
    let start: Edges = g0
        .edges()
        .map(|(u, v, w)| ((u.min(v), u.max(v)), w))
        .collect();
    let events = read_events(&ev.events, &ids, &start)?;
    let batches = events.len().div_ceil(ev.batch) as u64;
    let owners = {
        let sc = SimConfig {
            owners: ev.owners.clone(),
            seed: ev.seed,
            ..SimConfig::default()
        };
        let mut o = crate::sim::plan::select_owners(&sc, g0)?;
        o.sort_unstable();
        o
    };
    let (discrete, values, table) = secrets(ev, g0, &owners)?;
    let requested = requested(ev, discrete.is_some(), values.spec().to_string());
    // What this run may remove if it fails before its first commit: only
    // files it created.
    let existed: Vec<bool> = ["", "-wal", "-shm"]
        .iter()
        .map(|ext| {
            crate::store::sidecar(&ev.store, ext)
                .symlink_metadata()
                .is_ok()
        })
        .collect();
    let mut store = open_store(ev)?;
    let t0 = Instant::now();
    let mut timings = Timings::default();
    let resumed = store.is_initialised();
    ev.control.phase(if resumed {
        "reading the store"
    } else {
        "batch 0: every reachable pair"
    });
    let (mut states, mut totals, mut cur, config, last) = if resumed {
        let config = store.config()?.clone();
        check_same(&store, &config, &requested, &ids, &start, &events)?;
        let last = store.last_batch()?.unwrap_or(0);
        let (states, totals, cur) =
            match super::resume::rebuild(&mut store, &config, &ids, &owners, last)? {
                Some(state) => state,
                None => {
                    timings.full_replay = true;
                    replay(&mut store, &config, &ids, &owners, last)?
                }
            };
        (states, totals, cur, config, last)
    } else {
        match batch_zero(&mut store, requested, &ids, &table, &start, &owners) {
            Ok((config, states, totals)) => (states, totals, start.clone(), config, 0),
            Err(e) => {
                // Nothing was committed: leave no empty store behind (but
                // never remove a file that was there before the run).
                let created: Vec<(&str, bool)> = ["", "-wal", "-shm"]
                    .into_iter()
                    .zip(existed.iter().map(|was| !was))
                    .collect();
                store.remove_created(&created);
                return Err(e);
            }
        }
    };
    timings.batch0 = t0.elapsed().as_secs_f64();
    if let Some(f) = ev.on_batch.as_mut() {
        f(&store.timeline()?)?;
    }
    let levels = Levels::of(&config)?;
    let ctx = Ctx::of(&levels, &config);
    if resumed {
        // Pairs out of range are not stored: counted on the current graph.
        let counts = states
            .par_iter()
            .map(|st| skipped_pairs(&ctx, st))
            .collect::<Result<Vec<u64>>>()?;
        totals.skipped = counts.iter().sum();
    }
    let t1 = Instant::now();
    let started_at = last + 1;
    ev.control.phase("applying batches");
    let env = Env {
        ids: &ids,
        distance: config.distance,
        full_recompute: ev.full_recompute,
        ctx: &ctx,
    };
    let mut work = Work {
        cur: &mut cur,
        states: &mut states,
        totals: &mut totals,
        timings: &mut timings,
    };
    let written = apply_batches(
        ev,
        &env,
        &events,
        started_at..=batches,
        &mut store,
        &mut work,
    )?;
    timings.store += written;
    if batches >= started_at {
        let n = batches + 1 - started_at;
        ev.control.report("batches", n, n);
    }
    timings.batches = t1.elapsed().as_secs_f64();
    let timeline = store.timeline()?;
    let implied = timeline.first().map_or(0, |r| r.answers);
    let explicit = store.explicit_count()?;
    let _ = store.checkpoint();
    Ok(EvolveOutput {
        timeline,
        config,
        batches,
        started_at: started_at.min(batches + 1),
        implied,
        explicit,
        store_bytes: store.size_bytes(),
        seconds: timings,
    })
}

/// The noise (the discrete chain when asked, Δ = 1), the values and every
/// node's value: refused before anything is drawn when the norm or the
/// values' public range does not fit the chain, or an owner's secret does
/// not round onto its grid.
fn secrets(
    ev: &Evolve,
    g0: &Graph,
    owners: &[u32],
) -> Result<(Option<DiscreteNoise>, Values, Vec<f64>)> {
    // The discrete chain (Δ = 1): refused before anything is drawn when the
    // norm or the values' public range does not fit it.
    let discrete = ev.noise.discrete(1.0, ev.dim, ev.norm)?;
    if let Some(noise) = &discrete {
        crate::sim::discrete_bound::check_public_range(&ev.values, noise)?;
    }
    let values = Values::resolve(&ev.values, g0, &ev.graph, ev.dim, ev.seed)?;
    if let Some(noise) = &discrete {
        // `auto` resolved by public facts only: its range is public too.
        crate::sim::discrete_bound::check_public_range(values.spec(), noise)?;
    }
    let mut table = vec![0.0; g0.ids().len() * ev.dim];
    for (i, u) in table.chunks_exact_mut(ev.dim).enumerate() {
        values.value(i as u32, u);
    }
    if let Some(noise) = &discrete {
        let mut uhat = vec![0i64; ev.dim];
        for &o in owners {
            let u = &table[o as usize * ev.dim..(o as usize + 1) * ev.dim];
            crate::sim::discrete_bound::round_secret(
                noise,
                u,
                &mut uhat,
                crate::process::family::Whose::Owner(&g0.ids().label(o).to_string()),
            )?;
        }
    }
    Ok((discrete, values, table))
}

/// Refuses, before anything is read, what `evolve` cannot run: batches of
/// no event, a sketched distance (redrawn per graph), a clamped map, no top
/// for continuous distances.
pub(super) fn check(ev: &Evolve) -> Result<()> {
    if ev.batch == 0 {
        return Err(Error::param(
            "batch",
            0,
            "an integer ≥ 1 (events per batch)",
        ));
    }
    crate::process::check_dim("dim", ev.dim)?;
    if ev.distance == DistanceKind::ResistanceApprox {
        return Err(Error::param(
            "distance",
            "resistance-approx",
            "hop, weighted or resistance (a sketch is redrawn per graph: its distances \
             would move with every batch)",
        ));
    }
    if ev.eps.eps_min().is_some() || ev.eps.eps_max().is_some() {
        return Err(Error::param(
            "eps",
            &ev.eps,
            "a map without clamps (the upper clamp is `eps_max`, the paths' top)",
        ));
    }
    ev.owners.check()?;
    if ev.eps_max.is_none() && ev.distance != DistanceKind::Hop {
        return Err(Error::param(
            "eps_max",
            "none",
            format!(
                "a value with {} distances: it is the paths' top, fixed at creation, and the \
                 smallest distance can change as the graph does",
                ev.distance
            ),
        ));
    }
    Ok(())
}

/// The store configuration this run asks for (`values`: the resolved
/// values' spec; `discrete`: the exact chain's parameters recorded).
fn requested(ev: &Evolve, discrete: bool, values: String) -> StoreConfig {
    StoreConfig {
        seed: ev.seed,
        eps_requested: ev.eps.to_string(),
        eps: String::new(),
        eps_max: ev.eps_max,
        top: f64::NAN,
        distance: ev.distance,
        dim: ev.dim,
        norm: ev.norm,
        noise: if discrete {
            NOISE_DISCRETE
        } else {
            NOISE_LAPLACE
        }
        .into(),
        granularity: discrete.then_some(ev.noise.granularity),
        levels_per_doubling: discrete.then_some(ev.noise.levels_per_doubling),
        rng: discrete.then_some(ev.noise.rng),
        values_requested: ev.values.to_string(),
        values,
        owners: ev.owners.to_string(),
        batch: ev.batch,
        graph: ev.graph.display().to_string(),
        nodes: ev.nodes.as_ref().map(|p| p.display().to_string()),
        events: ev.events.display().to_string(),
    }
}

/// What the batches advance: the current edges, every owner's state, the
/// totals and the timings.
struct Work<'a> {
    cur: &'a mut Edges,
    states: &'a mut Vec<OwnerState>,
    totals: &'a mut Totals,
    timings: &'a mut Timings,
}

/// Batches `span` (up to `stop_after`), each computed here and committed by
/// a writer thread; returns the seconds spent committing (the writer's
/// error first, then the computation's).
fn apply_batches(
    ev: &mut Evolve,
    env: &Env<'_>,
    events: &[EdgeEvent],
    span: std::ops::RangeInclusive<u64>,
    store: &mut Store,
    work: &mut Work<'_>,
) -> Result<f64> {
    let (started_at, batches) = (*span.start(), *span.end());
    // Batch b is committed by the writer while the next batches are
    // computed (issue 37): through a channel of `AHEAD` batches, so the
    // computation runs at most `AHEAD` + 1 batches ahead of the commit under
    // way — a batch whose releases take long to compute (one edge that
    // brings a million pairs closer) is computed while earlier batches are
    // written, not while the writer waits. The commits stay one transaction
    // per batch, in order — what a kill leaves is what it left before — and
    // once the computation fails (or is cancelled) the writer takes no
    // further batch after the one under way.
    let (tx, rx) = std::sync::mpsc::sync_channel::<Commit>(AHEAD);
    let failed = std::sync::atomic::AtomicBool::new(false);
    let on_batch = &mut ev.on_batch;
    let (computed, written) = std::thread::scope(|scope| {
        let writer = scope.spawn(|| write_all(store, on_batch, rx, &failed));
        let computed = (|| -> Result<()> {
            for b in span.clone() {
                if ev.stop_after.is_some_and(|s| b > s) {
                    break;
                }
                ev.control.check()?;
                if b > started_at {
                    ev.control
                        .report("batches", b - started_at, batches + 1 - started_at);
                }
                let lo = (b as usize - 1) * ev.batch;
                let evs = &events[lo..(lo + ev.batch).min(events.len())];
                let commit = compute_batch(
                    env,
                    b,
                    evs,
                    work.cur,
                    work.states,
                    work.totals,
                    work.timings,
                )?;
                if tx.send(commit).is_err() {
                    // The writer failed: its error is returned below.
                    break;
                }
            }
            Ok(())
        })();
        if computed.is_err() {
            failed.store(true, std::sync::atomic::Ordering::SeqCst);
        }
        drop(tx);
        let written = writer
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        (computed, written)
    });
    let written = written?;
    computed?;
    Ok(written)
}

/// What every batch after 0 reads besides its events and the state.
struct Env<'a> {
    ids: &'a NodeIds,
    distance: DistanceKind,
    full_recompute: bool,
    ctx: &'a Ctx<'a>,
}

/// Batches computed ahead of the commit under way, besides the one the
/// computation is sending (a few batches' releases in memory: batch 86 of
/// the facebook example holds a million).
const AHEAD: usize = 4;

/// What batch `batch` commits, handed from the batch loop to the writer.
struct Commit {
    batch: u64,
    events: Vec<EdgeEvent>,
    /// The paths extended: (owner, path, segments already in the store).
    paths: Vec<(u32, OwnerPath, usize)>,
    /// The explicit releases, by owner in owner order.
    released: Vec<(u32, Vec<ReleaseRow>)>,
    row: TimelineRow,
    totals: BatchTotals,
}

impl Commit {
    /// The batch as one transaction.
    fn write(&self, store: &mut Store) -> Result<()> {
        let b = self.batch;
        store.write_batch(|w| {
            w.insert_events(b, &self.events)?;
            for (owner, path, stored) in &self.paths {
                w.save_path(*owner, path, *stored)?;
            }
            w.insert_answers(
                b,
                self.released.iter().flat_map(|(owner, rows)| {
                    rows.iter()
                        .map(|(r, e, d, noise)| (*owner, *r, *e, *d, noise.as_slice()))
                }),
            )?;
            w.insert_timeline(&self.row)?;
            w.insert_totals(b, &self.totals)
        })
    }
}

/// The writer: commits the batches received, in order, each followed by
/// `on_batch` with the committed timeline; returns the seconds spent
/// committing. Stops at the first error (the batch loop then stops too),
/// and before the next batch once `failed` (the batch loop's error).
fn write_all(
    store: &mut Store,
    on_batch: &mut Option<super::OnBatch>,
    rx: std::sync::mpsc::Receiver<Commit>,
    failed: &std::sync::atomic::AtomicBool,
) -> Result<f64> {
    let mut secs = 0.0;
    for c in rx {
        if failed.load(std::sync::atomic::Ordering::SeqCst) {
            break;
        }
        let t = Instant::now();
        c.write(store)?;
        secs += t.elapsed().as_secs_f64();
        if let Some(f) = on_batch.as_mut() {
            f(&store.timeline()?)?;
        }
    }
    Ok(secs)
}

/// Batch `b`: its events applied to `cur`, the owners they can affect
/// brought to their new distances (searched, or relaxed), their releases
/// summed into `totals` in owner order; returns what the store commits
/// (the paths it extends marked stored).
fn compute_batch(
    env: &Env<'_>,
    b: u64,
    evs: &[EdgeEvent],
    cur: &mut Edges,
    states: &mut [OwnerState],
    totals: &mut Totals,
    timings: &mut Timings,
) -> Result<Commit> {
    let td = Instant::now();
    let ctx = env.ctx;
    let changes = apply(cur, evs);
    let update: Vec<Update> = if changes.is_empty() {
        vec![Update::None; states.len()]
    } else if env.full_recompute || env.distance == DistanceKind::Resistance {
        vec![Update::Search; states.len()]
    } else {
        states
            .par_iter()
            .map(|st| update_of(st, &changes, env.distance))
            .collect()
    };
    let g = graph_of(env.ids, cur, env.distance)?;
    let dist = Distances::new(&g, env.distance, &DistanceOptions::default())?;
    let (mut search, mut lower) = (Vec::new(), Vec::new());
    for (st, u) in states.iter_mut().zip(&update) {
        match u {
            Update::None => {}
            Update::Search => search.push(st),
            Update::Relax => lower.push(st),
        }
    }
    timings.owners_recomputed += (search.len() + lower.len()) as u64;
    timings.owners_relaxed += lower.len() as u64;
    let mut outs = recompute(&dist, &mut search, ctx, b, true)?;
    if !lower.is_empty() {
        let added: Vec<Added> = changes
            .iter()
            .filter(|c| c.2.is_some())
            .map(|c| c.0)
            .collect();
        outs.extend(relax_all(&g, &added, &mut lower, ctx, b)?);
        // Owner order, as the states: the totals are summed in it.
        outs.sort_by_key(|o| o.0);
    }
    timings.distances += td.elapsed().as_secs_f64();
    let mut all = Delta::default();
    let mut released: Vec<(u32, Vec<ReleaseRow>)> = Vec::new();
    for (owner, d, rows) in outs {
        totals.add(&d);
        all.add(&d);
        if !rows.is_empty() {
            released.push((owner, rows));
        }
    }
    let mut paths = Vec::new();
    for st in states.iter_mut().filter(|s| s.path_changed()) {
        paths.push((st.owner, st.path.clone(), st.stored));
        st.mark_stored();
    }
    Ok(Commit {
        batch: b,
        events: evs.to_vec(),
        paths,
        released,
        row: totals.row(b, evs.last().map(|e| e.time), evs.len() as u64, &all),
        totals: totals.snapshot(),
    })
}

/// A new store, or the store to continue (`resume`): a file holding no
/// committed batch is started afresh either way.
fn open_store(ev: &Evolve) -> Result<Store> {
    match Store::create(&ev.store) {
        Ok(s) => Ok(s),
        Err(Error::OutputExists { path, .. }) if ev.resume => {
            let _ = path;
            Store::open_writer(&ev.store)
        }
        Err(Error::OutputExists { path, .. }) => Err(Error::OutputExists {
            path,
            message: "already exists (continue it with `resume`, or choose another `store`)".into(),
            another_run: false,
        }),
        Err(e) => Err(e),
    }
}

/// The net changes of a batch: `(key, before, after)` for every edge whose
/// presence or length differs after the events.
type Change = ((u32, u32), Option<f64>, Option<f64>);

fn apply(cur: &mut Edges, evs: &[EdgeEvent]) -> Vec<Change> {
    let mut before: BTreeMap<(u32, u32), Option<f64>> = BTreeMap::new();
    for e in evs {
        let key = (e.u.min(e.v), e.u.max(e.v));
        before.entry(key).or_insert_with(|| cur.get(&key).copied());
        if e.add {
            cur.insert(key, e.w);
        } else {
            cur.remove(&key);
        }
    }
    before
        .into_iter()
        .filter_map(|(k, b)| {
            let a = cur.get(&k).copied();
            (a != b).then_some((k, b, a))
        })
        .collect()
}

/// How a batch's changes reach one owner's distances.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Update {
    /// No distance from the owner can move.
    None,
    /// Only added edges shorten some (hop distances): lowered in place by
    /// [`relax_hop`].
    Relax,
    /// A removed edge was tight (or the distances are weighted): a new search.
    Search,
}

/// Whether the changes can move any distance from `st.owner` (see the
/// module docs): a removed edge that was tight, an added one that shortens;
/// on hop distances, a batch that only shortens is a relaxation.
fn update_of(st: &OwnerState, changes: &[Change], kind: DistanceKind) -> Update {
    let len = |w: f64| if kind == DistanceKind::Hop { 1.0 } else { w };
    let (mut tight, mut shorter) = (false, false);
    for &((u, v), before, after) in changes {
        let (du, dv) = (st.dist[u as usize], st.dist[v as usize]);
        tight |= before.is_some_and(|w| {
            let w = len(w);
            (du.is_finite() && du + w == dv) || (dv.is_finite() && dv + w == du)
        });
        shorter |= after.is_some_and(|w| {
            let w = len(w);
            du + w < dv || dv + w < du
        });
    }
    match (tight, shorter) {
        (true, _) => Update::Search,
        (false, true) if kind == DistanceKind::Hop => Update::Relax,
        (false, true) => Update::Search,
        (false, false) => Update::None,
    }
}

/// The owners of `sel` lowered by [`relax_hop`] on `g` (the batch's graph)
/// after the edges `added`, in parallel, each advanced over the recipients
/// that came closer. Results in the owners' order.
fn relax_all(
    g: &Graph,
    added: &[Added],
    sel: &mut [&mut OwnerState],
    ctx: &Ctx<'_>,
    batch: u64,
) -> Result<Vec<(u32, Delta, Vec<ReleaseRow>)>> {
    sel.par_iter_mut()
        .map_init(Relax::default, |r, st| {
            let mut rows = Vec::new();
            let d = if relax_hop(g, added, &mut st.dist, r) {
                advance_changed(ctx, st, &r.changed, batch, true, &mut rows)?
            } else {
                Delta::default()
            };
            Ok((st.owner, d, rows))
        })
        .collect()
}

/// Distances of the selected owners on `dist`'s graph, 64 per bit-parallel
/// search, in parallel; each owner advanced to its new row. Results in the
/// owners' order.
fn recompute(
    dist: &Distances<'_>,
    sel: &mut [&mut OwnerState],
    ctx: &Ctx<'_>,
    batch: u64,
    record: bool,
) -> Result<Vec<(u32, Delta, Vec<ReleaseRow>)>> {
    let parts: Vec<Vec<(u32, Delta, Vec<ReleaseRow>)>> = sel
        .par_chunks_mut(crate::distance::BATCH)
        .map_init(
            || dist.workspace(),
            |ws, chunk| {
                let owners: Vec<u32> = chunk.iter().map(|s| s.owner).collect();
                let mut outs = Vec::with_capacity(chunk.len());
                let mut err = None;
                dist.batch(&owners, ws, |i, row| {
                    if err.is_some() {
                        return;
                    }
                    let mut rows = Vec::new();
                    match advance(ctx, chunk[i], row, batch, record, &mut rows) {
                        Ok(d) => outs.push((owners[i], d, rows)),
                        Err(e) => err = Some(e),
                    }
                });
                match err {
                    Some(e) => Err(e),
                    None => Ok(outs),
                }
            },
        )
        .collect::<Result<_>>()?;
    Ok(parts.into_iter().flatten().collect())
}

/// Batch 0 of a new store: the map resolved, every owner's path created and
/// extended to its recipients' levels, all committed in one transaction.
fn batch_zero(
    store: &mut Store,
    mut config: StoreConfig,
    ids: &NodeIds,
    table: &[f64],
    start: &Edges,
    owners: &[u32],
) -> Result<(StoreConfig, Vec<OwnerState>, Totals)> {
    let g = graph_of(ids, start, config.distance)?;
    let dist = Distances::new(&g, config.distance, &DistanceOptions::default())?;
    let requested: EpsilonMap = config.eps_requested.parse()?;
    let map = if requested.needs_resolution() {
        let (lo, hi) = dist.observed_range(owners);
        if !lo.is_finite() {
            return Err(Error::param(
                "eps",
                &requested,
                "a map of its own (exp:, recip:, power: or table:) when no owner reaches any \
                 node of START (an edgeless START, say): a range: map is resolved on START's \
                 distances",
            ));
        }
        let (a, b) = requested
            .resolve(lo, hi)?
            .exp_params()
            .ok_or_else(|| Error::Numerical("resolving the range map".into()))?;
        EpsilonMap::exp(a, b)?
    } else {
        requested
    };
    config.eps = map.to_string();
    let map: EpsilonMap = config.eps.parse()?;
    config.top = match (config.eps_max, config.distance) {
        (Some(t), _) => t,
        (None, DistanceKind::Hop) => map.eps(1.0),
        (None, kind) => {
            return Err(Error::param(
                "eps_max",
                "none",
                format!(
                    "a value with {kind} distances: it is the paths' top, fixed at creation, \
                     and the smallest distance can change as the graph does"
                ),
            ));
        }
    };
    let levels = Levels::of(&config)?;
    if levels.discrete().is_none() {
        // f64 paths (Δ = 1): a value the noise at the top cannot hide is
        // refused, as every engine refuses it.
        let fam = crate::process::family::Laplace::new(config.dim, config.norm, 1.0)?;
        for &o in owners {
            let at = o as usize * config.dim..(o as usize + 1) * config.dim;
            let label = ids.label(o).to_string();
            crate::process::family::check_resolved(
                &fam,
                &table[at],
                [config.top],
                crate::process::family::Whose::Owner(&label),
            )?;
        }
    }
    let nodes = ids.len();
    let n = config.dim;
    let mut states: Vec<OwnerState> = owners
        .iter()
        .map(|&o| {
            let p = levels.new_path(&config, o)?;
            let u = table[o as usize * n..(o as usize + 1) * n].to_vec();
            let round_sq = rounding_sq(levels.discrete(), &u)?;
            Ok(OwnerState::new(o, nodes, p, u, round_sq))
        })
        .collect::<Result<_>>()?;
    let ctx = Ctx::of(&levels, &config);
    let mut sel: Vec<&mut OwnerState> = states.iter_mut().collect();
    let outs = recompute(&dist, &mut sel, &ctx, 0, false)?;
    let mut totals = Totals::default();
    let mut all = Delta::default();
    for (_, d, _) in &outs {
        totals.add(d);
        all.add(d);
    }
    all.closer = 0;
    all.farther = 0;
    let row = totals.row(0, None, 0, &all);
    let edges: Vec<(u32, u32, f64)> = start.iter().map(|(&(u, v), &w)| (u, v, w)).collect();
    store.write_batch(|w| {
        w.create(&config, ids, table, &edges)?;
        for st in &states {
            w.save_path(st.owner, &st.path, 0)?;
        }
        w.insert_timeline(&row)?;
        w.insert_totals(0, &totals.snapshot())
    })?;
    for st in &mut states {
        st.mark_stored();
    }
    Ok((config, states, totals))
}

/// A store is continued only with its own configuration, START and events.
fn check_same(
    store: &Store,
    stored: &StoreConfig,
    given: &StoreConfig,
    ids: &NodeIds,
    start: &Edges,
    events: &[EdgeEvent],
) -> Result<()> {
    let p = store.path().display();
    if let Some((name, s, g)) = stored.difference(given) {
        return Err(Error::Unsupported(format!(
            "{p} was made with {name} = {s}, not {g}: a store continues only with its own \
             configuration"
        )));
    }
    let stored_edges = store.start_edges()?;
    let same_start = stored_edges.len() == start.len()
        && stored_edges
            .iter()
            .zip(start)
            .all(|(&(u, v, w), (&k, &w2))| (u, v) == k && w == w2);
    let mut s = Store::open(store.path())?;
    let stored_ids = s.node_ids()?;
    let same_ids = stored_ids.len() == ids.len()
        && (0..ids.len() as u32)
            .all(|i| stored_ids.label(i).to_string() == ids.label(i).to_string());
    if !same_start || !same_ids {
        return Err(Error::Unsupported(format!(
            "{p}: the start graph (or `nodes`) differs from the one the store was made from"
        )));
    }
    let last = store.last_batch()?.unwrap_or(0);
    let applied = store.events(last)?;
    let batch = stored.batch;
    for (i, (b, e)) in applied.iter().enumerate() {
        let same = events.get(i).is_some_and(|f| {
            *b == (i / batch) as u64 + 1
                && (f.u, f.v, f.add, f.w, f.time.to_bits())
                    == (e.u, e.v, e.add, e.w, e.time.to_bits())
        });
        if !same {
            return Err(Error::Unsupported(format!(
                "{p}: the events file differs from the events the store applied (event {} of \
                 the store, line {})",
                i + 1,
                e.line
            )));
        }
    }
    Ok(())
}

/// Rebuilds a resumed store's state after batch `last`: batch 0 recomputed
/// from START, each later batch's explicit releases applied in the order the
/// live run applied them (so the totals are the same bits), then every
/// owner's distances on the current graph.
fn replay(
    store: &mut Store,
    config: &StoreConfig,
    ids: &NodeIds,
    owners: &[u32],
    last: u64,
) -> Result<(Vec<OwnerState>, Totals, Edges)> {
    let (levels, mut states) = super::resume::stored_states(store, config, ids.len(), owners)?;
    let ctx = Ctx::of(&levels, config);
    for st in &mut states {
        st.mark_stored();
    }
    let start = store.edges_at(0)?;
    let g = graph_of(ids, &start, config.distance)?;
    let dist = Distances::new(&g, config.distance, &DistanceOptions::default())?;
    let mut totals = Totals::default();
    {
        let mut sel: Vec<&mut OwnerState> = states.iter_mut().collect();
        for (_, d, _) in recompute(&dist, &mut sel, &ctx, 0, false)? {
            totals.add(&d);
        }
    }
    let pos: BTreeMap<u32, usize> = owners.iter().enumerate().map(|(i, &o)| (o, i)).collect();
    let mut scratch = ReleaseScratch::new(config.dim);
    let rows = store.answers_upto(last)?;
    let mut i = 0;
    while i < rows.len() {
        let (b, owner) = (rows[i].0, rows[i].1);
        let st = &mut states[*pos.get(&owner).ok_or_else(|| {
            Error::input(store.path(), 0, "corrupt store: an answer of a non-owner")
        })?];
        let mut d = Delta::default();
        while i < rows.len() && (rows[i].0, rows[i].1) == (b, owner) {
            let (_, _, r, e, dist) = rows[i];
            let mut rng = ctx.resample_rng(owner, r, b);
            release(&ctx, st, r, e, &mut d, &mut scratch, &mut rng)?;
            st.dist[r as usize] = dist;
            i += 1;
        }
        totals.add(&d);
    }
    let cur = store.edges_at(last)?;
    let g = graph_of(ids, &cur, config.distance)?;
    let dist = Distances::new(&g, config.distance, &DistanceOptions::default())?;
    let mut sel: Vec<&mut OwnerState> = states.iter_mut().collect();
    // Every pair at its current level was released at or above it.
    for (owner, d, _) in recompute(&dist, &mut sel, &ctx, last, false)? {
        if d.answers > 0 {
            return Err(Error::input(
                store.path(),
                0,
                format!("corrupt store: owner {owner} has pairs the last batch did not release"),
            ));
        }
    }
    for st in &mut states {
        st.mark_stored();
    }
    Ok((states, totals, cur))
}
