//! Releases: the exact privacy loss of coalition views (memo §5), floating-
//! point safety of the answers, the cost of rounding a level down to its
//! rung (memo §4), and the refusals of bad configurations.

use super::*;
use crate::process::discrete::theory::variance;
use crate::process::discrete::{
    DiscreteNoise, DiscretePath, DiscreteWalk, Grid, MemberView, PrivacyLoss, Rung,
};
use num_bigint::BigInt;
use std::cmp::Ordering;

/// Whether a loss equals Σ ε_j exactly: with ε_j = m_j·2^{e_j} and L the
/// lowest exponent (≤ 0), numer/denom = Σ m_j·2^{e_j − L}·2^L.
fn equals_sum_of_eps(loss: &PrivacyLoss, eps: &[f64]) -> bool {
    use crate::process::discrete::rational::dyadic_parts;
    let parts: Vec<(u64, i32)> = eps.iter().map(|&e| dyadic_parts(e)).collect();
    let low = parts.iter().map(|p| p.1).min().unwrap_or(0).min(0);
    let mut sum = BigInt::from(0);
    for (m, e) in parts {
        sum += BigInt::from(m) << (e - low) as u32;
    }
    // loss = numer/denom; Σε = sum·2^low; each t = ε/Δ_Z times Δ_Z.
    let lhs = loss.numer() << (-low) as u32;
    let rhs = sum * BigInt::from(loss.denom().clone());
    lhs == rhs
}

/// Correlated views never lose more than the largest rung's ε and attain
/// it; independent fresh noise at the same rungs reaches Σ ε_j (exact
/// rationals). Views come from sampled paths and fresh draws.
#[test]
fn privacy_loss_is_max_for_the_chain_and_sum_for_fresh_noise() {
    let noise = DiscreteNoise::new(Grid::from_exponent(-3).unwrap(), 32, 1.0, 2).unwrap();
    assert_eq!(noise.delta_z(), 9);
    let uhat = [3i64, -5];
    let (top, bottom) = (noise.rung_of(4.0).unwrap(), noise.rung_of(0.25).unwrap());
    let mut r = rng(1100);
    let mut path = DiscretePath::empty(2);
    let members = [top, Rung(top.0 - 7), Rung(top.0 - 40), bottom];
    let eps: Vec<f64> = members.iter().map(|&k| noise.eps_of(k)).collect();
    let (mut attained, mut reached) = (0, 0);
    for _ in 0..2_000 {
        noise
            .sample_path_into(top, bottom, &mut r, &mut path)
            .unwrap();
        let answers: Vec<Vec<i64>> = members
            .iter()
            .map(|&k| {
                let x = path.value_at(k).unwrap();
                vec![uhat[0] + x[0], uhat[1] + x[1]]
            })
            .collect();
        let view: Vec<MemberView> = members
            .iter()
            .zip(&answers)
            .map(|(&rung, a)| MemberView { rung, answer: a })
            .collect();
        let loss = noise.correlated_loss(&uhat, &view).unwrap();
        assert_ne!(loss.cmp_f64(eps[0]), Ordering::Greater);
        assert_ne!(loss.cmp_f64(-eps[0]), Ordering::Less);
        if loss.cmp_f64(eps[0]) == Ordering::Equal {
            attained += 1;
            // Attained exactly when the best member's first coordinate is ≤ û₁.
            assert!(answers[0][0] <= uhat[0]);
        }
        // The same answers as if drawn independently.
        let ind = noise.independent_loss(&uhat, &view).unwrap();
        let total: f64 = eps.iter().sum();
        assert_ne!(ind.cmp_f64(total * (1.0 + 1e-15)), Ordering::Greater);
        let mut fresh = vec![[0i64; 2]; members.len()];
        for (f, &k) in fresh.iter_mut().zip(&members) {
            noise.sample_fresh_into(k, &mut r, &mut f[..]).unwrap();
            f[0] += uhat[0];
            f[1] += uhat[1];
        }
        let view: Vec<MemberView> = members
            .iter()
            .zip(&fresh)
            .map(|(&rung, a)| MemberView { rung, answer: a })
            .collect();
        let ind = noise.independent_loss(&uhat, &view).unwrap();
        if fresh.iter().all(|f| f[0] <= uhat[0]) {
            reached += 1;
            assert!(equals_sum_of_eps(&ind, &eps), "{ind}");
            assert!((ind.to_f64() / eps.iter().sum::<f64>() - 1.0).abs() < 1e-15);
        }
    }
    // P(X ≤ 0) > ½ for the best member, and all four fresh draws ≤ 0 often.
    assert!(attained > 900 && reached > 50, "{attained} {reached}");
    // Views at the top rung with different answers are not a chain's.
    let (a, b) = ([1i64, 2], [1i64, 3]);
    let bad = [
        MemberView {
            rung: top,
            answer: &a,
        },
        MemberView {
            rung: top,
            answer: &b,
        },
    ];
    assert!(noise.correlated_loss(&uhat, &bad).is_err());
    assert!(noise.correlated_loss(&uhat, &[]).is_err());
    let short = [MemberView {
        rung: top,
        answer: &a[..1],
    }];
    assert!(noise.independent_loss(&uhat, &short).is_err());
}

/// Floating-point safety (Mironov 2012): every answer is a grid multiple,
/// and for û and û + 1 the answers from one noise value differ by exactly γ,
/// so the attainable sets are the same set shifted by γ. The f64 Laplace
/// mechanism fails this: (u + v) + γ ≠ (u + γ) + v for some noise v.
#[test]
fn answers_are_grid_multiples_shifted_exactly() {
    let noise = DiscreteNoise::new(Grid::default(), 32, 1.0, 1).unwrap();
    let g = noise.grid().value();
    let u = [noise.grid().round(0.3).unwrap()];
    let v = [u[0] + 1];
    let k = noise.rung_of(0.7).unwrap();
    let mut r = rng(1200);
    let (mut y, mut z) = ([0.0], [0.0]);
    let mut check = |x: [i64; 1]| {
        noise.answer_into(&u, &x, &mut y).unwrap();
        noise.answer_into(&v, &x, &mut z).unwrap();
        assert_eq!(z[0], y[0] + g);
        assert_eq!(y[0] / g, (u[0] + x[0]) as f64);
        assert_eq!((y[0] / g).fract(), 0.0);
    };
    for x in -5000..5000 {
        check([x]);
    }
    let mut x = [0i64];
    for _ in 0..20_000 {
        noise.sample_fresh_into(k, &mut r, &mut x).unwrap();
        check(x);
    }
    // Beyond 2^53 grid steps the answer is refused, never rounded.
    assert!(noise.answer_into(&[1 << 52], &[1 << 52], &mut y).is_err());
    // The f64 Laplace: for u = 0 and u + γ, some noise v gives answers that
    // are not shifted by γ ((γ + v) − γ ≠ v: the low bits of v are rounded
    // away near 0 and across binades), so one answer can tell u from u + γ.
    let broken = (0..100_000)
        .filter(|_| {
            let l = crate::process::laplace::laplace(&mut r, 1.0 / 0.7);
            (g + l) - g != l
        })
        .count();
    assert!(
        broken > 0,
        "the f64 mechanism is expected to break the shift"
    );
}

/// Rounding a request down to its rung costs at most a factor 2^{2/m} in the
/// continuous scale (t/t_k)², and in the DL variance at most 2^{2/m}·e^{t²/12}
/// (V(t) = 1/(2 sinh²(t/2)), and sinh(z)/z ≤ e^{z²/6}) — so the memo's 2^{2/m}
/// holds for small rates (t ≤ 2⁻⁶: within 2e−5) but not at t = 10, where
/// the ratio is ≈ 1.24 for m = 32.
#[test]
fn rounding_to_a_rung_costs_at_most_two_to_the_two_over_m() {
    for m in [4u32, 32, 100] {
        let noise = DiscreteNoise::new(Grid::default(), m, 1.0, 1).unwrap();
        let bound = 2f64.powf(2.0 / m as f64) * (1.0 + 1e-12);
        let mut r = rng(1300 + u64::from(m));
        for _ in 0..20_000 {
            // ε log-uniform in [2^-5, 2^14]: t from 2^-15 to 16.
            let u = (rand::Rng::next_u64(&mut r) >> 11) as f64 / (1u64 << 53) as f64;
            let eps = 2f64.powf(-5.0 + 19.0 * u);
            let k = noise.rung_of(eps).unwrap();
            let (t, tk) = (eps / 1024.0, noise.rate_f64(k));
            assert!(tk <= t && (t / tk).powi(2) <= bound, "m = {m}, ε = {eps}");
            let ratio = variance(tk) / variance(t);
            assert!(
                ratio <= bound * (t * t / 12.0).exp(),
                "m = {m}, ε = {eps}: {ratio}"
            );
            if t <= 1.0 / 64.0 {
                assert!(ratio <= bound * (1.0 + 2e-5), "m = {m}, ε = {eps}: {ratio}");
            }
        }
    }
    let noise = DiscreteNoise::new(Grid::from_exponent(0).unwrap(), 32, 1.0, 1).unwrap();
    let eps = f64::from_bits(
        noise
            .eps_of(Rung(noise.rung_of(10.0).unwrap().0 + 1))
            .to_bits()
            - 1,
    );
    let ratio = variance(noise.rate_f64(noise.rung_of(eps).unwrap())) / variance(eps);
    assert!(ratio > 1.2, "{ratio}");
}

/// Bad configurations and requests are refused with one line naming the
/// parameter: the 2^40 floor names the smallest allowed ε; serialised states
/// are re-validated.
#[test]
fn refusals_name_the_parameter() {
    let g = Grid::default();
    let noise = DiscreteNoise::new(g, 32, 1.0, 1).unwrap();
    // Δ_Z = 1024: ε ≥ 1024·2^-40 = 2^-30.
    assert_eq!(noise.eps_of(noise.min_rung()), 2f64.powi(-30));
    let e = noise.rung_of(1e-10).unwrap_err().to_string();
    assert!(
        e.starts_with("invalid eps '0.0000000001'") && e.contains("ε ≥ 9.313225746154785e-10"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    assert!(noise.rung_of(2f64.powi(-30)).is_ok());
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 1e101] {
        assert!(
            noise
                .rung_of(bad)
                .unwrap_err()
                .to_string()
                .contains("invalid eps")
        );
    }
    let msg = |r: crate::error::Result<DiscreteNoise>| r.unwrap_err().to_string();
    assert!(msg(DiscreteNoise::new(g, 0, 1.0, 1)).contains("invalid levels_per_doubling '0'"));
    assert!(msg(DiscreteNoise::new(g, 1025, 1.0, 1)).contains("levels_per_doubling"));
    assert!(msg(DiscreteNoise::new(g, 32, 0.0, 1)).contains("invalid sensitivity"));
    assert!(msg(DiscreteNoise::new(g, 32, 2f64.powi(44), 1)).contains("2^53 grid steps"));
    assert!(msg(DiscreteNoise::new(g, 32, 1.0, 0)).contains("invalid dim"));
    let n3 = DiscreteNoise::new(g, 32, 1.5, 3).unwrap();
    assert_eq!(n3.delta_z(), 1536 + 2);
    // Rungs outside the allowed range, and dimension mismatches.
    let mut r = rng(1400);
    let low = Rung(noise.min_rung().0 - 1);
    assert!(noise.sample_path(noise.max_rung(), low, &mut r).is_err());
    assert!(
        noise
            .sample_path(Rung(0), Rung(1), &mut r)
            .unwrap_err()
            .to_string()
            .contains("invalid bottom")
    );
    assert!(DiscreteWalk::start(&noise, Rung(noise.max_rung().0 + 1), &mut r).is_err());
    assert!(
        noise
            .sample_fresh_into(Rung(0), &mut r, &mut [0, 0])
            .is_err()
    );
    // Serde: round trips; a tampered Δ_Z, a wrong order or dimension is refused.
    let json = serde_json::to_string(&noise).unwrap();
    assert_eq!(
        json,
        r#"{"granularity":"2^-10","levels_per_doubling":32,"sensitivity":1.0,"dim":1,"delta_z":1024}"#
    );
    assert_eq!(serde_json::from_str::<DiscreteNoise>(&json).unwrap(), noise);
    assert!(serde_json::from_str::<DiscreteNoise>(&json.replace("1024", "1000")).is_err());
    let walk = DiscreteWalk::start(&noise, Rung(10), &mut r).unwrap();
    let mut walk_json = serde_json::to_value(&walk).unwrap();
    assert_eq!(
        serde_json::from_value::<DiscreteWalk>(walk_json.clone()).unwrap(),
        walk
    );
    walk_json["path"]["dim"] = 2.into();
    assert!(serde_json::from_value::<DiscreteWalk>(walk_json.clone()).is_err());
    let bad_path = r#"{"dim":1,"top":5,"rungs":[3,4],"values":[1,2]}"#;
    assert!(serde_json::from_str::<DiscretePath>(bad_path).is_err());
    let above_top = r#"{"dim":1,"top":5,"rungs":[6],"values":[1]}"#;
    assert!(serde_json::from_str::<DiscretePath>(above_top).is_err());
}
