//! The `shrinkage` estimator (empirical Bayes, issue 27): a recipient that
//! knows each answer's noise variance shrinks the noisy answers towards a
//! common mean instead of averaging them plainly.
//!
//! Recipient j holds its own value u_j and answers y_i (i ≠ j) with noise
//! variances Var_i per coordinate: for raw answers mse_factor(n)/(n·λ_i²)
//! (λ_i = ε(d_ij)/Δ), for projected bits the variance of the debiased
//! answer, q_i(1 − q_i)/(1 − 2q_i)², whose value then stands in for y_i.
//! With c answers:
//!
//! * m̂ = Σ y_i/Var_i / Σ 1/Var_i, the precision-weighted mean;
//! * τ̂² = max(0, s² − mean Var_i), s² = Σ (y_i − ȳ)²/(c − 1) (0 for c < 2);
//! * each answer becomes m̂ + w_i(y_i − m̂), w_i = τ̂²/(τ̂² + Var_i);
//! * the estimate of ū_j is (u_j + Σ_i [m̂ + w_i(y_i − m̂)])/(1 + c): the
//!   recipient's own value enters exactly.
//!
//! An answer with Var_i = 0 (projected bits at a level so high that no bit
//! flips) is exact: m̂ is then the mean of the exact answers and w_i = 1
//! (the limits of the formulas). With equal variances m̂ = ȳ and the estimate
//! is the plain mean.
//!
//! Var_i depends on the hop level only, so everything above is a function of
//! per-level aggregates: the count c_L and the sum S_L of the answers at
//! each level, and Q = Σ (y_i − ū)² over all answers (ū: the mean of all
//! values, a constant of the run that keeps Q − c(ȳ − ū)² from cancelling;
//! Q is kept in units of a power of two near the values' and noise's
//! scale, so that it is finite for any finite values).
//! The engine adds these per (recipient, level, owner mask) exactly — i128
//! fixed point for raw answers (S_L in the values' format, so Σ_L S_L is the
//! plain mean's sum to the bit), u32 counts of ones for projected bits — and
//! [`ShrinkPlan::estimate`] combines them per recipient in level order, a
//! second pass over exact, order-independent sums: any thread or process
//! count gives the same numbers.
//!
//! The correlated scheme shrinks the correlated answers the plain mean
//! uses. The independent scheme needs each answer's square, which the plain
//! independent mean of the f64 families never draws (it draws sums of
//! answers): for raw answers the engine draws its own independent answers
//! for it, one draw per answer (`(seed, chunk, replicate, Independent)`,
//! stream 3; the sums of one visit's answers are each one fixed-point term).
//! On a grid the engine's fresh answers are drawn one by one anyway and
//! serve both. For projected bits it reuses the counts of ones that
//! `independent-debiased` draws.
//!
//! Per-level sums cost memory per recipient and hop level (raw answers:
//! 4 + 32·dim bytes, plus 32·dim per recipient; projected bits: 12 bytes),
//! so the shrinkage rows exist when the hop bound is at most
//! [`SHRINKAGE_LEVELS_MAX`]. No closed form of their MSE is known:
//! `mse_theory` stays empty.

use super::fixed::Fixed;
use super::{Scheme, UtilityPlan};
use crate::distance::SubsetSums;
use crate::error::{Error, Result};
use crate::limits;
use crate::process::family::BitFlips;

/// Largest hop bound with shrinkage rows (per-level sums per recipient).
pub const SHRINKAGE_LEVELS_MAX: usize = 32;

/// What the shrinkage estimator needs of a plan: per hop level the answers'
/// variance per coordinate, and the fixed-point formats.
#[derive(Clone, Debug)]
pub struct ShrinkPlan {
    levels: usize,
    dim: usize,
    bits: bool,
    /// Var per coordinate of an answer at level L (index L − 1; NaN where
    /// the map gives no valid level: the engine refuses such a level);
    /// projected bits: the variance of a debiased answer.
    var: Vec<f64>,
    /// Projected bits: the law of a bit per level (flips and keep).
    flips: Vec<BitFlips>,
    fx_value: Fixed,
    fx_sq: Fixed,
    /// ū per coordinate: the centre of Q.
    centre: Vec<f64>,
    /// 1/unit: Q sums ((y − ū)/unit)², unit the power of two at or above the
    /// largest value and noise scale (so squares stay finite for any
    /// finite values; powers of two scale exactly).
    inv_unit: f64,
}

impl ShrinkPlan {
    /// The shrinkage part of `plan`, or `None` when its hop bound exceeds
    /// [`SHRINKAGE_LEVELS_MAX`]. Checks the memory of all accumulators
    /// (one per worker thread, plus the total) against the budget.
    /// `accumulator_bytes` is what the engine's other sums cost per
    /// recipient.
    pub(crate) fn new(
        plan: &UtilityPlan<'_>,
        accumulator_bytes: u64,
    ) -> Result<Option<ShrinkPlan>> {
        let levels = plan.hop_bound() as usize;
        if levels > SHRINKAGE_LEVELS_MAX {
            return Ok(None);
        }
        let (dim, bits) = (plan.dim(), plan.bits());
        let n = plan.graph().n();
        let nan = BitFlips {
            flip: [f64::NAN; 2],
            keep: f64::NAN,
        };
        let mut var = vec![f64::NAN; levels];
        let mut flips = vec![nan; levels];
        for l in 0..levels {
            let Some(info) = plan.level_info(l as u32 + 1) else {
                continue;
            };
            flips[l] = info.bits;
            var[l] = if bits {
                info.debiased_variance()
            } else {
                info.coord_var
            };
        }
        let mut centre = vec![0.0; dim];
        let mut umax = 0.0f64;
        let mut u = vec![0.0; dim];
        for j in 0..n as u32 {
            plan.values().value(j, &mut u);
            for (c, x) in centre.iter_mut().zip(&u) {
                *c += x;
                umax = umax.max(x.abs());
            }
        }
        for c in &mut centre {
            *c /= n.max(1) as f64;
        }
        let noise = if plan.mse_max() > 0.0 {
            plan.mse_max().sqrt()
        } else {
            1.0
        };
        let top = umax.max(noise);
        let unit = if top > 0.0 && top.is_finite() {
            2f64.powi((top.log2().ceil() as i32).clamp(-1000, 1023))
        } else {
            1.0
        };
        // |y − ū| ≤ 2·unit + the noise: squares in units of unit² are a few
        // units (the format keeps 2^22 of headroom above 16).
        let fx_sq = Fixed::for_scale(9.0);
        let t = limits::pool_threads();
        limits::check_memory(
            "threads",
            t,
            limits::bytes_of(&[
                n as u64,
                accumulator_bytes + ShrinkSums::bytes_per_recipient(levels, dim, bits),
                t + 1,
            ]),
        )?;
        Ok(Some(ShrinkPlan {
            levels,
            dim,
            bits,
            var,
            flips,
            fx_value: plan.formats()[0],
            fx_sq,
            centre,
            inv_unit: 1.0 / unit,
        }))
    }

    /// ((y − ū)/unit)² of coordinate `d` of an answer: its term of Q.
    #[inline]
    pub(crate) fn square(&self, d: usize, y: f64) -> f64 {
        let z = (y - self.centre[d]) * self.inv_unit;
        z * z
    }

    /// Adds one independent answer `y` (`dim` values) to a visit's sums
    /// `fresh`: Σ y, then Σ of its [`square`](Self::square)s, `dim` each
    /// (answers added in owner-bit order: each visit's sums are one term,
    /// rounded once).
    #[inline]
    pub(crate) fn add_answer(&self, fresh: &mut [f64], y: &[f64]) {
        let (s1, s2) = fresh.split_at_mut(self.dim);
        for (d, &y) in y.iter().enumerate() {
            s1[d] += y;
            s2[d] += self.square(d, y);
        }
    }

    /// Hop levels with per-level sums (the hop bound).
    pub fn levels(&self) -> usize {
        self.levels
    }

    /// The variance per coordinate of an answer at hop level `level` (≥ 1).
    pub fn answer_variance(&self, level: u32) -> f64 {
        self.var[level as usize - 1]
    }

    /// Recipient `j`'s shrinkage estimate of ū_j (`dim` coordinates) from the
    /// merged sums of a replicate; `u` is its own value.
    pub fn estimate(&self, s: &ShrinkSums, j: usize, scheme: Scheme, u: &[f64]) -> Vec<f64> {
        let independent = scheme == Scheme::IndependentShrinkage;
        let mut groups = Vec::with_capacity(self.levels);
        (0..self.dim)
            .map(|d| {
                groups.clear();
                if self.bits {
                    let cnt = s.bit_counts(j);
                    let k = usize::from(independent);
                    for l in 0..self.levels {
                        let (c, ones) = (cnt[3 * l], cnt[3 * l + 1 + k]);
                        if c > 0 {
                            // The debiased values of a 1 and a 0: (b − f₀)/keep.
                            let BitFlips {
                                flip: [f0, _],
                                keep,
                            } = self.flips[l];
                            groups.push(Group::Bits {
                                c: c as f64,
                                ones: ones as f64,
                                one: (1.0 - f0) / keep,
                                zero: -f0 / keep,
                                var: self.var[l],
                            });
                        }
                    }
                    shrink_estimate(u[d], &groups, None)
                } else {
                    // In units of `unit` (a power of two: the same numbers,
                    // squares that cannot overflow).
                    let (inv, cnt) = (self.inv_unit, s.counts_of(j));
                    for (l, &c) in cnt.iter().enumerate() {
                        if c > 0 {
                            groups.push(Group::Sum {
                                c: c as f64,
                                sum: self.fx_value.to_f64(s.level_sum(j, l, independent, d)) * inv,
                                var: self.var[l] * inv * inv,
                            });
                        }
                    }
                    let q = self.fx_sq.to_f64(s.square_sum(j, independent, d));
                    let centre = self.centre[d] * inv;
                    shrink_estimate(u[d] * inv, &groups, Some((q, centre))) / inv
                }
            })
            .collect()
    }
}

/// The answers of one hop level as the estimator sees them.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Group {
    /// Raw answers: count, sum, variance of each.
    Sum { c: f64, sum: f64, var: f64 },
    /// Debiased bits: count, ones, the debiased values of a 1 and a 0, variance.
    Bits {
        c: f64,
        ones: f64,
        one: f64,
        zero: f64,
        var: f64,
    },
}

impl Group {
    fn c(&self) -> f64 {
        match *self {
            Group::Sum { c, .. } | Group::Bits { c, .. } => c,
        }
    }
    fn var(&self) -> f64 {
        match *self {
            Group::Sum { var, .. } | Group::Bits { var, .. } => var,
        }
    }
    fn sum(&self) -> f64 {
        match *self {
            Group::Sum { sum, .. } => sum,
            Group::Bits {
                c, ones, one, zero, ..
            } => ones * one + (c - ones) * zero,
        }
    }
}

/// The estimator of the module docs on per-level groups (non-empty ones);
/// `squares` = (Σ (y − ū)², ū) for raw answers (bits know their squares).
pub(crate) fn shrink_estimate(own: f64, groups: &[Group], squares: Option<(f64, f64)>) -> f64 {
    let c: f64 = groups.iter().map(Group::c).sum();
    if c == 0.0 {
        return own;
    }
    let total: f64 = groups.iter().map(Group::sum).sum();
    let mean = total / c;
    // Precision weights relative to the smallest variance present (in
    // (0, 1], no overflow); with an exact answer (Var = 0) only the exact
    // answers carry weight.
    let vmin = groups.iter().map(Group::var).fold(f64::INFINITY, f64::min);
    let weight = |v: f64| {
        if vmin > 0.0 {
            vmin / v
        } else if v == 0.0 {
            1.0
        } else {
            0.0
        }
    };
    let (mut wsum, mut wc) = (0.0, 0.0);
    for g in groups {
        wsum += weight(g.var()) * g.sum();
        wc += weight(g.var()) * g.c();
    }
    let m = wsum / wc;
    let ss = match squares {
        Some((q, centre)) => (q - c * (mean - centre) * (mean - centre)).max(0.0),
        None => groups
            .iter()
            .map(|g| match *g {
                Group::Bits {
                    c, ones, one, zero, ..
                } => {
                    ones * (one - mean) * (one - mean) + (c - ones) * (zero - mean) * (zero - mean)
                }
                Group::Sum { .. } => 0.0,
            })
            .sum(),
    };
    let s2 = if c >= 2.0 { ss / (c - 1.0) } else { 0.0 };
    let vbar = groups.iter().map(|g| g.c() * g.var()).sum::<f64>() / c;
    let tau2 = (s2 - vbar).max(0.0);
    let mut shrunk = c * m;
    for g in groups {
        let v = g.var();
        let w = if v == 0.0 { 1.0 } else { tau2 / (tau2 + v) };
        shrunk += w * (g.sum() - g.c() * m);
    }
    (own + shrunk) / (1.0 + c)
}

/// Per-recipient, per-level sums of the shrinkage schemes (part of an
/// [`Accumulators`](super::Accumulators); all exact, merged by addition in any order).
///
/// Raw answers: per recipient `levels` counts (u32), and i128 slots: per
/// level S_L of the correlated then the independent answers (`dim` each),
/// then Q of the correlated and the independent answers (`dim` each).
/// Projected bits: per recipient and level three u32 — answers, ones among
/// the correlated answers, ones among the independent answers.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ShrinkSums {
    levels: usize,
    dim: usize,
    bits: bool,
    counts: Vec<u32>,
    sums: Vec<i128>,
}

impl ShrinkSums {
    /// Zeroed sums for the recipients of `plan` (empty without shrinkage).
    pub(crate) fn new(plan: &UtilityPlan<'_>) -> ShrinkSums {
        let Some(sp) = plan.shrinkage() else {
            return ShrinkSums::default();
        };
        let n = plan.graph().n();
        let (cs, ss) = strides(sp.levels, sp.dim, sp.bits);
        ShrinkSums {
            levels: sp.levels,
            dim: sp.dim,
            bits: sp.bits,
            counts: vec![0; n * cs],
            sums: vec![0; n * ss],
        }
    }

    /// Bytes per recipient.
    pub fn bytes_per_recipient(levels: usize, dim: usize, bits: bool) -> u64 {
        let (cs, ss) = strides(levels, dim, bits);
        4 * cs as u64 + 16 * ss as u64
    }

    /// Adds `other` (exact).
    pub(crate) fn merge(&mut self, other: &ShrinkSums) {
        for (x, y) in self.counts.iter_mut().zip(&other.counts) {
            *x += *y;
        }
        for (x, y) in self.sums.iter_mut().zip(&other.sums) {
            *x += *y;
        }
    }

    fn cstride(&self) -> usize {
        strides(self.levels, self.dim, self.bits).0
    }
    fn sstride(&self) -> usize {
        strides(self.levels, self.dim, self.bits).1
    }

    /// Raw answers: the answers per level received by `j`.
    pub fn counts_of(&self, j: usize) -> &[u32] {
        let cs = self.cstride();
        &self.counts[j * cs..(j + 1) * cs]
    }

    /// Projected bits: per level (answers, correlated ones, independent ones).
    pub fn bit_counts(&self, j: usize) -> &[u32] {
        self.counts_of(j)
    }

    /// Raw answers: S_L (fixed point, the values' format) of level index
    /// `l` (= L − 1), coordinate `d`.
    pub fn level_sum(&self, j: usize, l: usize, independent: bool, d: usize) -> i128 {
        self.sums[j * self.sstride() + l * 2 * self.dim + usize::from(independent) * self.dim + d]
    }

    /// Raw answers: Q = Σ (y − ū)² (fixed point), coordinate `d`.
    pub fn square_sum(&self, j: usize, independent: bool, d: usize) -> i128 {
        self.sums[j * self.sstride()
            + self.levels * 2 * self.dim
            + usize::from(independent) * self.dim
            + d]
    }

    /// Whether there are sums (the plan has shrinkage rows).
    pub fn is_on(&self) -> bool {
        self.levels > 0
    }

    /// Whether these sums have the layout `plan` gives them (sums that
    /// arrived from another process are checked before they are merged).
    pub(crate) fn fits(&self, plan: &UtilityPlan<'_>) -> bool {
        let (levels, dim, bits) = plan
            .shrinkage()
            .map_or((0, 0, false), |sp| (sp.levels, sp.dim, sp.bits));
        let n = if levels == 0 { 0 } else { plan.graph().n() };
        let (cs, ss) = strides(levels, dim, bits);
        (self.levels, self.dim, self.bits) == (levels, dim, bits)
            && self.counts.len() == n * cs
            && self.sums.len() == n * ss
    }

    /// Whether `other` has this layout (levels, dimension, bits, lengths).
    pub(crate) fn same_layout(&self, other: &ShrinkSums) -> bool {
        (self.levels, self.dim, self.bits) == (other.levels, other.dim, other.bits)
            && self.counts.len() == other.counts.len()
            && self.sums.len() == other.sums.len()
    }
}

/// (u32 counts, i128 slots) per recipient.
fn strides(levels: usize, dim: usize, bits: bool) -> (usize, usize) {
    if levels == 0 {
        (0, 0)
    } else if bits {
        (3 * levels, 0)
    } else {
        (levels, 2 * dim * (levels + 1))
    }
}

fn overflow(x: f64) -> Error {
    Error::Numerical(format!(
        "a sum of squared answer deviations of {x} (in units of the run's largest value or \
         noise scale, squared) is beyond the exact accumulators' range"
    ))
}

/// Where the engine adds one visit: recipient `v` receives at hop `level`
/// the answers of the chunk's owners in `mask`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VisitAt {
    pub v: usize,
    pub level: u32,
    pub mask: u64,
}

/// Per-worker scratch of the engine's shrinkage additions.
#[derive(Default)]
pub(crate) struct ShrinkScratch {
    on: bool,
    /// Raw answers: Σ (y − ū)² over owner subsets, per coordinate, this level.
    sq_tables: Vec<SubsetSums<i128>>,
    terms: Vec<i128>,
    /// Projected bits: owners whose correlated bit is 1 at this level.
    corr_ones: u64,
}

impl ShrinkScratch {
    /// Before each chunk.
    pub(crate) fn start_chunk(&mut self, plan: &UtilityPlan<'_>) {
        self.on = plan.shrinkage().is_some();
    }

    /// Whether the plan has shrinkage rows.
    pub(crate) fn is_on(&self) -> bool {
        self.on
    }

    /// At each hop level, with the chunk owners' correlated answers `y` at
    /// this level (`dim` per owner).
    pub(crate) fn start_level(&mut self, plan: &UtilityPlan<'_>, y: &[f64]) -> Result<()> {
        let Some(sp) = plan.shrinkage().filter(|_| self.on) else {
            return Ok(());
        };
        let dim = sp.dim;
        let k = y.len() / dim.max(1);
        if sp.bits {
            self.corr_ones = (0..k)
                .filter(|&i| y[i * dim] >= 0.5)
                .fold(0, |m, i| m | 1 << i);
            return Ok(());
        }
        self.sq_tables.resize_with(dim, SubsetSums::default);
        self.terms.resize(k, 0);
        for d in 0..dim {
            for i in 0..k {
                let z = (y[i * dim + d] - sp.centre[d]) * sp.inv_unit;
                self.terms[i] = sp.fx_sq.to_fixed(z * z).ok_or_else(|| overflow(z * z))?;
            }
            self.sq_tables[d].build(&self.terms[..k]);
        }
        Ok(())
    }

    /// Projected bits: the visit's answers, `ind_ones` the ones among the
    /// independent bits drawn for it.
    pub(crate) fn visit_bits(
        &mut self,
        plan: &UtilityPlan<'_>,
        sums: &mut ShrinkSums,
        at: VisitAt,
        ind_ones: u64,
    ) {
        if plan.shrinkage().filter(|_| self.on).is_none() {
            return;
        }
        let l = at.level as usize - 1;
        let i = at.v * sums.cstride() + 3 * l;
        sums.counts[i] += at.mask.count_ones();
        sums.counts[i + 1] += (at.mask & self.corr_ones).count_ones();
        sums.counts[i + 2] += ind_ones as u32;
    }

    /// Raw answers: the visit's correlated answers through their sums
    /// `corr` (fixed point, `dim`), and its independent answers through their sums `fresh`
    /// ([`ShrinkPlan::add_answer`]; each visit's sums are one term, rounded
    /// once).
    pub(crate) fn visit_answers(
        &mut self,
        plan: &UtilityPlan<'_>,
        sums: &mut ShrinkSums,
        at: VisitAt,
        corr: &[i128],
        fresh: &[f64],
    ) -> Result<()> {
        let Some(sp) = plan.shrinkage().filter(|_| self.on) else {
            return Ok(());
        };
        let l = at.level as usize - 1;
        let cs = sums.cstride();
        sums.counts[at.v * cs + l] += at.mask.count_ones();
        let dim = sp.dim;
        let base = at.v * sums.sstride();
        let (lsum, sq) = (base + l * 2 * dim, base + sp.levels * 2 * dim);
        for (d, (&t, q)) in corr.iter().zip(&self.sq_tables).enumerate().take(dim) {
            sums.sums[lsum + d] += t;
            sums.sums[sq + d] += q.sum(at.mask);
        }
        let (s1, s2) = fresh.split_at(dim);
        for d in 0..dim {
            sums.sums[lsum + dim + d] += plan.fix_value(s1[d])?;
            sums.sums[sq + dim + d] += sp.fx_sq.to_fixed(s2[d]).ok_or_else(|| overflow(s2[d]))?;
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests;
