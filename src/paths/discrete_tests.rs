//! `path --noise discrete` (issue 25 item 2): the sample paths drawn from
//! the exact integer chain (memo `discrete.md` §2, §4) — rows at rungs, values
//! on the grid, the same rows on any pool — and the law at two rungs against
//! the discrete theory.

use super::PathSamples;
use crate::process::discrete::{Grid, NoiseKind, NoiseOptions, RngSource, theory};
use crate::process::{Norm, PathSampler};

fn options(k: i32) -> NoiseOptions {
    NoiseOptions {
        noise: NoiseKind::Discrete,
        granularity: Grid::from_exponent(k).unwrap(),
        ..NoiseOptions::default()
    }
}

/// Breakpoint rows: each sample starts at the rung of `eps_lo`, rises
/// through rungs only, every value a grid multiple; the same rows on any
/// pool, and sample k alone is the same path.
#[test]
fn rows_are_rungs_and_grid_multiples() {
    let sampler = PathSampler::new(3, Norm::L1, 0.3, 15.0).unwrap();
    let run = PathSamples::new(sampler)
        .samples(300)
        .seed(5)
        .noise(&options(-10))
        .unwrap();
    let noise = run.discrete_noise().unwrap().clone();
    let first = noise.eps_of(noise.rung_of(0.3).unwrap());
    assert!(first <= 0.3 && first > 0.3 * 0.97, "{first}");
    let rows = run.rows().unwrap();
    let mut want = Vec::new();
    for k in 0..300 {
        let p = run.discrete_sample(k).unwrap().unwrap();
        for (r, x) in p.breakpoints() {
            want.push((k, noise.eps_of(r), x.to_vec()));
        }
    }
    assert_eq!(rows.len(), want.len());
    let mut changes = 0;
    for (i, (row, (k, e, x))) in rows.iter().zip(&want).enumerate() {
        assert_eq!((row.sample, row.eps), (*k, *e));
        // The rung actually used: its own rung's level.
        assert_eq!(noise.eps_of(noise.rung_of(row.eps).unwrap()), row.eps);
        for (v, xi) in row.v.iter().zip(x) {
            assert_eq!(*v, *xi as f64 / 1024.0);
            assert_eq!((v * 1024.0).fract(), 0.0);
        }
        if i == 0 || rows[i - 1].sample != row.sample {
            assert_eq!(row.eps, first);
        } else {
            assert!(row.eps > rows[i - 1].eps);
            changes += 1;
        }
    }
    // Lazy: a path changes at few of the ≈ 180 rungs (n = 3: about 3·2·ln 50 ≈ 23).
    assert!(changes > 300 * 10 && changes < 300 * 40, "{changes}");
    for threads in [1, 2] {
        assert_eq!(
            crate::exec::on_threads(threads, || run.rows()).unwrap(),
            rows,
            "{threads}"
        );
    }
    // At levels: the rung of each level, the path's value there.
    let at = run.clone().at(vec![15.0, 0.3, 2.0]).rows().unwrap();
    assert_eq!(at.len(), 3 * 300);
    for (i, r) in at.iter().enumerate() {
        let rung = noise.rung_of([15.0, 0.3, 2.0][i % 3]).unwrap();
        assert_eq!(r.eps, noise.eps_of(rung));
        let p = run.discrete_sample(r.sample).unwrap().unwrap();
        let x: Vec<f64> = p
            .value_at(rung)
            .unwrap()
            .iter()
            .map(|&x| x as f64 / 1024.0)
            .collect();
        assert_eq!(r.v, x);
    }
    // The OS generator: not reproducible, still on rungs and the grid.
    let mut os = options(-10);
    os.rng = RngSource::Os;
    let os_rows = PathSamples::new(sampler)
        .samples(5)
        .noise(&os)
        .unwrap()
        .rows()
        .unwrap();
    assert!(
        os_rows
            .iter()
            .all(|r| r.v.iter().all(|v| (v * 1024.0).fract() == 0.0))
    );
}

/// The law at two rungs read from one path (γ = 2⁻³, Δ_Z = 8, from the
/// rung of 15 down to that of 0.5): P(X = 0) and E X² of each marginal
/// against DL(e^{−t}), and P(X₂ = X₀.₅) against the chain's atom (memo
/// §2), each within 6 standard errors computed from n.
#[test]
fn law_at_rungs_matches_the_discrete_theory() {
    let n = 20_000u64;
    let sampler = PathSampler::new(1, Norm::L1, 0.5, 15.0).unwrap();
    let run = PathSamples::new(sampler)
        .samples(n)
        .seed(11)
        .at(vec![2.0, 0.5])
        .noise(&options(-3))
        .unwrap();
    let noise = run.discrete_noise().unwrap().clone();
    assert_eq!(noise.delta_z(), 8);
    let rows = run.rows().unwrap();
    let nf = n as f64;
    let t: Vec<f64> = [2.0, 0.5]
        .iter()
        .map(|&e| noise.rate_f64(noise.rung_of(e).unwrap()))
        .collect();
    for (j, &tj) in t.iter().enumerate() {
        let x: Vec<f64> = rows
            .iter()
            .skip(j)
            .step_by(2)
            .map(|r| r.v[0] * 8.0)
            .collect();
        let p0 = theory::pmf(tj, 0);
        let zeros = x.iter().filter(|&&v| v == 0.0).count() as f64 / nf;
        let se0 = (p0 * (1.0 - p0) / nf).sqrt();
        assert!(
            (zeros - p0).abs() < 6.0 * se0,
            "rung {j}: P(0) {zeros} vs {p0}"
        );
        let m2 = x.iter().map(|v| v * v).sum::<f64>() / nf;
        let m4 = x.iter().map(|v| v.powi(4)).sum::<f64>() / nf;
        let se2 = ((m4 - m2 * m2) / nf).sqrt();
        let var = theory::variance(tj);
        assert!(
            (m2 - var).abs() < 6.0 * se2,
            "rung {j}: E X² {m2} vs {var} (se {se2})"
        );
    }
    let same = rows.chunks_exact(2).filter(|r| r[0].v == r[1].v).count() as f64 / nf;
    let atom = theory::atom(t[0], t[1]);
    let se = (atom * (1.0 - atom) / nf).sqrt();
    assert!(
        (same - atom).abs() < 6.0 * se,
        "P(X₂ = X₀.₅) {same} vs {atom}"
    );
}
