//! Reading a store back: nodes and values, the graph at any batch, paths,
//! the timeline.

use super::path::{WORD_POS_OS, blob_to_i64s};
use super::write::{EdgeEvent, TimelineRow};
use super::{Family, OwnerPath, Store, blob_to_f64s, db_error};
use crate::error::{Error, Result};
use crate::graph::{Graph, NodeIds};
use crate::process::discrete::{DiscreteAnchored, RngSource};
use crate::process::{AnchoredPath, DownWalkState, StoredSegments};
use rusqlite::{OptionalExtension, params};
use std::collections::BTreeMap;

/// An explicit release: (owner, recipient, eps, batch, distance, noise as
/// stored: see [`OwnerPath::answer_from_blob`]).
pub(crate) type ExplicitAnswer = (u32, u32, f64, u64, f64, Vec<u8>);

/// An explicit release: (batch, owner, recipient, eps, distance).
pub(crate) type BatchAnswer = (u64, u32, u32, f64, f64);

impl Store {
    fn corrupt(&self, what: impl std::fmt::Display) -> Error {
        Error::input(&self.path, 0, format!("corrupt store: {what}"))
    }

    /// The nodes' original ids, in index order.
    pub fn node_ids(&mut self) -> Result<NodeIds> {
        self.ids_ref().cloned()
    }

    /// The nodes' original ids, loaded once (fixed at creation).
    pub(crate) fn ids_ref(&mut self) -> Result<&NodeIds> {
        if self.ids.is_some() {
            return Ok(self.ids.as_ref().unwrap_or_else(|| unreachable!()));
        }
        let kind: String = self
            .conn
            .query_row("SELECT value FROM meta WHERE key = 'ids'", [], |r| r.get(0))
            .map_err(|e| db_error(&self.path, e))?;
        let mut st = self
            .conn
            .prepare("SELECT id FROM node ORDER BY idx")
            .map_err(|e| db_error(&self.path, e))?;
        let labels: Vec<String> = st
            .query_map([], |r| r.get(0))
            .and_then(|rows| rows.collect())
            .map_err(|e| db_error(&self.path, e))?;
        drop(st);
        let ids = if kind == "integer" {
            let v: Option<Vec<u64>> = labels.iter().map(|s| s.parse().ok()).collect();
            NodeIds::integers(v.ok_or_else(|| self.corrupt("a non-integer id"))?)
        } else {
            NodeIds::tokens(labels)
        };
        Ok(self.ids.insert(ids))
    }

    /// Every node's value, n per node in index order.
    pub fn values(&self) -> Result<Vec<f64>> {
        let n = self.config()?.dim;
        let mut st = self
            .conn
            .prepare("SELECT u FROM node ORDER BY idx")
            .map_err(|e| db_error(&self.path, e))?;
        let mut out = Vec::new();
        let mut rows = st.query([]).map_err(|e| db_error(&self.path, e))?;
        while let Some(r) = rows.next().map_err(|e| db_error(&self.path, e))? {
            let b: Vec<u8> = r.get(0).map_err(|e| db_error(&self.path, e))?;
            match blob_to_f64s(&b) {
                Some(v) if v.len() == n => out.extend(v),
                _ => return Err(self.corrupt("a value of the wrong length")),
            }
        }
        Ok(out)
    }

    /// The START edges `(u, v, w)`, `u < v`, in key order.
    pub fn start_edges(&self) -> Result<Vec<(u32, u32, f64)>> {
        let mut st = self
            .conn
            .prepare("SELECT u, v, w FROM start_edge ORDER BY u, v")
            .map_err(|e| db_error(&self.path, e))?;
        st.query_map([], |r| {
            Ok((
                r.get::<_, i64>(0)? as u32,
                r.get::<_, i64>(1)? as u32,
                r.get(2)?,
            ))
        })
        .and_then(|rows| rows.collect())
        .map_err(|e| db_error(&self.path, e))
    }

    /// The events applied in batches `1..=upto`, with their batch, in order.
    pub fn events(&self, upto: u64) -> Result<Vec<(u64, EdgeEvent)>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT batch, line, time, u, v, op, w FROM event WHERE batch <= ?1 ORDER BY seq",
            )
            .map_err(|e| db_error(&self.path, e))?;
        st.query_map(params![upto as i64], |r| {
            Ok((
                r.get::<_, i64>(0)? as u64,
                EdgeEvent {
                    line: r.get::<_, i64>(1)? as u64,
                    time: r.get(2)?,
                    u: r.get::<_, i64>(3)? as u32,
                    v: r.get::<_, i64>(4)? as u32,
                    add: r.get::<_, String>(5)? == "add",
                    w: r.get(6)?,
                },
            ))
        })
        .and_then(|rows| rows.collect())
        .map_err(|e| db_error(&self.path, e))
    }

    /// The edge set after batch `batch` (START, then the events of batches
    /// 1..=batch applied in order), keyed `(u, v)` with `u < v`.
    pub fn edges_at(&self, batch: u64) -> Result<BTreeMap<(u32, u32), f64>> {
        let mut edges: BTreeMap<(u32, u32), f64> = self
            .start_edges()?
            .into_iter()
            .map(|(u, v, w)| ((u, v), w))
            .collect();
        for (_, e) in self.events(batch)? {
            let key = (e.u.min(e.v), e.u.max(e.v));
            if e.add {
                edges.insert(key, e.w);
            } else {
                edges.remove(&key);
            }
        }
        Ok(edges)
    }

    /// The graph after batch `batch` (0: START).
    pub fn graph_at(&mut self, batch: u64) -> Result<Graph> {
        let ids = self.node_ids()?;
        let edges = self.edges_at(batch)?;
        graph_of(ids, &edges)
    }

    /// The owners (node indices, ascending): the nodes that have a path.
    pub fn owners(&self) -> Result<Vec<u32>> {
        let mut st = self
            .conn
            .prepare("SELECT owner FROM path ORDER BY owner")
            .map_err(|e| db_error(&self.path, e))?;
        st.query_map([], |r| Ok(r.get::<_, i64>(0)? as u32))
            .and_then(|rows| rows.collect())
            .map_err(|e| db_error(&self.path, e))
    }

    /// `owner`'s path as stored, or `None` if it has none.
    pub fn load_path(&self, owner: u32) -> Result<Option<OwnerPath>> {
        let c = self.config()?;
        let row = self
            .conn
            .query_row(
                "SELECT bottom, walk_level, pending_level, pending_bits, jumps, word_pos \
                 FROM path WHERE owner = ?1",
                params![owner as i64],
                |r| {
                    Ok((
                        r.get::<_, f64>(0)?,
                        r.get::<_, f64>(1)?,
                        r.get::<_, Option<f64>>(2)?,
                        r.get::<_, Option<i64>>(3)?,
                        r.get::<_, i64>(4)?,
                        r.get::<_, String>(5)?,
                    ))
                },
            )
            .optional()
            .map_err(|e| db_error(&self.path, e))?;
        let Some((bottom, level, pl, pb, jumps, pos)) = row else {
            return Ok(None);
        };
        let family = c.family().map_err(|e| self.corrupt(e))?;
        let mut st = self
            .conn
            .prepare_cached("SELECT hi, v FROM segment WHERE owner = ?1 ORDER BY k")
            .map_err(|e| db_error(&self.path, e))?;
        let mut his = Vec::new();
        let mut blobs = Vec::new();
        let mut rows = st
            .query(params![owner as i64])
            .map_err(|e| db_error(&self.path, e))?;
        while let Some(r) = rows.next().map_err(|e| db_error(&self.path, e))? {
            his.push(r.get::<_, f64>(0).map_err(|e| db_error(&self.path, e))?);
            let b: Vec<u8> = r.get(1).map_err(|e| db_error(&self.path, e))?;
            blobs.extend(b);
        }
        match family {
            Family::Laplace => {
                let values = blob_to_f64s(&blobs).ok_or_else(|| self.corrupt("a segment value"))?;
                let walk = DownWalkState {
                    level,
                    pending: match (pl, pb) {
                        (Some(l), Some(b)) => Some((l, b as u64)),
                        _ => None,
                    },
                    jumps: jumps as u64,
                };
                let word_pos: u128 = pos
                    .parse()
                    .map_err(|_| self.corrupt(format!("word position '{pos}'")))?;
                let segments = StoredSegments {
                    his,
                    values,
                    bottom,
                };
                AnchoredPath::restore(
                    c.norm,
                    c.dim,
                    c.seed,
                    owner as u64,
                    segments,
                    walk,
                    word_pos,
                )
                .map(|p| Some(OwnerPath::Laplace(p)))
                .map_err(|e| self.corrupt(e))
            }
            Family::Discrete { noise, top, rng } => {
                let values = blob_to_i64s(&blobs).ok_or_else(|| self.corrupt("a segment value"))?;
                let word_pos = match (rng, pos.as_str()) {
                    (RngSource::Os, WORD_POS_OS) => None,
                    (RngSource::Seeded, p) => Some(
                        p.parse::<u64>()
                            .map_err(|_| self.corrupt(format!("word position '{pos}'")))?,
                    ),
                    (RngSource::Os, _) => {
                        return Err(self.corrupt(format!("word position '{pos}' of an os path")));
                    }
                };
                if level != bottom || pl.is_some() || pb.is_some() {
                    return Err(self.corrupt(format!("owner {owner}'s walk state")));
                }
                let segments = StoredSegments {
                    his,
                    values,
                    bottom,
                };
                DiscreteAnchored::restore(&noise, top, c.seed, owner as u64, segments, word_pos)
                    .map(|p| Some(OwnerPath::Discrete(p)))
                    .map_err(|e| self.corrupt(e))
            }
        }
    }

    /// The committed timeline, batch 0 first.
    pub fn timeline(&self) -> Result<Vec<TimelineRow>> {
        if self.config.is_none() {
            return Ok(Vec::new());
        }
        let mut st = self
            .conn
            .prepare(&format!(
                "SELECT batch, time, events, pairs_closer, pairs_farther, answers, pairs, mse, \
                 mse_theory, eps_spent, resample_mse, resample_eps_spent, frozen_mse, \
                 frozen_eps_spent, \
                 (SELECT value FROM meta WHERE key = '{}' || timeline.batch) \
                 FROM timeline ORDER BY batch",
                super::write::SKIPPED_KEY
            ))
            .map_err(|e| db_error(&self.path, e))?;
        st.query_map([], |r| {
            Ok(TimelineRow {
                batch: r.get::<_, i64>(0)? as u64,
                time: r.get(1)?,
                events: r.get::<_, i64>(2)? as u64,
                pairs_closer: r.get::<_, i64>(3)? as u64,
                pairs_farther: r.get::<_, i64>(4)? as u64,
                answers: r.get::<_, i64>(5)? as u64,
                pairs: r.get::<_, i64>(6)? as u64,
                mse: r.get(7)?,
                mse_theory: r.get(8)?,
                eps_spent: r.get(9)?,
                resample_mse: r.get(10)?,
                resample_eps_spent: r.get(11)?,
                frozen_mse: r.get(12)?,
                frozen_eps_spent: r.get(13)?,
                pairs_skipped: r.get::<_, Option<String>>(14)?.and_then(|v| v.parse().ok()),
            })
        })
        .and_then(|rows| rows.collect())
        .map_err(|e| db_error(&self.path, e))
    }

    /// Explicit releases matching the filters, sorted by owner, recipient
    /// and ε (which is batch order for one pair): one pass over the table.
    pub(crate) fn explicit_sorted(
        &self,
        owner: Option<u32>,
        recipient: Option<u32>,
    ) -> Result<Vec<ExplicitAnswer>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT owner, recipient, eps, batch, distance, noise FROM answer \
                 WHERE (?1 IS NULL OR owner = ?1) AND (?2 IS NULL OR recipient = ?2) \
                 ORDER BY owner, recipient, eps",
            )
            .map_err(|e| db_error(&self.path, e))?;
        let mut out = Vec::new();
        let mut rows = st
            .query(params![owner.map(i64::from), recipient.map(i64::from)])
            .map_err(|e| db_error(&self.path, e))?;
        while let Some(r) = rows.next().map_err(|e| db_error(&self.path, e))? {
            let get = |e: rusqlite::Error| db_error(&self.path, e);
            let b: Vec<u8> = r.get(5).map_err(get)?;
            out.push((
                r.get::<_, i64>(0).map_err(get)? as u32,
                r.get::<_, i64>(1).map_err(get)? as u32,
                r.get(2).map_err(get)?,
                r.get::<_, i64>(3).map_err(get)? as u64,
                r.get(4).map_err(get)?,
                b,
            ));
        }
        Ok(out)
    }

    /// The largest explicit release of one pair up to batch `last`, as
    /// `(eps, batch)`: one statement, a key look-up per committed batch run
    /// inside SQLite (the key is batch-first, kept so for key-ordered
    /// inserts; no second index to maintain).
    pub(crate) fn pair_best(
        &self,
        owner: u32,
        recipient: u32,
        last: u64,
    ) -> Result<Option<(f64, u64)>> {
        let mut st = self
            .conn
            .prepare_cached(
                "SELECT a.eps, a.batch FROM timeline t CROSS JOIN answer a \
                 ON a.batch = t.batch AND a.owner = ?1 AND a.recipient = ?2 \
                 WHERE t.batch <= ?3 ORDER BY a.eps DESC LIMIT 1",
            )
            .map_err(|e| db_error(&self.path, e))?;
        st.query_row(params![owner as i64, recipient as i64, last as i64], |r| {
            Ok((r.get::<_, f64>(0)?, r.get::<_, i64>(1)? as u64))
        })
        .optional()
        .map_err(|e| db_error(&self.path, e))
    }

    /// Explicit releases of batches `1..=upto`, as `(batch, owner,
    /// recipient, eps, distance)` in (batch, owner, recipient) order: the
    /// order a live run makes them.
    pub(crate) fn answers_upto(&self, upto: u64) -> Result<Vec<BatchAnswer>> {
        let mut st = self
            .conn
            .prepare(
                "SELECT batch, owner, recipient, eps, distance FROM answer \
                 WHERE batch >= 1 AND batch <= ?1 ORDER BY batch, owner, recipient",
            )
            .map_err(|e| db_error(&self.path, e))?;
        st.query_map(params![upto as i64], |r| {
            Ok((
                r.get::<_, i64>(0)? as u64,
                r.get::<_, i64>(1)? as u32,
                r.get::<_, i64>(2)? as u32,
                r.get(3)?,
                r.get(4)?,
            ))
        })
        .and_then(|rows| rows.collect())
        .map_err(|e| db_error(&self.path, e))
    }

    /// Number of explicit releases.
    pub fn explicit_count(&self) -> Result<u64> {
        self.conn
            .query_row("SELECT count(*) FROM answer", [], |r| r.get::<_, i64>(0))
            .map(|c| c as u64)
            .map_err(|e| db_error(&self.path, e))
    }
}

/// The undirected graph on `ids` with these edges (`(u, v)`, u < v → length),
/// unweighted when every length is 1: how the store and `evolve` build the
/// graph of every batch, so both compute the same distances.
pub fn graph_of(ids: NodeIds, edges: &BTreeMap<(u32, u32), f64>) -> Result<Graph> {
    let pairs: Vec<(u32, u32)> = edges.keys().copied().collect();
    let weighted = edges.values().any(|&w| w != 1.0);
    let w: Vec<f64> = edges.values().copied().collect();
    Graph::from_edges(ids, &pairs, weighted.then_some(&w[..]), false)
}
