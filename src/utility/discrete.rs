//! `noise = discrete` in the utility (issue 25 item 2; memo `discrete.md`):
//! the engine of [`engine`](super::engine) with the exact integer chain of
//! [`process::discrete`](crate::process::discrete) instead of the f64 paths.
//!
//! * Values are rounded half up to the grid (û); every answer is
//!   y = (û + X)·γ, exact; hop level L is answered at its rung (the largest
//!   ladder level ≤ ε(L)), recorded in `summary.json` (`eps_by_hop`).
//! * Correlated: one chain per owner and replicate, drawn from the
//!   generator simulate uses (`(seed, owner, replicate, Path)` or the OS) with
//!   the owner's largest needed rung (its first level's) as top, and walked
//!   down through every rung ([`DiscreteWalk`], the sampler simulate's
//!   [`sample_path_into`](crate::process::discrete::DiscreteNoise::sample_path_into)
//!   shares): the realised path is simulate's for the same seed, owner and
//!   replicate (test `correlated_answers_are_simulates`).
//! * Independent: one fresh exact DL draw per answer at its rung (chunk
//!   generator `(seed, chunk, replicate, Independent)`, draws in visit order:
//!   level, recipient, owner bit). No sum-at-once construction: the sum of c
//!   DL(a) draws is NB(c, 1 − a) − NB(c, 1 − a), whose exact integer samplers
//!   cost c geometric draws anyway, and an f64 Poisson–gamma mixture would not
//!   be exact in integers. The visit's answers are summed in grid integers
//!   (exact) and feed both the plain mean and the shrinkage rows (their
//!   squares), so each independent answer is drawn once.
//! * Theory (memo §1, issue 25): per answer Var = n·2a/(1 − a)²·γ² at the
//!   rung; a recipient's mean adds the owners' rounding as a bias, so
//!   `mse_theory` = (Σ_i ‖·‖² of the summed rounding Σ_i (γ·û_i − u_i))/n_j² +
//!   Σ Var/n_j² (the per-answer formula's mean squared rounding becomes the
//!   squared mean rounding of a mean of answers).
//! * Projected bits: flip probabilities [P(flip | 0), P(flip | 1)] of the
//!   discrete law at the rung ([`bit_flip_probabilities`]; ties go up, so
//!   they differ on grids finer than ½): debiased answer (b − f₀)/(1 − f₀ − f₁),
//!   its variance f_b(1 − f_b)/(1 − f₀ − f₁)² (the shrinkage rows, which do not
//!   know b, take the mean over b of the two).
//!
//! [`bit_flip_probabilities`]: crate::process::discrete::DiscreteNoise::bit_flip_probabilities

use super::discrete_scratch::DiscreteScratch;
use super::engine::{ACCESS_ONE, Accumulators, ChunkPartial};
use super::fixed::Fixed;
use super::{Scheme, UtilityPlan};
use crate::distance::{LevelVisitor, SubsetSums};
use crate::error::{Error, Result};
use crate::process::discrete::{
    DiscreteNoise, DiscreteSummary, DiscreteWalk, NoiseRng, RngSource, Rung,
};
use crate::rng::Purpose;
use crate::sim::Plan;
use serde::Serialize;
use std::ops::ControlFlow;

/// One hop level under the discrete law at its rung.
#[derive(Clone, Copy, Debug)]
pub(crate) struct DiscreteLevel {
    /// The rung answering the level.
    pub rung: Rung,
    /// Its ε (the level actually used).
    pub eps: f64,
    /// Variance of one coordinate's noise in value units²: 2a/(1 − a)²·γ².
    pub var: f64,
    /// Projected bits: [P(flip | 0), P(flip | 1)] (zeros for raw answers).
    pub flips: [f64; 2],
    /// Raw: n·var (fixed point, variance format).
    var_fixed: i128,
    /// Bits: f_b(1 − f_b) per bit b (variance format).
    flip_var_fixed: [i128; 2],
    /// Bits: f₀ and f₁ (bias format).
    flip_fixed: [i128; 2],
    /// Bits: f_b(1 − f_b)/(1 − f₀ − f₁)² per bit b (debiased variance format).
    deb_var_fixed: [i128; 2],
}

impl DiscreteLevel {
    /// Debiased variance of an answer whose bit is b, per b.
    fn deb_var(&self) -> [f64; 2] {
        let [f0, f1] = self.flips;
        let s = 1.0 - f0 - f1;
        [f0 * (1.0 - f0) / (s * s), f1 * (1.0 - f1) / (s * s)]
    }
}

/// The discrete part of a utility plan: the noise, its entropy source and
/// every hop level's rung and closed forms.
#[derive(Clone, Debug)]
pub(crate) struct DiscreteUtility {
    noise: DiscreteNoise,
    rng: RngSource,
    /// Index L (0 unused); `None` where the level has no allowed rung.
    levels: Vec<Option<DiscreteLevel>>,
}

/// The `discrete` record of a utility's `summary.json`: simulate's record
/// (noise, γ, m, Δ_Z, rng) and the rung's ε used at each hop 1, 2, … up to
/// the deepest level met.
#[derive(Clone, Debug, Serialize)]
pub struct UtilityDiscreteSummary {
    /// γ, m, Δ_Z, the noise and the entropy source.
    #[serde(flatten)]
    pub noise: DiscreteSummary,
    /// ε of the rung answering hop 1, 2, …
    pub eps_by_hop: Vec<f64>,
}

impl DiscreteUtility {
    /// The discrete part of `plan` (`None` for Laplace), the levels on
    /// 1..=`hop_bound`, and the fixed-point formats (values, debiased values,
    /// variances, bias, debiased variances) for `umax`, the values' largest
    /// magnitude.
    pub(super) fn new(
        plan: &Plan<'_>,
        hop_bound: u32,
        bits: bool,
        umax: f64,
    ) -> Result<Option<(DiscreteUtility, [Fixed; 5])>> {
        let Some(sim) = plan.discrete() else {
            return Ok(None);
        };
        let noise = sim.noise().clone();
        let g = noise.grid().value();
        let dim = noise.dim() as f64;
        let mut levels: Vec<Option<DiscreteLevel>> = vec![None];
        for d in 1..=hop_bound {
            let Ok(rung) = noise.rung_of(plan.map().eps(d as f64)) else {
                levels.push(None);
                continue;
            };
            let flips = if bits {
                noise.bit_flip_probabilities(rung)?
            } else {
                [0.0; 2]
            };
            levels.push(Some(DiscreteLevel {
                rung,
                eps: noise.eps_of(rung),
                var: noise.variance(rung) * g * g,
                flips,
                var_fixed: 0,
                flip_var_fixed: [0; 2],
                flip_fixed: [0; 2],
                deb_var_fixed: [0; 2],
            }));
        }
        // Largest single terms over the levels (the smallest rung's).
        let valid = || levels.iter().flatten();
        let var_max = valid().map(|l| l.var).fold(0.0, f64::max);
        let deb_max = valid()
            .map(|l| 1.0 / (1.0 - l.flips[0] - l.flips[1]))
            .fold(1.0, f64::max);
        let deb_var_max = valid().flat_map(|l| l.deb_var()).fold(0.0, f64::max);
        let scale = |x: f64| if x > 0.0 { x } else { 1.0 };
        let fx_value = Fixed::for_scale(if bits {
            1.0
        } else {
            scale((umax + g).max((dim * var_max).sqrt()))
        });
        let fx_deb = Fixed::for_scale(deb_max);
        let fx_var = Fixed::for_scale(if bits { 0.25 } else { scale(dim * var_max) });
        let fx_bias = Fixed::for_scale(0.5);
        let fx_var_deb = Fixed::for_scale(scale(deb_var_max));
        let to = |f: Fixed, x: f64| {
            f.to_fixed(x).ok_or_else(|| {
                Error::Numerical(format!("a discrete level's closed form {x} overflowed"))
            })
        };
        for l in levels.iter_mut().flatten() {
            if !bits {
                l.var_fixed = to(fx_var, dim * l.var)?;
                continue;
            }
            let [f0, f1] = l.flips;
            let [v0, v1] = l.deb_var();
            l.flip_var_fixed = [to(fx_var, f0 * (1.0 - f0))?, to(fx_var, f1 * (1.0 - f1))?];
            l.flip_fixed = [to(fx_bias, f0)?, to(fx_bias, f1)?];
            l.deb_var_fixed = [to(fx_var_deb, v0)?, to(fx_var_deb, v1)?];
        }
        let part = DiscreteUtility {
            noise,
            rng: sim.rng(),
            levels,
        };
        Ok(Some((
            part,
            [fx_value, fx_deb, fx_var, fx_bias, fx_var_deb],
        )))
    }

    /// The level `level` (≥ 1), or the error naming the smallest allowed ε.
    fn level(&self, plan: &Plan<'_>, level: u32) -> Result<&DiscreteLevel> {
        if let Some(Some(l)) = self.levels.get(level as usize) {
            return Ok(l);
        }
        let eps = plan.map().eps(level as f64);
        self.noise.rung_of(eps)?;
        Err(Error::Numerical(format!(
            "hop level {level} beyond the bound of the run"
        )))
    }

    /// Per hop level (index L − 1, `levels` of them): the shrinkage rows'
    /// variance per coordinate (raw: γ²·2a/(1 − a)²; bits: the mean over b of
    /// the debiased variances) and flips; NaN where no rung is allowed. Also
    /// the largest noise scale (√ of the largest variance, all coordinates).
    pub(crate) fn shrink_levels(
        &self,
        levels: usize,
        bits: bool,
    ) -> (Vec<f64>, Vec<[f64; 2]>, f64) {
        let mut var = vec![f64::NAN; levels];
        let mut flips = vec![[f64::NAN; 2]; levels];
        let mut top = 0.0f64;
        for l in 0..levels {
            let Some(Some(lv)) = self.levels.get(l + 1) else {
                continue;
            };
            var[l] = if bits {
                let [a, b] = lv.deb_var();
                0.5 * (a + b)
            } else {
                lv.var
            };
            flips[l] = lv.flips;
            top = top.max(lv.var * self.noise.dim() as f64);
        }
        (var, flips, if top > 0.0 { top.sqrt() } else { 1.0 })
    }

    /// `summary.json`'s record, with the rungs of hops 1..=`max_level`.
    pub(crate) fn summary(&self, max_level: u32) -> UtilityDiscreteSummary {
        UtilityDiscreteSummary {
            noise: DiscreteSummary::of(&self.noise, self.rng),
            eps_by_hop: (1..=max_level as usize)
                .map(|l| {
                    self.levels
                        .get(l)
                        .copied()
                        .flatten()
                        .map_or(f64::NAN, |x| x.eps)
                })
                .collect(),
        }
    }
}

impl UtilityPlan<'_> {
    /// The discrete part (`None` under Laplace noise).
    pub(crate) fn discrete_part(&self) -> Option<&DiscreteUtility> {
        self.discrete.as_ref()
    }

    /// Rounding slots per recipient record: Σ (γ·û_i − u_i) per coordinate
    /// for raw answers under discrete noise, none otherwise.
    pub(crate) fn rounding_slots(&self) -> usize {
        if self.discrete.is_some() && !self.bits() {
            self.dim()
        } else {
            0
        }
    }

    /// `theory` (Σ Var in value units², raw answers) plus the squared summed
    /// rounding of recipient `j`'s owners under discrete noise.
    pub(crate) fn with_rounding(&self, acc: &Accumulators, j: usize, theory: f64) -> f64 {
        if self.rounding_slots() == 0 {
            return theory;
        }
        let r: f64 = (0..self.dim())
            .map(|d| self.fx_value.to_f64(acc.rounding(j, d)).powi(2))
            .sum();
        theory + r
    }

    /// `summary.json`'s discrete record (`None` under Laplace).
    pub fn discrete_summary(&self, max_level: u32) -> Option<UtilityDiscreteSummary> {
        self.discrete.as_ref().map(|d| d.summary(max_level))
    }

    /// [`run_chunk`](Self::run_chunk) under discrete noise.
    pub(super) fn run_chunk_discrete(
        &self,
        d: &DiscreteUtility,
        chunk: u64,
        owners: &[u32],
        replicate: u64,
        s: &mut DiscreteScratch,
        acc: &mut Accumulators,
    ) -> Result<ChunkPartial> {
        let dim = self.dim();
        let k = owners.len();
        let grid = d.noise.grid();
        s.u.clear();
        s.u.resize(k * dim, 0.0);
        s.uhat.clear();
        s.uhat.resize(k * dim, 0);
        let mut ones = 0u64;
        for (i, &o) in owners.iter().enumerate() {
            let at = i * dim..(i + 1) * dim;
            self.values().value(o, &mut s.u[at.clone()]);
            d.noise.round_into(&s.u[at.clone()], &mut s.uhat[at])?;
            if s.u[i * dim] >= 0.5 {
                ones |= 1 << i;
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
                    let g = grid.value_of(i128::from(s.uhat[i * dim + c]))?;
                    s.terms[i] = self.fix_value(g)? - self.fix_value(s.u[i * dim + c])?;
                }
                s.r_tables[c].build(&s.terms);
            }
        }
        s.tables.resize_with(dim, SubsetSums::default);
        s.deb_tables.resize_with(dim, SubsetSums::default);
        s.walks.clear();
        s.walks.resize_with(k, || None);
        s.y.clear();
        s.y.resize(k * dim, 0.0);
        s.zeros.clear();
        s.zeros.resize(k * dim, 0.0);
        s.x.clear();
        s.x.resize(dim, 0);
        s.isum.clear();
        s.isum.resize(dim, 0);
        s.shrink.start_chunk(self, chunk, replicate);
        let ind_rng = d
            .rng
            .generator(self.seed(), chunk, replicate, Purpose::Independent)?;
        let mut search = std::mem::take(&mut s.search);
        let mut vis = DVisit {
            plan: self,
            d,
            owners,
            replicate,
            ones,
            acc,
            partial: ChunkPartial {
                owners: k as u64,
                ..ChunkPartial::default()
            },
            ind_rng,
            err: None,
            s,
        };
        let flow = search.run(self.graph(), owners, &mut vis);
        let mut partial = vis.partial;
        let err = vis.err.take();
        s.search = search;
        if let Some(e) = err {
            return Err(e);
        }
        debug_assert!(flow.is_continue());
        partial.jumps = s
            .walks
            .iter()
            .flatten()
            .map(|(w, _)| w.path().num_changes() as u64)
            .sum();
        Ok(partial)
    }
}

struct DVisit<'p, 'a, 's> {
    plan: &'p UtilityPlan<'a>,
    d: &'p DiscreteUtility,
    owners: &'s [u32],
    replicate: u64,
    ones: u64,
    acc: &'s mut Accumulators,
    partial: ChunkPartial,
    ind_rng: NoiseRng,
    err: Option<Error>,
    s: &'s mut DiscreteScratch,
}

impl DVisit<'_, '_, '_> {
    fn level_inner(&mut self, level: u32, nodes: &[u32], masks: &[u64]) -> Result<()> {
        let (p, d) = (self.plan, self.d);
        let noise = &d.noise;
        let grid = noise.grid();
        let dim = p.dim();
        let k = self.owners.len();
        let bits = p.bits();
        let lv = *d.level(&p.plan, level)?;
        self.partial.max_level = self.partial.max_level.max(level);
        let s = &mut *self.s;
        let active = masks.iter().fold(0u64, |a, &m| a | m);
        // Correlated: each active owner's chain at this rung (started at its
        // first level, the largest rung it needs), walked down.
        for i in 0..k {
            if active >> i & 1 == 0 {
                continue;
            }
            if s.walks[i].is_none() {
                let mut rng = d.rng.generator(
                    p.seed(),
                    self.owners[i] as u64,
                    self.replicate,
                    Purpose::Path,
                )?;
                let w = DiscreteWalk::start(noise, lv.rung, &mut rng)?;
                s.walks[i] = Some((w, rng));
            }
            if let Some((walk, rng)) = s.walks[i].as_mut() {
                let x = walk.value_at(lv.rung, rng)?;
                let at = i * dim..(i + 1) * dim;
                noise.answer_into(&s.uhat[at.clone()], x, &mut s.y[at])?;
            }
        }
        let [f0, f1] = lv.flips;
        let keep = 1.0 - f0 - f1;
        for c in 0..dim {
            for i in 0..k {
                let y = s.y[i * dim + c];
                s.terms[i] = if bits {
                    p.fix_value(if y >= 0.5 { 1.0 } else { 0.0 })?
                } else {
                    p.fix_value(y)?
                };
            }
            s.tables[c].build(&s.terms);
            if bits {
                for i in 0..k {
                    let b = if s.y[i * dim + c] >= 0.5 { 1.0 } else { 0.0 };
                    s.terms[i] = p.fix_deb((b - f0) / keep)?;
                }
                s.deb_tables[c].build(&s.terms);
            }
        }
        // The shrinkage rows read the answers (as values, with zero noise).
        s.shrink.start_level(p, &s.y, &s.zeros)?;
        let access = level <= p.access_radius();
        let schemes = p.random_schemes();
        let acc = &mut *self.acc;
        let extra_at = 2 + dim * (2 + schemes.len());
        let deb_at = schemes
            .iter()
            .position(|s| *s == Scheme::IndependentDebiased)
            .map(|di| 2 + dim * (2 + di));
        for (&v, &m) in nodes.iter().zip(masks) {
            let c = m.count_ones();
            let c1 = (m & self.ones).count_ones() as i128;
            let c0 = c as i128 - c1;
            self.partial.answers += c as u64;
            let r = acc.rec(v as usize);
            r[0] += if access {
                c as i128 * (1 + ACCESS_ONE)
            } else {
                c as i128
            };
            if bits {
                r[1] += lv.flip_var_fixed[0] * c0 + lv.flip_var_fixed[1] * c1;
                // Σ E[b̃ − b] = f₀·c₀ − f₁·c₁; Σ debiased variances.
                r[extra_at] += lv.flip_fixed[0] * c0 - lv.flip_fixed[1] * c1;
                r[extra_at + 1] += lv.deb_var_fixed[0] * c0 + lv.deb_var_fixed[1] * c1;
            } else {
                r[1] += lv.var_fixed * c as i128;
                for dd in 0..dim {
                    r[extra_at + dd] += s.r_tables[dd].sum(m);
                }
            }
            for dd in 0..dim {
                let su = s.u_tables[dd].sum(m);
                r[2 + dd] += su;
                if access {
                    r[2 + dim + dd] += su;
                }
            }
            // Independent: one fresh draw per answer, in owner-bit order.
            s.ind.clear();
            s.isum.iter_mut().for_each(|x| *x = 0);
            let mut ind_ones = 0u64;
            let mut rest = m;
            while rest != 0 {
                let i = rest.trailing_zeros() as usize;
                rest &= rest - 1;
                noise.sample_fresh_into(lv.rung, &mut self.ind_rng, &mut s.x)?;
                for dd in 0..dim {
                    let z = i128::from(s.uhat[i * dim + dd]) + i128::from(s.x[dd]);
                    s.isum[dd] += z;
                    let y = grid.value_of(z)?;
                    if bits {
                        ind_ones += u64::from(y >= 0.5);
                    } else {
                        s.ind.push(y);
                    }
                }
            }
            for (si, sch) in schemes.iter().enumerate() {
                let at = 2 + dim * (2 + si);
                match sch {
                    Scheme::Correlated => {
                        for dd in 0..dim {
                            r[at + dd] += s.tables[dd].sum(m);
                        }
                    }
                    Scheme::CorrelatedDebiased => {
                        for dd in 0..dim {
                            r[at + dd] += s.deb_tables[dd].sum(m);
                        }
                    }
                    Scheme::Independent => {
                        if bits {
                            r[at] += p.fix_value(ind_ones as f64)?;
                            if let Some(di) = deb_at {
                                let x = (ind_ones as f64 - c as f64 * f0) / keep;
                                r[di] += p.fix_deb(x)?;
                            }
                        } else {
                            for dd in 0..dim {
                                r[at + dd] += p.fix_value(grid.value_of(s.isum[dd])?)?;
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
                s.shrink
                    .visit(p, shrink, v as usize, level, m, &s.tables, ind_ones, &s.u)?;
            } else {
                s.shrink
                    .visit_answers(p, shrink, v as usize, level, m, &s.tables, &s.ind)?;
            }
        }
        Ok(())
    }
}

impl LevelVisitor for DVisit<'_, '_, '_> {
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

#[cfg(test)]
#[path = "discrete_tests.rs"]
mod tests;
