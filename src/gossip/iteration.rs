//! The gossip iteration of memo §2: noise once per node (3), then simple or
//! accelerated gossip (4), i.e. `x^t = P_t(W)(x + η)` with the recursion (5)
//! `P_0 = I, P_1 = W, P_{t+1} = γ W P_t + (1 − γ) P_{t−1}` (γ = 1: `W^t`), and
//! the number of steps of the mixing rule (6).

use super::metropolis::Metropolis;
use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// Simple (`W^t`) or accelerated (constant-momentum Chebyshev) gossip.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum GossipScheme {
    /// `x^{t+1} = W x^t`.
    Simple,
    /// `x^{t+1} = γ W x^t + (1 − γ) x^{t−1}`, γ of memo (4) (the default).
    #[default]
    Accelerated,
}

impl GossipScheme {
    /// The name on the command line and in files.
    pub fn name(self) -> &'static str {
        match self {
            GossipScheme::Simple => "simple",
            GossipScheme::Accelerated => "accelerated",
        }
    }
}

impl std::str::FromStr for GossipScheme {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim() {
            "simple" => Ok(GossipScheme::Simple),
            "accelerated" => Ok(GossipScheme::Accelerated),
            _ => Err(Error::param("gossip", s, "accelerated or simple")),
        }
    }
}

impl std::fmt::Display for GossipScheme {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// Largest number of gossip steps (`steps`, or what rule (6) gives).
pub const MAX_STEPS: u64 = 1_000_000;

/// γ of memo (4): `2/(1 + √(1 − a²))`, `a = 1 − λ₂/2`, with `1 − a²`
/// written `λ₂(1 − λ₂/4)` (no cancellation for a small gap).
pub fn momentum(lambda2: f64) -> f64 {
    2.0 / (1.0 + (lambda2 * (1.0 - lambda2 / 4.0)).sqrt())
}

/// Steps of the mixing rule (6) (`T_mix` of the reference code):
/// `⌈ln(n·max(1/4, σ²)/σ²)/√λ₂⌉` for accelerated gossip, with `1/λ₂` in
/// place of `1/√λ₂` for simple gossip; refused past [`MAX_STEPS`].
pub fn mixing_steps(n: usize, sigma: f64, lambda2: f64, scheme: GossipScheme) -> Result<u64> {
    let s2 = sigma * sigma;
    let log = (n as f64 * s2.max(0.25) / s2).ln();
    let rate = match scheme {
        GossipScheme::Accelerated => lambda2.sqrt(),
        GossipScheme::Simple => lambda2,
    };
    let t = (log / rate).ceil();
    if !(t.is_finite() && t <= MAX_STEPS as f64) {
        return Err(Error::Unsupported(format!(
            "the mixing rule gives {t} {scheme} gossip steps (λ₂ = {lambda2:e}), over the cap of \
             {MAX_STEPS}: give `steps`{}",
            if scheme == GossipScheme::Simple {
                " or use accelerated gossip"
            } else {
                ""
            }
        )));
    }
    Ok(t.max(1.0) as u64)
}

/// The recursion (5) with its momentum γ (1 for simple gossip).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Recursion {
    gamma: f64,
}

impl Recursion {
    /// The recursion of `scheme` on a graph of spectral gap `lambda2`.
    pub fn new(scheme: GossipScheme, lambda2: f64) -> Recursion {
        Recursion {
            gamma: match scheme {
                GossipScheme::Simple => 1.0,
                GossipScheme::Accelerated => momentum(lambda2),
            },
        }
    }

    /// γ.
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// `p_t(λ)` for t = 0..out.len(): the scalar recursion (5).
    pub fn scalar(&self, lambda: f64, out: &mut [f64]) {
        let g = self.gamma;
        for t in 0..out.len() {
            out[t] = match t {
                0 => 1.0,
                1 => lambda,
                _ => g * lambda * out[t - 1] + (1.0 - g) * out[t - 2],
            };
        }
    }

    /// Walks `z_t = P_t(W) z_0` for t = 0..steps, calling `visit(t, z_t)`
    /// for each (the messages of memo §2 are `z_t` for t < T). `z` holds
    /// z₀ on entry; `prev` and `next` are scratch of the same length.
    pub fn walk(
        &self,
        w: &Metropolis,
        steps: u64,
        z: &mut Vec<f64>,
        prev: &mut Vec<f64>,
        next: &mut Vec<f64>,
        mut visit: impl FnMut(u64, &[f64]),
    ) {
        let n = z.len();
        prev.resize(n, 0.0);
        next.resize(n, 0.0);
        for t in 0..steps {
            visit(t, z);
            if t + 1 == steps {
                break;
            }
            if t == 0 || self.gamma == 1.0 {
                w.apply(z, next);
            } else {
                w.apply_axpby(self.gamma, z, 1.0 - self.gamma, prev, next);
            }
            std::mem::swap(prev, z);
            std::mem::swap(z, next);
        }
    }

    /// `x ← P_T(W) x`: T updates of memo §2's pseudo-code (`prev` and `next`
    /// are scratch).
    pub fn run(
        &self,
        w: &Metropolis,
        steps: u64,
        x: &mut Vec<f64>,
        prev: &mut Vec<f64>,
        next: &mut Vec<f64>,
    ) {
        let n = x.len();
        prev.resize(n, 0.0);
        next.resize(n, 0.0);
        for t in 0..steps {
            if t == 0 || self.gamma == 1.0 {
                w.apply(x, next);
            } else {
                w.apply_axpby(self.gamma, x, 1.0 - self.gamma, prev, next);
            }
            std::mem::swap(prev, x);
            std::mem::swap(x, next);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;

    #[test]
    fn momentum_and_rule_reproduce_the_memo_facebook_values() {
        // Memo §5: λ₂ = 2.7058e-4 gives γ = 1.967635 and T = 505 (n = 4039, σ ≥ 1/2).
        let g = momentum(2.7058e-4);
        assert!((g - 1.967635).abs() < 5e-6, "{g}");
        let t = mixing_steps(4039, 1.0, 2.7058e-4, GossipScheme::Accelerated).unwrap();
        assert_eq!(t, 505);
        // σ² < 1/4 lengthens it: ln(n/(4σ²)).
        let t = mixing_steps(4039, 0.1, 2.7058e-4, GossipScheme::Accelerated).unwrap();
        assert_eq!(
            t,
            ((4039.0f64 / 0.04).ln() / 2.7058e-4f64.sqrt()).ceil() as u64
        );
        // Simple gossip uses 1/λ₂ (about 30,700 steps on facebook).
        let s = mixing_steps(4039, 1.0, 2.7058e-4, GossipScheme::Simple).unwrap();
        assert_eq!(s, (4039.0f64.ln() / 2.7058e-4).ceil() as u64);
        assert!(mixing_steps(4039, 1.0, 1e-30, GossipScheme::Simple).is_err());
    }

    #[test]
    fn the_walk_is_the_matrix_recursion_and_the_scalar_one_on_eigenvectors() {
        let g = Graph::load(concat!(env!("CARGO_MANIFEST_DIR"), "/data/karate.edges")).unwrap();
        let w = Metropolis::new(&g).unwrap();
        let n = w.n();
        let rec = Recursion::new(GossipScheme::Accelerated, 0.05);
        // The constant vector is an eigenvector with eigenvalue 1: p_t(1) = 1.
        let mut p = vec![0.0; 8];
        rec.scalar(1.0, &mut p);
        assert!(p.iter().all(|x| (x - 1.0).abs() < 1e-12));
        // walk's z_t against dense P_t e_u.
        let d = w.to_dense();
        let mul = |a: &[f64], b: &[f64]| -> Vec<f64> {
            let mut c = vec![0.0; n * n];
            for j in 0..n {
                for k in 0..n {
                    let bkj = b[j * n + k];
                    for i in 0..n {
                        c[j * n + i] += a[k * n + i] * bkj;
                    }
                }
            }
            c
        };
        let mut eye = vec![0.0; n * n];
        for i in 0..n {
            eye[i * n + i] = 1.0;
        }
        let mut ps = vec![eye, d.clone()];
        for t in 1..6 {
            let wp = mul(&d, &ps[t]);
            let next: Vec<f64> = wp
                .iter()
                .zip(&ps[t - 1])
                .map(|(a, b)| rec.gamma() * a + (1.0 - rec.gamma()) * b)
                .collect();
            ps.push(next);
        }
        let u = 5;
        let mut z = vec![0.0; n];
        z[u] = 1.0;
        let (mut a, mut b) = (Vec::new(), Vec::new());
        let mut seen = 0;
        rec.walk(&w, 7, &mut z, &mut a, &mut b, |t, zt| {
            for i in 0..n {
                assert!((zt[i] - ps[t as usize][u * n + i]).abs() < 1e-13);
            }
            seen += 1;
        });
        assert_eq!(seen, 7);
        let mut x = vec![0.0; n];
        x[u] = 1.0;
        rec.run(&w, 6, &mut x, &mut a, &mut b);
        for i in 0..n {
            assert!((x[i] - ps[6][u * n + i]).abs() < 1e-13);
        }
    }
}
