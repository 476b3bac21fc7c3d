//! Exact integer samplers (Canonne, Kamath, Steinke 2020, "CKS20"; memo §2):
//! Bernoulli(e^{−x}) for a rational x ≥ 0, the geometric for e^{−x}, the
//! discrete Laplace DL(a = e^{−t}) on ℤ, and the jump coin B of the lazy chain.
//!
//! No floating-point operation anywhere: uniform integers come from 64-bit
//! words by rejection, every probability is a ratio of integers, and every
//! decision an integer comparison. Each sampler takes the caller's generator
//! (`rand::Rng`), so the seeded streams of [`rng_for`](crate::rng::rng_for)
//! and the operating system's generator ([`OsRng`](super::OsRng)) both work.
//!
//! The algorithms are generic over the integer width (`Nat`): the public
//! functions dispatch once on the [`Ratio`]'s representation.

use super::rational::{Nat, Ratio, Repr, uniform_below_u64};
use crate::error::{Error, Result};
use num_bigint::BigUint;
use rand::Rng;

/// Bernoulli(n/d) for n ≤ d: one uniform below d compared with n.
#[inline]
fn bern_ratio<N: Nat, R: Rng + ?Sized>(n: &N, d: &N, rng: &mut R) -> bool {
    &d.uniform_below(rng) < n
}

/// Bernoulli(e^{−n/d}) for 0 ≤ n ≤ d: CKS20 Algorithm 1. Draw
/// A_k ~ Bernoulli(x/k) for k = 1, 2, … until one is 0; return whether that
/// k is odd (P = Σ_k odd … = e^{−x}). Bernoulli(x/k) is the product of
/// independent Bernoulli(1/k) and Bernoulli(x) coins, so no product of
/// integers can overflow.
#[inline]
pub(super) fn bern_exp_le1<N: Nat, R: Rng + ?Sized>(n: &N, d: &N, rng: &mut R) -> bool {
    if n.is_zero() {
        return true;
    }
    let mut k: u64 = 1;
    loop {
        let coin = (k == 1 || uniform_below_u64(k, rng) == 0) && bern_ratio(n, d, rng);
        if !coin {
            return k % 2 == 1;
        }
        k += 1;
    }
}

/// Bernoulli(e^{−1}): Algorithm 1 with x = 1, whose Bernoulli(x) coins are all 1.
#[inline]
pub(super) fn bern_exp_minus_one<R: Rng + ?Sized>(rng: &mut R) -> bool {
    let mut k: u64 = 2;
    while uniform_below_u64(k, rng) == 0 {
        k += 1;
    }
    k % 2 == 1
}

/// Bernoulli(e^{−n/d}) for any n/d ≥ 0 (d ≥ 1): CKS20 Algorithm 1 with the
/// x > 1 split, e^{−x} = (e^{−1})^{⌊x⌋}·e^{−(x − ⌊x⌋)}, stopping at the first
/// failed factor (expected O(1) coins whatever x).
#[inline]
pub(super) fn bern_exp<N: Nat, R: Rng + ?Sized>(n: &N, d: &N, rng: &mut R) -> bool {
    if n <= d {
        bern_exp_le1(n, d, rng)
    } else {
        bern_exp_split(n, d, rng)
    }
}

/// [`bern_exp`] for x > 1: ⌊x⌋ factors e^{−1}, then the fraction.
#[inline(never)]
fn bern_exp_split<N: Nat, R: Rng + ?Sized>(n: &N, d: &N, rng: &mut R) -> bool {
    let (whole, frac) = n.div_rem(d);
    let mut done: u64 = 0;
    while N::from_u64(done) < whole {
        if !bern_exp_minus_one(rng) {
            return false;
        }
        done += 1;
    }
    bern_exp_le1(&frac, d, rng)
}

/// The geometric for e^{−1/q} in units, before division: U uniform on
/// {0, …, q − 1} accepted with Bernoulli(e^{−U/q}), V ~ Geometric(e^{−1}),
/// returns (U, V); U + q·V has P(= j) = (1 − r)·r^j with r = e^{−1/q}
/// (CKS20 Algorithm 2, "fast geometric").
#[inline]
fn geometric_parts<N: Nat, R: Rng + ?Sized>(q: &N, rng: &mut R) -> (N, u64) {
    let u = loop {
        let u = q.uniform_below(rng);
        if bern_exp_le1(&u, q, rng) {
            break u;
        }
    };
    let mut v: u64 = 0;
    while bern_exp_minus_one(rng) {
        v += 1;
    }
    (u, v)
}

/// Geometric for e^{−p/q} (p, q ≥ 1): P(G = g) = (1 − e^{−p/q})·e^{−g·p/q},
/// as ⌊J/p⌋ with J geometric for e^{−1/q}. Saturates at `u128::MAX`, an
/// event of probability below e^{−(p/q)·2¹²⁸}.
#[inline]
pub(super) fn geometric<N: Nat, R: Rng + ?Sized>(p: &N, q: &N, rng: &mut R) -> u128 {
    let (u, v) = geometric_parts(q, rng);
    N::floor_affine(&u, q, v, p)
}

/// Discrete Laplace with a = e^{−p/q} (p, q ≥ 1): P(X = x) =
/// (1 − a)/(1 + a)·a^{|x|}. CKS20: a fair sign and a geometric magnitude,
/// rejecting "−0". Saturates at ±`i128::MAX` (probability below e^{−t·2¹²⁷}).
#[inline]
pub(super) fn discrete_laplace<N: Nat, R: Rng + ?Sized>(p: &N, q: &N, rng: &mut R) -> i128 {
    loop {
        let negative = rng.next_u64() & 1 == 1;
        let m = geometric(p, q, rng);
        if !(negative && m == 0) {
            let m = m.min(i128::MAX as u128) as i128;
            return if negative { -m } else { m };
        }
    }
}

/// J with P(J = j) ∝ r^j on {0, …, p₁ − 1}, r = e^{−1/q} (memo §2), p₁ ≥ 1:
/// for t₁ = p₁/q ≤ 1, J uniform, accepted with Bernoulli(e^{−J/q})
/// (acceptance ≥ e^{−1}); for t₁ > 1, J geometric for r until J < p₁
/// (acceptance 1 − e^{−t₁} ≥ 1 − e^{−1}).
#[inline]
pub(super) fn truncated_geometric<N: Nat, R: Rng + ?Sized>(p1: &N, q: &N, rng: &mut R) -> N {
    if p1 <= q {
        loop {
            let j = p1.uniform_below(rng);
            if bern_exp_le1(&j, q, rng) {
                break j;
            }
        }
    } else {
        loop {
            let (u, v) = geometric_parts(q, rng);
            // Too large for the width: certainly ≥ p₁, rejected.
            if let Some(j) = N::affine(&u, q, v).filter(|j| j < p1) {
                break j;
            }
        }
    }
}

/// D ~ Bernoulli((1 − a₂)/(1 − a₁)) for t₁ = p₁/q > t₂ = p₂/q > 0 (memo §2):
/// D = 1{J < p₂} with J the [`truncated_geometric`] on {0, …, p₁ − 1}.
#[inline]
pub(super) fn d_coin<N: Nat, R: Rng + ?Sized>(p1: &N, p2: &N, q: &N, rng: &mut R) -> bool {
    &truncated_geometric(p1, q, rng) < p2
}

/// The first jump of the chain below a rung k inside a window of rungs
/// (memo §2, telescoped; sampler 2 of [`Sampler`](super::chain::Sampler)).
/// The window's rates are p(i)/q for indices `lo..=hi` (increasing in i),
/// k's is `top`/q > p(hi)/q. The steps' coins are independent and their stay
/// probabilities multiply, so ONE draw of three integers decides "no jump
/// from k down through rung i" for every i at once:
/// * C through i ⟺ G ≥ p_k − p_i, G geometric for r = e^{−1/q}
///   (probability e^{−(t_k − t_i)}): a Bernoulli(e^{−(t_k − t_lo)}) coin
///   says whether C holds through the whole window, and otherwise G is the
///   [`truncated_geometric`] on {0, …, p_k − p_lo − 1};
/// * D, D′ through i ⟺ J < p_i, J′ < p_i, with J, J′ the
///   [`truncated_geometric`] on {0, …, p_k − 1} (probability
///   (1 − a_i)/(1 − a_k) each).
///
/// Returns the highest index where one of them fails (the first jump, where
/// fresh DL noise is added and the chain restarts), or `None` when the
/// value stays through `lo`. The product of the three probabilities is
/// c_{k,i} = (a_k/a_i)·((1 − a_i)/(1 − a_k))², the stay probability of the
/// steps k → … → i (Chapman–Kolmogorov).
#[inline]
pub(super) fn first_jump<N: Nat, R: Rng + ?Sized>(
    top: &N,
    q: &N,
    p: impl Fn(usize) -> N,
    (lo, hi): (usize, usize),
    rng: &mut R,
) -> Option<usize> {
    let span = top.minus(&p(lo));
    // C fails at i ⟺ p_i < p_k − G; `None` when G ≥ p_k − p_lo.
    let c_cut = if bern_exp(&span, q, rng) {
        None
    } else {
        Some(top.minus(&truncated_geometric(&span, q, rng)))
    };
    // D or D′ fails at i ⟺ p_i ≤ max(J, J′).
    let d_cut = std::cmp::max(
        truncated_geometric(top, q, rng),
        truncated_geometric(top, q, rng),
    );
    let fails = |i: usize| {
        let pi = p(i);
        pi <= d_cut || c_cut.as_ref().is_some_and(|c| &pi < c)
    };
    if !fails(lo) {
        return None;
    }
    // fails(i) holds for i ≤ the answer and not above it.
    let (mut a, mut b) = (lo, hi + 1);
    while b - a > 1 {
        let mid = a + (b - a) / 2;
        if fails(mid) {
            a = mid;
        } else {
            b = mid;
        }
    }
    Some(a)
}

/// The jump coin B between consecutive levels t₁ = p₁/q > t₂ = p₂/q > 0
/// (memo §2), `true` when the value jumps: ¬B = C ∧ D ∧ D′ with
/// C ~ Bernoulli(e^{−(t₁−t₂)}) and D, D′ independent copies of [`d_coin`], so
/// P(B = 0) = (a₁/a₂)·((1 − a₂)/(1 − a₁))² = c. O(1) expected coins — not the
/// naive rejection, which needs ≈ Δ_Z/ε rounds.
#[inline]
pub(super) fn jump<N: Nat, R: Rng + ?Sized>(p1: &N, p2: &N, q: &N, rng: &mut R) -> bool {
    let stay = bern_exp(&p1.minus(p2), q, rng) && d_coin(p1, p2, q, rng) && d_coin(p1, p2, q, rng);
    !stay
}

/// Bernoulli(e^{−x}) for an exact rational x ≥ 0 (CKS20 Algorithm 1 with the
/// x > 1 split).
pub fn bernoulli_exp<R: Rng + ?Sized>(x: &Ratio, rng: &mut R) -> bool {
    match x.repr() {
        Repr::Small(n, d) => bern_exp(n, d, rng),
        Repr::Big(n, d) => bern_exp(n, d, rng),
    }
}

fn positive(name: &str, x: &Ratio) -> Result<()> {
    if x.is_zero() {
        Err(Error::param(name, x, "a rational > 0"))
    } else {
        Ok(())
    }
}

/// Geometric for e^{−x}, x > 0: P(G = g) = (1 − e^{−x})·e^{−g·x}, g ≥ 0
/// (CKS20's fast geometric). Saturates at `u128::MAX` (probability below
/// e^{−x·2¹²⁸}).
pub fn geometric_exp<R: Rng + ?Sized>(x: &Ratio, rng: &mut R) -> Result<u128> {
    positive("x", x)?;
    Ok(match x.repr() {
        Repr::Small(p, q) => geometric(p, q, rng),
        Repr::Big(p, q) => geometric(p, q, rng),
    })
}

/// Discrete Laplace DL(a = e^{−t}) on ℤ, t > 0: P(X = x) = (1 − a)/(1 + a)·a^{|x|}
/// (memo §1). ε-DP for integer shifts ≤ Δ_Z when t = ε/Δ_Z.
pub fn discrete_laplace_exact<R: Rng + ?Sized>(t: &Ratio, rng: &mut R) -> Result<i128> {
    positive("t", t)?;
    Ok(match t.repr() {
        Repr::Small(p, q) => discrete_laplace(p, q, rng),
        Repr::Big(p, q) => discrete_laplace(p, q, rng),
    })
}

/// Consecutive rates over a common denominator, in the narrowest width.
#[derive(Clone, Debug, PartialEq, Eq)]
enum Parts {
    Small(u128, u128, u128),
    Big(BigUint, BigUint, BigUint),
}

/// The jump coin B of memo §2 between two levels t₁ > t₂ > 0 (rates ε/Δ_Z),
/// validated and put over a common denominator once, then sampled many
/// times: `true` (a jump) with probability 1 − c,
/// c = (a₁/a₂)·((1 − a₂)/(1 − a₁))².
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct JumpCoin {
    parts: Parts,
}

impl JumpCoin {
    /// The coin between t₁ = `t1` > t₂ = `t2` > 0.
    pub fn new(t1: &Ratio, t2: &Ratio) -> Result<JumpCoin> {
        use num_traits::ToPrimitive;
        positive("t2", t2)?;
        if t1 <= t2 {
            return Err(Error::param("t1", t1, format!("a level above `t2` ({t2})")));
        }
        let (d1, d2) = (t1.denom(), t2.denom());
        let g = num_integer::Integer::gcd(&d1, &d2);
        let q = &d1 / &g * &d2;
        let (p1, p2) = (t1.numer() * (&q / d1), t2.numer() * (&q / d2));
        let parts = match (p1.to_u128(), p2.to_u128(), q.to_u128()) {
            (Some(a), Some(b), Some(c)) => Parts::Small(a, b, c),
            _ => Parts::Big(p1, p2, q),
        };
        Ok(JumpCoin { parts })
    }

    /// One flip: `true` when the value jumps (O(1) expected coins).
    #[inline]
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> bool {
        match &self.parts {
            Parts::Small(a, b, c) => jump(a, b, c, rng),
            Parts::Big(a, b, c) => jump(a, b, c, rng),
        }
    }

    /// The coin D of memo §2 alone, for tests: Bernoulli((1 − a₂)/(1 − a₁)).
    #[cfg(test)]
    pub(super) fn sample_d<R: Rng + ?Sized>(&self, rng: &mut R) -> bool {
        match &self.parts {
            Parts::Small(a, b, c) => d_coin(a, b, c, rng),
            Parts::Big(a, b, c) => d_coin(a, b, c, rng),
        }
    }
}

/// One flip of the jump coin between t₁ > t₂ > 0 (see [`JumpCoin`], which
/// does the validation once for many flips).
pub fn jump_coin<R: Rng + ?Sized>(t1: &Ratio, t2: &Ratio, rng: &mut R) -> Result<bool> {
    Ok(JumpCoin::new(t1, t2)?.sample(rng))
}
