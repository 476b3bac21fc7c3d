//! Edge-list loading and graph generation speed.
//!
//! `cargo bench -p privdiffuse-benches --bench graph_load`. Loads a generated 1M-edge Erdős–Rényi file
//! (written once to the temp directory, lines shuffled so ids arrive in random
//! order, the hard case for the id table) and, if present,
//! `data/facebook_combined.txt` (88,234 edges).

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use privdiffuse::graph::generate::{GeometricParam, erdos_renyi, geometric};
use privdiffuse::graph::{LoadOptions, load_graph};
use std::hint::black_box;
use std::io::Write;
use std::path::PathBuf;

fn shuffled_er_file(n: usize, m: u64) -> PathBuf {
    let path = std::env::temp_dir().join(format!("privdiffuse-bench-er-{n}-{m}.edges"));
    if path.exists() {
        return path;
    }
    let g = erdos_renyi(n, m, 1).unwrap();
    let mut edges: Vec<(u32, u32)> = g.edges().map(|(u, v, _)| (u, v)).collect();
    // Deterministic shuffle (multiplicative hash order).
    edges.sort_by_key(|&(u, v)| privdiffuse::rng::splitmix64(((u as u64) << 32) | v as u64));
    let mut f = std::io::BufWriter::new(std::fs::File::create(&path).unwrap());
    for (u, v) in edges {
        writeln!(f, "{u} {v}").unwrap();
    }
    f.flush().unwrap();
    path
}

fn load(c: &mut Criterion) {
    let mut group = c.benchmark_group("load");
    group.sample_size(10);
    let er = shuffled_er_file(100_000, 1_000_000);
    group.throughput(Throughput::Elements(1_000_000));
    group.bench_function("er_1M_edges_shuffled", |b| {
        b.iter(|| black_box(load_graph(&er, &LoadOptions::default()).unwrap()))
    });
    let fb = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../data/facebook_combined.txt");
    if fb.exists() {
        group.throughput(Throughput::Elements(88_234));
        group.bench_function("facebook_combined", |b| {
            b.iter(|| black_box(load_graph(&fb, &LoadOptions::default()).unwrap()))
        });
    } else {
        eprintln!("skipped facebook_combined: {} not found", fb.display());
    }
    group.finish();
}

fn generate(c: &mut Criterion) {
    let mut group = c.benchmark_group("generate");
    group.sample_size(10);
    group.bench_function("geometric150_target_edges", |b| {
        b.iter(|| black_box(geometric(150, GeometricParam::TargetEdges(1256), 2).unwrap()))
    });
    group.bench_function("geometric_100k_radius_0.005", |b| {
        b.iter(|| black_box(geometric(100_000, GeometricParam::Radius(0.005), 1).unwrap()))
    });
    group.bench_function("er_100k_1M", |b| {
        b.iter(|| black_box(erdos_renyi(100_000, 1_000_000, 1).unwrap()))
    });
    group.finish();
}

criterion_group!(benches, load, generate);
criterion_main!(benches);
