//! Cheap resume (issue 24 item 4): the state after the last committed batch
//! rebuilt from what the store holds, without re-reading batch 0's answers.
//!
//! Per owner the live run keeps, for every recipient, the current distance,
//! the largest ε released and the `resample` policy's pooling sums; globally
//! the timeline's running sums. A resume after batch k rebuilds them as:
//! * running sums: the `batch_totals` row of batch k (exact bits, committed
//!   with the batch — [`crate::store::BatchTotals`]);
//! * current distances: one search per owner on the graph after batch k;
//! * largest ε: `max(ε(d₀), ε of the pair's explicit rows)` — d₀ from one
//!   search per owner on START, the explicit rows from the ledger;
//! * pooling sums: *lazily*, for the pairs a later batch releases again
//!   ([`PoolHistory`]): the live run's sums are `Σ ε_b²` and `Σ ε_b² x_b`
//!   over the pair's releases in order, `x_b` the draw of the stream keyed
//!   (seed, owner, recipient, b) — redrawn here with the same operations in
//!   the same order, so the bits are the live run's.
//!
//! Paths are loaded as stored, never extended here. So a resume costs two
//! searches per owner, one scan of the ledger and the loading, not the
//! 16 M implied releases of batch 0 (facebook). A store whose last batch
//! has no stored sums (written by schema 1), or whose ledger holds releases
//! [`crate::store::Store::answer`] added (they are folded into the sums only
//! by a replay), is rebuilt by the full replay instead (`None` here).

use super::graph::Edges;
use super::pairs::{Ctx, OwnerState, PoolHistory, Sums, Totals, rounding_sq};
use crate::distance::{DistanceOptions, Distances};
use crate::error::{Error, Result};
use crate::graph::NodeIds;
use crate::store::{BatchTotals, Levels, Store, StoreConfig};
use rayon::prelude::*;

impl Totals {
    /// The sums as stored in `batch_totals`.
    pub(crate) fn snapshot(&self) -> BatchTotals {
        let s = &self.sums;
        BatchTotals {
            pairs: self.pairs,
            sums: [
                s.best_sq,
                s.theory,
                s.eps,
                s.resample_eps,
                s.pooled_sq,
                s.first_sq,
                s.first_eps,
            ],
        }
    }

    fn restore(t: &BatchTotals) -> Totals {
        // In the order `snapshot` stores them.
        let a = t.sums;
        Totals {
            pairs: t.pairs,
            sums: Sums {
                best_sq: a[0],
                theory: a[1],
                eps: a[2],
                resample_eps: a[3],
                pooled_sq: a[4],
                first_sq: a[5],
                first_eps: a[6],
            },
            // Counted on the current graph by the caller.
            skipped: 0,
        }
    }
}

/// The levels of `config` and the states of `owners` (of `nodes` nodes) as
/// stored — path, value and its rounding, nothing released yet — once the
/// store's owners are checked to be `owners`.
pub(super) fn stored_states(
    store: &Store,
    config: &StoreConfig,
    nodes: usize,
    owners: &[u32],
) -> Result<(Levels, Vec<OwnerState>)> {
    if store.owners()? != owners {
        return Err(Error::Unsupported(format!(
            "{}: its owners differ from the owners selected now",
            store.path().display()
        )));
    }
    let levels = Levels::of(config)?;
    let n = config.dim;
    let values = store.values()?;
    let mut states = Vec::with_capacity(owners.len());
    for &o in owners {
        let p = store.load_path(o)?.ok_or_else(|| {
            Error::input(
                store.path(),
                0,
                format!("corrupt store: owner {o} has no path"),
            )
        })?;
        let u = values[o as usize * n..(o as usize + 1) * n].to_vec();
        let round_sq = rounding_sq(levels.discrete(), &u)?;
        states.push(OwnerState::new(o, nodes, p, u, round_sq));
    }
    Ok((levels, states))
}

/// The state after batch `last` without replaying batch 0, or `None` when
/// the store does not allow it (see the module docs).
pub(super) fn rebuild(
    store: &mut Store,
    config: &StoreConfig,
    ids: &NodeIds,
    owners: &[u32],
    last: u64,
) -> Result<Option<(Vec<OwnerState>, Totals, Edges)>> {
    let Some(bt) = store.totals_at(last)? else {
        return Ok(None);
    };
    let timeline = store.timeline()?;
    let rows = store.answers_upto(last)?;
    // Every explicit row must be one of evolve's (counted by its timeline row).
    let mut counts = vec![0u64; last as usize + 1];
    for r in &rows {
        counts[r.0 as usize] += 1;
    }
    counts[0] = store.explicit_count_at(0)?;
    let evolve_only = timeline.len() == counts.len()
        && timeline
            .iter()
            .zip(&counts)
            .all(|(t, &c)| c == if t.batch == 0 { 0 } else { t.answers });
    if !evolve_only {
        return Ok(None);
    }
    let corrupt = |what: String| Error::input(store.path(), 0, format!("corrupt store: {what}"));
    let nodes = ids.len();
    let (levels, mut states) = stored_states(store, config, nodes, owners)?;
    let ctx = Ctx::of(&levels, config);
    // Largest level: batch 0's (implied), then the ledger's.
    let start = store.edges_at(0)?;
    let g0 = super::graph::graph_of(ids, &start, config.distance)?;
    let d0 = Distances::new(&g0, config.distance, &DistanceOptions::default())?;
    for_rows(&d0, &mut states, |st, row| {
        let owner = st.owner as usize;
        let eps0: Vec<f64> = row
            .iter()
            .enumerate()
            .map(|(r, &d)| if r == owner { Ok(0.0) } else { ctx.eps(d) })
            .collect::<Result<_>>()?;
        st.max_eps.copy_from_slice(&eps0);
        st.history = Some(Box::new(PoolHistory {
            eps0,
            explicit: Vec::new(),
        }));
        Ok(())
    })?;
    drop(d0);
    for &(b, o, r, e, _) in &rows {
        let st = &mut states[owners
            .binary_search(&o)
            .map_err(|_| corrupt("an answer of a non-owner".into()))?];
        let ri = r as usize;
        if ri >= nodes || e <= st.max_eps[ri] {
            return Err(corrupt(format!(
                "owner {o}'s release to {r} in batch {b} is not above its earlier ones"
            )));
        }
        st.max_eps[ri] = e;
        if let Some(h) = st.history.as_mut() {
            h.explicit.push((r, b, e));
        }
    }
    drop(rows);
    for st in &mut states {
        if let Some(h) = st.history.as_mut() {
            // Rows came in batch order: a stable sort keeps it per recipient.
            h.explicit.sort_by_key(|a| a.0);
            h.explicit.shrink_to_fit();
        }
    }
    // Current distances, and every pair at its current level released at
    // or above it.
    let cur = store.edges_at(last)?;
    let g = super::graph::graph_of(ids, &cur, config.distance)?;
    let dist = Distances::new(&g, config.distance, &DistanceOptions::default())?;
    for_rows(&dist, &mut states, |st, row| {
        st.dist.copy_from_slice(row);
        Ok(())
    })?;
    for st in &mut states {
        let owner = st.owner as usize;
        let mut short = false;
        for (r, (&d, &m)) in st.dist.iter().zip(&st.max_eps).enumerate() {
            if r != owner && ctx.eps(d)? > m {
                short = true;
                break;
            }
        }
        if short {
            return Err(corrupt(format!(
                "owner {} has pairs the last batch did not release",
                st.owner
            )));
        }
        st.mark_stored();
    }
    Ok(Some((states, Totals::restore(&bt), cur)))
}

/// Calls `f` with every owner's distance row on `dist`, 64 owners per
/// search, in parallel; the first error (in owner order) is returned.
fn for_rows(
    dist: &Distances<'_>,
    states: &mut [OwnerState],
    f: impl Fn(&mut OwnerState, &[f64]) -> Result<()> + Sync,
) -> Result<()> {
    states
        .par_chunks_mut(crate::distance::BATCH)
        .map_init(
            || dist.workspace(),
            |ws, chunk| {
                let owners: Vec<u32> = chunk.iter().map(|s| s.owner).collect();
                let mut out = Ok(());
                dist.batch(&owners, ws, |i, row| {
                    if out.is_ok() {
                        out = f(&mut chunk[i], row);
                    }
                });
                out
            },
        )
        .collect::<Result<Vec<()>>>()
        .map(|_| ())
}
