//! Every family through the one interface the engines use: the marginal of
//! a path read at a unit and of a fresh draw against the family's closed
//! form `mse`, the answer's squared error, the coupling (a path read at two
//! levels is one draw, not two), and the families' own conventions.
//!
//! Tolerances: a mean of N i.i.d. squared norms is compared with its
//! expectation within 6 standard errors, the standard error estimated from
//! the same N draws (sd/√N); N = 20,000 keeps each check under a second.

use super::*;
use crate::process::Norm;
use crate::process::discrete::{DiscreteNoise, Grid, RngSource};

const N: u64 = 20_000;

fn families() -> (Laplace, Gaussian, Discrete) {
    families_of(2)
}

/// The three families in dimension `dim` (γ = 2^-6: finer than ½).
fn families_of(dim: usize) -> (Laplace, Gaussian, Discrete) {
    let lap = Laplace::new(dim, Norm::L1, 1.5).unwrap();
    let gau = Gaussian::new(dim, Norm::L2, 1.0, 1e-5).unwrap();
    let noise = DiscreteNoise::new(Grid::from_exponent(-6).unwrap(), 16, 1.0, dim).unwrap();
    let dis = Discrete::new(noise, Norm::L1, RngSource::Seeded);
    (lap, gau, dis)
}

/// Mean and standard error of `xs`.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let m = xs.iter().sum::<f64>() / n;
    let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (n - 1.0);
    (m, (v / n).sqrt())
}

/// The squared errors of answers to u = 0.3·1 read from one path per trial
/// at every level of `eps` (and from fresh draws when `fresh`), against the
/// family's `mse` (+ the rounding of u for the discrete family).
fn check_marginals<F: NoiseFamily>(fam: &F, eps: &[f64], fresh: bool) {
    let n = fam.dim();
    let u = vec![0.3; n];
    let mut secret = Vec::new();
    let round_sq = fam.prepare(&u, &mut secret, Whose::Owner("7")).unwrap();
    let levels: Vec<F::Level> = eps.iter().map(|&e| fam.level(e).unwrap()).collect();
    let mut path = F::Path::default();
    let mut y = vec![0.0; n];
    let mut noise = vec![F::Coord::default(); n];
    let mut sq = vec![Vec::new(); eps.len()];
    let mut sq_fresh = vec![Vec::new(); eps.len()];
    // (e_lowest − e_highest)·e_highest, first coordinate: mean 0 when the
    // lowest level's noise is the highest's plus independent noise (one
    // path), −Var at the highest for two independent draws.
    let mut coupling = Vec::new();
    let (lo, hi) = (0, eps.len() - 1);
    for t in 0..N {
        let key = StreamKey::new(3, t, 0, fam.path_purpose());
        let mut rng = fam.generator(key).unwrap();
        fam.sample_path(&levels, &mut rng, &mut path).unwrap();
        let mut first = vec![0.0; eps.len()];
        for (k, &l) in levels.iter().enumerate() {
            let v = fam.read(&path, k, l);
            sq[k].push(fam.answer(&u, &secret, v, &mut y).unwrap());
            first[k] = y[0] - u[0];
        }
        coupling.push((first[lo] - first[hi]) * first[hi]);
        if fresh {
            let mut rng = fam
                .generator(StreamKey::new(3, t, 0, Purpose::Independent))
                .unwrap();
            for (k, &l) in levels.iter().enumerate() {
                fam.sample_fresh(l, &mut rng, &mut noise).unwrap();
                sq_fresh[k].push(fam.answer(&u, &secret, &noise, &mut y).unwrap());
            }
        }
    }
    for (k, &l) in levels.iter().enumerate() {
        let want = fam.mse(l) + round_sq;
        for xs in [&sq[k], &sq_fresh[k]] {
            if xs.is_empty() {
                continue;
            }
            let (m, se) = mean_se(xs);
            assert!(
                (m - want).abs() < 6.0 * se,
                "level {l:?}: mean {m} against {want} (se {se})"
            );
        }
    }
    let (m, se) = mean_se(&coupling);
    assert!(
        m.abs() < 6.0 * se,
        "one path read at two levels: {m} (se {se})"
    );
}

#[test]
fn every_family_reads_its_closed_form_marginals() {
    let (lap, gau, dis) = families();
    let eps = [0.8, 1.0, 3.0]; // ascending: unit 0 is the lowest
    check_marginals(&lap, &eps, true);
    check_marginals(&gau, &eps, false);
    check_marginals(&dis, &eps, true);
}

#[test]
fn levels_and_the_eps_used() {
    let (lap, gau, dis) = families();
    // Laplace: ε/Δ, answered at ε itself; 2n/level² for ℓ1.
    assert_eq!(lap.level(3.0).unwrap(), 2.0);
    assert_eq!(lap.eps_used(3.0, 2.0), 3.0);
    assert_eq!(lap.mse(2.0), 4.0 / 4.0);
    // Gaussian: the variance σ(ε, δ)², n·σ² of noise.
    let s = gau.sigma(1.0).unwrap();
    assert_eq!(gau.level(1.0).unwrap(), Sigma(s));
    assert_eq!(gau.mse(Sigma(s)), 2.0 * (s * s));
    assert_eq!(gau.path_mechanism(), Mechanism::Gaussian);
    assert_eq!(gau.path_purpose(), Purpose::Gaussian);
    assert!(
        gau.sample_fresh(
            Sigma(s),
            &mut gau
                .generator(StreamKey::new(1, 1, 1, Purpose::Independent))
                .unwrap(),
            &mut [0.0, 0.0]
        )
        .is_err()
    );
    // Discrete: the rung at or below ε, never more than asked.
    for e in [0.5, 1.0, 2.7, 15.0] {
        let k = dis.level(e).unwrap();
        let used = dis.eps_used(e, k);
        assert!(
            used <= e && used > e / 2f64.powf(1.0 / 16.0) * 0.999_999,
            "{e} → {used}"
        );
    }
    assert!(dis.level(1e-300).is_err());
}

#[test]
fn secrets_are_prepared_without_showing_them() {
    let (lap, _, dis) = families();
    let mut s = Vec::new();
    assert_eq!(
        lap.prepare(&[0.3, -2.0], &mut s, Whose::Owner("1"))
            .unwrap(),
        0.0
    );
    assert_eq!(s, vec![0.3, -2.0]);
    let mut h = Vec::new();
    let r = dis
        .prepare(&[0.3, -2.0], &mut h, Whose::Owner("1"))
        .unwrap();
    // γ = 2^-6: 0.3 → 19/64 (0.296875), −2 exact.
    assert_eq!(h, vec![19, -128]);
    assert_eq!(r, (0.296875f64 - 0.3).powi(2));
    let secret = 9.87654321e300;
    let e = dis
        .prepare(&[secret, 0.0], &mut h, Whose::Owner("42"))
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("owner 42") && !e.contains("9.87") && !e.contains("987"),
        "{e}"
    );
}

#[test]
fn the_noise_choice_dispatches_to_its_family() {
    let (lap, gau, dis) = families();
    struct Dim;
    impl Visit for Dim {
        type Out = (usize, Mechanism);
        fn run<F: NoiseFamily>(self, f: &F) -> (usize, Mechanism) {
            (f.dim(), f.path_mechanism())
        }
    }
    assert_eq!(Noise::Laplace(lap).visit(Dim), (2, Mechanism::Correlated));
    assert_eq!(Noise::Gaussian(gau).visit(Dim), (2, Mechanism::Gaussian));
    let d = Noise::Discrete(dis);
    assert_eq!(d.visit(Dim), (2, Mechanism::Correlated));
    assert!(d.discrete().is_some());
}

/// Each step family lists its path as a step function: levels ascending
/// from the bottom, each breakpoint's noise the path read at its level, its
/// ε and value units those of `breakpoints`; the Brownian path has none.
fn check_steps<F: NoiseFamily>(fam: &F, eps: &[f64]) {
    let levels: Vec<F::Level> = eps.iter().map(|&e| fam.level(e).unwrap()).collect();
    let mut path = F::Path::default();
    let mut changes = 0;
    for t in 0..300 {
        let mut rng = fam
            .generator(StreamKey::new(5, t, 0, Purpose::Path))
            .unwrap();
        fam.sample_path(&levels, &mut rng, &mut path).unwrap();
        let mut seen: Vec<(F::Level, f64, Vec<F::Coord>)> = Vec::new();
        fam.steps(&path, &mut |l, e, x| seen.push((l, e, x.to_vec())))
            .unwrap();
        assert_eq!(seen[0].0, levels[0], "the first at the bottom");
        assert!(seen.windows(2).all(|w| w[0].0 < w[1].0), "ascending");
        changes += seen.len() - 1;
        let mut listed = Vec::new();
        fam.breakpoints(&path, &levels, eps, &mut |e, v| {
            listed.push((e, v.to_vec()))
        });
        assert_eq!(listed.len(), seen.len());
        for ((l, e, x), (e2, v)) in seen.iter().zip(&listed) {
            assert_eq!(fam.read(&path, 0, *l), &x[..]);
            assert_eq!(e, e2);
            let mut w = vec![0.0; x.len()];
            fam.noise_value(x, &mut w).unwrap();
            assert_eq!(&w, v);
        }
    }
    assert!(
        changes > 100,
        "{changes}: paths that never jump test nothing"
    );
}

#[test]
fn step_families_list_their_paths_as_steps() {
    let (lap, gau, dis) = families();
    check_steps(&lap, &[0.8, 3.0]);
    check_steps(&dis, &[0.8, 3.0]);
    let s = gau.level(1.0).unwrap();
    let mut path = Default::default();
    let mut rng = gau
        .generator(StreamKey::new(5, 0, 0, Purpose::Gaussian))
        .unwrap();
    gau.sample_path(&[s], &mut rng, &mut path).unwrap();
    let e = gau.steps(&path, &mut |_, _, _| {}).unwrap_err().to_string();
    assert!(e.contains("gaussian") && !e.contains('\n'), "{e}");
}

#[test]
fn levels_are_ordered_like_privacy_and_reach_what_a_trim_sees() {
    let (lap, gau, dis) = families();
    // A larger ε is a larger level in every family (a smaller σ).
    assert!(lap.level(2.0).unwrap() > lap.level(1.0).unwrap());
    assert!(gau.level(2.0).unwrap() > gau.level(1.0).unwrap());
    assert!(Sigma(1.0) > Sigma(2.0));
    assert!(dis.level(2.0).unwrap() > dis.level(1.0).unwrap());
    // Laplace: every ε reaches ε/Δ (NaN reaches nothing a level is ≤ to).
    assert_eq!(lap.reach(3.0), Some(2.0));
    assert!(lap.reach(f64::NAN).is_some_and(|l| l.is_nan()));
    // Discrete: the rung, none below the smallest, the largest above.
    assert_eq!(dis.reach(2.7), dis.level(2.7).ok());
    assert_eq!(dis.reach(1e-300), None);
    assert_eq!(dis.reach(f64::NAN), None);
    let top = dis.noise().max_rung();
    assert_eq!(dis.reach(f64::INFINITY), Some(top));
    assert_eq!(dis.reach(1e308), Some(top));
}

#[test]
fn noise_in_value_units_is_exact_or_refused() {
    let (lap, _, dis) = families();
    let mut out = [0.0; 2];
    lap.noise_value(&[0.25, -3.5], &mut out).unwrap();
    assert_eq!(out, [0.25, -3.5]);
    // γ = 2^-6: X·γ exactly; 2^53 grid steps and beyond are refused.
    dis.noise_value(&[-3, 1 << 52], &mut out).unwrap();
    assert_eq!(out, [-3.0 / 64.0, (1u64 << 46) as f64]);
    assert!(dis.noise_value(&[0, 1 << 53], &mut out).is_err());
}

/// The release side of the families: the level answered (refused outside
/// the f64 range; the discrete chain's fixed top), and the lazy path read
/// back where it was drawn, in its slot.
#[test]
fn lazy_paths_answer_in_any_order() {
    let (lap, gau, dis) = families();
    assert!(lap.release_level(1e-70).is_err() && lap.release_level(1e70).is_err());
    assert_eq!(lap.release_level(3.0).unwrap(), 2.0);
    assert!(gau.release_level(1e-70).is_err());
    let top = dis.level(4.0).unwrap();
    let topped = dis.clone().with_top(top);
    assert_eq!(topped.release_level(100.0).unwrap(), top);
    assert_eq!(topped.release_level(2.0).unwrap(), dis.level(2.0).unwrap());
    check_lazy_orders(&lap, &[1.0, 0.2, 5.0]);
    check_lazy_orders(&gau, &[1.0, 0.2, 5.0]);
    check_lazy_orders(&topped, &[1.0, 0.2, 5.0]);
}

fn check_lazy_orders<F: NoiseFamily>(fam: &F, eps: &[f64]) {
    let key = |request| StreamKey::new(9, 4, request, Purpose::Release);
    let mut lazy = None;
    let first: Vec<Vec<F::Coord>> = eps
        .iter()
        .enumerate()
        .map(|(k, &e)| {
            let l = fam.release_level(e).unwrap();
            fam.lazy_noise(&mut lazy, l, key(k as u64), e).unwrap()
        })
        .collect();
    let lazy = lazy.unwrap();
    for (&e, x) in eps.iter().zip(&first) {
        let l = fam.release_level(e).unwrap();
        assert_eq!(fam.lazy_read(&lazy, l), Some(&x[..]), "read back at {e}");
        assert!(fam.check_lazy(&lazy).is_ok());
    }
    assert!(fam.lazy_points(&lazy) >= 1);
    let mut lazies = Lazies::default();
    *F::lazy_slot(&mut lazies) = Some(lazy.clone());
    assert_eq!(F::lazy_ref(&lazies), Some(&lazy));
}

/// A walk started at the top and read at descending levels holds, at every
/// level, what one path sampled over all of them with the same generator
/// holds there (the utility meets levels top-down and never knows the
/// bottom): `DownWalk` against `PathSampler`, the chain extended rung by
/// rung against the one-shot chain, Brownian increments against
/// `brownian_at`. Then the changes of both agree.
fn check_walk<F: NoiseFamily>(fam: &F, eps: &[f64]) {
    let levels: Vec<F::Level> = eps.iter().map(|&e| fam.level(e).unwrap()).collect();
    let mut path = F::Path::default();
    let mut walk = F::Walk::default();
    for t in 0..200 {
        let key = StreamKey::new(5, t, 0, fam.path_purpose());
        fam.sample_path(&levels, &mut fam.generator(key).unwrap(), &mut path)
            .unwrap();
        let mut rng = fam.generator(key).unwrap();
        fam.start_walk(levels[0], levels[0], &mut rng, &mut walk)
            .unwrap();
        for (k, &l) in levels.iter().enumerate() {
            let w = fam.walk_to(&mut walk, l, &mut rng).unwrap().to_vec();
            assert_eq!(w, fam.read(&path, k, l), "trial {t}, level {l:?}");
        }
        assert_eq!(fam.walk_changes(&walk), fam.changes(&path), "trial {t}");
    }
    // A walk read before it starts is an error, not a panic.
    let mut rng = fam
        .generator(StreamKey::new(5, 0, 0, fam.path_purpose()))
        .unwrap();
    assert!(
        fam.walk_to(&mut F::Walk::default(), levels[0], &mut rng)
            .is_err()
    );
}

#[test]
fn walks_down_are_the_sampled_paths() {
    let (lap, gau, dis) = families();
    let eps = [3.0, 1.0, 0.8, 0.3]; // descending: the order a walk is read in
    check_walk(&lap, &eps);
    check_walk(&gau, &eps);
    check_walk(&dis, &eps);
}

/// The walk's law when its top lies above the first level read (the
/// Laplace utility starts every path at the run's top): the squared error
/// at each level against `mse` (N walks, 6 standard errors as above).
#[test]
fn walks_from_a_higher_top_read_the_marginals() {
    let (lap, gau, dis) = families();
    fn check<F: NoiseFamily>(fam: &F) {
        let top = fam.level(20.0).unwrap();
        let eps = [3.0, 0.8];
        let levels: Vec<F::Level> = eps.iter().map(|&e| fam.level(e).unwrap()).collect();
        let mut sq = vec![Vec::new(); levels.len()];
        let mut walk = F::Walk::default();
        let n = fam.dim();
        let (u, mut y) = (vec![0.0; n], vec![0.0; n]);
        let mut secret = Vec::new();
        fam.prepare(&u, &mut secret, Whose::Owner("1")).unwrap();
        for t in 0..N {
            let mut rng = fam
                .generator(StreamKey::new(9, t, 0, fam.path_purpose()))
                .unwrap();
            fam.start_walk(top, levels[0], &mut rng, &mut walk).unwrap();
            for (k, &l) in levels.iter().enumerate() {
                let x = fam.walk_to(&mut walk, l, &mut rng).unwrap();
                sq[k].push(fam.answer(&u, &secret, x, &mut y).unwrap());
            }
        }
        for (k, &l) in levels.iter().enumerate() {
            let (m, se) = mean_se(&sq[k]);
            let want = fam.mse(l);
            assert!(
                (m - want).abs() < 6.0 * se,
                "{l:?}: {m} vs {want} (se {se})"
            );
        }
    }
    check(&lap);
    check(&gau);
    check(&dis);
}

/// `bit_flips`: for bits b ∈ {0, 1} answered as 1{y ≥ ½} (one path per
/// trial read at one level), the frequency of flips against f_b within 6
/// binomial standard errors √(f(1 − f)/N), and the debiased answers
/// (b̃ − f₀)/keep unbiased for b within 6 standard errors of their mean.
/// The discrete grid is finer than ½, so its two flips differ (and the test
/// would see one of them wrong if they were swapped).
#[test]
fn bit_flips_are_the_frequencies_of_flipped_bits() {
    let (lap, gau, dis) = families_of(1);
    fn check<F: NoiseFamily>(fam: &F, eps: f64) {
        let level = fam.level(eps).unwrap();
        let law = fam.bit_flips(level).unwrap();
        let [f0, f1] = law.flip;
        assert!((law.keep - (1.0 - f0 - f1)).abs() < 1e-15, "{law:?}");
        let mut path = F::Path::default();
        let mut y = [0.0];
        let mut secret = Vec::new();
        for b in [0.0, 1.0] {
            fam.prepare(&[b], &mut secret, Whose::Owner("1")).unwrap();
            let (mut flips, mut deb) = (0u64, Vec::with_capacity(N as usize));
            for t in 0..N {
                let key = StreamKey::new(13, t, b as u64, fam.path_purpose());
                let mut rng = fam.generator(key).unwrap();
                fam.sample_path(&[level], &mut rng, &mut path).unwrap();
                fam.answer(&[b], &secret, fam.read(&path, 0, level), &mut y)
                    .unwrap();
                let bit = if y[0] >= 0.5 { 1.0 } else { 0.0 };
                flips += u64::from(bit != b);
                deb.push((bit - f0) / law.keep);
            }
            let f = law.flip[b as usize];
            let se = (f * (1.0 - f) / N as f64).sqrt();
            let got = flips as f64 / N as f64;
            assert!(
                (got - f).abs() < 6.0 * se,
                "{eps} bit {b}: {got} vs {f} (se {se})"
            );
            let (m, se) = mean_se(&deb);
            assert!(
                (m - b).abs() < 6.0 * se,
                "{eps} bit {b}: debiased {m} (se {se})"
            );
        }
    }
    for eps in [0.7, 2.0] {
        check(&lap, eps);
        check(&gau, eps);
        check(&dis, eps);
    }
    let d = dis.bit_flips(dis.level(2.0).unwrap()).unwrap();
    assert!(d.flip[0] != d.flip[1], "grid finer than ½: ties go up");
}

#[test]
fn coordinate_variances_rates_and_grids() {
    let (lap, gau, dis) = families();
    // n·Var(coordinate) = mse, each family's own closed form.
    for e in [0.4, 3.0] {
        let l = lap.level(e).unwrap();
        assert!((2.0 * lap.coord_variance(l) / lap.mse(l) - 1.0).abs() < 1e-15);
        let s = gau.level(e).unwrap();
        assert!((2.0 * gau.coord_variance(s) / gau.mse(s) - 1.0).abs() < 1e-15);
        let k = dis.level(e).unwrap();
        assert!((2.0 * dis.coord_variance(k) / dis.mse(k) - 1.0).abs() < 1e-15);
    }
    // Fresh noise with iid Laplace(1/λ) coordinates: ℓ1, or one dimension.
    assert_eq!(lap.laplace_rate(2.0), Some(2.0));
    let l2 = Laplace::new(2, Norm::L2, 1.0).unwrap();
    assert_eq!(l2.laplace_rate(2.0), None);
    assert_eq!(
        Laplace::new(1, Norm::L2, 1.0).unwrap().laplace_rate(2.0),
        Some(2.0)
    );
    assert_eq!(gau.laplace_rate(gau.level(1.0).unwrap()), None);
    assert_eq!(dis.laplace_rate(dis.level(1.0).unwrap()), None);
    // Only the chain's answers lie on a grid.
    assert_eq!((lap.grid(), gau.grid()), (None, None));
    assert_eq!(dis.grid(), Some(2f64.powi(-6)));
}

/// `checked_level`: the Laplace family refuses ε/Δ outside the range where
/// its sums stay finite, naming where the level is used and the map (or the
/// sensitivity, when Δ ≠ 1 is what put ε/Δ out of range); the others refuse
/// as `level` does.
#[test]
fn checked_levels_name_the_map_and_the_distance() {
    let (lap, _, dis) = families();
    assert_eq!(
        lap.checked_level(3.0, "exp:a=3,b=1", "distance 1").unwrap(),
        2.0
    );
    let e = lap.checked_level(1e-70, "exp:a=3,b=40", "distance 4");
    let e = e.unwrap_err().to_string();
    assert!(e.contains("sensitivity") && e.contains("distance 4"), "{e}");
    let unit = Laplace::new(2, Norm::L1, 1.0).unwrap();
    let e = unit.checked_level(1e-70, "exp:a=3,b=40", "distance 4");
    let e = e.unwrap_err().to_string();
    assert!(
        e.contains("exp:a=3,b=40") && e.contains("distance 4"),
        "{e}"
    );
    assert!(lap.checked_level(f64::INFINITY, "s", "distance 1").is_err());
    assert!(dis.checked_level(1e-300, "s", "distance 1").is_err());
    assert_eq!(
        dis.checked_level(2.7, "s", "distance 1").unwrap(),
        dis.level(2.7).unwrap()
    );
}

/// Laplace's 1-D ℓ1 loop keeps a run of one unit's recipients in registers:
/// bit for bit the answer-by-answer sums for runs of every length (1 to 40,
/// interleaved, a unit coming back after others), a single recipient and
/// none.
#[test]
fn fresh_square_sums_in_runs_match_the_definition() {
    let fam = Laplace::new(1, Norm::L1, 1.5).unwrap();
    let u = [0.3];
    let mut secret = Vec::new();
    fam.prepare(&u, &mut secret, Whose::Owner("0")).unwrap();
    let levels: Vec<f64> = [0.5, 1.0, 4.0, 2.0]
        .iter()
        .map(|&e| fam.level(e).unwrap())
        .collect();
    // Runs of lengths 1, 2, …, 40 cycling through the units 0, 2, 1, 3.
    let runs: Vec<u32> = (1..=40u32)
        .flat_map(|len| std::iter::repeat_n([0, 2, 1, 3][len as usize % 4], len as usize))
        .collect();
    let sums = |units: &[u32], fast: bool| {
        let key = StreamKey::new(5, 9, 0, Purpose::Independent);
        let mut rng = fam.generator(key).unwrap();
        let mut sums = vec![0.0; levels.len()];
        let it = units.iter().copied();
        if fast {
            fam.fresh_square_sums(&u, &secret, &levels, it, &mut rng, &mut sums)
        } else {
            fresh_square_sums_each(&fam, &u, &secret, &levels, it, &mut rng, &mut sums)
        }
        .unwrap();
        sums.iter().map(|s| s.to_bits()).collect::<Vec<_>>()
    };
    for units in [&runs[..], &[2], &[], &[1; 100]] {
        assert_eq!(sums(units, true), sums(units, false), "{units:?}");
    }
    assert!(
        sums(&runs, true).iter().all(|&b| b != 0),
        "every unit drawn"
    );
    assert_eq!(sums(&[], true), vec![0; 4]);
}

/// `fresh_square_sums` gives, bit for bit, the sums of the answer-by-answer
/// definition (`fresh_square_sums_each`) from the same stream, for every
/// family (the discrete chain's loop in dims 1 and 2) and for Laplace's
/// scalar ℓ1 loop and its fall-backs (ℓ2, dim 2);
/// and a different seed gives different sums (the test sees the draws).
#[test]
fn fresh_square_sums_match_the_answer_by_answer_definition() {
    fn check<F: NoiseFamily>(fam: &F, what: &str) {
        let dim = fam.dim();
        let u = vec![0.3; dim];
        let mut secret = Vec::new();
        fam.prepare(&u, &mut secret, Whose::Owner("0")).unwrap();
        let eps = [0.5, 1.0, 4.0];
        let levels: Vec<F::Level> = eps.iter().map(|&e| fam.level(e).unwrap()).collect();
        // Recipients in node order with units repeating and interleaving.
        let recs: Vec<(u32, u32)> = (0..500u32).map(|j| (j, (j * 7 + j / 3) % 3)).collect();
        let units = || recs.iter().map(|&(_, k)| k);
        let sums = |seed: u64, fast: bool| {
            let mut rng = fam
                .generator(StreamKey::new(seed, 9, 0, Purpose::Independent))
                .unwrap();
            let mut sums = vec![0.0; levels.len()];
            if fast {
                fam.fresh_square_sums(&u, &secret, &levels, units(), &mut rng, &mut sums)
            } else {
                fresh_square_sums_each(fam, &u, &secret, &levels, units(), &mut rng, &mut sums)
            }
            .unwrap();
            sums.iter().map(|s| s.to_bits()).collect::<Vec<_>>()
        };
        assert_eq!(sums(5, true), sums(5, false), "{what}");
        assert_ne!(sums(5, true), sums(6, true), "{what}: the seed is used");
    }
    for (dim, norm) in [(1, Norm::L1), (1, Norm::L2), (2, Norm::L1), (3, Norm::L2)] {
        let lap = Laplace::new(dim, norm, 1.5).unwrap();
        check(&lap, &format!("laplace dim {dim} {norm:?}"));
    }
    for dim in [1, 2] {
        let (_, _, dis) = families_of(dim);
        check(&dis, &format!("discrete dim {dim}"));
    }
}
