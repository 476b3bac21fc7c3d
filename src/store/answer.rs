//! [`Store::answer`]: answer one pair now, from its owner's stored path
//! (issue 24 item 6).

use super::{Levels, OwnerPath, Store};
use crate::distance::{DistanceOptions, Distances};
use crate::error::{Error, Result};
use std::collections::HashMap;

/// What [`Store::answer`] gives: the answer the recipient holds after the call.
#[derive(Clone, Debug, PartialEq)]
pub struct StoreAnswer {
    /// Batch of the release this answer comes from.
    pub batch: u64,
    /// Current distance (`inf`: unreachable now; the held answer is given).
    pub distance: f64,
    /// Level of the answer.
    pub eps: f64,
    /// The answer `u + V_ε`.
    pub y: Vec<f64>,
    /// Whether this call released it (a level the pair never had).
    pub released: bool,
}

/// What [`Store::answer`] keeps between calls, so that a call costs a
/// look-up in memory plus one SQL query (issue 24, `store.answer` latency):
/// the values (fixed at creation), the paths read so far (append-only in
/// the store, so a cached path is a prefix of the stored one: a reader
/// reloads it when a level lies below it; a writer's cache is dropped by
/// every other batch it writes), the graphs at START and at the last batch
/// with one search workspace, and the last owner's distance rows.
#[derive(Default)]
pub(super) struct Cache {
    owner: Option<(u32, u64)>,
    start: Vec<f64>,
    now: Vec<f64>,
    graphs: Option<(u64, crate::graph::Graph, crate::graph::Graph)>,
    workspace: Option<crate::distance::Workspace>,
    values: Option<Vec<f64>>,
    pub(super) paths: HashMap<u32, OwnerPath>,
    levels: Option<Levels>,
}

impl Store {
    /// The answer `recipient` holds from `owner` at the current distance
    /// (original ids): if the pair's level `min(ε(d), top)` is above every
    /// level it was ever released, a new release read from the owner's
    /// stored path (extended downward if needed) and recorded in the last
    /// committed batch — a writer's call; otherwise the answer already held,
    /// at the pair's largest level (a pair whose ε fell keeps what it has).
    ///
    /// Errors: an id not in the store, `owner` = `recipient`, an owner
    /// without a path, a pair never released and unreachable now, or a new
    /// release on a store opened for reading.
    pub fn answer(&mut self, owner: &str, recipient: &str) -> Result<StoreAnswer> {
        let n = self.config()?.dim;
        let levels = match &self.cache.levels {
            Some(l) => l.clone(),
            None => {
                let l = Levels::of(self.config()?)?;
                self.cache.levels = Some(l.clone());
                l
            }
        };
        let ids = self.ids_ref()?;
        let o = ids
            .index_of(owner)
            .ok_or_else(|| Error::param("owner", owner, "the id of a node in the store"))?;
        let r = ids
            .index_of(recipient)
            .ok_or_else(|| Error::param("recipient", recipient, "the id of a node in the store"))?;
        if o == r {
            return Err(Error::param(
                "recipient",
                recipient,
                "a node other than the owner (an owner holds its own value)",
            ));
        }
        let batch = self.last_batch()?.unwrap_or(0);
        self.fill_cache(o, batch)?;
        let (d0, d) = (self.cache.start[r as usize], self.cache.now[r as usize]);
        // The pair's largest level so far: batch 0's implied release, then
        // its largest explicit row.
        let mut held: Option<(f64, u64)> = if d0.is_finite() {
            Some((levels.at(d0)?, 0))
        } else {
            None
        };
        if let Some((e, b)) = self.pair_best(o, r, batch)?
            && held.is_none_or(|(h, _)| e > h)
        {
            held = Some((e, b));
        }
        let e = levels.at(d)?;
        let u = self.cached_values()?[o as usize * n..(o as usize + 1) * n].to_vec();
        let mut y = vec![0.0; n];
        if d.is_finite() && held.is_none_or(|(h, _)| e > h) {
            if !self.is_writer() {
                return Err(Error::Unsupported(format!(
                    "{}: a new release (ε {} for {owner} → {recipient}) needs the store opened \
                     for writing (Store::open_writer)",
                    self.path.display(),
                    e
                )));
            }
            let mut path = self.cached_path(o, owner, e)?;
            let (stored, bottom) = (path.segments(), path.bottom());
            path.reach(e)?;
            let v = path.blob_at(e).ok_or_else(|| {
                Error::Numerical(format!("a path extended to ε = {e} does not reach it"))
            })?;
            path.answer_into(e, &u, &mut y)?;
            self.write_batch_keeping_cache(|w| {
                if path.bottom() != bottom {
                    w.save_path(o, &path, stored)?;
                }
                w.insert_answer(o, r, e, batch, d, &v)
            })?;
            // Committed: the extended path is the stored one.
            self.cache.paths.insert(o, path);
            return Ok(StoreAnswer {
                batch,
                distance: d,
                eps: e,
                y,
                released: true,
            });
        }
        let Some((h, b)) = held else {
            if let super::Level::OutOfRange(e) = levels.level(d)? {
                return Err(Error::param(
                    "recipient",
                    recipient,
                    format!(
                        "a node whose ε from {owner} is in the range answered: at distance {} \
                         it is {}, out of range (no answer is released there)",
                        crate::limits::fmt_num(d),
                        crate::limits::fmt_num(e)
                    ),
                ));
            }
            return Err(Error::param(
                "recipient",
                recipient,
                format!("a node that {owner} reaches (no answer was ever released to it)"),
            ));
        };
        let path = self.cached_path(o, owner, h)?;
        if !path.answer_into(h, &u, &mut y)? {
            return Err(Error::input(
                &self.path,
                0,
                "corrupt store: a held answer below its path",
            ));
        }
        let a = StoreAnswer {
            batch: b,
            distance: d,
            eps: h,
            y,
            released: false,
        };
        self.cache.paths.insert(o, path);
        Ok(a)
    }

    /// `owner`'s path, from the cache when it reaches down to `level`
    /// (a reader's cached path is a prefix of the stored one: segments are
    /// append-only; a writer's is the stored one), else loaded. Taken out of
    /// the cache; the caller puts it back once what it wrote is committed.
    fn cached_path(&mut self, o: u32, owner: &str, level: f64) -> Result<OwnerPath> {
        if let Some(p) = self.cache.paths.remove(&o)
            && (self.is_writer() || level >= p.bottom())
        {
            return Ok(p);
        }
        self.load_path(o)?.ok_or_else(|| {
            Error::param("owner", owner, "an owner of the store (a node with a path)")
        })
    }

    /// The values, n per node (fixed at creation: loaded once).
    fn cached_values(&mut self) -> Result<&[f64]> {
        if self.cache.values.is_none() {
            self.cache.values = Some(self.values()?);
        }
        Ok(self.cache.values.as_deref().unwrap_or_default())
    }

    /// The distance rows of `owner` at START and after `batch`: the graphs
    /// are rebuilt when the batch moves, the searches when the owner does.
    fn fill_cache(&mut self, owner: u32, batch: u64) -> Result<()> {
        if self.cache.owner == Some((owner, batch)) {
            return Ok(());
        }
        let kind = self.config()?.distance;
        if self.cache.graphs.as_ref().is_none_or(|g| g.0 != batch) {
            let start = self.graph_at(0)?;
            let now = self.graph_at(batch)?;
            self.cache.graphs = Some((batch, start, now));
        }
        let Some((_, start, now)) = &self.cache.graphs else {
            return Ok(());
        };
        let opts = DistanceOptions::default();
        let ws = self.cache.workspace.get_or_insert_with(Default::default);
        Distances::new(start, kind, &opts)?.from_owner(owner, ws, &mut self.cache.start);
        Distances::new(now, kind, &opts)?.from_owner(owner, ws, &mut self.cache.now);
        self.cache.owner = Some((owner, batch));
        Ok(())
    }
}
