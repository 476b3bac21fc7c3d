//! The simulation against the closed forms, end to end through the library:
//! per-bucket MSE vs theory, equal marginals of the two mechanisms, bit
//! post-processing accuracy, range extremes, determinism, atomic outputs.
//!
//! Answers of one owner at one distance share one path value, so the
//! effective sample size of a bucket is its number of owners; the tolerances
//! use the owner-clustered standard error `mse_se` the tool reports.

use privdiffuse::distance::Distances;
use privdiffuse::graph::{GeometricParam, Graph, generate};
use privdiffuse::sim::{ByDistanceRow, Plan, SimConfig, simulate};
use std::path::PathBuf;

fn geometric(n: usize, seed: u64) -> Graph {
    generate::geometric(n, GeometricParam::TargetEdges(6 * n as u64), seed)
        .unwrap()
        .0
}

fn run(graph: &Graph, config: &SimConfig) -> Vec<ByDistanceRow> {
    let d = Distances::new(graph, config.distance, &config.distance_options).unwrap();
    let plan = Plan::new(config, graph, &d).unwrap();
    simulate(&plan).unwrap().rows
}

fn base(dim: usize, norm: &str, mechanism: &str) -> SimConfig {
    SimConfig {
        graph: PathBuf::from("unused.edges"),
        eps: "exp:a=2.5,b=0.6".parse().unwrap(),
        dim,
        norm: norm.parse().unwrap(),
        mechanism: mechanism.parse().unwrap(),
        values: "uniform:0,1".parse().unwrap(),
        seed: 11,
        ..SimConfig::default()
    }
}

/// Every bucket with enough owners: |mse − theory| ≤ 5 clustered s.e.
fn check_theory(rows: &[ByDistanceRow], min_count: u64) -> usize {
    let mut checked = 0;
    for r in rows
        .iter()
        .filter(|r| r.count >= min_count && r.mse_se.is_finite())
    {
        let z = (r.mse - r.mse_theory) / r.mse_se;
        assert!(
            z.abs() < 5.0,
            "{} d={}: mse {} vs theory {} (se {}, z {z})",
            r.mechanism,
            r.distance_lo,
            r.mse,
            r.mse_theory,
            r.mse_se
        );
        checked += 1;
    }
    checked
}

#[test]
fn mse_matches_theory_l1_and_l2() {
    let g = geometric(600, 3);
    for (dim, norm) in [(1, "l1"), (3, "l1"), (2, "l2")] {
        let rows = run(&g, &base(dim, norm, "both"));
        let checked = check_theory(&rows, 2000);
        assert!(checked >= 6, "{dim} {norm}: only {checked} buckets checked");
    }
}

#[test]
fn a_wrong_sampler_would_fail_the_theory_check() {
    // Guard against a check that cannot fail: doubling ε halves the noise
    // scale, so comparing those answers with the original theory must fail.
    let g = geometric(600, 3);
    let cfg = base(1, "l1", "correlated");
    let rows = run(&g, &cfg);
    let mut cfg2 = cfg.clone();
    cfg2.eps = "exp:a=3.2,b=0.6".parse().unwrap(); // ε × 2
    let rows2 = run(&g, &cfg2);
    let mut worst: f64 = 0.0;
    for (a, b) in rows.iter().zip(&rows2) {
        if a.count >= 2000 && b.mse_se.is_finite() {
            worst = worst.max(((b.mse - a.mse_theory) / b.mse_se).abs());
        }
    }
    assert!(worst > 5.0, "{worst}");
}

#[test]
fn correlated_and_independent_share_marginals() {
    let g = geometric(600, 5);
    let rows = run(&g, &base(2, "l2", "both"));
    let (c, i): (Vec<_>, Vec<_>) = rows.iter().partition(|r| r.mechanism == "correlated");
    assert_eq!(c.len(), i.len());
    for (a, b) in c.iter().zip(&i) {
        assert_eq!(a.distance_lo, b.distance_lo);
        assert_eq!(a.count, b.count);
        assert_eq!(a.mean_eps, b.mean_eps);
        assert_eq!(a.mse_theory, b.mse_theory);
        if a.count >= 2000 {
            let se = (a.mse_se.powi(2) + b.mse_se.powi(2)).sqrt();
            assert!(((a.mse - b.mse) / se).abs() < 5.0, "d={}", a.distance_lo);
        }
    }
}

#[test]
fn bit_post_processing_accuracy() {
    // u ∈ {0,1}, answer 1 iff u + V ≥ 1/2: P(answer = u) = 1 − ½e^{−ε/2} (1-D Laplace).
    let g = geometric(600, 7);
    let mut cfg = base(1, "l1", "both");
    cfg.values = "bits:0.5".parse().unwrap();
    cfg.post = "bit".parse().unwrap();
    cfg.eps = "exp:a=1.5,b=0.4".parse().unwrap();
    let rows = run(&g, &cfg);
    let owners = g.n() as f64;
    let mut checked = 0;
    for r in rows.iter().filter(|r| r.count >= 3000) {
        let p = 1.0 - 0.5 * (-r.mean_eps / 2.0).exp();
        let got = r.post_exact.unwrap();
        // Conservative s.e.: the owner is the cluster for both mechanisms.
        let se = (p * (1.0 - p) / owners.min(r.count as f64)).sqrt();
        assert!(
            (got - p).abs() < 5.0 * se,
            "d={} got {got} expected {p}",
            r.distance_lo
        );
        checked += 1;
    }
    assert!(checked >= 6);
}

#[test]
fn range_map_hits_extremes_exactly() {
    let g = geometric(300, 9);
    let mut cfg = base(1, "l1", "correlated");
    cfg.eps = "range:0.5..15".parse().unwrap();
    let rows = run(&g, &cfg);
    let first = rows.first().unwrap();
    let last = rows.iter().rfind(|r| r.mechanism == "correlated").unwrap();
    assert_eq!(first.mean_eps, 15.0);
    assert_eq!(last.mean_eps, 0.5);
}

#[test]
fn continuous_distances_use_bins() {
    let g = geometric(200, 13);
    let mut cfg = base(1, "l1", "both");
    cfg.distance = "resistance".parse().unwrap();
    cfg.eps = "recip:c=2".parse().unwrap();
    cfg.bins = 8;
    let rows = run(&g, &cfg);
    let corr: Vec<_> = rows
        .iter()
        .filter(|r| r.mechanism == "correlated")
        .collect();
    assert!(corr.len() <= 8 && corr.len() >= 4);
    for w in corr.windows(2) {
        assert!(w[0].distance_hi <= w[1].distance_lo + 1e-12);
    }
    let total: u64 = corr.iter().map(|r| r.count).sum();
    assert_eq!(total, 200 * 199);
}

#[test]
fn same_seed_same_numbers_any_thread_count() {
    let g = geometric(400, 17);
    let cfg = base(2, "l2", "both");
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| run(&g, &cfg));
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(|| run(&g, &cfg));
    assert_eq!(one, two);
    let mut other = cfg.clone();
    other.seed = 12;
    assert_ne!(run(&g, &other), one);
}

#[test]
fn gaussian_mechanism_matches_n_sigma_squared() {
    let g = geometric(600, 19);
    let mut cfg = base(2, "l2", "gaussian");
    cfg.delta = 1e-5;
    let rows = run(&g, &cfg);
    assert!(rows.iter().all(|r| r.mechanism == "gaussian"));
    // mse_theory = n σ(ε, δ)²: at ε = e^{2.5−0.6} (hop 1), analytic σ from the
    // calibration module.
    let r1 = &rows[0];
    let sigma = privdiffuse::process::Calibration::Analytic
        .sigma(r1.mean_eps, 1e-5, 1.0)
        .unwrap();
    assert!((r1.mse_theory - 2.0 * sigma * sigma).abs() < 1e-9 * r1.mse_theory);
    assert!(check_theory(&rows, 2000) >= 6);
}

#[test]
fn per_answer_outputs_do_not_change_the_aggregates() {
    // The independent baseline has a summed fast path when no per-answer
    // output is requested; both routes must draw the same numbers.
    let g = geometric(300, 23);
    for (dim, norm) in [(1, "l1"), (2, "l2")] {
        let cfg = base(dim, norm, "both");
        let d = Distances::new(&g, cfg.distance, &cfg.distance_options).unwrap();
        let plan = Plan::new(&cfg, &g, &d).unwrap();
        let plain = simulate(&plan).unwrap();
        let mut responses: Vec<privdiffuse::sim::ResponseRow> = Vec::new();
        let mut ego: Vec<privdiffuse::sim::EgoRow> = Vec::new();
        let mut sinks = privdiffuse::sim::Sinks {
            responses: Some(&mut responses),
            ego: Some(&mut ego),
            ..Default::default()
        };
        let full = plan
            .run(&mut sinks, &privdiffuse::Control::default())
            .unwrap();
        assert_eq!(plain.rows, full.rows);
        // One row per answer and mechanism.
        assert_eq!(responses.len() as u64, full.counts.responses);
        assert_eq!(ego.len(), g.n() - 1); // n − 1 recipients
    }
}
