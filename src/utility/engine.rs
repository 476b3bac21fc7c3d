//! The engine: owner chunks of 64 → a small [`ChunkPartial`] plus additions
//! into one per-worker [`Accumulators`] (O(N), exact integer sums) → merge.
//! Written once over the noise family ([`NoiseFamily`]), chosen once per
//! chunk ([`Noise::visit`](crate::process::family::Noise::visit)) and
//! monomorphised.
//!
//! Per chunk, one level-by-level bit-parallel BFS ([`LevelSearch`]) meets
//! every recipient `v` at hop level `L` with the mask `m` of the chunk's
//! owners first reaching it there. Per (owner, level) the engine computes the
//! owner's answer once (correlated: the owner's path at ε(L), walked down
//! level by level, [`NoiseFamily::walk_to`]); per (v, L, m) the sums over `m`
//! come from [`SubsetSums`] tables (eight look-ups). The independent
//! baseline's answers of a visit are drawn in `fresh.rs`: for the f64
//! families each sum at once from its law, on a grid one by one.
//!
//! Every sum is a fixed-point `i128` ([`Fixed`](super::Fixed)): each term is rounded once,
//! to a multiple of a quantum fixed per run before any term exists, and then
//! added exactly, so totals do not depend on the order of the additions —
//! on threads, on workers, or on processes merging partial vectors.

use super::fresh::{Fresh, FreshDraws};
use super::levels::LevelInfo;
use super::shrinkage::{ShrinkScratch, ShrinkSums, VisitAt};
use super::{Scheme, UtilityPlan};
use crate::distance::{LevelSearch, LevelVisitor, SubsetSums};
use crate::error::{Error, Result};
use crate::process::family::{NoiseFamily, StreamKey, Visit};
use std::ops::ControlFlow;

/// Owners per chunk: one bit-parallel search.
pub const CHUNK: usize = 64;

/// One worker's per-recipient sums, all exact: merging two in any order
/// gives the same integers. One interleaved record of `i128` slots per
/// recipient (the engine touches several sums of the same recipient per
/// visit: one or two cache lines instead of one per sum), in this order:
/// counts (owners ≠ v reaching v in the low 64 bits, those within the access
/// radius in the high 64 bits), Σ Var(answer) (projected bits: Σ q(1 − q)),
/// Σ u_i (`dim`), Σ u_i within the access radius (`dim`), Σ answers per
/// random scheme (`dim` each, [`UtilityPlan::random_schemes`] order), and
/// for projected bits Σ q_i(1 − 2u_i) and Σ q(1 − q)/(1 − 2q)².
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Accumulators {
    dim: usize,
    schemes: usize,
    bits: bool,
    stride: usize,
    slots: Vec<i128>,
    /// Hop levels counted per recipient ([`UtilityPlan::level_counts`]; 0: none).
    levels: usize,
    /// Independent answers per recipient and hop level, `levels` per
    /// recipient (level `L` at `L − 1`): their noise is drawn at evaluation.
    counts: Vec<u32>,
    /// The shrinkage rows' per-level sums (empty without them).
    pub(super) shrink: ShrinkSums,
}

/// One owner within the access radius in a record's count slot (high 64 bits).
pub(super) const ACCESS_ONE: i128 = 1 << 64;

impl Accumulators {
    /// Zeroed sums for every recipient of `plan`'s graph.
    pub fn new(plan: &UtilityPlan<'_>) -> Accumulators {
        let n = plan.graph().n();
        let dim = plan.dim();
        let bits = plan.bits();
        let schemes = plan.random_schemes().len();
        let stride = 2 + dim * (2 + schemes) + plan.rounding_slots() + if bits { 2 } else { 0 };
        let levels = plan.level_counts();
        Accumulators {
            dim,
            schemes,
            bits,
            stride,
            slots: vec![0; n * stride],
            levels,
            counts: vec![0; n * levels],
            shrink: ShrinkSums::new(plan),
        }
    }

    /// Bytes per recipient (for the memory budget), with `levels` counted
    /// hop levels.
    pub fn bytes_per_recipient(
        dim: usize,
        random_schemes: usize,
        bits: bool,
        levels: usize,
    ) -> u64 {
        16 * (2 + dim * (2 + random_schemes) + if bits { 2 } else { 0 }) as u64 + 4 * levels as u64
    }

    /// Adds `other` into `self` (exact; any order gives the same result).
    pub fn merge(&mut self, other: &Accumulators) {
        debug_assert!(self.same_layout(other));
        for (x, y) in self.slots.iter_mut().zip(&other.slots) {
            *x += *y;
        }
        for (x, y) in self.counts.iter_mut().zip(&other.counts) {
            *x += *y;
        }
        self.shrink.merge(&other.shrink);
    }

    /// Whether `other` has this layout (dimension, schemes, recipients,
    /// levels): sums that arrived from elsewhere are checked before merging.
    pub fn same_layout(&self, other: &Accumulators) -> bool {
        (self.dim, self.schemes, self.bits, self.stride, self.levels)
            == (
                other.dim,
                other.schemes,
                other.bits,
                other.stride,
                other.levels,
            )
            && self.slots.len() == other.slots.len()
            && self.counts.len() == other.counts.len()
            && self.shrink.same_layout(&other.shrink)
    }

    /// Whether these sums have the layout `plan` gives them (recipients,
    /// dimension, schemes, levels, shrinkage sums): a share that arrived
    /// from another process is checked before it is used.
    pub fn fits(&self, plan: &UtilityPlan<'_>) -> bool {
        let n = plan.graph().n();
        let (dim, bits) = (plan.dim(), plan.bits());
        let schemes = plan.random_schemes().len();
        let stride = 2 + dim * (2 + schemes) + plan.rounding_slots() + if bits { 2 } else { 0 };
        let levels = plan.level_counts();
        (self.dim, self.schemes, self.bits, self.stride, self.levels)
            == (dim, schemes, bits, stride, levels)
            && self.slots.len() == n * stride
            && self.counts.len() == n * levels
            && self.shrink.fits(plan)
    }

    /// Independent answers recipient `j` holds per hop level (index `L − 1`;
    /// empty when the plan draws their noise per visit instead).
    pub fn level_counts_of(&self, j: usize) -> &[u32] {
        &self.counts[j * self.levels..(j + 1) * self.levels]
    }

    /// Dimension of the sums.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// The record of recipient `j`.
    #[inline]
    pub(crate) fn rec(&mut self, j: usize) -> &mut [i128] {
        &mut self.slots[j * self.stride..(j + 1) * self.stride]
    }

    /// Counts `c` independent answers to `j` at hop `level` (≥ 1).
    #[inline]
    fn count_level(&mut self, j: usize, level: u32, c: u32) {
        self.counts[j * self.levels + level as usize - 1] += c;
    }

    #[inline]
    fn get(&self, j: usize) -> &[i128] {
        &self.slots[j * self.stride..(j + 1) * self.stride]
    }

    /// Owners (≠ j) reaching j.
    pub fn count(&self, j: usize) -> u64 {
        (self.get(j)[0] & (ACCESS_ONE - 1)) as u64
    }
    /// Owners (≠ j) within the access radius of j.
    pub fn access_count(&self, j: usize) -> u64 {
        (self.get(j)[0] >> 64) as u64
    }
    /// Σ Var (fixed point).
    pub fn var(&self, j: usize) -> i128 {
        self.get(j)[1]
    }
    /// Σ u_i, coordinate d (fixed point).
    pub fn sum_u(&self, j: usize, d: usize) -> i128 {
        self.get(j)[2 + d]
    }
    /// Σ u_i within the access radius, coordinate d.
    pub fn access_sum(&self, j: usize, d: usize) -> i128 {
        self.get(j)[2 + self.dim + d]
    }
    /// Σ answers of random scheme `s`, coordinate d.
    pub fn sum(&self, j: usize, s: usize, d: usize) -> i128 {
        self.get(j)[2 + self.dim * (2 + s) + d]
    }
    /// Projected bits: Σ q_i(1 − 2u_i).
    pub fn bias(&self, j: usize) -> i128 {
        self.get(j)[2 + self.dim * (2 + self.schemes)]
    }
    /// Projected bits: Σ q(1 − q)/(1 − 2q)².
    pub fn var_deb(&self, j: usize) -> i128 {
        self.get(j)[3 + self.dim * (2 + self.schemes)]
    }
    /// Discrete raw answers: Σ (γ·û_i − u_i), coordinate d (the values'
    /// format; present under discrete noise without projected bits).
    pub fn rounding(&self, j: usize, d: usize) -> i128 {
        self.get(j)[2 + self.dim * (2 + self.schemes) + d]
    }
    /// Whether the records hold the projected-bits sums.
    pub fn bits(&self) -> bool {
        self.bits
    }
}

/// The small aggregates of one chunk (merged in chunk order, or in any
/// order: they are integer counts).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ChunkPartial {
    /// Owners in the chunk.
    pub owners: u64,
    /// Answers (owner, recipient ≠ owner, reachable) per scheme.
    pub answers: u64,
    /// Jumps applied by the correlated paths.
    pub jumps: u64,
    /// Deepest hop level met.
    pub max_level: u32,
}

impl ChunkPartial {
    /// Adds another chunk's aggregates.
    pub fn merge(&mut self, o: &ChunkPartial) {
        self.owners += o.owners;
        self.answers += o.answers;
        self.jumps += o.jumps;
        self.max_level = self.max_level.max(o.max_level);
    }
}

/// Per-worker scratch reused across chunks (the family's own buffers are
/// made per chunk, `ChunkOwners`).
#[derive(Default)]
pub struct ChunkScratch {
    search: LevelSearch,
    /// Values (`dim` per owner).
    u: Vec<f64>,
    /// The owners' correlated answers at the current level (`dim` each).
    y: Vec<f64>,
    /// The owners' secrets as answered without noise, in values.
    rounded: Vec<f64>,
    u_tables: Vec<SubsetSums<i128>>,
    /// Σ (γ·û_i − u_i) over owner subsets (raw answers on a grid).
    r_tables: Vec<SubsetSums<i128>>,
    tables: Vec<SubsetSums<i128>>,
    deb_tables: Vec<SubsetSums<i128>>,
    terms: Vec<i128>,
    /// One visit's Σ u_i and Σ correlated answers over its mask (`dim`
    /// each): looked up once, read by every sum that needs them.
    sum_u: Vec<i128>,
    sum_y: Vec<i128>,
    shrink: ShrinkScratch,
    /// One visit's fresh answers and sums.
    pub(super) fresh: Fresh,
}

impl ChunkScratch {
    /// Empty scratch (buffers grow at first use).
    pub fn new() -> Self {
        Self::default()
    }
}

/// A chunk's owners under family `F`: their secrets as answered and each
/// one's walk (with its generator), started at its first level.
struct ChunkOwners<'o, F: NoiseFamily> {
    ids: &'o [u32],
    /// `dim` per owner.
    secrets: Vec<F::Coord>,
    walks: Vec<Option<(F::Walk, F::Rng)>>,
    /// Owners whose value's first coordinate is ≥ ½ (their bit is 1).
    ones: u64,
}

impl UtilityPlan<'_> {
    /// Runs one chunk (`owners`: at most 64, `chunk` its index in the run,
    /// `replicate` the replicate number): adds its answers into `acc` and
    /// returns its small aggregates. Deterministic given (chunk, owners,
    /// replicate); independent of which worker runs it.
    pub fn run_chunk(
        &self,
        chunk: u64,
        owners: &[u32],
        replicate: u64,
        scratch: &mut ChunkScratch,
        acc: &mut Accumulators,
    ) -> Result<ChunkPartial> {
        assert!(owners.len() <= CHUNK);
        struct Run<'r, 'a> {
            plan: &'r UtilityPlan<'a>,
            at: (u64, &'r [u32], u64),
            scratch: &'r mut ChunkScratch,
            acc: &'r mut Accumulators,
        }
        impl Visit for Run<'_, '_> {
            type Out = Result<ChunkPartial>;
            fn run<F: NoiseFamily>(self, fam: &F) -> Result<ChunkPartial> {
                self.plan
                    .run_chunk_with(fam, self.at, self.scratch, self.acc)
            }
        }
        self.noise().visit(Run {
            plan: self,
            at: (chunk, owners, replicate),
            scratch,
            acc,
        })
    }

    /// [`run_chunk`](Self::run_chunk) under family `fam`, `(chunk, owners,
    /// replicate)`.
    fn run_chunk_with<F: NoiseFamily>(
        &self,
        fam: &F,
        (chunk, ids, replicate): (u64, &[u32], u64),
        s: &mut ChunkScratch,
        acc: &mut Accumulators,
    ) -> Result<ChunkPartial> {
        let owners = self.prepare_owners(fam, ids, s)?;
        s.tables.resize_with(self.dim(), SubsetSums::default);
        s.deb_tables.resize_with(self.dim(), SubsetSums::default);
        s.y.clear();
        s.y.resize(ids.len() * self.dim(), 0.0);
        s.shrink.start_chunk(self);
        let top = self.top_eps().map(|e| fam.level(e)).transpose()?;
        let draws = FreshDraws::new(self, fam, chunk, replicate, s.shrink.is_on())?;
        let mut search = std::mem::take(&mut s.search);
        let mut vis = ChunkVisit {
            plan: self,
            fam,
            owners,
            replicate,
            top,
            draws,
            acc,
            partial: ChunkPartial {
                owners: ids.len() as u64,
                ..ChunkPartial::default()
            },
            err: None,
            s,
        };
        let flow = search.run(self.graph(), ids, &mut vis);
        let mut partial = vis.partial;
        let err = vis.err.take();
        partial.jumps = vis
            .owners
            .walks
            .iter()
            .flatten()
            .map(|(w, _)| fam.walk_changes(w))
            .sum();
        s.search = search;
        if let Some(e) = err {
            return Err(e);
        }
        debug_assert!(flow.is_continue());
        Ok(partial)
    }

    /// The chunk's values, their secrets as answered (a refusal names the
    /// owner, never the value) and the subset-sum tables of the values and,
    /// on a grid, of their rounding.
    fn prepare_owners<'o, F: NoiseFamily>(
        &self,
        fam: &F,
        ids: &'o [u32],
        s: &mut ChunkScratch,
    ) -> Result<ChunkOwners<'o, F>> {
        let (dim, k) = (self.dim(), ids.len());
        let mut owners = ChunkOwners {
            ids,
            secrets: Vec::with_capacity(k * dim),
            walks: Vec::with_capacity(k),
            ones: 0,
        };
        owners.walks.resize_with(k, || None);
        s.u.clear();
        s.u.resize(k * dim, 0.0);
        s.rounded.clear();
        s.rounded.resize(k * dim, 0.0);
        let mut secret = Vec::with_capacity(dim);
        let zeros = vec![F::Coord::default(); dim];
        let top = self.top_eps().map(|e| fam.level(e)).transpose()?;
        for (i, &o) in ids.iter().enumerate() {
            let at = i * dim..(i + 1) * dim;
            self.values().value(o, &mut s.u[at.clone()]);
            let label = self.graph().ids().label(o).to_string();
            let whose = crate::process::family::Whose::Owner(&label);
            fam.prepare(&s.u[at.clone()], &mut secret, whose)?;
            crate::process::family::check_resolved(fam, &s.u[at.clone()], top, whose)?;
            if self.rounding_slots() > 0 {
                fam.answer(&s.u[at.clone()], &secret, &zeros, &mut s.rounded[at])?;
            }
            owners.secrets.extend_from_slice(&secret);
            if s.u[i * dim] >= 0.5 {
                owners.ones |= 1 << i;
            }
        }
        s.u_tables.resize_with(dim, SubsetSums::default);
        s.r_tables.resize_with(dim, SubsetSums::default);
        s.terms.clear();
        s.terms.resize(k, 0);
        for c in 0..dim {
            for i in 0..k {
                s.terms[i] = self.fix_value(s.u[i * dim + c])?;
            }
            s.u_tables[c].build(&s.terms);
            if self.rounding_slots() > 0 {
                for i in 0..k {
                    s.terms[i] = self.fix_value(s.rounded[i * dim + c])?
                        - self.fix_value(s.u[i * dim + c])?;
                }
                s.r_tables[c].build(&s.terms);
            }
        }
        Ok(owners)
    }
}

/// The search's visitor: one chunk under family `F`.
struct ChunkVisit<'p, 'a, 's, F: NoiseFamily> {
    plan: &'p UtilityPlan<'a>,
    fam: &'p F,
    owners: ChunkOwners<'s, F>,
    replicate: u64,
    /// The run's largest level (the f64 paths' top).
    top: Option<F::Level>,
    draws: FreshDraws<'p, F>,
    acc: &'s mut Accumulators,
    partial: ChunkPartial,
    err: Option<Error>,
    s: &'s mut ChunkScratch,
}

impl<F: NoiseFamily> ChunkVisit<'_, '_, '_, F> {
    fn level_inner(&mut self, level: u32, nodes: &[u32], masks: &[u64]) -> Result<()> {
        let p = self.plan;
        let lv = *p.level_law(self.fam, level)?;
        let at = self.fam.level(lv.eps)?;
        self.partial.max_level = self.partial.max_level.max(level);
        let active = masks.iter().fold(0u64, |a, &m| a | m);
        self.answer_owners(active, at)?;
        self.build_tables(&lv)?;
        self.s.shrink.start_level(p, &self.s.y)?;
        for (&v, &m) in nodes.iter().zip(masks) {
            self.visit(
                VisitAt {
                    v: v as usize,
                    level,
                    mask: m,
                },
                &lv,
                at,
            )?;
        }
        Ok(())
    }

    /// Correlated: each active owner's answer at this level (its path
    /// started at its first level, walked down), once.
    fn answer_owners(&mut self, active: u64, at: F::Level) -> Result<()> {
        let (p, fam) = (self.plan, self.fam);
        let dim = p.dim();
        for i in 0..self.owners.ids.len() {
            if active >> i & 1 == 0 {
                continue;
            }
            let slot = &mut self.owners.walks[i];
            if slot.is_none() {
                let owner = u64::from(self.owners.ids[i]);
                let key = StreamKey::new(p.seed(), owner, self.replicate, fam.path_purpose());
                let mut rng = fam.generator(key)?;
                let mut walk = F::Walk::default();
                fam.start_walk(self.top.unwrap_or(at), at, &mut rng, &mut walk)?;
                *slot = Some((walk, rng));
            }
            if let Some((walk, rng)) = slot.as_mut() {
                let x = fam.walk_to(walk, at, rng)?;
                let r = i * dim..(i + 1) * dim;
                let secret = &self.owners.secrets[r.clone()];
                fam.answer(&self.s.u[r.clone()], secret, x, &mut self.s.y[r])?;
            }
        }
        Ok(())
    }

    /// Tables of this level's correlated answers (and debiased answers).
    fn build_tables(&mut self, lv: &LevelInfo) -> Result<()> {
        let p = self.plan;
        let (dim, k, bits) = (p.dim(), self.owners.ids.len(), p.bits());
        let s = &mut *self.s;
        let bit = |y: f64| if y >= 0.5 { 1.0 } else { 0.0 };
        for c in 0..dim {
            for i in 0..k {
                let y = s.y[i * dim + c];
                s.terms[i] = p.fix_value(if bits { bit(y) } else { y })?;
            }
            s.tables[c].build(&s.terms);
            if bits {
                for i in 0..k {
                    s.terms[i] = p.fix_deb(lv.debiased(bit(s.y[i * dim + c])))?;
                }
                s.deb_tables[c].build(&s.terms);
            }
        }
        Ok(())
    }

    /// Recipient `at.v` receives the answers of the owners in `at.mask`.
    fn visit(&mut self, at: VisitAt, lv: &LevelInfo, level: F::Level) -> Result<()> {
        let p = self.plan;
        let (dim, bits) = (p.dim(), p.bits());
        let m = at.mask;
        let c = m.count_ones();
        let c1 = (m & self.owners.ones).count_ones() as i128;
        let c0 = c as i128 - c1;
        self.partial.answers += c as u64;
        let counted = p.level_counts() > 0;
        // The independent answers of this visit.
        let s = &mut *self.s;
        let chunk = (&s.u[..], &self.owners.secrets[..], self.owners.ones);
        let ind_ones = self.draws.draw(p, (lv, level), m, chunk, &mut s.fresh)?;
        let acc = &mut *self.acc;
        if counted {
            acc.count_level(at.v, at.level, c);
        }
        let access = at.level <= p.access_radius();
        let schemes = p.random_schemes();
        let r = acc.rec(at.v);
        r[0] += if access {
            c as i128 * (1 + ACCESS_ONE)
        } else {
            c as i128
        };
        r[1] += lv.var_fixed[0] * c0 + lv.var_fixed[1] * c1;
        let extra_at = 2 + dim * (2 + schemes.len());
        if bits {
            // Σ E[b̃ − b] = f₀·c₀ − f₁·c₁; Σ debiased variances.
            r[extra_at] += lv.flip_fixed[0] * c0 - lv.flip_fixed[1] * c1;
            r[extra_at + 1] += lv.deb_var_fixed[0] * c0 + lv.deb_var_fixed[1] * c1;
        } else if p.rounding_slots() > 0 {
            for d in 0..dim {
                r[extra_at + d] += s.r_tables[d].sum(m);
            }
        }
        s.sum_u.clear();
        s.sum_u.extend(s.u_tables[..dim].iter().map(|t| t.sum(m)));
        s.sum_y.clear();
        s.sum_y.extend(s.tables[..dim].iter().map(|t| t.sum(m)));
        for d in 0..dim {
            let su = s.sum_u[d];
            r[2 + d] += su;
            if access {
                r[2 + dim + d] += su;
            }
        }
        for (si, sch) in schemes.iter().enumerate() {
            let at = 2 + dim * (2 + si);
            match sch {
                Scheme::Correlated => {
                    for d in 0..dim {
                        r[at + d] += s.sum_y[d];
                    }
                }
                Scheme::CorrelatedDebiased => {
                    for d in 0..dim {
                        r[at + d] += s.deb_tables[d].sum(m);
                    }
                }
                Scheme::Independent => {
                    if bits {
                        r[at] += p.fix_value(ind_ones as f64)?;
                        // The debiased sum is a function of the same count.
                        if let Some(di) = schemes
                            .iter()
                            .position(|s| *s == Scheme::IndependentDebiased)
                        {
                            let x = (ind_ones as f64 - c as f64 * lv.bits.flip[0]) / lv.bits.keep;
                            r[2 + dim * (2 + di)] += p.fix_deb(x)?;
                        }
                    } else {
                        for d in 0..dim {
                            r[at + d] += s.fresh.plain_sum(p, s.sum_u[d], d)?;
                        }
                    }
                }
                Scheme::IndependentDebiased
                | Scheme::Access
                | Scheme::CorrelatedShrinkage
                | Scheme::IndependentShrinkage => {}
            }
        }
        let shrink = &mut acc.shrink;
        if bits {
            s.shrink.visit_bits(p, shrink, at, ind_ones);
            Ok(())
        } else {
            s.shrink
                .visit_answers(p, shrink, at, &s.sum_y, s.fresh.shrink_sums())
        }
    }
}

impl<F: NoiseFamily> LevelVisitor for ChunkVisit<'_, '_, '_, F> {
    fn level(&mut self, level: u32, nodes: &[u32], masks: &[u64]) -> ControlFlow<()> {
        match self.level_inner(level, nodes, masks) {
            Ok(()) => ControlFlow::Continue(()),
            Err(e) => {
                self.err = Some(e);
                ControlFlow::Break(())
            }
        }
    }
    fn done(&mut self, _seen: &[u64]) {}
}
