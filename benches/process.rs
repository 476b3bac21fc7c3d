//! Throughput of the exact path samplers (issue 2): paths/s for n = 1, 2, 20
//! over [0.5, 15] in ℓ1 and ℓ2, with a reused `NoisePath`, and `value_at`
//! lookups/s. `n1_l1_with_rng_for` adds one `rng_for` derivation per path, as
//! the simulator does (one generator per owner).
//!
//! Run: `cargo bench -p privdiffuse-benches --bench process -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use privdiffuse::process::{NoisePath, Norm, PathSampler};
use privdiffuse::rng::{Purpose, rng_for};
use rand::RngExt;
use std::hint::black_box;

const LO: f64 = 0.5;
const HI: f64 = 15.0;

fn paths(c: &mut Criterion) {
    let mut g = c.benchmark_group("path");
    g.throughput(Throughput::Elements(1));
    for norm in [Norm::L1, Norm::L2] {
        for dim in [1usize, 2, 20] {
            let s = PathSampler::new(dim, norm, LO, HI).expect("valid range");
            let mut rng = rng_for(1, 0, 0, Purpose::Path);
            let mut p = NoisePath::empty(dim);
            g.bench_function(format!("n{dim}_{norm}"), |b| {
                b.iter(|| {
                    s.sample_into(&mut rng, &mut p);
                    black_box(p.len())
                })
            });
        }
    }
    let s = PathSampler::new(1, Norm::L1, LO, HI).expect("valid range");
    let mut p = NoisePath::empty(1);
    let mut owner = 0u64;
    g.bench_function("n1_l1_with_rng_for", |b| {
        b.iter(|| {
            owner += 1;
            let mut rng = rng_for(1, owner, 0, Purpose::Path);
            s.sample_into(&mut rng, &mut p);
            black_box(p.len())
        })
    });
    g.finish();
}

fn lookups(c: &mut Criterion) {
    const Q: usize = 1024;
    let mut g = c.benchmark_group("value_at");
    g.throughput(Throughput::Elements(Q as u64));
    for (dim, norm) in [(1usize, Norm::L1), (20, Norm::L1)] {
        let s = PathSampler::new(dim, norm, LO, HI).expect("valid range");
        let mut rng = rng_for(2, 0, 0, Purpose::Path);
        let p = s.sample(&mut rng);
        let levels: Vec<f64> = (0..Q).map(|_| rng.random_range(LO..=HI)).collect();
        g.bench_function(format!("n{dim}_{norm}_{}bp", p.len()), |b| {
            b.iter(|| {
                let mut acc = 0.0;
                for &e in &levels {
                    acc += p.value_at(black_box(e))[0];
                }
                black_box(acc)
            })
        });
    }
    g.finish();
}

criterion_group!(benches, paths, lookups);
criterion_main!(benches);
