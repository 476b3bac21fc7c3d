//! Tests of the discrete utility engine: MSE against the discrete closed
//! forms (with the rounding), debiased bits, the chains are simulate's,
//! thread/share/CBOR determinism, refusals, the OS generator.

use super::*;
use super::{all_row, check_debiased_bits, replicates, small_graph};
use crate::control::Control;
use crate::epsilon::EpsilonMap;
use crate::mechanism::MechanismChoice;
use crate::process::discrete::{Grid, NoiseKind, RngSource};
use crate::rng::{Purpose, rng_for};
use crate::sim::Owners;
use crate::values::ValueSpec;

/// Discrete noise on a coarse grid (2^-3: the rounding matters) and a coarse
/// ladder (m = 1: rungs are powers of two, far below most ε, so the Laplace
/// formulas at ε would be visibly wrong).
fn config(values: ValueSpec, post: Post, dim: usize) -> UtilityConfig {
    let mut c = UtilityConfig::default();
    c.sim.eps = EpsilonMap::exp(3.0, 0.5).unwrap();
    c.sim.values = values;
    c.sim.post = post;
    c.sim.norm = Norm::L1;
    c.sim.dim = dim;
    c.sim.owners = Owners::All;
    c.sim.noise = NoiseKind::Discrete;
    c.sim.granularity = Grid::from_exponent(-3).unwrap();
    c.sim.levels_per_doubling = 1;
    c
}

/// Raw answers, 1-D and 2-D ℓ1: each scheme's MSE over all recipients
/// agrees with the discrete closed form (Σ Var at the rungs plus the squared
/// summed rounding, over n_j²) within 6 standard errors of the replicates'
/// mean (300 replicates); the Laplace closed form at ε (no rung, no grid) is
/// more than 6 standard errors away, so the test can tell them apart.
#[test]
fn mse_matches_the_discrete_theory() {
    let g = small_graph();
    let reps = 300u64;
    for dim in [1usize, 2] {
        let c = config(ValueSpec::Uniform { lo: 0.0, hi: 1.0 }, Post::None, dim);
        let (out, rows) = replicates(&g, &c, reps);
        let mut lap = c.clone();
        lap.sim.noise = NoiseKind::Laplace;
        lap.sim.granularity = Grid::default();
        lap.sim.levels_per_doubling = 32;
        let (_, lap_rows) = replicates(&g, &lap, 2);
        for s in ["correlated", "independent"] {
            let r = all_row(&rows, s);
            let (t, se) = (r.mse_theory.unwrap(), r.mse_se.unwrap());
            assert!(
                (r.mse - t).abs() < 6.0 * se,
                "dim {dim} {s}: {} vs {t} (se {se})",
                r.mse
            );
            let tl = all_row(&lap_rows, s).mse_theory.unwrap();
            assert!(
                (r.mse - tl).abs() > 6.0 * se,
                "dim {dim} {s}: Laplace's {tl} fits too"
            );
        }
        // Per recipient too, for a few recipients (6 se of their own average).
        for si in 0..2 {
            let th = out[0].theory[si].as_ref().unwrap();
            for j in [0usize, 11, 29] {
                let xs: Vec<f64> = out.iter().map(|e| e.sq_err[si][j]).collect();
                let m = xs.iter().sum::<f64>() / reps as f64;
                let v = xs.iter().map(|x| (x - m) * (x - m)).sum::<f64>() / (reps - 1) as f64;
                let se = (v / reps as f64).sqrt();
                assert!((m - th[j]).abs() < 6.0 * se, "dim {dim} scheme {si} j {j}");
            }
        }
    }
}

/// The rounding term: with values on a coarse grid the summed rounding is a
/// deterministic bias, so the theory exceeds Σ Var/n² by exactly its square.
#[test]
fn theory_holds_the_summed_rounding() {
    let g = small_graph();
    let mut c = config(ValueSpec::Uniform { lo: 0.0, hi: 1.0 }, Post::None, 1);
    c.sim.granularity = Grid::from_exponent(1).unwrap(); // γ = 2: every u rounds to 0
    let (out, _) = replicates(&g, &c, 1);
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let acc = plan.run_replicate(0, &Control::new(), &|_| {}).unwrap().0;
    let mut u = [0.0];
    for j in [0usize, 5, 17] {
        let nf = out[0].n_values[j] as f64;
        let var = plan.formats()[2].to_f64(acc.var(j));
        // Σ (γ·û_i − u_i) = −Σ u_i over the owners reaching j.
        plan.values().value(j as u32, &mut u);
        let bias = plan.formats()[0].to_f64(acc.sum_u(j, 0));
        let want = (var + bias * bias) / (nf * nf);
        let got = out[0].theory[0].as_ref().unwrap()[j];
        assert!((got / want - 1.0).abs() < 1e-12, "j {j}: {got} vs {want}");
    }
}

/// Projected bits on a grid finer than ½ (asymmetric flips): the debiased
/// means are unbiased (signed error within 6 se of 0 over 300 replicates),
/// the plain mean visibly biased, and every scheme's MSE within 6 se of its
/// discrete closed form.
#[test]
fn debiased_bits_are_unbiased() {
    let g = small_graph();
    let c = config(ValueSpec::Bits { p: 0.3 }, Post::Bit, 1);
    let reps = 300u64;
    let (out, rows) = replicates(&g, &c, reps);
    check_debiased_bits(&out, &rows, g.n(), reps);
}

/// The correlated answers are the chain simulate draws: on the path 0–1–2–3
/// with owner 0 alone, recipient j receives owner 0's answer at hop j, which
/// is (û + X)·γ with X the value at rung(ε(j)) of the path sampled from
/// rung(ε(1)) down with the generator (seed, owner, replicate, Path).
#[test]
fn correlated_answers_are_simulates_chain() {
    let g = Graph::from_index_edges(4, &[(0, 1), (1, 2), (2, 3)], None, false).unwrap();
    let mut c = config(ValueSpec::Uniform { lo: 0.0, hi: 1.0 }, Post::None, 1);
    c.sim.granularity = Grid::from_exponent(-10).unwrap();
    c.sim.levels_per_doubling = 32;
    c.sim.owners = Owners::Ids(vec!["0".into()]);
    c.sim.seed = 11;
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let noise = plan.noise().discrete().unwrap().noise();
    let mut u = [0.0];
    plan.values().value(0, &mut u);
    let uhat = noise.grid().round(u[0]).unwrap();
    let rung = |l: u32| noise.rung_of(plan.sim().map().eps(l as f64)).unwrap();
    for rep in 0..3u64 {
        let e = plan.evaluate(
            &plan.run_replicate(rep, &Control::new(), &|_| {}).unwrap().0,
            rep,
        );
        let path = noise
            .sample_path(rung(1), rung(3), &mut rng_for(11, 0, rep, Purpose::Path))
            .unwrap();
        for j in 1..4u32 {
            let x = path.value_at(rung(j)).unwrap()[0];
            let want = (uhat + x) as f64 / 1024.0;
            let mut uj = [0.0];
            plan.values().value(j, &mut uj);
            assert_eq!(e.n_values[j as usize], 2);
            let got = 2.0 * e.estimates[0][j as usize] - uj[0];
            assert!(
                (got - want).abs() < 1e-12,
                "rep {rep} j {j}: {got} vs {want}"
            );
        }
    }
}

/// A share through the cluster's encoding (CBOR of the serde form, with
/// `distributed`; JSON of the same serde form without it).
fn wire(share: &PeerShare) -> PeerShare {
    #[cfg(feature = "distributed")]
    {
        let mut bytes = Vec::new();
        ciborium::into_writer(share, &mut bytes).unwrap();
        ciborium::from_reader(&bytes[..]).unwrap()
    }
    #[cfg(not(feature = "distributed"))]
    {
        serde_json::from_str(&serde_json::to_string(share).unwrap()).unwrap()
    }
}

/// The same integers on 1 and 2 threads, in reverse chunk order, and from
/// two processes' shares (chunks 0, 2, … and 1, 3, …) sent through CBOR and
/// merged: raw 2-D and projected bits.
#[test]
fn sums_do_not_depend_on_threads_or_processes() {
    let e: Vec<(u32, u32)> = (0..600u32)
        .map(|k| (k % 300, (k * 7919 + 3) % 300))
        .filter(|(a, b)| a != b)
        .collect();
    let g = Graph::from_index_edges(300, &e, None, false).unwrap();
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    for c in [
        config(ValueSpec::Uniform { lo: 0.0, hi: 1.0 }, Post::None, 2),
        config(ValueSpec::Bits { p: 0.3 }, Post::Bit, 1),
    ] {
        let plan = UtilityPlan::new(&c, &g, &d).unwrap();
        let ctl = Control::new();
        let run =
            |t: usize| crate::exec::on_threads(t, || plan.run_replicate(1, &ctl, &|_| {}).unwrap());
        let (a1, p1) = run(1);
        let (a2, p2) = run(2);
        assert_eq!(a1, a2);
        assert_eq!(p1, p2);
        assert!(p1.jumps > 0 && p1.answers > 0);
        let mut rev = Accumulators::new(&plan);
        let mut s = ChunkScratch::new();
        for ch in (0..plan.chunks()).rev() {
            let mut a = Accumulators::new(&plan);
            plan.run_chunk(ch as u64, plan.chunk(ch), 1, &mut s, &mut a)
                .unwrap();
            rev.merge(&a);
        }
        assert_eq!(rev, a1);
        let mut merged: Option<(Accumulators, ChunkPartial)> = None;
        for p in [1usize, 0] {
            let (acc, partial, _) = plan
                .run_replicate_below(1, &ctl, &|_| {}, None, (p, 2))
                .unwrap();
            let back = wire(&PeerShare { acc, partial });
            assert!(back.acc.fits(&plan));
            match merged.as_mut() {
                None => merged = Some((back.acc, back.partial)),
                Some((a, q)) => {
                    a.merge(&back.acc);
                    q.merge(&back.partial);
                }
            }
        }
        let (a, q) = merged.unwrap();
        assert_eq!(a, a1);
        assert_eq!(q, p1);
        assert_eq!(plan.evaluate(&a, 1), plan.evaluate(&a1, 1));
    }
}

/// Refusals as simulate's (ℓ2 in 2-D naming l1, the Gaussian mechanism), a
/// level below the smallest allowed ε named when met, the summary's record,
/// and the OS generator (two runs differ; nothing reproducible).
#[test]
fn refusals_summary_and_os_generator() {
    let g = small_graph();
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let mut c = config(ValueSpec::Uniform { lo: 0.0, hi: 1.0 }, Post::None, 2);
    c.sim.norm = Norm::L2;
    let e = UtilityPlan::new(&c, &g, &d).err().unwrap().to_string();
    assert!(e.contains("norm") && e.contains("l1"), "{e}");
    c.sim.dim = 1;
    assert!(UtilityPlan::new(&c, &g, &d).is_ok(), "1-D ℓ2 is ℓ1");
    c.sim.mechanism = MechanismChoice::Gaussian;
    let e = UtilityPlan::new(&c, &g, &d).err().unwrap().to_string();
    assert!(e.contains("gaussian"), "{e}");
    // ε(L) = 3·e^(−10 L): hop 2 is below 2^-40·Δ_Z = 2^-37.
    let mut c = config(ValueSpec::Uniform { lo: 0.0, hi: 1.0 }, Post::None, 1);
    c.sim.eps = EpsilonMap::exp(3.0, 13.0).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let e = plan
        .run_replicate(0, &Control::new(), &|_| {})
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("eps") && e.contains("2^40"), "{e}");
    // Summary: the rungs used at each hop (m = 1: powers of two ≤ ε).
    let mut c = config(ValueSpec::Uniform { lo: 0.0, hi: 1.0 }, Post::None, 1);
    let mut plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let res = plan.run(&Control::new()).unwrap();
    let s = UtilitySummary::of(&plan, &res);
    let rec = s.discrete.as_ref().unwrap();
    assert_eq!(rec.noise.delta_z, 8);
    assert_eq!(rec.eps_by_hop.len(), res.partial.max_level as usize);
    for (l, &e) in rec.eps_by_hop.iter().enumerate() {
        let want = plan.sim().map().eps((l + 1) as f64);
        assert!(
            e <= want && 2.0 * e > want && e.log2().fract() == 0.0,
            "hop {}: {e}",
            l + 1
        );
    }
    let j = serde_json::to_value(&s).unwrap();
    assert_eq!(j["discrete"]["noise"], "discrete");
    assert_eq!(j["discrete"]["granularity"], "2^-3");
    // The OS generator: runs, and two runs differ.
    c.sim.rng = RngSource::Os;
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let a = plan.run_replicate(0, &Control::new(), &|_| {}).unwrap().0;
    let b = plan.run_replicate(0, &Control::new(), &|_| {}).unwrap().0;
    assert_ne!(a, b);
    assert!(plan.evaluate(&a, 0).sq_err[0].iter().all(|x| x.is_finite()));
}

/// Projected bits under a steep map (deep levels' raw noise variance far
/// beyond the bits' variance format, as on facebook): the plan builds and
/// runs (the raw variance is not a term of the bits' sums).
#[test]
fn bits_under_a_steep_map_run() {
    let g = small_graph();
    let mut c = config(ValueSpec::Bits { p: 0.3 }, Post::Bit, 1);
    c.sim.eps = EpsilonMap::exp(3.0, 2.0).unwrap();
    let (out, rows) = replicates(&g, &c, 2);
    assert!(out[0].sq_err.iter().flatten().all(|x| x.is_finite()));
    assert!(all_row(&rows, "independent-debiased").mse_theory.unwrap() > 1.0);
}

/// A secret beyond the grid's range, given in memory (no public range to
/// check first), is refused when its chunk rounds it: the error names its
/// owner, never the value (683415f printed `invalid value '…'`).
#[test]
fn a_refused_secret_names_its_owner_not_its_value() {
    let g = small_graph();
    let mut values = vec![0.5; g.n()];
    values[7] = 9_876_543_210_987_654.0; // beyond 2^52·γ = 2^49
    let given = crate::values::GivenValues::new(values, 1).unwrap();
    let c = config(ValueSpec::Given(given), Post::None, 1);
    let d = Distances::new(&g, DistanceKind::Hop, &Default::default()).unwrap();
    let plan = UtilityPlan::new(&c, &g, &d).unwrap();
    let Err(e) = plan.run_replicate(0, &Control::new(), &|_| {}) else {
        panic!("a value beyond the grid was answered");
    };
    let e = e.to_string();
    assert!(e.contains("owner 7"), "{e}");
    for shown in ["9876", "9.876", "98765"] {
        assert!(!e.contains(shown), "the secret is shown: {e}");
    }
}
