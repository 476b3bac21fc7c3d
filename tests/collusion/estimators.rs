//! Pooled estimators against closed forms (memo §5): no estimator beats the best
//! member under the correlated mechanism; under independent noise IVW, MLE and
//! Pitman win by the predicted factors. Pitman is checked against brute-force
//! integration and for numerical stability.

use super::support::{CorrelatedSampler, independent, var_sq_linear};
use privdiffuse::collusion::estimators::{estimate, estimate_many};
use privdiffuse::collusion::stats::squared_error;
use privdiffuse::collusion::{
    Estimator, EstimatorPanel, EstimatorScratch, GainAccumulator, GainSummary, MemberNoise, View,
};
use privdiffuse::process::laplace::laplace;
use privdiffuse::{Purpose, rng_for};

const HETERO: [f64; 6] = [0.1, 0.2, 0.3, 0.5, 0.8, 1.0];

/// Runs `trials` views through all estimators; per estimator a GainAccumulator
/// fed with (best member, estimator) squared errors. `correlated` picks the
/// mechanism generating the views (the attacker always assumes independence).
fn run(rates: &[f64], correlated: bool, trials: u64, seed: u64) -> Vec<GainSummary> {
    let u = 3.0;
    let m = rates.len();
    let sampler = CorrelatedSampler::new(rates);
    let mut y = vec![0.0; m];
    let mut out = vec![0.0; Estimator::ALL.len()];
    let mut scratch = EstimatorScratch::new();
    let mut acc = vec![GainAccumulator::new(); Estimator::ALL.len()];
    for t in 0..trials {
        let mut rng = rng_for(seed, 0, t, Purpose::Path);
        if correlated {
            sampler.sample(&mut rng, u, &mut y);
        } else {
            independent(&mut rng, rates, u, &mut y);
        }
        let view = View::new(&y, 1, MemberNoise::Laplace { rates }).unwrap();
        estimate_many(&Estimator::ALL, &view, &mut scratch, &mut out);
        let se_best = squared_error(&out[0..1], &[u]);
        for (k, a) in acc.iter_mut().enumerate() {
            a.push(se_best, squared_error(&out[k..k + 1], &[u]));
        }
    }
    acc.iter().map(|a| a.summary()).collect()
}

fn idx(e: Estimator) -> usize {
    Estimator::ALL.iter().position(|&x| x == e).unwrap()
}

#[test]
fn correlated_no_estimator_beats_the_best_member() {
    // Coalition shapes: homogeneous, the memo's heterogeneous set, many far
    // members plus one close, two bands.
    let mut far_plus_close = vec![1.0];
    far_plus_close.extend((0..40).map(|i| 0.03 + 0.002 * i as f64));
    let mut two_bands = vec![0.5; 10];
    two_bands.extend([0.45; 10]);
    let shapes: Vec<(&str, Vec<f64>)> = vec![
        ("homogeneous", vec![0.5; 10]),
        ("heterogeneous", HETERO.to_vec()),
        ("far+close", far_plus_close),
        ("two bands", two_bands),
    ];
    let trials = 20_000u64;
    for (si, (name, rates)) in shapes.iter().enumerate() {
        let s = run(rates, true, trials, 100 + si as u64);
        if std::env::var_os("COLLUSION_PRINT").is_some() {
            for e in Estimator::ALL {
                let g = s[idx(e)];
                eprintln!(
                    "{name} {e}: mse {:.4} gain {:.4} [{:.4}, {:.4}] win {:.3}",
                    g.mse, g.gain, g.gain_lo, g.gain_hi, g.win_rate
                );
            }
        }
        let eps_star = rates.iter().copied().fold(0.0, f64::max);
        // Best member: Lap(1/ε*), MSE 2/ε*², sd of the squared error sqrt(20)/ε*²
        // (E X⁴ = 24/ε⁴); 6 s.e. at T = 20k.
        let best = s[idx(Estimator::Best)];
        let tol = 6.0 * 20f64.sqrt() / (eps_star * eps_star) / (trials as f64).sqrt();
        let expect = 2.0 / (eps_star * eps_star);
        assert!(
            (best.mse_best - expect).abs() < tol,
            "{name}: best MSE {} vs {expect} ± {tol}",
            best.mse_best
        );
        for e in Estimator::ALL {
            let g = s[idx(e)];
            // Equivariant estimators have risk ≥ the best member's (memo §5): the
            // 95% interval must reach down to 1.
            assert!(
                g.gain_lo <= 1.0,
                "{name}/{e}: gain {} CI [{}, {}] above 1",
                g.gain,
                g.gain_lo,
                g.gain_hi
            );
        }
        // IVW has a closed form under the correlated mechanism: Cov(V_a, V_b) =
        // 2/max(λ_a, λ_b)² (the lower level is the higher one plus independent
        // noise), so MSE = Σ_ab w_a w_b 2/max(λ_a, λ_b)² / (Σw)², w = λ².
        let sw: f64 = rates.iter().map(|r| r * r).sum();
        let mut mse_ivw = 0.0;
        for a in rates {
            for b in rates {
                mse_ivw += a * a * b * b * 2.0 / a.max(*b).powi(2);
            }
        }
        mse_ivw /= sw * sw;
        let ivw = s[idx(Estimator::Ivw)];
        assert!(
            (ivw.mse - mse_ivw).abs() < 6.0 * ivw.mse_se + 1e-12,
            "{name}: correlated IVW MSE {} vs closed form {mse_ivw} ± 6·{}",
            ivw.mse,
            ivw.mse_se
        );
        if *name == "homogeneous" {
            // Equal levels give equal answers: every estimator is the best answer,
            // bit for bit (means are accumulated as offsets from it).
            for e in Estimator::ALL {
                assert_eq!((s[idx(e)].gain, s[idx(e)].win_rate), (1.0, 0.0), "{e}");
            }
        }
    }
}

#[test]
fn independent_pooling_wins_by_the_predicted_factors() {
    let trials = 20_000u64;
    let rates = [0.5; 20];
    let s = run(&rates, false, trials, 7);
    let tf = trials as f64;
    // IVW MSE = 2/Σλ² = 0.4; Var of its squared error from the Laplace cumulants.
    let c = [1.0 / 20.0; 20];
    let se_ivw = var_sq_linear(&c, &rates).sqrt() / tf.sqrt();
    let ivw = s[idx(Estimator::Ivw)];
    assert!(
        (ivw.mse - 0.4).abs() < 6.0 * se_ivw,
        "ivw {} ± {se_ivw}",
        ivw.mse
    );
    // Gain of IVW = Σλ²/λ*² = 20 (delta-method s.e.).
    assert!(
        (ivw.gain - 20.0).abs() < 6.0 * ivw.gain_se,
        "gain {} ± {}",
        ivw.gain,
        ivw.gain_se
    );
    assert!(ivw.gain_lo > 1.0 && ivw.win_rate > 0.5);
    // Pitman (memo MC 0.2531) and MLE (0.2662) have no closed form; allow for the
    // memo's own Monte Carlo error (≥ 2e5 samples: s.e. ≈ our sd / sqrt(2e5)).
    let memo = |mse: f64, se: f64, target: f64, what: &str| {
        let sd = se * tf.sqrt();
        let tol = 6.0 * (se * se + sd * sd / 2e5).sqrt();
        assert!(
            (mse - target).abs() < tol,
            "{what}: {mse} vs memo {target} ± {tol}"
        );
    };
    let pit = s[idx(Estimator::Pitman)];
    let mle = s[idx(Estimator::Mle)];
    memo(pit.mse, pit.mse_se, 0.2531, "pitman 20×0.5");
    memo(mle.mse, mle.mse_se, 0.2662, "mle 20×0.5");
    // Pitman beats IVW: paired comparison on the same views.
    let mut pair = GainAccumulator::new();
    let mut scratch = EstimatorScratch::new();
    let mut y = [0.0; 20];
    let mut out = [0.0; 2];
    for t in 0..trials {
        let mut rng = rng_for(8, 0, t, Purpose::Independent);
        independent(&mut rng, &rates, 0.0, &mut y);
        let view = View::new(&y, 1, MemberNoise::Laplace { rates: &rates }).unwrap();
        estimate_many(
            &[Estimator::Ivw, Estimator::Pitman],
            &view,
            &mut scratch,
            &mut out,
        );
        pair.push(out[0] * out[0], out[1] * out[1]);
    }
    let p = pair.summary();
    assert!(
        p.gain_lo > 1.0,
        "Pitman vs IVW: {} [{}, {}]",
        p.gain,
        p.gain_lo,
        p.gain_hi
    );

    // Heterogeneous set: IVW = 2/Σλ² = 2/2.03 (closed form), gain = 2.03;
    // Pitman 0.8308, MLE 1.0744 (memo MC).
    let s = run(&HETERO, false, trials, 9);
    let sw: f64 = HETERO.iter().map(|r| r * r).sum();
    let c: Vec<f64> = HETERO.iter().map(|r| r * r / sw).collect();
    let se_ivw = var_sq_linear(&c, &HETERO).sqrt() / tf.sqrt();
    let ivw = s[idx(Estimator::Ivw)];
    assert!(
        (ivw.mse - 2.0 / sw).abs() < 6.0 * se_ivw,
        "hetero ivw {} vs {}",
        ivw.mse,
        2.0 / sw
    );
    assert!(
        (ivw.gain - sw).abs() < 6.0 * ivw.gain_se,
        "hetero gain {} vs {sw}",
        ivw.gain
    );
    let pit = s[idx(Estimator::Pitman)];
    let mle = s[idx(Estimator::Mle)];
    memo(pit.mse, pit.mse_se, 0.8308, "pitman heterogeneous");
    memo(mle.mse, mle.mse_se, 1.0744, "mle heterogeneous");
}

/// Brute-force posterior mean: trapezoid rule on a fine grid covering all the
/// mass (tails beyond 40/W carry e^{-40}).
fn brute_pitman(y: &[f64], rates: &[f64]) -> (f64, f64) {
    let w: f64 = rates.iter().sum();
    let lo = y.iter().copied().fold(f64::INFINITY, f64::min) - 40.0 / w;
    let hi = y.iter().copied().fold(f64::NEG_INFINITY, f64::max) + 40.0 / w;
    let n = 400_000;
    let h = (hi - lo) / n as f64;
    let ll = |u: f64| -> f64 {
        -y.iter()
            .zip(rates)
            .map(|(y, r)| r * (y - u).abs())
            .sum::<f64>()
    };
    let lmax = y.iter().map(|&v| ll(v)).fold(f64::NEG_INFINITY, f64::max);
    let (mut i0, mut i1, mut i2) = (0.0, 0.0, 0.0);
    for k in 0..=n {
        let u = lo + h * k as f64;
        let f = (ll(u) - lmax).exp() * if k == 0 || k == n { 0.5 } else { 1.0 };
        i0 += f;
        i1 += f * u;
        i2 += f * u * u;
    }
    let mean = i1 / i0;
    (mean, (i2 / i0 - mean * mean).max(0.0).sqrt())
}

#[test]
fn pitman_matches_brute_force_integration() {
    let mut scratch = EstimatorScratch::new();
    let mut out = [0.0];
    for t in 0..16u64 {
        let mut rng = rng_for(21, 0, t, Purpose::Post);
        let m = 1 + (t as usize % 7);
        let rates: Vec<f64> = (0..m)
            .map(|j| 0.2 + 2.8 * ((t as usize * 7 + j * 3) % 11) as f64 / 10.0)
            .collect();
        let y: Vec<f64> = rates
            .iter()
            .map(|&r| 1.5 + laplace(&mut rng, 1.0 / r))
            .collect();
        let view = View::new(&y, 1, MemberNoise::Laplace { rates: &rates }).unwrap();
        estimate(Estimator::Pitman, &view, &mut scratch, &mut out);
        let (b, sd) = brute_pitman(&y, &rates);
        // Relative to the posterior's scale (its sd), which is what "relative"
        // means for a location estimate.
        if std::env::var_os("COLLUSION_PRINT").is_some() {
            eprintln!(
                "m={m}: pitman {} brute {b} rel {:.2e}",
                out[0],
                (out[0] - b).abs() / sd
            );
        }
        assert!(
            (out[0] - b).abs() <= 1e-6 * sd,
            "m={m}: {} vs {b} (sd {sd})",
            out[0]
        );
    }
    // A crowded coalition (400 members): the walk stops far inside the knots
    // (ℓ < −50), which must not move the answer.
    let rates: Vec<f64> = (0..400).map(|j| 0.3 + 0.001 * j as f64).collect();
    let mut rng = rng_for(22, 0, 0, Purpose::Post);
    let y: Vec<f64> = rates
        .iter()
        .map(|&r| -4.0 + laplace(&mut rng, 1.0 / r))
        .collect();
    let view = View::new(&y, 1, MemberNoise::Laplace { rates: &rates }).unwrap();
    estimate(Estimator::Pitman, &view, &mut scratch, &mut out);
    let (b, sd) = brute_pitman(&y, &rates);
    assert!(
        (out[0] - b).abs() <= 1e-6 * sd,
        "m=400: {} vs {b} (sd {sd})",
        out[0]
    );
    // A single member: the posterior is symmetric about its answer.
    let view = View::new(&[2.75], 1, MemberNoise::Laplace { rates: &[0.3] }).unwrap();
    estimate(Estimator::Pitman, &view, &mut scratch, &mut out);
    assert!((out[0] - 2.75).abs() < 1e-12);
}

#[test]
fn pitman_is_stable_for_thousands_of_members_and_extreme_rates() {
    let m = 5_000;
    let mut scratch = EstimatorScratch::new();
    let mut out = [0.0];
    let u = 1e6 + 0.25;
    let log_uniform: Vec<f64> = (0..m)
        .map(|j| 10f64.powf(-3.0 + 6.0 * j as f64 / (m - 1) as f64))
        .collect();
    let cases = [
        ("log-uniform 1e-3..1e3", log_uniform),
        ("all 1e-3", vec![1e-3; m]),
        ("all 1e3", vec![1e3; m]),
    ];
    for (ci, (name, rates)) in cases.iter().enumerate() {
        let mut rng = rng_for(31, ci as u64, 0, Purpose::Post);
        let y: Vec<f64> = rates
            .iter()
            .map(|&r| u + laplace(&mut rng, 1.0 / r))
            .collect();
        let view = View::new(&y, 1, MemberNoise::Laplace { rates }).unwrap();
        estimate(Estimator::Pitman, &view, &mut scratch, &mut out);
        let p = out[0];
        assert!(p.is_finite(), "{name}: {p}");
        // Posterior sd ≈ 1/sqrt(Σλ²) (Fisher information λ² per member); the
        // estimate must sit within a few of those of u.
        let sd = 1.0 / rates.iter().map(|r| r * r).sum::<f64>().sqrt();
        assert!((p - u).abs() < 10.0 * sd, "{name}: {p} vs {u} (sd {sd})");
        // Translation equivariance survives the large offset.
        let shifted: Vec<f64> = y.iter().map(|v| v - 1e6).collect();
        let view = View::new(&shifted, 1, MemberNoise::Laplace { rates }).unwrap();
        estimate(Estimator::Pitman, &view, &mut scratch, &mut out);
        assert!(
            (out[0] + 1e6 - p).abs() < 1e-6 + 1e-3 * sd,
            "{name}: {} vs {}",
            out[0] + 1e6,
            p
        );
    }
}

fn row(out: &[f64], e: Estimator) -> &[f64] {
    &out[idx(e) * 2..idx(e) * 2 + 2]
}

#[test]
fn estimators_on_a_hand_view_and_coordinatewise_layout() {
    // Three members, rates (1, 2, 1), answers 0, 1, 10 (coordinate 1) and
    // 5, 4, 3 (coordinate 2).
    let rates = [1.0, 2.0, 1.0];
    let y = [0.0, 5.0, 1.0, 4.0, 10.0, 3.0];
    let view = View::new(&y, 2, MemberNoise::Laplace { rates: &rates }).unwrap();
    let mut scratch = EstimatorScratch::new();
    let mut out = [0.0; 12];
    estimate_many(&Estimator::ALL, &view, &mut scratch, &mut out);
    assert_eq!(row(&out, Estimator::Best), &[1.0, 4.0]);
    assert_eq!(row(&out, Estimator::Mean), &[1.0 + 8.0 / 3.0, 4.0]);
    let ivw = [(0.0 + 4.0 + 10.0) / 6.0, (5.0 + 16.0 + 3.0) / 6.0];
    for (a, b) in row(&out, Estimator::Ivw).iter().zip(ivw) {
        assert!((a - b).abs() < 1e-15);
    }
    assert_eq!(row(&out, Estimator::Median), &[1.0, 4.0]);
    // Weighted median: total 4, member 2 holds half with 1 below / 1 above.
    assert_eq!(row(&out, Estimator::Mle), &[1.0, 4.0]);
    // Each coordinate separately gives the same answer.
    for i in 0..2 {
        let col: Vec<f64> = (0..3).map(|j| y[j * 2 + i]).collect();
        let v1 = View::new(&col, 1, MemberNoise::Laplace { rates: &rates }).unwrap();
        let mut o = [0.0];
        estimate(Estimator::Pitman, &v1, &mut scratch, &mut o);
        assert_eq!(o[0], row(&out, Estimator::Pitman)[i]);
    }
    // Gaussian model: MLE and Pitman are the IVW mean with weights 1/σ²; best =
    // smallest σ, ties to the lowest position.
    let sig = [0.5, 1.0, 0.5];
    let g = View::new(&y, 2, MemberNoise::Gaussian { sigmas: &sig }).unwrap();
    estimate_many(&Estimator::ALL, &g, &mut scratch, &mut out);
    assert_eq!(row(&out, Estimator::Best), &[0.0, 5.0]);
    let ivw = (4.0 * 0.0 + 1.0 + 4.0 * 10.0) / 9.0;
    assert!((row(&out, Estimator::Ivw)[0] - ivw).abs() < 1e-15);
    assert_eq!(row(&out, Estimator::Mle), row(&out, Estimator::Ivw));
    assert_eq!(row(&out, Estimator::Pitman), row(&out, Estimator::Ivw));
    // Even m: median is the midpoint; tied rates make MLE the midpoint too.
    let v = View::new(
        &[4.0, 0.0, 2.0, 9.0],
        1,
        MemberNoise::Laplace { rates: &[0.1; 4] },
    )
    .unwrap();
    let mut o = [0.0; 2];
    estimate_many(
        &[Estimator::Median, Estimator::Mle],
        &v,
        &mut scratch,
        &mut o,
    );
    assert_eq!(o, [3.0, 3.0]);
    // Empty coalition: NaN, not a panic.
    let e = View::new(&[], 1, MemberNoise::Laplace { rates: &[] }).unwrap();
    estimate(Estimator::Pitman, &e, &mut scratch, &mut o[..1]);
    assert!(o[0].is_nan());
}

#[test]
fn estimator_names_parse_and_bad_input_is_rejected() {
    assert_eq!(
        Estimator::parse_list("best,mean,ivw,median,mle,pitman").unwrap(),
        Estimator::ALL.to_vec()
    );
    assert_eq!(
        Estimator::parse_list(" Pitman , best,pitman").unwrap(),
        vec![Estimator::Pitman, Estimator::Best]
    );
    let err = Estimator::parse_list("best,bayes").unwrap_err().to_string();
    assert!(err.contains("'bayes'") && err.contains("pitman"), "{err}");
    assert!(Estimator::parse_list(" , ").is_err());
    for e in Estimator::ALL {
        assert_eq!(e.to_string().parse::<Estimator>().unwrap(), e);
    }
    assert!(View::new(&[1.0, 2.0], 1, MemberNoise::Laplace { rates: &[1.0] }).is_err());
    assert!(View::new(&[1.0], 1, MemberNoise::Laplace { rates: &[0.0] }).is_err());
    assert!(
        View::new(
            &[1.0],
            1,
            MemberNoise::Gaussian {
                sigmas: &[f64::NAN]
            }
        )
        .is_err()
    );
    assert!(View::new(&[1.0], 0, MemberNoise::Laplace { rates: &[1.0] }).is_err());
}

#[test]
fn panel_on_l1_two_dimensional_views() {
    // ℓ1, n = 2: each coordinate is an independent 1-D path at the members'
    // levels. Best-member MSE = 2n/ε*² = 4 (ε* = 1); its squared error
    // X1² + X2² has variance 2·20 = 40, so s.e. = sqrt(40/T). Two half-panels
    // merged must give the same numbers as one panel.
    let trials = 10_000u64;
    let rates = HETERO;
    let sampler = CorrelatedSampler::new(&rates);
    let u = [3.0, -2.0];
    let mut whole = EstimatorPanel::new(&Estimator::ALL);
    let mut halves = [
        EstimatorPanel::new(&Estimator::ALL),
        EstimatorPanel::new(&Estimator::ALL),
    ];
    let (mut c1, mut c2) = ([0.0; 6], [0.0; 6]);
    let mut y = [0.0; 12];
    for t in 0..trials {
        let mut rng = rng_for(91, 0, t, Purpose::Path);
        sampler.sample(&mut rng, u[0], &mut c1);
        sampler.sample(&mut rng, u[1], &mut c2);
        for j in 0..6 {
            y[2 * j] = c1[j];
            y[2 * j + 1] = c2[j];
        }
        let view = View::new(&y, 2, MemberNoise::Laplace { rates: &rates }).unwrap();
        whole.push(&view, &u);
        halves[(t % 2) as usize].push(&view, &u);
        assert_eq!(whole.last_estimate(Estimator::Best).unwrap(), &y[10..12]);
    }
    let [mut a, b] = halves;
    a.merge(&b);
    let s = whole.summaries();
    for ((e, x), (_, y)) in s.iter().zip(a.summaries()) {
        assert!(
            (x.mse - y.mse).abs() < 1e-9 * x.mse && (x.gain - y.gain).abs() < 1e-9,
            "{e}"
        );
        assert!(
            x.gain_lo <= 1.0,
            "{e}: gain {} [{}, {}]",
            x.gain,
            x.gain_lo,
            x.gain_hi
        );
    }
    let best = s[0].1;
    let tol = 6.0 * (40.0 / trials as f64).sqrt();
    assert!(
        (best.mse_best - 4.0).abs() < tol,
        "{} vs 4 ± {tol}",
        best.mse_best
    );
    // Empty views are skipped.
    let mut p = EstimatorPanel::new(&[Estimator::Mean]);
    p.push(
        &View::new(&[], 1, MemberNoise::Laplace { rates: &[] }).unwrap(),
        &[0.0],
    );
    assert_eq!(p.summaries()[0].1.trials, 0);
    assert!(p.last_estimate(Estimator::Mean).is_none());
}

mod properties {
    use super::*;
    use proptest::prelude::*;

    fn one(e: Estimator, y: &[f64], rates: &[f64]) -> f64 {
        let view = View::new(y, 1, MemberNoise::Laplace { rates }).unwrap();
        let mut out = [0.0];
        estimate(e, &view, &mut EstimatorScratch::new(), &mut out);
        out[0]
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(200))]

        /// The MLE minimises Σλ_j|y_j − u| (the minimum of a convex piecewise
        /// linear function is attained at a knot, so checking the knots suffices).
        #[test]
        fn mle_minimises_the_weighted_absolute_deviation(
            members in prop::collection::vec((-100.0f64..100.0, 0.01f64..10.0), 1..40)
        ) {
            let (y, rates): (Vec<f64>, Vec<f64>) = members.into_iter().unzip();
            let obj = |u: f64| y.iter().zip(&rates).map(|(y, r)| r * (y - u).abs()).sum::<f64>();
            let mle = one(Estimator::Mle, &y, &rates);
            let best = y.iter().map(|&k| obj(k)).fold(f64::INFINITY, f64::min);
            prop_assert!(obj(mle) <= best * (1.0 + 1e-12) + 1e-12, "{} > {}", obj(mle), best);
        }

        /// Pitman is equivariant under translation and reflection, to rounding.
        #[test]
        fn pitman_is_translation_and_reflection_equivariant(
            members in prop::collection::vec((-100.0f64..100.0, 0.01f64..10.0), 1..40),
            shift in -1e3f64..1e3,
        ) {
            let (y, rates): (Vec<f64>, Vec<f64>) = members.into_iter().unzip();
            let p = one(Estimator::Pitman, &y, &rates);
            prop_assert!(p.is_finite());
            let shifted: Vec<f64> = y.iter().map(|v| v + shift).collect();
            let neg: Vec<f64> = y.iter().map(|v| -v).collect();
            let scale = 1.0 + p.abs() + shift.abs();
            prop_assert!((one(Estimator::Pitman, &shifted, &rates) - (p + shift)).abs() < 1e-9 * scale);
            prop_assert!((one(Estimator::Pitman, &neg, &rates) + p).abs() < 1e-9 * scale);
            // Same for the other location estimators.
            for e in [Estimator::Mean, Estimator::Ivw, Estimator::Median, Estimator::Mle] {
                let a = one(e, &y, &rates);
                prop_assert!((one(e, &shifted, &rates) - (a + shift)).abs() < 1e-9 * scale, "{e}");
                prop_assert!((one(e, &neg, &rates) + a).abs() < 1e-9 * scale, "{e}");
            }
        }
    }
}
