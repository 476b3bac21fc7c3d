//! The law of the chain (memo §2, §4, §5): every rung's marginal is DL at its
//! rate, two rungs share the atom c + (1 − c)(1 − a₂)/(1 + a₂) and Cov(X₁, X₂)
//! = Var X₁, and a path extended in steps is the one-shot path.

use super::*;
use crate::process::discrete::chain::next_event;
use crate::process::discrete::theory::{atom, pmf, stay_probability, variance};
use crate::process::discrete::{DiscreteNoise, DiscretePath, DiscreteWalk, Grid, Rung, Sampler};

/// γ = 2^-3, Δ = 1, m = 32: Δ_Z = 8 (n = 1) or 9 (n = 2, odd denominators).
fn noise(dim: usize) -> DiscreteNoise {
    DiscreteNoise::new(Grid::from_exponent(-3).unwrap(), 32, 1.0, dim).unwrap()
}

/// `n` paths from `top` down to the lowest of `rungs`, read at `rungs`:
/// coordinate `c` of each path at each rung.
fn sample(
    noise: &DiscreteNoise,
    n: usize,
    id: u64,
    top: Rung,
    rungs: &[Rung],
) -> Vec<Vec<Vec<i64>>> {
    let bottom = rungs.iter().copied().min().unwrap_or(top);
    let mut out = vec![vec![Vec::with_capacity(n); noise.dim()]; rungs.len()];
    let mut path = DiscretePath::empty(noise.dim());
    let mut r = rng(id);
    for _ in 0..n {
        noise
            .sample_path_into(top, bottom, &mut r, &mut path)
            .unwrap();
        for (slot, &k) in out.iter_mut().zip(rungs) {
            for (c, v) in path.value_at(k).unwrap().iter().enumerate() {
                slot[c].push(*v);
            }
        }
    }
    out
}

/// The marginal at `k`: χ², symmetry, and E X² = 2a/(1 − a)² within 6 s.e.
/// (the sample s.d. of X² over √N).
#[track_caller]
fn assert_marginal(what: &str, noise: &DiscreteNoise, k: Rung, d: &[i64]) {
    let t = noise.rate_f64(k);
    let sigma = variance(t).sqrt();
    let p = chi2_pvalue(d, |x| pmf(t, x), sigma);
    assert!(p > 1e-6, "{what}, rung {k}: p = {p}");
    assert_symmetric(&format!("{what}, rung {k}"), d, sigma);
    let n = d.len() as f64;
    let sq: Vec<f64> = d.iter().map(|&x| (x as f64).powi(2)).collect();
    let m2 = sq.iter().sum::<f64>() / n;
    let sd = (sq.iter().map(|v| (v - m2).powi(2)).sum::<f64>() / (n - 1.0)).sqrt();
    assert_within(
        &format!("{what}, rung {k}: E X²"),
        m2,
        variance(t),
        sd / n.sqrt(),
    );
}

/// χ², symmetry and second moment of the marginal at the top, a middle rung
/// and the bottom: m = 32 from ε = 4 down to 1 (64 steps) for n = 1
/// (Δ_Z = 8) and n = 2 (Δ_Z = 9, each coordinate), and m = 1 from ε = 4 down
/// to 1/4 (steps that halve ε, where adding the upper rung's noise on a
/// jump would show). The next rung's law is rejected at the bottom.
#[test]
fn every_rung_has_the_discrete_laplace_marginal() {
    for dim in [1, 2] {
        let noise = noise(dim);
        let rungs = [Rung(64), Rung(45), Rung(0)];
        assert_eq!(noise.rung_of(4.0).unwrap(), rungs[0]);
        let draws = sample(&noise, 30_000, 700 + dim as u64, rungs[0], &rungs);
        for (k, per_coord) in rungs.iter().zip(&draws) {
            for (c, d) in per_coord.iter().enumerate() {
                assert_marginal(&format!("m = 32, dim {dim}, coordinate {c}"), &noise, *k, d);
            }
        }
        // The rung above the bottom (2^(1/32) more rate) is not the bottom's law.
        let t_wrong = noise.rate_f64(Rung(8));
        let q = chi2_pvalue(&draws[2][0], |x| pmf(t_wrong, x), variance(t_wrong).sqrt());
        assert!(q < 1e-6, "rung 8's law not rejected at rung 0: p = {q}");
    }
    let coarse = DiscreteNoise::new(Grid::from_exponent(-3).unwrap(), 1, 1.0, 1).unwrap();
    let rungs = [Rung(2), Rung(1), Rung(-1), Rung(-2)];
    let draws = sample(&coarse, 30_000, 710, Rung(2), &rungs);
    for (k, d) in rungs.iter().zip(&draws) {
        assert_marginal("m = 1", &coarse, *k, &d[0]);
    }
}

/// Two rungs of one path (k₁ = 64 above k₂ = 40): P(X₁ = X₂) = c + (1 − c)·
/// (1 − a₂)/(1 + a₂) (and not c alone), E[X₁·(X₂ − X₁)] = 0 (the increment is
/// independent) and Cov(X₁, X₂) = Var X₁.
#[test]
fn two_rungs_share_the_atom_and_the_covariance() {
    let noise = noise(1);
    let n = 40_000;
    let (k1, k2) = (Rung(64), Rung(40));
    let draws = sample(&noise, n, 800, k1, &[k1, k2]);
    let (x1, x2) = (&draws[0][0], &draws[1][0]);
    let (t1, t2) = (noise.rate_f64(k1), noise.rate_f64(k2));
    let equal = x1.iter().zip(x2).filter(|(a, b)| a == b).count() as u64;
    let p = atom(t1, t2);
    assert_prop("P(X1 = X2)", equal, n as u64, p);
    let c = stay_probability(t1, t2);
    let z = (equal as f64 / n as f64 - c).abs() / prop_se(p, n as u64);
    assert!(z > 6.0, "the atom without its DL(0) term is not rejected");
    let prod = |f: &dyn Fn(f64, f64) -> f64| -> (f64, f64) {
        let v: Vec<f64> = x1
            .iter()
            .zip(x2)
            .map(|(&a, &b)| f(a as f64, b as f64))
            .collect();
        let m = v.iter().sum::<f64>() / n as f64;
        let sd = (v.iter().map(|x| (x - m).powi(2)).sum::<f64>() / (n as f64 - 1.0)).sqrt();
        (m, sd / (n as f64).sqrt())
    };
    let (inc, se) = prod(&|a, b| a * (b - a));
    assert_within("E[X1 (X2 − X1)]", inc, 0.0, se);
    let (cov, se) = prod(&|a, b| a * b);
    assert_within("Cov(X1, X2)", cov, variance(t1), se);
    assert!((cov - variance(t2)).abs() > 6.0 * se, "Var X2 not rejected");
}

/// Extending a walk in steps (with a serde round trip of its state between
/// them) gives exactly the one-shot path of the same stream; a rung at or
/// above the bottom draws nothing.
#[test]
fn one_shot_equals_extended_in_steps() {
    for dim in [1, 3] {
        let noise = DiscreteNoise::new(Grid::default(), 32, 1.0, dim).unwrap();
        let (top, mid, bottom) = (
            noise.rung_of(15.0).unwrap(),
            noise.rung_of(2.7).unwrap(),
            noise.rung_of(0.5).unwrap(),
        );
        for owner in 0..150 {
            let one_shot = noise
                .sample_path(top, bottom, &mut rng(900 + owner))
                .unwrap();
            let mut r = rng(900 + owner);
            let mut walk = DiscreteWalk::start(&noise, top, &mut r).unwrap();
            walk.extend_to(mid, &mut r).unwrap();
            let json = serde_json::to_string(&walk).unwrap();
            let mut walk: DiscreteWalk = serde_json::from_str(&json).unwrap();
            let probe = r.get_word_pos();
            walk.extend_to(Rung(mid.0 + 5), &mut r).unwrap();
            assert_eq!(probe, r.get_word_pos(), "no draw above the bottom");
            walk.extend_to(bottom, &mut r).unwrap();
            assert_eq!(walk.path(), &one_shot, "dim {dim}, owner {owner}");
            for k in bottom.0..=top.0 + 3 {
                assert_eq!(one_shot.value_at(Rung(k)), walk.path().value_at(Rung(k)));
            }
            assert_eq!(walk.bottom(), bottom);
        }
    }
}

/// Breakpoints are strictly ascending from the bottom, each changes the
/// value, a path over [0.5, 15] changes about 2n·ln 30 times (the continuous
/// rate, up to the grid), reading below the bottom gives nothing, and a path
/// at huge rates (big-integer steps) stays at 0.
#[test]
fn path_structure() {
    let noise = DiscreteNoise::new(Grid::default(), 32, 1.0, 2).unwrap();
    let (top, bottom) = (noise.rung_of(15.0).unwrap(), noise.rung_of(0.5).unwrap());
    let mut path = DiscretePath::empty(2);
    let mut r = rng(1000);
    let n = 4_000;
    let mut changes = 0;
    for _ in 0..n {
        noise
            .sample_path_into(top, bottom, &mut r, &mut path)
            .unwrap();
        let bps: Vec<(Rung, Vec<i64>)> = path.breakpoints().map(|(k, v)| (k, v.to_vec())).collect();
        assert_eq!(bps[0].0, bottom);
        assert!(bps.windows(2).all(|w| w[0].0 < w[1].0 && w[0].1 != w[1].1));
        assert!(bps.last().unwrap().0 <= top);
        assert_eq!(path.value_at(Rung(bottom.0 - 1)), None);
        assert_eq!(path.value_at(Rung(top.0 + 100)), path.value_at(top));
        changes += path.num_changes();
    }
    // Per step and coordinate the value changes with q = P(B = 1)·P(L ≠ 0); a
    // breakpoint is a step where some coordinate changes. The per-coordinate
    // rate is within 1 % of the continuous lazy rule 1 − (ε_{k−1}/ε_k)² per
    // step (memo §2: r tends to it as the grid shrinks).
    let (mut expected, mut coord, mut lazy) = (0.0, 0.0, 0.0);
    for k in bottom.0 + 1..=top.0 {
        let (t1, t2) = (noise.rate_f64(Rung(k)), noise.rate_f64(Rung(k - 1)));
        let q = (1.0 - stay_probability(t1, t2)) * (1.0 - pmf(t2, 0));
        expected += 1.0 - (1.0 - q).powi(2);
        coord += 2.0 * q;
        lazy += 2.0 * (1.0 - (t2 / t1).powi(2));
    }
    assert!((coord / lazy - 1.0).abs() < 0.01, "{coord} against {lazy}");
    // A sum of independent indicators: variance ≤ mean.
    let per_path = changes as f64 / n as f64;
    assert_within(
        "changes per path",
        per_path,
        expected,
        (expected / n as f64).sqrt(),
    );
    let (hi, lo) = (noise.rung_of(1e60).unwrap(), noise.rung_of(1e59).unwrap());
    let p = noise.sample_path(hi, lo, &mut r).unwrap();
    assert_eq!(p.value_at(lo), Some(&[0i64, 0][..]));
    assert_eq!(p.value_at(hi), Some(&[0i64, 0][..]));
}

/// The map from random streams to paths is part of the format: a stored walk
/// is continued by drawing more words, and seeded runs must reproduce. Any
/// change to the samplers that draws words differently changes these values
/// and must be deliberate (and invalidates stored discrete states).
#[test]
fn the_stream_to_path_map_is_pinned() {
    use crate::rng::{Purpose, rng_for};
    let noise = DiscreteNoise::new(Grid::default(), 32, 1.0, 2).unwrap();
    let (top, bottom) = (noise.rung_of(15.0).unwrap(), noise.rung_of(0.5).unwrap());
    assert_eq!((top, bottom), (Rung(125), Rung(-32)));
    // Sampler 1 (683415f): what stored walks without a sampler record hold.
    let mut p = DiscretePath::empty(2);
    noise
        .sample_path_with(
            Sampler::Rungwise,
            top,
            bottom,
            &mut rng_for(1, 1, 0, Purpose::Path),
            &mut p,
        )
        .unwrap();
    let got: Vec<(i32, Vec<i64>)> = p.breakpoints().map(|(k, v)| (k.0, v.to_vec())).collect();
    let want: Vec<(i32, Vec<i64>)> = [
        (-32, [-134, -778]),
        (35, [-134, -428]),
        (48, [-134, -394]),
        (50, [-134, -372]),
        (64, [-134, -292]),
        (66, [-134, -238]),
        (68, [60, -238]),
        (69, [-82, -238]),
        (80, [-48, -238]),
        (85, [-48, 118]),
        (100, [-48, 105]),
        (104, [-68, 105]),
        (117, [-23, 105]),
    ]
    .into_iter()
    .map(|(k, v)| (k, v.to_vec()))
    .collect();
    assert_eq!(got, want);
    let mut r = rng_for(1, 0, 0, Purpose::Independent);
    let mut out = [0i64; 2];
    let mut fresh = vec![];
    for _ in 0..4 {
        noise
            .sample_fresh_into(noise.rung_of(1.0).unwrap(), &mut r, &mut out)
            .unwrap();
        fresh.extend(out);
    }
    assert_eq!(fresh, [497, -1191, 5415, 38, -551, -211, 2117, 1625]);
    // Sampler 2 (jump to jump), the one new paths, walks and states use.
    let p = noise
        .sample_path(top, bottom, &mut rng_for(1, 1, 0, Purpose::Path))
        .unwrap();
    assert_eq!(p.sampler(), Sampler::Jumpwise);
    let got: Vec<(i32, Vec<i64>)> = p.breakpoints().map(|(k, v)| (k.0, v.to_vec())).collect();
    let want: Vec<(i32, Vec<i64>)> = SAMPLER_2_PIN
        .iter()
        .map(|(k, v)| (*k, v.to_vec()))
        .collect();
    assert_eq!(got, want);
}

/// The breakpoints of sampler 2's pinned path (see
/// `the_stream_to_path_map_is_pinned`).
const SAMPLER_2_PIN: [(i32, [i64; 2]); 16] = [
    (-32, [2878, 4253]),
    (-29, [903, 4253]),
    (-18, [903, 729]),
    (-12, [948, 343]),
    (5, [948, 363]),
    (6, [1321, 363]),
    (23, [37, 363]),
    (27, [37, 1]),
    (34, [37, 276]),
    (73, [27, 276]),
    (79, [27, 122]),
    (82, [27, 211]),
    (89, [27, 151]),
    (98, [-23, 151]),
    (105, [-23, 85]),
    (115, [-23, 105]),
];

/// Sampler 2's search (memo §2 telescoped): the rung of the first jump below
/// a top k has P(no jump from k through j) = c_kj = (a_k/a_j)·((1 − a_j)/
/// (1 − a_k))² (Chapman–Kolmogorov), so P(first jump at j) = c_{k,j+1} −
/// c_kj. Searches restart at octave boundaries (jump = false), so the top is
/// chosen two octaves and a half above the bottom. χ² over the rungs plus a
/// bin "no jump through the bottom" (p-value > 1e−6, the module's rule; with
/// N = 60,000 every bin's expected count is ≥ 5, asserted); the same draws
/// reject the law with one D coin instead of two (a search that dropped J′).
#[test]
fn the_first_jump_rung_has_the_chapman_kolmogorov_law() {
    for (dim, m, top, bottom) in [(1, 32, 80, 0), (2, 3, 8, -4)] {
        let noise = DiscreteNoise::new(Grid::from_exponent(-3).unwrap(), m, 1.0, dim).unwrap();
        let (top, bottom) = (Rung(top), Rung(bottom));
        let n = 60_000u64;
        let bins = (top.0 - bottom.0) as usize + 1;
        let mut counts = vec![0u64; bins];
        let mut r = rng(1200 + u64::from(m));
        for _ in 0..n {
            let mut k = top.0;
            let j = loop {
                let e = next_event(&noise, k, &mut r);
                if e.jump || e.rung < bottom.0 {
                    break e.rung;
                }
                k = e.rung;
            };
            // Bin 0: no jump through the bottom; bin i: the jump at top − i.
            let bin = if j < bottom.0 {
                0
            } else {
                (top.0 - j) as usize
            };
            counts[bin] += 1;
        }
        let law = |stay: &dyn Fn(f64, f64) -> f64| -> Vec<f64> {
            let tk = noise.rate_f64(top);
            let c = |j: i32| {
                if j == top.0 {
                    1.0
                } else {
                    stay(tk, noise.rate_f64(Rung(j)))
                }
            };
            let mut p = vec![c(bottom.0)];
            p.extend((1..bins).map(|i| {
                let j = top.0 - i as i32;
                c(j + 1) - c(j)
            }));
            p
        };
        let probs = law(&stay_probability);
        assert!(probs.iter().all(|&p| p * n as f64 >= 5.0), "{probs:?}");
        let p = pvalue(&counts, &probs);
        assert!(p > 1e-6, "dim {dim}, m = {m}: p = {p}");
        let one_d = |t1: f64, t2: f64| (-(t1 - t2)).exp() * (-t2).exp_m1() / (-t1).exp_m1();
        let q = pvalue(&counts, &law(&one_d));
        assert!(
            q < 1e-6,
            "dim {dim}, m = {m}: one D coin not rejected, p = {q}"
        );
    }
}

/// A walk of either sampler extended in pieces of random sizes — stopping
/// one rung at a time, at pending jumps and at octave boundaries, with a
/// serde round trip of the state after every piece — is the one-shot path
/// of the same stream bit for bit and has read the same words.
#[test]
fn a_walk_extended_in_pieces_is_the_one_shot_walk() {
    use rand::RngExt as _;
    for sampler in [Sampler::Rungwise, Sampler::Jumpwise] {
        for (dim, m) in [(1, 32), (3, 32), (2, 3)] {
            let noise = DiscreteNoise::new(Grid::default(), m, 1.0, dim).unwrap();
            let (top, bottom) = (noise.rung_of(12.0).unwrap(), noise.rung_of(0.3).unwrap());
            let mut sizes = rng(1300);
            for owner in 0..60 {
                let mut r = rng(1400 + owner);
                let mut one = DiscretePath::empty(dim);
                noise
                    .sample_path_with(sampler, top, bottom, &mut r, &mut one)
                    .unwrap();
                let end = r.get_word_pos();
                let mut r = rng(1400 + owner);
                let mut walk = DiscreteWalk::start_with(&noise, top, sampler, &mut r).unwrap();
                while walk.bottom() > bottom {
                    let step = sizes.random_range(1..=12);
                    let to = Rung((walk.bottom().0 - step).max(bottom.0));
                    walk.extend_to(to, &mut r).unwrap();
                    let json = serde_json::to_string(&walk).unwrap();
                    walk = serde_json::from_str(&json).unwrap();
                    assert_eq!(walk.sampler(), sampler);
                }
                assert_eq!(
                    walk.path(),
                    &one,
                    "{sampler:?}, dim {dim}, m {m}, owner {owner}"
                );
                assert_eq!(
                    r.get_word_pos(),
                    end,
                    "{sampler:?}, dim {dim}, owner {owner}"
                );
            }
        }
    }
}
