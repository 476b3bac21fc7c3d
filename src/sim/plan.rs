//! A validated, resolved simulation over a loaded graph ([`Plan`]): owners,
//! values, the resolved map, the mechanisms and buckets, checked once before
//! any owner runs.

use super::config::{Owners, SimConfig};
use crate::distance::{Distances, HopLevels};
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::exec::CHUNK;
use crate::graph::Graph;
use crate::limits::{self, MemoryBudget};
use crate::mechanism::{Mechanism, NoiseModel};
use crate::post::Post;
use crate::process::family::Noise;
use crate::rng::{Purpose, rng_for};
use crate::values::Values;
use rayon::prelude::*;

/// How distances are bucketed in `by_distance.csv`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Buckets {
    /// One bucket per integer distance (hop); bucket 0 holds unreachable members.
    Integer,
    /// `k` equal-width bins over `[lo, lo + k·width]`; bucket `k` holds unreachable members.
    Bins {
        /// Lower edge of the first bin.
        lo: f64,
        /// Width of every bin.
        width: f64,
        /// Number of bins.
        k: usize,
    },
}

impl Buckets {
    /// The bucket of distance `d` (the unreachable bucket for `inf`).
    #[inline]
    pub(crate) fn index(&self, d: f64) -> usize {
        match *self {
            Buckets::Integer => {
                if d.is_finite() {
                    d as usize
                } else {
                    0
                }
            }
            Buckets::Bins { lo, width, k } => {
                if !d.is_finite() {
                    k
                } else if width > 0.0 {
                    (((d - lo) / width) as usize).min(k - 1)
                } else {
                    0
                }
            }
        }
    }

    /// Lower and upper edge of bucket `b`.
    pub(crate) fn edges(&self, b: usize) -> (f64, f64) {
        match *self {
            Buckets::Integer if b == 0 => (f64::INFINITY, f64::INFINITY),
            Buckets::Integer => (b as f64, b as f64),
            Buckets::Bins { k, .. } if b == k => (f64::INFINITY, f64::INFINITY),
            Buckets::Bins { lo, width, .. } => (lo + b as f64 * width, lo + (b + 1) as f64 * width),
        }
    }
}

/// A validated, resolved simulation: graph, distances, owners, values, map.
/// Built only by [`Plan::new`], which checks everything; read-only after.
pub struct Plan<'a> {
    pub(super) config: SimConfig,
    pub(super) graph: &'a Graph,
    pub(super) distances: &'a Distances<'a>,
    pub(super) owners: Vec<u32>,
    pub(super) map: EpsilonMap,
    pub(super) model: NoiseModel,
    pub(super) values: Values,
    pub(super) post: Post,
    pub(super) mechanisms: Vec<Mechanism>,
    pub(super) buckets: Buckets,
    pub(super) observed: (f64, f64),
    /// The memory budget in force when the plan was made (for the per-owner
    /// path check, without locking the process-wide setting in the loop).
    pub(super) budget: MemoryBudget,
    /// Positions (in `owners`) of the owners recorded in `ego.csv`, ascending.
    pub(super) ego: Vec<usize>,
    /// Replicates run.
    pub(super) replicates: std::ops::Range<u32>,
    /// Hop-level histograms of the owners from the plan's pre-pass, when it
    /// ran and they fit [`limits::LEVEL_CACHE_MAX`].
    pub(super) levels: Option<LevelCache>,
    /// The noise family every owner's answers are drawn from.
    pub(super) noise: Noise,
}

/// Owners' hop-level histograms, in owner order.
pub(super) struct LevelCache {
    /// Owner at position p: `hist[start[p]..start[p + 1]]`.
    pub(super) start: Vec<usize>,
    pub(super) hist: Vec<u64>,
    /// Aligned with `hist`: the out-degree sums per hop, when the plan was
    /// made [`Plan::with_level_degrees`] (else empty).
    pub(super) degs: Vec<u64>,
    pub(super) unreachable: Vec<u64>,
}

impl<'a> Plan<'a> {
    /// The configuration it was built from.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The network.
    pub fn graph(&self) -> &'a Graph {
        self.graph
    }

    /// The prepared distance routine.
    pub fn distances(&self) -> &'a Distances<'a> {
        self.distances
    }

    /// Owners (node indices) in output order.
    pub fn owners(&self) -> &[u32] {
        &self.owners
    }

    /// The privacy map used, clamped (a `range` map resolved on the observed
    /// distances).
    pub fn map(&self) -> &EpsilonMap {
        &self.map
    }

    /// The noise law (dimension, norm, sensitivity, δ).
    pub fn model(&self) -> &NoiseModel {
        &self.model
    }

    /// The noise family the owners' answers are drawn from.
    pub fn noise(&self) -> &Noise {
        &self.noise
    }

    /// The private values (`auto` resolved).
    pub fn values(&self) -> &Values {
        &self.values
    }

    /// Post-processing of the answers.
    pub fn post(&self) -> &Post {
        &self.post
    }

    /// Mechanisms run, in output order.
    pub fn mechanisms(&self) -> &[Mechanism] {
        &self.mechanisms
    }

    /// Bucketing of distances in `by_distance` rows.
    pub fn buckets(&self) -> Buckets {
        self.buckets
    }

    /// The memory budget in force when the plan was made.
    pub fn budget(&self) -> MemoryBudget {
        self.budget
    }

    /// The replicates run (`first_replicate .. first_replicate + replicates`).
    pub fn replicates(&self) -> std::ops::Range<u32> {
        self.replicates.clone()
    }

    /// Positions in [`Plan::owners`] of the owners recorded in `ego.csv`.
    pub fn ego_positions(&self) -> &[usize] {
        &self.ego
    }

    /// Smallest and largest finite owner-to-member distance, when the plan
    /// needed them (a `range` map or continuous distances); NaN otherwise.
    pub fn observed(&self) -> (f64, f64) {
        self.observed
    }
}

impl<'a> Plan<'a> {
    /// Validates the configuration and resolves owners, values and the map
    /// (a `range:` map and continuous buckets need one pass over the owners'
    /// distances first).
    pub fn new(
        config: &SimConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
    ) -> Result<Plan<'a>> {
        Self::build(config, graph, distances, None, false)
    }

    /// [`Plan::new`] whose pre-pass, when it runs (a `range:` map on hop
    /// distances), also keeps each owner's out-degree sums per hop, counted
    /// in the same search ([`Plan::level_sums`]): the relay's messages per
    /// hop, so that it needs no second search. The plan is otherwise the
    /// same.
    pub(crate) fn with_level_degrees(
        config: &SimConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
    ) -> Result<Plan<'a>> {
        Self::build(config, graph, distances, None, true)
    }

    /// [`Plan::new`] with the owners' observed range of hop distances
    /// `(lo, hi)` given instead of measured by a pre-pass (hop distances
    /// only; no level histograms are cached). The caller vouches for it:
    /// the utility checks its guess against the deepest level its search
    /// meets and plans again when they differ.
    pub(crate) fn with_hop_range(
        config: &SimConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
        range: (u32, u32),
    ) -> Result<Plan<'a>> {
        Self::build(config, graph, distances, Some(range), false)
    }

    /// The owner at position `p`'s nodes and out-degree sums per hop
    /// (`[0]`: the owner; the last hop the deepest reached), when the
    /// pre-pass kept them ([`Plan::with_level_degrees`]).
    pub(crate) fn level_sums(&self, p: usize) -> Option<(&[u64], &[u64])> {
        let c = self.levels.as_ref().filter(|c| !c.degs.is_empty())?;
        let r = c.start[p]..c.start[p + 1];
        Some((&c.hist[r.clone()], &c.degs[r]))
    }

    fn build(
        config: &SimConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
        given: Option<(u32, u32)>,
        degrees: bool,
    ) -> Result<Plan<'a>> {
        config.check()?;
        let model = NoiseModel::new(config.dim, config.norm, config.sensitivity, config.delta)?;
        let post = config.post;
        let map = config.clamped_map()?;
        let owners = select_owners(config, graph)?;
        let values = Values::resolve(
            &config.values,
            graph,
            &config.graph,
            config.dim,
            config.seed,
        )?;
        let noise = config.family()?;
        if let Some(d) = noise.discrete() {
            // `auto` resolved (to `uniform:0,1` or `coords`) by public facts
            // only: its public range, if any, is checked before any value is
            // read, so that no refusal depends on a secret.
            super::discrete_bound::check_public_range(values.spec(), d.noise())?;
        }
        let integer = distances.is_integer();
        let (observed, levels) = if let (Some((lo, hi)), true) = (given, integer) {
            ((lo as f64, hi as f64), None)
        } else if map.needs_resolution() || !integer {
            observed_range(distances, &owners, degrees)
        } else {
            ((f64::NAN, f64::NAN), None)
        };
        let map = if map.needs_resolution() {
            if !observed.0.is_finite() {
                return Err(Error::Unsupported(
                    "no owner reaches any member: a range: map needs at least one finite distance"
                        .into(),
                ));
            }
            map.resolve(observed.0, observed.1)?
        } else {
            map
        };
        let budget = limits::memory_budget();
        let ego = ego_positions(config, graph, &owners)?;
        let buckets = if integer {
            Buckets::Integer
        } else {
            // (`bins` was checked against the memory budget by `config.check`.)
            let (lo, hi) = if observed.0.is_finite() {
                observed
            } else {
                (0.0, 1.0)
            };
            Buckets::Bins {
                lo,
                width: (hi - lo) / config.bins as f64,
                k: config.bins,
            }
        };
        Ok(Plan {
            config: config.clone(),
            graph,
            distances,
            owners,
            map,
            model,
            values,
            post,
            mechanisms: config.mechanism.mechanisms().to_vec(),
            buckets,
            observed,
            budget,
            ego,
            replicates: config.replicate_range(),
            levels,
            noise,
        })
    }
}

/// The owners: all (index order), a seeded sample (ascending index), or a
/// list of ids (given order).
/// The distances a run of `config` on `graph` reads: one row per owner, so
/// exact resistance is prepared for that many rows
/// ([`Distances::for_rows`]). Every face and every cluster process prepares
/// them here, so they all hold the same values.
pub fn distances_for<'g>(config: &SimConfig, graph: &'g Graph) -> Result<Distances<'g>> {
    let rows = select_owners(config, graph)?.len();
    Distances::for_rows(graph, config.distance, &config.distance_options, rows)
}

pub(crate) fn select_owners(config: &SimConfig, graph: &Graph) -> Result<Vec<u32>> {
    let n = graph.n();
    match &config.owners {
        Owners::All => Ok((0..n as u32).collect()),
        &Owners::Count(k) => {
            if k > n {
                return Err(Error::param(
                    "owners",
                    k,
                    format!("at most the number of nodes ({n})"),
                ));
            }
            // Partial Fisher–Yates on a seeded generator.
            use rand::RngExt;
            let mut rng = rng_for(config.seed, 0, 0, Purpose::OwnerSample);
            let mut idx: Vec<u32> = (0..n as u32).collect();
            for i in 0..k {
                let j = rng.random_range(i..n);
                idx.swap(i, j);
            }
            let mut s = idx[..k].to_vec();
            s.sort_unstable();
            Ok(s)
        }
        Owners::Ids(ids) => {
            let mut seen = std::collections::HashSet::new();
            ids.iter()
                .map(|id| {
                    let i = graph
                        .ids()
                        .index_of(id)
                        .ok_or_else(|| Error::param("owners", id, "ids of nodes in the graph"))?;
                    if !seen.insert(i) {
                        return Err(Error::param("owners", id, "each owner once"));
                    }
                    Ok(i)
                })
                .collect()
        }
    }
}

/// Positions in `owners` of the `ego_owners` (default: the first owner).
fn ego_positions(config: &SimConfig, graph: &Graph, owners: &[u32]) -> Result<Vec<usize>> {
    let Some(ids) = &config.ego_owners else {
        return Ok(if owners.is_empty() { vec![] } else { vec![0] });
    };
    let at: std::collections::HashMap<u32, usize> =
        owners.iter().enumerate().map(|(p, &o)| (o, p)).collect();
    let mut pos = Vec::with_capacity(ids.len());
    for id in ids {
        let p = graph
            .ids()
            .index_of(id)
            .and_then(|i| at.get(&i).copied())
            .ok_or_else(|| Error::param("ego_owners", id, "ids of owners (see `owners`)"))?;
        pos.push(p);
    }
    pos.sort_unstable();
    pos.dedup();
    Ok(pos)
}

/// Smallest positive and largest finite distance from the owners to other
/// nodes; for hop distances also the owners' level histograms (with their
/// out-degree sums when `degrees`), when they fit the cache.
fn observed_range(
    distances: &Distances<'_>,
    owners: &[u32],
    degrees: bool,
) -> ((f64, f64), Option<LevelCache>) {
    if distances.is_integer() {
        // Hop: the level histograms say it, no row needed.
        #[derive(Default)]
        struct Part {
            lo: f64,
            hi: f64,
            hist: Vec<u64>,
            degs: Vec<u64>,
            len: Vec<usize>,
            unreachable: Vec<u64>,
        }
        // Entries the cache may hold per histogram entry.
        let per = if degrees { 2 } else { 1 };
        let parts: Vec<Part> = owners
            .par_chunks(CHUNK)
            .map_init(
                || distances.workspace(),
                |ws, chunk| {
                    let mut p = Part {
                        lo: f64::INFINITY,
                        hi: f64::NEG_INFINITY,
                        ..Part::default()
                    };
                    let mut each = |_: usize, lv: &HopLevels<'_>| {
                        let h = lv.hist();
                        if let Some(k) = (1..h.len()).find(|&k| h[k] > 0) {
                            p.lo = p.lo.min(k as f64);
                            p.hi = p.hi.max((h.len() - 1) as f64);
                        }
                        if per * p.hist.len() <= limits::LEVEL_CACHE_MAX {
                            p.hist.extend_from_slice(h);
                            if let Some(d) = lv.out_degrees() {
                                p.degs.extend_from_slice(d);
                            }
                        }
                        p.len.push(h.len());
                        p.unreachable.push(lv.unreachable());
                    };
                    let r = if degrees {
                        distances.hop_level_sums(chunk, ws, &mut each)
                    } else {
                        distances.hop_levels(chunk, ws, |_| false, &mut each)
                    };
                    debug_assert!(r.is_ok());
                    p
                },
            )
            .collect();
        let lo = parts.iter().map(|p| p.lo).fold(f64::INFINITY, f64::min);
        let hi = parts.iter().map(|p| p.hi).fold(f64::NEG_INFINITY, f64::max);
        let total: usize = parts.iter().map(|p| p.len.iter().sum::<usize>()).sum();
        let cache = (per * total <= limits::LEVEL_CACHE_MAX).then(|| {
            let mut c = LevelCache {
                start: vec![0],
                hist: Vec::with_capacity(total),
                degs: Vec::with_capacity(if degrees { total } else { 0 }),
                unreachable: Vec::with_capacity(owners.len()),
            };
            for p in parts {
                c.hist.extend_from_slice(&p.hist);
                c.degs.extend_from_slice(&p.degs);
                for l in p.len {
                    c.start.push(c.start.last().unwrap() + l);
                }
                c.unreachable.extend_from_slice(&p.unreachable);
            }
            c
        });
        return ((lo, hi), cache);
    }
    let range = distances.observed_range(owners);
    (range, None)
}
