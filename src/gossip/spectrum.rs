//! The one dense eigendecomposition allowed (issue 36): `W = U diag(λ) Uᵀ`
//! (faer), up to [`MAX_DENSE_NODES`] nodes and within the memory budget,
//! for what needs every eigenvector: the message norms
//! `D_t(w) = ‖P_t e_w‖² = Σ_k p_t(λ_k)² U_wk²` of memo (10) (for the
//! accounting (8)) and `‖P_T e_v‖²` of the utility (13).

use super::iteration::Recursion;
use super::metropolis::Metropolis;
use crate::error::{Error, Result};
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{ComputeEigenvectors, self_adjoint_evd, self_adjoint_evd_scratch};
use faer::{Accum, Mat, MatRef, Par};

/// Most nodes of the dense eigendecomposition.
pub const MAX_DENSE_NODES: usize = 10_000;

/// Eigenvalues of W (ascending) and the squares `U∘U` of its eigenvectors.
pub struct Spectrum {
    values: Vec<f64>,
    /// `(U∘U)[w, k]`, column-major n × n.
    squares: Mat<f64>,
}

/// Bytes the decomposition needs: W, U and faer's workspace (≈ 2 n² more).
pub fn dense_bytes(n: usize) -> u64 {
    crate::limits::bytes_of(&[n as u64, n as u64, 8 * 4])
}

fn par(n: usize) -> Par {
    if n < 256 || crate::limits::address_space_limited() {
        Par::Seq
    } else {
        Par::rayon(0)
    }
}

impl Spectrum {
    /// The decomposition of W, refused past [`MAX_DENSE_NODES`] or the
    /// memory budget.
    pub fn new(w: &Metropolis) -> Result<Spectrum> {
        let n = w.n();
        if n > MAX_DENSE_NODES {
            return Err(Error::Unsupported(format!(
                "the graph has {n} nodes: the gossip accounting (memo (8)) and utility theory \
                 (13) need a dense eigendecomposition of W, allowed up to {MAX_DENSE_NODES} nodes"
            )));
        }
        crate::limits::memory_budget().check_with(
            "graph",
            format!("{n} nodes (dense eigendecomposition of W)"),
            dense_bytes(n),
            "gossip on a smaller graph (`ego`, `subgraph`), or raise `memory_budget`",
        )?;
        let dense = w.to_dense();
        let a = MatRef::from_column_major_slice(&dense, n, n);
        let mut u = Mat::<f64>::zeros(n, n);
        let mut s = faer::diag::Diag::<f64>::zeros(n);
        let p = par(n);
        let mut mem = MemBuffer::new(self_adjoint_evd_scratch::<f64>(
            n,
            ComputeEigenvectors::Yes,
            p,
            Default::default(),
        ));
        self_adjoint_evd(
            a,
            s.as_mut(),
            Some(u.as_mut()),
            p,
            MemStack::new(&mut mem),
            Default::default(),
        )
        .map_err(|e| Error::Numerical(format!("eigendecomposition of W: {e:?}")))?;
        drop(dense);
        let values: Vec<f64> = (0..n).map(|k| s[k]).collect();
        for j in 0..n {
            for i in 0..n {
                let x = u[(i, j)];
                u[(i, j)] = x * x;
            }
        }
        Ok(Spectrum { values, squares: u })
    }

    /// Eigenvalues, ascending (the last is 1).
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// `‖P_t e_w‖²` for t = 0..=steps, row t at `[t·n, (t+1)·n)`: one
    /// product `(p_t(λ_k)²)_{t,k} · (U∘U)ᵀ`.
    pub fn message_norms(&self, rec: &Recursion, steps: u64) -> Result<Vec<f64>> {
        let n = self.values.len();
        let rows = steps as usize + 1;
        crate::limits::check_memory(
            "steps",
            steps,
            crate::limits::bytes_of(&[rows as u64, n as u64, 16]),
        )?;
        let mut p2 = Mat::<f64>::zeros(rows, n);
        let mut p = vec![0.0; rows];
        for (k, &lambda) in self.values.iter().enumerate() {
            rec.scalar(lambda, &mut p);
            for t in 0..rows {
                p2[(t, k)] = p[t] * p[t];
            }
        }
        let mut d = Mat::<f64>::zeros(rows, n);
        faer::linalg::matmul::matmul(
            d.as_mut(),
            Accum::Replace,
            p2.as_ref(),
            self.squares.as_ref().transpose(),
            1.0,
            par(n.max(rows)),
        );
        let mut out = vec![0.0; rows * n];
        for t in 0..rows {
            for w in 0..n {
                out[t * n + w] = d[(t, w)];
            }
        }
        Ok(out)
    }

    /// `‖P_T‖_F² = Σ_k p_T(λ_k)²` (memo (14)).
    pub fn frobenius2(&self, rec: &Recursion, steps: u64) -> f64 {
        let mut p = vec![0.0; steps as usize + 1];
        self.values
            .iter()
            .map(|&l| {
                rec.scalar(l, &mut p);
                p[steps as usize] * p[steps as usize]
            })
            .sum()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::Graph;

    #[test]
    fn past_ten_thousand_nodes_the_dense_spectrum_is_refused_in_one_line() {
        let n = MAX_DENSE_NODES + 1;
        let edges: Vec<(u32, u32)> = (0..n as u32 - 1).map(|i| (i, i + 1)).collect();
        let g = Graph::from_index_edges(n, &edges, None, false).unwrap();
        let w = Metropolis::new(&g).unwrap();
        let e = Spectrum::new(&w).err().expect("refused").to_string();
        assert!(e.contains("10001 nodes") && e.contains("10000"), "{e}");
        assert_eq!(e.lines().count(), 1);
    }
}
