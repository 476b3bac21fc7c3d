//! Properties of the distances on small seeded random graphs: resistance is a
//! symmetric metric below the hop / shortest-path distance that satisfies
//! Foster's theorem; the bit-parallel BFS equals per-source BFS; the sketch
//! stays within its documented error and does not depend on the thread count.

#![allow(clippy::needless_range_loop)] // pairwise (u, v, w) loops read clearer with indices

use privdiffuse::Error;
use privdiffuse::distance::{DistanceKind, DistanceOptions, Distances};
use privdiffuse::graph::Graph;
use privdiffuse::rng::{Purpose, rng_for};
use rand::RngExt;
use std::path::PathBuf;

/// Random geometric graph on `n` points in the unit square (radius `r`) plus
/// a spanning path `0-1-…-(n-1)` so that it is connected; optional lengths
/// uniform in [0.5, 3).
fn geometric(n: usize, r: f64, seed: u64, weighted: bool) -> Graph {
    let mut rng = rng_for(seed, 0, 0, Purpose::Generate);
    let pts: Vec<(f64, f64)> = (0..n).map(|_| (rng.random(), rng.random())).collect();
    let mut edges: Vec<(u32, u32)> = (1..n as u32).map(|v| (v - 1, v)).collect();
    for u in 0..n {
        for v in u + 1..n {
            let (dx, dy) = (pts[u].0 - pts[v].0, pts[u].1 - pts[v].1);
            if dx * dx + dy * dy < r * r {
                edges.push((u as u32, v as u32));
            }
        }
    }
    let w: Vec<f64> = edges.iter().map(|_| rng.random_range(0.5..3.0)).collect();
    Graph::from_index_edges(n, &edges, weighted.then_some(&w[..]), false).unwrap()
}

/// Erdős–Rényi-style graph with `m` random arcs (duplicates dropped).
fn random_graph(n: usize, m: usize, seed: u64, directed: bool) -> Graph {
    let mut rng = rng_for(seed, 1, 0, Purpose::Generate);
    let edges: Vec<(u32, u32)> = (0..m)
        .map(|_| (rng.random_range(0..n as u32), rng.random_range(0..n as u32)))
        .collect();
    Graph::from_index_edges(n, &edges, None, directed).unwrap()
}

/// Two geometric blobs, an isolated node and a separate edge: 4 components.
fn disconnected() -> Graph {
    let a = geometric(20, 0.3, 7, false);
    let b = geometric(15, 0.35, 8, false);
    let mut edges: Vec<(u32, u32)> = a.edges().map(|(u, v, _)| (u, v)).collect();
    edges.extend(b.edges().map(|(u, v, _)| (u + 20, v + 20)));
    edges.push((36, 37)); // node 35 isolated
    Graph::from_index_edges(38, &edges, None, false).unwrap()
}

fn all_rows(g: &Graph, kind: DistanceKind) -> Vec<Vec<f64>> {
    let d = Distances::new(g, kind, &DistanceOptions::default()).unwrap();
    let mut ws = d.workspace();
    (0..g.n() as u32)
        .map(|s| {
            let mut row = Vec::new();
            d.from_owner(s, &mut ws, &mut row);
            row
        })
        .collect()
}

fn components(g: &Graph) -> usize {
    let hop = all_rows(g, DistanceKind::Hop);
    let mut seen = vec![false; g.n()];
    let mut c = 0;
    for s in 0..g.n() {
        if !seen[s] {
            c += 1;
            for (t, &d) in hop[s].iter().enumerate() {
                if d.is_finite() {
                    seen[t] = true;
                }
            }
        }
    }
    c
}

fn check_resistance_properties(g: &Graph) {
    let n = g.n();
    let r = all_rows(g, DistanceKind::Resistance);
    let sp = all_rows(g, DistanceKind::Weighted);
    for u in 0..n {
        assert_eq!(r[u][u], 0.0);
        for v in 0..n {
            // Symmetric, and finite exactly on pairs joined by a path.
            assert!(
                r[u][v] == r[v][u] || (r[u][v] - r[v][u]).abs() <= 1e-12,
                "R({u},{v}) = {} but R({v},{u}) = {}",
                r[u][v],
                r[v][u]
            );
            assert_eq!(r[u][v].is_finite(), sp[u][v].is_finite(), "({u},{v})");
            // Rayleigh monotonicity: R ≤ shortest path (= hop with unit lengths).
            assert!(
                r[u][v] <= sp[u][v] + 1e-12,
                "R({u},{v}) = {} > d = {}",
                r[u][v],
                sp[u][v]
            );
            if u != v && sp[u][v].is_finite() {
                assert!(r[u][v] > 0.0);
            }
            for w in 0..n {
                if r[u][w].is_finite() {
                    assert!(
                        r[u][w] <= r[u][v] + r[v][w] + 1e-12,
                        "triangle ({u},{v},{w}) broken"
                    );
                }
            }
        }
    }
    // Foster: Σ_edges R_uv · conductance_uv = N − #components.
    let foster: f64 = g
        .edges()
        .map(|(u, v, w)| r[u as usize][v as usize] / w)
        .sum();
    let expect = (n - components(g)) as f64;
    assert!(
        (foster - expect).abs() <= 1e-8,
        "Foster sum {foster}, expected {expect}"
    );
}

#[test]
fn resistance_is_a_metric_below_shortest_paths_unweighted() {
    check_resistance_properties(&geometric(60, 0.2, 1, false));
}

#[test]
fn resistance_is_a_metric_below_shortest_paths_weighted() {
    check_resistance_properties(&geometric(50, 0.25, 2, true));
}

#[test]
fn resistance_on_a_disconnected_graph() {
    let g = disconnected();
    assert_eq!(components(&g), 4);
    check_resistance_properties(&g);
    let r = all_rows(&g, DistanceKind::Resistance);
    assert!((r[36][37] - 1.0).abs() < 1e-12);
    assert_eq!(r[35][0], f64::INFINITY);
    assert_eq!(r[0][20], f64::INFINITY);
}

#[test]
fn resistance_on_a_path_and_a_cycle_closed_forms() {
    // Path: R = |i − j|. Cycle of n: R = k(n − k)/n.
    let path =
        Graph::from_index_edges(6, &[(0, 1), (1, 2), (2, 3), (3, 4), (4, 5)], None, false).unwrap();
    let r = all_rows(&path, DistanceKind::Resistance);
    for i in 0..6 {
        for j in 0..6 {
            assert!((r[i][j] - (i as f64 - j as f64).abs()).abs() < 1e-12);
        }
    }
    let n = 9u32;
    let e: Vec<(u32, u32)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    let cyc = Graph::from_index_edges(n as usize, &e, None, false).unwrap();
    let r = all_rows(&cyc, DistanceKind::Resistance);
    for k in 0..n as usize {
        let want = (k * (n as usize - k)) as f64 / n as f64;
        assert!(
            (r[0][k] - want).abs() < 1e-12,
            "cycle R(0,{k}) = {}",
            r[0][k]
        );
    }
}

#[test]
fn resistance_refuses_directed_graphs_and_oversized_components() {
    let g = random_graph(10, 20, 3, true);
    for kind in [DistanceKind::Resistance, DistanceKind::ResistanceApprox] {
        let e = Distances::new(&g, kind, &DistanceOptions::default())
            .err()
            .unwrap();
        assert!(matches!(e, Error::Unsupported(_)), "{e}");
        assert!(e.to_string().contains("undirected"), "{e}");
    }
    let g = geometric(30, 0.3, 4, false);
    let opts = DistanceOptions {
        resistance_cap: 29,
        ..Default::default()
    };
    let e = Distances::new(&g, DistanceKind::Resistance, &opts)
        .err()
        .unwrap();
    assert!(e.to_string().contains("resistance-approx"), "{e}");
    assert!(e.to_string().contains("30 nodes"), "{e}");
    let opts = DistanceOptions {
        resistance_cap: 30,
        ..Default::default()
    };
    assert!(Distances::new(&g, DistanceKind::Resistance, &opts).is_ok());
    let bad = DistanceOptions {
        approx_k: 0,
        ..Default::default()
    };
    let e = Distances::new(&g, DistanceKind::ResistanceApprox, &bad)
        .err()
        .unwrap();
    assert!(matches!(e, Error::Parameter { .. }), "{e}");
}

/// The bit-parallel batch must equal per-source BFS for every batch size
/// around the word boundary, on directed, undirected and disconnected graphs
/// (repeated owners included).
#[test]
fn bit_parallel_bfs_equals_per_source_bfs() {
    let graphs = [
        ("undirected", random_graph(300, 700, 11, false)),
        ("directed", random_graph(300, 900, 12, true)),
        // Sparse: many components and isolated nodes.
        ("disconnected", random_graph(300, 150, 13, false)),
        ("disconnected directed", random_graph(300, 200, 14, true)),
    ];
    for (name, g) in &graphs {
        let d = Distances::new(g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
        let mut ws = d.workspace();
        let mut rng = rng_for(5, 0, 0, Purpose::OwnerSample);
        for size in [1usize, 2, 63, 64, 65, 130] {
            let mut owners: Vec<u32> = (0..size).map(|_| rng.random_range(0..300)).collect();
            if size > 2 {
                owners[1] = owners[0]; // a repeated owner
            }
            let mut calls = 0;
            let mut want = Vec::new();
            let mut ws2 = d.workspace();
            d.batch(&owners, &mut ws, |i, row| {
                assert_eq!(i, calls, "{name}: rows out of order");
                calls += 1;
                d.from_owner(owners[i], &mut ws2, &mut want);
                assert_eq!(
                    row,
                    &want[..],
                    "{name}: batch of {size}, owner {}",
                    owners[i]
                );
            });
            assert_eq!(calls, size);
        }
    }
}

/// Directed hop distances follow out-arcs only.
#[test]
fn directed_hop_follows_out_arcs() {
    let g = Graph::from_index_edges(3, &[(0, 1), (1, 2)], None, true).unwrap();
    let d = Distances::new(&g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
    let mut ws = d.workspace();
    let mut rows = Vec::new();
    d.batch(&[0, 2], &mut ws, |_, r| rows.push(r.to_vec()));
    assert_eq!(rows[0], vec![0.0, 1.0, 2.0]);
    assert_eq!(rows[1], vec![f64::INFINITY, f64::INFINITY, 0.0]);
}

fn golden_graph(name: &str) -> Graph {
    let p = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name);
    let text = std::fs::read_to_string(p).unwrap();
    let edges: Vec<(u32, u32)> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| {
            let mut f = l.split_whitespace().map(|x| x.parse::<u32>().unwrap());
            (f.next().unwrap(), f.next().unwrap())
        })
        .collect();
    let n = edges
        .iter()
        .map(|&(u, v)| u.max(v) as usize + 1)
        .max()
        .unwrap();
    Graph::from_index_edges(n, &edges, None, false).unwrap()
}

/// (median, max) relative error of the default sketch against exact, all pairs.
fn sketch_error(g: &Graph, opts: &DistanceOptions) -> (f64, f64) {
    let exact = all_rows(g, DistanceKind::Resistance);
    let d = Distances::new(g, DistanceKind::ResistanceApprox, opts).unwrap();
    let mut ws = d.workspace();
    let mut row = Vec::new();
    let mut rel = Vec::new();
    for s in 0..g.n() {
        d.from_owner(s as u32, &mut ws, &mut row);
        assert_eq!(row[s], 0.0);
        for t in s + 1..g.n() {
            rel.push((row[t] - exact[s][t]).abs() / exact[s][t]);
        }
    }
    rel.sort_by(f64::total_cmp);
    (rel[rel.len() / 2], rel[rel.len() - 1])
}

/// The bounds documented in `distance::approx`, derived from the per-pair
/// relative standard deviation `σ = √(2/k)` of a k-term JL estimate (the
/// χ²_k/k approximation): median |error| ≤ 1.25 · 0.674σ (the median of a
/// half-normal is 0.674σ; 25 % headroom for the PCG error and pair
/// correlations) and max ≤ 5σ over all pairs.
#[test]
fn sketch_error_within_documented_bounds() {
    let opts = DistanceOptions::default();
    let sd = (2.0 / opts.approx_k as f64).sqrt();
    let (med_bound, max_bound) = (1.25 * 0.674 * sd, 5.0 * sd);
    for name in ["karate.edges", "lesmis.edges"] {
        let (med, max) = sketch_error(&golden_graph(name), &opts);
        println!(
            "{name}: k = {}, median {med:.4}, max {max:.4}",
            opts.approx_k
        );
        assert!(med <= med_bound, "{name}: median {med} > {med_bound}");
        assert!(max <= max_bound, "{name}: max {max} > {max_bound}");
    }
}

/// The sketch is the same on 1 and 2 threads, and changes with the seed.
#[test]
fn sketch_is_reproducible_across_thread_counts() {
    let g = geometric(80, 0.2, 9, true);
    let opts = DistanceOptions {
        approx_k: 37, // not a multiple of the 8-row block
        ..Default::default()
    };
    let row_with = |threads: usize, seed: u64| {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .unwrap();
        pool.install(|| {
            let o = DistanceOptions {
                seed,
                ..opts.clone()
            };
            let d = Distances::new(&g, DistanceKind::ResistanceApprox, &o).unwrap();
            let mut ws = d.workspace();
            let mut row = Vec::new();
            d.from_owner(3, &mut ws, &mut row);
            row
        })
    };
    let a = row_with(1, 0);
    let b = row_with(2, 0);
    assert_eq!(
        a.iter().map(|x| x.to_bits()).collect::<Vec<_>>(),
        b.iter().map(|x| x.to_bits()).collect::<Vec<_>>()
    );
    assert_ne!(a, row_with(2, 1));
}

/// Across components the sketch reports ∞, inside them finite values.
#[test]
fn sketch_on_a_disconnected_graph() {
    let g = disconnected();
    let d = Distances::new(
        &g,
        DistanceKind::ResistanceApprox,
        &DistanceOptions::default(),
    )
    .unwrap();
    let mut ws = d.workspace();
    let mut row = Vec::new();
    d.from_owner(36, &mut ws, &mut row);
    assert!(
        row[37].is_finite() && (row[37] - 1.0).abs() < 0.3,
        "R(36,37) ≈ {}",
        row[37]
    );
    assert!(row[..36].iter().all(|x| x.is_infinite()));
    d.from_owner(35, &mut ws, &mut row);
    assert_eq!(row[35], 0.0);
    assert_eq!(row.iter().filter(|x| x.is_finite()).count(), 1);
}
