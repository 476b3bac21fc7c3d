//! Exact effective resistance from a dense factorisation, once per graph.
//!
//! For a connected component with Laplacian `L` (conductance `1/w` per edge of
//! length `w`) and `n_c` nodes, `M = L + J/n_c` is symmetric positive definite
//! and `M⁻¹ = L⁺ + J/n_c`, so `R_ij = M⁻¹_ii + M⁻¹_jj − 2 M⁻¹_ij` (the `J`
//! terms cancel). `M⁻¹` comes from a Cholesky factorisation `M = G Gᵀ` and
//! `M⁻¹ = G⁻ᵀ G⁻¹` (faer, blocked and parallel over rayon): half the flops of
//! an LU-based inverse. Peak memory is two `n_c × n_c` matrices per component
//! (the factor is overwritten by the inverse); one is kept. Nodes in different
//! components are at resistance ∞.
//!
//! facebook_combined (4,039 nodes, one component): `privdiffuse distances
//! --distance resistance` end to end 2.7–3.1 s, peak RSS 284 MB, against
//! 5.7–8.6 s for numpy `inv(L + J/n)` in the same minutes on 2 shared, loaded
//! cores (`benches/distance.rs`, `benches/peers/peers.py`).

use super::DistanceOptions;
use crate::error::{Error, Result};
use crate::graph::Graph;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::cholesky::llt::factor::{cholesky_in_place, cholesky_in_place_scratch};
use faer::linalg::matmul::triangular::{BlockStructure, matmul};
use faer::linalg::triangular_inverse::invert_lower_triangular;
use faer::{Accum, Mat, Par};

/// Smallest component factorised on several threads (see
/// [`ExactResistance::new`]).
const PARALLEL_MIN: usize = 512;

/// `M⁻¹ = L⁺ + J/n_c` of one component with at least two nodes.
struct Component {
    members: Vec<u32>,
    /// Full symmetric inverse, column-major.
    inv: Mat<f64>,
    /// Its diagonal, contiguous.
    diag: Vec<f64>,
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
    /// Factorises every component of `g`.
    ///
    /// Errors: a directed graph, or a component larger than
    /// `opts.resistance_cap` ([`Error::Unsupported`], naming
    /// `resistance-approx`); a numerically singular component matrix
    /// ([`Error::Numerical`]).
    pub fn new(g: &Graph, opts: &DistanceOptions) -> Result<Self> {
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
            let inv = Self::invert(g, &list, &local, par)?;
            for &v in &list {
                comp_new[v as usize] = comps.len() as u32;
            }
            let diag = (0..list.len()).map(|i| inv[(i, i)]).collect();
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

    /// `(L + J/n_c)⁻¹` of the component `list`, full symmetric.
    fn invert(g: &Graph, list: &[u32], local: &[u32], par: Par) -> Result<Mat<f64>> {
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
        Ok(m)
    }

    /// Resistances from `owner` to every node into `out`.
    pub fn row(&self, owner: u32, out: &mut Vec<f64>) {
        out.clear();
        out.resize(self.comp.len(), f64::INFINITY);
        let c = self.comp[owner as usize];
        if c != u32::MAX {
            let comp = &self.comps[c as usize];
            let lo = self.local[owner as usize] as usize;
            let col = comp.inv.col_as_slice(lo);
            let d_o = col[lo];
            for ((&v, &d_j), &g) in comp.members.iter().zip(&comp.diag).zip(col) {
                out[v as usize] = (d_o + d_j - 2.0 * g).max(0.0);
            }
        }
        out[owner as usize] = 0.0;
    }

    /// Resistance between `u` and `v` (∞ across components).
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
        (comp.diag[a] + comp.diag[b] - 2.0 * comp.inv[(a, b)]).max(0.0)
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
