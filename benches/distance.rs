//! Distance benchmarks (issue 3 "Speed"); peers: `benches/peers/peers.py`.
//!
//! `cargo bench -p privdiffuse-benches --bench distance -- --quick` runs:
//! * on `data/facebook_combined.txt` (or `$PRIVDIFFUSE_FACEBOOK`;
//!   skipped with a notice when absent): single-source BFS, all 4,039 owners
//!   via `batch()` (rayon over 64-owner chunks, one `Workspace` per thread),
//!   single-source Dijkstra, exact resistance `Distances::new`; then a one-shot
//!   report of the `resistance-approx` error against exact (all pairs);
//! * a one-shot build of the `resistance-approx` sketch on a seeded
//!   Barabási–Albert graph (200k nodes, 5 edges per new node) — set
//!   `PRIVDIFFUSE_BENCH_BA=0` to skip it, `PRIVDIFFUSE_BA_N` to resize.
//!
//! `PRIVDIFFUSE_APPROX_K` / `PRIVDIFFUSE_APPROX_TOL` override the sketch
//! defaults for the one-shot reports; `PRIVDIFFUSE_APPROX_ONLY=1` runs only
//! the facebook error report.

use criterion::{Criterion, criterion_group, criterion_main};
use privdiffuse::distance::{BATCH, DistanceKind, DistanceOptions, Distances};
use privdiffuse::graph::Graph;
use privdiffuse::rng::{Purpose, rng_for};
use rand::RngExt;
use rayon::prelude::*;
use std::collections::HashMap;
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};

/// `$PRIVDIFFUSE_FACEBOOK`, else `data/facebook_combined.txt` in the
/// checkout (where the README says to put SNAP's file).
fn facebook_path() -> PathBuf {
    if let Some(p) = std::env::var_os("PRIVDIFFUSE_FACEBOOK") {
        return PathBuf::from(p);
    }
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/facebook_combined.txt")
}

/// A `u v` edge list with arbitrary integer ids (bench-local; the library
/// loader lives in `graph::load`).
fn read_edge_list(path: &std::path::Path) -> Option<Graph> {
    let text = std::fs::read_to_string(path).ok()?;
    let mut index: HashMap<u64, u32> = HashMap::new();
    let mut edges = Vec::new();
    for line in text.lines() {
        let mut f = line.split_whitespace();
        let (Some(a), Some(b)) = (f.next(), f.next()) else {
            continue;
        };
        let (Ok(a), Ok(b)) = (a.parse::<u64>(), b.parse::<u64>()) else {
            continue;
        };
        let mut id = |x| {
            let next = index.len() as u32;
            *index.entry(x).or_insert(next)
        };
        edges.push((id(a), id(b)));
    }
    Graph::from_index_edges(index.len(), &edges, None, false).ok()
}

/// Barabási–Albert preferential attachment: a clique on `m + 1` nodes, then
/// each new node links to `m` distinct nodes drawn proportionally to degree.
fn barabasi_albert(n: usize, m: usize, seed: u64) -> Graph {
    let mut rng = rng_for(seed, 0, 0, Purpose::Generate);
    let mut ends: Vec<u32> = Vec::with_capacity(2 * n * m);
    let mut edges = Vec::with_capacity(n * m);
    for u in 0..=m as u32 {
        for v in 0..u {
            edges.push((v, u));
            ends.extend([u, v]);
        }
    }
    let mut picked = Vec::with_capacity(m);
    for u in (m + 1) as u32..n as u32 {
        picked.clear();
        while picked.len() < m {
            let v = ends[rng.random_range(0..ends.len())];
            if !picked.contains(&v) {
                picked.push(v);
            }
        }
        for &v in &picked {
            edges.push((v, u));
            ends.extend([u, v]);
        }
    }
    Graph::from_index_edges(n, &edges, None, false).expect("valid BA graph")
}

fn env_opts() -> DistanceOptions {
    let mut o = DistanceOptions::default();
    if let Some(k) = std::env::var("PRIVDIFFUSE_APPROX_K")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        o.approx_k = k;
    }
    if let Some(t) = std::env::var("PRIVDIFFUSE_APPROX_TOL")
        .ok()
        .and_then(|s| s.parse().ok())
    {
        o.approx_tol = t;
    }
    o
}

/// Median and max relative error of the sketch against exact, all pairs.
fn approx_report(g: &Graph, name: &str) {
    let opts = env_opts();
    let t = Instant::now();
    let exact = Distances::new(g, DistanceKind::Resistance, &opts).expect("exact");
    let t_exact = t.elapsed();
    let t = Instant::now();
    let approx = Distances::new(g, DistanceKind::ResistanceApprox, &opts).expect("approx");
    let t_approx = t.elapsed();
    let (mut ws1, mut ws2) = (exact.workspace(), approx.workspace());
    let (mut a, mut b) = (Vec::new(), Vec::new());
    let mut rel = Vec::with_capacity(g.n() * g.n() / 2);
    for s in 0..g.n() as u32 {
        exact.from_owner(s, &mut ws1, &mut a);
        approx.from_owner(s, &mut ws2, &mut b);
        for t in s as usize + 1..g.n() {
            if a[t].is_finite() {
                rel.push((b[t] - a[t]).abs() / a[t]);
            }
        }
    }
    rel.sort_by(f64::total_cmp);
    println!(
        "[approx] {name}: k = {}, tol = {}: exact new {:.3} s, sketch {:.3} s; relative error over {} pairs: median {:.4}, p99 {:.4}, max {:.4}",
        opts.approx_k,
        opts.approx_tol,
        t_exact.as_secs_f64(),
        t_approx.as_secs_f64(),
        rel.len(),
        rel[rel.len() / 2],
        rel[rel.len() * 99 / 100],
        rel[rel.len() - 1]
    );
}

fn facebook(c: &mut Criterion) {
    let path = facebook_path();
    let Some(g) = read_edge_list(&path) else {
        println!(
            "notice: {} not found; skipping the facebook benchmarks",
            path.display()
        );
        return;
    };
    println!(
        "facebook_combined: {} nodes, {} edges, {} rayon threads",
        g.n(),
        g.m(),
        rayon::current_num_threads()
    );
    if std::env::var("PRIVDIFFUSE_APPROX_ONLY").is_ok_and(|v| v == "1") {
        approx_report(&g, "facebook_combined");
        return;
    }
    let opts = DistanceOptions::default();
    let n = g.n() as u32;

    let hop = Distances::new(&g, DistanceKind::Hop, &opts).unwrap();
    let mut grp = c.benchmark_group("facebook");
    grp.measurement_time(Duration::from_secs(3));
    {
        let mut ws = hop.workspace();
        let mut row = Vec::new();
        let mut s = 0u32;
        grp.bench_function("hop_single_source", |bch| {
            bch.iter(|| {
                s = (s + 997) % n;
                hop.from_owner(s, &mut ws, &mut row);
                black_box(&row);
            })
        });
    }
    let owners: Vec<u32> = (0..n).collect();
    grp.sample_size(10);
    grp.bench_function("hop_all_owners_batch", |bch| {
        bch.iter(|| {
            // Checksum so the rows are consumed.
            let sum: f64 = owners
                .par_chunks(BATCH)
                .map_init(
                    || hop.workspace(),
                    |ws, chunk| {
                        let mut acc = 0.0;
                        hop.batch(chunk, ws, |_, row| acc += row[row.len() / 2]);
                        acc
                    },
                )
                .sum();
            black_box(sum)
        })
    });
    grp.bench_function("hop_all_owners_per_source", |bch| {
        bch.iter(|| {
            let sum: f64 = owners
                .par_iter()
                .map_init(
                    || (hop.workspace(), Vec::new()),
                    |(ws, row), &o| {
                        hop.from_owner(o, ws, row);
                        row[row.len() / 2]
                    },
                )
                .sum();
            black_box(sum)
        })
    });
    let dij = Distances::new(&g, DistanceKind::Weighted, &opts).unwrap();
    {
        let mut ws = dij.workspace();
        let mut row = Vec::new();
        let mut s = 0u32;
        grp.bench_function("dijkstra_single_source", |bch| {
            bch.iter(|| {
                s = (s + 997) % n;
                dij.from_owner(s, &mut ws, &mut row);
                black_box(&row);
            })
        });
    }
    grp.bench_function("resistance_exact_new", |bch| {
        bch.iter(|| black_box(Distances::new(&g, DistanceKind::Resistance, &opts).unwrap()))
    });
    grp.finish();
    approx_report(&g, "facebook_combined");
}

fn ba_sketch(_c: &mut Criterion) {
    if std::env::var("PRIVDIFFUSE_BENCH_BA").is_ok_and(|v| v == "0") {
        println!("notice: PRIVDIFFUSE_BENCH_BA=0; skipping the Barabási–Albert sketch");
        return;
    }
    let n = std::env::var("PRIVDIFFUSE_BA_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let t = Instant::now();
    let g = barabasi_albert(n, 5, 1);
    let t_gen = t.elapsed();
    let opts = env_opts();
    let t = Instant::now();
    let d = Distances::new(&g, DistanceKind::ResistanceApprox, &opts).unwrap();
    let t_sketch = t.elapsed();
    let mut ws = d.workspace();
    let mut row = Vec::new();
    let t = Instant::now();
    d.from_owner(0, &mut ws, &mut row);
    let t_row = t.elapsed();
    println!(
        "[approx] BA n = {}, m = {}: generated in {:.2} s; sketch (k = {}, tol = {}) built in {:.2} s on {} threads ({} MB); one owner row {:.1} ms",
        g.n(),
        g.m(),
        t_gen.as_secs_f64(),
        opts.approx_k,
        opts.approx_tol,
        t_sketch.as_secs_f64(),
        rayon::current_num_threads(),
        opts.approx_k * g.n() * 4 / 1_000_000,
        t_row.as_secs_f64() * 1e3
    );
    black_box(row);
}

criterion_group!(benches, facebook, ba_sketch);
criterion_main!(benches);
