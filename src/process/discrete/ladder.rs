//! The ladder of levels (memo §4): ε_k = 2^{⌊k/m⌋}·R\[k mod m\] for k ∈ ℤ, with
//! R\[i\] = 2^{i/m} correctly rounded to f64.
//!
//! The table is computed once per m with exact integer arithmetic — never
//! `powf`, whose last bit differs between libm versions — so every machine,
//! wheel and cluster process has the same rungs. A request ε is answered at
//! the largest rung ≤ ε (less accurate, never less private), found by exact
//! comparison of the f64 bits.

use crate::error::{Error, Result};
use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use std::collections::HashMap;
use std::sync::{Arc, Mutex, OnceLock};

/// Default levels per doubling m (memo §4: rounding a level down costs at most
/// a factor 2^{2/m} ≈ 1.044 in variance at small rates).
pub const DEFAULT_LEVELS_PER_DOUBLING: u32 = 32;
/// Largest m accepted: the exact table costs O(m) big-integer powers of
/// 54·m bits (0.4 s of CPU at m = 1024, 11 ms at m = 256, 3 µs at m = 32,
/// release build; computed once per process).
pub const MAX_LEVELS_PER_DOUBLING: u32 = 1024;

/// A rung k of the ladder (ε_k = 2^{⌊k/m⌋}·R\[k mod m\]); its level depends on
/// the ladder's m. Rungs are ordered like their levels.
#[derive(
    Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize,
)]
#[serde(transparent)]
pub struct Rung(pub i32);

impl std::fmt::Display for Rung {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.0.fmt(f)
    }
}

/// The table of one m: R\[i\] = M_i·2⁻⁵², M_i the 53-bit integer nearest to
/// 2^{52 + i/m}.
#[derive(Debug, PartialEq, Eq)]
pub struct Ladder {
    m: u32,
    /// log₂ m when m is a power of two (the default 32): rungs then split
    /// by a shift and a mask instead of a division per draw.
    shift: Option<u32>,
    mantissas: Box<[u64]>,
}

const FRAC_MASK: u64 = (1 << 52) - 1;

impl Ladder {
    /// The ladder with m levels per doubling (1 ≤ m ≤
    /// `MAX_LEVELS_PER_DOUBLING`), computed once per process and shared.
    pub fn get(m: u32) -> Result<Arc<Ladder>> {
        if !(1..=MAX_LEVELS_PER_DOUBLING).contains(&m) {
            return Err(Error::param(
                "levels_per_doubling",
                m,
                format!("an integer from 1 to {MAX_LEVELS_PER_DOUBLING}"),
            ));
        }
        static CACHE: OnceLock<Mutex<HashMap<u32, Arc<Ladder>>>> = OnceLock::new();
        let cache = CACHE.get_or_init(Default::default);
        if let Some(l) = cache.lock().unwrap_or_else(|e| e.into_inner()).get(&m) {
            return Ok(l.clone());
        }
        // Computed outside the lock; a concurrent twin computes the same table.
        let ladder = Arc::new(Ladder {
            m,
            shift: m.is_power_of_two().then(|| m.trailing_zeros()),
            mantissas: correctly_rounded_roots(m).into_boxed_slice(),
        });
        let mut guard = cache.lock().unwrap_or_else(|e| e.into_inner());
        Ok(guard.entry(m).or_insert(ladder).clone())
    }

    /// Levels per doubling m.
    pub fn levels_per_doubling(&self) -> u32 {
        self.m
    }

    /// R\[i\] = 2^{i/m} correctly rounded (i < m).
    pub fn ratio(&self, i: usize) -> f64 {
        f64::from_bits((1023 << 52) | (self.mantissas[i] & FRAC_MASK))
    }

    /// M_i = R\[i\]·2⁵², an integer in [2⁵², 2⁵³).
    pub fn mantissa(&self, i: usize) -> u64 {
        self.mantissas[i]
    }

    /// (octave ⌊k/m⌋, index k mod m) of rung k.
    #[inline]
    pub(super) fn split(&self, k: i32) -> (i32, usize) {
        let m = self.m as i32;
        match self.shift {
            // Arithmetic shift and mask are ⌊k/m⌋ and k mod m for k < 0 too.
            Some(s) => (k >> s, (k & (m - 1)) as usize),
            None => (k.div_euclid(m), k.rem_euclid(m) as usize),
        }
    }

    /// ε_k, or `None` outside f64's normal range.
    pub fn eps_of(&self, k: Rung) -> Option<f64> {
        let (o, i) = self.split(k.0);
        let field = o.checked_add(1023)?;
        if !(1..=2046).contains(&field) {
            return None;
        }
        Some(f64::from_bits(
            ((field as u64) << 52) | (self.mantissas[i] & FRAC_MASK),
        ))
    }

    /// The largest rung with ε_k ≤ `eps`, by exact comparison; `None` unless
    /// `eps` is a positive normal f64.
    pub fn rung_of(&self, eps: f64) -> Option<Rung> {
        if !(eps.is_normal() && eps > 0.0) {
            return None;
        }
        let bits = eps.to_bits();
        let o = ((bits >> 52) & 0x7ff) as i32 - 1023;
        let mant = (bits & FRAC_MASK) | (1 << 52);
        // M_0 = 2^52 ≤ mant, so at least one entry qualifies.
        let i = self.mantissas.partition_point(|&x| x <= mant) - 1;
        Some(Rung(o * self.m as i32 + i as i32))
    }
}

/// Whether (2M + 1)^m > 2^e, i.e. whether M is at least the rounding of
/// 2^{e/m − 1}: (2M + 1)^m is odd, so comparing bit lengths is exact.
fn above(mant: u64, m: u32, e: u64) -> bool {
    (BigUint::from(2 * mant + 1)).pow(m).bits() > e
}

/// M_i = the integer nearest to y = 2^{52 + i/m}, for i < m: the smallest M
/// with (2M + 1)^m > 2^{i + 53m} (then (2M − 1)^m < 2^{i+53m}, and y is
/// irrational for 0 < i < m, so there are no ties). M_1 by bisection; M_i
/// from the guess M_{i−1}·M_1/2⁵² (within a few units), corrected by the
/// same exact test.
fn correctly_rounded_roots(m: u32) -> Vec<u64> {
    let mut out = vec![1u64 << 52];
    let e = |i: u32| u64::from(i) + 53 * u64::from(m);
    if m == 1 {
        return out;
    }
    // Invariant: !above(lo), above(hi).
    let (mut lo, mut hi) = ((1u64 << 52) - 1, 1u64 << 53);
    while hi - lo > 1 {
        let mid = lo + (hi - lo) / 2;
        if above(mid, m, e(1)) {
            hi = mid;
        } else {
            lo = mid;
        }
    }
    out.push(hi);
    for i in 2..m {
        let prod = u128::from(out[i as usize - 1]) * u128::from(out[1]);
        let mut g = ((prod + (1 << 51)) >> 52) as u64;
        while !above(g, m, e(i)) {
            g += 1;
        }
        while above(g - 1, m, e(i)) {
            g -= 1;
        }
        out.push(g);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// (2M − 1)^m < 2^E < (2M + 1)^m, checked by full comparison (not bit lengths).
    fn nearest(mant: u64, m: u32, i: u32) -> bool {
        let two_e = BigUint::from(1u8) << (u64::from(i) + 53 * u64::from(m));
        BigUint::from(2 * mant - 1).pow(m) < two_e && two_e < BigUint::from(2 * mant + 1).pow(m)
    }

    #[test]
    fn every_entry_is_the_correctly_rounded_root() {
        for m in [1, 2, 3, 5, 7, 12, 32, 100, 257] {
            let l = Ladder::get(m).unwrap();
            assert_eq!(l.ratio(0), 1.0);
            for i in 0..m as usize {
                assert!(nearest(l.mantissa(i), m, i as u32), "m = {m}, i = {i}");
                assert!((1 << 52..1 << 53).contains(&l.mantissa(i)));
            }
            assert!(l.mantissas.windows(2).all(|w| w[0] < w[1]), "m = {m}");
        }
    }

    /// Reference values computed independently (Python's `decimal` at 60
    /// digits, rounded to 53 bits) for m = 32: a check that does not reuse
    /// the construction's test.
    #[test]
    fn m32_matches_an_independent_reference() {
        let l = Ladder::get(32).unwrap();
        for (i, &want) in REFERENCE_M32.iter().enumerate() {
            assert_eq!(l.mantissa(i), want, "i = {i}");
        }
    }

    #[test]
    fn rungs_double_every_m_steps_and_invert() {
        for m in [1u32, 3, 32] {
            let l = Ladder::get(m).unwrap();
            for k in -700..700 {
                let (a, b) = (
                    l.eps_of(Rung(k)).unwrap(),
                    l.eps_of(Rung(k + m as i32)).unwrap(),
                );
                assert_eq!(b, 2.0 * a, "m = {m}, k = {k}");
                assert_eq!(l.rung_of(a), Some(Rung(k)));
                // Just below a rung: the rung under it.
                assert_eq!(
                    l.rung_of(f64::from_bits(a.to_bits() - 1)),
                    Some(Rung(k - 1))
                );
                assert!(l.eps_of(Rung(k + 1)).unwrap() > a);
            }
        }
        let l = Ladder::get(32).unwrap();
        assert_eq!(l.rung_of(1.0), Some(Rung(0)));
        assert_eq!(l.rung_of(0.5), Some(Rung(-32)));
        assert_eq!(l.rung_of(0.0), None);
        assert_eq!(l.rung_of(f64::INFINITY), None);
        assert_eq!(l.rung_of(f64::from_bits(1)), None);
        assert_eq!(l.eps_of(Rung(i32::MAX)), None);
        assert!(Ladder::get(0).is_err());
        assert!(Ladder::get(MAX_LEVELS_PER_DOUBLING + 1).is_err());
    }

    /// 2^{i/32}·2^52, nearest integers (generated outside the crate).
    const REFERENCE_M32: [u64; 32] = [
        4503599627370496,
        4602215617889652,
        4702991017412879,
        4805973110840145,
        4911210218475899,
        5018751718701482,
        5128648071143992,
        5240950840352481,
        5355712719992597,
        5472987557571019,
        5592830379701282,
        5715297417922861,
        5840446135085607,
        5968335252311938,
        6099024776549417,
        6232576028726661,
        6369051672525773,
        6508515743784820,
        6651033680544135,
        6796672353750547,
        6945500098633947,
        7097586746770917,
        7253003658850448,
        7411823758157149,
        7574121564787629,
        7739973230616135,
        7909456575025820,
        8082651121422441,
        8259638134547591,
        8440500658608991,
        8625323556245722,
        8814193548346688,
    ];
}
