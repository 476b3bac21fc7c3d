//! The engine: owner chunks of 64 → a small [`ChunkPartial`] plus additions
//! into one per-worker [`Accumulators`] (O(N), exact integer sums) → merge.
//!
//! Per chunk, one level-by-level bit-parallel BFS ([`LevelSearch`]) meets
//! every recipient `v` at hop level `L` with the mask `m` of the chunk's
//! owners first reaching it there. Per (owner, level) the engine computes the
//! owner's answer once (correlated: the owner's path at ε(L), walked down
//! level by level with [`DownWalk`]); per (v, L, m) the sums over `m` come
//! from [`SubsetSums`] tables (eight look-ups). The independent baseline
//! draws, per (v, L, m), the *sum* of the `c = |m|` fresh answers directly:
//! Σ of c iid Laplace(b) = Gamma(c, b) − Gamma(c, b) (exact in law: Laplace
//! = Exp − Exp), per coordinate for ℓ1 (and any norm in one dimension); for
//! ℓ2 with n > 1 the c answers are drawn one by one (no closed form for the
//! sum of c uniform-direction Gamma(n) radii). Projected bits: the number of
//! ones among c answers is Binomial(c₁, 1 − q) + Binomial(c₀, q).
//!
//! Every sum is a fixed-point `i128` ([`Fixed`](super::Fixed)): each term is rounded once,
//! to a multiple of a quantum fixed per run before any term exists, and then
//! added exactly, so totals do not depend on the order of the additions —
//! on threads, on workers, or on processes merging partial vectors.

use super::shrinkage::{ShrinkScratch, ShrinkSums};
use super::{Scheme, UtilityPlan};
use crate::distance::{LevelSearch, LevelVisitor, SubsetSums};
use crate::error::{Error, Result};
use crate::process::DownWalk;
use crate::process::Norm;
use crate::rng::{PrivRng, Purpose, rng_for, rng_for_stream};
use rand_distr::{Binomial, Distribution, StandardNormal};
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

/// Per-worker scratch reused across chunks.
#[derive(Default)]
pub struct ChunkScratch {
    search: LevelSearch,
    walks: Vec<Option<DownWalk>>,
    rngs: Vec<Option<PrivRng>>,
    v: Vec<f64>,
    noise: Vec<f64>,
    /// Current value of each owner's path (64 × dim).
    path: Vec<f64>,
    u: Vec<f64>,
    u_tables: Vec<SubsetSums<i128>>,
    tables: Vec<SubsetSums<i128>>,
    deb_tables: Vec<SubsetSums<i128>>,
    terms: Vec<i128>,
    shrink: ShrinkScratch,
    /// The discrete engine's buffers (src/utility/discrete.rs).
    discrete: super::discrete_scratch::DiscreteScratch,
}

impl ChunkScratch {
    /// Empty scratch (buffers grow at first use).
    pub fn new() -> Self {
        Self::default()
    }
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
        if let Some(d) = self.discrete_part() {
            return self.run_chunk_discrete(
                d,
                chunk,
                owners,
                replicate,
                &mut scratch.discrete,
                acc,
            );
        }
        let dim = self.dim();
        let k = owners.len();
        let s = scratch;
        // Own values, their subset-sum tables, and the mask of owners whose
        // bit is 1 (projected bits).
        s.u.clear();
        s.u.resize(k * dim, 0.0);
        let mut ones = 0u64;
        for (i, &o) in owners.iter().enumerate() {
            self.values().value(o, &mut s.u[i * dim..(i + 1) * dim]);
            if s.u[i * dim] >= 0.5 {
                ones |= 1 << i;
            }
        }
        s.u_tables.resize_with(dim, SubsetSums::default);
        s.terms.clear();
        s.terms.resize(k, 0);
        for c in 0..dim {
            for i in 0..k {
                s.terms[i] = self.fix_value(s.u[i * dim + c])?;
            }
            s.u_tables[c].build(&s.terms);
        }
        s.tables.resize_with(dim, SubsetSums::default);
        s.deb_tables.resize_with(dim, SubsetSums::default);
        s.walks.clear();
        s.walks.resize(k, None);
        s.rngs.clear();
        s.rngs.resize_with(k, || None);
        s.path.clear();
        s.path.resize(k * dim, 0.0);
        s.v.resize(dim, 0.0);
        s.noise.resize(dim, 0.0);
        s.shrink.start_chunk(self, chunk, replicate);
        let mut vis = Visit {
            plan: self,
            owners,
            replicate,
            ones,
            acc,
            partial: ChunkPartial {
                owners: k as u64,
                ..ChunkPartial::default()
            },
            ind_rng: rng_for_stream(self.seed(), chunk, replicate, Purpose::Independent, 1),
            err: None,
            walks: &mut s.walks,
            rngs: &mut s.rngs,
            path: &mut s.path,
            u: &s.u,
            v: &mut s.v,
            noise: &mut s.noise,
            u_tables: &s.u_tables,
            tables: &mut s.tables,
            deb_tables: &mut s.deb_tables,
            terms: &mut s.terms,
            shrink: &mut s.shrink,
        };
        let mut search = std::mem::take(&mut s.search);
        let flow = search.run(self.graph(), owners, &mut vis);
        let partial = vis.partial;
        let err = vis.err.take();
        s.search = search;
        if let Some(e) = err {
            return Err(e);
        }
        debug_assert!(flow.is_continue());
        Ok(partial)
    }
}

struct Visit<'p, 'a, 's> {
    plan: &'p UtilityPlan<'a>,
    owners: &'s [u32],
    replicate: u64,
    ones: u64,
    acc: &'s mut Accumulators,
    partial: ChunkPartial,
    ind_rng: PrivRng,
    err: Option<Error>,
    walks: &'s mut Vec<Option<DownWalk>>,
    rngs: &'s mut Vec<Option<PrivRng>>,
    path: &'s mut Vec<f64>,
    u: &'s [f64],
    v: &'s mut Vec<f64>,
    noise: &'s mut Vec<f64>,
    u_tables: &'s [SubsetSums<i128>],
    tables: &'s mut Vec<SubsetSums<i128>>,
    deb_tables: &'s mut Vec<SubsetSums<i128>>,
    terms: &'s mut Vec<i128>,
    shrink: &'s mut ShrinkScratch,
}

impl Visit<'_, '_, '_> {
    fn level_inner(&mut self, level: u32, nodes: &[u32], masks: &[u64]) -> Result<()> {
        let p = self.plan;
        let dim = p.dim();
        let k = self.owners.len();
        let lv = p.level_info(level)?;
        self.partial.max_level = self.partial.max_level.max(level);
        let active = masks.iter().fold(0u64, |a, &m| a | m);
        // Correlated: each active owner's path at this level, once.
        for i in 0..k {
            if active >> i & 1 == 0 {
                continue;
            }
            let path = &mut self.path[i * dim..(i + 1) * dim];
            let rng = self.rngs[i].get_or_insert_with(|| {
                rng_for(
                    p.seed(),
                    self.owners[i] as u64,
                    self.replicate,
                    Purpose::Path,
                )
            });
            let w =
                self.walks[i].get_or_insert_with(|| DownWalk::start(p.norm(), p.top(), path, rng));
            let before = w.jumps();
            w.descend_to(lv.lambda, path, rng);
            self.partial.jumps += w.jumps() - before;
        }
        // Tables of this level's correlated answers (and debiased answers).
        for c in 0..dim {
            for i in 0..k {
                let y = self.u[i * dim + c] + self.path[i * dim + c];
                self.terms[i] = if p.bits() {
                    let b = if y >= 0.5 { 1.0 } else { 0.0 };
                    p.fix_value(b)?
                } else {
                    p.fix_value(y)?
                };
            }
            self.tables[c].build(self.terms);
            if p.bits() {
                for i in 0..k {
                    let y = self.u[i * dim + c] + self.path[i * dim + c];
                    let b = if y >= 0.5 { 1.0 } else { 0.0 };
                    self.terms[i] = p.fix_deb((b - lv.q) / (1.0 - 2.0 * lv.q))?;
                }
                self.deb_tables[c].build(self.terms);
            }
        }
        self.shrink.start_level(p, self.u, self.path)?;
        let access = level <= p.access_radius();
        let schemes = p.random_schemes();
        let acc = &mut *self.acc;
        let bias_at = 2 + dim * (2 + schemes.len());
        let counted = p.level_counts() > 0;
        for (&v, &m) in nodes.iter().zip(masks) {
            let c = m.count_ones();
            self.partial.answers += c as u64;
            if counted {
                acc.count_level(v as usize, level, c);
            }
            let r = acc.rec(v as usize);
            r[0] += if access {
                c as i128 * (1 + ACCESS_ONE)
            } else {
                c as i128
            };
            r[1] += lv.var_fixed * c as i128;
            if p.bits() {
                let c1 = (m & self.ones).count_ones() as i128;
                // Σ q(1 − 2u) = q (c − 2 c₁)
                r[bias_at] += lv.q_fixed * (c as i128 - 2 * c1);
                r[bias_at + 1] += lv.var_deb_fixed * c as i128;
            }
            for d in 0..dim {
                let su = self.u_tables[d].sum(m);
                r[2 + d] += su;
                if access {
                    r[2 + dim + d] += su;
                }
            }
            // Projected bits: the independent ones drawn (shrinkage reuses them).
            let mut ind_ones = 0u64;
            for (si, sch) in schemes.iter().enumerate() {
                let at = 2 + dim * (2 + si);
                match sch {
                    Scheme::Correlated => {
                        for d in 0..dim {
                            r[at + d] += self.tables[d].sum(m);
                        }
                    }
                    Scheme::CorrelatedDebiased => {
                        for d in 0..dim {
                            r[at + d] += self.deb_tables[d].sum(m);
                        }
                    }
                    Scheme::Independent => {
                        if p.bits() {
                            let c1 = (m & self.ones).count_ones() as u64;
                            let ones = binomial(&mut self.ind_rng, c1, 1.0 - lv.q)
                                + binomial(&mut self.ind_rng, c as u64 - c1, lv.q);
                            ind_ones = ones;
                            r[at] += p.fix_value(ones as f64)?;
                            // The debiased sum is a function of the same count.
                            if let Some(di) = schemes
                                .iter()
                                .position(|s| *s == Scheme::IndependentDebiased)
                            {
                                let x = (ones as f64 - c as f64 * lv.q) / (1.0 - 2.0 * lv.q);
                                r[2 + dim * (2 + di)] += p.fix_deb(x)?;
                            }
                        } else if p.level_counts() > 0 {
                            // The values now; the noise of all of j's
                            // answers at this level is drawn at evaluation.
                            for d in 0..dim {
                                r[at + d] += self.u_tables[d].sum(m);
                            }
                        } else {
                            p.independent_sum(c, lv.lambda, &mut self.ind_rng, self.v, self.noise);
                            for d in 0..dim {
                                r[at + d] +=
                                    su_plus(self.u_tables[d].sum(m), p.fix_value(self.noise[d])?);
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
            self.shrink.visit(
                p,
                shrink,
                v as usize,
                level,
                m,
                self.tables,
                ind_ones,
                self.u,
            )?;
        }
        Ok(())
    }
}

#[inline]
fn su_plus(a: i128, b: i128) -> i128 {
    a + b
}

fn binomial(rng: &mut PrivRng, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    Binomial::new(n, p).map(|b| b.sample(rng)).unwrap_or(0)
}

impl LevelVisitor for Visit<'_, '_, '_> {
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

impl UtilityPlan<'_> {
    /// The sum of `c` (1..=64) independent Laplace answers' noise at process
    /// level `lambda` into `out` (`dim` coordinates): √(2·Gamma(c, 1))·N(0, 1)/λ
    /// per coordinate for ℓ1 or one dimension; c draws otherwise.
    pub(crate) fn independent_sum(
        &self,
        c: u32,
        lambda: f64,
        rng: &mut PrivRng,
        v: &mut [f64],
        out: &mut [f64],
    ) {
        let dim = self.dim();
        if self.norm() == Norm::L1 || dim == 1 {
            // Laplace(b) = b·√(2W)·Z with W ~ Exp(1), Z ~ N(0, 1) (a normal
            // scale mixture), so given the W's the sum of c draws is normal
            // with variance 2b²·ΣW, ΣW ~ Gamma(c, 1): one gamma and one
            // normal per coordinate, exact in law.
            let g = &self.unit_gammas[(c as usize).clamp(1, CHUNK) - 1];
            for x in out.iter_mut() {
                let w: f64 = g.sample(rng);
                let z: f64 = StandardNormal.sample(rng);
                *x = (2.0 * w).sqrt() * z / lambda;
            }
        } else {
            out.iter_mut().for_each(|x| *x = 0.0);
            for _ in 0..c {
                crate::process::sample_marginal(self.norm(), lambda, v, rng);
                for (o, x) in out.iter_mut().zip(v.iter()) {
                    *o += x;
                }
            }
        }
    }
}
