//! Unit tests of the utility engine: closed forms, exact access bias,
//! debiasing, determinism, replicates, and the Gamma-sum shortcut.

use super::*;
use crate::control::Control;
use crate::epsilon::EpsilonMap;
use crate::rng::{Purpose, rng_for};
use crate::sim::Owners;
use crate::values::ValueSpec;

/// A connected 40-node graph: a ring with chords (the shrinkage tests'
/// too).
pub(super) fn small_graph() -> Graph {
    let n = 40u32;
    let mut e: Vec<(u32, u32)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
    e.extend(
        (0..n)
            .step_by(3)
            .map(|i| (i, (i * 7 + 11) % n))
            .filter(|(a, b)| a != b),
    );
    Graph::from_index_edges(n as usize, &e, None, false).unwrap()
}

fn config(values: ValueSpec, post: Post, norm: Norm, dim: usize) -> UtilityConfig {
    let mut c = UtilityConfig::default();
    c.sim.eps = EpsilonMap::exp(3.0, 0.5).unwrap();
    c.sim.values = values;
    c.sim.post = post;
    c.sim.norm = norm;
    c.sim.dim = dim;
    c.sim.owners = Owners::All;
    c
}

/// Values uniform on [0, 1] in `dim` dimensions, no post-processing, ℓ1 noise.
fn unit_l1(dim: usize) -> UtilityConfig {
    config(
        ValueSpec::Uniform { lo: 0.0, hi: 1.0 },
        Post::None,
        Norm::L1,
        dim,
    )
}

/// Runs `reps` replicates; returns per replicate the per-recipient outcome.
fn replicates(g: &Graph, c: &UtilityConfig, reps: u64) -> (Vec<RecipientErrors>, Vec<UtilityRow>) {
    let d = Distances::new(g, DistanceKind::Hop, &Default::default()).unwrap();
    let mut c = c.clone();
    c.replicates = reps as usize;
    let plan = UtilityPlan::new(&c, g, &d).unwrap();
    let ctl = Control::new();
    let out: Vec<RecipientErrors> = (0..reps)
        .map(|r| plan.evaluate(&plan.run_replicate(r, &ctl, &|_| {}).unwrap().0, r))
        .collect();
    let errs: Vec<Vec<Vec<f64>>> = out.iter().map(|e| e.sq_err.clone()).collect();
    let rows = plan.rows(&errs, &out[0]);
    (out, rows)
}

fn all_row<'r>(rows: &'r [UtilityRow], scheme: &str) -> &'r UtilityRow {
    rows.iter()
        .find(|r| r.scheme == scheme && r.degree_lo.is_none())
        .unwrap()
}

/// Per recipient, the squared error averaged over replicates agrees with
/// the closed form Σ Var / N² (within 6 standard errors of that average),
/// for both mechanisms, ℓ1 1-D and ℓ2 3-D (the ℓ2 independent sums are drawn
/// per answer, ℓ1 through Gamma differences); and over all recipients the
/// two mechanisms agree with each other.
#[test]
fn per_recipient_mse_matches_the_closed_form() {
    let g = small_graph();
    let reps = 400u64;
    for (norm, dim) in [(Norm::L1, 1), (Norm::L2, 3)] {
        let c = config(
            ValueSpec::Uniform { lo: 0.0, hi: 1.0 },
            Post::None,
            norm,
            dim,
        );
        let (out, rows) = replicates(&g, &c, reps);
        for si in 0..2 {
            let th = out[0].theory[si].as_ref().unwrap();
            for j in [0usize, 7, 19, 33] {
                let xs: Vec<f64> = out.iter().map(|e| e.sq_err[si][j]).collect();
                let m = xs.iter().sum::<f64>() / reps as f64;
                let sd =
                    (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (reps - 1) as f64).sqrt();
                let se = sd / (reps as f64).sqrt();
                assert!(
                    (m - th[j]).abs() < 6.0 * se,
                    "{norm:?} {dim} scheme {si} recipient {j}: {m} vs theory {} (se {se})",
                    th[j]
                );
            }
        }
        let (a, b) = (all_row(&rows, "correlated"), all_row(&rows, "independent"));
        let (sa, sb) = (a.mse_se.unwrap(), b.mse_se.unwrap());
        assert!((a.mse - a.mse_theory.unwrap()).abs() < 6.0 * sa);
        assert!((b.mse - b.mse_theory.unwrap()).abs() < 6.0 * sb);
        assert!((a.mse - b.mse).abs() < 6.0 * (sa * sa + sb * sb).sqrt());
    }
}

/// A star: the centre's estimate under either mechanism has the same law
/// (one answer per leaf, different owners independent): its error's mean
/// and variance agree between the two.
#[test]
fn single_recipient_mechanisms_agree_in_law() {
    let e: Vec<(u32, u32)> = (1..12u32).map(|i| (0, i)).collect();
    let g = Graph::from_index_edges(12, &e, None, false).unwrap();
    let c = unit_l1(1);
    let reps = 1500u64;
    let (out, _) = replicates(&g, &c, reps);
    let stat = |si: usize| {
        let xs: Vec<f64> = out.iter().map(|e| e.sq_err[si][0]).collect();
        let m = xs.iter().sum::<f64>() / reps as f64;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (reps - 1) as f64;
        (m, v / reps as f64)
    };
    let ((ma, va), (mb, vb)) = (stat(0), stat(1));
    assert!((ma - mb).abs() < 6.0 * (va + vb).sqrt(), "{ma} vs {mb}");
}

/// Access on a path 0–1–2–3–4 with radius 1: each node sees itself and its
/// neighbours; the error is the exact, deterministic bias of that mean.
#[test]
fn access_error_is_the_exact_bias() {
    let e = [(0u32, 1u32), (1, 2), (2, 3), (3, 4)];
    let g = Graph::from_index_edges(5, &e, None, false).unwrap();
    let c = unit_l1(1);
    let (out, rows) = replicates(&g, &c, 2);
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let u: Vec<f64> = (0..5)
        .map(|j| {
            let mut x = [0.0];
            plan.values().value(j, &mut x);
            x[0]
        })
        .collect();
    let all = u.iter().sum::<f64>() / 5.0;
    let seen: [&[usize]; 5] = [&[0, 1], &[0, 1, 2], &[1, 2, 3], &[2, 3, 4], &[3, 4]];
    let ai = plan
        .schemes()
        .iter()
        .position(|s| *s == Scheme::Access)
        .unwrap();
    let mut total = 0.0;
    for (j, seen) in seen.iter().enumerate() {
        let est = seen.iter().map(|&i| u[i]).sum::<f64>() / seen.len() as f64;
        let want = (est - all) * (est - all);
        assert!((out[0].sq_err[ai][j] - want).abs() < 1e-12, "node {j}");
        assert_eq!(out[0].sq_err[ai][j], out[1].sq_err[ai][j]);
        total += want;
    }
    let r = all_row(&rows, "access");
    assert!((r.mse - total / 5.0).abs() < 1e-12);
    assert_eq!(r.mse_se, Some(0.0));
    assert_eq!(r.mse_theory, None);
}

/// Projected bits: the debiased means are unbiased (signed error averaged
/// over replicates and recipients within 6 se of 0), while the plain
/// projected mean carries the predicted bias Σ q(1 − 2u)/N; the MSE of
/// each agrees with its closed form.
#[test]
fn bits_debiasing_is_unbiased() {
    let g = small_graph();
    let c = config(ValueSpec::Bits { p: 0.3 }, Post::Bit, Norm::L1, 1);
    let reps = 400u64;
    let (out, rows) = replicates(&g, &c, reps);
    check_debiased_bits(&out, &rows, g.n(), reps);
}

/// Projected bits over `reps` replicates of `n` recipients: the debiased
/// means (schemes 2, 3) unbiased within 6 se, the plain projected mean
/// (scheme 0) visibly biased, every scheme's MSE within 6 se of its closed
/// form (the bits tests of every noise).
pub(super) fn check_debiased_bits(
    out: &[RecipientErrors],
    rows: &[UtilityRow],
    n: usize,
    reps: u64,
) {
    let signed = |si: usize| -> (f64, f64) {
        let xs: Vec<f64> = out
            .iter()
            .map(|e| (0..n).map(|j| e.estimates[si][j] - e.mean[j]).sum::<f64>() / n as f64)
            .collect();
        let m = xs.iter().sum::<f64>() / reps as f64;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (reps - 1) as f64;
        (m, (v / reps as f64).sqrt())
    };
    for si in [2usize, 3] {
        let (m, se) = signed(si);
        assert!(m.abs() < 6.0 * se, "scheme {si}: mean error {m} (se {se})");
    }
    // The plain projected mean is biased, visibly so here.
    let (m, se) = signed(0);
    assert!(
        m.abs() > 6.0 * se,
        "plain projected mean unbiased? {m} ({se})"
    );
    for s in [
        "correlated",
        "independent",
        "correlated-debiased",
        "independent-debiased",
    ] {
        let r = all_row(rows, s);
        let t = r.mse_theory.unwrap();
        assert!(
            (r.mse - t).abs() < 6.0 * r.mse_se.unwrap(),
            "{s}: {} vs {t}",
            r.mse
        );
    }
}

/// The accumulators are the same integers on 1, 2 and 4 threads.
#[test]
fn sums_do_not_depend_on_threads() {
    let e: Vec<(u32, u32)> = (0..600u32)
        .map(|k| (k % 300, (k * 7919 + 3) % 300))
        .filter(|(a, b)| a != b)
        .collect();
    let g = Graph::from_index_edges(300, &e, None, false).unwrap();
    let c = unit_l1(2);
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let run = |t: usize| {
        crate::exec::on_threads(t, || {
            plan.run_replicate(0, &Control::new(), &|_| {}).unwrap()
        })
    };
    let (a1, p1) = run(1);
    for t in [2, 4] {
        let (a, p) = run(t);
        assert_eq!(a, a1, "{t} threads");
        assert_eq!(p, p1);
    }
    // Merging per-chunk vectors in reverse order gives the same integers too.
    let mut rev = Accumulators::new(&plan);
    let mut s = ChunkScratch::new();
    for ch in (0..plan.chunks()).rev() {
        let mut a = Accumulators::new(&plan);
        plan.run_chunk(ch as u64, plan.chunk(ch), 0, &mut s, &mut a)
            .unwrap();
        rev.merge(&a);
    }
    assert_eq!(rev, a1);
}

/// `mse_se` is the standard deviation over replicates of the bucket MSE
/// divided by √R; `None` with one replicate.
#[test]
fn replicates_standard_error() {
    let g = small_graph();
    let c = unit_l1(1);
    let (out, rows) = replicates(&g, &c, 5);
    let n = g.n() as f64;
    let per: Vec<f64> = out
        .iter()
        .map(|e| e.sq_err[0].iter().sum::<f64>() / n)
        .collect();
    let m = per.iter().sum::<f64>() / 5.0;
    let sd = (per.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / 4.0).sqrt();
    let r = all_row(&rows, "correlated");
    assert!((r.mse - m).abs() < 1e-15 * m.max(1.0));
    assert!((r.mse_se.unwrap() - sd / 5f64.sqrt()).abs() < 1e-12);
    assert!(per.windows(2).any(|w| w[0] != w[1]), "replicates identical");
    let (_, one) = replicates(&g, &c, 1);
    assert!(one.iter().all(|r| r.mse_se.is_none()));
}

/// Sum of c Laplace(b) drawn as b·√(2·Gamma(c, 1))·N(0, 1) against c
/// per-answer draws: two-sample Kolmogorov–Smirnov at the 0.1% level
/// (critical value 1.95·√(2/m)), for c = 1, 5, 40.
#[test]
fn independent_sums_are_sums_of_laplace_draws() {
    let g = small_graph();
    let c = unit_l1(1);
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let m = 20_000usize;
    for (k, cnt) in [1u32, 5, 40].into_iter().enumerate() {
        let lambda = 2.0;
        let mut r1 = rng_for(11, k as u64, 0, Purpose::Independent);
        let mut r2 = rng_for(12, k as u64, 0, Purpose::Independent);
        let mut o = vec![0.0];
        let gamma = &plan.unit_gammas[cnt as usize - 1];
        let mut a: Vec<f64> = (0..m)
            .map(|_| {
                super::fresh::laplace_sum(gamma, lambda, &mut r1, &mut o);
                o[0]
            })
            .collect();
        let mut b: Vec<f64> = (0..m)
            .map(|_| {
                (0..cnt)
                    .map(|_| crate::process::laplace::laplace(&mut r2, 1.0 / lambda))
                    .sum()
            })
            .collect();
        a.sort_by(f64::total_cmp);
        b.sort_by(f64::total_cmp);
        let (mut i, mut j, mut dmax) = (0usize, 0usize, 0.0f64);
        while i < m && j < m {
            if a[i] <= b[j] {
                i += 1;
            } else {
                j += 1;
            }
            dmax = dmax.max((i as f64 - j as f64).abs() / m as f64);
        }
        let crit = 1.95 * (2.0 / m as f64).sqrt();
        assert!(dmax < crit, "c = {cnt}: KS {dmax} ≥ {crit}");
        // And the variance is 2c/λ².
        let var = a.iter().map(|x| x * x).sum::<f64>() / m as f64;
        let want = 2.0 * cnt as f64 / (lambda * lambda);
        assert!(
            (var - want).abs() < 6.0 * want * (5.0 / m as f64).sqrt(),
            "{var} vs {want}"
        );
    }
}

/// Fixed point: rounding is once per term, exact in sums, and refuses what
/// does not fit.
#[test]
fn fixed_point_round_trips_and_refuses_overflow() {
    let f = Fixed::for_scale(3.0);
    assert_eq!(f.shift, 70);
    for x in [0.0, 1.0, -2.5, 1e-9, 2.9999] {
        let y = f.to_f64(f.to_fixed(x).unwrap());
        assert!((x - y).abs() <= 2f64.powi(-70), "{x}");
    }
    assert!(f.to_fixed(1e30).is_none());
    assert!(f.to_fixed(f64::NAN).is_none());
}

/// Refusals name the parameter.
#[test]
fn refuses_what_it_cannot_do() {
    let mut c = UtilityConfig::default();
    c.sim.distance = DistanceKind::Weighted;
    assert!(c.check().unwrap_err().to_string().contains("distance"));
    let mut c = UtilityConfig::default();
    c.sim.post = Post::Round;
    assert!(c.check().unwrap_err().to_string().contains("post"));
    let c = UtilityConfig {
        replicates: 0,
        ..UtilityConfig::default()
    };
    assert!(c.check().unwrap_err().to_string().contains("replicates"));
}

/// A `range:` map: a guessed hop range, right or wrong (too low, too high),
/// gives exactly the numbers of the plan that measures the range first.
#[test]
fn guessed_ranges_give_the_measured_plans_numbers() {
    let g = small_graph();
    let mut c = unit_l1(1);
    c.sim.eps = EpsilonMap::range(0.5, 15.0).unwrap();
    c.replicates = 2;
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let ctl = Control::new();
    let mut exact = UtilityPlan::exact(&c, &g, &d).unwrap();
    assert!(!exact.is_guessed());
    let want = exact.run(&ctl).unwrap();
    let deepest = want.partial.max_level;
    assert!(deepest >= 3, "the test needs a few levels");
    let guessed = UtilityPlan::new(&c, &g, &d).unwrap();
    assert!(guessed.is_guessed());
    for mut plan in [
        guessed,
        UtilityPlan::with_guess(&c, &g, &d, deepest - 1).unwrap(),
        UtilityPlan::with_guess(&c, &g, &d, deepest + 2).unwrap(),
    ] {
        let guess = plan.range_guess().unwrap().0;
        let got = plan.run(&ctl).unwrap();
        assert_eq!(plan.range_guess(), Some((guess, guess == deepest)));
        assert_eq!(plan.sim().map(), exact.sim().map());
        assert_eq!(got.rows, want.rows);
        assert_eq!(got.first, want.first);
        assert_eq!(got.partial, want.partial);
    }
    // A wrong guess is caught by `verify`, a right one is not.
    let low = UtilityPlan::with_guess(&c, &g, &d, deepest - 1).unwrap();
    let (_, p) = low.run_replicate(0, &ctl, &|_| {}).unwrap();
    let fixed = low.verify(&p).unwrap().expect("a wrong guess is replaced");
    assert_eq!(fixed.sim().map(), exact.sim().map());
    assert!(exact.verify(&p).unwrap().is_none());
}

/// The independent scheme's two routes (noise per level counted and drawn at
/// evaluation; drawn per visit when the hop bound exceeds
/// [`LEVEL_COUNTS_MAX`]) both give the closed-form MSE per recipient.
#[test]
fn both_independent_routes_match_the_closed_form() {
    let ring = |n: u32| {
        let e: Vec<(u32, u32)> = (0..n).map(|i| (i, (i + 1) % n)).collect();
        Graph::from_index_edges(n as usize, &e, None, false).unwrap()
    };
    let c = unit_l1(1);
    let reps = 400u64;
    for (g, counted) in [(small_graph(), true), (ring(50), false)] {
        let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
        let plan = UtilityPlan::new(&c, &g, &d).unwrap();
        assert_eq!(
            plan.level_counts() > 0,
            counted,
            "hop bound {}",
            plan.hop_bound()
        );
        let (out, _) = replicates(&g, &c, reps);
        let th = out[0].theory[1].as_ref().unwrap();
        for j in [0usize, 7, 19, 33] {
            let xs: Vec<f64> = out.iter().map(|e| e.sq_err[1][j]).collect();
            let m = xs.iter().sum::<f64>() / reps as f64;
            let sd = (xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (reps - 1) as f64).sqrt();
            let se = sd / (reps as f64).sqrt();
            assert!(
                (m - th[j]).abs() < 6.0 * se,
                "counted={counted} recipient {j}: {m} vs theory {} (se {se})",
                th[j]
            );
        }
    }
}

/// `mechanism = gaussian` is refused (issue 32 item 3): the utility has no
/// Gaussian scheme, and used to read it as the Laplace process.
#[test]
fn the_gaussian_mechanism_is_refused() {
    let g = small_graph();
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let mut c = config(
        ValueSpec::Uniform { lo: 0.0, hi: 1.0 },
        Post::None,
        Norm::L2,
        2,
    );
    assert!(UtilityPlan::new(&c, &g, &d).is_ok());
    c.sim.mechanism = crate::mechanism::MechanismChoice::Gaussian;
    let e = UtilityPlan::new(&c, &g, &d).err().expect("refused");
    assert!(
        matches!(&e, crate::Error::Parameter { name, .. } if name == "mechanism"),
        "{e}"
    );
}

/// The same engine under the discrete chain (its fixtures are these).
#[path = "discrete_tests.rs"]
mod discrete;
