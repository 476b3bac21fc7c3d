//! The exact privacy loss of memo (11): what a set of observers V (one
//! member, or a coalition) learns about a source u ∉ V is Gaussian, so
//! `ε^exact_{u→V}(α) = (αΔ²/(2σ²))·Π_uu`, Π the orthogonal projector onto
//! the row space of the observers' view B — the rows `e_wᵀP_t` (w ∈ N(V),
//! t < T) with the observers' own columns removed, since they know their
//! own values and noise.
//!
//! Computed as memo (11b) says, never by factoring the stacked `P_t` rows
//! (they become nearly parallel and f64 loses rank: facebook, observer 11,
//! 210–275 found against a true 505). The row space of B is the restriction
//! of `K = span{Wᵗ e_w : w ∈ N(V), t < T}` (the same space for simple and
//! accelerated gossip, `P_t` being a polynomial of degree t in W with
//! leading coefficient ≠ 0); an orthonormal basis Q of K is built by block
//! Lanczos — each new block is W times the previous block's orthonormal
//! vectors — with full reorthogonalisation (classical Gram–Schmidt twice
//! against all of Q, as products with faer). Removing the columns of V: for
//! y ∈ K, `y = Σ_{v∈V} y_v e_v + P_{−V} y`, so
//! `K + span{e_v : v ∈ V} = span{e_v} ⊕ P_{−V}K` (orthogonal), and for u ∉ V
//! `Π_uu` is the squared norm of row u of an orthonormal basis of K plus the
//! e_v. For one observer this is memo (11b)'s
//! `‖Q_u‖² + (Q_u·q_v)²/(1 − ‖q_v‖²)` (or `‖Q_u‖²` when e_v ∈ K), without
//! its division. `Σ_{u∉V} Π_uu = rank B`.
//!
//! Rank decisions: a candidate is kept when its norm after
//! orthogonalisation exceeds [`RANK_TOLERANCE`] (candidates are W times unit
//! vectors, ‖W‖ = 1). Each result records the smallest norm kept and the
//! largest dropped, the margin of those decisions.

use super::metropolis::Metropolis;
use super::spectral_gap::{axpy, dot, norm};
use faer::{Accum, MatMut, MatRef, Par};

/// A candidate direction is new when its norm after orthogonalisation
/// exceeds this (absolute; candidates have norm ≤ 1).
pub const RANK_TOLERANCE: f64 = 1e-8;

/// What one observer set learns about every source.
#[derive(Clone, Debug, PartialEq)]
pub struct ExactLoss {
    /// `Π_uu` for every node u (1 for the observers themselves).
    pub pi: Vec<f64>,
    /// `rank B` = `Σ_{u∉V} Π_uu` up to rounding.
    pub rank: usize,
    /// Smallest norm of a kept candidate (∞ if none).
    pub smallest_kept: f64,
    /// Largest norm of a dropped candidate (0 if none).
    pub largest_dropped: f64,
}

/// Reused buffers of one worker.
#[derive(Default)]
pub struct ExactScratch {
    q: Vec<f64>,
    cand: Vec<f64>,
    coef: Vec<f64>,
}

/// Bytes of the basis for `n` nodes and at most `cols` directions.
pub fn basis_bytes(n: usize, cols: usize) -> u64 {
    crate::limits::bytes_of(&[n as u64, cols.min(n) as u64 + 1, 16])
}

/// Columns the basis may need: `min(n, T·|N(V)| + |V|)`.
pub fn max_columns(w: &Metropolis, view: &[u32], steps: u64) -> usize {
    let starts: usize = view.iter().map(|&v| w.row(v as usize).0.len()).sum();
    let k = (steps as u128 * starts as u128 + view.len() as u128).min(w.n() as u128);
    k as usize
}

struct Basis<'s> {
    n: usize,
    q: &'s mut Vec<f64>,
    cols: usize,
    kept: f64,
    dropped: f64,
}

impl Basis<'_> {
    /// `c ← c − Q_{[from, to)}(Q_{[from, to)}ᵀ c)` for the `b` columns of
    /// `c` (column-major n × b), as two products.
    fn project(&self, from: usize, to: usize, c: &mut [f64], b: usize, coef: &mut Vec<f64>) {
        let n = self.n;
        let k = to - from;
        if k == 0 || b == 0 {
            return;
        }
        let q = MatRef::from_column_major_slice(&self.q[from * n..to * n], n, k);
        coef.clear();
        coef.resize(k * b, 0.0);
        let mut cm = MatMut::from_column_major_slice_mut(coef, k, b);
        faer::linalg::matmul::matmul(
            cm.as_mut(),
            Accum::Replace,
            q.transpose(),
            MatRef::from_column_major_slice(c, n, b),
            1.0,
            Par::Seq,
        );
        let mut cmut = MatMut::from_column_major_slice_mut(c, n, b);
        faer::linalg::matmul::matmul(
            cmut.as_mut(),
            Accum::Add,
            q,
            MatRef::from_column_major_slice(coef, k, b),
            -1.0,
            Par::Seq,
        );
    }

    /// Orthogonalises the `b` candidates in `cand` (column-major n × b)
    /// against the basis and each other, appends those that are new, and
    /// returns how many were.
    ///
    /// Classical Gram–Schmidt twice against the basis (products), then
    /// modified Gram–Schmidt twice among the candidates, largest first
    /// (column pivoting), where the rank decisions are made. A candidate
    /// that lost most of its norm in that last step carries the basis'
    /// rounding amplified by the normalisation; the new columns are then
    /// projected once more against the old basis and orthonormalised again
    /// (as products, not column by column).
    fn absorb(&mut self, cand: &mut [f64], b: usize, coef: &mut Vec<f64>) -> usize {
        let n = self.n;
        if b == 0 {
            return 0;
        }
        let old = self.cols;
        self.project(0, old, cand, b, coef);
        self.project(0, old, cand, b, coef);
        // Largest candidates first (column pivoting).
        let norms: Vec<f64> = cand.chunks_exact(n).map(norm).collect();
        let mut order: Vec<usize> = (0..b).collect();
        order.sort_by(|&i, &j| norms[j].total_cmp(&norms[i]).then(i.cmp(&j)));
        let mut cancelled = false;
        for j in order {
            if self.cols == n {
                self.dropped = self.dropped.max(norms[j].min(1.0));
                continue;
            }
            let c = &mut cand[j * n..(j + 1) * n];
            for _ in 0..2 {
                for k in old..self.cols {
                    let col = &self.q[k * n..(k + 1) * n];
                    let x = dot(col, c);
                    axpy(-x, col, c);
                }
            }
            let nr = norm(c);
            if nr > RANK_TOLERANCE {
                cancelled |= nr < 0.5 * norms[j];
                self.kept = self.kept.min(nr);
                let inv = 1.0 / nr;
                self.q.extend(c.iter().map(|x| x * inv));
                self.cols += 1;
            } else {
                self.dropped = self.dropped.max(nr);
            }
        }
        let added = self.cols - old;
        if cancelled && old > 0 && added > 0 {
            let mut fresh = self.q.split_off(old * n);
            self.project(0, old, &mut fresh, added, coef);
            for j in 0..added {
                let (done, rest) = fresh.split_at_mut(j * n);
                let c = &mut rest[..n];
                for _ in 0..2 {
                    for col in done.chunks_exact(n) {
                        let x = dot(col, c);
                        axpy(-x, col, c);
                    }
                }
                let nr = norm(c);
                c.iter_mut().for_each(|x| *x /= nr);
            }
            self.q.extend_from_slice(&fresh);
        }
        added
    }
}

/// `Π_uu` for every source u, seen by the observer set `view` (sorted,
/// distinct node indices) after `steps` = T gossip steps.
pub fn exact_loss(w: &Metropolis, view: &[u32], steps: u64, s: &mut ExactScratch) -> ExactLoss {
    let n = w.n();
    let mut starts: Vec<u32> = view
        .iter()
        .flat_map(|&v| w.row(v as usize).0.iter().copied())
        .collect();
    starts.sort_unstable();
    starts.dedup();
    s.q.clear();
    s.q.reserve(n * max_columns(w, view, steps));
    let mut basis = Basis {
        n,
        q: &mut s.q,
        cols: 0,
        kept: f64::INFINITY,
        dropped: 0.0,
    };
    let unit_block = |cand: &mut Vec<f64>, nodes: &[u32]| {
        cand.clear();
        cand.resize(n * nodes.len(), 0.0);
        for (j, &x) in nodes.iter().enumerate() {
            cand[j * n + x as usize] = 1.0;
        }
    };
    unit_block(&mut s.cand, &starts);
    let mut block = basis.absorb(&mut s.cand, starts.len(), &mut s.coef);
    for _ in 1..steps {
        if block == 0 || basis.cols == n {
            break;
        }
        let from = basis.cols - block;
        s.cand.clear();
        s.cand.resize(n * block, 0.0);
        for j in 0..block {
            let col = &basis.q[(from + j) * n..(from + j + 1) * n];
            w.apply(col, &mut s.cand[j * n..(j + 1) * n]);
        }
        block = basis.absorb(&mut s.cand, block, &mut s.coef);
    }
    unit_block(&mut s.cand, view);
    basis.absorb(&mut s.cand, view.len(), &mut s.coef);
    let cols = basis.cols;
    let (kept, dropped) = (basis.kept, basis.dropped);
    let mut pi = vec![0.0; n];
    for k in 0..cols {
        for (p, x) in pi.iter_mut().zip(&s.q[k * n..(k + 1) * n]) {
            *p += x * x;
        }
    }
    for &v in view {
        pi[v as usize] = 1.0;
    }
    ExactLoss {
        pi,
        rank: cols.saturating_sub(view.len()),
        smallest_kept: kept,
        largest_dropped: dropped,
    }
}
