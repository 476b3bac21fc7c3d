//! Utility engine benchmarks: the per-batch accumulation of one 64-owner
//! chunk (bit-parallel level search + subset-sum tables + exact `i128`
//! per-recipient sums + Gamma-difference independent sums), against the
//! bare level search on the same graph, and the cost of the exact
//! accumulator against `f64` for the look-up-and-add step.
//!
//! `cargo bench -p privdiffuse-benches --bench utility -- --quick`; `PRIVDIFFUSE_UTILITY_N` resizes
//! the Erdős–Rényi graph (default 200,000 nodes, 10 edges per node).

use criterion::{Criterion, criterion_group, criterion_main};
use privdiffuse::distance::{
    DistanceKind, DistanceOptions, Distances, LevelSearch, LevelVisitor, SubsetSums,
};
use privdiffuse::graph::generate::erdos_renyi;
use privdiffuse::utility::{Accumulators, ChunkScratch, UtilityConfig, UtilityPlan};
use privdiffuse::{EpsilonMap, Norm, ValueSpec};
use std::hint::black_box;
use std::ops::ControlFlow;

struct Nothing(u64);
impl LevelVisitor for Nothing {
    fn level(&mut self, _: u32, nodes: &[u32], _: &[u64]) -> ControlFlow<()> {
        self.0 += nodes.len() as u64;
        ControlFlow::Continue(())
    }
    fn done(&mut self, _: &[u64]) {}
}

fn bench(c: &mut Criterion) {
    let n: usize = std::env::var("PRIVDIFFUSE_UTILITY_N")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200_000);
    let g = erdos_renyi(n, 10 * n as u64, 1).expect("graph");
    let d = Distances::new(&g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
    let mut cfg = UtilityConfig::default();
    cfg.sim.eps = EpsilonMap::exp(3.0, 1.0).unwrap();
    cfg.sim.dim = 1;
    cfg.sim.norm = Norm::L1;
    cfg.sim.values = ValueSpec::Uniform { lo: 0.0, hi: 1.0 };
    cfg.sim.owners = privdiffuse::Owners::Count(64);
    let plan = UtilityPlan::new(&cfg, &g, &d).unwrap();
    let owners = plan.chunk(0).to_vec();
    let mut group = c.benchmark_group("utility");
    group.sample_size(10);
    let mut search = LevelSearch::new();
    group.bench_function(format!("level search only, 64 sources, ER n={n}"), |b| {
        b.iter(|| {
            let mut v = Nothing(0);
            let _ = search.run(&g, &owners, &mut v);
            black_box(v.0)
        })
    });
    let mut acc = Accumulators::new(&plan);
    let mut scratch = ChunkScratch::new();
    group.bench_function(format!("run_chunk (3 schemes), 64 owners, ER n={n}"), |b| {
        b.iter(|| {
            black_box(
                plan.run_chunk(0, &owners, 0, &mut scratch, &mut acc)
                    .unwrap(),
            )
        })
    });
    // The add step alone: 1M (mask, recipient) pairs into i128 vs f64.
    let vals_i: Vec<i128> = (0..64).map(|i| (i as i128) << 60).collect();
    let vals_f: Vec<f64> = (0..64).map(|i| i as f64 * 0.37).collect();
    let (ti, tf) = (SubsetSums::new(&vals_i), SubsetSums::new(&vals_f));
    let masks: Vec<(u32, u64)> = (0..1_000_000u64)
        .map(|k| {
            let h = privdiffuse::rng::splitmix64(k);
            ((h % n as u64) as u32, privdiffuse::rng::splitmix64(h))
        })
        .collect();
    let mut ai = vec![0i128; n];
    let mut af = vec![0f64; n];
    group.bench_function("1M look-up-and-add, i128 (exact)", |b| {
        b.iter(|| {
            for &(v, m) in &masks {
                ai[v as usize] += ti.sum(m);
            }
        })
    });
    group.bench_function("1M look-up-and-add, f64", |b| {
        b.iter(|| {
            for &(v, m) in &masks {
                af[v as usize] += tf.sum(m);
            }
        })
    });
    group.finish();
    black_box((&ai, &af));
}

criterion_group!(benches, bench);
criterion_main!(benches);
