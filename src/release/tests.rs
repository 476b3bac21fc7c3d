use super::*;
use crate::process::{Calibration, Norm};

fn lap(norm: Norm) -> ReleaseNoise {
    ReleaseNoise::Laplace { norm }
}

fn gauss() -> ReleaseNoise {
    ReleaseNoise::Gaussian {
        delta: 1e-5,
        calibration: Calibration::Analytic,
    }
}

/// The trial loop as `cli/relax.rs` ran it before it moved here, kept as
/// the reference: rows and sums must match it bit for bit.
fn reference(
    template: &GradualRelease,
    eps: &[f64],
    trials: u64,
) -> (Vec<ReleaseRow>, Vec<f64>, Vec<f64>) {
    let (n, m) = (template.dim(), eps.len());
    let u = template.value().to_vec();
    let sens = template.sensitivity();
    let mech = template.mechanism();
    let increasing = eps.windows(2).all(|w| w[0] < w[1]);
    let comp_mech = match mech {
        ReleaseNoise::Gaussian { delta, calibration } => ReleaseNoise::Gaussian {
            delta: delta / m as f64,
            calibration,
        },
        other => other,
    };
    let mut comp_mse = Vec::new();
    let mut prev = 0.0;
    if increasing {
        for &e in eps {
            comp_mse.push(comp_mech.single_release_mse(e - prev, n, sens).unwrap());
            prev = e;
        }
    }
    let (mut lazy, mut comp) = (vec![0.0; m], vec![0.0; m]);
    let mut rows = Vec::new();
    let (mut fresh, mut comb) = (vec![0.0; n], vec![0.0; n]);
    for t in 0..trials {
        let mut g = template.clone().with_stream(t);
        let mut wsum = 0.0;
        comb.iter_mut().for_each(|x| *x = 0.0);
        for (i, &e) in eps.iter().enumerate() {
            let y = g.release(e).unwrap();
            lazy[i] += y
                .iter()
                .zip(&u)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>();
            if increasing {
                let budget = e - if i == 0 { 0.0 } else { eps[i - 1] };
                let mut rng = rng_for(template.seed(), t, i as u64, Purpose::Independent);
                comp_mech
                    .fresh_noise(budget, sens, &mut fresh, &mut rng)
                    .unwrap();
                let w = 1.0 / comp_mse[i];
                wsum += w;
                for (c, z) in comb.iter_mut().zip(&fresh) {
                    *c += w * z;
                }
                comp[i] += comb.iter().map(|c| (c / wsum) * (c / wsum)).sum::<f64>();
            }
            rows.push(ReleaseRow {
                trial: t,
                step: i as u64,
                eps: e,
                y,
            });
        }
    }
    (rows, lazy, comp)
}

#[test]
fn rows_and_sums_equal_the_former_command_line_loop_on_any_pool() {
    let cases = [
        (
            vec![1.0, -2.0, 0.5],
            lap(Norm::L2),
            vec![0.5, 1.0, 2.0, 4.0],
        ),
        (vec![3.0], lap(Norm::L1), vec![2.0, 0.5, 4.0, 1.0]),
        (vec![0.0, 1.0], gauss(), vec![0.5, 1.0, 2.0]),
    ];
    for (value, mech, eps) in cases {
        let g = GradualRelease::new(value, mech, 1.5, 9).unwrap();
        let trials = 700; // several waves at n = 3
        let (want, lazy, comp) = reference(&g, &eps, trials);
        let run = ReleaseTrials::new(g, eps.clone()).trials(trials);
        for threads in [1, 2, 3] {
            let (rows, out) = crate::exec::on_threads(threads, || run.run()).unwrap();
            assert_eq!(rows, want, "{mech} on {threads} threads");
            let tf = trials as f64;
            for (i, a) in out.accuracy().iter().enumerate() {
                assert_eq!(a.mse.to_bits(), (lazy[i] / tf).to_bits(), "{mech}");
                if let Some(c) = a.comp_mse {
                    assert_eq!(c.to_bits(), (comp[i] / tf).to_bits(), "{mech}");
                }
            }
            // The last trial's release is the one kept.
            let last: Vec<&ReleaseRow> = rows.iter().filter(|r| r.trial == trials - 1).collect();
            let h = out.release().history();
            assert_eq!(h.len(), eps.len());
            for (r, w) in h.iter().zip(last) {
                assert_eq!((r.eps, &r.value), (w.eps, &w.y));
            }
        }
    }
}

/// Each level is as accurate as one release at it; composition loses
/// (theory 1, 2, 2.67, 2.91 × the optimum for 0.5, 1, 2, 4) and its
/// empirical MSE matches its theory. Tolerances: 6 standard errors of a
/// mean of T squared Laplace draws, sd(V²)/E V² = √20/2 (a weighted mean of
/// independent Laplace draws has a lighter tail, so a smaller ratio).
#[test]
fn accuracy_matches_the_closed_forms() {
    let t = 20_000u64;
    let g = GradualRelease::new(vec![0.0], lap(Norm::L1), 1.0, 3).unwrap();
    let run = ReleaseTrials::new(g, vec![0.5, 1.0, 2.0, 4.0]).trials(t);
    let out = run.run_into(&mut crate::sink::Discard).unwrap();
    let tol = 6.0 * 20f64.sqrt() / 2.0 / (t as f64).sqrt();
    let theory = [1.0, 2.0, 8.0 / 3.0, 32.0 / 11.0];
    for (a, th) in out.accuracy().iter().zip(theory) {
        assert!((a.optimum - 2.0 / (a.eps * a.eps)).abs() < 1e-12);
        assert!((a.ratio - 1.0).abs() < tol, "{a:?}");
        let comp_theory = a.comp_theory.unwrap();
        assert!((comp_theory / a.optimum - th).abs() < 1e-9, "{a:?}");
        let comp = a.comp_mse.unwrap();
        assert!((comp / comp_theory - 1.0).abs() < tol, "{a:?}");
        assert!((a.comp_ratio.unwrap() - comp / a.optimum).abs() < 1e-12);
    }
}

#[test]
fn accounting_is_max_eps_and_the_baselines_sum() {
    let g = GradualRelease::new(vec![1.0], gauss(), 1.0, 1).unwrap();
    let (_, out) = ReleaseTrials::new(g, vec![0.5, 1.0, 2.5]).run().unwrap();
    let a = out.accounting();
    assert_eq!((a.eps, a.delta), (2.5, Some(1e-5)));
    assert_eq!(
        (a.composition_eps, a.composition_delta),
        (Some(2.5), Some(1e-5))
    );
    assert_eq!((a.fresh_sum, a.levels), (4.0, 3));
    // Mixed order (and a repeat): no baseline; max ε, sum of distinct levels.
    let g = GradualRelease::new(vec![1.0], lap(Norm::L1), 1.0, 1).unwrap();
    let (rows, out) = ReleaseTrials::new(g, vec![2.0, 0.5, 2.0, 1.0])
        .run()
        .unwrap();
    assert_eq!(rows[0].y, rows[2].y, "a repeated level, the same answer");
    let a = out.accounting();
    assert_eq!((a.eps, a.delta, a.composition_eps), (2.0, None, None));
    assert_eq!((a.fresh_sum, a.levels), (3.5, 3));
    assert!(!out.has_composition());
    assert!(out.accuracy().iter().all(|r| r.comp_mse.is_none()));
    // A resumed release counts its earlier answers.
    let resumed = out.release().clone();
    let (rows, out) = ReleaseTrials::new(resumed, vec![0.25]).run().unwrap();
    assert_eq!(rows[0].step, 4);
    assert_eq!(out.accounting().eps, 2.0);
    assert_eq!(out.accounting().levels, 4);
    assert_eq!(out.release().privacy_level(), Some(2.0));
}

#[test]
fn trial_t_is_the_release_on_stream_t() {
    let g = GradualRelease::new(vec![5.0, 6.0], lap(Norm::L2), 2.0, 11).unwrap();
    let (rows, _) = ReleaseTrials::new(g.clone(), vec![1.0, 3.0])
        .trials(5)
        .run()
        .unwrap();
    for t in 0..5 {
        let mut alone = g.clone().with_stream(t);
        for r in rows.iter().filter(|r| r.trial == t) {
            assert_eq!(alone.release(r.eps).unwrap(), r.y);
        }
    }
}

#[test]
fn refusals_name_the_parameter_and_come_before_any_row() {
    let g = GradualRelease::new(vec![0.0], lap(Norm::L1), 1.0, 1).unwrap();
    let name = |run: ReleaseTrials| -> String {
        let mut rows = Vec::new();
        let e = run.run_into(&mut rows).unwrap_err();
        assert!(rows.is_empty(), "rows before the refusal");
        match e {
            Error::Parameter { name, .. } => name,
            other => panic!("{other:?}"),
        }
    };
    assert_eq!(name(ReleaseTrials::new(g.clone(), vec![])), "eps");
    assert_eq!(name(ReleaseTrials::new(g.clone(), vec![1.0, -2.0])), "eps");
    assert_eq!(name(ReleaseTrials::new(g.clone(), vec![f64::NAN])), "eps");
    assert_eq!(
        name(ReleaseTrials::new(g.clone(), vec![1.0]).trials(0)),
        "trials"
    );
    let over = ReleaseTrials::new(g.clone(), vec![1.0]).trials(MAX_TRIALS + 1);
    assert_eq!(name(over), "trials");
    // A level out of range anywhere in the list: refused by the probe.
    assert_eq!(name(ReleaseTrials::new(g.clone(), vec![1.0, 1e200])), "eps");
    // A release that has answered continues one stream: one trial only.
    let mut resumed = g.clone();
    resumed.release(1.0).unwrap();
    assert_eq!(
        name(ReleaseTrials::new(resumed, vec![2.0]).trials(2)),
        "trials"
    );
}
