//! Statistical acceptance battery for the lazy process (memo §7 tests 1–4, 7, 8,
//! plus the n-dimensional closed forms of memo §2).
//!
//! Every test uses a fixed seed. Tolerances are 6 standard errors, and each
//! s.e. comes from the sample size: for a mean of iid draws with known standard
//! deviation σ, s.e. = σ/√N; for a proportion p, s.e. = sqrt(p(1−p)/N); for
//! smooth functions of several means (correlations, ratios), the delta method
//! se² = ∇gᵀ Σ ∇g / N with Σ the sample covariance of the averaged columns.
//! Distribution checks use the one-sample Kolmogorov–Smirnov test with the
//! asymptotic Kolmogorov p-value and require p > 1e−4 (memo §7). Each family
//! also has a check that the same statistic rejects a wrong law, so the tests
//! can fail.

use privdiffuse::process::laplace::laplace;
use privdiffuse::process::{NoisePath, Norm, PathSampler, add_jump, sample_marginal};
use privdiffuse::rng::{PrivRng, Purpose, rng_for};

const SEED: u64 = 20_261_122;
/// Sample size of the memo's tolerances.
const N: usize = 200_000;

fn rng(test_id: u64) -> PrivRng {
    rng_for(SEED, test_id, 0, Purpose::Path)
}

// ---------------------------------------------------------------------------
// Small statistics toolkit.

fn mean(x: &[f64]) -> f64 {
    x.iter().sum::<f64>() / x.len() as f64
}

/// Asserts |estimate − expected| ≤ 6·se, with a readable message.
#[track_caller]
fn assert_within(what: &str, estimate: f64, expected: f64, se: f64) {
    assert!(
        (estimate - expected).abs() <= 6.0 * se,
        "{what}: estimate {estimate}, expected {expected}, 6 s.e. = {}",
        6.0 * se
    );
}

/// Mean of `x` against `expected`, where σ is the known standard deviation of
/// one draw: s.e. = σ/√N.
#[track_caller]
fn assert_mean(what: &str, x: &[f64], expected: f64, sigma: f64) {
    assert_within(what, mean(x), expected, sigma / (x.len() as f64).sqrt());
}

/// A proportion `hits/n` against p: s.e. = sqrt(p(1−p)/n).
#[track_caller]
fn assert_prop(what: &str, hits: usize, n: usize, p: f64) {
    let se = (p * (1.0 - p) / n as f64).sqrt();
    assert_within(what, hits as f64 / n as f64, p, se);
}

/// Delta method: estimate g(column means) and its s.e.,
/// se² = ∇gᵀ Σ ∇g / N with Σ the sample covariance of the columns and ∇g by
/// central differences at the means.
fn delta(cols: &[Vec<f64>], g: impl Fn(&[f64]) -> f64) -> (f64, f64) {
    let k = cols.len();
    let n = cols[0].len();
    let m: Vec<f64> = cols.iter().map(|c| mean(c)).collect();
    let mut cov = vec![0.0; k * k];
    for i in 0..k {
        for j in i..k {
            let c = cols[i]
                .iter()
                .zip(&cols[j])
                .map(|(a, b)| (a - m[i]) * (b - m[j]))
                .sum::<f64>()
                / (n as f64 - 1.0);
            cov[i * k + j] = c;
            cov[j * k + i] = c;
        }
    }
    let mut grad = vec![0.0; k];
    for i in 0..k {
        let h = 1e-6 * (m[i].abs() + cov[i * k + i].sqrt());
        let mut up = m.clone();
        let mut dn = m.clone();
        up[i] += h;
        dn[i] -= h;
        grad[i] = (g(&up) - g(&dn)) / (2.0 * h);
    }
    let mut var = 0.0;
    for i in 0..k {
        for j in 0..k {
            var += grad[i] * cov[i * k + j] * grad[j];
        }
    }
    (g(&m), (var / n as f64).sqrt())
}

/// Pearson correlation and its delta-method s.e. (from the five raw moments).
fn corr(x: &[f64], y: &[f64]) -> (f64, f64) {
    let cols = vec![
        x.to_vec(),
        y.to_vec(),
        x.iter().map(|a| a * a).collect(),
        y.iter().map(|a| a * a).collect(),
        x.iter().zip(y).map(|(a, b)| a * b).collect(),
    ];
    delta(&cols, |m| {
        (m[4] - m[0] * m[1]) / ((m[2] - m[0] * m[0]) * (m[3] - m[1] * m[1])).sqrt()
    })
}

/// Sample variance (divisor N − 1).
fn variance(x: &[f64]) -> f64 {
    let m = mean(x);
    x.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / (x.len() as f64 - 1.0)
}

/// Asymptotic Kolmogorov survival function Q(λ) = 2 Σ_{j≥1} (−1)^{j−1} e^{−2j²λ²}.
fn kolmogorov_q(lambda: f64) -> f64 {
    if lambda < 0.3 {
        return 1.0; // Q(0.3) = 1 − 1e−6; the series converges slowly below.
    }
    let mut s = 0.0;
    for j in 1..=100 {
        let jf = j as f64;
        let term = (-2.0 * jf * jf * lambda * lambda).exp();
        s += if j % 2 == 1 { term } else { -term };
        if term < 1e-17 {
            break;
        }
    }
    (2.0 * s).clamp(0.0, 1.0)
}

/// One-sample KS test: returns (D, p) with Stephens' small-sample correction
/// λ = (√n + 0.12 + 0.11/√n)·D.
fn ks_test(mut x: Vec<f64>, cdf: impl Fn(f64) -> f64) -> (f64, f64) {
    x.sort_by(f64::total_cmp);
    let n = x.len() as f64;
    let mut d: f64 = 0.0;
    for (i, &v) in x.iter().enumerate() {
        let f = cdf(v);
        d = d.max((i as f64 + 1.0) / n - f).max(f - i as f64 / n);
    }
    let sn = n.sqrt();
    (d, kolmogorov_q((sn + 0.12 + 0.11 / sn) * d))
}

#[track_caller]
fn assert_ks(what: &str, x: Vec<f64>, cdf: impl Fn(f64) -> f64) {
    let (d, p) = ks_test(x, cdf);
    assert!(p > 1e-4, "{what}: KS D = {d}, p = {p}");
}

#[track_caller]
fn assert_ks_rejects(what: &str, x: Vec<f64>, cdf: impl Fn(f64) -> f64) {
    let (d, p) = ks_test(x, cdf);
    assert!(p < 1e-6, "{what}: a wrong law passed, KS D = {d}, p = {p}");
}

/// CDF of Lap(1/ε).
fn laplace_cdf(eps: f64, x: f64) -> f64 {
    if x < 0.0 {
        0.5 * (eps * x).exp()
    } else {
        1.0 - 0.5 * (-eps * x).exp()
    }
}

/// Regularized lower incomplete gamma P(k, x) for integer shape k ≥ 1:
/// P(k, x) = 1 − e^{−x} Σ_{j<k} x^j / j! (Erlang CDF).
fn reg_lower_gamma_int(k: u32, x: f64) -> f64 {
    if x <= 0.0 {
        return 0.0;
    }
    let mut term = 1.0;
    let mut sum = 1.0;
    for j in 1..k {
        term *= x / j as f64;
        sum += term;
    }
    (1.0 - (-x).exp() * sum).clamp(0.0, 1.0)
}

/// Modified Bessel function K_ν(z), z > 0, from K_ν(z) = ∫_0^∞ e^{−z cosh t} cosh(νt) dt
/// by the trapezoid rule with step h = 0.2: the integrand is analytic and
/// decays doubly exponentially, so the error is of order e^{−π²/h} ≈ e^{−49};
/// the sum stops once terms fall below e^{−60} of the first. cosh(t_i) and
/// cosh(ν t_i) are tabulated once per ν (the KS tests evaluate it 10⁶ times).
struct BesselK {
    nu: f64,
    cosh_t: Vec<f64>,
    cosh_nu_t: Vec<f64>,
}

impl BesselK {
    const H: f64 = 0.2;

    fn new(nu: f64) -> Self {
        let ts: Vec<f64> = (0..=300).map(|i| i as f64 * Self::H).collect();
        BesselK {
            nu: nu.abs(),
            cosh_t: ts.iter().map(|t| t.cosh()).collect(),
            cosh_nu_t: ts.iter().map(|t| (nu * t).cosh()).collect(),
        }
    }

    fn eval(&self, z: f64) -> f64 {
        let mut s = 0.5 * (-z).exp();
        for i in 1..self.cosh_t.len() {
            let c = self.cosh_t[i];
            s += (-z * c).exp() * self.cosh_nu_t[i];
            if -z * (c - 1.0) + self.nu * i as f64 * Self::H < -60.0 {
                break;
            }
        }
        s * Self::H
    }
}

fn bessel_k(nu: f64, z: f64) -> f64 {
    BesselK::new(nu).eval(z)
}

/// Γ(k) for k a positive multiple of 1/2.
fn gamma_half_int(k: f64) -> f64 {
    let (mut g, mut x) = if k.fract() == 0.0 {
        (1.0, 1.0)
    } else {
        (std::f64::consts::PI.sqrt(), 0.5)
    };
    while x < k {
        g *= x;
        x += 1.0;
    }
    g
}

/// CDF of the ℓ2 jump length ‖J‖, J = sqrt(W)·N(0, 2/ε² I_n) (memo §2), derived:
/// ‖J‖ ≤ r ⇔ X ≤ ε²r²/(2W) with X = ‖Z‖² ~ χ²_n, so with k = n/2 and z = εr
///   F(r) = 1 − E[e^{−z²/(2X)}] = 1 − z^k K_k(z) / (2^{k−1} Γ(k))
/// (from ∫ x^{k−1} e^{−x/2 − a/x} dx = 2(2a)^{k/2} K_k(√(2a))). Its derivative
/// ε z^k K_{k−1}(z)/(2^{k−1}Γ(k)) is exactly the thesis Table-1 radial density
/// g(r) = 4/(Γ(n/2)(2β)^{n/2+1}) r^{n/2} K_{n/2−1}(r/β), β = 1/ε.
struct JumpNormCdf {
    eps: f64,
    k: f64,
    norm: f64,
    bessel: BesselK,
}

impl JumpNormCdf {
    fn new(n: usize, eps: f64) -> Self {
        let k = n as f64 / 2.0;
        JumpNormCdf {
            eps,
            k,
            norm: 2f64.powf(k - 1.0) * gamma_half_int(k),
            bessel: BesselK::new(k),
        }
    }

    fn cdf(&self, r: f64) -> f64 {
        if r <= 0.0 {
            return 0.0;
        }
        let z = self.eps * r;
        (1.0 - z.powf(self.k) * self.bessel.eval(z) / self.norm).clamp(0.0, 1.0)
    }
}

fn jump_norm_cdf(n: usize, eps: f64, r: f64) -> f64 {
    JumpNormCdf::new(n, eps).cdf(r)
}

/// Table-1 radial density g(r) with β = 1/ε (thesis Table 1, memo §2).
fn table1_density(n: usize, eps: f64, r: f64) -> f64 {
    let beta = 1.0 / eps;
    let h = n as f64 / 2.0;
    4.0 / (gamma_half_int(h) * (2.0 * beta).powf(h + 1.0)) * r.powf(h) * bessel_k(h - 1.0, r / beta)
}

/// For odd n = 2m + 1, K_{m−1/2} is elementary and Table 1 is a finite mixture
/// of Gamma(m − j + 1, β) laws, j = 0..=max(m−1, 0), with weights
/// ∝ (m−1+j)!/(j!(m−1−j)!) · (m−j)! / 2^j  (derived; n = 1: Exp(ε), n = 3:
/// Gamma(2, β), n = 5: ⅔ Gamma(3, β) + ⅓ Gamma(2, β)).
fn jump_norm_cdf_odd(n: usize, eps: f64, r: f64) -> f64 {
    let m = (n - 1) / 2;
    let fact = |k: usize| (1..=k).map(|i| i as f64).product::<f64>();
    let jmax = m.saturating_sub(1);
    let mut num = 0.0;
    let mut den = 0.0;
    for j in 0..=jmax {
        let a = if m == 0 {
            1.0
        } else {
            fact(m - 1 + j) / (fact(j) * fact(m - 1 - j))
        };
        let w = a * fact(m - j) / 2f64.powi(j as i32);
        num += w * reg_lower_gamma_int((m - j + 1) as u32, eps * r);
        den += w;
    }
    num / den
}

// ---------------------------------------------------------------------------
// Sampling helpers.

/// N paths on [lo, hi]; returns the values at each of `levels` (row-major,
/// dim per sample) and the jump counts.
struct Draws {
    at: Vec<Vec<f64>>,
    jumps: Vec<f64>,
}

fn draw_paths(dim: usize, norm: Norm, lo: f64, hi: f64, levels: &[f64], id: u64) -> Draws {
    let s = PathSampler::new(dim, norm, lo, hi).unwrap();
    let mut r = rng(id);
    let mut p = NoisePath::empty(dim);
    let mut at = vec![Vec::with_capacity(N * dim); levels.len()];
    let mut jumps = Vec::with_capacity(N);
    for _ in 0..N {
        s.sample_into(&mut r, &mut p);
        for (col, &e) in at.iter_mut().zip(levels) {
            col.extend_from_slice(p.value_at(e));
        }
        jumps.push(p.num_jumps() as f64);
    }
    Draws { at, jumps }
}

fn sq_norms(v: &[f64], dim: usize) -> Vec<f64> {
    v.chunks_exact(dim)
        .map(|c| c.iter().map(|x| x * x).sum())
        .collect()
}

fn count_equal_rows(a: &[f64], b: &[f64], dim: usize) -> usize {
    a.chunks_exact(dim)
        .zip(b.chunks_exact(dim))
        .filter(|(x, y)| x.iter().zip(*y).all(|(p, q)| p.to_bits() == q.to_bits()))
        .count()
}

/// Jump count: mean λ (s.e. sqrt(λ/N)) and sample variance λ (Poisson: fourth
/// central moment λ + 3λ², so Var(s²) ≈ (λ + 2λ²)/N).
#[track_caller]
fn assert_poisson_counts(what: &str, counts: &[f64], lambda: f64) {
    let n = counts.len() as f64;
    assert_mean(&format!("{what} mean"), counts, lambda, lambda.sqrt());
    let se_var = ((lambda + 2.0 * lambda * lambda) / n).sqrt();
    assert_within(
        &format!("{what} variance"),
        variance(counts),
        lambda,
        se_var,
    );
}

// ---------------------------------------------------------------------------
// Memo §7 tests 1–3: the 1-D joint law at levels {1, 2}.

#[test]
fn one_dim_joint_law_at_levels_1_and_2() {
    let d = draws_1d_1_2();
    let (v1, v2) = (&d.at[0], &d.at[1]);
    // Test 1: P(V_1 == V_2) = (1/2)² (bitwise equality = no jump in between).
    assert_prop("P(V1 == V2)", count_equal_rows(v1, v2, 1), N, 0.25);
    // Test 2: Corr(V_1, V_2) = ε1/ε2.
    let (r, se) = corr(v1, v2);
    assert_within("corr(V1, V2)", r, 0.5, se);
    // Test 3: E V_ε² = 2/ε², sd(V_ε²) = sqrt(24 − 4)/ε² (E V⁴ = 24/ε⁴).
    assert_mean("E V1^2", &sq_norms(v1, 1), 2.0, 20f64.sqrt());
    assert_mean("E V2^2", &sq_norms(v2, 1), 0.5, 20f64.sqrt() / 4.0);
    let same_sign = v1
        .iter()
        .zip(v2)
        .filter(|(a, b)| a.signum() == b.signum())
        .count();
    assert_prop("P(sgn V1 = sgn V2)", same_sign, N, 0.75);
    // Memo §1e: D = V1 − V2 = B·L, B ~ Bern(3/4), L ~ Lap(1): E D² = 1.5,
    // Var D² = 0.75·24 − 1.5² = 15.75; E|D| = 0.75, Var|D| = 1.5 − 0.5625.
    let dd: Vec<f64> = v1.iter().zip(v2).map(|(a, b)| a - b).collect();
    assert_mean("E (V1-V2)^2", &sq_norms(&dd, 1), 1.5, 15.75f64.sqrt());
    let ad: Vec<f64> = dd.iter().map(|x| x.abs()).collect();
    assert_mean("E |V1-V2|", &ad, 0.75, 0.9375f64.sqrt());
    // Marginals: KS against Lap(1/ε); the same sample rejects Lap(1/1.1).
    assert_ks("V1 ~ Lap(1)", v1.clone(), |x| laplace_cdf(1.0, x));
    assert_ks("V2 ~ Lap(1/2)", v2.clone(), |x| laplace_cdf(2.0, x));
    assert_ks_rejects("V1 vs Lap(1/1.1)", v1.clone(), |x| laplace_cdf(1.1, x));
}

fn draws_1d_1_2() -> Draws {
    draw_paths(1, Norm::L1, 1.0, 2.0, &[1.0, 2.0], 1)
}

/// Backward increments are independent of the upper value (memo §1e, §5):
/// corr(|V1 − V2|, |V2|) = 0, while |V1 − V2| and |V1| are strongly correlated
/// (≈ 0.8), so a sampler that added noise the wrong way round would fail.
#[test]
fn backward_increments_independent_of_upper_value() {
    let d = draws_1d_1_2();
    let (v1, v2) = (&d.at[0], &d.at[1]);
    let inc: Vec<f64> = v1.iter().zip(v2).map(|(a, b)| (a - b).abs()).collect();
    let a2: Vec<f64> = v2.iter().map(|x| x.abs()).collect();
    let a1: Vec<f64> = v1.iter().map(|x| x.abs()).collect();
    let (r0, se0) = corr(&inc, &a2);
    assert_within("corr(|V1-V2|, |V2|)", r0, 0.0, se0);
    let (r1, _) = corr(&inc, &a1);
    assert!(r1 > 0.7, "corr(|V1-V2|, |V1|) = {r1}, expected ≈ 0.8");
}

// ---------------------------------------------------------------------------
// Memo §7 test 4 and the §8.9 bug.

/// Jump count on [1, 4] ~ Poisson(2 ln 4): mean and variance 2.7726.
#[test]
fn one_dim_jump_count_on_1_4() {
    let d = draw_paths(1, Norm::L1, 1.0, 4.0, &[1.0], 2);
    assert_poisson_counts("jumps on [1,4]", &d.jumps, 2.0 * 4f64.ln());
    // E V_1² = 2 with the top at 4 (memo §8.9: scale at the upper level gives 1.119).
    assert_mean("E V1^2 (top 4)", &sq_norms(&d.at[0], 1), 2.0, 20f64.sqrt());
    assert_ks("V1 ~ Lap(1) (top 4)", d.at[0].clone(), |x| {
        laplace_cdf(1.0, x)
    });
}

/// The statistic of the test above rejects the memo §8.9 bug: a walk that
/// draws each jump with the scale of the previous (upper) level.
#[test]
fn upper_level_jump_scale_bug_is_caught() {
    let mut r = rng(3);
    let mut v1 = Vec::with_capacity(N);
    for _ in 0..N {
        let mut e = 4.0f64;
        let mut v = laplace(&mut r, 1.0 / e);
        loop {
            let upper = e;
            e *= (-privdiffuse::process::laplace::exp1(&mut r) / 2.0).exp();
            if e <= 1.0 {
                break;
            }
            v += laplace(&mut r, 1.0 / upper); // wrong: should be 1/e
        }
        v1.push(v * v);
    }
    let se = 20f64.sqrt() / (N as f64).sqrt();
    let m = mean(&v1);
    assert!(
        (m - 2.0).abs() > 6.0 * se,
        "the E V1^2 test would not catch the §8.9 bug: {m}"
    );
    // Exact value of the buggy E V_1²: 2/16 + Σ over jumps of 2/(upper level)²
    // = 0.125 + (1/8)(1 − 1/16) + (1/4)(7.5 − 255/64) = 1.1211 (memo MC: 1.119).
    assert!(
        (m - 1.1211).abs() < 0.05,
        "buggy walk gives {m}, expected 1.1211"
    );
}

// ---------------------------------------------------------------------------
// Memo §7 test 7 and §2: the ℓ2 process in n = 2, 3, 5.

#[test]
fn l2_marginals_atoms_correlation_and_jumps() {
    for (i, n) in [2usize, 3, 5].into_iter().enumerate() {
        let d = draw_paths(n, Norm::L2, 1.0, 2.0, &[1.0, 2.0], 10 + i as u64);
        let (v1, v2) = (&d.at[0], &d.at[1]);
        let nf = n as f64;
        // ‖V_ε‖ ~ Gamma(n, 1/ε): E r² = n(n+1)/ε², E r⁴ = n(n+1)(n+2)(n+3)/ε⁴.
        let sd = (nf * (nf + 1.0) * (nf + 2.0) * (nf + 3.0) - (nf * (nf + 1.0)).powi(2)).sqrt();
        let s1 = sq_norms(v1, n);
        let s2 = sq_norms(v2, n);
        assert_mean(&format!("n={n} E|V1|^2"), &s1, nf * (nf + 1.0), sd);
        assert_mean(
            &format!("n={n} E|V2|^2"),
            &s2,
            nf * (nf + 1.0) / 4.0,
            sd / 4.0,
        );
        let k = n as u32;
        let r1: Vec<f64> = s1.iter().map(|x| x.sqrt()).collect();
        let r2: Vec<f64> = s2.iter().map(|x| x.sqrt()).collect();
        assert_ks(&format!("n={n} |V1| ~ Gamma(n, 1)"), r1.clone(), |r| {
            reg_lower_gamma_int(k, r)
        });
        assert_ks(&format!("n={n} |V2| ~ Gamma(n, 1/2)"), r2, |r| {
            reg_lower_gamma_int(k, 2.0 * r)
        });
        assert_ks_rejects(&format!("n={n} |V1| vs Gamma(n+1, 1)"), r1, |r| {
            reg_lower_gamma_int(k + 1, r)
        });
        // P(V1 = V2) = (ε1/ε2)^{n+1}.
        assert_prop(
            &format!("n={n} P(V1 == V2)"),
            count_equal_rows(v1, v2, n),
            N,
            0.5f64.powi(n as i32 + 1),
        );
        // Vector correlation E⟨V1,V2⟩ / sqrt(E‖V1‖² E‖V2‖²) = ε1/ε2.
        let dot: Vec<f64> = v1
            .chunks_exact(n)
            .zip(v2.chunks_exact(n))
            .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum())
            .collect();
        let (rho, se) = delta(&[dot, s1, s2], |m| m[0] / (m[1] * m[2]).sqrt());
        assert_within(&format!("n={n} vector corr"), rho, 0.5, se);
        // Jumps on [1, 2] ~ Poisson((n+1) ln 2).
        assert_poisson_counts(&format!("n={n} l2 jumps"), &d.jumps, (nf + 1.0) * 2f64.ln());
    }
}

/// Uniform direction of the ℓ2 marginal: E u = 0 (Var u_i = 1/n) and
/// E u_1² = 1/n (Var u_1² = 3/(n(n+2)) − 1/n²); for n = 2 the angle is
/// uniform on (−π, π]. |coordinates| of ℓ2 are dependent (corr 0.2094 for
/// n = 2, computed from E r = 2, E r² = 6, E|cos| = 2/π, E|cos·sin| = 1/π),
/// unlike ℓ1.
#[test]
fn l2_direction_is_uniform() {
    for (i, n) in [2usize, 3, 5].into_iter().enumerate() {
        let nf = n as f64;
        let mut r = rng(20 + i as u64);
        let mut v = vec![0.0; n];
        let mut u1 = Vec::with_capacity(N);
        let mut u_all = vec![Vec::with_capacity(N); n];
        let mut angle = Vec::with_capacity(N);
        let mut abs01 = (Vec::with_capacity(N), Vec::with_capacity(N));
        for _ in 0..N {
            sample_marginal(Norm::L2, 1.0, &mut v, &mut r);
            let norm = v.iter().map(|x| x * x).sum::<f64>().sqrt();
            for (col, x) in u_all.iter_mut().zip(&v) {
                col.push(x / norm);
            }
            u1.push((v[0] / norm).powi(2));
            angle.push(v[1].atan2(v[0]));
            abs01.0.push(v[0].abs());
            abs01.1.push(v[1].abs());
        }
        for (j, col) in u_all.iter().enumerate() {
            assert_mean(&format!("n={n} E u_{j}"), col, 0.0, (1.0 / nf).sqrt());
        }
        let sd = (3.0 / (nf * (nf + 2.0)) - 1.0 / (nf * nf)).sqrt();
        assert_mean(&format!("n={n} E u_1^2"), &u1, 1.0 / nf, sd);
        if n == 2 {
            use std::f64::consts::PI;
            assert_ks("n=2 angle uniform", angle.clone(), |a| {
                (a + PI) / (2.0 * PI)
            });
            assert_ks_rejects("n=2 angle vs a tilted law", angle, |a| {
                let u = (a + PI) / (2.0 * PI);
                u * u * 0.1 + u * 0.9
            });
            let (c, se) = corr(&abs01.0, &abs01.1);
            assert_within("n=2 l2 corr(|x|,|y|)", c, 0.2094, se);
        }
    }
}

// ---------------------------------------------------------------------------
// ℓ1 in n dimensions: n independent 1-D processes (memo §2, last bullet).

#[test]
fn l1_n_dim_independent_coordinates() {
    for (i, n) in [2usize, 3].into_iter().enumerate() {
        let d = draw_paths(n, Norm::L1, 1.0, 2.0, &[1.0, 2.0], 30 + i as u64);
        let (v1, v2) = (&d.at[0], &d.at[1]);
        let nf = n as f64;
        // P(all coordinates unchanged) = (ε1/ε2)^{2n}.
        assert_prop(
            &format!("n={n} l1 P(V1 == V2)"),
            count_equal_rows(v1, v2, n),
            N,
            0.5f64.powi(2 * n as i32),
        );
        // E‖V_1‖₂² = 2n, Var = n·Var(X²) = 20n for independent Lap(1) coordinates.
        assert_mean(
            &format!("n={n} l1 E|V1|^2"),
            &sq_norms(v1, n),
            2.0 * nf,
            (20.0 * nf).sqrt(),
        );
        // Coordinates: each Lap(1), |coordinates| uncorrelated.
        let c0: Vec<f64> = v1.iter().step_by(n).copied().collect();
        let c1: Vec<f64> = v1.iter().skip(1).step_by(n).copied().collect();
        assert_ks(
            &format!("n={n} l1 coordinate 0 ~ Lap(1)"),
            c0.clone(),
            |x| laplace_cdf(1.0, x),
        );
        let a0: Vec<f64> = c0.iter().map(|x| x.abs()).collect();
        let a1: Vec<f64> = c1.iter().map(|x| x.abs()).collect();
        let (c, se) = corr(&a0, &a1);
        assert_within(&format!("n={n} l1 corr(|x0|,|x1|)"), c, 0.0, se);
        // Vector correlation ε1/ε2 also holds for ℓ1.
        let dot: Vec<f64> = v1
            .chunks_exact(n)
            .zip(v2.chunks_exact(n))
            .map(|(a, b)| a.iter().zip(b).map(|(x, y)| x * y).sum())
            .collect();
        let (rho, se) = delta(&[dot, sq_norms(v1, n), sq_norms(v2, n)], |m| {
            m[0] / (m[1] * m[2]).sqrt()
        });
        assert_within(&format!("n={n} l1 vector corr"), rho, 0.5, se);
        // Jumps: 2n ln(ε2/ε1).
        assert_poisson_counts(&format!("n={n} l1 jumps"), &d.jumps, 2.0 * nf * 2f64.ln());
    }
}

// ---------------------------------------------------------------------------
// Memo §7 test 8: the ℓ2 jump J at ε = 1.7.

#[test]
fn l2_jump_law() {
    let eps = 1.7;
    for (i, n) in [1usize, 2, 3, 5, 10].into_iter().enumerate() {
        let nf = n as f64;
        let mut r = rng(40 + i as u64);
        let mut v = vec![0.0; n];
        let mut sq = Vec::with_capacity(N);
        let mut u1 = Vec::with_capacity(N);
        for _ in 0..N {
            v.iter_mut().for_each(|x| *x = 0.0);
            add_jump(Norm::L2, eps, &mut v, &mut r);
            let s: f64 = v.iter().map(|x| x * x).sum();
            sq.push(s);
            u1.push(v[0] * v[0] / s);
        }
        // E‖J‖² = 2n/ε², sd(‖J‖²) = (2/ε²) sqrt(n² + 4n) (memo §7 test 8).
        let sd = 2.0 / (eps * eps) * (nf * nf + 4.0 * nf).sqrt();
        assert_mean(&format!("n={n} E|J|^2"), &sq, 2.0 * nf / (eps * eps), sd);
        let len: Vec<f64> = sq.iter().map(|s| s.sqrt()).collect();
        let table1 = JumpNormCdf::new(n, eps);
        assert_ks(&format!("n={n} |J| ~ Table 1"), len.clone(), |r| {
            table1.cdf(r)
        });
        // The Table-1 law at the upper level's scale (memo §8.9) is rejected.
        let wrong = JumpNormCdf::new(n, eps * 1.1);
        assert_ks_rejects(&format!("n={n} |J| vs Table 1 at 1.7·1.1"), len, |r| {
            wrong.cdf(r)
        });
        // Direction uniform: E u_1² = 1/n.
        let sd = (3.0 / (nf * (nf + 2.0)) - 1.0 / (nf * nf)).sqrt();
        if n > 1 {
            assert_mean(&format!("n={n} jump E u_1^2"), &u1, 1.0 / nf, sd);
        }
    }
}

/// The derived jump-length CDF agrees with the elementary closed forms for odd
/// n, its derivative is the Table-1 density, and K_ν matches reference values.
#[test]
fn jump_length_cdf_is_table_1() {
    // K_0(1), K_1(1), K_{1/2}(2) = sqrt(π/4) e^{−2}.
    assert!((bessel_k(0.0, 1.0) - 0.421_024_438_240_708_3).abs() < 1e-13);
    assert!((bessel_k(1.0, 1.0) - 0.601_907_230_197_234_6).abs() < 1e-13);
    let k_half = (std::f64::consts::PI / 4.0).sqrt() * (-2.0f64).exp();
    assert!((bessel_k(0.5, 2.0) - k_half).abs() < 1e-13);
    let eps = 1.7;
    for n in [1usize, 3, 5, 7] {
        for r in [1e-4, 0.01, 0.3, 1.0, 2.5, 8.0] {
            let (a, b) = (jump_norm_cdf(n, eps, r), jump_norm_cdf_odd(n, eps, r));
            assert!((a - b).abs() < 1e-12, "n={n} r={r}: {a} vs {b}");
        }
    }
    for n in [1usize, 2, 3, 5, 10] {
        for r in [0.05, 0.4, 1.0, 3.0] {
            let h = 1e-5;
            let num = (jump_norm_cdf(n, eps, r + h) - jump_norm_cdf(n, eps, r - h)) / (2.0 * h);
            let g = table1_density(n, eps, r);
            assert!(
                (num - g).abs() < 1e-7 * (1.0 + g),
                "n={n} r={r}: {num} vs {g}"
            );
        }
        assert!((jump_norm_cdf(n, eps, 50.0) - 1.0).abs() < 1e-12);
    }
}
