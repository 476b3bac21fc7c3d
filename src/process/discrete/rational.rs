//! Exact non-negative rationals for the levels of the discrete chain (memo §1),
//! and the integer operations the exact samplers need.
//!
//! f64 numbers are dyadic, so a rate t = ε/Δ_Z is an exact rational p/Q with
//! Q = 2^k·Δ_Z. Above the 2⁻⁴⁰ floor of [`DiscreteNoise`](super::DiscreteNoise)
//! Q stays below 2⁹⁴ and p below 2¹²⁸ for ε < 2¹²⁷·Δ_Z, so the samplers run on
//! `u128`; only larger numerators (or arbitrary rationals given to the raw
//! samplers) fall back to big integers. Both widths run the **same generic
//! code** (`Nat`) and draw the same words for the same value, so the fallback
//! is tested by comparing the two instantiations on one stream.
//!
//! Big integers: `num-bigint` (rust-num). We need only unsigned integer
//! arithmetic (products, quotients, gcd, bit lengths, little-endian digits);
//! our rational is two integers of our own. `num-bigint` is pure Rust, the most
//! used big-integer crate, and adds only `num-integer` to the tree
//! (`num-traits` is there already); `dashu` would bring its rationals (whose
//! division OpenDP had to work around, dashu issue 57) and five more crates
//! for nothing we use.

use crate::error::{Error, Result};
use num_bigint::BigUint;
use num_integer::Integer;
use num_traits::{ToPrimitive, Zero};
use rand::Rng;
use std::cmp::Ordering;

/// Uniform on {0, …, k − 1} (k ≥ 1) from 64-bit words, exact: Lemire's
/// multiply-and-reject. k = 1 draws nothing.
#[inline(always)]
pub(super) fn uniform_below_u64<R: Rng + ?Sized>(k: u64, rng: &mut R) -> u64 {
    if k <= 1 {
        return 0;
    }
    let m = u128::from(rng.next_u64()) * u128::from(k);
    // For a power of two 2⁶⁴ mod k = 0: nothing is rejected (the slow path
    // would return the same value), and k = 2^j ≥ 2⁶³ — the grid's
    // denominators — would take it for half of the words.
    if (m as u64) < k && !k.is_power_of_two() {
        return lemire_reject(m, k, rng);
    }
    (m >> 64) as u64
}

/// Lemire's slow path: words whose low product falls below 2⁶⁴ mod k are
/// rejected.
#[inline(never)]
fn lemire_reject<R: Rng + ?Sized>(mut m: u128, k: u64, rng: &mut R) -> u64 {
    // 2^64 mod k without a division where it is known: 2^64 − k above
    // 2^63 (powers of two never come here: their 2^64 mod k is 0).
    let t = if k > 1 << 63 {
        k.wrapping_neg()
    } else {
        k.wrapping_neg() % k
    };
    while (m as u64) < t {
        m = u128::from(rng.next_u64()) * u128::from(k);
    }
    (m >> 64) as u64
}

/// Uniform on {0, …, n − 1} for 2⁶⁴ ≤ n (`u128`): one raw word at n = 2⁶⁴,
/// else two words (low first), the high one masked, and rejection. Kept out
/// of line: inlined, its mask set-up is hoisted into every Bernoulli loop,
/// narrow rates included (the jump coin ran 1.7× slower).
#[inline(never)]
fn uniform_wide<R: Rng + ?Sized>(n: u128, rng: &mut R) -> u128 {
    if n == 1 << 64 {
        return u128::from(rng.next_u64());
    }
    let bits = 128 - (n - 1).leading_zeros();
    let mask = if bits == 128 {
        u64::MAX
    } else {
        (1u64 << (bits - 64)) - 1
    };
    loop {
        let lo = rng.next_u64();
        let hi = rng.next_u64() & mask;
        let v = (u128::from(hi) << 64) | u128::from(lo);
        if v < n {
            return v;
        }
    }
}

/// Unsigned integers the exact samplers are generic over: `u128` (the fast
/// path) and [`BigUint`] (the fallback). Every method draws the same words
/// for the same value in both implementations.
pub(super) trait Nat: Clone + Ord + std::fmt::Debug {
    /// The value `v`.
    fn from_u64(v: u64) -> Self;
    /// v·2^s (the caller checks that it fits the width).
    fn from_u64_shl(v: u64, s: u32) -> Self;
    /// Whether the value is 0.
    fn is_zero(&self) -> bool;
    /// Uniform on {0, …, self − 1} (self ≥ 1), exact: values up to 2⁶⁴ by
    /// [`uniform_below_u64`], larger ones by masked words (least significant
    /// word first) and rejection.
    fn uniform_below<R: Rng + ?Sized>(&self, rng: &mut R) -> Self;
    /// (⌊self/d⌋, self mod d), d ≥ 1.
    fn div_rem(&self, d: &Self) -> (Self, Self);
    /// self − o (o ≤ self).
    fn minus(&self, o: &Self) -> Self;
    /// u + q·v, or `None` when it does not fit this width (then it exceeds
    /// every value of the width).
    fn affine(u: &Self, q: &Self, v: u64) -> Option<Self>;
    /// ⌊(u + q·v)/p⌋ (p ≥ 1), exact, saturated at `u128::MAX`.
    fn floor_affine(u: &Self, q: &Self, v: u64, p: &Self) -> u128;
}

impl Nat for u128 {
    #[inline]
    fn from_u64(v: u64) -> Self {
        u128::from(v)
    }
    #[inline]
    fn from_u64_shl(v: u64, s: u32) -> Self {
        u128::from(v) << s
    }
    #[inline]
    fn is_zero(&self) -> bool {
        *self == 0
    }
    #[inline(always)]
    fn uniform_below<R: Rng + ?Sized>(&self, rng: &mut R) -> Self {
        let n = *self;
        if n < 1 << 64 {
            u128::from(uniform_below_u64(n as u64, rng))
        } else {
            uniform_wide(n, rng)
        }
    }
    #[inline]
    fn div_rem(&self, d: &Self) -> (Self, Self) {
        (self / d, self % d)
    }
    #[inline]
    fn minus(&self, o: &Self) -> Self {
        self - o
    }
    #[inline]
    fn affine(u: &Self, q: &Self, v: u64) -> Option<Self> {
        q.checked_mul(u128::from(v))?.checked_add(*u)
    }
    #[inline(always)]
    fn floor_affine(u: &Self, q: &Self, v: u64, p: &Self) -> u128 {
        match Self::affine(u, q, v) {
            Some(x) => div_u128(x, *p),
            None => BigUint::floor_affine(&big(*u), &big(*q), v, &big(*p)),
        }
    }
}

impl Nat for BigUint {
    fn from_u64(v: u64) -> Self {
        BigUint::from(v)
    }
    fn from_u64_shl(v: u64, s: u32) -> Self {
        BigUint::from(v) << s
    }
    fn is_zero(&self) -> bool {
        Zero::is_zero(self)
    }
    fn uniform_below<R: Rng + ?Sized>(&self, rng: &mut R) -> Self {
        if let Some(n) = self.to_u128().filter(|&n| n <= 1 << 64) {
            return BigUint::from(n.uniform_below(rng));
        }
        let bits = (self - 1u32).bits();
        let words = bits.div_ceil(64) as usize;
        let top = bits - 64 * (words as u64 - 1);
        let mask = if top == 64 {
            u64::MAX
        } else {
            (1u64 << top) - 1
        };
        let mut digits = vec![0u32; 2 * words];
        loop {
            for i in 0..words {
                let mut w = rng.next_u64();
                if i + 1 == words {
                    w &= mask;
                }
                digits[2 * i] = w as u32;
                digits[2 * i + 1] = (w >> 32) as u32;
            }
            let v = BigUint::from_slice(&digits);
            if &v < self {
                return v;
            }
        }
    }
    fn div_rem(&self, d: &Self) -> (Self, Self) {
        Integer::div_rem(self, d)
    }
    fn minus(&self, o: &Self) -> Self {
        self - o
    }
    fn affine(u: &Self, q: &Self, v: u64) -> Option<Self> {
        Some(u + q * v)
    }
    fn floor_affine(u: &Self, q: &Self, v: u64, p: &Self) -> u128 {
        ((u + q * v) / p).to_u128().unwrap_or(u128::MAX)
    }
}

/// ⌊x/p⌋ (p ≥ 1) without the 128-bit division where it is not needed: p = 1
/// (rates 1/q, such as ε = 1 at Δ_Z = 2^j) and both in 64 bits.
#[inline]
fn div_u128(x: u128, p: u128) -> u128 {
    if p == 1 {
        x
    } else if (x | p) >> 64 == 0 {
        u128::from(x as u64 / p as u64)
    } else {
        x / p
    }
}

/// `x` as a big integer.
pub(super) fn big(x: u128) -> BigUint {
    BigUint::from(x)
}

/// Greatest common divisor (binary algorithm), gcd(0, b) = b.
fn gcd_u128(mut a: u128, mut b: u128) -> u128 {
    if a == 0 {
        return b;
    }
    if b == 0 {
        return a;
    }
    let shift = (a | b).trailing_zeros();
    a >>= a.trailing_zeros();
    loop {
        b >>= b.trailing_zeros();
        if a > b {
            std::mem::swap(&mut a, &mut b);
        }
        b -= a;
        if b == 0 {
            return a << shift;
        }
    }
}

/// An exact non-negative rational, kept reduced; held in `u128` when both
/// numerator and denominator fit, else in big integers. Equal values have
/// equal representations, so the samplers draw the same words for them.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Ratio {
    repr: Repr,
}

/// The two widths of a [`Ratio`].
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub(super) enum Repr {
    /// Numerator and denominator in `u128`.
    Small(u128, u128),
    /// Either does not fit `u128`.
    Big(BigUint, BigUint),
}

impl Ratio {
    /// The reduced rational `num/den`; `den` = 0 is refused.
    pub fn new(num: BigUint, den: BigUint) -> Result<Ratio> {
        if Zero::is_zero(&den) {
            return Err(Error::param("denominator", 0, "an integer ≥ 1"));
        }
        let g = num.gcd(&den);
        let (num, den) = (num / &g, den / g);
        Ok(match (num.to_u128(), den.to_u128()) {
            (Some(n), Some(d)) => Ratio {
                repr: Repr::Small(n, d),
            },
            _ => Ratio {
                repr: Repr::Big(num, den),
            },
        })
    }

    /// The reduced rational `num/den` from `u128` parts; `den` = 0 is refused.
    pub fn from_u128(num: u128, den: u128) -> Result<Ratio> {
        if den == 0 {
            return Err(Error::param("denominator", 0, "an integer ≥ 1"));
        }
        let g = gcd_u128(num, den);
        Ok(Ratio {
            repr: Repr::Small(num / g, den / g),
        })
    }

    /// The exact value of a finite `x ≥ 0` divided by `divisor ≥ 1`: f64
    /// numbers are dyadic, so this is exact (memo §1).
    pub fn dyadic_over(x: f64, divisor: u64) -> Result<Ratio> {
        if !(x.is_finite() && x >= 0.0) {
            return Err(Error::param("level", x, "a finite number ≥ 0"));
        }
        let (mant, exp) = dyadic_parts(x);
        let (num, den) = if exp >= 0 {
            (BigUint::from(mant) << exp as u64, BigUint::from(divisor))
        } else {
            (BigUint::from(mant), BigUint::from(divisor) << (-exp) as u64)
        };
        Ratio::new(num, den)
    }

    /// The representation the samplers dispatch on.
    pub(super) fn repr(&self) -> &Repr {
        &self.repr
    }

    /// Numerator (reduced).
    pub fn numer(&self) -> BigUint {
        match &self.repr {
            Repr::Small(n, _) => big(*n),
            Repr::Big(n, _) => n.clone(),
        }
    }

    /// Denominator (reduced, ≥ 1).
    pub fn denom(&self) -> BigUint {
        match &self.repr {
            Repr::Small(_, d) => big(*d),
            Repr::Big(_, d) => d.clone(),
        }
    }

    /// Whether the value is 0.
    pub fn is_zero(&self) -> bool {
        match &self.repr {
            Repr::Small(n, _) => *n == 0,
            Repr::Big(n, _) => Zero::is_zero(n),
        }
    }

    /// Whether both parts fit the `u128` fast path.
    pub fn is_small(&self) -> bool {
        matches!(self.repr, Repr::Small(..))
    }

    /// The nearest f64 within about one unit in the last place (for
    /// reporting; nothing samples from it).
    pub fn to_f64(&self) -> f64 {
        big_ratio_to_f64(&self.numer(), &self.denom())
    }
}

impl PartialOrd for Ratio {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl Ord for Ratio {
    /// Exact comparison by cross-multiplication.
    fn cmp(&self, other: &Self) -> Ordering {
        (self.numer() * other.denom()).cmp(&(other.numer() * self.denom()))
    }
}

impl std::fmt::Display for Ratio {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.numer(), self.denom())
    }
}

/// (m, e) with x = m·2^e exactly, m odd (or x = 0: (0, 0)); x finite ≥ 0.
pub(super) fn dyadic_parts(x: f64) -> (u64, i32) {
    let bits = x.to_bits();
    let field = ((bits >> 52) & 0x7ff) as i32;
    let frac = bits & ((1 << 52) - 1);
    let (mut m, mut e) = if field == 0 {
        (frac, -1074)
    } else {
        (frac | (1 << 52), field - 1075)
    };
    if m == 0 {
        return (0, 0);
    }
    let tz = m.trailing_zeros();
    m >>= tz;
    e += tz as i32;
    (m, e)
}

/// num/den as f64 (den ≥ 1): a quotient of at least 64 significant bits,
/// then scaled by a power of two; within about one ulp.
pub(super) fn big_ratio_to_f64(num: &BigUint, den: &BigUint) -> f64 {
    if Zero::is_zero(num) {
        return 0.0;
    }
    let s = 65 + den.bits() as i64 - num.bits() as i64;
    let q = if s >= 0 {
        (num << s as u64) / den
    } else {
        num / (den << (-s) as u64)
    };
    let Some(qf) = q.to_f64() else {
        return f64::INFINITY;
    };
    scale_pow2(qf, -s)
}

/// x·2^e without intermediate overflow or underflow of the factor.
pub(super) fn scale_pow2(mut x: f64, mut e: i64) -> f64 {
    while e > 0 {
        let step = e.min(1000);
        x *= f64::from_bits(((1023 + step) as u64) << 52);
        e -= step;
    }
    while e < 0 {
        let step = (-e).min(1000);
        x *= f64::from_bits(((1023 - step) as u64) << 52);
        e += step;
    }
    x
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, rng_for};

    #[test]
    fn dyadic_values_are_exact_and_reduced() {
        let r = Ratio::dyadic_over(0.75, 6).unwrap();
        assert_eq!(r, Ratio::from_u128(1, 8).unwrap());
        assert!(r.is_small());
        // 1e-9 is m·2^-82 with m odd: the rational carries every bit.
        let (m, e) = dyadic_parts(1e-9);
        assert_eq!(e, -82);
        let r = Ratio::dyadic_over(1e-9, 1).unwrap();
        assert_eq!(r.numer(), BigUint::from(m));
        assert_eq!(r.denom(), BigUint::from(1u8) << 82u32);
        assert_eq!(r.to_f64(), 1e-9);
        // A numerator beyond u128 goes to the big representation.
        let r = Ratio::dyadic_over(1e60, 3).unwrap();
        assert!(!r.is_small());
        assert!((r.to_f64() / (1e60 / 3.0) - 1.0).abs() < 1e-15);
        assert!(Ratio::dyadic_over(-1.0, 1).is_err());
        assert!(Ratio::dyadic_over(f64::NAN, 1).is_err());
        assert!(Ratio::from_u128(1, 0).is_err());
        assert!(Ratio::from_u128(3, 9).unwrap() < Ratio::from_u128(1, 2).unwrap());
        assert_eq!(Ratio::from_u128(0, 7).unwrap().to_f64(), 0.0);
        assert_eq!(gcd_u128(12, 18), 6);
        assert_eq!(gcd_u128(0, 5), 5);
    }

    #[test]
    fn subnormal_and_tiny_values_convert() {
        let tiny = f64::from_bits(1); // 2^-1074
        assert_eq!(dyadic_parts(tiny), (1, -1074));
        let r = Ratio::dyadic_over(tiny, 1).unwrap();
        assert_eq!(r.to_f64(), tiny);
        assert_eq!(scale_pow2(1.0, -1074), tiny);
        assert_eq!(scale_pow2(1.5, 1023), 1.5 * 2f64.powi(1023));
    }

    /// Both widths draw the same words and return the same value: the big
    /// fallback is the fast path's twin on one stream.
    #[test]
    fn uniform_below_is_the_same_in_both_widths() {
        let cases: [u128; 9] = [
            1,
            2,
            3,
            1000,
            (1 << 64) - 1,
            1 << 64,
            (1 << 64) + 1,
            3 << 90,
            u128::MAX,
        ];
        for (i, &n) in cases.iter().enumerate() {
            let mut a = rng_for(1, i as u64, 0, Purpose::Path);
            let mut b = rng_for(1, i as u64, 0, Purpose::Path);
            for _ in 0..200 {
                let x = n.uniform_below(&mut a);
                assert!(x < n);
                assert_eq!(big(x), big(n).uniform_below(&mut b), "n = {n}");
            }
            assert_eq!(a.next_u64(), b.next_u64(), "same words consumed, n = {n}");
        }
    }

    /// The shortcuts are the textbook operations: Lemire's method with its
    /// full rejection threshold t = 2⁶⁴ mod k (computed in u128, no
    /// shortcut) draws the same words and values for powers of two (which
    /// skip the slow path) and their neighbours; ⌊x/p⌋ in 64 bits or at
    /// p = 1 equals the u128 quotient.
    #[test]
    fn shortcuts_match_the_reference_operations() {
        fn lemire_ref(k: u64, rng: &mut impl Rng) -> u64 {
            let t = ((1u128 << 64) % u128::from(k)) as u64;
            loop {
                let m = u128::from(rng.next_u64()) * u128::from(k);
                if (m as u64) >= t {
                    return (m >> 64) as u64;
                }
            }
        }
        for (i, k) in [
            2,
            1024,
            1 << 62,
            (1 << 62) + 1,
            1 << 63,
            (1 << 63) + 1,
            u64::MAX,
        ]
        .into_iter()
        .enumerate()
        {
            let mut a = rng_for(3, i as u64, 0, Purpose::Path);
            let mut b = rng_for(3, i as u64, 0, Purpose::Path);
            for _ in 0..2000 {
                assert_eq!(
                    uniform_below_u64(k, &mut a),
                    lemire_ref(k, &mut b),
                    "k = {k}"
                );
            }
            assert_eq!(a.next_u64(), b.next_u64(), "same words consumed, k = {k}");
        }
        let xs = [
            0u128,
            1,
            7,
            u128::from(u64::MAX),
            1 << 64,
            (1 << 70) + 3,
            u128::MAX,
        ];
        let ps = [1u128, 2, 3, u128::from(u64::MAX), 1 << 64, (1 << 100) + 1];
        for x in xs {
            for p in ps {
                assert_eq!(div_u128(x, p), x / p, "{x}/{p}");
            }
        }
    }

    #[test]
    fn floor_affine_survives_u128_overflow() {
        let q = 1u128 << 100;
        // q·2^40 overflows u128; the quotient by 2^100 is exactly 2^40 + 0.
        assert_eq!(u128::floor_affine(&5, &q, 1 << 40, &q), 1 << 40);
        assert_eq!(u128::affine(&5, &q, 1 << 40), None);
        assert_eq!(u128::floor_affine(&7, &10, 3, &4), 9);
    }

    /// Uniformity of the masked two-word path (n just above 2^64, where half
    /// the words are rejected) and of Lemire's path, by a χ² on 8 residues.
    #[test]
    fn uniform_below_is_uniform() {
        for n in [(1u128 << 64) + 8, 1000u128 * 8] {
            let mut rng = rng_for(2, n as u64, 0, Purpose::Path);
            let draws = 80_000;
            let mut counts = [0u64; 8];
            for _ in 0..draws {
                counts[(n.uniform_below(&mut rng) % 8) as usize] += 1;
            }
            let e = draws as f64 / 8.0;
            let chi2: f64 = counts.iter().map(|&c| (c as f64 - e).powi(2) / e).sum();
            let p = crate::special::gamma_q(3.5, chi2 / 2.0);
            assert!(p > 1e-6, "n = {n}: χ² = {chi2}, p = {p}");
        }
    }
}
