//! The simulator's real workload: every owner, hop distance, correlated and
//! independent mechanisms, per-distance aggregation (the job of
//! `benches/peers/numpy_pipeline.py`).
//!
//! Uses `data/facebook_combined.txt` (4,039 nodes, 88,234 edges,
//! 16.3 M answers per mechanism) when present, else a generated 2,000-node
//! geometric graph.
//!
//! cargo bench -p privdiffuse-benches --bench simulate -- --warm-up-time 1 --measurement-time 5

use criterion::{Criterion, criterion_group, criterion_main};
use privdiffuse::distance::{DistanceKind, DistanceOptions, Distances};
use privdiffuse::graph::{GeometricParam, Graph, LoadOptions, generate, load_graph};
use privdiffuse::process::laplace::laplace;
use privdiffuse::process::{NoisePath, Norm, PathSampler};
use privdiffuse::rng::{Purpose, rng_for};
use privdiffuse::sim::{Plan, SimConfig, simulate};
use rayon::prelude::*;
use std::path::Path;

/// The owners of one bit-parallel search.
const BATCH: usize = 64;

/// The limit of the `both` workload (issue 37): only the work no simulator can
/// skip — the all-source hop search (64-source bit-parallel batches, a count per
/// hop), one lazy path per owner read once per hop, one fresh Laplace draw per
/// answer (`count` draws at each hop's ε), and the per-hop sums of squares for
/// both mechanisms. No rows, no recipients in node order, no tables beyond two
/// sums per hop; ε(d) = exp(a − b d) with a = 3, b = 1, 1-D ℓ1, as `simulate`.
/// Returns the total of the sums, so the work cannot be optimised away.
fn limit(g: &Graph) -> f64 {
    let d = Distances::new(g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
    let owners: Vec<u32> = (0..g.n() as u32).collect();
    owners
        .par_chunks(BATCH)
        .map(|chunk| {
            let mut ws = d.workspace();
            let mut path = NoisePath::default();
            let mut total = 0.0;
            d.hop_levels(
                chunk,
                &mut ws,
                |_| false,
                |i, lv| {
                    let owner = u64::from(chunk[i]);
                    let hist = lv.hist();
                    let top = hist.len() - 1;
                    if top == 0 {
                        return;
                    }
                    let eps = |h: usize| (3.0 - h as f64).exp();
                    let sampler = PathSampler::new(1, Norm::L1, eps(top), eps(1)).unwrap();
                    sampler.sample_into(&mut rng_for(1, owner, 0, Purpose::Path), &mut path);
                    let mut fresh = rng_for(1, owner, 0, Purpose::Independent);
                    for (h, &count) in hist.iter().enumerate().skip(1) {
                        let e = eps(h);
                        let v = path.value_at(e)[0];
                        let mut sq = 0.0;
                        for _ in 0..count {
                            let x = laplace(&mut fresh, 1.0 / e);
                            sq += x * x;
                        }
                        total += count as f64 * v * v + sq;
                    }
                },
            )
            .unwrap();
            total
        })
        .sum()
}

fn workload() -> (String, Graph) {
    let fb = Path::new(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/../data/facebook_combined.txt"
    ));
    if fb.exists() {
        let g = load_graph(fb, &LoadOptions::default()).expect("facebook loads");
        ("facebook_combined".into(), g)
    } else {
        eprintln!(
            "note: {} absent; benchmarking a generated geometric graph",
            fb.display()
        );
        let (g, _) =
            generate::geometric(2000, GeometricParam::TargetEdges(40_000), 1).expect("generator");
        ("geometric2000".into(), g)
    }
}

fn bench(c: &mut Criterion) {
    let (name, g) = workload();
    let config = SimConfig {
        eps: "exp:a=3,b=1".parse().unwrap(),
        dim: 1,
        norm: "l1".parse().unwrap(),
        mechanism: "both".parse().unwrap(),
        values: "const:0".parse().unwrap(),
        ..SimConfig::default()
    };
    let mut group = c.benchmark_group("simulate");
    group.sample_size(10);
    group.bench_function(format!("{name}/all-owners/hop/both/l1-n1"), |b| {
        b.iter(|| {
            let d = Distances::new(&g, config.distance, &config.distance_options).unwrap();
            let plan = Plan::new(&config, &g, &d).unwrap();
            simulate(&plan).unwrap()
        })
    });
    group.bench_function(format!("{name}/all-owners/hop/both/l1-n1/limit"), |b| {
        b.iter(|| limit(&g))
    });
    let l2 = SimConfig {
        dim: 2,
        norm: "l2".parse().unwrap(),
        ..config.clone()
    };
    group.bench_function(format!("{name}/all-owners/hop/both/l2-n2"), |b| {
        b.iter(|| {
            let d = Distances::new(&g, l2.distance, &l2.distance_options).unwrap();
            let plan = Plan::new(&l2, &g, &d).unwrap();
            simulate(&plan).unwrap()
        })
    });
    group.finish();
}

criterion_group!(benches, bench);
criterion_main!(benches);
