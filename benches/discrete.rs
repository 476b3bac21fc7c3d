//! Exact integer sampling (issue 25): ns per discrete Laplace draw at
//! t = 1/1024 and t = 3, ns per jump coin between adjacent rungs (m = 32,
//! Δ_Z = 1024), ns per fresh draw through `DiscreteNoise` (seeded and OS
//! generators; seeded also at ε = 3·e⁻⁴, the facebook run's typical level,
//! whose rate's denominator needs 128 bits), and paths/s of a 1-D ℓ1 discrete path over [0.5, 15]
//! (m = 32, γ = 2^-10: 157 rung steps), jump to jump (sampler 2) and rung by
//! rung (sampler 1), next to the f64 `PathSampler` over the same range.
//! Budget from the issue: ≈ 240 ns per exact draw.
//!
//! Run: `cargo bench -p privdiffuse-benches --bench discrete -- --warm-up-time 1 --measurement-time 3`

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use privdiffuse::process::discrete::{
    DiscreteNoise, DiscretePath, Grid, JumpCoin, OsRng, Ratio, Rung, Sampler,
    discrete_laplace_exact,
};
use privdiffuse::process::{NoisePath, Norm, PathSampler};
use privdiffuse::rng::{Purpose, rng_for};
use std::hint::black_box;

fn draws(c: &mut Criterion) {
    let mut g = c.benchmark_group("discrete_draw");
    g.throughput(Throughput::Elements(1));
    for (name, t) in [("dl_t_1_1024", (1u128, 1024u128)), ("dl_t_3", (3, 1))] {
        let t = Ratio::from_u128(t.0, t.1).expect("valid rate");
        let mut rng = rng_for(1, 0, 0, Purpose::Independent);
        g.bench_function(name, |b| {
            b.iter(|| black_box(discrete_laplace_exact(&t, &mut rng).expect("t > 0")))
        });
    }
    let noise = DiscreteNoise::new(Grid::default(), 32, 1.0, 1).expect("valid noise");
    let k = noise.rung_of(1.0).expect("valid level");
    let mut out = [0i64];
    // ε = 3·e^-4 (facebook's typical distance under exp:a=3,b=1): the rate's
    // denominator exceeds 2^64, so uniforms take two words (u128 path).
    let k_mid = noise.rung_of(3.0 * (-4.0f64).exp()).expect("valid level");
    for (name, rung, stream) in [
        ("fresh_at_eps_1_seeded", k, 1),
        ("fresh_at_eps_0_055_seeded", k_mid, 3),
    ] {
        let mut rng = rng_for(1, stream, 0, Purpose::Independent);
        g.bench_function(name, |b| {
            b.iter(|| {
                noise
                    .sample_fresh_into(rung, &mut rng, &mut out)
                    .expect("valid rung");
                black_box(out[0])
            })
        });
    }
    let mut os = OsRng::new().expect("the OS generator");
    g.bench_function("fresh_at_eps_1_os", |b| {
        b.iter(|| {
            noise
                .sample_fresh_into(k, &mut os, &mut out)
                .expect("valid rung");
            black_box(out[0])
        })
    });
    // Adjacent rungs at ε = 2^(1/32) and 1 with Δ_Z = 1024.
    let coin = JumpCoin::new(
        &noise.rate(Rung(k.0 + 1)).expect("rung"),
        &noise.rate(k).expect("rung"),
    )
    .expect("t1 > t2");
    let mut rng = rng_for(1, 2, 0, Purpose::Path);
    g.bench_function("jump_coin_m32", |b| {
        b.iter(|| black_box(coin.sample(&mut rng)))
    });
    g.finish();
}

fn paths(c: &mut Criterion) {
    let mut g = c.benchmark_group("discrete_path");
    g.throughput(Throughput::Elements(1));
    let noise = DiscreteNoise::new(Grid::default(), 32, 1.0, 1).expect("valid noise");
    let (top, bottom) = (
        noise.rung_of(15.0).expect("valid level"),
        noise.rung_of(0.5).expect("valid level"),
    );
    let mut p = DiscretePath::empty(1);
    let mut rng = rng_for(1, 0, 0, Purpose::Path);
    g.bench_function("discrete_n1_l1_m32", |b| {
        b.iter(|| {
            noise
                .sample_path_into(top, bottom, &mut rng, &mut p)
                .expect("valid rungs");
            black_box(p.num_changes())
        })
    });
    // The same path rung by rung (sampler 1, what stores and older relax
    // states continue with): the jump-to-jump walk's reference.
    g.bench_function("discrete_n1_l1_m32_sampler1", |b| {
        b.iter(|| {
            noise
                .sample_path_with(Sampler::Rungwise, top, bottom, &mut rng, &mut p)
                .expect("valid rungs");
            black_box(p.num_changes())
        })
    });
    let s = PathSampler::new(1, Norm::L1, 0.5, 15.0).expect("valid range");
    let mut f = NoisePath::empty(1);
    g.bench_function("f64_n1_l1", |b| {
        b.iter(|| {
            s.sample_into(&mut rng, &mut f);
            black_box(f.len())
        })
    });
    g.finish();
}

criterion_group!(benches, draws, paths);
criterion_main!(benches);
