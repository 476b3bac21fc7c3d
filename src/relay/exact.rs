//! [`ExactSum`]: an exact, order-independent sum of non-negative `f64`s.
//!
//! `relay_by_distance.csv` averages `eps_learned / eps(d)` over recipients
//! whose values are computed in different places (worker threads, parts of
//! the round exchange, processes of a cluster). Floating-point addition
//! depends on the order; this accumulator does not: each term `m · 2^e`
//! (53-bit integer mantissa m) is added as an integer to the digit of its
//! exponent, digits are kept in base 2^64 along each chain `e, e + 64,
//! e + 128, …`, so the state after any sequence of additions and merges is a
//! function of the multiset of terms alone. The final `f64` is computed from
//! that state, so it is the same bit for bit wherever the terms were added.

use serde::{Deserialize, Serialize};

/// Mask of one base-2^64 digit.
const DIGIT: u128 = u64::MAX as u128;

/// An exact sum of non-negative finite `f64`s (see the [module](self)).
/// Its serde form is its digits; decoding re-adds them, so a decoded sum is
/// canonical whatever arrived.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(from = "Digits", into = "Digits")]
pub struct ExactSum {
    /// `(exponent, digit)`, ascending exponents, every digit in `1..2^64`:
    /// the value is Σ digit · 2^exponent.
    digits: Vec<(i32, u64)>,
}

impl ExactSum {
    /// The empty sum (0).
    pub fn new() -> ExactSum {
        ExactSum::default()
    }

    /// Adds `count` copies of `x`.
    ///
    /// # Panics
    /// If `x` is negative, NaN or infinite (callers add ratios ≥ 1 of
    /// finite privacy levels).
    pub fn add_n(&mut self, x: f64, count: u64) {
        assert!(
            x.is_finite() && x >= 0.0,
            "ExactSum adds non-negative finite numbers, got {x}"
        );
        if x == 0.0 || count == 0 {
            return;
        }
        let bits = x.to_bits();
        let exp = ((bits >> 52) & 0x7ff) as i32;
        let frac = bits & ((1u64 << 52) - 1);
        let (m, e) = if exp == 0 {
            (frac, -1074)
        } else {
            (frac | (1u64 << 52), exp - 1075)
        };
        // m < 2^53 and count < 2^64: the product fits in u128.
        self.add_digit(e, m as u128 * count as u128);
    }

    /// Adds one `x`.
    pub fn add(&mut self, x: f64) {
        self.add_n(x, 1);
    }

    /// Adds every term of `other`.
    pub fn merge(&mut self, other: &ExactSum) {
        for &(e, d) in &other.digits {
            self.add_digit(e, d as u128);
        }
    }

    /// Whether nothing (or only zeros) was added.
    pub fn is_zero(&self) -> bool {
        self.digits.is_empty()
    }

    /// Adds `v · 2^e`, carrying into `e + 64` so every digit stays below 2^64.
    fn add_digit(&mut self, mut e: i32, mut v: u128) {
        while v != 0 {
            let at = self.digits.partition_point(|&(x, _)| x < e);
            let cur = match self.digits.get(at) {
                Some(&(x, d)) if x == e => d as u128,
                _ => {
                    self.digits.insert(at, (e, 0));
                    0
                }
            };
            let total = cur + v; // < 2^64 + 2^117: no overflow
            let low = (total & DIGIT) as u64;
            if low == 0 {
                self.digits.remove(at);
            } else {
                self.digits[at].1 = low;
            }
            v = total >> 64;
            e += 64;
        }
    }

    /// The sum as an `f64`: the digits converted and added from the largest
    /// exponent down (deterministic: a function of the exact value's
    /// canonical digits; within a few ulps of the exact sum).
    pub fn value(&self) -> f64 {
        self.digits
            .iter()
            .rev()
            .fold(0.0, |acc, &(e, d)| acc + scale(d as f64, e))
    }
}

/// `x · 2^e` without overflow in the intermediate power.
fn scale(mut x: f64, mut e: i32) -> f64 {
    while e > 1000 {
        x *= 2f64.powi(1000);
        e -= 1000;
    }
    while e < -1000 {
        x *= 2f64.powi(-1000);
        e += 1000;
    }
    x * 2f64.powi(e)
}

/// The serde form of an [`ExactSum`]: `(exponent, digit)` pairs.
#[derive(Serialize, Deserialize)]
#[serde(transparent)]
struct Digits(Vec<(i32, u64)>);

impl From<Digits> for ExactSum {
    fn from(d: Digits) -> ExactSum {
        let mut s = ExactSum::new();
        for (e, v) in d.0 {
            s.add_digit(e, v as u128);
        }
        s
    }
}

impl From<ExactSum> for Digits {
    fn from(s: ExactSum) -> Digits {
        Digits(s.digits)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The state (and so the value) does not depend on the order of the
    /// terms or on how they were split before merging; the value is the
    /// exact sum rounded within a few ulps.
    #[test]
    fn order_and_grouping_do_not_matter() {
        let terms: Vec<f64> = (0..2000)
            .map(|i| 1.0 + (i as f64 * 0.618_033_988_7).fract() * 1e6 * ((i % 7) as f64))
            .chain([1e300, 3.0e-310, 0.1, 1e-300, 2.5])
            .collect();
        let mut a = ExactSum::new();
        for &t in &terms {
            a.add(t);
        }
        let mut b = ExactSum::new();
        let mut c = ExactSum::new();
        for (i, &t) in terms.iter().enumerate().rev() {
            if i % 3 == 0 { b.add(t) } else { c.add(t) }
        }
        b.merge(&c);
        assert_eq!(a, b);
        assert_eq!(a.value().to_bits(), b.value().to_bits());
        // 1e300 dominates; the rest is below its ulp.
        assert_eq!(a.value(), 1e300);
    }

    #[test]
    fn small_sums_are_exact_and_counts_multiply() {
        let mut s = ExactSum::new();
        s.add_n(0.1, 10);
        // Exactly 10 · fl(0.1), rounded once: 1.0000000000000000555 → 1.
        assert_eq!(s.value(), 1.0);
        let mut t = ExactSum::new();
        for _ in 0..10 {
            t.add(0.1);
        }
        assert_eq!(s, t);
        // A plain f64 loop drifts: the accumulator does not.
        assert_ne!((0..10).fold(0.0, |a: f64, _| a + 0.1), 1.0);
        let mut big = ExactSum::new();
        big.add_n(f64::MAX / 4.0, u64::MAX);
        big.add_n(f64::MAX / 4.0, 3);
        let mut parts = ExactSum::new();
        parts.add_n(f64::MAX / 4.0, 3);
        parts.add_n(f64::MAX / 4.0, u64::MAX);
        assert_eq!(big, parts);
        assert!(ExactSum::new().is_zero() && ExactSum::new().value() == 0.0);
    }

    #[test]
    fn travels_exactly() {
        let mut s = ExactSum::new();
        for x in [1.0, 7.5, 1e-320, 1e200, 3.25] {
            s.add_n(x, 123_456_789);
        }
        // Its serde form (JSON here: integers only) comes back equal.
        let text = serde_json::to_string(&s).unwrap();
        let back: ExactSum = serde_json::from_str(&text).unwrap();
        assert_eq!(back, s);
        assert_eq!(back.value().to_bits(), s.value().to_bits());
        // Digits out of order, repeated or zero are re-added on decoding:
        // sorted, merged, zeros dropped.
        let odd: ExactSum = serde_json::from_str("[[0,3],[-2,4],[0,0],[0,5]]").unwrap();
        assert_eq!(odd.digits, vec![(-2, 4), (0, 8)]);
        assert_eq!(odd.value(), 9.0);
        assert!(serde_json::from_str::<ExactSum>("[[1]]").is_err());
    }
}
