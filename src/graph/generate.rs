//! Seeded synthetic graphs: random geometric, Erdős–Rényi G(n, m),
//! Barabási–Albert and Watts–Strogatz. They return data; the top layer writes
//! it (`output::write_edge_list`, `output::write_coords`).
//!
//! Every generator draws from `rng_for(seed, 0, 0, Purpose::Generate)`, so the
//! same parameters and seed give the same graph on every machine and thread
//! count. Node ids are `0..n`. Generated graphs are undirected and unweighted.

use super::Graph;
use super::load::IdSet;
use crate::error::{Error, Result};
use crate::limits;
use crate::rng::{PrivRng, Purpose, rng_for};
use rand::RngExt;
use std::collections::HashSet;

/// How the random geometric graph's connection radius is chosen.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum GeometricParam {
    /// Connect points at Euclidean distance ≤ this radius.
    Radius(f64),
    /// Use as radius the target-th smallest pairwise distance, which gives
    /// exactly that many edges unless distances tie at the threshold.
    TargetEdges(u64),
}

fn generator_rng(seed: u64) -> PrivRng {
    rng_for(seed, 0, 0, Purpose::Generate)
}

fn check_n(n: usize) -> Result<()> {
    if n == 0 || n > u32::MAX as usize - 1 {
        return Err(Error::param("n", n, "a node count between 1 and 2^32 - 2"));
    }
    Ok(())
}

/// Generators refuse to build more edges than this (2^32 − 1; the CSR arcs of
/// such a graph alone take 32 GiB), instead of failing to allocate.
pub const MAX_EDGES: u64 = u32::MAX as u64;

fn check_edges(name: &str, value: impl std::fmt::Display, edges: u64) -> Result<()> {
    if edges > MAX_EDGES {
        return Err(Error::param(
            name,
            value,
            format!("parameters giving at most {MAX_EDGES} edges (these give about {edges})"),
        ));
    }
    Ok(())
}

/// Refuses a generator whose graph (and working sets: `extra_per_node`
/// and `extra_per_edge` bytes besides [`limits::graph_bytes`]) needs more
/// than the memory budget. The parameter named is `n` when the nodes
/// dominate the estimate, else `edge_param` (whose value is `edge_value`).
fn check_memory(
    n: usize,
    edges: u64,
    extra_per_node: u64,
    extra_per_edge: u64,
    edge_param: &str,
    edge_value: impl std::fmt::Display,
) -> Result<()> {
    let n = n as u64;
    let node_bytes = limits::bytes_of(&[40 + extra_per_node, n]);
    let edge_bytes = limits::bytes_of(&[48 + extra_per_edge, edges]);
    let need = node_bytes.saturating_add(edge_bytes);
    if node_bytes >= edge_bytes {
        limits::check_memory("n", n, need)
    } else {
        limits::check_memory(
            edge_param,
            format!("{edge_value} (about {edges} edges on {n} nodes)"),
            need,
        )
    }
}

/// n(n−1)/2, the number of node pairs.
fn pairs(n: usize) -> u64 {
    let n = n as u64;
    n * (n - 1) / 2
}

/// Random geometric graph: `n` points uniform in the unit square (x then y per
/// node, node by node), an edge between every two points at Euclidean
/// distance ≤ the radius. Returns the graph and each node's `[x, y]`.
///
/// Pairs are found with a grid of cells at least one radius wide, so the cost
/// is O(n + edges) rather than O(n²). For [`GeometricParam::TargetEdges`] the
/// radius grows geometrically from the value expected for that edge count until
/// at least that many pairs are in reach, then the exact threshold is selected.
/// The radius actually used is `max_edge_length` of the result.
pub fn geometric(n: usize, param: GeometricParam, seed: u64) -> Result<(Graph, Vec<[f64; 2]>)> {
    check_n(n)?;
    match param {
        GeometricParam::Radius(r) => {
            if !(r.is_finite() && r >= 0.0) {
                return Err(Error::param("radius", r, "a finite number >= 0"));
            }
            // Upper bound on the expected edge count (border effects only lower it).
            let expected = pairs(n) as f64 * (std::f64::consts::PI * r * r).min(1.0);
            check_edges("radius", r, expected as u64)?;
            check_memory(n, expected as u64, 36, 36, "radius", r)?;
        }
        GeometricParam::TargetEdges(m) => {
            if m > pairs(n) {
                return Err(Error::param(
                    "edges",
                    m,
                    format!("at most n(n-1)/2 = {} for n = {n}", pairs(n)),
                ));
            }
            check_edges("edges", m, m)?;
            check_memory(n, m, 36, 36, "edges", m)?;
        }
    }
    let mut rng = generator_rng(seed);
    let pts: Vec<[f64; 2]> = (0..n)
        .map(|_| {
            let x = rng.random::<f64>();
            let y = rng.random::<f64>();
            [x, y]
        })
        .collect();
    // Edge iff d² ≤ threshold_sq (compared in squares, so the target-edge
    // threshold selects exactly the pairs it was chosen among).
    let threshold_sq = match param {
        GeometricParam::Radius(r) => r * r,
        GeometricParam::TargetEdges(m) => {
            if m == 0 {
                -1.0
            } else {
                // E[edges] ≈ C(n,2)·π r² away from the border; start a little above.
                let mut r = 1.2 * (m as f64 / (pairs(n) as f64 * std::f64::consts::PI)).sqrt();
                loop {
                    let mut d2: Vec<f64> = Vec::new();
                    pairs_within(&pts, r, r * r, |_, _, d| d2.push(d));
                    if d2.len() as u64 >= m {
                        let k = (m - 1) as usize;
                        let (_, t, _) = d2.select_nth_unstable_by(k, |a, b| a.total_cmp(b));
                        break *t;
                    }
                    // Beyond √2 every pair is in reach, so this ends.
                    r *= 1.5;
                }
            }
        }
    };
    let mut edges = Vec::new();
    if threshold_sq >= 0.0 {
        pairs_within(&pts, threshold_sq.sqrt(), threshold_sq, |u, v, _| {
            edges.push((u, v))
        });
    }
    let g = Graph::from_index_edges(n, &edges, None, false)?;
    Ok((g, pts))
}

/// The longest edge of a geometric graph (its effective radius; 0 without edges).
pub fn max_edge_length(g: &Graph, coords: &[[f64; 2]]) -> f64 {
    g.edges()
        .map(|(u, v, _)| dist_sq(coords[u as usize], coords[v as usize]).sqrt())
        .fold(0.0, f64::max)
}

#[inline]
fn dist_sq(a: [f64; 2], b: [f64; 2]) -> f64 {
    let dx = a[0] - b[0];
    let dy = a[1] - b[1];
    dx * dx + dy * dy
}

/// Calls `f(u, v, d²)` for every pair u < v with d² ≤ `max_sq`, which must
/// not exceed r² by more than rounding; cells have side ≥ r.
fn pairs_within(pts: &[[f64; 2]], r: f64, max_sq: f64, mut f: impl FnMut(u32, u32, f64)) {
    let n = pts.len();
    // Cells per side: as fine as the radius allows (with a margin for rounding
    // in the cell index), but no more cells than points.
    let r_cell = r * (1.0 + 1e-9);
    let by_radius = if r_cell > 0.0 {
        (1.0 / r_cell).floor()
    } else {
        f64::INFINITY
    };
    let k = by_radius.min((n as f64).sqrt().ceil()).max(1.0) as usize;
    let cell_of = |p: [f64; 2]| {
        let cx = ((p[0] * k as f64) as usize).min(k - 1);
        let cy = ((p[1] * k as f64) as usize).min(k - 1);
        cy * k + cx
    };
    let mut start = vec![0usize; k * k + 1];
    for &p in pts {
        start[cell_of(p) + 1] += 1;
    }
    for c in 0..k * k {
        start[c + 1] += start[c];
    }
    let mut fill = start.clone();
    let mut order = vec![0u32; n];
    for (i, &p) in pts.iter().enumerate() {
        let c = cell_of(p);
        order[fill[c]] = i as u32;
        fill[c] += 1;
    }
    for cy in 0..k {
        for cx in 0..k {
            let here = &order[start[cy * k + cx]..start[cy * k + cx + 1]];
            for ny in cy.saturating_sub(1)..=(cy + 1).min(k - 1) {
                for nx in cx.saturating_sub(1)..=(cx + 1).min(k - 1) {
                    let there = &order[start[ny * k + nx]..start[ny * k + nx + 1]];
                    for &u in here {
                        for &v in there {
                            if u < v {
                                let d = dist_sq(pts[u as usize], pts[v as usize]);
                                if d <= max_sq {
                                    f(u, v, d);
                                }
                            }
                        }
                    }
                }
            }
        }
    }
}

/// Erdős–Rényi G(n, m): exactly `m` distinct edges, chosen uniformly among all
/// n(n−1)/2 node pairs (Floyd's subset sampling, O(m) expected time and memory).
pub fn erdos_renyi(n: usize, m: u64, seed: u64) -> Result<Graph> {
    check_n(n)?;
    let total = pairs(n);
    if m > total {
        return Err(Error::param(
            "m",
            m,
            format!("at most n(n-1)/2 = {total} edges for n = {n}"),
        ));
    }
    check_edges("m", m, m)?;
    check_memory(n, m, 0, 24, "m", m)?;
    let mut rng = generator_rng(seed);
    let mut chosen = IdSet::with_capacity_and_hasher(m as usize, Default::default());
    let mut edges = Vec::with_capacity(m as usize);
    // Floyd: for j = N−m .. N−1 draw t ∈ [0, j]; take t, or j if t is taken.
    for j in total - m..total {
        let t = rng.random_range(0..=j);
        let pick = if chosen.insert(t) {
            t
        } else {
            chosen.insert(j);
            j
        };
        edges.push(pair_of(pick));
    }
    Graph::from_index_edges(n, &edges, None, false)
}

/// Pair number `k` → (u, v), u < v, pairs numbered v(v−1)/2 + u.
fn pair_of(k: u64) -> (u32, u32) {
    let mut v = ((1.0 + (1.0 + 8.0 * k as f64).sqrt()) / 2.0).floor() as u64;
    let tri = |v: u64| (v as u128 * v.saturating_sub(1) as u128 / 2) as u64;
    while v > 1 && tri(v) > k {
        v -= 1;
    }
    while tri(v + 1) <= k {
        v += 1;
    }
    ((k - tri(v)) as u32, v as u32)
}

/// Barabási–Albert preferential attachment: a clique on the first
/// `m_per_node + 1` nodes, then each further node links to `m_per_node`
/// distinct earlier nodes chosen with probability proportional to degree.
/// Edges: m(m+1)/2 + (n − m − 1)·m.
pub fn barabasi_albert(n: usize, m_per_node: usize, seed: u64) -> Result<Graph> {
    check_n(n)?;
    let m = m_per_node;
    if m == 0 || m >= n {
        return Err(Error::param(
            "m",
            m,
            format!("between 1 and n - 1 = {} edges per new node", n - 1),
        ));
    }
    let total = (m as u64 * (m as u64 + 1) / 2).saturating_add((n - m - 1) as u64 * m as u64);
    check_edges("m", m, total)?;
    check_memory(n, total, 0, 8, "m", m)?;
    let total = total as usize;
    let mut rng = generator_rng(seed);
    let mut edges: Vec<(u32, u32)> = Vec::with_capacity(total);
    // Every edge's two endpoints: a uniform draw from this list is a draw
    // proportional to degree.
    let mut ends: Vec<u32> = Vec::with_capacity(2 * total);
    for v in 0..=m as u32 {
        for u in 0..v {
            edges.push((u, v));
            ends.extend([u, v]);
        }
    }
    let mut targets: Vec<u32> = Vec::with_capacity(m);
    for u in (m + 1)..n {
        targets.clear();
        while targets.len() < m {
            let t = ends[rng.random_range(0..ends.len())];
            if !targets.contains(&t) {
                targets.push(t);
            }
        }
        for &t in &targets {
            edges.push((t, u as u32));
            ends.extend([t, u as u32]);
        }
    }
    Graph::from_index_edges(n, &edges, None, false)
}

/// Watts–Strogatz small world: a ring where each node links to its `k/2`
/// nearest neighbours on each side (`k` even, `k < n`), then each lattice edge
/// (u, u+j) is rewired with probability `p` to (u, w), w uniform among nodes that
/// are neither u nor already u's neighbours (skipped if u is linked to all).
/// Same scheme as networkx's `watts_strogatz_graph`; the edge count stays n·k/2.
pub fn watts_strogatz(n: usize, k: usize, p: f64, seed: u64) -> Result<Graph> {
    check_n(n)?;
    if !k.is_multiple_of(2) || k >= n {
        return Err(Error::param(
            "k",
            k,
            format!("an even number of ring neighbours below n = {n}"),
        ));
    }
    if !(0.0..=1.0).contains(&p) {
        return Err(Error::param("p", p, "a rewiring probability in [0, 1]"));
    }
    check_edges("k", k, (n as u64) * (k as u64) / 2)?;
    check_memory(n, (n as u64) * (k as u64) / 2, 8, 24, "k", k)?;
    let mut rng = generator_rng(seed);
    let key = |a: u32, b: u32| if a < b { (a, b) } else { (b, a) };
    let mut set: HashSet<(u32, u32)> = HashSet::with_capacity(n * k / 2);
    let mut degree = vec![k; n];
    for j in 1..=k / 2 {
        for u in 0..n {
            set.insert(key(u as u32, ((u + j) % n) as u32));
        }
    }
    for j in 1..=k / 2 {
        for u in 0..n {
            let v = ((u + j) % n) as u32;
            let u = u as u32;
            if rng.random::<f64>() >= p || !set.contains(&key(u, v)) {
                continue;
            }
            if degree[u as usize] >= n - 1 {
                continue;
            }
            let w = loop {
                let w = rng.random_range(0..n as u32);
                if w != u && !set.contains(&key(u, w)) {
                    break w;
                }
            };
            set.remove(&key(u, v));
            set.insert(key(u, w));
            degree[v as usize] -= 1;
            degree[w as usize] += 1;
        }
    }
    let mut edges: Vec<(u32, u32)> = set.into_iter().collect();
    edges.sort_unstable();
    Graph::from_index_edges(n, &edges, None, false)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pair_numbering_round_trips() {
        let mut k = 0u64;
        for v in 1..200u32 {
            for u in 0..v {
                assert_eq!(pair_of(k), (u, v), "k = {k}");
                k += 1;
            }
        }
        // Large indices (n near 2^32) stay exact.
        let v = 4_000_000_000u64;
        let k = v * (v - 1) / 2 + 17;
        assert_eq!(pair_of(k), (17, v as u32));
    }

    #[test]
    fn geometric_matches_brute_force() {
        for &(n, r) in &[(1usize, 0.5), (2, 2.0), (60, 0.2), (300, 0.05), (100, 0.0)] {
            let (g, pts) = geometric(n, GeometricParam::Radius(r), 3).unwrap();
            let mut m = 0u64;
            for u in 0..n {
                for v in u + 1..n {
                    let close = dist_sq(pts[u], pts[v]) <= r * r;
                    m += close as u64;
                    assert_eq!(g.neighbors(u as u32).contains(&(v as u32)), close);
                }
            }
            assert_eq!(g.m(), m, "n = {n}, r = {r}");
        }
    }

    #[test]
    fn geometric_target_edges_is_exact() {
        for &(n, m) in &[
            (150usize, 1256u64),
            (40, 780),
            (40, 1),
            (40, 0),
            (500, 3000),
        ] {
            let (g, pts) = geometric(n, GeometricParam::TargetEdges(m), 11).unwrap();
            assert_eq!(g.m(), m);
            // No pair outside the graph is closer than its longest edge.
            let r = max_edge_length(&g, &pts);
            for u in 0..n {
                for v in u + 1..n {
                    if !g.neighbors(u as u32).contains(&(v as u32)) {
                        assert!(dist_sq(pts[u], pts[v]).sqrt() >= r);
                    }
                }
            }
        }
    }

    #[test]
    fn target_edge_count_is_met_for_many_seeds() {
        // The threshold pair itself must be kept (compared in squares).
        for seed in 0..50 {
            for m in [1u64, 17, 1256] {
                let (g, _) = geometric(150, GeometricParam::TargetEdges(m), seed).unwrap();
                assert_eq!(g.m(), m, "seed {seed}");
            }
        }
    }

    #[test]
    fn er_has_exactly_m_edges_and_covers_the_extremes() {
        assert_eq!(erdos_renyi(50, 300, 1).unwrap().m(), 300);
        assert_eq!(erdos_renyi(30, 435, 1).unwrap().m(), 435);
        assert_eq!(erdos_renyi(30, 0, 1).unwrap().m(), 0);
        assert!(erdos_renyi(30, 436, 1).is_err());
        assert!(erdos_renyi(0, 0, 1).is_err());
    }

    #[test]
    fn ba_edge_count_and_min_degree() {
        let g = barabasi_albert(500, 3, 2).unwrap();
        assert_eq!(g.m(), 3 * 4 / 2 + (500 - 4) * 3);
        assert!((0..500).all(|u| g.degree(u) >= 3));
        assert!(barabasi_albert(5, 5, 2).is_err());
        assert!(barabasi_albert(5, 0, 2).is_err());
    }

    #[test]
    fn ws_keeps_edge_count_and_lattice_at_p0() {
        let g = watts_strogatz(100, 6, 0.0, 4).unwrap();
        assert_eq!(g.m(), 300);
        assert_eq!(g.neighbors(0), &[1, 2, 3, 97, 98, 99]);
        let h = watts_strogatz(100, 6, 0.5, 4).unwrap();
        assert_eq!(h.m(), 300);
        assert_ne!(h.targets(), g.targets());
        // Complete graph: rewiring is impossible and skipped.
        assert_eq!(watts_strogatz(7, 6, 1.0, 4).unwrap().m(), 21);
        assert!(watts_strogatz(10, 3, 0.1, 4).is_err());
        assert!(watts_strogatz(10, 10, 0.1, 4).is_err());
        assert!(watts_strogatz(10, 4, 1.5, 4).is_err());
    }
}
