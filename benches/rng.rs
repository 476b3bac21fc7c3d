//! Generator choice (src/rng.rs): ChaCha8 (`PrivRng`) against Xoshiro256++ for
//! raw u64s, one Laplace draw, one full n = 1 path over [0.5, 15], and the cost
//! of deriving a generator per path (`rng_for` vs a SplitMix-seeded Xoshiro).
//!
//! Run: `cargo bench -p privdiffuse-benches --bench rng -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use privdiffuse::process::laplace::laplace;
use privdiffuse::process::{NoisePath, Norm, PathSampler};
use privdiffuse::rng::{PrivRng, Purpose, rng_for, splitmix64};
use rand::{Rng, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;
use std::hint::black_box;

fn xoshiro_for(seed: u64, owner: u64) -> Xoshiro256PlusPlus {
    Xoshiro256PlusPlus::seed_from_u64(splitmix64(seed ^ splitmix64(owner)))
}

fn generic<R: Rng>(c: &mut Criterion, name: &str, mut rng: R) {
    let mut g = c.benchmark_group(name);
    g.throughput(Throughput::Elements(1));
    g.bench_function("u64", |b| b.iter(|| black_box(rng.next_u64())));
    g.bench_function("laplace", |b| b.iter(|| black_box(laplace(&mut rng, 0.7))));
    let s = PathSampler::new(1, Norm::L1, 0.5, 15.0).expect("valid range");
    let mut p = NoisePath::empty(1);
    g.bench_function("path_n1_l1", |b| {
        b.iter(|| {
            s.sample_into(&mut rng, &mut p);
            black_box(p.len())
        })
    });
    g.finish();
}

fn rngs(c: &mut Criterion) {
    generic::<PrivRng>(c, "chacha8", rng_for(1, 0, 0, Purpose::Path));
    generic(c, "xoshiro256pp", xoshiro_for(1, 0));

    let mut g = c.benchmark_group("derive");
    g.throughput(Throughput::Elements(1));
    let mut owner = 0u64;
    g.bench_function("rng_for_chacha8_first_u64", |b| {
        b.iter(|| {
            owner += 1;
            black_box(rng_for(1, owner, 0, Purpose::Path).next_u64())
        })
    });
    g.bench_function("splitmix_xoshiro_first_u64", |b| {
        b.iter(|| {
            owner += 1;
            black_box(xoshiro_for(1, owner).next_u64())
        })
    });
    g.finish();
}

criterion_group!(benches, rngs);
criterion_main!(benches);
