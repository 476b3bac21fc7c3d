//! The exact samplers: Bernoulli(e^{−x}) by frequency and at its exact
//! decision boundary, the coins C, D (both branches) and B of memo §2, the
//! discrete Laplace marginal, the identity of the two integer widths, and no
//! floating point on the sampling path.

use super::*;
use crate::process::discrete::rational::Ratio;
use crate::process::discrete::samplers::{
    JumpCoin, bern_exp, bernoulli_exp, d_coin, discrete_laplace, discrete_laplace_exact, geometric,
    jump, jump_coin,
};
use crate::process::discrete::theory::{pmf, stay_probability, variance};
use num_bigint::BigUint;

fn ratio(x: f64) -> Ratio {
    Ratio::dyadic_over(x, 1).unwrap()
}

/// Frequencies of Bernoulli(e^{−x}) for x ∈ {0.5, 1, 7.25} (6 s.e.), with a
/// wrong rate rejected by the same statistic.
#[test]
fn bernoulli_exp_frequencies() {
    for (i, (x, n)) in [(0.5, 200_000u64), (1.0, 200_000), (7.25, 2_000_000)]
        .into_iter()
        .enumerate()
    {
        let mut r = rng(100 + i as u64);
        let hits = (0..n).filter(|_| bernoulli_exp(&ratio(x), &mut r)).count() as u64;
        let p = (-x).exp();
        assert_prop(&format!("Bern(e^-{x})"), hits, n, p);
        let wrong = (-x * 1.05).exp();
        let z = (hits as f64 / n as f64 - wrong).abs() / prop_se(wrong, n);
        assert!(z > 6.0, "x = {x}: e^(-1.05x) not rejected (z = {z})");
    }
}

/// The exact decision boundary, by scripted words: x = 1e−9 (and 1e−9/3,
/// whose rational is not an f64) is decided by the first uniform U below
/// the denominator d: U < numerator continues the CKS20 loop, U = numerator
/// stops it (true). No rounding of x could put the boundary there.
#[test]
fn bernoulli_exp_small_x_boundary_is_exact() {
    let k2_nonzero = words_for(1, 2); // Bernoulli(1/2) coin of k = 2 is 0
    for x in [
        Ratio::dyadic_over(1e-9, 1).unwrap(),
        Ratio::dyadic_over(1e-9, 3).unwrap(),
    ] {
        let (n, d) = (x.numer(), x.denom());
        let (n, d) = (u128::try_from(n).unwrap(), u128::try_from(d).unwrap());
        // U = n − 1: Bernoulli(x) coin is 1, then the k = 2 coin is 0: K = 2, false.
        let mut s = Script::new([words_for(n - 1, d), k2_nonzero.clone()].concat());
        assert!(!bernoulli_exp(&x, &mut s));
        assert!(s.exhausted());
        // U = n: the first coin is 0: K = 1, true.
        let mut s = Script::new(words_for(n, d));
        assert!(bernoulli_exp(&x, &mut s));
        assert!(s.exhausted());
    }
    // t = 2^-60: e^{-t} rounds to 1 in f64, yet the exact coin can be 0.
    let x = Ratio::from_u128(1, 1 << 60).unwrap();
    let mut s = Script::new([words_for(0, 1 << 60), k2_nonzero].concat());
    assert!(!bernoulli_exp(&x, &mut s));
    assert_eq!((-x.to_f64()).exp(), 1.0);
}

/// x = 40 (e^{−40} ≈ 4e−18): exactly 40 Bernoulli(e^{−1}) factors decide;
/// with a fraction 2^−40 beyond, one more coin at its exact boundary.
#[test]
fn bernoulli_exp_large_x_boundary_is_exact() {
    // Bernoulli(e^{-1}) = Algorithm 1 with x = 1: success = coins (k=2: 1, k=3: 0).
    let success = [words_for(0, 2), words_for(1, 3)].concat();
    let failure = words_for(1, 2);
    let x = Ratio::from_u128(40, 1).unwrap();
    let script = |ok: usize, fail: bool| {
        let mut w: Vec<u64> = (0..ok).flat_map(|_| success.clone()).collect();
        if fail {
            w.extend(&failure);
        }
        Script::new(w)
    };
    let mut s = script(39, true);
    assert!(!bernoulli_exp(&x, &mut s));
    assert!(s.exhausted());
    let mut s = script(40, false);
    assert!(bernoulli_exp(&x, &mut s), "40 successes and nothing more");
    assert!(s.exhausted());
    // x = 40 + 2^-40: after 40 successes, U < 1 (U = 0) continues, U = 1 stops.
    let x = Ratio::from_u128((40 << 40) + 1, 1 << 40).unwrap();
    let mut s = script(40, false);
    s.words.extend(words_for(1, 1 << 40));
    assert!(bernoulli_exp(&x, &mut s));
    assert!(s.exhausted());
    let mut s = script(40, false);
    s.words.extend(words_for(0, 1 << 40));
    s.words.extend(words_for(1, 2));
    assert!(!bernoulli_exp(&x, &mut s));
    assert!(s.exhausted());
}

/// D ~ Bernoulli((1 − a₂)/(1 − a₁)) in both branches (t₁ ≤ 1: uniform J with
/// acceptance; t₁ > 1: geometric J with truncation), and for adjacent rungs
/// with Δ_Z = 1024; the continuous ratio t₂/t₁ is rejected where it differs.
#[test]
fn d_coin_both_branches() {
    let n = 200_000u64;
    let cases = [
        (
            Ratio::from_u128(3, 4).unwrap(),
            Ratio::from_u128(1, 2).unwrap(),
        ),
        (
            Ratio::from_u128(2, 3).unwrap(),
            Ratio::from_u128(1, 3).unwrap(),
        ),
        (
            Ratio::from_u128(5, 2).unwrap(),
            Ratio::from_u128(5, 4).unwrap(),
        ),
        (
            Ratio::from_u128(7, 3).unwrap(),
            Ratio::from_u128(2, 3).unwrap(),
        ),
        (
            Ratio::dyadic_over(1.021_897_148_654_116_7, 1024).unwrap(),
            Ratio::dyadic_over(1.0, 1024).unwrap(),
        ),
    ];
    for (i, (t1, t2)) in cases.iter().enumerate() {
        let mut r = rng(200 + i as u64);
        let coin = JumpCoin::new(t1, t2).unwrap();
        let hits = (0..n).filter(|_| coin.sample_d(&mut r)).count() as u64;
        let (f1, f2) = (t1.to_f64(), t2.to_f64());
        let p = (-f2).exp_m1() / (-f1).exp_m1();
        assert_prop(&format!("D({t1}, {t2})"), hits, n, p);
        if f1 > 1.0 {
            let z = (hits as f64 / n as f64 - f2 / f1).abs() / prop_se(p, n);
            assert!(z > 6.0, "continuous ratio not rejected for t1 = {f1}");
        }
    }
}

/// The jump coin: P(B = 0) = c = (a₁/a₂)((1 − a₂)/(1 − a₁))² for adjacent
/// rungs (m = 32, Δ_Z = 1024 and Δ_Z = 9) and for distant levels; the
/// continuous 1 − (t₂/t₁)² is rejected where it differs.
#[test]
fn jump_coin_stays_with_probability_c() {
    let n = 200_000u64;
    let r32 = 1.021_897_148_654_116_7; // 2^(1/32), correctly rounded
    let cases = [
        (
            Ratio::dyadic_over(r32, 1024).unwrap(),
            Ratio::dyadic_over(1.0, 1024).unwrap(),
        ),
        (
            Ratio::dyadic_over(4.0 * r32, 9).unwrap(),
            Ratio::dyadic_over(4.0, 9).unwrap(),
        ),
        (
            Ratio::from_u128(5, 2).unwrap(),
            Ratio::from_u128(5, 4).unwrap(),
        ),
        (
            Ratio::from_u128(3, 4).unwrap(),
            Ratio::from_u128(1, 4).unwrap(),
        ),
    ];
    for (i, (t1, t2)) in cases.iter().enumerate() {
        let mut r = rng(300 + i as u64);
        let stays = (0..n)
            .filter(|_| !jump_coin(t1, t2, &mut r).unwrap())
            .count() as u64;
        let c = stay_probability(t1.to_f64(), t2.to_f64());
        assert_prop(&format!("B = 0 between {t1} and {t2}"), stays, n, c);
        if t1.to_f64() > 1.0 {
            let wrong = (t2.to_f64() / t1.to_f64()).powi(2);
            let z = (stays as f64 / n as f64 - wrong).abs() / prop_se(c, n);
            assert!(z > 6.0, "continuous rule not rejected");
        }
    }
    assert!(
        jump_coin(
            &Ratio::from_u128(1, 2).unwrap(),
            &Ratio::from_u128(1, 2).unwrap(),
            &mut rng(1)
        )
        .is_err()
    );
    assert!(
        jump_coin(
            &Ratio::from_u128(1, 2).unwrap(),
            &Ratio::from_u128(0, 1).unwrap(),
            &mut rng(1)
        )
        .is_err()
    );
}

/// The discrete Laplace marginal by χ², sign symmetry, mean and second
/// moment at t = 1/1024 (σ ≈ 1448), t = 1/4, t = 3 and t = 10/9; a 3 % wrong
/// rate is rejected by the χ² (few bins) or by the second moment (many bins,
/// where the χ² has little power).
#[test]
fn discrete_laplace_marginal() {
    let n = 100_000usize;
    for (i, t) in [
        Ratio::from_u128(1, 1024).unwrap(),
        Ratio::from_u128(1, 4).unwrap(),
        Ratio::from_u128(3, 1).unwrap(),
        Ratio::from_u128(10, 9).unwrap(),
    ]
    .iter()
    .enumerate()
    {
        let mut r = rng(400 + i as u64);
        let draws: Vec<i64> = (0..n)
            .map(|_| discrete_laplace_exact(t, &mut r).unwrap() as i64)
            .collect();
        let tf = t.to_f64();
        let sigma = variance(tf).sqrt();
        let p = chi2_pvalue(&draws, |x| pmf(tf, x), sigma);
        assert!(p > 1e-6, "t = {t}: χ² p = {p}");
        assert_symmetric(&format!("DL t = {t}"), &draws, sigma);
        let (mean, m2, sd2) = moments(&draws);
        assert_within("DL mean", mean, 0.0, sigma / (n as f64).sqrt());
        let se2 = sd2 / (n as f64).sqrt();
        assert_within("DL E X²", m2, variance(tf), se2);
        let wrong = tf * 1.03;
        if tf >= 0.25 {
            let q = chi2_pvalue(&draws, |x| pmf(wrong, x), variance(wrong).sqrt());
            assert!(q < 1e-6, "t = {t}: a 3 % wrong rate gives p = {q}");
        } else {
            assert!(
                (m2 - variance(wrong)).abs() > 6.0 * se2,
                "wrong variance not rejected"
            );
        }
    }
    assert!(discrete_laplace_exact(&Ratio::from_u128(0, 1).unwrap(), &mut rng(1)).is_err());
}

/// (mean, mean of x², standard deviation of x²).
fn moments(draws: &[i64]) -> (f64, f64, f64) {
    let n = draws.len() as f64;
    let mean = draws.iter().map(|&x| x as f64).sum::<f64>() / n;
    let m2 = draws.iter().map(|&x| (x as f64).powi(2)).sum::<f64>() / n;
    let v2 = draws
        .iter()
        .map(|&x| ((x as f64).powi(2) - m2).powi(2))
        .sum::<f64>()
        / (n - 1.0);
    (mean, m2, v2.sqrt())
}

/// Nothing on the sampling path is f64: at t = 2^−60 the noise is ≈ 2⁶⁰, and
/// its low 8 bits are uniform (χ² on 256 residues). Noise computed in f64
/// (−ln U/t with a 53-bit U) has only multiples of 2⁷ or more down there,
/// and the same statistic rejects it.
#[test]
fn tiny_rates_keep_every_low_bit() {
    let t = Ratio::from_u128(1, 1 << 60).unwrap();
    let n = 40_000;
    let mut r = rng(500);
    let mut counts = vec![0u64; 256];
    let mut float_counts = vec![0u64; 256];
    for _ in 0..n {
        let x = discrete_laplace_exact(&t, &mut r).unwrap();
        counts[(x.rem_euclid(256)) as usize] += 1;
        let u = ((rand::Rng::next_u64(&mut r) >> 11) + 1) as f64 / (1u64 << 53) as f64;
        let y = (-u.ln() * 2f64.powi(60)).floor() as i128;
        float_counts[(y.rem_euclid(256)) as usize] += 1;
    }
    let flat = vec![1.0 / 256.0; 256];
    let p = pvalue(&counts, &flat);
    assert!(p > 1e-6, "low bits of exact DL noise: p = {p}");
    assert!(
        pvalue(&float_counts, &flat) < 1e-6,
        "f64 noise not detected"
    );
}

/// The big-integer fallback runs the same algorithms: on values that fit
/// `u128`, both widths return the same results from the same words.
#[test]
fn both_widths_draw_the_same_stream() {
    let big = |x: u128| BigUint::from(x);
    let cases: [(u128, u128, u128); 4] = [
        (3, 1, 4),
        (5, 4, 2),
        (4_602_215_617_889_652, 4_503_599_627_370_496, 1 << 62),
        (7 << 70, 6 << 70, 9 << 80),
    ];
    for (i, &(p1, p2, q)) in cases.iter().enumerate() {
        let (mut a, mut b) = (rng(600 + i as u64), rng(600 + i as u64));
        for _ in 0..2_000 {
            assert_eq!(
                bern_exp(&p1, &q, &mut a),
                bern_exp(&big(p1), &big(q), &mut b)
            );
            assert_eq!(
                geometric(&p2, &q, &mut a),
                geometric(&big(p2), &big(q), &mut b)
            );
            assert_eq!(
                discrete_laplace(&p1, &q, &mut a),
                discrete_laplace(&big(p1), &big(q), &mut b)
            );
            assert_eq!(
                d_coin(&p1, &p2, &q, &mut a),
                d_coin(&big(p1), &big(p2), &big(q), &mut b)
            );
            assert_eq!(
                jump(&p1, &p2, &q, &mut a),
                jump(&big(p1), &big(p2), &big(q), &mut b)
            );
        }
        assert_eq!(rand::Rng::next_u64(&mut a), rand::Rng::next_u64(&mut b));
    }
    // A level beyond u128 (t ≈ 1e40) samples through the fallback: its DL is 0.
    let t = Ratio::dyadic_over(1e40, 1).unwrap();
    assert!(!t.is_small());
    let mut r = rng(610);
    for _ in 0..100 {
        assert_eq!(discrete_laplace_exact(&t, &mut r).unwrap(), 0);
        assert!(!bernoulli_exp(&t, &mut r));
    }
}
