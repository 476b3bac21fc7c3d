//! Two-point backward transitions (decreasing ε, i.e. tightening privacy).
//!
//! For extending a stored path below its bottom use
//! [`walk_down`](super::sampler::walk_down), which also records the jumps;
//! these closed forms give `V_eps1` from `V_eps2` alone (memo §1c, §2).

use super::laplace::{exp1, laplace, std_normal};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, Poisson};

/// Eq. (28) of paper 000 (memo §1c): for `eps1 < eps2`,
/// `V_eps1 = V_eps2 + B·L` with `B ~ Bernoulli(1 − (ε1/ε2)²)` and
/// `L ~ Lap(1/ε1)`, independent of `V_eps2`. Returns `x2` itself (bitwise)
/// when B = 0.
pub fn backward_two_point<R: Rng + ?Sized>(x2: f64, eps1: f64, eps2: f64, rng: &mut R) -> f64 {
    if eps1 >= eps2 {
        return x2;
    }
    let q = (eps1 / eps2) * (eps1 / eps2);
    if rng.random::<f64>() < q {
        x2
    } else {
        x2 + laplace(rng, 1.0 / eps1)
    }
}

/// The n-dimensional ℓ2 two-point backward law (memo §2): writes
/// `V_eps1 = V_eps2 + sqrt(ΔS)·Z_n` into `out`, where
/// `ΔS = Σ_{j≤K} 2W_j/ε_j²`, `K ~ Poisson((n+1) ln(ε2/ε1))` and the `ln ε_j`
/// are uniform on `(ln ε1, ln ε2)`. With K = 0, `out` is a bitwise copy of
/// `v2`. Returns K.
pub fn backward_two_point_l2<R: Rng + ?Sized>(
    v2: &[f64],
    eps1: f64,
    eps2: f64,
    out: &mut [f64],
    rng: &mut R,
) -> usize {
    out.copy_from_slice(v2);
    if eps1 >= eps2 {
        return 0;
    }
    let n = v2.len() as f64;
    let (l1, l2) = (eps1.ln(), eps2.ln());
    let mean = (n + 1.0) * (l2 - l1);
    let k = match Poisson::new(mean) {
        Ok(p) => p.sample(rng) as usize,
        Err(_) => 0,
    };
    if k == 0 {
        return 0;
    }
    let mut ds = 0.0;
    for _ in 0..k {
        let le = l1 + (l2 - l1) * rng.random::<f64>();
        ds += 2.0 * exp1(rng) * (-2.0 * le).exp();
    }
    let sd = ds.sqrt();
    for x in out.iter_mut() {
        *x += sd * std_normal(rng);
    }
    k
}
