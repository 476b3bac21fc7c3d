use super::*;
use crate::process::Norm;

#[test]
fn rows_are_each_samples_breakpoints_in_order_on_any_pool() {
    // n = 50, ℓ2 on [0.5, 15]: ≈ 175 rows a sample, 4 samples a chunk,
    // 50 chunks: two waves.
    let sampler = PathSampler::new(50, Norm::L2, 0.5, 15.0).unwrap();
    let run = PathSamples::new(sampler).samples(200).seed(7);
    assert_eq!(run.chunk_size(), 4);
    let mut want = Vec::new();
    for k in 0..200 {
        let p = sampler.sample(&mut rng_for(7, k, 0, Purpose::Path));
        for (e, v) in p.breakpoints() {
            want.push(PathSampleRow {
                sample: k,
                eps: e,
                v: v.to_vec(),
            });
        }
    }
    for threads in [1, 2, 3] {
        assert_eq!(
            crate::exec::on_threads(threads, || run.rows()).unwrap(),
            want,
            "{threads}"
        );
    }
    // At levels: one row per sample and level, in the order asked.
    let at = run.clone().at(vec![15.0, 0.5, 2.0]).rows().unwrap();
    assert_eq!(at.len(), 3 * 200);
    for (i, r) in at.iter().enumerate() {
        let k = (i / 3) as u64;
        assert_eq!(r.sample, k);
        assert_eq!(r.eps, [15.0, 0.5, 2.0][i % 3]);
        assert_eq!(r.v, run.sample(k).value_at(r.eps));
    }
}

/// ℓ1, n = 1 on [0.5, 15]: jumps are Poisson with mean 2 ln 30 (rows per
/// sample 1 + that), and no jump in [1, 2] has probability (1/2)² = 1/4.
/// Tolerances: 6 standard errors at n = 20 000 samples.
#[test]
fn jump_counts_and_atoms_follow_the_closed_forms() {
    let n = 20_000u64;
    let sampler = PathSampler::new(1, Norm::L1, 0.5, 15.0).unwrap();
    let run = PathSamples::new(sampler).samples(n).seed(5);
    let rows = run.rows().unwrap();
    let mean = 2.0 * 30f64.ln();
    let per_sample = rows.len() as f64 / n as f64;
    assert!(
        (per_sample - 1.0 - mean).abs() < 6.0 * (mean / n as f64).sqrt(),
        "{per_sample}"
    );
    assert!((run.expected_rows_per_sample() - 1.0 - mean).abs() < 1e-12);
    let at = run.at(vec![1.0, 2.0]).rows().unwrap();
    let same = at.chunks(2).filter(|p| p[0].v == p[1].v).count() as f64 / n as f64;
    assert!(
        (same - 0.25).abs() < 6.0 * (0.25f64 * 0.75 / n as f64).sqrt(),
        "{same}"
    );
}

#[test]
fn refusals_name_the_parameter_before_any_row() {
    let sampler = PathSampler::new(1, Norm::L1, 0.5, 15.0).unwrap();
    let name = |run: PathSamples| -> String {
        let mut rows = Vec::new();
        match run.run_into(&mut rows).unwrap_err() {
            Error::Parameter { name, .. } => {
                assert!(rows.is_empty());
                name
            }
            other => panic!("{other:?}"),
        }
    };
    let base = PathSamples::new(sampler);
    assert_eq!(name(base.clone().samples(0)), "samples");
    assert_eq!(name(base.clone().samples(MAX_SAMPLES + 1)), "samples");
    assert_eq!(name(base.clone().samples(u64::MAX)), "samples");
    assert_eq!(name(base.clone().at(vec![])), "at");
    assert_eq!(name(base.clone().at(vec![1.0, 16.0])), "at");
    assert_eq!(name(base.clone().at(vec![0.4])), "at");
    assert_eq!(name(base.clone().at(vec![f64::NAN])), "at");
    assert!(base.samples(MAX_SAMPLES).validate().is_ok());
}
