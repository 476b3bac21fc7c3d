//! Statistical acceptance tests for gradual release (memo §7 tests 5, 6, 9,
//! §1e, §2.4, §3, §4). Fixed seeds; every tolerance is ~6 standard errors of
//! the statistic at the sample size used (formula next to each check); KS
//! tests use p > 1e−4.

use crate::support::scratch::scratch;
use privdiffuse::process::backward::{backward_two_point, backward_two_point_l2};
use privdiffuse::process::bridge::bridge_1d;
use privdiffuse::process::calibration::{Calibration, normal_cdf};
use privdiffuse::process::forward::{
    forward_latent, latent_posterior, latent_prior, relax_case_probs, relax_privacy,
};
use privdiffuse::process::gaussian::{self, BrownianPath};
use privdiffuse::process::laplace::{laplace, std_normal};
use privdiffuse::process::{GradualRelease, NoisePath, Norm, PathSampler, ReleaseNoise};
use privdiffuse::rng::{Purpose, rng_for};
use std::path::Path;

// ---------- helpers ----------

/// Asymptotic Kolmogorov p-value for statistic `d` with effective size `ne`
/// (Stephens' small-sample correction).
fn ks_p(d: f64, ne: f64) -> f64 {
    let l = (ne.sqrt() + 0.12 + 0.11 / ne.sqrt()) * d;
    if l < 0.3 {
        return 1.0;
    }
    let mut s = 0.0;
    for k in 1..200 {
        let t = 2.0 * if k % 2 == 1 { 1.0 } else { -1.0 } * (-2.0 * (k * k) as f64 * l * l).exp();
        s += t;
        if t.abs() < 1e-16 {
            break;
        }
    }
    s.clamp(0.0, 1.0)
}

/// One-sample KS p-value of `xs` against a continuous CDF.
fn ks_one(xs: &[f64], cdf: impl Fn(f64) -> f64) -> f64 {
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let n = v.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &x) in v.iter().enumerate() {
        let f = cdf(x);
        d = d.max((i as f64 + 1.0) / n - f).max(f - i as f64 / n);
    }
    ks_p(d, n)
}

/// Two-sample KS p-value (ties handled by stepping past equal values;
/// conservative when the law has atoms).
fn ks_two(a: &[f64], b: &[f64]) -> f64 {
    let mut a = a.to_vec();
    let mut b = b.to_vec();
    a.sort_by(f64::total_cmp);
    b.sort_by(f64::total_cmp);
    let (na, nb) = (a.len(), b.len());
    let (mut i, mut j, mut d) = (0usize, 0usize, 0.0f64);
    while i < na && j < nb {
        let x = a[i].min(b[j]);
        while i < na && a[i] <= x {
            i += 1;
        }
        while j < nb && b[j] <= x {
            j += 1;
        }
        d = d.max((i as f64 / na as f64 - j as f64 / nb as f64).abs());
    }
    let ne = (na * nb) as f64 / (na + nb) as f64;
    ks_p(d, ne)
}

fn laplace_cdf(eps: f64) -> impl Fn(f64) -> f64 {
    move |x| {
        if x < 0.0 {
            0.5 * (eps * x).exp()
        } else {
            1.0 - 0.5 * (-eps * x).exp()
        }
    }
}

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

fn corr(x: &[f64], y: &[f64]) -> f64 {
    let (mx, my) = (mean(x), mean(y));
    let (mut sxy, mut sxx, mut syy) = (0.0, 0.0, 0.0);
    for (a, b) in x.iter().zip(y) {
        sxy += (a - mx) * (b - my);
        sxx += (a - mx) * (a - mx);
        syy += (b - my) * (b - my);
    }
    sxy / (sxx * syy).sqrt()
}

fn close(what: &str, got: f64, want: f64, tol: f64) {
    assert!(
        (got - want).abs() <= tol,
        "{what}: got {got}, expected {want} ± {tol}"
    );
}

/// 6 s.e. of a proportion p from n draws.
fn tol_p(p: f64, n: usize) -> f64 {
    6.0 * (p * (1.0 - p) / n as f64).sqrt()
}

// ---------- RELAXPRIVACY (memo §1d, §7 tests 5, 6) ----------

#[test]
fn relax_case_probabilities_sum_to_one() {
    for &x in &[0.0, 1e-300, -1e-300, 1.0, -1.0, 700.0, -700.0] {
        for &(e1, e2) in &[(1.0, 2.0), (0.5, 4.0), (2.0, 2.000001)] {
            let s: f64 = relax_case_probs(x, e1, e2).iter().sum();
            assert!((s - 1.0).abs() < 1e-12, "x={x}: {s}");
        }
    }
}

/// Joint statistics of (V1, V2) at (ε1, ε2) = (1, 2) (memo §1e table).
struct Pair {
    v1: Vec<f64>,
    v2: Vec<f64>,
}

impl Pair {
    fn check(&self, name: &str) {
        let n = self.v1.len();
        let nf = n as f64;
        let (e1, e2) = (1.0, 2.0);
        let q: f64 = (e1 / e2) * (e1 / e2);
        let d: Vec<f64> = self.v1.iter().zip(&self.v2).map(|(a, b)| a - b).collect();
        // P(V1 = V2) = q; s.e. sqrt(q(1−q)/N).
        let eq = self.v1.iter().zip(&self.v2).filter(|(a, b)| a == b).count() as f64 / nf;
        close(&format!("{name} P(eq)"), eq, q, tol_p(q, n));
        // E D² = (1−q)·2/ε1² = 1.5; Var D² = (1−q)·24/ε1⁴ − 1.5² = 15.75 → s.e. sqrt(15.75/N).
        let m2 = d.iter().map(|x| x * x).sum::<f64>() / nf;
        close(
            &format!("{name} E(V1−V2)²"),
            m2,
            2.0 / (e1 * e1) - 2.0 / (e2 * e2),
            6.0 * (15.75 / nf).sqrt(),
        );
        // E|D| = (1−q)/ε1 = 0.75; Var |D| = 1.5 − 0.75² → s.e. sqrt(0.9375/N).
        let m1 = d.iter().map(|x| x.abs()).sum::<f64>() / nf;
        close(
            &format!("{name} E|V1−V2|"),
            m1,
            (1.0 - q) / e1,
            6.0 * (0.9375 / nf).sqrt(),
        );
        // P(sgn V1 = sgn V2) = q + (1−q)(1 − ε2/(2(ε1+ε2))) = 0.75.
        let ps = q + (1.0 - q) * (1.0 - e2 / (2.0 * (e1 + e2)));
        let same = self
            .v1
            .iter()
            .zip(&self.v2)
            .filter(|(a, b)| a.signum() == b.signum())
            .count() as f64
            / nf;
        close(&format!("{name} P(same sign)"), same, ps, tol_p(ps, n));
        // Corr = ε1/ε2; s.e. of a sample correlation of heavy-ish tails ≈ 2/√N (memo §7: 0.002 at 2e5).
        close(
            &format!("{name} corr"),
            corr(&self.v1, &self.v2),
            e1 / e2,
            6.0 * 2.0 / nf.sqrt(),
        );
        // Marginals.
        assert!(
            ks_one(&self.v1, laplace_cdf(e1)) > 1e-4,
            "{name} V1 marginal"
        );
        assert!(
            ks_one(&self.v2, laplace_cdf(e2)) > 1e-4,
            "{name} V2 marginal"
        );
    }
}

const N_PAIR: usize = 200_000;

fn pairs_path() -> Pair {
    let s = PathSampler::new(1, Norm::L1, 1.0, 2.0).unwrap();
    let mut rng = rng_for(101, 0, 0, Purpose::Path);
    let mut p = NoisePath::empty(1);
    let (mut v1, mut v2) = (Vec::with_capacity(N_PAIR), Vec::with_capacity(N_PAIR));
    for _ in 0..N_PAIR {
        s.sample_into(&mut rng, &mut p);
        v1.push(p.value_at(1.0)[0]);
        v2.push(p.value_at(2.0)[0]);
    }
    Pair { v1, v2 }
}

fn pairs_eq28() -> Pair {
    let mut rng = rng_for(102, 0, 0, Purpose::Release);
    let (mut v1, mut v2) = (Vec::with_capacity(N_PAIR), Vec::with_capacity(N_PAIR));
    for _ in 0..N_PAIR {
        let y = laplace(&mut rng, 0.5);
        v2.push(y);
        v1.push(backward_two_point(y, 1.0, 2.0, &mut rng));
    }
    Pair { v1, v2 }
}

fn pairs_forward() -> Pair {
    let mut rng = rng_for(103, 0, 0, Purpose::Release);
    let (mut v1, mut v2) = (Vec::with_capacity(N_PAIR), Vec::with_capacity(N_PAIR));
    for _ in 0..N_PAIR {
        let x = laplace(&mut rng, 1.0);
        v1.push(x);
        v2.push(relax_privacy(x, 1.0, 2.0, &mut rng));
    }
    Pair { v1, v2 }
}

/// Memo §7 tests 5 and 6, §1e: RELAXPRIVACY from x ~ Lap(1) gives y ~ Lap(1/2),
/// P(y = x) = 1/4, and the same joint law as eq. 28 and the path sampler.
#[test]
fn relax_eq28_and_path_agree() {
    let path = pairs_path();
    let eq28 = pairs_eq28();
    let fwd = pairs_forward();
    path.check("path");
    eq28.check("eq28");
    fwd.check("relax");
    let diff = |p: &Pair| -> Vec<f64> { p.v1.iter().zip(&p.v2).map(|(a, b)| a - b).collect() };
    let prod = |p: &Pair| -> Vec<f64> { p.v1.iter().zip(&p.v2).map(|(a, b)| a * b).collect() };
    let p = ks_two(&diff(&fwd), &diff(&path));
    assert!(p > 1e-4, "KS V1−V2 relax vs path: p = {p}");
    let p = ks_two(&diff(&eq28), &diff(&fwd));
    assert!(p > 1e-4, "KS V1−V2 eq28 vs relax: p = {p}");
    let p = ks_two(&prod(&fwd), &prod(&path));
    assert!(p > 1e-4, "KS V1·V2 relax vs path: p = {p}");
}

/// The n-dim ℓ2 two-point backward law (memo §2): P(no jump) = (ε1/ε2)^{n+1},
/// E‖V1 − V2‖² = 2n/ε1² − 2n/ε2²... per jump E‖J‖² = 2n/ε_j²; check the
/// marginal E‖V1‖² = n(n+1)/ε1² instead (exact).
#[test]
fn backward_two_point_l2_law() {
    let n = 2usize;
    let (e1, e2) = (1.0f64, 2.0f64);
    let big_n = 100_000;
    let mut rng = rng_for(104, 0, 0, Purpose::Release);
    let (mut eq, mut m2) = (0usize, 0.0);
    let mut v2 = vec![0.0; n];
    let mut v1 = vec![0.0; n];
    for _ in 0..big_n {
        privdiffuse::process::sample_marginal(Norm::L2, e2, &mut v2, &mut rng);
        backward_two_point_l2(&v2, e1, e2, &mut v1, &mut rng);
        eq += (v1 == v2) as usize;
        m2 += v1.iter().map(|x| x * x).sum::<f64>();
    }
    let p = (e1 / e2).powi(n as i32 + 1);
    close(
        "ℓ2 backward P(eq)",
        eq as f64 / big_n as f64,
        p,
        tol_p(p, big_n),
    );
    // ‖V‖² for ℓ2 n=2 at ε=1: r ~ Gamma(2,1), E r² = 6, E r⁴ = 120 → sd sqrt(84).
    close(
        "ℓ2 backward E‖V1‖²",
        m2 / big_n as f64,
        6.0,
        6.0 * (84.0 / big_n as f64).sqrt(),
    );
}

// ---------- chains through GradualRelease (memo §3) ----------

const LEVELS: [f64; 5] = [0.3, 0.7, 1.0, 2.5, 6.0];

fn chain_check(norm: Norm, dim: usize, order: &[f64], seed: u64, trials: usize) {
    let k = LEVELS.len();
    // samples[level index][trial] = released vector (value 0, so y = noise)
    let mut samples: Vec<Vec<Vec<f64>>> = (0..k).map(|_| Vec::with_capacity(trials)).collect();
    for t in 0..trials {
        let mut g = GradualRelease::new(vec![0.0; dim], ReleaseNoise::Laplace { norm }, 1.0, seed)
            .unwrap()
            .with_stream(t as u64);
        for &e in order {
            let y = g.release(e).unwrap();
            let i = LEVELS.iter().position(|&l| l == e).unwrap();
            samples[i].push(y);
        }
        assert_eq!(g.privacy_level(), Some(6.0));
    }
    let tag = format!("{norm} n={dim} order {order:?}");
    // Atom exponent: 2 per ℓ1 coordinate (all coordinates equal: 2n), n+1 for ℓ2.
    let expo = match norm {
        Norm::L1 => 2.0 * dim as f64,
        Norm::L2 => dim as f64 + 1.0,
    };
    for i in 0..k {
        for j in i + 1..k {
            let p = (LEVELS[i] / LEVELS[j]).powf(expo);
            let eq = samples[i]
                .iter()
                .zip(&samples[j])
                .filter(|(a, b)| a == b)
                .count() as f64
                / trials as f64;
            close(
                &format!("{tag}: P(V_{} = V_{})", LEVELS[i], LEVELS[j]),
                eq,
                p,
                tol_p(p, trials).max(6.0 / trials as f64),
            );
        }
        // E‖V‖² = mse_factor/ε². s.e.: ℓ1 1-D sd(V²) = sqrt(20)/ε²; ℓ2 n=2
        // sd(‖V‖²) = sqrt(84)/ε²; ℓ1 n=2 sd = sqrt(2·20)/ε².
        let e = LEVELS[i];
        let m2 = samples[i]
            .iter()
            .map(|y| y.iter().map(|x| x * x).sum::<f64>())
            .sum::<f64>()
            / trials as f64;
        let sd = match (norm, dim) {
            (Norm::L2, 2) => 84f64.sqrt(),
            _ => (20.0 * dim as f64).sqrt(),
        } / (e * e);
        close(
            &format!("{tag}: E‖V_{e}‖²"),
            m2,
            norm.mse_factor(dim) / (e * e),
            6.0 * sd / (trials as f64).sqrt(),
        );
        // Exact marginal: KS of the first coordinate (ℓ1) or the radius (ℓ2 n=2: Gamma(2, 1/ε)).
        let p = match norm {
            Norm::L1 => ks_one(
                &samples[i].iter().map(|y| y[0]).collect::<Vec<_>>(),
                laplace_cdf(e),
            ),
            Norm::L2 => ks_one(
                &samples[i]
                    .iter()
                    .map(|y| y.iter().map(|x| x * x).sum::<f64>().sqrt())
                    .collect::<Vec<_>>(),
                |r| 1.0 - (-e * r).exp() * (1.0 + e * r),
            ),
        };
        assert!(p > 1e-4, "{tag}: KS marginal at ε={e}: p = {p}");
    }
}

const ORDERS: [[f64; 5]; 3] = [
    [0.3, 0.7, 1.0, 2.5, 6.0],
    [6.0, 2.5, 1.0, 0.7, 0.3],
    [1.0, 6.0, 0.3, 2.5, 0.7],
];

#[test]
fn chains_any_order_1d() {
    for (o, order) in ORDERS.iter().enumerate() {
        chain_check(Norm::L1, 1, order, 200 + o as u64, 60_000);
    }
}

#[test]
fn chains_any_order_l2_n2() {
    for (o, order) in ORDERS.iter().enumerate() {
        chain_check(Norm::L2, 2, order, 210 + o as u64, 40_000);
    }
}

#[test]
fn chains_any_order_l1_n2() {
    // ℓ1 in n dims: one latent per coordinate going up, merged jumps going down.
    chain_check(Norm::L1, 2, &ORDERS[2], 220, 40_000);
}

// ---------- latent forward step (memo §2.4) ----------

#[test]
fn l2_forward_latent_step() {
    let (e1, e2) = (0.7f64, 2.0f64);
    let big_n = 100_000;
    for n in [2usize, 4] {
        let mut rng = rng_for(300 + n as u64, 0, 0, Purpose::Release);
        let (mut no_jump, mut jumps, mut m2) = (0usize, 0usize, 0.0);
        let mut radii = Vec::with_capacity(big_n);
        let mut v = vec![0.0; n];
        for _ in 0..big_n {
            let mut s = latent_prior(e1, n, &mut rng);
            for x in v.iter_mut() {
                *x = s.sqrt() * std_normal(&mut rng);
            }
            let k = forward_latent(e1, &mut s, &mut v, e2, &mut rng, |_, _| {});
            no_jump += (k == 0) as usize;
            jumps += k;
            let r2: f64 = v.iter().map(|x| x * x).sum();
            m2 += r2;
            radii.push(r2.sqrt());
        }
        let nf = big_n as f64;
        let p = (e1 / e2).powi(n as i32 + 1);
        close(
            &format!("n={n} P(no jump)"),
            no_jump as f64 / nf,
            p,
            tol_p(p, big_n),
        );
        // Jump count ~ Poisson(λ), λ = (n+1) ln(ε2/ε1); s.e. sqrt(λ/N).
        let lam = (n as f64 + 1.0) * (e2 / e1).ln();
        close(
            &format!("n={n} jumps"),
            jumps as f64 / nf,
            lam,
            6.0 * (lam / nf).sqrt(),
        );
        // ‖V‖ ~ Gamma(n, 1/ε2): E r² = n(n+1)/ε², Var r² = [n(n+1)(n+2)(n+3) − (n(n+1))²]/ε⁴.
        let nn = n as f64;
        let var_r2 =
            (nn * (nn + 1.0) * (nn + 2.0) * (nn + 3.0) - (nn * (nn + 1.0)).powi(2)) / e2.powi(4);
        close(
            &format!("n={n} E‖V‖²"),
            m2 / nf,
            nn * (nn + 1.0) / (e2 * e2),
            6.0 * (var_r2 / nf).sqrt(),
        );
        // Radius KS vs Gamma(n, 1/ε2): n = 2 and 4 have closed-form CDFs.
        let cdf = |r: f64| {
            let x = e2 * r;
            let tail: f64 = (0..n)
                .map(|k| x.powi(k as i32) / (1..=k).product::<usize>() as f64)
                .sum();
            1.0 - (-x).exp() * tail
        };
        let p = ks_one(&radii, cdf);
        assert!(p > 1e-4, "n={n}: KS radius p = {p}");
    }
}

#[test]
fn latent_posterior_is_exact() {
    let big_n = 100_000;
    let nf = big_n as f64;
    let mut rng = rng_for(310, 0, 0, Purpose::Release);
    // Fixed v: E[s|v] = ‖v‖/ε + 1/ε², E[1/s | v] = ε/‖v‖ (inverse-Gaussian mean),
    // Var(1/s) = μ³/λ (μ = ε/r, λ = ε²) → s.e. sqrt(μ³/λ/N); for s use the
    // sample sd/√N.
    for &(eps, r) in &[(1.0f64, 1.3f64), (2.5, 0.2), (0.4, 7.0)] {
        let s: Vec<f64> = (0..big_n)
            .map(|_| latent_posterior(eps, r, &mut rng))
            .collect();
        let ms = mean(&s);
        let sd = (s.iter().map(|x| (x - ms) * (x - ms)).sum::<f64>() / nf).sqrt();
        close(
            &format!("E[s|v] ε={eps} r={r}"),
            ms,
            r / eps + 1.0 / (eps * eps),
            6.0 * sd / nf.sqrt(),
        );
        let inv = mean(&s.iter().map(|x| 1.0 / x).collect::<Vec<_>>());
        let mu = eps / r;
        close(
            &format!("E[1/s|v] ε={eps}"),
            inv,
            mu,
            6.0 * (mu.powi(3) / (eps * eps) / nf).sqrt(),
        );
    }
    // Joint: v from the marginal, then s' from the posterior ⇒ s' ~ prior
    // Gamma((n+1)/2, 2/ε²). n = 1: Exp(mean 2/ε²); n = 3: Gamma(2, 2/ε²).
    for n in [1usize, 3] {
        let eps = 1.7;
        let theta = 2.0 / (eps * eps);
        let mut v = vec![0.0; n];
        let draws: Vec<f64> = (0..big_n)
            .map(|_| {
                privdiffuse::process::sample_marginal(Norm::L2, eps, &mut v, &mut rng);
                let r = v.iter().map(|x| x * x).sum::<f64>().sqrt();
                latent_posterior(eps, r, &mut rng)
            })
            .collect();
        let p = ks_one(&draws, |s| {
            let x = s / theta;
            if n == 1 {
                1.0 - (-x).exp()
            } else {
                1.0 - (-x).exp() * (1.0 + x)
            }
        });
        assert!(p > 1e-4, "posterior-then-prior KS n={n}: p = {p}");
    }
}

// ---------- 1-D bridge (memo §3a, §7 test 9) ----------

#[test]
fn bridge_1d_law() {
    let (ea, e, eb) = (0.5, 1.0, 3.0);
    let big_n = 200_000;
    let s = PathSampler::new(1, Norm::L1, ea, eb).unwrap();
    let mut rng = rng_for(400, 0, 0, Purpose::Path);
    let mut brng = rng_for(401, 0, 0, Purpose::Release);
    let mut p = NoisePath::empty(1);
    let (mut at_a, mut at_b) = (0usize, 0usize);
    let mut v = Vec::with_capacity(big_n);
    let mut truth_minus_b = Vec::with_capacity(big_n);
    let mut bridge_minus_b = Vec::with_capacity(big_n);
    for _ in 0..big_n {
        s.sample_into(&mut rng, &mut p);
        let (a, b) = (p.value_at(ea)[0], p.value_at(eb)[0]);
        let (x, _) = bridge_1d(a, ea, b, eb, e, &mut brng);
        at_a += (x == a) as usize;
        at_b += (x == b) as usize;
        v.push(x);
        bridge_minus_b.push(x - b);
        truth_minus_b.push(p.value_at(e)[0] - b);
    }
    let nf = big_n as f64;
    close("P(V = Va)", at_a as f64 / nf, 0.25, tol_p(0.25, big_n));
    close(
        "P(V = Vb)",
        at_b as f64 / nf,
        1.0 / 9.0,
        tol_p(1.0 / 9.0, big_n),
    );
    let pk = ks_one(&v, laplace_cdf(e));
    assert!(pk > 1e-4, "bridge marginal KS p = {pk}");
    let pk = ks_two(&bridge_minus_b, &truth_minus_b);
    assert!(pk > 1e-4, "bridge V−Vb vs path KS p = {pk}");
}

// ---------- Gaussian (memo §4) ----------

#[test]
fn gaussian_bridge_and_correlations() {
    let big_n = 100_000;
    let nf = big_n as f64;
    let mut rng = rng_for(500, 0, 0, Purpose::Gaussian);
    // Bridge between (var 1, x = 0.5) and (var 4, x = −1) at var 2:
    // mean 0.5 + (1/3)(−1.5) = 0, variance (2−1)(4−2)/(4−1) = 2/3.
    let mut out = [0.0];
    let xs: Vec<f64> = (0..big_n)
        .map(|_| {
            gaussian::bridge(1.0, &[0.5], 4.0, &[-1.0], 2.0, &mut out, &mut rng);
            out[0]
        })
        .collect();
    let m = mean(&xs);
    let var = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / nf;
    close("bridge mean", m, 0.0, 6.0 * (2.0 / 3.0 / nf).sqrt());
    // s.e. of a normal sample variance: σ²·sqrt(2/N).
    close(
        "bridge var",
        var,
        2.0 / 3.0,
        6.0 * 2.0 / 3.0 * (2.0 / nf).sqrt(),
    );
    // Paths sampled in three orders: marginals N(0, s) and Corr(s1, s2) = sqrt(s2/s1).
    let vars = [0.5, 2.0, 8.0];
    for order in [[0usize, 1, 2], [2, 1, 0], [1, 2, 0]] {
        let mut cols: Vec<Vec<f64>> = (0..3).map(|_| Vec::with_capacity(big_n)).collect();
        for _ in 0..big_n {
            let mut p = BrownianPath::new(1).unwrap();
            for &i in &order {
                let y = p.sample_at(vars[i], &mut rng).unwrap()[0];
                cols[i].push(y);
            }
        }
        for i in 0..3 {
            let sd = vars[i].sqrt();
            let pk = ks_one(&cols[i], |x| normal_cdf(x / sd));
            assert!(pk > 1e-4, "order {order:?}: N(0,{}) KS p = {pk}", vars[i]);
            for j in i + 1..3 {
                let rho = (vars[i] / vars[j]).sqrt();
                // s.e. of a normal sample correlation ≈ (1 − ρ²)/√N.
                close(
                    &format!("order {order:?} corr({},{})", vars[i], vars[j]),
                    corr(&cols[i], &cols[j]),
                    rho,
                    6.0 * (1.0 - rho * rho) / nf.sqrt(),
                );
            }
        }
    }
}

#[test]
fn gaussian_release_marginals_follow_calibration() {
    let mech = ReleaseNoise::Gaussian {
        delta: 1e-5,
        calibration: Calibration::Analytic,
    };
    let trials = 40_000;
    let tf = trials as f64;
    let levels = [0.5, 1.0, 4.0];
    let order = [1.0, 4.0, 0.5];
    let mut cols: Vec<Vec<f64>> = (0..3).map(|_| Vec::with_capacity(trials)).collect();
    for t in 0..trials {
        let mut g = GradualRelease::new(vec![0.0], mech, 1.0, 600)
            .unwrap()
            .with_stream(t as u64);
        for &e in &order {
            let i = levels.iter().position(|&l| l == e).unwrap();
            cols[i].push(g.release(e).unwrap()[0]);
        }
    }
    let sig: Vec<f64> = levels
        .iter()
        .map(|&e| Calibration::Analytic.sigma(e, 1e-5, 1.0).unwrap())
        .collect();
    for i in 0..3 {
        let s = sig[i];
        let pk = ks_one(&cols[i], |x| normal_cdf(x / s));
        assert!(pk > 1e-4, "ε={}: KS p = {pk}", levels[i]);
        for j in i + 1..3 {
            // Corr(V_εi, V_εj) = σ_j/σ_i (variance-indexed Brownian motion).
            let rho = sig[j] / sig[i];
            close(
                &format!("corr ε={} ε={}", levels[i], levels[j]),
                corr(&cols[i], &cols[j]),
                rho,
                6.0 * (1.0 - rho * rho) / tf.sqrt(),
            );
        }
    }
}

// ---------- state persistence and validation ----------

#[test]
fn answers_survive_save_and_load() {
    let dir = scratch("state");
    let file = dir.join("state.json");
    for (k, mech) in [
        ReleaseNoise::Laplace { norm: Norm::L1 },
        ReleaseNoise::Laplace { norm: Norm::L2 },
        ReleaseNoise::Gaussian {
            delta: 1e-6,
            calibration: Calibration::LeNyPappas,
        },
    ]
    .into_iter()
    .enumerate()
    {
        let mut g = GradualRelease::new(vec![3.25, -1e6, 0.1], mech, 0.7, 77).unwrap();
        let mut given = Vec::new();
        for e in [1.0, 0.2, 8.0, 0.9, 1e-3, 300.0] {
            given.push((e, g.release(e).unwrap()));
        }
        privdiffuse::io::save_release(&g, &file).unwrap();
        let mut h = GradualRelease::load(&file).unwrap();
        assert_eq!(h, g, "mechanism {k}");
        for (e, y) in &given {
            assert_eq!(&h.release(*e).unwrap(), y, "mechanism {k} ε={e}");
        }
        // Continuing after a load equals continuing without one.
        let mut g2 = g.clone();
        for (e, _) in &given {
            g2.release(*e).unwrap();
        }
        for e in [2.0, 0.05, 1000.0] {
            assert_eq!(g2.release(e).unwrap(), h.release(e).unwrap());
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn edit_state(g: &GradualRelease, f: impl FnOnce(&mut serde_json::Value)) -> String {
    let mut v: serde_json::Value = serde_json::from_str(&g.to_json().unwrap()).unwrap();
    f(&mut v);
    serde_json::to_string_pretty(&v).unwrap()
}

#[test]
fn corrupted_states_are_rejected_clearly() {
    let mut g =
        GradualRelease::new(vec![1.0], ReleaseNoise::Laplace { norm: Norm::L1 }, 1.0, 5).unwrap();
    for e in [1.0, 2.0, 0.5] {
        g.release(e).unwrap();
    }
    let load = |s: &str| GradualRelease::from_json(s, Path::new("st.json"));
    assert!(load(&g.to_json().unwrap()).is_ok());

    // A level repeated with a different value.
    let s = edit_state(&g, |v| {
        let h = v["history"].as_array_mut().unwrap();
        let mut dup = h[0].clone();
        dup["value"][0] = serde_json::json!(123.5);
        h.push(dup);
    });
    let e = load(&s).unwrap_err().to_string();
    assert!(e.contains("st.json") && e.contains("released twice"), "{e}");

    // Non-ascending levels.
    let s = edit_state(&g, |v| {
        let l = v["laplace"]["levels"].as_array_mut().unwrap();
        l.reverse();
    });
    let e = load(&s).unwrap_err().to_string();
    assert!(e.contains("st.json") && e.contains("path"), "{e}");

    // ε ≤ 0 in the history.
    for bad in [0.0, -1.0] {
        let s = edit_state(&g, |v| v["history"][1]["eps"] = serde_json::json!(bad));
        let e = load(&s).unwrap_err().to_string();
        assert!(e.contains("eps"), "{e}");
    }
    // NaN is not JSON; a string there is a type error with a line number.
    let s = edit_state(&g, |v| v["history"][1]["eps"] = serde_json::json!("NaN"));
    let e = load(&s).unwrap_err().to_string();
    assert!(e.contains("st.json:"), "{e}");
    // An answer that does not match the stored path.
    let s = edit_state(&g, |v| v["history"][2]["value"][0] = serde_json::json!(0.0));
    assert!(load(&s).is_err());
    // Bad requests on a live object.
    for e in [0.0, -2.0, f64::NAN] {
        assert!(g.release(e).unwrap_err().is_usage());
    }
}

/// A stored state without the top latent (e.g. written by another tool)
/// still extends upwards exactly: s is drawn from its posterior given the top
/// value (memo §2.4). P(V_1 = V_3) = (1/3)^{rate}, E‖V_3‖² exact.
#[test]
fn forward_from_state_without_latent() {
    use privdiffuse::process::ReleaseState;
    let trials = 40_000;
    let tf = trials as f64;
    for (norm, dim) in [(Norm::L1, 1usize), (Norm::L2, 2), (Norm::L1, 2)] {
        let (mut eq, mut m2) = (0usize, 0.0);
        let (mut far, mut far_eq) = (0usize, 0usize);
        for t in 0..trials {
            let mut g =
                GradualRelease::new(vec![0.0; dim], ReleaseNoise::Laplace { norm }, 1.0, 700)
                    .unwrap()
                    .with_stream(t as u64);
            let y1 = g.release(1.0).unwrap();
            let mut st = ReleaseState::from(g);
            st.laplace.as_mut().unwrap().top_latent.clear();
            let mut h = GradualRelease::try_from(st).unwrap();
            let y3 = h.release(3.0).unwrap();
            eq += (y1 == y3) as usize;
            m2 += y3.iter().map(|x| x * x).sum::<f64>();
            if y1[0].abs() > 1.0 {
                far += 1;
                far_eq += (y1 == y3) as usize;
            }
        }
        if dim == 1 {
            // The stay probability depends on |x| (memo §1d): given |x| > 1
            // (|x| = 1 + Exp(1)) it is (1/3)·E e^{−2|x|} = e^{−2}/9; a latent
            // drawn independently of x would give 1/9.
            let p = (-2.0f64).exp() / 9.0;
            close(
                "P(stay | |x| > 1)",
                far_eq as f64 / far as f64,
                p,
                tol_p(p, far),
            );
        }
        let p = (1.0f64 / 3.0).powf(norm.jump_rate(dim));
        close(
            &format!("{norm} n={dim} P(eq)"),
            eq as f64 / tf,
            p,
            tol_p(p, trials),
        );
        // sd(‖V‖²)·ε²: ℓ1 sqrt(20n), ℓ2 n=2 sqrt(84).
        let sd = if norm == Norm::L2 {
            84f64.sqrt()
        } else {
            (20.0 * dim as f64).sqrt()
        } / 9.0;
        close(
            &format!("{norm} n={dim} E‖V_3‖²"),
            m2 / tf,
            norm.mse_factor(dim) / 9.0,
            6.0 * sd / tf.sqrt(),
        );
    }
}
