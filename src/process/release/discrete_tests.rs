//! A gradual release under the discrete chain: answers on the grid at
//! rungs, order independence, the law at a rung and between two rungs
//! against `process::discrete::theory`, the state round trip and the
//! refusals of tampered states.

use super::*;
use crate::process::discrete::theory::{atom, pmf, variance};
use crate::process::discrete::{Grid, RngSource};
use std::path::Path;

fn discrete(exp: i32, eps_max: f64) -> ReleaseNoise {
    ReleaseNoise::Discrete {
        granularity: Grid::from_exponent(exp).unwrap(),
        levels_per_doubling: 32,
        eps_max,
        rng: RngSource::Seeded,
    }
}

/// Every answer is (û + X)·γ (a grid multiple), recorded at its rung (the
/// largest rung ≤ ε, the top above `eps_max`), and asked again the same.
#[test]
fn answers_are_grid_multiples_at_rungs() {
    let mut g = GradualRelease::new(vec![0.3, -7.1], discrete(-10, 16.0), 1.0, 3).unwrap();
    let (noise, top) = g.discrete_noise().unwrap().unwrap();
    assert_eq!(noise.delta_z(), 1024 + 1);
    assert_eq!(noise.eps_of(top), 16.0);
    let asked = [1.0, 0.7, 2.5, 100.0, 16.0, 0.1];
    for &e in &asked {
        let y = g.release(e).unwrap();
        let r = g.history().last().unwrap();
        let rung = noise.rung_of(e.min(16.0)).unwrap();
        assert_eq!(r.eps, noise.eps_of(rung), "ε = {e}");
        assert!(r.eps <= e && (e >= 16.0 || r.eps > e * 2f64.powf(-1.0 / 32.0) * 0.999_999));
        for &v in &y {
            let k = v * 1024.0;
            assert_eq!(k, k.round(), "{v} not on the grid");
        }
    }
    // 100 was answered at the top, like 16: one answer.
    assert_eq!(g.history()[3].value, g.history()[4].value);
    assert_eq!(g.history()[3].eps, 16.0);
    for &e in &asked {
        let level = noise.eps_of(noise.rung_of(e.min(16.0)).unwrap());
        let before = g.history().iter().find(|r| r.eps == level).cloned();
        let again = g.release(e).unwrap();
        assert_eq!(Some(again), before.map(|r| r.value));
    }
    assert_eq!(g.privacy_level(), Some(16.0));
    // Too small for the 2^40 noise scale: refused naming the smallest ε.
    let e = g.release(1e-12).unwrap_err().to_string();
    assert!(e.contains("eps") && e.contains("2^40"), "{e}");
}

/// The same set of levels requested in different orders (with a save and
/// load in between) gives the same answer at each level and the same walk.
#[test]
fn answers_do_not_depend_on_the_order_of_requests() {
    let orders: [&[f64]; 3] = [
        &[0.5, 1.0, 4.0, 300.0, 0.05],
        &[4.0, 300.0, 1.0, 0.05, 0.5],
        &[0.05, 4.0, 0.5, 300.0, 1.0],
    ];
    for stream in 0..40 {
        let mut answers: Vec<Vec<(u64, Vec<f64>)>> = Vec::new();
        let mut walks = Vec::new();
        for order in orders {
            let mut g = GradualRelease::new(vec![1.5, -2.0, 0.25], discrete(-8, 256.0), 2.0, 11)
                .unwrap()
                .with_stream(stream);
            for (i, &e) in order.iter().enumerate() {
                if i == 2 {
                    g = GradualRelease::from_json(&g.to_json().unwrap(), Path::new("s")).unwrap();
                }
                g.release(e).unwrap();
            }
            let mut a: Vec<(u64, Vec<f64>)> = g
                .history()
                .iter()
                .map(|r| (r.eps.to_bits(), r.value.clone()))
                .collect();
            a.sort_by_key(|x| x.0);
            answers.push(a);
            walks.push(g.discrete_walk().unwrap().clone());
        }
        assert_eq!(answers[0], answers[1], "stream {stream}");
        assert_eq!(answers[0], answers[2], "stream {stream}");
        assert_eq!(walks[0], walks[1]);
        assert_eq!(walks[0], walks[2]);
    }
}

/// The law of the answers against the closed forms, with `n` independent
/// streams and tolerances of 6 standard errors computed from `n`: at the
/// rung of 1 (asked after a tighter level, 0.25, and before a looser one, 4)
/// the frequencies of X = 0 and |X| ≤ 3, and E X² against Var = 2a/(1 − a)²
/// (its s.e. from the exact fourth moment); between the rungs of 4 and 1
/// the atom P(X₄ = X₁) and Cov(X₄, X₁) = Var X₄ (the chain only adds
/// independent noise going down).
#[test]
fn the_law_at_a_rung_and_between_two_rungs_matches_theory() {
    let n = 20_000u64;
    let u = 0.3; // û = 1 on the grid 2^-2 (0.3·4 = 1.2 → 1)
    let (mut c0, mut c3, mut s2, mut atoms) = (0u64, 0u64, 0.0, 0u64);
    let (mut s4, mut s14, mut s44) = (0.0, 0.0, 0.0);
    let mut t = (0.0, 0.0);
    for stream in 0..n {
        let mut g = GradualRelease::new(vec![u], discrete(-2, 8.0), 1.0, 5)
            .unwrap()
            .with_stream(stream);
        g.release(0.25).unwrap();
        let x1 = g.release(1.0).unwrap()[0] * 4.0 - 1.0;
        let x4 = g.release(4.0).unwrap()[0] * 4.0 - 1.0;
        if stream == 0 {
            let (noise, _) = g.discrete_noise().unwrap().unwrap();
            assert_eq!(noise.delta_z(), 4);
            t = (
                noise.rate_f64(noise.rung_of(4.0).unwrap()),
                noise.rate_f64(noise.rung_of(1.0).unwrap()),
            );
        }
        c0 += u64::from(x1 == 0.0);
        c3 += u64::from(x1.abs() <= 3.0);
        s2 += x1 * x1;
        atoms += u64::from(x1 == x4);
        s4 += x4;
        s14 += x1 * x4;
        s44 += x4 * x4;
    }
    let nf = n as f64;
    let (t4, t1) = t;
    assert!((t1 - 0.25).abs() < 1e-15 && (t4 - 1.0).abs() < 1e-15);
    let freq = |count: u64, p: f64, what: &str| {
        let se = (p * (1.0 - p) / nf).sqrt();
        let f = count as f64 / nf;
        assert!((f - p).abs() <= 6.0 * se, "{what}: {f} vs {p} (se {se})");
    };
    freq(c0, pmf(t1, 0), "P(X = 0)");
    freq(c3, (-3..=3).map(|x| pmf(t1, x)).sum(), "P(|X| ≤ 3)");
    freq(atoms, atom(t4, t1), "P(X4 = X1)");
    // E X² with the s.e. of X² from the exact fourth moment.
    let m4: f64 = (-400i64..=400)
        .map(|x| pmf(t1, x) * (x as f64).powi(4))
        .sum();
    let v = variance(t1);
    let se = ((m4 - v * v) / nf).sqrt();
    assert!((s2 / nf - v).abs() <= 6.0 * se, "E X² {} vs {v}", s2 / nf);
    // Cov(X4, X1) = Var X4: X1 = X4 + Y with Y independent of X4 and
    // Var Y = Var X1 − Var X4, so Var(X4·X1) = (m4 − v4²) + v4·(v − v4).
    let v4 = variance(t4);
    let m4_4: f64 = (-400i64..=400)
        .map(|x| pmf(t4, x) * (x as f64).powi(4))
        .sum();
    let cov = s14 / nf - (s4 / nf) * (s4 / nf);
    let se = ((m4_4 - v4 * v4 + v4 * (v - v4)) / nf).sqrt();
    assert!((cov - v4).abs() <= 6.0 * se, "Cov {cov} vs {v4} (se {se})");
    let se = ((m4_4 - v4 * v4) / nf).sqrt();
    assert!(
        (s44 / nf - v4).abs() <= 6.0 * se,
        "E X4² {} vs {v4}",
        s44 / nf
    );
}

/// Save and load: the same release, the same continuation, and the state's
/// JSON records the configuration; a Laplace state has no `discrete` key.
#[test]
fn state_round_trips_and_continues() {
    let mut g = GradualRelease::new(vec![2.0], discrete(-10, 256.0), 1.0, 9).unwrap();
    let fresh = GradualRelease::from_json(&g.to_json().unwrap(), Path::new("s")).unwrap();
    assert_eq!(fresh, g);
    g.release(2.0).unwrap();
    let json = g.to_json().unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["mechanism"]["kind"], "discrete");
    assert_eq!(v["mechanism"]["granularity"], "2^-10");
    assert_eq!(v["mechanism"]["levels_per_doubling"], 32);
    assert_eq!(v["mechanism"]["eps_max"], 256.0);
    assert_eq!(v["mechanism"]["rng"], "seeded");
    assert_eq!(v["discrete"]["walk"]["noise"]["delta_z"], 1024);
    assert!(v["discrete"]["word_pos"].as_u64().unwrap() > 0);
    let mut h = GradualRelease::from_json(&json, Path::new("s")).unwrap();
    assert_eq!(h, g);
    assert_eq!(h.to_json().unwrap(), json);
    assert_eq!(h.release(0.3).unwrap(), g.release(0.3).unwrap());
    assert_eq!(h.release(40.0).unwrap(), g.release(40.0).unwrap());
    let mut l =
        GradualRelease::new(vec![2.0], ReleaseNoise::Laplace { norm: Norm::L1 }, 1.0, 9).unwrap();
    l.release(1.0).unwrap();
    let lj = l.to_json().unwrap();
    assert!(!lj.contains("discrete"), "{lj}");
    let back = GradualRelease::from_json(&lj, Path::new("s")).unwrap();
    assert_eq!(back.to_json().unwrap(), lj);
}

/// A state whose answers, walk or configuration disagree is refused with a
/// line naming what is wrong.
#[test]
fn tampered_states_are_refused() {
    let mut g = GradualRelease::new(vec![2.0], discrete(-10, 256.0), 1.0, 9).unwrap();
    g.release(2.0).unwrap();
    g.release(0.5).unwrap();
    let json = g.to_json().unwrap();
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    let refused = |edit: &dyn Fn(&mut serde_json::Value), want: &str| {
        let mut w = v.clone();
        edit(&mut w);
        let e = GradualRelease::from_json(&w.to_string(), Path::new("st.json"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(want) && !e.contains('\n'), "{want}: {e}");
    };
    // An answer one grid step off.
    refused(
        &|w| {
            let y = w["history"][1]["value"][0].as_f64().unwrap();
            w["history"][1]["value"][0] = (y + 1.0 / 1024.0).into();
        },
        "does not match the stored noise path",
    );
    // A level that is not a rung.
    refused(&|w| w["history"][0]["eps"] = 1.9.into(), "history entry 0");
    refused(
        &|w| {
            w["discrete"]
                .as_object_mut()
                .unwrap()
                .remove("word_pos")
                .map(drop)
                .unwrap()
        },
        "word_pos missing",
    );
    refused(&|w| w["mechanism"]["eps_max"] = 100.0.into(), "top rung");
    refused(
        &|w| w["mechanism"]["granularity"] = "2^-9".into(),
        "does not match",
    );
    refused(
        &|w| w["mechanism"]["rng"] = "os".into(),
        "word_pos given for rng = os",
    );
    refused(
        &|w| w["mechanism"] = serde_json::json!({"kind": "laplace", "norm": "l1"}),
        "a discrete walk under mechanism",
    );
    refused(
        &|w| w["discrete"]["walk"]["noise"]["delta_z"] = 1000.into(),
        "delta_z",
    );
}

/// The OS generator: answers on the grid at rungs, the state records no
/// stream position and resumes by walking on with fresh OS randomness.
#[test]
fn os_entropy_releases_and_resumes() {
    let mech = ReleaseNoise::Discrete {
        granularity: Grid::default(),
        levels_per_doubling: 32,
        eps_max: 64.0,
        rng: RngSource::Os,
    };
    let mut g = GradualRelease::new(vec![0.5], mech, 1.0, 1).unwrap();
    let y = g.release(2.0).unwrap();
    let json = g.to_json().unwrap();
    assert!(!json.contains("word_pos"), "{json}");
    let mut h = GradualRelease::from_json(&json, Path::new("s")).unwrap();
    assert_eq!(h.release(2.0).unwrap(), y);
    let z = h.release(0.5).unwrap();
    assert_eq!(z[0] * 1024.0, (z[0] * 1024.0).round());
    assert_eq!(
        h.discrete_walk().unwrap().bottom(),
        h.discrete_noise().unwrap().unwrap().0.rung_of(0.5).unwrap()
    );
}

/// Bad configurations: a secret off the grid's range (named `value`),
/// `eps_max` outside the ladder, m out of range.
#[test]
fn bad_configurations_are_refused() {
    let e = GradualRelease::new(vec![1e300], discrete(-10, 256.0), 1.0, 1).unwrap_err();
    assert!(e.to_string().contains("value"), "{e}");
    for bad in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let e = GradualRelease::new(vec![1.0], discrete(-10, bad), 1.0, 1).unwrap_err();
        assert!(e.to_string().contains("eps_max"), "{e}");
    }
    let e = GradualRelease::new(vec![1.0], discrete(-10, 1e-12), 1.0, 1).unwrap_err();
    assert!(
        e.to_string().contains("eps_max") && e.to_string().contains("2^40"),
        "{e}"
    );
    let m0 = ReleaseNoise::Discrete {
        granularity: Grid::default(),
        levels_per_doubling: 0,
        eps_max: 1.0,
        rng: RngSource::Seeded,
    };
    assert!(GradualRelease::new(vec![1.0], m0, 1.0, 1).is_err());
}

/// A secret beyond the grid is refused without its value (the release
/// rounded it itself and quoted it: issue 32).
#[test]
fn a_secret_is_never_shown() {
    for secret in [123456789012345.0, -9.87654321e300] {
        let e = GradualRelease::new(vec![0.5, secret], discrete(-10, 256.0), 1.0, 1)
            .unwrap_err()
            .to_string();
        assert!(e.contains("not shown") && !e.contains('\n'), "{e}");
        assert!(!e.contains("12345678") && !e.contains("987654"), "{e}");
    }
}
