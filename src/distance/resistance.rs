//! Exact effective resistance from a dense factorisation, once per graph.
//!
//! For a connected component with Laplacian `L` (conductance `1/w` per edge of
//! length `w`) and `n_c` nodes, `M = L + J/n_c` is symmetric positive definite
//! and `M⁻¹ = L⁺ + J/n_c`, so `R_ij = M⁻¹_ii + M⁻¹_jj − 2 M⁻¹_ij` (the `J`
//! terms cancel). `M⁻¹` comes from a Cholesky factorisation `M = G Gᵀ` and
//! `M⁻¹ = G⁻ᵀ G⁻¹` (faer, blocked and parallel over rayon): half the flops of
//! an LU-based inverse. Peak memory is two `n_c × n_c` matrices per component;
//! one is kept. Nodes in different components are at resistance ∞.
//!
//! When only a few rows will be read (`rows ≤ n_c / 128` in a component of at
//! least 2,048 nodes, e.g. `--owners 4` on facebook_combined; or no rows at
//! all, only pairs through [`ExactResistance::get`]), neither the product
//! `G⁻ᵀ G⁻¹` nor `G⁻¹` is formed: the factor `G` is kept,
//! `M⁻¹_ii = ‖G⁻¹ e_i‖²` comes from blocks of 128 columns of `G⁻¹`, each
//! solved from `G` (starting at its first row, so n_c³/6 multiply-adds in
//! all), its squared column norms taken and the block dropped — the blocks
//! in parallel, each alone sequential — and an owner's column is
//! `M⁻¹ e_o = G⁻ᵀ (G⁻¹ e_o)`, two triangular solves (≤ n_c² multiply-adds).
//! Peak memory is then one `n_c × n_c` matrix. The two routes agree to
//! rounding (≈ 1e-15 relative): which one a run takes depends only on its
//! graph and its number of owners, never on threads.
//!
//! facebook_combined (4,039 nodes, one component): `privdiffuse distances
//! --distance resistance` end to end 2.7–3.1 s, peak RSS 284 MB, against
//! 5.7–8.6 s for numpy `inv(L + J/n)` in the same minutes on 2 shared, loaded
//! cores (`benches/distance.rs`, `benches/peers/peers.py`). `simulate
//! --distance resistance --owners 4`: peak RSS 170 MB (291 MB with `G⁻¹`
//! held); of its CPU time (≈ 1.3–1.8 s on 2 cores), 80 % is faer's matrix
//! kernels in the factorisation and the column blocks, about half each.

use super::DistanceOptions;
use crate::error::{Error, Result};
use crate::graph::Graph;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::matmul::triangular::{BlockStructure, matmul};
use faer::linalg::triangular_inverse::invert_lower_triangular;
use faer::linalg::triangular_solve::{
    solve_lower_triangular_in_place, solve_upper_triangular_in_place,
};
use faer::{Accum, Mat, Par};
use rayon::prelude::*;

/// Smallest component factorised on several threads (see
/// [`ExactResistance::new`]).
const PARALLEL_MIN: usize = 512;

/// Rows read per component below which the factor `G` is kept instead of
/// the full inverse: `n_c / COLUMNS_DIVISOR` (a row costs two triangular
/// solves, up to n_c² multiply-adds read from memory, against the full
/// route's extra n_c³/6 for the product at full speed; set when a row read
/// n_c²/2 entries of `G⁻¹`, ≈ 30 rows on facebook_combined, and kept so
/// that the same runs take the same route).
const COLUMNS_DIVISOR: usize = 128;

/// Smallest component read from the factor when rows are asked for: below it the
/// product takes a few tens of milliseconds, and the full inverse (the
/// route of every earlier release, hence its bits) is kept.
const COLUMNS_MIN: usize = 2048;

/// Columns of `G⁻¹` solved at a time for `diag(M⁻¹)` on the factor route
/// (see [`factor_diagonal`]): one block's solve is a matrix–matrix
/// triangular solve, and 4,039 nodes give 32 blocks to share among threads.
const DIAG_BLOCK: usize = 128;

/// `M⁻¹ = L⁺ + J/n_c` of one component with at least two nodes.
struct Component {
    members: Vec<u32>,
    /// The full symmetric inverse, or the factor `G` to solve columns from.
    inv: Inverse,
    /// `M⁻¹`'s diagonal, contiguous.
    diag: Vec<f64>,
}

/// How a component's `M⁻¹` is held (see the module docs).
enum Inverse {
    /// `M⁻¹`, full symmetric, column-major.
    Full(Mat<f64>),
    /// The Cholesky factor `G` of `M = G Gᵀ` in the lower triangle (the
    /// strict upper one holds what is left of `M`, never read).
    Factor(Mat<f64>),
}

impl Inverse {
    /// Column `j` of `M⁻¹` (`j` local): a view of the full inverse, or two
    /// triangular solves with the factor into `buf`.
    fn column<'a>(&'a self, j: usize, buf: &'a mut Mat<f64>) -> &'a [f64] {
        match self {
            Inverse::Full(m) => m.col_as_slice(j),
            Inverse::Factor(g) => {
                factor_column(g, j, buf);
                buf.col_as_slice(0)
            }
        }
    }
}

/// `M⁻¹ e_j = G⁻ᵀ (G⁻¹ e_j)` into `out` (`n_c × 1`): `G⁻¹ e_j` is zero above
/// row `j`, so the forward solve starts there ((n_c − j)²/2 multiply-adds),
/// the backward one takes n_c²/2. Sequential: rows are asked for from
/// several threads at once.
fn factor_column(g: &Mat<f64>, j: usize, out: &mut Mat<f64>) {
    let n = g.nrows();
    *out = Mat::zeros(n, 1);
    out[(j, 0)] = 1.0;
    solve_lower_triangular_in_place(
        g.as_ref().submatrix(j, j, n - j, n - j),
        out.as_mut().subrows_mut(j, n - j),
        Par::Seq,
    );
    solve_upper_triangular_in_place(g.transpose(), out.as_mut(), Par::Seq);
}

/// `diag(M⁻¹)_i = ‖G⁻¹ e_i‖²` without holding `G⁻¹`: the columns `[k, k+b)`
/// of `G⁻¹` are zero above row `k`, so each block of [`DIAG_BLOCK`] columns
/// is solved from `G[k.., k..] X = [I; 0]` (n_c³/6 multiply-adds over all
/// blocks, as for the whole inverse), its squared column norms taken and the
/// block dropped. The blocks run on rayon's threads unless `par` is
/// sequential; each is solved sequentially and alone, so the bits do not
/// depend on the number of threads.
fn factor_diagonal(g: &Mat<f64>, par: Par) -> Vec<f64> {
    let n = g.nrows();
    let block = |k: usize| -> Vec<f64> {
        let (h, w) = (n - k, DIAG_BLOCK.min(n - k));
        let mut x = Mat::<f64>::zeros(h, w);
        for c in 0..w {
            x[(c, c)] = 1.0;
        }
        solve_lower_triangular_in_place(g.as_ref().submatrix(k, k, h, h), x.as_mut(), Par::Seq);
        (0..w)
            .map(|c| {
                let s = &x.col_as_slice(c)[c..];
                dot(s, s)
            })
            .collect()
    };
    let starts: Vec<usize> = (0..n).step_by(DIAG_BLOCK).collect();
    let blocks: Vec<Vec<f64>> = if par == Par::Seq {
        starts.iter().map(|&k| block(k)).collect()
    } else {
        starts.par_iter().map(|&k| block(k)).collect()
    };
    blocks.concat()
}

/// `Σ a_k b_k` in eight interleaved partial sums (vectorised; a fixed
/// order, so the same slices always give the same bits).
fn dot(a: &[f64], b: &[f64]) -> f64 {
    const L: usize = 8;
    let mut acc = [0.0f64; L];
    let (ac, bc) = (a.chunks_exact(L), b.chunks_exact(L));
    let (ar, br) = (ac.remainder(), bc.remainder());
    for (x, y) in ac.zip(bc) {
        for l in 0..L {
            acc[l] += x[l] * y[l];
        }
    }
    let mut tail = 0.0;
    for (x, y) in ar.iter().zip(br) {
        tail += x * y;
    }
    let q = [
        acc[0] + acc[4],
        acc[1] + acc[5],
        acc[2] + acc[6],
        acc[3] + acc[7],
    ];
    ((q[0] + q[2]) + (q[1] + q[3])) + tail
}

/// Exact resistance distances of an undirected graph (see the module docs).
pub struct ExactResistance {
    /// Component of every node (`u32::MAX` for isolated nodes).
    comp: Vec<u32>,
    /// Index of every node inside its component.
    local: Vec<u32>,
    comps: Vec<Component>,
}

/// Connected components of an undirected graph: (component per node, index
/// inside it, members per component), in order of smallest member.
pub(crate) fn components(g: &Graph) -> (Vec<u32>, Vec<u32>, Vec<Vec<u32>>) {
    let n = g.n();
    let mut comp = vec![u32::MAX; n];
    let mut local = vec![0u32; n];
    let mut members: Vec<Vec<u32>> = Vec::new();
    for s in 0..n {
        if comp[s] != u32::MAX {
            continue;
        }
        let c = members.len() as u32;
        let mut list = vec![s as u32];
        comp[s] = c;
        let mut head = 0;
        while head < list.len() {
            let u = list[head];
            head += 1;
            for &v in g.neighbors(u) {
                if comp[v as usize] == u32::MAX {
                    comp[v as usize] = c;
                    list.push(v);
                }
            }
        }
        list.sort_unstable();
        for (i, &v) in list.iter().enumerate() {
            local[v as usize] = i as u32;
        }
        members.push(list);
    }
    (comp, local, members)
}

impl ExactResistance {
    /// Factorises every component of `g`, for `rows` rows to be read
    /// (`usize::MAX` when unknown: the full inverse; 0: only pairs through
    /// [`get`](Self::get)).
    ///
    /// Errors: a directed graph, or a component larger than
    /// `opts.resistance_cap` ([`Error::Unsupported`], naming
    /// `resistance-approx`); a numerically singular component matrix
    /// ([`Error::Numerical`]).
    pub fn new(g: &Graph, opts: &DistanceOptions, rows: usize) -> Result<Self> {
        if g.is_directed() {
            return Err(Error::Unsupported(
                "resistance distance needs an undirected graph (effective resistance is \
                 defined for symmetric conductances); load the graph without `directed` or \
                 use `distance` = hop|weighted"
                    .into(),
            ));
        }
        let (comp, local, members) = components(g);
        if let Some(big) = members.iter().find(|m| m.len() > opts.resistance_cap) {
            return Err(Error::Unsupported(format!(
                "a connected component has {} nodes, above the exact resistance cap of {} \
                 (dense matrix of {:.1} GB); use `distance` = resistance-approx, or raise the cap",
                big.len(),
                opts.resistance_cap,
                (big.len() as f64).powi(2) * 8.0 / 1e9
            )));
        }
        crate::limits::memory_budget().check_with(
            "distance",
            format!(
                "resistance (largest component: {} nodes)",
                members.iter().map(Vec::len).max().unwrap_or(0)
            ),
            crate::limits::dense_resistance_bytes(members.iter().map(Vec::len)),
            "use `distance` = resistance-approx, or raise `memory_budget`",
        )?;
        let mut comps = Vec::new();
        let mut comp_new = vec![u32::MAX; g.n()];
        for list in members {
            if list.len() < 2 {
                continue;
            }
            // Parallel factorisation and products (facebook_combined: one
            // 4,039-node component) except for small components, where
            // threads gain nothing, and under an address-space limit
            // (`ulimit -v`): faer's products reserve 2 × L3 of scratch per
            // thread that runs one (960 MiB on a machine reporting a 480 MiB
            // L3), address space such a run may not have. The bits are the
            // same either way (`benches/distance.rs` pins the time).
            let par = if list.len() < PARALLEL_MIN || crate::limits::address_space_limited() {
                Par::Seq
            } else {
                Par::rayon(0)
            };
            let nc = list.len();
            let full = rows > 0 && (nc < COLUMNS_MIN || rows > nc / COLUMNS_DIVISOR);
            let (inv, diag) = Self::invert(g, &list, &local, par, full)?;
            for &v in &list {
                comp_new[v as usize] = comps.len() as u32;
            }
            comps.push(Component {
                members: list,
                inv,
                diag,
            });
        }
        drop(comp);
        Ok(ExactResistance {
            comp: comp_new,
            local,
            comps,
        })
    }

    /// `(L + J/n_c)⁻¹` of the component `list` (full symmetric when `full`,
    /// else `G⁻¹`) and its diagonal.
    fn invert(
        g: &Graph,
        list: &[u32],
        local: &[u32],
        par: Par,
        full: bool,
    ) -> Result<(Inverse, Vec<f64>)> {
        let nc = list.len();
        let mut m = Mat::<f64>::from_fn(nc, nc, |_, _| 1.0 / nc as f64);
        for &u in list {
            let lu = local[u as usize] as usize;
            let nb = g.neighbors(u);
            let ws = g.neighbor_weights(u);
            for (k, &v) in nb.iter().enumerate() {
                let c = ws.map_or(1.0, |w| 1.0 / w[k]);
                m[(lu, local[v as usize] as usize)] -= c;
                m[(lu, lu)] += c;
            }
        }
        let mut buf = MemBuffer::new(cholesky_in_place_scratch::<f64>(
            nc,
            par,
            Default::default(),
        ));
        cholesky_in_place(
            m.as_mut(),
            Default::default(),
            par,
            MemStack::new(&mut buf),
            Default::default(),
        )
        .map_err(|e| {
            Error::Numerical(format!(
                "Cholesky factorisation of a {nc}-node component's Laplacian + J/n failed ({e:?})"
            ))
        })?;
        drop(buf);
        if !full {
            let diag = factor_diagonal(&m, par);
            return Ok((Inverse::Factor(m), diag));
        }
        let mut ginv = Mat::<f64>::zeros(nc, nc);
        invert_lower_triangular(ginv.as_mut(), m.as_ref(), par);
        // M⁻¹ = G⁻ᵀ G⁻¹, lower triangle, written over the factor.
        matmul(
            m.as_mut(),
            BlockStructure::TriangularLower,
            Accum::Replace,
            ginv.transpose(),
            BlockStructure::TriangularUpper,
            ginv.as_ref(),
            BlockStructure::TriangularLower,
            1.0,
            par,
        );
        drop(ginv);
        symmetrize_from_lower(&mut m);
        let diag = (0..nc).map(|i| m[(i, i)]).collect();
        Ok((Inverse::Full(m), diag))
    }

    /// Resistances from `owner` to every node into `out`.
    pub fn row(&self, owner: u32, out: &mut Vec<f64>) {
        out.clear();
        out.resize(self.comp.len(), f64::INFINITY);
        let c = self.comp[owner as usize];
        if c != u32::MAX {
            let comp = &self.comps[c as usize];
            let lo = self.local[owner as usize] as usize;
            let d_o = comp.diag[lo];
            let mut buf = Mat::new();
            let col = comp.inv.column(lo, &mut buf);
            for ((&v, &d_j), &g) in comp.members.iter().zip(&comp.diag).zip(col) {
                out[v as usize] = (d_o + d_j - 2.0 * g).max(0.0);
            }
        }
        out[owner as usize] = 0.0;
    }

    /// Resistance between `u` and `v` (∞ across components). On the factor
    /// route (few rows) each call solves a column: n_c² multiply-adds.
    pub fn get(&self, u: u32, v: u32) -> f64 {
        if u == v {
            return 0.0;
        }
        let c = self.comp[u as usize];
        if c == u32::MAX || c != self.comp[v as usize] {
            return f64::INFINITY;
        }
        let comp = &self.comps[c as usize];
        let (a, b) = (
            self.local[u as usize] as usize,
            self.local[v as usize] as usize,
        );
        let mut buf = Mat::new();
        let g = comp.inv.column(a, &mut buf)[b];
        (comp.diag[a] + comp.diag[b] - 2.0 * g).max(0.0)
    }
}

/// Copies the lower triangle onto the upper one, in cache-sized tiles.
fn symmetrize_from_lower(m: &mut Mat<f64>) {
    const T: usize = 64;
    let n = m.nrows();
    for jb in (0..n).step_by(T) {
        for ib in (jb..n).step_by(T) {
            for j in jb..(jb + T).min(n) {
                for i in ib.max(j + 1)..(ib + T).min(n) {
                    m[(j, i)] = m[(i, j)];
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::graph::generate::erdos_renyi;

    /// On a component large enough for the few-rows route (≥ `COLUMNS_MIN`
    /// nodes, 4 rows), the factor's solves and the full inverse agree to
    /// 1e-12 relative on the diagonal, on owners' rows and on pairs; the
    /// factor's diagonal has the same bits sequentially and on threads.
    #[test]
    fn factor_route_agrees_with_the_full_inverse() {
        let n = COLUMNS_MIN + 52;
        let g = erdos_renyi(n, 6 * n as u64, 7).unwrap();
        let opts = DistanceOptions::default();
        let few = ExactResistance::new(&g, &opts, 4).unwrap();
        let full = ExactResistance::new(&g, &opts, usize::MAX).unwrap();
        let big = |r: &ExactResistance| {
            r.comps
                .iter()
                .max_by_key(|c| c.members.len())
                .map(|c| (c.members.len(), matches!(c.inv, Inverse::Factor(_))))
                .unwrap()
        };
        let (nc, factor) = big(&few);
        assert!(
            nc >= COLUMNS_MIN && factor,
            "the few-rows route was not taken"
        );
        assert!(!big(&full).1);
        let close = |x: f64, y: f64| x == y || (x - y).abs() <= 1e-12 * y.abs();
        let mut differ = 0;
        for (a, b) in few.comps.iter().zip(&full.comps) {
            for (x, y) in a.diag.iter().zip(&b.diag) {
                assert!(close(*x, *y), "diagonal {x} vs {y}");
                differ += usize::from(x != y);
            }
            if let Inverse::Factor(f) = &a.inv {
                assert_eq!(factor_diagonal(f, Par::Seq), a.diag);
            }
        }
        let (mut r1, mut r2) = (Vec::new(), Vec::new());
        for owner in [0, 1, n as u32 / 2, n as u32 - 1] {
            few.row(owner, &mut r1);
            full.row(owner, &mut r2);
            for (v, (x, y)) in r1.iter().zip(&r2).enumerate() {
                assert!(close(*x, *y), "R({owner}, {v}) = {x} vs {y}");
                differ += usize::from(x != y);
            }
            for v in [3, n as u32 / 3, n as u32 - 2] {
                assert_eq!(few.get(owner, v).to_bits(), r1[v as usize].to_bits());
            }
        }
        assert!(differ > 0, "the two routes are different computations");
    }
}
