//! Privacy-loss audit (memo §5, §7 test 10): the two correlated loss
//! computations agree, the correlated loss never exceeds ε*Δ, its mean is the
//! KL divergence ε*Δ − 1 + e^{−ε*Δ}; independent noise exceeds ε*Δ; the
//! distinguishing attack's lower bound respects the truth; Clopper–Pearson
//! matches known values.

use super::support::{CorrelatedSampler, independent};
use privdiffuse::collusion::estimators::estimate;
use privdiffuse::collusion::stats::{beta_inc, clopper_pearson};
use privdiffuse::collusion::{
    Estimator, EstimatorScratch, LossSummary, MemberNoise, Norm, View, correlated_loss,
    correlated_loss_full_chain, distinguishing_lower_bound, gaussian_loss, independent_loss,
};
use privdiffuse::process::laplace::{laplace, std_normal};
use privdiffuse::{Purpose, rng_for};

const HETERO: [f64; 6] = [0.1, 0.2, 0.3, 0.5, 0.8, 1.0];

fn kl(x: f64) -> f64 {
    x - 1.0 + (-x).exp()
}

#[test]
fn correlated_loss_formulas_agree_with_the_full_chain() {
    let mut order = Vec::new();
    let mut worst: f64 = 0.0;
    for t in 0..3_000u64 {
        let mut rng = rng_for(41, 0, t, Purpose::Post);
        // 1–12 members, rates on a coarse grid so that ties (equal levels, equal
        // answers: atoms of the chain) occur often.
        let m = 1 + (t % 12) as usize;
        let rates: Vec<f64> = (0..m)
            .map(|j| 0.1 * (1 + (j * 7 + t as usize) % 9) as f64)
            .collect();
        let sampler = CorrelatedSampler::new(&rates);
        let u = 2.0 + laplace(&mut rng, 1.0);
        let delta = [1.0, 0.3, 2.5][(t % 3) as usize];
        // 1-D view.
        let mut y = vec![0.0; m];
        sampler.sample(&mut rng, u, &mut y);
        let a = correlated_loss(&y, 1, &rates, &[u], delta, Norm::L1);
        let b = correlated_loss_full_chain(&y, 1, &rates, u, delta, &mut order);
        assert!((a - b.loss).abs() <= 1e-9, "t={t}: {a} vs {}", b.loss);
        worst = worst.max((a - b.loss).abs());
        // ℓ1, n = 2: coordinates are independent 1-D paths; only coordinate 1
        // differs between u and u'.
        let mut c1 = vec![0.0; m];
        let mut c2 = vec![0.0; m];
        sampler.sample(&mut rng, u, &mut c1);
        sampler.sample(&mut rng, -1.0, &mut c2);
        let y2: Vec<f64> = c1.iter().zip(&c2).flat_map(|(p, q)| [*p, *q]).collect();
        let a = correlated_loss(&y2, 2, &rates, &[u, -1.0], delta, Norm::L1);
        let b = correlated_loss_full_chain(&y2, 2, &rates, u, delta, &mut order);
        assert!((a - b.loss).abs() <= 1e-9, "t={t} (ℓ1): {a} vs {}", b.loss);
        assert!(b.ln_p_u.is_finite() && b.ln_p_u1.is_finite());
    }
    assert!(worst < 1e-9);
}

#[test]
fn correlated_loss_is_bounded_and_its_mean_is_the_kl_divergence() {
    // Memo §7 test 10: ε* = 1, u = 3, u' = 4, N = 200k. L takes the value 1 when
    // y* ≤ u (prob 1/2), −1 when y* ≥ u' and 1 − 2t between: sd ≤ 1, so 6 s.e.
    // ≤ 6/sqrt(N) = 0.0134 (we use the sample sd).
    let n = 200_000u64;
    let rates = [0.3, 0.6, 1.0, 0.45];
    let sampler = CorrelatedSampler::new(&rates);
    let mut y = [0.0; 4];
    let mut losses = Vec::with_capacity(n as usize);
    for t in 0..n {
        let mut rng = rng_for(42, 0, t, Purpose::Path);
        sampler.sample(&mut rng, 3.0, &mut y);
        losses.push(correlated_loss(&y, 1, &rates, &[3.0], 1.0, Norm::L1));
    }
    let mean = losses.iter().sum::<f64>() / n as f64;
    let sd = (losses.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
    let s = LossSummary::from_samples(&mut losses);
    assert!(s.max <= 1.0, "max {} exceeds ε*Δ = 1", s.max);
    assert!(s.max_abs <= 1.0 * (1.0 + 1e-12));
    let expect = kl(1.0); // e^{-1} = 0.3679
    assert!(
        (s.mean - expect).abs() < 6.0 * sd / (n as f64).sqrt(),
        "mean {} vs {expect}",
        s.mean
    );
    // Half the views sit at the bound exactly (y* ≤ u): the 0.99 quantile is 1.
    assert_eq!(s.q99, 1.0);

    // Awkward magnitudes: rounding must never cross the bound (sign cases).
    let rates = [3.7, 0.9, 3.7 / 3.0];
    let sampler = CorrelatedSampler::new(&rates);
    let mut y = [0.0; 3];
    for (k, (u, delta)) in [(1e6 + 0.3, 0.1), (-7.25, 1e-9), (1e-300, 1e3)]
        .into_iter()
        .enumerate()
    {
        let bound = 3.7 * delta;
        for t in 0..20_000u64 {
            let mut rng = rng_for(43, k as u64, t, Purpose::Path);
            sampler.sample(&mut rng, u, &mut y);
            let l = correlated_loss(&y, 1, &rates, &[u], delta, Norm::L1);
            assert!(
                l.abs() <= bound * (1.0 + 1e-12),
                "u={u} Δ={delta}: |{l}| > {bound}"
            );
            assert!(l.abs() <= 3.7 * delta, "exceeds fl(ε*Δ)");
        }
    }
    // ℓ2, n = 3 (any view: the bound is the triangle inequality).
    let rates = [0.7, 2.0];
    for t in 0..20_000u64 {
        let mut rng = rng_for(44, 0, t, Purpose::Post);
        let y: Vec<f64> = (0..6).map(|_| 5.0 + 0.3 * laplace(&mut rng, 1.0)).collect();
        let l = correlated_loss(&y, 3, &rates, &[5.0, 5.0, 5.0], 0.3, Norm::L2);
        assert!(l.abs() <= 2.0 * 0.3, "ℓ2: {l}");
    }
}

#[test]
fn independent_loss_exceeds_the_correlated_bound_and_matches_its_kl() {
    // 20 × ε = 0.5, Δ = 1: E L = 20·kl(0.5) = 2.1306 (memo 2.1260 MC); 6 s.e. with
    // the sample sd. Max over 20k views must exceed ε*Δ = 0.5 (the bound is
    // Σε_jΔ = 10).
    for (rates, seed) in [
        (vec![0.5; 20], 51u64),
        (HETERO.to_vec(), 52),
        (vec![0.4, 0.5, 0.45, 0.5, 0.38], 53),
    ] {
        let n = 20_000u64;
        let eps_star = rates.iter().copied().fold(0.0, f64::max);
        let sum: f64 = rates.iter().sum();
        let mut y = vec![0.0; rates.len()];
        let mut losses = Vec::with_capacity(n as usize);
        for t in 0..n {
            let mut rng = rng_for(seed, 0, t, Purpose::Independent);
            independent(&mut rng, &rates, 3.0, &mut y);
            losses.push(independent_loss(&y, 1, &rates, &[3.0], 1.0, Norm::L1));
        }
        let mean = losses.iter().sum::<f64>() / n as f64;
        let sd = (losses.iter().map(|l| (l - mean).powi(2)).sum::<f64>() / (n - 1) as f64).sqrt();
        let s = LossSummary::from_samples(&mut losses);
        let expect: f64 = rates.iter().map(|&e| kl(e)).sum();
        assert!(
            (s.mean - expect).abs() < 6.0 * sd / (n as f64).sqrt(),
            "{rates:?}: {} vs {expect}",
            s.mean
        );
        assert!(s.max <= sum * (1.0 + 1e-12));
        if rates.len() >= 5 && rates.iter().all(|&e| e >= 0.3 * eps_star) {
            assert!(
                s.max > eps_star,
                "{rates:?}: max {} ≤ ε* = {eps_star}",
                s.max
            );
        }
    }
}

#[test]
fn gaussian_loss_is_normal_with_mean_mu_and_variance_two_mu() {
    // σ* = 0.8, Δ = 1: μ = 1/(2·0.64) = 0.78125, Var = 2μ; N = 50k, 6 s.e.
    let sig = [2.0, 0.8, 1.5];
    let n = 50_000u64;
    let mu = 1.0 / (2.0 * 0.64);
    let mut sum = 0.0;
    let mut sum2 = 0.0;
    for t in 0..n {
        let mut rng = rng_for(61, 0, t, Purpose::Gaussian);
        // Only the best member's answer matters; the others get arbitrary values.
        let y = [9.0, 1.0 + 0.8 * std_normal(&mut rng), -4.0];
        let l = gaussian_loss(&y, 1, &sig, &[1.0], 1.0);
        sum += l;
        sum2 += l * l;
    }
    let nf = n as f64;
    let mean = sum / nf;
    let var = sum2 / nf - mean * mean;
    assert!(
        (mean - mu).abs() < 6.0 * (2.0 * mu / nf).sqrt(),
        "{mean} vs {mu}"
    );
    // Var of the sample variance of a normal: 2σ⁴/(N−1).
    assert!(
        (var - 2.0 * mu).abs() < 6.0 * 2.0 * mu * (2.0 / nf).sqrt(),
        "{var} vs {}",
        2.0 * mu
    );
}

#[test]
fn clopper_pearson_known_values() {
    // Reference values: exact binomial tails solved by bisection (Python).
    let cases = [
        (0u64, 100u64, 0.0, 0.036_216_692_645_176_41),
        (5, 100, 0.016_431_879_182_052_19, 0.112_834_911_105_462_79),
        (50, 1000, 0.037_335_397_604_661_81, 0.065_390_487_915_493_68),
        (3, 20, 0.032_070_937_183_465_46, 0.378_926_826_545_313_9),
    ];
    for (k, n, lo, hi) in cases {
        let (a, b) = clopper_pearson(k, n, 0.95);
        assert!(
            (a - lo).abs() < 1e-9 && (b - hi).abs() < 1e-9,
            "{k}/{n}: ({a}, {b}) vs ({lo}, {hi})"
        );
    }
    assert_eq!(clopper_pearson(7, 7, 0.95).1, 1.0);
    // I_p(k+1, n−k) = P(Bin(n, p) ≥ k+1): check at p = 0.3, n = 10, k = 2.
    let p: f64 = 0.3;
    let tail: f64 = (3..=10)
        .map(|i| {
            let c = (1..=10).product::<u64>()
                / ((1..=i).product::<u64>() * (1..=(10 - i)).product::<u64>());
            c as f64 * p.powi(i as i32) * (1.0 - p).powi(10 - i as i32)
        })
        .sum();
    assert!((beta_inc(p, 3.0, 8.0) - tail).abs() < 1e-13);
    // Large counts (the audit's T ~ 1e4–1e5) stay accurate: 0/1e5 has the
    // closed form 1 − 0.025^{1/n}.
    let n = 100_000u64;
    let exact = -(0.025f64.ln() / n as f64).exp_m1();
    assert!((clopper_pearson(0, n, 0.95).1 - exact).abs() < 1e-12);
}

/// Pitman estimates (independent-Laplace model) of T views under u and under
/// u + Δ, for the attack.
fn pitman_estimates(rates: &[f64], correlated: bool, u: f64, trials: u64, seed: u64) -> Vec<f64> {
    let sampler = CorrelatedSampler::new(rates);
    let mut y = vec![0.0; rates.len()];
    let mut scratch = EstimatorScratch::new();
    let mut out = [0.0];
    (0..trials)
        .map(|t| {
            let mut rng = rng_for(seed, 0, t, Purpose::Post);
            if correlated {
                sampler.sample(&mut rng, u, &mut y);
            } else {
                independent(&mut rng, rates, u, &mut y);
            }
            let view = View::new(&y, 1, MemberNoise::Laplace { rates }).unwrap();
            estimate(Estimator::Pitman, &view, &mut scratch, &mut out);
            out[0]
        })
        .collect()
}

#[test]
fn distinguishing_attack_bounds_respect_the_truth() {
    let trials = 5_000;
    // Correlated, ε* = 1, Δ = 1: the lower bound must not exceed 1 (a 95%
    // statement; with a fixed seed it is deterministic).
    let rates = [0.2, 0.5, 1.0, 0.7, 0.35];
    let a = pitman_estimates(&rates, true, 3.0, trials, 71);
    let b = pitman_estimates(&rates, true, 4.0, trials, 72);
    let d = distinguishing_lower_bound(&a, &b, 3.0, 1.0);
    assert!(d.eps_lower_bound <= 1.0, "correlated: {d:?}");
    assert_eq!(d.threshold, 3.5);
    assert_eq!((d.trials_u, d.trials_u1), (trials, trials));
    // Independent, 20 × 0.5 (ε* = 0.5, Σε = 10): Pitman s.d. ≈ 0.5, so the
    // midpoint test errs ≈ 16% each way → ln(0.84/0.16) ≈ 1.6 ≫ ε* = 0.5.
    let rates = [0.5; 20];
    let a = pitman_estimates(&rates, false, 3.0, trials, 73);
    let b = pitman_estimates(&rates, false, 4.0, trials, 74);
    let d = distinguishing_lower_bound(&a, &b, 3.0, 1.0);
    assert!(d.eps_lower_bound > 0.5, "independent: {d:?}");
    assert!(d.eps_lower_bound <= 10.0);
}
