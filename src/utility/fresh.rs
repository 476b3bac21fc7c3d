//! The independent baseline's answers of one visit (recipient v, hop level
//! L, the c = |m| owners of mask m): fresh noise per answer.
//!
//! * The f64 families draw each statistic at once from its own law. The
//!   *sum* of the c answers' noise: where fresh noise has iid Laplace(1/λ)
//!   coordinates ([`NoiseFamily::laplace_rate`]: ℓ1, or one dimension),
//!   Laplace(b) = b·√(2W)·Z with W ~ Exp(1), Z ~ N(0, 1), so given the W's
//!   the sum is normal with variance 2b²·ΣW, ΣW ~ Gamma(c, 1): one gamma
//!   and one normal per coordinate, exact in law; otherwise (ℓ2, n > 1: no
//!   closed form for the sum of c uniform-direction Gamma(n) radii) c draws.
//!   With per-level counts ([`UtilityPlan::level_counts`]) not even that:
//!   the noise of all of a recipient's answers is drawn at evaluation.
//!   Projected bits: the number of ones among the c answers is
//!   Binomial(c₁, 1 − f₁) + Binomial(c₀, f₀). The shrinkage rows, which need
//!   each answer's square, get their own answers, one draw each.
//!   Generators: `(seed, chunk, replicate, Independent)` stream 1 for the
//!   sums and counts, stream 3 for the shrinkage answers.
//! * On a grid ([`NoiseFamily::grid`]) every answer is one exact draw
//!   (`(seed, chunk, replicate, Independent)`, draws in visit order: level,
//!   recipient, owner bit), and the plain mean's sum (an exact integer sum),
//!   the ones among bits and the shrinkage rows' sums are all read off the
//!   same draws: the sum of c DL(a) draws is NB(c, 1 − a) − NB(c, 1 − a),
//!   whose exact integer samplers cost c geometric draws anyway, and an f64
//!   Poisson–gamma mixture would not be exact in integers.

use super::levels::LevelInfo;
use super::{CHUNK, UtilityPlan};
use crate::error::Result;
use crate::process::family::{NoiseFamily, StreamKey};
use crate::process::laplace::laplace;
use crate::rng::Purpose;
use rand::Rng;
use rand_distr::{Binomial, Distribution, Gamma, StandardNormal};

/// ChaCha stream of the f64 families' sums and counts (2: the
/// evaluation-time noise, 3: the shrinkage answers).
const SUM_STREAM: u64 = 1;

/// ChaCha stream of the f64 families' independent-shrinkage answers.
const SHRINK_STREAM: u64 = 3;

/// What [`Fresh::sum`] holds.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
enum Sum {
    /// Nothing: the noise is drawn at evaluation (or projected bits).
    #[default]
    Deferred,
    /// The sum of the visit's noise, in values.
    Noise,
    /// The sum of the visit's answers, in values (exact on a grid).
    Answers,
}

/// One visit's fresh answers as the schemes read them (per-worker buffers).
#[derive(Default)]
pub(super) struct Fresh {
    sum: Vec<f64>,
    what: Sum,
    /// Raw answers: the shrinkage rows' sums of the visit's answers
    /// ([`ShrinkPlan::add_answer`](super::ShrinkPlan::add_answer)).
    shrink: Vec<f64>,
    /// One answer.
    y: Vec<f64>,
}

impl Fresh {
    /// The shrinkage rows' sums of the visit's raw answers (zeros without
    /// them).
    pub fn shrink_sums(&self) -> &[f64] {
        &self.shrink
    }

    /// The plain independent mean's term of coordinate `d`: the visit's
    /// values (their sum `sum_u`, fixed point) plus its noise.
    pub fn plain_sum(&self, plan: &UtilityPlan<'_>, sum_u: i128, d: usize) -> Result<i128> {
        Ok(match self.what {
            Sum::Deferred => sum_u,
            Sum::Noise => sum_u + plan.fix_value(self.sum[d])?,
            Sum::Answers => plan.fix_value(self.sum[d])?,
        })
    }
}

/// A chunk's generators of fresh answers and the family's buffers.
pub(super) struct FreshDraws<'f, F: NoiseFamily> {
    fam: &'f F,
    rng: F::Rng,
    /// The f64 families' shrinkage answers (raw answers with shrinkage rows).
    shrink: Option<F::Rng>,
    x: Vec<F::Coord>,
    secret_sum: Vec<F::Coord>,
    noise_sum: Vec<F::Coord>,
    zeros: Vec<F::Coord>,
    zero_u: Vec<f64>,
}

impl<'f, F: NoiseFamily> FreshDraws<'f, F> {
    /// The generators of chunk `chunk` of replicate `replicate`.
    pub fn new(
        plan: &UtilityPlan<'_>,
        fam: &'f F,
        chunk: u64,
        replicate: u64,
        shrink: bool,
    ) -> Result<Self> {
        let key = StreamKey::new(plan.seed(), chunk, replicate, Purpose::Independent);
        let on_grid = fam.grid().is_some();
        let rng = fam.generator(if on_grid {
            key
        } else {
            key.on_stream(SUM_STREAM)
        })?;
        let shrink = if shrink && !on_grid && !plan.bits() {
            Some(fam.generator(key.on_stream(SHRINK_STREAM))?)
        } else {
            None
        };
        let dim = plan.dim();
        let zeros = vec![F::Coord::default(); dim];
        Ok(FreshDraws {
            fam,
            rng,
            shrink,
            x: zeros.clone(),
            secret_sum: zeros.clone(),
            noise_sum: zeros.clone(),
            zeros,
            zero_u: vec![0.0; dim],
        })
    }

    /// Draws the independent answers of the owners in `mask` at `level`
    /// (its laws `lv`) into `out`; returns the ones among them (projected
    /// bits). The chunk's owners have values `u` and `secrets` as answered
    /// (`dim` each), and `ones` is the mask of those whose bit is 1.
    pub fn draw(
        &mut self,
        plan: &UtilityPlan<'_>,
        (lv, level): (&LevelInfo, F::Level),
        mask: u64,
        (u, secrets, ones): (&[f64], &[F::Coord], u64),
        out: &mut Fresh,
    ) -> Result<u64> {
        let (dim, bits) = (plan.dim(), plan.bits());
        out.what = Sum::Deferred;
        out.y.resize(dim, 0.0);
        out.shrink.clear();
        out.shrink.resize(2 * dim, 0.0);
        if plan.on_grid {
            return self.one_by_one(plan, level, mask, (u, secrets), out);
        }
        let c = mask.count_ones();
        if bits {
            let c1 = u64::from((mask & ones).count_ones());
            let [f0, f1] = lv.bits.flip;
            return Ok(binomial(&mut self.rng, c1, 1.0 - f1)
                + binomial(&mut self.rng, u64::from(c) - c1, f0));
        }
        if plan.level_counts() == 0 {
            out.what = Sum::Noise;
            out.sum.resize(dim, 0.0);
            match lv.rate {
                Some(lambda) => {
                    let g = &plan.unit_gammas[(c as usize).clamp(1, CHUNK) - 1];
                    laplace_sum(g, lambda, &mut self.rng, &mut out.sum);
                }
                None => {
                    out.sum.iter_mut().for_each(|x| *x = 0.0);
                    for _ in 0..c {
                        self.fam.sample_fresh(level, &mut self.rng, &mut self.x)?;
                        // The noise in values: the answer to the value 0.
                        let v = &mut out.y;
                        self.fam.answer(&self.zero_u, &self.zeros, &self.x, v)?;
                        for (o, x) in out.sum.iter_mut().zip(v.iter()) {
                            *o += x;
                        }
                    }
                }
            }
        }
        if let (Some(rng), Some(sp)) = (self.shrink.as_mut(), plan.shrinkage()) {
            let mut rest = mask;
            match lv.rate {
                Some(lambda) if dim == 1 => {
                    // This loop is the shrinkage rows' main cost: the
                    // answers first (the generator's refills are calls,
                    // across which the running sums were kept in memory),
                    // then the sums in registers, in the same order (the
                    // same bits).
                    let b = 1.0 / lambda;
                    let mut ys = [0.0f64; CHUNK];
                    let mut k = 0;
                    while rest != 0 {
                        let i = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        ys[k] = u[i] + laplace(rng, b);
                        k += 1;
                    }
                    let (mut s1, mut s2) = (0.0, 0.0);
                    for &y in &ys[..k] {
                        s1 += y;
                        s2 += sp.square(0, y);
                    }
                    out.shrink.copy_from_slice(&[s1, s2]);
                }
                rate => {
                    while rest != 0 {
                        let i = rest.trailing_zeros() as usize;
                        rest &= rest - 1;
                        let at = i * dim..(i + 1) * dim;
                        if let Some(lambda) = rate {
                            for (y, &x) in out.y.iter_mut().zip(&u[at]) {
                                *y = x + laplace(rng, 1.0 / lambda);
                            }
                        } else {
                            self.fam.sample_fresh(level, rng, &mut self.x)?;
                            let secret = &secrets[at.clone()];
                            self.fam.answer(&u[at], secret, &self.x, &mut out.y)?;
                        }
                        sp.add_answer(&mut out.shrink, &out.y);
                    }
                }
            }
        }
        Ok(0)
    }

    /// On a grid: one exact draw per answer, in owner-bit order.
    fn one_by_one(
        &mut self,
        plan: &UtilityPlan<'_>,
        level: F::Level,
        mask: u64,
        (u, secrets): (&[f64], &[F::Coord]),
        out: &mut Fresh,
    ) -> Result<u64> {
        let (dim, bits, fam) = (plan.dim(), plan.bits(), self.fam);
        self.secret_sum.clone_from(&self.zeros);
        self.noise_sum.clone_from(&self.zeros);
        let shrink = plan.shrinkage();
        let mut ones = 0u64;
        let mut rest = mask;
        while rest != 0 {
            let i = rest.trailing_zeros() as usize;
            rest &= rest - 1;
            fam.sample_fresh(level, &mut self.rng, &mut self.x)?;
            let at = i * dim..(i + 1) * dim;
            let secret = &secrets[at.clone()];
            fam.answer(&u[at], secret, &self.x, &mut out.y)?;
            if bits {
                ones += out.y.iter().filter(|&&y| y >= 0.5).count() as u64;
                continue;
            }
            if let Some(sp) = shrink {
                sp.add_answer(&mut out.shrink, &out.y);
            }
            // Bounded: every answer was just checked within 2⁵³ grid steps.
            for (a, &b) in self.secret_sum.iter_mut().zip(secret) {
                *a = *a + b;
            }
            for (a, &b) in self.noise_sum.iter_mut().zip(&self.x) {
                *a = *a + b;
            }
        }
        if !bits {
            out.what = Sum::Answers;
            out.sum.resize(dim, 0.0);
            fam.answer(
                &self.zero_u,
                &self.secret_sum,
                &self.noise_sum,
                &mut out.sum,
            )?;
        }
        Ok(ones)
    }
}

/// The sum of c iid Laplace(1/λ) into each coordinate of `out`, drawn at
/// once (`g` = Gamma(c, 1)): √(2·Gamma(c, 1))·N(0, 1)/λ, exact in law.
pub(super) fn laplace_sum<R: Rng>(g: &Gamma<f64>, lambda: f64, rng: &mut R, out: &mut [f64]) {
    for x in out.iter_mut() {
        let w: f64 = g.sample(rng);
        let z: f64 = StandardNormal.sample(rng);
        *x = (2.0 * w).sqrt() * z / lambda;
    }
}

/// Binomial(n, p), exact at the ends.
fn binomial<R: Rng>(rng: &mut R, n: u64, p: f64) -> u64 {
    if n == 0 || p <= 0.0 {
        return 0;
    }
    if p >= 1.0 {
        return n;
    }
    Binomial::new(n, p).map(|b| b.sample(rng)).unwrap_or(0)
}
