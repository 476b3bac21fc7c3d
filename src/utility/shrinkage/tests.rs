//! Tests of the shrinkage estimator: the per-level formula against a direct
//! per-answer reference, the engine's exact sums against a replay of the
//! correlated answers, determinism, the wire, and its statistical
//! behaviour (known answers on synthetic inputs; beating the plain and
//! debiased means under i.i.d. values), tolerances of 6 standard errors.

use super::*;
use crate::control::Control;
use crate::distance::{DistanceKind, Distances};
use crate::epsilon::EpsilonMap;
use crate::graph::Graph;
use crate::post::Post;
use crate::process::{DownWalk, Norm};
use crate::rng::{PrivRng, Purpose, rng_for};
use crate::sim::Owners;
use crate::utility::Accumulators;
use crate::utility::tests::small_graph;
use crate::utility::{RecipientErrors, UtilityConfig};
use rand::RngExt;

fn config(values: &str, post: Post, norm: Norm, dim: usize) -> UtilityConfig {
    let mut c = UtilityConfig::default();
    c.sim.eps = EpsilonMap::exp(3.0, 0.5).unwrap();
    c.sim.values = values.parse().unwrap();
    c.sim.post = post;
    c.sim.norm = norm;
    c.sim.dim = dim;
    c.sim.owners = Owners::All;
    c
}

fn index(plan: &UtilityPlan<'_>, s: Scheme) -> usize {
    plan.schemes().iter().position(|x| *x == s).unwrap()
}

/// The estimator straight from its definition, answer by answer.
fn reference(own: f64, answers: &[(f64, f64)]) -> f64 {
    let c = answers.len() as f64;
    if answers.is_empty() {
        return own;
    }
    let exact: Vec<f64> = answers.iter().filter(|a| a.1 == 0.0).map(|a| a.0).collect();
    let m = if exact.is_empty() {
        answers.iter().map(|(y, v)| y / v).sum::<f64>()
            / answers.iter().map(|(_, v)| 1.0 / v).sum::<f64>()
    } else {
        exact.iter().sum::<f64>() / exact.len() as f64
    };
    let mean = answers.iter().map(|a| a.0).sum::<f64>() / c;
    let s2 = if answers.len() > 1 {
        answers
            .iter()
            .map(|(y, _)| (y - mean) * (y - mean))
            .sum::<f64>()
            / (c - 1.0)
    } else {
        0.0
    };
    let vbar = answers.iter().map(|a| a.1).sum::<f64>() / c;
    let tau2 = (s2 - vbar).max(0.0);
    let shrunk: f64 = answers
        .iter()
        .map(|&(y, v)| {
            let w = if v == 0.0 { 1.0 } else { tau2 / (tau2 + v) };
            m + w * (y - m)
        })
        .sum();
    (own + shrunk) / (1.0 + c)
}

/// Random levels (1–6, some variances shared, some levels empty, sometimes
/// an exact level), raw answers and projected bits: the per-level formula
/// equals the per-answer reference to 1e-12 relative (the arithmetic is
/// grouped differently); with no answers both return the own value exactly.
#[test]
fn estimator_equals_the_direct_reference_on_random_inputs() {
    let mut rng = rng_for(3, 0, 0, Purpose::Post);
    for trial in 0..2000 {
        let nl = rng.random_range(1..=6usize);
        let mut raw = Vec::new();
        let mut bits = Vec::new();
        let (mut ans_raw, mut ans_bits) = (Vec::new(), Vec::new());
        let centre = rng.random::<f64>();
        let mut q_sum = 0.0;
        for l in 0..nl {
            let c = rng.random_range(0..=12usize);
            let var = if trial % 50 == 0 && l == 0 {
                0.0
            } else if l > 0 && rng.random::<f64>() < 0.3 {
                0.5
            } else {
                0.01 + 3.0 * rng.random::<f64>()
            };
            let q = if var == 0.0 {
                0.0
            } else {
                0.45 * rng.random::<f64>()
            };
            let (one, zero) = ((1.0 - q) / (1.0 - 2.0 * q), -q / (1.0 - 2.0 * q));
            let vb = q * (1.0 - q) / ((1.0 - 2.0 * q) * (1.0 - 2.0 * q));
            let mut sum = 0.0;
            let mut ones = 0usize;
            for _ in 0..c {
                let y = rng.random::<f64>() * 4.0 - 1.0;
                sum += y;
                q_sum += (y - centre) * (y - centre);
                ans_raw.push((y, var));
                let b = rng.random::<f64>() < 0.4;
                ones += usize::from(b);
                ans_bits.push((if b { one } else { zero }, vb));
            }
            if c > 0 {
                raw.push(Group::Sum {
                    c: c as f64,
                    sum,
                    var,
                });
                bits.push(Group::Bits {
                    c: c as f64,
                    ones: ones as f64,
                    one,
                    zero,
                    var: vb,
                });
            }
        }
        let own = rng.random::<f64>();
        let got = shrink_estimate(own, &raw, Some((q_sum, centre)));
        let want = reference(own, &ans_raw);
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "trial {trial}: {got} vs {want}"
        );
        let got = shrink_estimate(own, &bits, None);
        let want = reference(own, &ans_bits);
        assert!(
            (got - want).abs() <= 1e-12 * want.abs().max(1.0),
            "trial {trial} (bits): {got} vs {want}"
        );
        if raw.is_empty() {
            assert_eq!(shrink_estimate(own, &raw, Some((0.0, centre))), own);
        }
    }
}

/// Known answers on synthetic inputs (μ = 0.5, Gaussian noise, θ_i the
/// answers' true values, the target their mean; R replicates):
/// * equal variances: the estimate is the plain mean (to 1e-12);
/// * τ² = 0 (θ_i = μ), 300 answers of variance 0.01 and 300 of variance 1:
///   the MSE lies above the Cramér–Rao bound 1/Σ(1/Var_i) of any unbiased
///   estimate (shrinkage is unbiased here by symmetry) and far below the
///   plain mean's Σ Var_i / c² (both within 6 standard errors);
/// * τ² = 100 ≫ Var_i: the weights are ≈ 1 and the MSE is the plain mean's
///   Σ Var_i / c² within 6 standard errors.
#[test]
fn estimator_mse_on_synthetic_cases_with_known_answers() {
    let mut rng = rng_for(4, 0, 0, Purpose::Post);
    let normal = |r: &mut PrivRng| crate::process::laplace::std_normal(r);
    // Equal variances.
    for _ in 0..200 {
        let c = rng.random_range(1..40usize);
        let ys: Vec<f64> = (0..c).map(|_| normal(&mut rng)).collect();
        let g = [Group::Sum {
            c: c as f64,
            sum: ys.iter().sum(),
            var: 0.7,
        }];
        let q: f64 = ys.iter().map(|y| y * y).sum();
        let plain = (0.3 + ys.iter().sum::<f64>()) / (1.0 + c as f64);
        let got = shrink_estimate(0.3, &g, Some((q, 0.0)));
        assert!((got - plain).abs() <= 1e-12, "{got} vs {plain}");
    }
    let run = |rng: &mut PrivRng, tau: f64, reps: usize| -> (Vec<f64>, Vec<f64>, f64, f64) {
        let vars: Vec<f64> = (0..600).map(|i| if i < 300 { 0.01 } else { 1.0 }).collect();
        let c = vars.len() as f64;
        let (mut shrink, mut plain) = (Vec::new(), Vec::new());
        for _ in 0..reps {
            let theta: Vec<f64> = vars.iter().map(|_| 0.5 + tau * normal(rng)).collect();
            let ys: Vec<f64> = theta
                .iter()
                .zip(&vars)
                .map(|(t, v)| t + v.sqrt() * normal(rng))
                .collect();
            let target = theta.iter().sum::<f64>() / c;
            let groups = [(0..300), (300..600)].map(|r| Group::Sum {
                c: 300.0,
                sum: ys[r.clone()].iter().sum(),
                var: vars[r.start],
            });
            let q = ys.iter().map(|y| (y - 0.5) * (y - 0.5)).sum();
            // Own value 0 weighted out: the estimate of Σθ/c is
            // est·(1 + c)/c.
            let est = shrink_estimate(0.0, &groups, Some((q, 0.5))) * (1.0 + c) / c;
            shrink.push((est - target) * (est - target));
            let p = ys.iter().sum::<f64>() / c;
            plain.push((p - target) * (p - target));
        }
        let crb = 1.0 / vars.iter().map(|v| 1.0 / v).sum::<f64>();
        let pl = vars.iter().sum::<f64>() / (c * c);
        (shrink, plain, crb, pl)
    };
    let mean_se = |x: &[f64]| {
        let m = x.iter().sum::<f64>() / x.len() as f64;
        let v = x.iter().map(|t| (t - m) * (t - m)).sum::<f64>() / (x.len() - 1) as f64;
        (m, (v / x.len() as f64).sqrt())
    };
    let (s, p, crb, pl) = run(&mut rng, 0.0, 4000);
    let ((ms, ss), (mp, sp)) = (mean_se(&s), mean_se(&p));
    assert!(ms > crb - 6.0 * ss, "below the bound: {ms} < {crb}");
    assert!((mp - pl).abs() < 6.0 * sp, "plain {mp} vs {pl}");
    assert!(ms + 6.0 * ss < pl / 5.0, "τ = 0: {ms} ± {ss} vs plain {pl}");
    let (s, _, _, pl) = run(&mut rng, 10.0, 4000);
    let (ms, ss) = mean_se(&s);
    assert!((ms - pl).abs() < 6.0 * ss, "τ² ≫ Var: {ms} ± {ss} vs {pl}");
}

/// Replays every owner's correlated path level by level (as the engine
/// walks it) and recomputes each recipient's per-level sums, squares and
/// counts: the engine's integers are exactly these; Σ_L S_L is the plain
/// correlated sum to the bit; the independent ones of projected bits add up
/// to the plain independent sum; and the correlated-shrinkage estimates
/// equal the per-answer reference on the replayed answers to 1e-12.
#[test]
fn engine_sums_equal_a_replay_of_the_answers() {
    let g = small_graph();
    let n = g.n();
    for (values, post, norm, dim) in [
        ("uniform:0,1", Post::None, Norm::L1, 1usize),
        ("normal:2,1", Post::None, Norm::L2, 2),
        ("bits:0.3", Post::Bit, Norm::L1, 1),
    ] {
        let c = config(values, post, norm, dim);
        let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
        let plan = UtilityPlan::new(&c, &g, &d).unwrap();
        let sp = plan.shrinkage().expect("shallow graph: shrinkage rows");
        let (acc, _) = plan.run_replicate(0, &Control::new(), &|_| {}).unwrap();
        let s = &acc.shrink;
        let mut ws = d.workspace();
        let mut row = Vec::new();
        let u_of = |j: u32| {
            let mut u = vec![0.0; dim];
            plan.values().value(j, &mut u);
            u
        };
        // answers[v][l] = the replayed correlated answers (per owner, dim).
        let mut answers = vec![vec![Vec::<Vec<f64>>::new(); sp.levels]; n];
        for o in 0..n as u32 {
            d.from_owner(o, &mut ws, &mut row);
            let ecc = row.iter().fold(0.0f64, |a, &x| a.max(x)) as usize;
            let mut rng = rng_for(plan.seed(), o as u64, 0, Purpose::Path);
            let mut path = vec![0.0; dim];
            let lambda = |eps: f64| eps / plan.sim().model().sensitivity;
            let top = lambda(plan.top_eps().unwrap());
            let mut walk = DownWalk::start(norm, top, &mut path, &mut rng);
            let u = u_of(o);
            for l in 1..=ecc {
                walk.descend_to(
                    lambda(plan.level_info(l as u32).unwrap().eps),
                    &mut path,
                    &mut rng,
                );
                let y: Vec<f64> = u.iter().zip(&path).map(|(a, b)| a + b).collect();
                for v in 0..n {
                    if row[v] == l as f64 {
                        answers[v][l - 1].push(y.clone());
                    }
                }
            }
        }
        let errs: RecipientErrors = plan.evaluate(&acc, 0);
        let ci = index(&plan, Scheme::CorrelatedShrinkage);
        for (v, per_level) in answers.iter().enumerate() {
            let mut flat: Vec<(f64, f64)> = Vec::new();
            let mut total = vec![0i128; dim];
            for (l, ans) in per_level.iter().enumerate() {
                if plan.bits() {
                    let ones = ans.iter().filter(|y| y[0] >= 0.5).count() as u32;
                    let cnt = s.bit_counts(v);
                    assert_eq!((cnt[3 * l], cnt[3 * l + 1]), (ans.len() as u32, ones));
                    let q = sp.flips[l].flip[0];
                    for y in ans {
                        let b = if y[0] >= 0.5 { 1.0 } else { 0.0 };
                        flat.push(((b - q) / (1.0 - 2.0 * q), sp.var[l]));
                    }
                    continue;
                }
                assert_eq!(
                    s.counts_of(v)[l],
                    ans.len() as u32,
                    "{values} v={v} L={}",
                    l + 1
                );
                for (k, t) in total.iter_mut().enumerate() {
                    let want: i128 = ans.iter().map(|y| plan.fix_value(y[k]).unwrap()).sum();
                    assert_eq!(s.level_sum(v, l, false, k), want);
                    *t += want;
                }
                if dim == 1 {
                    flat.extend(ans.iter().map(|y| (y[0], sp.var[l])));
                }
            }
            if plan.bits() {
                let ind: u32 = (0..sp.levels).map(|l| s.bit_counts(v)[3 * l + 2]).sum();
                assert_eq!(acc.sum(v, 1, 0), ind as i128 * plan.fix_value(1.0).unwrap());
            } else {
                for k in 0..dim {
                    assert_eq!(total[k], acc.sum(v, 0, k), "Σ_L S_L = the plain sum");
                    let want: i128 = per_level
                        .iter()
                        .flatten()
                        .map(|y| {
                            let z = (y[k] - sp.centre[k]) * sp.inv_unit;
                            sp.fx_sq.to_fixed(z * z).unwrap()
                        })
                        .sum();
                    assert_eq!(s.square_sum(v, false, k), want);
                }
            }
            if dim == 1 {
                let want = reference(u_of(v as u32)[0], &flat);
                let got = errs.estimates[ci][v];
                assert!(
                    (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                    "{values} v={v}: {got} vs {want}"
                );
            }
        }
    }
}

/// Runs `reps` replicates: per replicate the per-recipient outcome.
fn replicates(g: &Graph, c: &UtilityConfig, reps: u64) -> (Vec<RecipientErrors>, Vec<Scheme>) {
    let d = Distances::new(g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(c, g, &d).unwrap();
    let ctl = Control::new();
    let out = (0..reps)
        .map(|r| plan.evaluate(&plan.run_replicate(r, &ctl, &|_| {}).unwrap().0, r))
        .collect();
    (out, plan.schemes().to_vec())
}

/// Paired over replicates: mean and standard error of scheme `a`'s MSE over
/// recipients minus scheme `b`'s.
fn paired(out: &[RecipientErrors], a: usize, b: usize) -> (f64, f64) {
    let d: Vec<f64> = out
        .iter()
        .map(|e| {
            let n = e.sq_err[a].len() as f64;
            (e.sq_err[a].iter().sum::<f64>() - e.sq_err[b].iter().sum::<f64>()) / n
        })
        .collect();
    let m = d.iter().sum::<f64>() / d.len() as f64;
    let v = d.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (d.len() - 1) as f64;
    (m, (v / d.len() as f64).sqrt())
}

/// Under i.i.d. values with noise growing with distance, shrinkage has a
/// smaller MSE than the plain mean (raw answers) and than the debiased mean
/// (projected bits), for both schemes, by more than 6 standard errors of
/// the paired difference over 400 replicates.
#[test]
fn shrinkage_beats_plain_and_debiased_means_under_iid_values() {
    let g = small_graph();
    for (values, post, pairs) in [
        (
            "uniform:0,1",
            Post::None,
            [
                (Scheme::CorrelatedShrinkage, Scheme::Correlated),
                (Scheme::IndependentShrinkage, Scheme::Independent),
            ],
        ),
        (
            "bits:0.3",
            Post::Bit,
            [
                (Scheme::CorrelatedShrinkage, Scheme::CorrelatedDebiased),
                (Scheme::IndependentShrinkage, Scheme::IndependentDebiased),
            ],
        ),
    ] {
        let c = config(values, post, Norm::L1, 1);
        let (out, schemes) = replicates(&g, &c, 400);
        let at = |s: Scheme| schemes.iter().position(|x| *x == s).unwrap();
        for (a, b) in pairs {
            let (m, se) = paired(&out, at(a), at(b));
            assert!(m < -6.0 * se, "{values}: {a:?} − {b:?} = {m} (se {se})");
        }
    }
}

/// A star seen from its centre: every answer comes from a different owner,
/// so the correlated and independent answers have the same joint law and
/// so do the two shrinkage estimates: their squared errors agree in mean
/// (6 standard errors) — raw answers at two distances (leaves and a tail).
#[test]
fn both_shrinkage_schemes_agree_in_law_for_one_recipient() {
    let mut e: Vec<(u32, u32)> = (1..16u32).map(|i| (0, i)).collect();
    e.extend((16..24u32).map(|i| (i - 15, i)));
    let g = Graph::from_index_edges(24, &e, None, false).unwrap();
    let c = config("uniform:0,1", Post::None, Norm::L1, 1);
    let reps = 1500u64;
    let (out, schemes) = replicates(&g, &c, reps);
    let stat = |s: Scheme| {
        let si = schemes.iter().position(|x| *x == s).unwrap();
        let xs: Vec<f64> = out.iter().map(|e| e.sq_err[si][0]).collect();
        let m = xs.iter().sum::<f64>() / reps as f64;
        let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (reps - 1) as f64;
        (m, v / reps as f64)
    };
    let ((ma, va), (mb, vb)) = (
        stat(Scheme::CorrelatedShrinkage),
        stat(Scheme::IndependentShrinkage),
    );
    assert!((ma - mb).abs() < 6.0 * (va + vb).sqrt(), "{ma} vs {mb}");
    let (mp, _) = stat(Scheme::Correlated);
    assert!(ma < mp, "shrinkage {ma} vs plain {mp}");
}

/// The projected-bits sums are the same integers on 1, 2 and 4 threads and
/// merged in reverse chunk order; a process share with them travels
/// exactly and a truncated one is refused.
#[test]
fn bit_sums_do_not_depend_on_threads_and_travel_exactly() {
    let g = small_graph();
    let c = config("bits:0.4", Post::Bit, Norm::L1, 1);
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let run = |t: usize| {
        crate::exec::on_threads(t, || {
            plan.run_replicate(3, &Control::new(), &|_| {}).unwrap()
        })
    };
    let (a1, p1) = run(1);
    assert!(a1.shrink.is_on());
    for t in [2, 4] {
        assert_eq!(run(t).0, a1, "{t} threads");
    }
    let mut rev = Accumulators::new(&plan);
    let mut s = super::super::ChunkScratch::new();
    for ch in (0..plan.chunks()).rev() {
        let mut a = Accumulators::new(&plan);
        plan.run_chunk(ch as u64, plan.chunk(ch), 3, &mut s, &mut a)
            .unwrap();
        rev.merge(&a);
    }
    assert_eq!(rev, a1);
    assert!(a1.fits(&plan));
    let share = super::super::PeerShare {
        acc: a1,
        partial: p1,
    };
    // The cluster's encoding (CBOR of the serde form, src/cluster/codec.rs).
    #[cfg(feature = "distributed")]
    {
        let mut bytes = Vec::new();
        ciborium::into_writer(&share, &mut bytes).unwrap();
        let back: super::super::PeerShare = ciborium::from_reader(&bytes[..]).unwrap();
        assert_eq!(back, share);
        for cut in [1, 5, 200] {
            let r: Result<super::super::PeerShare, _> =
                ciborium::from_reader(&bytes[..bytes.len() - cut]);
            assert!(r.is_err(), "cut {cut}");
        }
    }
    // Sums of another layout (no shrinkage part) do not fit the plan.
    let mut other = share.acc.clone();
    other.shrink = ShrinkSums::default();
    assert!(!other.fits(&plan) && !other.same_layout(&share.acc));
}

/// Raw answers' i128 sums (beyond 2^64) come back exactly from the cluster's
/// encoding.
#[cfg(feature = "distributed")]
#[test]
fn raw_sums_travel_exactly() {
    let g = small_graph();
    let c = config("uniform:-1e6,1e6", Post::None, Norm::L1, 2);
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let (acc, _) = plan.run_replicate(1, &Control::new(), &|_| {}).unwrap();
    assert!(acc.shrink.is_on() && acc.fits(&plan));
    assert!(
        acc.shrink
            .sums
            .iter()
            .any(|x| x.unsigned_abs() > 1u128 << 64)
    );
    let mut bytes = Vec::new();
    ciborium::into_writer(&acc, &mut bytes).unwrap();
    let back: Accumulators = ciborium::from_reader(&bytes[..]).unwrap();
    assert_eq!(back, acc);
}

/// A graph deeper than [`SHRINKAGE_LEVELS_MAX`] hops has no shrinkage rows
/// (and no sums); a shallow one has them last, with no theory.
#[test]
fn shrinkage_rows_only_on_shallow_graphs_without_theory() {
    let ring: Vec<(u32, u32)> = (0..80u32).map(|i| (i, (i + 1) % 80)).collect();
    let deep = Graph::from_index_edges(80, &ring, None, false).unwrap();
    let c = config("uniform:0,1", Post::None, Norm::L1, 1);
    let d = Distances::new(&deep, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &deep, &d).unwrap();
    assert!(plan.hop_bound() as usize > SHRINKAGE_LEVELS_MAX);
    assert!(plan.shrinkage().is_none());
    assert_eq!(plan.schemes().last(), Some(&Scheme::Access));
    assert!(!Accumulators::new(&plan).shrink.is_on());
    let g = small_graph();
    let mut c = c;
    c.replicates = 2;
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let mut plan = UtilityPlan::new(&c, &g, &d).unwrap();
    assert_eq!(
        &plan.schemes()[plan.schemes().len() - 2..],
        &[Scheme::CorrelatedShrinkage, Scheme::IndependentShrinkage]
    );
    let res = plan.run(&Control::new()).unwrap();
    for r in res.rows.iter().filter(|r| r.scheme.ends_with("shrinkage")) {
        assert_eq!(r.mse_theory, None);
        assert!(r.mse.is_finite() && r.mse_se.is_some());
    }
    assert_eq!(
        res.rows
            .iter()
            .filter(|r| r.scheme.ends_with("shrinkage") && r.degree_lo.is_none())
            .count(),
        2
    );
}

/// Values of magnitude 1e200 (noise of scale 1e50), whose squares overflow f64: the
/// squares are summed in units of a power of two near that scale, so the
/// run succeeds and every shrinkage estimate is finite and of that scale.
#[test]
fn huge_values_give_finite_estimates() {
    let g = small_graph();
    // About the largest values any f64 run answers: 2^42 noise standard
    // deviations at the top level, with Δ/ε near the levels' limit 1e60.
    let mut c = config("uniform:-1e70,1e70", Post::None, Norm::L1, 1);
    c.sim.sensitivity = 1e59;
    let (out, schemes) = replicates(&g, &c, 2);
    for s in [Scheme::CorrelatedShrinkage, Scheme::IndependentShrinkage] {
        let si = schemes.iter().position(|x| *x == s).unwrap();
        for e in &out {
            assert!(
                e.estimates[si]
                    .iter()
                    .all(|x| x.is_finite() && x.abs() < 1e71),
                "{s:?}"
            );
        }
    }
    // Beyond, the noise vanishes against the values: refused, never shown.
    let mut c = config("uniform:-1e200,1e200", Post::None, Norm::L1, 1);
    c.sim.sensitivity = 1e50;
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let e = plan
        .run_replicate(0, &Control::new(), &|_| {})
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("not shown") && e.contains("2^42 noise"), "{e}");
}
