//! Binary fixed-point numbers for the engine's exact sums: each term is
//! rounded once to a multiple of a quantum fixed per run, then added as an
//! `i128`, so totals do not depend on the order of the additions.

/// A binary fixed-point format: `x ↦ round(x · 2^shift)` as `i128`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fixed {
    /// Fraction bits.
    pub shift: i32,
}

/// Bits kept below the largest expected term: terms up to 2^`HEADROOM_BITS`
/// times that size still fit after 2^32 additions (127 − 72 − 32 = 23).
const FRACTION_BITS: i32 = 72;

impl Fixed {
    /// The format whose quantum is 2^−72 of the power of two at or above
    /// `scale` (the largest magnitude a single term is expected to have).
    pub fn for_scale(scale: f64) -> Fixed {
        let s = if scale.is_finite() && scale > 0.0 {
            scale
        } else {
            1.0
        };
        let e = s.log2().ceil() as i32;
        Fixed {
            shift: FRACTION_BITS - e,
        }
    }

    /// `x` rounded to the format; `None` when it does not fit with the
    /// headroom of 2^32 additions (|x| ≥ 2^(127 − 32 − shift)).
    #[inline]
    pub fn to_fixed(self, x: f64) -> Option<i128> {
        let t = x * pow2(self.shift);
        // From 2^52 on every f64 is an integer: skip the rounding call
        // (`round` is a library call; the result is the same).
        let y = if t.abs() >= TWO_52 { t } else { t.round() };
        if y.is_finite() && y.abs() < LIMIT {
            Some(integral_to_i128(y))
        } else {
            None
        }
    }

    /// Back to f64 (rounded once).
    #[inline]
    pub fn to_f64(self, v: i128) -> f64 {
        v as f64 * pow2(-self.shift)
    }
}

/// 2^52: f64 values of at least this magnitude are integers.
const TWO_52: f64 = (1u64 << 52) as f64;

/// 2^94: the largest magnitude [`Fixed::to_fixed`] accepts (exclusive).
const LIMIT: f64 = (1u128 << 94) as f64;

/// 2^k, built from its bits (no `powi` call per term); exact for
/// −1022 ≤ k ≤ 1023, the run's shifts stay far inside.
#[inline]
fn pow2(k: i32) -> f64 {
    if (-1022..=1023).contains(&k) {
        f64::from_bits(((1023 + k) as u64) << 52)
    } else {
        pow2_beyond(k)
    }
}

/// 2^k by `powi`, out of line: inlined, the compiler may compute the
/// (speculatable) `powi` on every call and keep the bits' value.
#[cold]
#[inline(never)]
fn pow2_beyond(k: i32) -> f64 {
    2f64.powi(k)
}

/// `y as i128` for an integral `y` with |y| < 2^94, from its bits: the
/// mantissa shifted by the exponent (the generic conversion is a library
/// call; this is a few instructions).
#[inline]
fn integral_to_i128(y: f64) -> i128 {
    debug_assert!(y.fract() == 0.0 && y.abs() < LIMIT);
    let bits = y.to_bits();
    let exp = ((bits >> 52) & 0x7ff) as i32;
    if exp == 0 {
        return 0; // ±0 (an integral y has no subnormals)
    }
    let mant = ((bits & ((1u64 << 52) - 1)) | (1u64 << 52)) as i128;
    let e = exp - 1075;
    let mag = if e >= 0 { mant << e } else { mant >> -e };
    if bits >> 63 == 1 { -mag } else { mag }
}

#[cfg(test)]
mod conversion_tests {
    use super::*;

    /// The bit-level conversion and `pow2` equal the library's for integral
    /// values of every magnitude and sign up to the limit.
    #[test]
    fn integral_conversion_equals_the_cast() {
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        for k in 0..20_000 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let e = k % 95;
            let m = (x >> 11) as f64 / (1u64 << 53) as f64; // [0, 1)
            let y = (m * 2f64.powi(e)).round();
            let y = if x & 1 == 1 { -y } else { y };
            if y.abs() < LIMIT {
                assert_eq!(integral_to_i128(y), y as i128, "{y}");
            }
        }
        for y in [
            0.0,
            -0.0,
            1.0,
            -1.0,
            2f64.powi(93),
            -(2f64.powi(93) + 2f64.powi(41)),
        ] {
            assert_eq!(integral_to_i128(y), y as i128, "{y}");
        }
        for k in [-1022, -100, -1, 0, 1, 72, 1023] {
            assert_eq!(pow2(k), 2f64.powi(k), "2^{k}");
        }
    }
}
