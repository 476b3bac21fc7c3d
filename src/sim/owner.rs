//! One owner's work inside a chunk: its recipients grouped into units (one
//! per distinct hop level, or one per recipient of a continuous row), the
//! path or fresh noise, the answers folded into the chunk's aggregates, and
//! its optional rows.

use super::aggregate::OwnerCells;
use super::chunk::{ChunkOut, Counts};
use super::config::Unreachable;
use super::plan::Plan;
use super::rows::OwnerRow;
use crate::distance::{HopLevels, HopsVisit, LevelRow, Workspace};
use crate::error::Result;
use crate::limits;
use crate::process::family::NoiseFamily;

/// The owner and replicate being answered.
#[derive(Clone, Copy)]
pub(super) struct Owner<'l, 'd> {
    /// Position in the plan's owners.
    pub(super) pos: usize,
    /// Node index.
    pub(super) owner: u32,
    /// Its id as written.
    pub(super) label: &'l str,
    pub(super) rep: u32,
    /// Answered recipients.
    pub(super) recipients: u64,
    pub(super) dist: Dist<'d>,
}

/// Per-worker scratch, reused across owners: the units of equal level, the
/// recipients, the owner's cells, and the family's buffers.
pub(super) struct Scratch<F: NoiseFamily> {
    pub(super) u: Vec<f64>,
    pub(super) hop_unit: Vec<u32>,
    pub(super) unit_d: Vec<f64>,
    pub(super) unit_eps: Vec<f64>,
    pub(super) unit_count: Vec<u64>,
    pub(super) unit_bucket: Vec<usize>,
    pub(super) unit_node: Vec<u32>,
    pub(super) cells: OwnerCells,
    pub(super) recs: Vec<(u32, u32)>,
    pub(super) recs_owner: u32,
    pub(super) eps_cache: Vec<f64>,
    pub(super) f: FamilyScratch<F>,
}

/// The owner's units of `s` as [`Plan::recipients`] reads them (a macro, so
/// that the rest of the scratch stays free to borrow).
macro_rules! units_of {
    ($s:expr) => {
        $crate::sim::owner::UnitsOf {
            hop_unit: &$s.hop_unit,
            d: &$s.unit_d,
            node: &$s.unit_node,
        }
    };
}
pub(super) use units_of;

/// The owner's units as the recipients are mapped to them: per hop level
/// (`hop_unit`), or per recipient of a continuous row (`node`); `d`, each
/// unit's distance (the last infinite: the unreachable members' floor).
#[derive(Clone, Copy)]
pub(super) struct UnitsOf<'a> {
    pub(super) hop_unit: &'a [u32],
    pub(super) d: &'a [f64],
    pub(super) node: &'a [u32],
}

/// A loop over one owner's recipients, (node, unit index) in node order
/// (see [`Plan::recipients`]).
pub(super) trait OnRecipients {
    /// What the loop returns.
    type Out;
    /// Runs the loop over `recs`.
    fn run(self, recs: impl Iterator<Item = (u32, u32)>) -> Self::Out;
}

/// A level row's hops mapped to the owner's recipients: every node but the
/// owner, at its hop's unit, the unreachable ones at the floor unit (or
/// not answered).
struct ByHop<'a, V> {
    owner: u32,
    hop_unit: &'a [u32],
    floor_unit: Option<u32>,
    v: V,
}

impl<V: OnRecipients> HopsVisit for ByHop<'_, V> {
    type Out = V::Out;
    #[inline]
    fn run(self, hops: impl Iterator<Item = Option<u32>>) -> V::Out {
        let ByHop {
            owner,
            hop_unit,
            floor_unit,
            v,
        } = self;
        v.run(hops.enumerate().filter_map(move |(j, l)| {
            let j = j as u32;
            if j == owner {
                return None;
            }
            match l {
                Some(l) => Some((j, hop_unit[l as usize])),
                None => floor_unit.map(|u| (j, u)),
            }
        }))
    }
}

/// The family's per-worker buffers (see `replicate.rs`).
pub(super) struct FamilyScratch<F: NoiseFamily> {
    /// The owner's secret as answered.
    pub(super) secret: Vec<F::Coord>,
    /// Per unit: level, ε used, theory, P(correct bit).
    pub(super) levels: Vec<F::Level>,
    pub(super) used: Vec<f64>,
    pub(super) theory: Vec<f64>,
    pub(super) correct: Vec<f64>,
    /// Levels computed, when the family's are costly (ε → level).
    pub(super) level_cache: Vec<(f64, F::Level)>,
    pub(super) path: F::Path,
    /// One draw of fresh noise.
    pub(super) noise: Vec<F::Coord>,
    /// One answer and its post-processed copy.
    pub(super) y: Vec<f64>,
    pub(super) post: Vec<f64>,
    /// Per unit: u, raw, post(raw) (3n), for rows.
    pub(super) unit_vals: Vec<f64>,
    /// Per unit: the error norm of its answer on the path, for rows.
    pub(super) unit_err: Vec<f64>,
    /// Per unit: Σ of squared errors of independent answers.
    pub(super) unit_sq: Vec<f64>,
    pub(super) vals: Vec<f64>,
}

pub(super) struct Worker<F: NoiseFamily> {
    pub(super) ws: Workspace,
    pub(super) s: Scratch<F>,
}

/// Which optional outputs are being written (skip formatting the rest).
#[derive(Clone, Copy, Debug, Default)]
pub(super) struct Wants {
    pub(super) jumps: bool,
    pub(super) owners: bool,
    pub(super) paths: bool,
    /// ego.csv is written; within one owner's mechanism, its rows are.
    pub(super) ego: bool,
    pub(super) responses: bool,
}

pub(super) const UNIT_NONE: u32 = u32::MAX;

/// One owner's distances: hop levels (histogram, and a level row when
/// per-recipient work is needed) or a continuous `f64` row.
#[derive(Clone, Copy)]
pub(super) enum Dist<'r> {
    Levels(&'r HopLevels<'r>),
    Row(&'r [f64]),
}

/// One owner's work: units, answers, aggregates and rows.
impl Plan<'_> {
    pub(super) fn new_worker<F: NoiseFamily>(&self) -> Worker<F> {
        Worker {
            ws: self.distances.workspace(),
            s: Scratch {
                u: vec![0.0; self.model.dim],
                hop_unit: Vec::new(),
                unit_d: Vec::new(),
                unit_eps: Vec::new(),
                unit_count: Vec::new(),
                unit_bucket: Vec::new(),
                unit_node: Vec::new(),
                cells: OwnerCells::default(),
                recs: Vec::new(),
                recs_owner: u32::MAX,
                eps_cache: Vec::new(),
                f: FamilyScratch {
                    secret: Vec::new(),
                    levels: Vec::new(),
                    used: Vec::new(),
                    theory: Vec::new(),
                    correct: Vec::new(),
                    level_cache: Vec::new(),
                    path: F::Path::default(),
                    noise: Vec::new(),
                    y: Vec::new(),
                    post: Vec::new(),
                    unit_vals: Vec::new(),
                    unit_err: Vec::new(),
                    unit_sq: Vec::new(),
                    vals: Vec::new(),
                },
            },
        }
    }

    /// ε at an integer distance, cached per worker (the map is fixed).
    pub(super) fn eps_at_hop(&self, cache: &mut Vec<f64>, d: usize) -> f64 {
        if d >= cache.len() {
            let from = cache.len();
            cache.extend((from..=d).map(|k| self.map.eps(k as f64)));
        }
        cache[d]
    }

    /// Collects the owner's recipients into units: one per distinct hop
    /// distance, from the level histogram (ε evaluated once per level), or
    /// one per recipient of a continuous row.
    pub(super) fn build_units(
        &self,
        s: &mut Scratch<impl NoiseFamily>,
        owner: u32,
        dist: Dist<'_>,
        counts: &mut Counts,
    ) -> Result<()> {
        s.unit_d.clear();
        s.unit_eps.clear();
        s.unit_count.clear();
        s.unit_bucket.clear();
        s.unit_node.clear();
        let floor = self.config.unreachable == Unreachable::Floor;
        let eps_floor = self.map.eps_min().unwrap_or(f64::NAN);
        let mut unreachable = 0u64;
        match dist {
            Dist::Levels(lv) => {
                let hist = lv.hist();
                unreachable = lv.unreachable();
                s.hop_unit.clear();
                s.hop_unit.resize(hist.len(), UNIT_NONE);
                for (k, &c) in hist.iter().enumerate().skip(1) {
                    if c > 0 {
                        s.hop_unit[k] = s.unit_d.len() as u32;
                        s.unit_d.push(k as f64);
                        let e = self.eps_at_hop(&mut s.eps_cache, k);
                        s.unit_eps.push(e);
                        s.unit_count.push(c);
                        s.unit_bucket.push(k);
                    }
                }
                if unreachable > 0 && floor {
                    s.unit_d.push(f64::INFINITY);
                    s.unit_eps.push(eps_floor);
                    s.unit_count.push(unreachable);
                    s.unit_bucket.push(0);
                }
            }
            Dist::Row(row) => {
                for (j, &d) in row.iter().enumerate() {
                    if j as u32 == owner {
                        continue;
                    }
                    if !d.is_finite() {
                        unreachable += 1;
                        if !floor {
                            continue;
                        }
                    }
                    let e = if d.is_finite() {
                        self.map.eps(d)
                    } else {
                        eps_floor
                    };
                    s.unit_d.push(d);
                    s.unit_eps.push(e);
                    s.unit_count.push(1);
                    s.unit_bucket.push(self.buckets.index(d));
                    s.unit_node.push(j as u32);
                }
            }
        }
        if !floor {
            counts.skipped_unreachable += unreachable;
        }
        // Every level of the run inside the range where its sums stay finite
        // (limits: "The range of privacy levels").
        let delta = self.model.sensitivity;
        for (k, &e) in s.unit_eps.iter().enumerate() {
            if !limits::level_in_range(e, delta) {
                let d = s.unit_d[k];
                let at = if d.is_finite() {
                    format!("distance {}", limits::fmt_num(d))
                } else {
                    "unreachable members (answered at `eps_min`)".to_string()
                };
                if let Some(err) = limits::level_error(&self.map.spec(), e, &at, delta) {
                    return Err(err);
                }
            }
        }
        Ok(())
    }

    /// Hands `v` every answered recipient as (node, unit index), in node
    /// order, as one iterator (its loop compiled per kind of row). Hop
    /// levels need their level row (asked for by `process_chunk`).
    pub(super) fn recipients<V: OnRecipients>(
        &self,
        owner: u32,
        dist: Dist<'_>,
        units: UnitsOf<'_>,
        v: V,
    ) -> V::Out {
        match dist {
            Dist::Levels(lv) => {
                let floor_unit = (self.config.unreachable == Unreachable::Floor
                    && units.d.last().is_some_and(|d| !d.is_finite()))
                .then(|| (units.d.len() - 1) as u32);
                let row: LevelRow<'_> = lv
                    .row()
                    .expect("a level row is requested for per-recipient work");
                row.visit(ByHop {
                    owner,
                    hop_unit: units.hop_unit,
                    floor_unit,
                    v,
                })
            }
            Dist::Row(_) => v.run(units.node.iter().enumerate().map(|(k, &j)| (j, k as u32))),
        }
    }

    /// Lists every answered recipient as (node, unit index), in node order,
    /// once per owner.
    pub(super) fn collect_recipients<F: NoiseFamily>(
        &self,
        s: &mut Scratch<F>,
        owner: u32,
        dist: Dist<'_>,
    ) {
        if s.recs_owner == owner {
            return;
        }
        s.recs.clear();
        s.recs_owner = owner;
        struct List<'r>(&'r mut Vec<(u32, u32)>);
        impl OnRecipients for List<'_> {
            type Out = ();
            fn run(self, recs: impl Iterator<Item = (u32, u32)>) {
                self.0.extend(recs);
            }
        }
        self.recipients(owner, dist, units_of!(s), List(&mut s.recs));
    }

    pub(super) fn process_owner<F: NoiseFamily>(
        &self,
        fam: &F,
        s: &mut Scratch<F>,
        wants: Wants,
        (pos, owner): (usize, u32),
        dist: Dist<'_>,
        out: &mut ChunkOut,
    ) -> Result<()> {
        self.values.value(owner, &mut s.u);
        s.recs_owner = u32::MAX;
        self.build_units(s, owner, dist, &mut out.counts)?;
        let label = self.graph.ids().label(owner).to_string();
        let recipients: u64 = s.unit_count.iter().sum();
        if recipients == 0 {
            out.counts.owners_without_recipients += 1;
            if wants.owners {
                for r in self.replicates.clone() {
                    out.owners
                        .push(OwnerRow::without_recipients(label.clone(), r));
                }
            }
            return Ok(());
        }
        self.prepare_units(fam, s, &label)?;
        for r in self.replicates.clone() {
            let at = Owner {
                pos,
                owner,
                label: &label,
                rep: r,
                recipients,
                dist,
            };
            self.process_replicate(fam, s, wants, at, out)?;
        }
        Ok(())
    }
}
