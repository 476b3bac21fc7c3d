//! Running replicates locally: chunks on the rayon pool into per-worker
//! exact accumulators, evaluation per recipient, and the rows over
//! replicates.

use super::{
    Accumulators, ChunkPartial, ChunkScratch, NOISE_BLOCK, NOISE_STREAM, RecipientErrors, Scheme,
    UtilityPlan, UtilityResult, UtilityRow, bucket_range, degree_bucket,
};
use crate::control::Control;
use crate::error::Result;
use rayon::prelude::*;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

impl UtilityPlan<'_> {
    /// Runs every chunk of one replicate on the rayon pool: one
    /// [`Accumulators`] per worker, chunks taken dynamically, merged at the
    /// end (exact, so the result does not depend on the scheduling).
    pub fn run_replicate(
        &self,
        replicate: u64,
        control: &Control,
        done: &(dyn Fn(u64) + Sync),
    ) -> Result<(Accumulators, ChunkPartial)> {
        self.run_replicate_below(replicate, control, done, None, (0, 1))
            .map(|(a, p, _)| (a, p))
    }

    /// [`run_replicate`](Self::run_replicate) that gives up as soon as a
    /// chunk meets a level deeper than `ceiling`: then the third value is
    /// `false` and the aggregates are incomplete (their `max_level` is the
    /// deepest level met so far, beyond the ceiling).
    pub(super) fn run_replicate_below(
        &self,
        replicate: u64,
        control: &Control,
        done: &(dyn Fn(u64) + Sync),
        ceiling: Option<u32>,
        (first, step): (usize, usize),
    ) -> Result<(Accumulators, ChunkPartial, bool)> {
        // This call's chunks: first, first + step, … (a cluster process's share).
        let chunks = self.chunks().saturating_sub(first).div_ceil(step.max(1));
        let next = AtomicUsize::new(0);
        let beyond = std::sync::atomic::AtomicBool::new(false);
        let workers = rayon::current_num_threads().clamp(1, chunks.max(1));
        let out: Mutex<Vec<Result<(Accumulators, ChunkPartial)>>> = Mutex::new(Vec::new());
        rayon::scope(|sc| {
            for _ in 0..workers {
                sc.spawn(|_| {
                    let r = (|| {
                        let mut acc = Accumulators::new(self);
                        let mut partial = ChunkPartial::default();
                        let mut scratch = ChunkScratch::new();
                        loop {
                            let c = next.fetch_add(1, Ordering::Relaxed);
                            if c >= chunks || beyond.load(Ordering::Relaxed) {
                                break;
                            }
                            let c = first + c * step.max(1);
                            control.check()?;
                            let p = self.run_chunk(
                                c as u64,
                                self.chunk(c),
                                replicate,
                                &mut scratch,
                                &mut acc,
                            )?;
                            partial.merge(&p);
                            done(p.owners);
                            if ceiling.is_some_and(|h| p.max_level > h) {
                                beyond.store(true, Ordering::Relaxed);
                            }
                        }
                        Ok((acc, partial))
                    })();
                    if let Ok(mut o) = out.lock() {
                        o.push(r);
                    }
                });
            }
        });
        let mut total = Accumulators::new(self);
        let mut partial = ChunkPartial::default();
        let results = out.into_inner().unwrap_or_default();
        for r in results {
            let (a, p) = r?;
            total.merge(&a);
            partial.merge(&p);
        }
        Ok((total, partial, !beyond.into_inner()))
    }

    /// The independent noise of every recipient's answers (`dim` per
    /// recipient) from the per-level counts, or `None` when the engine drew
    /// it during the search ([`level_counts`](Self::level_counts) = 0). One
    /// generator per block of [`NOISE_BLOCK`] recipients (keyed by block and
    /// replicate), so the draws do not depend on the thread count.
    fn level_noise(&self, acc: &Accumulators, replicate: u64) -> Option<Vec<f64>> {
        use rand_distr::{Distribution, Gamma, StandardNormal};
        if self.level_counts == 0 || !self.random.contains(&Scheme::Independent) {
            return None;
        }
        let dim = self.dim();
        let mut out = vec![0.0; self.graph().n() * dim];
        out.par_chunks_mut(NOISE_BLOCK * dim)
            .enumerate()
            .for_each(|(b, block)| {
                let mut rng = crate::rng::rng_for_stream(
                    self.seed(),
                    b as u64,
                    replicate,
                    crate::rng::Purpose::Independent,
                    NOISE_STREAM,
                );
                for (k, z) in block.chunks_mut(dim).enumerate() {
                    let j = b * NOISE_BLOCK + k;
                    let counts = acc.level_counts_of(j);
                    for x in z.iter_mut() {
                        // Σ over levels of 2·Gamma(count, 1)/λ²: the variance
                        // of the normal that the sum of the Laplace draws is,
                        // given their exponential mixing weights.
                        let mut var = 0.0;
                        for (l, &c) in counts.iter().enumerate() {
                            if c == 0 {
                                continue;
                            }
                            let lambda =
                                self.levels[l + 1].and_then(|i| i.rate).unwrap_or(f64::NAN);
                            let w: f64 = Gamma::new(c as f64, 1.0)
                                .map(|g| g.sample(&mut rng))
                                .unwrap_or(f64::NAN);
                            var += 2.0 * w / (lambda * lambda);
                        }
                        let n: f64 = StandardNormal.sample(&mut rng);
                        *x = var.sqrt() * n;
                    }
                }
            });
        Some(out)
    }

    /// Per-recipient estimates and squared errors from the merged sums of
    /// replicate `replicate`.
    pub fn evaluate(&self, acc: &Accumulators, replicate: u64) -> RecipientErrors {
        let n = self.graph().n();
        let dim = self.dim();
        let bits = self.bits();
        let ns = self.schemes.len();
        let mut out = RecipientErrors {
            n_values: Vec::with_capacity(n),
            mean: Vec::with_capacity(n * dim),
            estimates: vec![Vec::with_capacity(n * dim); ns],
            sq_err: vec![Vec::with_capacity(n); ns],
            theory: self
                .schemes
                .iter()
                .map(|s| s.has_theory().then(|| Vec::with_capacity(n)))
                .collect(),
        };
        let mut u = vec![0.0; dim];
        let fv = self.fx_value;
        let noise = self.level_noise(acc, replicate);
        for j in 0..n {
            self.values().value(j as u32, &mut u);
            let nj = 1 + acc.count(j);
            let nf = nj as f64;
            out.n_values.push(nj);
            let mean: Vec<f64> = (0..dim)
                .map(|d| (u[d] + fv.to_f64(acc.sum_u(j, d))) / nf)
                .collect();
            out.mean.extend_from_slice(&mean);
            for (si, s) in self.schemes.iter().enumerate() {
                let (est, theory): (Vec<f64>, Option<f64>) = match s {
                    Scheme::Access => {
                        let na = (1 + acc.access_count(j)) as f64;
                        (
                            (0..dim)
                                .map(|d| (u[d] + fv.to_f64(acc.access_sum(j, d))) / na)
                                .collect(),
                            None,
                        )
                    }
                    Scheme::CorrelatedShrinkage | Scheme::IndependentShrinkage => {
                        match self.shrinkage() {
                            Some(sp) => (sp.estimate(&acc.shrink, j, *s, &u), None),
                            None => (vec![f64::NAN; dim], None),
                        }
                    }
                    _ => {
                        let ri = self.random.iter().position(|r| r == s).expect("random");
                        let deb =
                            matches!(s, Scheme::CorrelatedDebiased | Scheme::IndependentDebiased);
                        let f = if deb { self.fx_deb } else { fv };
                        let extra = |d: usize| match (&noise, s) {
                            (Some(z), Scheme::Independent) => z[j * dim + d],
                            _ => 0.0,
                        };
                        let est = (0..dim)
                            .map(|d| (u[d] + f.to_f64(acc.sum(j, ri, d)) + extra(d)) / nf)
                            .collect();
                        let th = if deb {
                            self.fx_var_deb.to_f64(acc.var_deb(j))
                        } else if bits {
                            let b = self.fx_bias.to_f64(acc.bias(j));
                            b * b + self.fx_var.to_f64(acc.var(j))
                        } else {
                            // Discrete noise adds the owners' rounding (a bias).
                            self.with_rounding(acc, j, self.fx_var.to_f64(acc.var(j)))
                        };
                        (est, Some(th / (nf * nf)))
                    }
                };
                let e2: f64 = est.iter().zip(&mean).map(|(a, b)| (a - b) * (a - b)).sum();
                out.estimates[si].extend_from_slice(&est);
                out.sq_err[si].push(e2);
                if let (Some(t), Some(v)) = (out.theory[si].as_mut(), theory) {
                    t.push(v);
                }
            }
        }
        out
    }

    /// `utility.csv` rows from the replicates' per-recipient errors.
    pub fn rows(&self, reps: &[Vec<Vec<f64>>], first: &RecipientErrors) -> Vec<UtilityRow> {
        let g = self.graph();
        let n = g.n();
        let bucket: Vec<usize> = (0..n as u32)
            .map(|j| degree_bucket(g.degree(j) as u64))
            .collect();
        let nb = bucket.iter().copied().max().unwrap_or(0) + 1;
        let mut members = vec![0u64; nb];
        for &b in &bucket {
            members[b] += 1;
        }
        let r = reps.len();
        let mut rows = Vec::new();
        for (si, s) in self.schemes.iter().enumerate() {
            let groups: Vec<Option<usize>> = (0..nb)
                .filter(|&b| members[b] > 0)
                .map(Some)
                .chain([None])
                .collect();
            for grp in groups {
                let inside = |j: usize| grp.is_none_or(|b| bucket[j] == b);
                let count = match grp {
                    Some(b) => members[b],
                    None => n as u64,
                };
                if count == 0 {
                    continue;
                }
                let per_rep: Vec<f64> = reps
                    .iter()
                    .map(|rep| {
                        (0..n)
                            .filter(|&j| inside(j))
                            .map(|j| rep[si][j])
                            .sum::<f64>()
                            / count as f64
                    })
                    .collect();
                // Around the first replicate: equal replicates (access) give
                // exactly that value and a standard error of exactly 0.
                let base = per_rep[0];
                let mse = base + per_rep.iter().map(|x| x - base).sum::<f64>() / r as f64;
                let se = (r > 1).then(|| {
                    let var =
                        per_rep.iter().map(|x| (x - mse) * (x - mse)).sum::<f64>() / (r - 1) as f64;
                    (var / r as f64).sqrt()
                });
                let theory = first.theory[si].as_ref().map(|t| {
                    (0..n).filter(|&j| inside(j)).map(|j| t[j]).sum::<f64>() / count as f64
                });
                let (lo, hi) = match grp {
                    Some(b) => {
                        let (a, z) = bucket_range(b);
                        (Some(a), Some(z))
                    }
                    None => (None, None),
                };
                rows.push(UtilityRow {
                    scheme: s.name().into(),
                    degree_lo: lo,
                    degree_hi: hi,
                    recipients: count,
                    mse,
                    mse_se: se,
                    mse_theory: theory,
                });
            }
        }
        rows
    }

    /// Every replicate, then the rows. `control` is checked per chunk and
    /// told of the owners done. A guessed hop range is verified after the
    /// first replicate; if it was wrong, this plan is replaced by the exact
    /// one (see [`range_guess`](Self::range_guess)) and the run starts over.
    pub fn run(&mut self, control: &Control) -> Result<UtilityResult> {
        let reps = self.config.replicates as u64;
        let total = self.owners().len() as u64 * reps;
        let done = std::sync::atomic::AtomicU64::new(0);
        let report = |k: u64| {
            let d = done.fetch_add(k, Ordering::Relaxed) + k;
            control.report("owners", d, total);
        };
        let mut errs = Vec::new();
        let mut first = None;
        let mut partial = ChunkPartial::default();
        for r in 0..reps {
            let ceiling = if r == 0 { self.guessed } else { None };
            let (acc, p, complete) =
                self.run_replicate_below(r, control, &report, ceiling, (0, 1))?;
            if !complete {
                // Some owner lies deeper than guessed: guess that depth and
                // start over (the new guess is verified the same way).
                let mut next = Self::build(
                    &self.config,
                    self.graph(),
                    self.plan.distances(),
                    Some(p.max_level),
                )?;
                next.first_guess = self.first_guess.or(self.guessed);
                *self = next;
                return self.run(control);
            }
            if r == 0
                && let Some(mut exact) = self.verify(&p)?
            {
                // The guessed range was wrong: everything again, exactly,
                // and this plan becomes the exact one.
                exact.first_guess = self.first_guess.or(self.guessed);
                *self = exact;
                return self.run(control);
            }
            partial.merge(&p);
            let e = self.evaluate(&acc, r);
            errs.push(e.sq_err.clone());
            if first.is_none() {
                first = Some(e);
            }
        }
        let first = first.expect("replicates ≥ 1");
        let rows = self.rows(&errs, &first);
        Ok(UtilityResult {
            rows,
            first,
            partial,
        })
    }
}
