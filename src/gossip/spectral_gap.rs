//! λ₂, the spectral gap of memo (2) (second-smallest eigenvalue of I − W),
//! by the Lanczos method with full reorthogonalisation on the complement of
//! the constant vector (W's top eigenvector, eigenvalue 1), so that the
//! largest Ritz value converges to the second-largest eigenvalue μ₂ of W and
//! `λ₂ = 1 − μ₂`. No dense matrix: memory is one Lanczos vector per step.
//!
//! Stopping rule: with the largest Ritz pair (θ, y) of the tridiagonal
//! matrix, the residual `‖W y − θ y‖ = β_k |s_k|` bounds the distance from θ
//! to an eigenvalue by `min(r, r²/gap)` (gap: to the next Ritz value;
//! Parlett, *The Symmetric Eigenvalue Problem*, §11.7). The run stops when
//! that bound is below [`RELATIVE_ACCURACY`] · λ₂, or when β vanishes (an
//! invariant subspace: the Ritz values are then exact).

use super::metropolis::Metropolis;
use crate::error::{Error, Result};
use crate::rng::{Purpose, rng_for};
use faer::{Mat, Side};
use rand::RngExt;

/// Relative accuracy asked of λ₂.
pub const RELATIVE_ACCURACY: f64 = 1e-9;

/// Most Lanczos steps.
pub const MAX_LANCZOS_STEPS: usize = 4000;

/// λ₂ and how it was found.
#[derive(Clone, Copy, Debug, PartialEq, serde::Serialize)]
pub struct SpectralGap {
    /// The second-smallest eigenvalue of I − W.
    pub lambda2: f64,
    /// Lanczos steps taken.
    pub steps: usize,
    /// The bound on |λ₂ − (1 − θ)| at the stop.
    pub error_bound: f64,
}

/// λ₂ of W by Lanczos (see the module docs). The start vector is a fixed
/// pseudo-random vector (the same for every run), so λ₂ is reproducible.
pub fn spectral_gap(w: &Metropolis) -> Result<SpectralGap> {
    let n = w.n();
    let max_steps = (n - 1).min(MAX_LANCZOS_STEPS);
    crate::limits::check_memory(
        "graph",
        format!("{n} nodes (Lanczos for λ₂)"),
        crate::limits::bytes_of(&[n as u64, max_steps as u64 + 4, 8]),
    )?;
    let mut rng = rng_for(0x4c41_4e43_5a4f_5332, 0, 0, Purpose::Gossip);
    let mut q: Vec<f64> = (0..n).map(|_| rng.random::<f64>() - 0.5).collect();
    deflate_and_normalise(&mut q);
    let mut basis: Vec<f64> = Vec::with_capacity(n * (max_steps + 1));
    let (mut alpha, mut beta) = (Vec::new(), Vec::new());
    let mut wq = vec![0.0; n];
    let mut next_check = 8usize;
    let mut last = (0.0, f64::INFINITY);
    for k in 0..max_steps {
        basis.extend_from_slice(&q);
        w.apply(&q, &mut wq);
        let a = dot(&q, &wq);
        alpha.push(a);
        // Full reorthogonalisation (twice) against every Lanczos vector, and
        // against the constant vector.
        for _ in 0..2 {
            for col in basis.chunks_exact(n) {
                let c = dot(col, &wq);
                axpy(-c, col, &mut wq);
            }
            let mean = wq.iter().sum::<f64>() / n as f64;
            wq.iter_mut().for_each(|x| *x -= mean);
        }
        let b = norm(&wq);
        let steps = k + 1;
        let done = b <= 1e-13 || steps == max_steps;
        if steps >= next_check || done {
            next_check = steps + (steps / 4).max(8);
            let (theta, second, last_comp) = top_ritz(&alpha, &beta)?;
            let r = b * last_comp.abs();
            let gap = (theta - second).max(0.0);
            let bound = if gap > 0.0 { r.min(r * r / gap) } else { r };
            let lambda2 = 1.0 - theta;
            last = (lambda2, bound);
            if b <= 1e-13 || bound <= RELATIVE_ACCURACY * lambda2.abs() {
                return Ok(SpectralGap {
                    lambda2,
                    steps,
                    error_bound: bound,
                });
            }
        }
        if done {
            break;
        }
        beta.push(b);
        q.iter_mut().zip(&wq).for_each(|(x, y)| *x = y / b);
    }
    if n - 1 <= MAX_LANCZOS_STEPS {
        // The whole complement was spanned: the Ritz values are exact.
        return Ok(SpectralGap {
            lambda2: last.0,
            steps: max_steps,
            error_bound: 0.0,
        });
    }
    Err(Error::Numerical(format!(
        "λ₂ of the gossip matrix did not converge in {max_steps} Lanczos steps (last estimate \
         {:e} ± {:e})",
        last.0, last.1
    )))
}

/// The largest and second-largest eigenvalues of the Lanczos tridiagonal
/// matrix, and the last component of the largest one's eigenvector.
fn top_ritz(alpha: &[f64], beta: &[f64]) -> Result<(f64, f64, f64)> {
    let k = alpha.len();
    let t = Mat::<f64>::from_fn(k, k, |i, j| {
        if i == j {
            alpha[i]
        } else if i == j + 1 {
            beta[j]
        } else if j == i + 1 {
            beta[i]
        } else {
            0.0
        }
    });
    let e = t
        .self_adjoint_eigen(Side::Lower)
        .map_err(|e| Error::Numerical(format!("Lanczos tridiagonal eigenproblem: {e:?}")))?;
    let s = e.S().column_vector();
    let theta = s[k - 1];
    let second = if k >= 2 { s[k - 2] } else { f64::NEG_INFINITY };
    Ok((theta, second, e.U()[(k - 1, k - 1)]))
}

fn deflate_and_normalise(q: &mut [f64]) {
    let mean = q.iter().sum::<f64>() / q.len() as f64;
    q.iter_mut().for_each(|x| *x -= mean);
    let s = norm(q);
    q.iter_mut().for_each(|x| *x /= s);
}

pub(crate) fn dot(a: &[f64], b: &[f64]) -> f64 {
    a.iter().zip(b).map(|(x, y)| x * y).sum()
}

pub(crate) fn norm(a: &[f64]) -> f64 {
    dot(a, a).sqrt()
}

pub(crate) fn axpy(c: f64, x: &[f64], y: &mut [f64]) {
    y.iter_mut().zip(x).for_each(|(b, a)| *b += c * a);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;

    /// λ₂ by Lanczos against the dense eigendecomposition of W (faer) on
    /// karate and on a 300-node geometric graph: the bound it reports holds.
    #[test]
    fn lanczos_gap_matches_the_dense_spectrum() {
        let karate =
            Graph::load(concat!(env!("CARGO_MANIFEST_DIR"), "/data/karate.edges")).unwrap();
        let geo =
            crate::graph::generate::geometric(300, crate::graph::GeometricParam::Radius(0.12), 4)
                .unwrap()
                .0;
        for g in [karate, geo] {
            let (c, _) = g.components();
            if c > 1 {
                continue;
            }
            let w = Metropolis::new(&g).unwrap();
            let gap = spectral_gap(&w).unwrap();
            let n = w.n();
            let dense = Mat::<f64>::from_fn(n, n, |i, j| w.to_dense()[j * n + i]);
            let ev = dense.self_adjoint_eigenvalues(Side::Lower).unwrap();
            let truth = 1.0 - ev[n - 2];
            assert!(
                (gap.lambda2 - truth).abs() <= gap.error_bound.max(1e-12 * truth) + 1e-13,
                "{gap:?} vs {truth}"
            );
            assert!((gap.lambda2 - truth).abs() <= 1e-8 * truth);
        }
    }
}
