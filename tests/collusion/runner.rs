//! The collusion trial runner against memo §5, on a generated geometric graph
//! (200 nodes, radius 0.15, hop distances up to ~9), fixed seeds.
//!
//! ε map `table:1=4,2=2,3=1,*=0.5` (Δ = 1), so ε* of each coalition is known
//! from its closest member. Tolerances are 6 standard errors computed from the
//! sample size (formulas next to each check); statistics over many owners use
//! z = 4.5 where dozens of intervals are checked at once.

use privdiffuse::collusion::{
    Coalition, CoalitionResult, CollusionOptions, CollusionResult, Estimator, collude,
};
use privdiffuse::distance::{DistanceKind, DistanceOptions, Distances};
use privdiffuse::graph::Graph;
use privdiffuse::graph::generate::{GeometricParam, geometric};
use privdiffuse::mechanism::{Mechanism, MechanismChoice};
use privdiffuse::process::Norm;
use privdiffuse::sim::{Plan, SimConfig};

const MAP: &str = "table:1=4,2=2,3=1,*=0.5";
/// One spec per coalition kind (file: is covered by the CLI tests).
const KINDS: [&str; 5] = [
    "far:min-d=3",
    "band:d=2",
    "random:m=10",
    "nearest:m=5",
    "sybil:m=20,d=3",
];

fn graph() -> Graph {
    geometric(200, GeometricParam::Radius(0.15), 11).unwrap().0
}

fn config(dim: usize, norm: Norm, mech: MechanismChoice, owners: &str) -> SimConfig {
    SimConfig {
        eps: MAP.parse().unwrap(),
        dim,
        norm,
        mechanism: mech,
        values: "const:3".parse().unwrap(),
        owners: owners.parse().unwrap(),
        seed: 7,
        ..SimConfig::default()
    }
}

fn run(g: &Graph, cfg: &SimConfig, specs: &[&str], trials: usize) -> CollusionResult {
    let d = Distances::new(g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
    let plan = Plan::new(cfg, g, &d).unwrap();
    let opts = CollusionOptions {
        coalitions: specs.iter().map(|s| Coalition::parse(s).unwrap()).collect(),
        estimators: Estimator::ALL.to_vec(),
        trials,
        composition_delta: 1e-6,
    };
    collude(&plan, &opts, &privdiffuse::Control::default()).unwrap()
}

/// Pools per-cell comparisons `observed` vs `expected` with variance `var` of
/// one observation (so the cell mean has variance var/T): the pooled z-score
/// Σ(obs − exp) / √(Σ var/T) must stay within 6; small systematic errors that
/// no single cell resolves show up here.
#[derive(Default)]
struct Pooled {
    diff: f64,
    var: f64,
    cells: usize,
}

impl Pooled {
    fn add(&mut self, observed: f64, expected: f64, var_per_trial: f64, t: usize) {
        self.diff += observed - expected;
        self.var += var_per_trial / t as f64;
        self.cells += 1;
    }
    fn check(&self, what: &str) {
        let z = self.diff / self.var.sqrt();
        assert!(
            z.abs() <= 6.0,
            "{what}: pooled z = {z} over {} cells",
            self.cells
        );
    }
}

fn mech(r: &CoalitionResult, m: Mechanism) -> &privdiffuse::collusion::MechanismResult {
    r.mechanisms.iter().find(|x| x.mechanism == m).unwrap()
}

/// Correlated, 1-D ℓ1, every coalition kind and estimator: gain ≤ 1 within its
/// interval (gain ≤ 1 + 4.5·se: 5 kinds × 6 estimators × 4 owners intervals),
/// and the best member's MSE is 2/ε*² (s.e. √20/ε*²/√T: E X⁴ = 24/ε⁴ for
/// X ~ Lap(1/ε), so Var X² = 20/ε⁴).
#[test]
fn correlated_no_estimator_beats_the_best_member_l1() {
    let g = graph();
    let t = 5000;
    let res = run(
        &g,
        &config(1, Norm::L1, MechanismChoice::Correlated, "4"),
        &KINDS,
        t,
    );
    let mut pooled = Pooled::default();
    let mut nonempty = [0usize; KINDS.len()];
    for r in &res.results {
        if r.size == 0 {
            continue;
        }
        nonempty[r.coalition] += 1;
        let e = r.accounting.eps_max;
        let m = mech(r, Mechanism::Correlated);
        for (est, g) in &m.estimators {
            assert!(
                g.gain <= 1.0 + 4.5 * g.gain_se.max(0.0),
                "{} {est}: gain {} ± {}",
                r.label,
                g.gain,
                g.gain_se
            );
        }
        let best = m.estimators[0].1;
        let th = 2.0 / (e * e);
        let se = 20f64.sqrt() / (e * e) / (t as f64).sqrt();
        assert!(
            (best.mse_best - th).abs() <= 6.0 * se,
            "{}: best MSE {} vs 2/ε*² = {th} (ε* = {e}, 6 s.e. = {})",
            r.label,
            best.mse_best,
            6.0 * se
        );
        // Relative error, Var = 20/ε⁴ / (2/ε²)² = 5 per trial.
        pooled.add(best.mse_best / th, 1.0, 5.0, t);
    }
    pooled.check("best-member MSE / (2/ε*²)");
    // Every kind was exercised on at least one owner.
    assert!(nonempty.iter().all(|&k| k > 0), "{nonempty:?}");
}

/// Correlated ℓ2, n = 2: best-member MSE n(n+1)/ε*² = 6/ε*² (‖V‖ ~ Gamma(2, ε):
/// E‖V‖⁴ = 120/ε⁴, so Var ‖V‖² = 84/ε⁴); gain ≤ 1 within 4.5 s.e.
#[test]
fn correlated_best_member_mse_l2_dim2() {
    let g = graph();
    let t = 8000;
    let mut pooled = Pooled::default();
    let specs = ["far:min-d=3", "nearest:m=5", "sybil:m=20,d=2"];
    let res = run(
        &g,
        &config(2, Norm::L2, MechanismChoice::Correlated, "3"),
        &specs,
        t,
    );
    for r in res.results.iter().filter(|r| r.size > 0) {
        let e = r.accounting.eps_max;
        let m = mech(r, Mechanism::Correlated);
        for (est, g) in &m.estimators {
            assert!(
                g.gain <= 1.0 + 4.5 * g.gain_se.max(0.0),
                "{} {est}",
                r.label
            );
        }
        let got = m.estimators[0].1.mse_best;
        let th = 6.0 / (e * e);
        let se = 84f64.sqrt() / (e * e) / (t as f64).sqrt();
        assert!((got - th).abs() <= 6.0 * se, "{}: {got} vs {th}", r.label);
        pooled.add(got / th, 1.0, 84.0 / 36.0, t);
    }
    pooled.check("ℓ2 best-member MSE / (6/ε*²)");
}

/// Independent, 1-D ℓ1: the inverse-variance mean has MSE 2/S, S = Σε_j²
/// (its error is a sum of Laplace variables, excess kurtosis ≤ 3, so
/// sd(e²) ≤ √5·2/S); its gain over the best member is S/ε*² (checked on the
/// log scale against the delta-method s.e.).
#[test]
fn independent_ivw_matches_inverse_variance_theory() {
    let g = graph();
    let t = 5000;
    let res = run(
        &g,
        &config(1, Norm::L1, MechanismChoice::Independent, "4"),
        &KINDS,
        t,
    );
    let mut pooled = Pooled::default();
    let mut checked = 0;
    for r in res.results.iter().filter(|r| r.size > 0) {
        let s = r.eps_sq_sum;
        let e = r.accounting.eps_max;
        let m = mech(r, Mechanism::Independent);
        let ivw = m
            .estimators
            .iter()
            .find(|x| x.0 == Estimator::Ivw)
            .unwrap()
            .1;
        let th = 2.0 / s;
        let se = 5f64.sqrt() * th / (t as f64).sqrt();
        assert!(
            (ivw.mse - th).abs() <= 6.0 * se,
            "{}: ivw MSE {} vs {th}",
            r.label,
            ivw.mse
        );
        // Relative error; Var ≤ 5 per trial (the bound above).
        pooled.add(ivw.mse / th, 1.0, 5.0, t);
        let want = s / (e * e);
        let ln_se = ivw.gain_se / ivw.gain;
        assert!(
            (ivw.gain.ln() - want.ln()).abs() <= 6.0 * ln_se + 1e-12,
            "{}: ivw gain {} vs Σε²/ε*² = {want}",
            r.label,
            ivw.gain
        );
        checked += 1;
    }
    assert!(checked >= 15, "{checked}");
    pooled.check("ivw MSE / (2/Σε²)");
}

/// Homogeneous coalition (20 sybils at ε = 0.5): Pitman beats the
/// inverse-variance mean, MSE 0.2531 vs 2/Σε² = 0.4 (memo §5 MC values);
/// tolerances 6 × the runner's own s.e. of each MSE.
#[test]
fn pitman_beats_ivw_on_a_homogeneous_coalition() {
    let g = graph();
    let t = 4000;
    let res = run(
        &g,
        &config(1, Norm::L1, MechanismChoice::Independent, "2"),
        &["sybil:m=20,d=4"],
        t,
    );
    for r in &res.results {
        assert_eq!((r.size, r.sybils), (20, 20));
        assert_eq!(r.accounting.eps_max, 0.5);
        let m = mech(r, Mechanism::Independent);
        let get = |e: Estimator| m.estimators.iter().find(|x| x.0 == e).unwrap().1;
        let (p, i) = (get(Estimator::Pitman), get(Estimator::Ivw));
        assert!(
            (i.mse - 0.4).abs() <= 6.0 * i.mse_se,
            "ivw {} ± {}",
            i.mse,
            i.mse_se
        );
        assert!(
            (p.mse - 0.2531).abs() <= 6.0 * p.mse_se,
            "pitman {} ± {}",
            p.mse,
            p.mse_se
        );
        assert!(p.mse + 6.0 * p.mse_se < i.mse, "{} vs {}", p.mse, i.mse);
    }
}

/// Var of L = ε·k(t), k(t) = |t − 1| − |t| by cases, t ~ Lap(1/ε) (Δ = 1), by
/// Simpson quadrature over [0, 1]; also returns E L for a cross-check of the
/// closed form ε − 1 + e^{−ε}.
fn loss_moments(e: f64) -> (f64, f64) {
    let n = 4000;
    let h = 1.0 / n as f64;
    let (mut m1, mut m2) = (0.0, 0.0);
    for i in 0..=n {
        let t = i as f64 * h;
        let w = if i == 0 || i == n {
            1.0
        } else if i % 2 == 1 {
            4.0
        } else {
            2.0
        };
        let dens = 0.5 * e * (-e * t).exp();
        let k = 1.0 - 2.0 * t;
        m1 += w * k * dens;
        m2 += w * k * k * dens;
    }
    m1 *= h / 3.0;
    m2 *= h / 3.0;
    let ek = 0.5 - 0.5 * (-e).exp() + m1;
    let ek2 = 0.5 + 0.5 * (-e).exp() + m2;
    (e * ek, e * e * (ek2 - ek * ek))
}

/// Audit, 1-D ℓ1, both mechanisms: the ε*-formula and full-chain losses agree
/// to 1e-9; |L| ≤ ε*Δ(1 + 1e-12) on every correlated view; the independent
/// maximum exceeds ε*Δ on coalitions of ≥ 5 comparable members; E L matches
/// ε*Δ − 1 + e^{−ε*Δ} (correlated) and Σ(ε_jΔ − 1 + e^{−ε_jΔ}) (independent,
/// homogeneous sybils), 6 s.e. from the exact variance.
#[test]
fn audit_losses_match_memo() {
    let g = graph();
    let t = 5000;
    let mut pooled_c = Pooled::default();
    let specs = ["sybil:m=10,d=2", "far:min-d=3", "nearest:m=5", "band:d=3"];
    let res = run(
        &g,
        &config(1, Norm::L1, MechanismChoice::Both, "3"),
        &specs,
        t,
    );
    let tf = t as f64;
    for r in res.results.iter().filter(|r| r.size > 0) {
        let e = r.accounting.eps_max;
        let c = mech(r, Mechanism::Correlated).audit.unwrap();
        let d = c.chain_disagreement.expect("1-D: full chain computed");
        assert!(d <= 1e-9, "{}: chain disagreement {d}", r.label);
        assert!(
            c.loss.max_abs <= e * (1.0 + 1e-12),
            "{}: {}",
            r.label,
            c.loss.max_abs
        );
        assert_eq!(c.bound_exceeded, 0);
        assert_eq!(c.eps_bound, e);
        let (mean, var) = loss_moments(e);
        assert!((mean - (e - 1.0 + (-e).exp())).abs() < 1e-9);
        let se = (var / tf).sqrt();
        assert!(
            (c.loss.mean - mean).abs() <= 6.0 * se,
            "{}: E L {} vs {mean} ± {}",
            r.label,
            c.loss.mean,
            6.0 * se
        );
        pooled_c.add(c.loss.mean, mean, var, t);
        let i = mech(r, Mechanism::Independent).audit.unwrap();
        assert_eq!(i.bound_exceeded, 0, "{}: basic composition holds", r.label);
        assert!(i.loss.max_abs <= r.accounting.eps_sum * (1.0 + 1e-12));
        assert_eq!(i.chain_disagreement, None);
        if r.label.starts_with("sybil") || (r.label.starts_with("band") && r.size >= 5) {
            // ≥ 5 members at the same ε: composition shows in the sample.
            assert!(
                i.loss.max > e,
                "{}: independent max {} ≤ ε* {e}",
                r.label,
                i.loss.max
            );
        }
        if r.label.starts_with("sybil") {
            let (m1, v1) = loss_moments(2.0);
            let (mean, var) = (10.0 * m1, 10.0 * v1);
            let se = (var / tf).sqrt();
            assert!(
                (i.loss.mean - mean).abs() <= 6.0 * se,
                "{} vs {mean}",
                i.loss.mean
            );
            // The attack shows more than the correlated bound: the Pitman
            // estimate's sd (< √(2/Σε²) ≈ 0.22) is far below Δ/2, so both
            // error rates are tiny and ln((1−FN)/FP) exceeds ε* = 2.
            assert!(
                i.distinguishing.eps_lower_bound > e,
                "{}: lower bound {} vs ε* {e}",
                r.label,
                i.distinguishing.eps_lower_bound
            );
        }
    }
    pooled_c.check("correlated E L");
}

/// Gaussian mechanism, 1-D: the loss of a view is N(μ, 2μ) with
/// μ = Δ²/(2σ*²) (memo §4); mean within 6·√(2μ/T).
#[test]
fn gaussian_loss_mean_matches_memo() {
    let g = graph();
    let t = 2000;
    let res = run(
        &g,
        &config(1, Norm::L1, MechanismChoice::Gaussian, "2"),
        &["far:min-d=3", "nearest:m=5"],
        t,
    );
    for r in res.results.iter().filter(|r| r.size > 0) {
        let a = mech(r, Mechanism::Gaussian).audit.unwrap();
        let s = a.sigma_min.unwrap();
        let mu = 1.0 / (2.0 * s * s);
        let se = (2.0 * mu / t as f64).sqrt();
        assert!(
            (a.loss.mean - mu).abs() <= 6.0 * se,
            "{}: {} vs {mu}",
            r.label,
            a.loss.mean
        );
        assert_eq!(a.eps_bound, r.accounting.eps_max);
    }
}

/// Results do not depend on the number of threads; an empty coalition is a
/// result (size 0, NaN gains, no audit), not an error.
#[test]
fn thread_count_invariance_and_empty_coalitions() {
    let g = graph();
    let cfg = config(2, Norm::L2, MechanismChoice::Both, "5");
    let specs = ["far:min-d=4", "random:m=7,min-d=2", "far:min-d=1000"];
    let one = rayon::ThreadPoolBuilder::new()
        .num_threads(1)
        .build()
        .unwrap()
        .install(|| run(&g, &cfg, &specs, 40));
    let two = rayon::ThreadPoolBuilder::new()
        .num_threads(2)
        .build()
        .unwrap()
        .install(|| run(&g, &cfg, &specs, 40));
    assert_eq!(one.results.len(), 15);
    for (a, b) in one.results.iter().zip(&two.results) {
        // PartialEq on f64: NaN ≠ NaN, so compare the debug form.
        assert_eq!(format!("{a:?}"), format!("{b:?}"));
    }
    for r in one.results.iter().filter(|r| r.coalition == 2) {
        assert_eq!(r.size, 0);
        for m in &r.mechanisms {
            assert!(m.audit.is_none());
            assert!(
                m.estimators
                    .iter()
                    .all(|(_, g)| g.gain.is_nan() && g.trials == 0)
            );
        }
    }
}

/// A coalition's draws are keyed by its spec: listing `random:m=10` first or
/// third (among other coalitions, in another order) gives the same members
/// and the same numbers, for every mechanism and estimator. Before, trials
/// drew from `c·2³² + t` with c the list position, and every `random:` spec
/// drew its members from one stream.
#[test]
fn coalition_numbers_do_not_depend_on_list_position() {
    let g = graph();
    let cfg = config(1, Norm::L1, MechanismChoice::Both, "6");
    let first = run(&g, &cfg, &["random:m=10", "nearest:m=5", "far:min-d=3"], 40);
    let third = run(&g, &cfg, &["far:min-d=3", "random:m=20", "random:m=10"], 40);
    let alone = run(&g, &cfg, &["random:m=10"], 40);
    let pick = |r: &CollusionResult, label: &str| -> Vec<CoalitionResult> {
        r.results
            .iter()
            .filter(|c| c.label == label)
            .map(|c| CoalitionResult {
                coalition: 0,
                ..c.clone()
            })
            .collect()
    };
    let a = pick(&first, "random:m=10");
    assert_eq!(a.len(), 6);
    assert_eq!(a, pick(&third, "random:m=10"));
    assert_eq!(a, pick(&alone, "random:m=10"));
    assert_eq!(pick(&first, "far:min-d=3"), pick(&third, "far:min-d=3"));
}

/// Two `random:` specs draw their members from streams of their own: before,
/// every `random:` coalition of an owner used one stream, so the members of
/// `random:m=10` were always the first 10 drawn for `random:m=20` (a subset).
#[test]
fn random_coalitions_of_different_sizes_draw_apart() {
    let g = graph();
    let d = Distances::new(&g, DistanceKind::Hop, &DistanceOptions::default()).unwrap();
    let mut ws = d.workspace();
    let mut row = Vec::new();
    let (m10, m20) = (
        Coalition::parse("random:m=10").unwrap(),
        Coalition::parse("random:m=20").unwrap(),
    );
    let mut subsets = 0;
    for owner in 0..20u32 {
        d.from_owner(owner, &mut ws, &mut row);
        let a = m10.select(owner, &row, None, g.ids(), 7).unwrap();
        let b = m20.select(owner, &row, None, g.ids(), 7).unwrap();
        assert_eq!((a.len(), b.len()), (10, 20));
        subsets += usize::from(a.members.iter().all(|x| b.members.contains(x)));
    }
    // Independent draws: P(10 of ~190 nodes all among another 20) < 1e-10.
    assert_eq!(subsets, 0);
}

/// A spec listed twice, even spelled differently, is refused by name.
#[test]
fn a_coalition_listed_twice_is_refused() {
    let opts = CollusionOptions {
        coalitions: vec![
            Coalition::parse("random:m=10").unwrap(),
            Coalition::parse("random: m=10").unwrap(),
        ],
        estimators: Estimator::ALL.to_vec(),
        trials: 10,
        composition_delta: 1e-6,
    };
    let e = opts.validate().unwrap_err().to_string();
    assert!(
        e.contains("listed twice") && e.contains("random:m=10"),
        "{e}"
    );
}
