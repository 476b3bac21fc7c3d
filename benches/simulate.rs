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
use privdiffuse::distance::Distances;
use privdiffuse::graph::{GeometricParam, Graph, LoadOptions, generate, load_graph};
use privdiffuse::sim::{Plan, SimConfig, simulate};
use std::path::Path;

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
