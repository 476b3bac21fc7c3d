//! The Metropolis–Hastings gossip matrix W of memo (2) in compressed sparse
//! rows: `W_uv = 1/(1 + max(d_u, d_v))` on every edge, `W_uu = 1 − Σ_v W_uv`,
//! symmetric and doubly stochastic. The off-diagonal entries follow the
//! graph's own CSR arrays (same offsets, same neighbour order), the diagonal
//! is kept apart.

use crate::error::{Error, Result};
use crate::graph::Graph;

/// W of memo (2) on a connected undirected graph.
#[derive(Clone, Debug)]
pub struct Metropolis {
    offsets: Vec<usize>,
    targets: Vec<u32>,
    weights: Vec<f64>,
    diagonal: Vec<f64>,
}

impl Metropolis {
    /// W of `graph`: refused for a directed graph (W must be symmetric), for
    /// fewer than two nodes, and for a disconnected graph, on which gossip
    /// does not average across components. Edge weights, if any, are not
    /// used: the weights of (2) depend on the degrees alone.
    pub fn new(graph: &Graph) -> Result<Metropolis> {
        if graph.is_directed() {
            return Err(Error::param(
                "graph",
                "directed",
                "an undirected graph (the gossip matrix is symmetric)",
            ));
        }
        let n = graph.n();
        if n < 2 {
            return Err(Error::param(
                "graph",
                format!("{n} node(s)"),
                "at least two nodes to gossip",
            ));
        }
        let (components, _) = graph.components();
        if components > 1 {
            return Err(Error::Unsupported(format!(
                "the graph has {components} connected components and gossip does not average \
                 across them: run on one component (`ego` or `subgraph`)"
            )));
        }
        let offsets = graph.offsets().to_vec();
        let targets = graph.targets().to_vec();
        let mut weights = vec![0.0; targets.len()];
        let mut diagonal = vec![1.0; n];
        for u in 0..n {
            let du = graph.degree(u as u32);
            let mut sum = 0.0;
            for k in offsets[u]..offsets[u + 1] {
                let dv = graph.degree(targets[k]);
                let w = 1.0 / (1.0 + du.max(dv) as f64);
                weights[k] = w;
                sum += w;
            }
            diagonal[u] = 1.0 - sum;
        }
        Ok(Metropolis {
            offsets,
            targets,
            weights,
            diagonal,
        })
    }

    /// Nodes.
    pub fn n(&self) -> usize {
        self.diagonal.len()
    }

    /// Stored entries (off-diagonal and diagonal).
    pub fn nnz(&self) -> usize {
        self.targets.len() + self.diagonal.len()
    }

    /// The neighbours of `u` and their weights W_uv.
    pub fn row(&self, u: usize) -> (&[u32], &[f64]) {
        let r = self.offsets[u]..self.offsets[u + 1];
        (&self.targets[r.clone()], &self.weights[r])
    }

    /// W_uu.
    pub fn diagonal(&self) -> &[f64] {
        &self.diagonal
    }

    /// `y = W x`.
    pub fn apply(&self, x: &[f64], y: &mut [f64]) {
        for (u, yu) in y.iter_mut().enumerate() {
            let mut s = self.diagonal[u] * x[u];
            for k in self.offsets[u]..self.offsets[u + 1] {
                s += self.weights[k] * x[self.targets[k] as usize];
            }
            *yu = s;
        }
    }

    /// `y = a·W x + b·z` (one step of the accelerated recursion (4)).
    pub fn apply_axpby(&self, a: f64, x: &[f64], b: f64, z: &[f64], y: &mut [f64]) {
        for (u, yu) in y.iter_mut().enumerate() {
            let mut s = self.diagonal[u] * x[u];
            for k in self.offsets[u]..self.offsets[u + 1] {
                s += self.weights[k] * x[self.targets[k] as usize];
            }
            *yu = a * s + b * z[u];
        }
    }

    /// The dense matrix, column-major (`n·n` entries; for the one dense
    /// eigendecomposition and for tests).
    pub fn to_dense(&self) -> Vec<f64> {
        let n = self.n();
        let mut m = vec![0.0; n * n];
        for u in 0..n {
            m[u * n + u] = self.diagonal[u];
            let (t, w) = self.row(u);
            for (&v, &x) in t.iter().zip(w) {
                m[v as usize * n + u] = x;
            }
        }
        m
    }

    /// `S_v = Σ_{w ∈ N(v)} r_w` (the adjacency A without diagonal, as in
    /// memo (10)).
    pub fn adjacency_sum(&self, r: &[f64], out: &mut [f64]) {
        for (v, o) in out.iter_mut().enumerate() {
            *o = self.targets[self.offsets[v]..self.offsets[v + 1]]
                .iter()
                .map(|&w| r[w as usize])
                .sum();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn weights_follow_memo_2_on_the_path() {
        // a – b – c: degrees 1, 2, 1.
        let g = Graph::from_index_edges(3, &[(0, 1), (1, 2)], None, false).unwrap();
        let w = Metropolis::new(&g).unwrap();
        let d = w.to_dense();
        let third = 1.0 / 3.0;
        let expect = [
            [2.0 * third, third, 0.0],
            [third, third, third],
            [0.0, third, 2.0 * third],
        ];
        for (u, row) in expect.iter().enumerate() {
            for (v, x) in row.iter().enumerate() {
                assert!((d[v * 3 + u] - x).abs() < 1e-15, "W[{u},{v}]");
            }
        }
    }

    #[test]
    fn symmetric_and_doubly_stochastic_on_karate() {
        let g = Graph::load(concat!(env!("CARGO_MANIFEST_DIR"), "/data/karate.edges")).unwrap();
        let w = Metropolis::new(&g).unwrap();
        let n = w.n();
        let d = w.to_dense();
        for u in 0..n {
            let row: f64 = (0..n).map(|v| d[v * n + u]).sum();
            assert!((row - 1.0).abs() < 1e-14);
            for v in 0..n {
                assert_eq!(d[v * n + u], d[u * n + v]);
                assert!(d[v * n + u] >= 0.0);
            }
        }
    }

    #[test]
    fn refuses_directed_disconnected_and_tiny_graphs() {
        let two = Graph::from_index_edges(4, &[(0, 1), (2, 3)], None, false).unwrap();
        let e = Metropolis::new(&two).unwrap_err().to_string();
        assert!(e.contains("2 connected components"), "{e}");
        assert!(!e.contains('\n'));
        let dir = Graph::from_index_edges(2, &[(0, 1)], None, true).unwrap();
        assert!(
            Metropolis::new(&dir)
                .unwrap_err()
                .to_string()
                .contains("undirected")
        );
        let one = Graph::from_index_edges(1, &[], None, false).unwrap();
        assert!(Metropolis::new(&one).is_err());
    }
}
