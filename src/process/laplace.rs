//! Elementary noise draws shared by every sampler: Laplace (rand_distr has none)
//! and the exponential gaps of the jump process.

use rand::Rng;
use rand_distr::{Distribution, Exp1, StandardNormal};

/// One draw of `Lap(scale)`: density `exp(-|x|/scale) / (2 scale)`, drawn as
/// sign · Exp(1) · scale (ziggurat exponential, one random bit for the sign).
#[inline]
pub fn laplace<R: Rng + ?Sized>(rng: &mut R, scale: f64) -> f64 {
    let e: f64 = Exp1.sample(rng);
    // The sign is `rng.random::<bool>()` (rand: the top bit of one u32,
    // set = true = positive), applied without a branch: a random sign is a
    // branch mispredicted half the time. Bit for bit the old `if`: rounding
    // is symmetric, so −(e·scale) = (−e)·scale exactly.
    let negative = u64::from(!rng.next_u32() >> 31);
    f64::from_bits((e * scale).to_bits() ^ (negative << 63))
}

/// One draw of Exp(1).
#[inline]
pub fn exp1<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    Exp1.sample(rng)
}

/// One draw of N(0, 1).
#[inline]
pub fn std_normal<R: Rng + ?Sized>(rng: &mut R) -> f64 {
    StandardNormal.sample(rng)
}

/// The Laplace distribution as a `rand_distr` value, for callers that prefer
/// the `Distribution` interface.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Laplace {
    scale: f64,
}

impl Laplace {
    /// `Lap(scale)`; `scale` must be finite and > 0.
    pub fn new(scale: f64) -> crate::error::Result<Self> {
        if scale.is_finite() && scale > 0.0 {
            Ok(Laplace { scale })
        } else {
            Err(crate::error::Error::param(
                "Laplace scale",
                scale,
                "a finite number > 0",
            ))
        }
    }
}

impl Distribution<f64> for Laplace {
    fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> f64 {
        laplace(rng, self.scale)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, rng_for};

    #[test]
    fn laplace_moments() {
        // Var Lap(b) = 2b², E|X| = b; N = 200k → s.e.(mean x²) = b² sqrt(20)/sqrt(N)·... use 6 s.e.
        let n = 200_000;
        let b = 0.7;
        let mut rng = rng_for(11, 0, 0, Purpose::Path);
        let (mut s1, mut s2, mut sa) = (0.0, 0.0, 0.0);
        for _ in 0..n {
            let x = laplace(&mut rng, b);
            s1 += x;
            s2 += x * x;
            sa += x.abs();
        }
        let nf = n as f64;
        // sd(X) = b√2, sd(X²) = b² √20, sd(|X|) = b.
        assert!((s1 / nf).abs() < 6.0 * b * 2f64.sqrt() / nf.sqrt());
        assert!((s2 / nf - 2.0 * b * b).abs() < 6.0 * b * b * 20f64.sqrt() / nf.sqrt());
        assert!((sa / nf - b).abs() < 6.0 * b / nf.sqrt());
    }

    #[test]
    fn rejects_bad_scale() {
        assert!(Laplace::new(0.0).is_err());
        assert!(Laplace::new(f64::NAN).is_err());
        assert!(Laplace::new(f64::INFINITY).is_err());
        assert!(Laplace::new(1.0).is_ok());
    }

    /// The branchless sign is the old `if rng.random::<bool>()` bit for bit
    /// and consumes the same draws: every seeded output depends on it.
    #[test]
    fn branchless_sign_equals_the_random_bool_formulation() {
        use rand::RngExt;
        let mut a = rng_for(9, 1, 0, Purpose::Path);
        let mut b = rng_for(9, 1, 0, Purpose::Path);
        for scale in [1e-300, 0.37, 1.0, 2.5e10] {
            for _ in 0..10_000 {
                let x = laplace(&mut a, scale);
                let e: f64 = Exp1.sample(&mut b);
                let y = if b.random::<bool>() {
                    e * scale
                } else {
                    -e * scale
                };
                assert_eq!(x.to_bits(), y.to_bits());
            }
        }
    }
}
