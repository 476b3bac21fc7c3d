//! The joint law of what a recipient holds after coming closer (issue 24,
//! Acceptance "Law"): on karate, hop and resistance distances, one owner,
//! one event bringing a recipient closer; 2,000 seeds, each a whole
//! `evolve` run into its own store. The old and new answers of that pair
//! must be one path read at two levels — P(equal) = (ε_old/ε_new)²,
//! Cov = 2/ε_new² (1-D), pooling gains nothing over the newest — while the
//! `resample` policy's pooling gains and its privacy spent is the sum (its
//! fresh answers drawn again here from the documented streams, and the
//! engine's timeline checked against them).
//! Tolerances are standard errors computed from the sample (5–6 s.e.).

use crate::support::scratch::scratch_in_memory as scratch;
use privdiffuse::distance::DistanceKind;
use privdiffuse::evolve::Evolve;
use privdiffuse::process::sample_marginal;
use privdiffuse::rng::rng_for_stream;
use privdiffuse::sim::Owners;
use privdiffuse::store::{AnswerFilter, Store};
use privdiffuse::{EpsilonMap, Norm, Purpose, ValueSpec};

const SEEDS: u64 = 2000;

struct Held {
    eps_old: f64,
    eps_new: f64,
    old: f64,
    new: f64,
    /// The `resample` policy's two answers to the pair (u = 0), drawn from
    /// the documented streams (seed, owner, recipient, batch).
    fresh_old: f64,
    fresh_new: f64,
    /// The timeline's resample_mse and the same mean recomputed from the
    /// listing and the streams.
    resample_mse: f64,
    resample_recomputed: f64,
    resample_spent_ok: bool,
}

/// The `resample` answer (u = 0) of `owner → recipient` released at `eps`
/// in `batch`: `Purpose::Resample` stream keyed (seed, owner, recipient, batch).
fn fresh(seed: u64, owner: u64, recipient: u64, batch: u64, eps: f64) -> f64 {
    let mut rng = rng_for_stream(seed, owner, recipient, Purpose::Resample, batch);
    let mut x = [0.0];
    sample_marginal(Norm::L1, eps, &mut x, &mut rng);
    x[0]
}

/// One seed: START = karate, the event adds edge 0–`to` (time 1).
fn one(dir: &std::path::Path, kind: DistanceKind, seed: u64, to: &str) -> Held {
    let events = dir.join("e.csv");
    if !events.exists() {
        std::fs::write(&events, format!("time,u,v,op\n1,0,{to},add\n")).unwrap();
    }
    let db = dir.join(format!("{seed}.db"));
    // ε(d) = 2.5·1.25^−d: ε(1) = 2, ε(2) = 1.6.
    let map = EpsilonMap::exp(2.5f64.ln(), 1.25f64.ln()).unwrap();
    let mut ev = Evolve::new("data/karate.edges", &events, &db)
        .eps(map)
        .distance(kind)
        .dim(1)
        .norm(Norm::L1)
        .values(ValueSpec::Const { x: 0.0 })
        .owners(Owners::Ids(vec!["0".into()]))
        .seed(seed)
        .batch(1);
    if kind != DistanceKind::Hop {
        ev = ev.eps_max(Some(8.0));
    }
    let out = ev.run().unwrap();
    assert_eq!(out.timeline.len(), 2);
    let mut s = Store::open(&db).unwrap();
    let all = s.answers(&AnswerFilter::default()).unwrap();
    let pair: Vec<_> = all.iter().filter(|r| r.recipient == to).collect();
    assert_eq!(
        pair.len(),
        2,
        "the pair is released at batch 0 and again at batch 1"
    );
    assert!(pair[0].batch == 0 && pair[1].batch == 1 && pair[1].eps > pair[0].eps);
    // resample: per pair Σ ε and the inverse-variance pooling of its fresh answers.
    let mut per: std::collections::BTreeMap<&str, (f64, f64, f64)> = Default::default();
    for r in &all {
        let rec: u64 = r.recipient.parse().unwrap();
        let x = fresh(seed, 0, rec, r.batch, r.eps);
        let e = per.entry(r.recipient.as_str()).or_default();
        e.0 += r.eps;
        e.1 += r.eps * r.eps;
        e.2 += r.eps * r.eps * x;
    }
    let n = per.len() as f64;
    let spent: f64 = per.values().map(|v| v.0).sum::<f64>() / n;
    let recomputed: f64 = per.values().map(|v| (v.2 / v.1).powi(2)).sum::<f64>() / n;
    let last = out.timeline.last().unwrap();
    let rs = last.resample_eps_spent.unwrap();
    let to_i: u64 = to.parse().unwrap();
    drop(s);
    let _ = std::fs::remove_file(&db);
    Held {
        eps_old: pair[0].eps,
        eps_new: pair[1].eps,
        old: pair[0].y[0],
        new: pair[1].y[0],
        fresh_old: fresh(seed, 0, to_i, 0, pair[0].eps),
        fresh_new: fresh(seed, 0, to_i, 1, pair[1].eps),
        resample_mse: last.resample_mse.unwrap(),
        resample_recomputed: recomputed,
        resample_spent_ok: (rs - spent).abs() <= 1e-12 * spent,
    }
}

fn mean_se(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / (n - 1.0);
    (m, (v / n).sqrt())
}

fn check(kind: DistanceKind, to: &str) {
    let dir = scratch(kind.as_str());
    let held: Vec<Held> = (1..=SEEDS).map(|s| one(&dir, kind, s, to)).collect();
    let _ = std::fs::remove_dir_all(&dir);
    let (eo, en) = (held[0].eps_old, held[0].eps_new);
    assert!(held.iter().all(|h| h.eps_old == eo && h.eps_new == en));
    let n = held.len() as f64;
    let q = (eo / en) * (eo / en);
    // P(old == new) = (ε_old/ε_new)²: one path, no jump in between.
    let p = held.iter().filter(|h| h.old == h.new).count() as f64 / n;
    let se = (q * (1.0 - q) / n).sqrt();
    assert!(
        (p - q).abs() < 6.0 * se,
        "{kind}: P(equal) {p} vs {q} ± 6·{se}"
    );
    // Cov(V_old, V_new) = 2/ε_new² (u = 0): the correlation ε_old/ε_new.
    let prods: Vec<f64> = held.iter().map(|h| h.old * h.new).collect();
    let (c, se) = mean_se(&prods);
    let cov = 2.0 / (en * en);
    assert!(
        (c - cov).abs() < 6.0 * se,
        "{kind}: cov {c} vs {cov} ± 6·{se}"
    );
    // Pooling the two answers (inverse-variance weights ε²) gains nothing:
    // gain = MSE(newest)/MSE(pooled) ≤ 1 within its interval.
    let w = (eo * eo, en * en);
    let pooled = |h: &Held| (w.0 * h.old + w.1 * h.new) / (w.0 + w.1);
    let d: Vec<f64> = held
        .iter()
        .map(|h| h.new * h.new - pooled(h).powi(2))
        .collect();
    let (diff, se) = mean_se(&d);
    assert!(
        diff < 5.0 * se,
        "{kind}: pooling gained: MSE(new) − MSE(pooled) = {diff} ± {se}"
    );
    // Under `resample` (fresh answers at both levels) the same pooling
    // gains: MSE(newest) − MSE(pooled) > 0 by more than 5 s.e. (theory
    // 2/ε_new² − 2/(ε_old² + ε_new²)); the engine's timeline agrees with the
    // streams, and its privacy spent is the sum of the ε.
    let pooled_f = |h: &Held| (w.0 * h.fresh_old + w.1 * h.fresh_new) / (w.0 + w.1);
    let d: Vec<f64> = held
        .iter()
        .map(|h| h.fresh_new.powi(2) - pooled_f(h).powi(2))
        .collect();
    let (gain, se) = mean_se(&d);
    let theory = 2.0 / (en * en) - 2.0 / (eo * eo + en * en);
    assert!(
        gain > 5.0 * se,
        "{kind}: resample pooling did not gain: {gain} ± {se}"
    );
    assert!(
        (gain - theory).abs() < 6.0 * se,
        "{kind}: resample gain {gain} vs {theory} ± 6·{se}"
    );
    for h in &held {
        assert!(h.resample_spent_ok, "{kind}: resample_eps_spent ≠ Σ ε");
        let (a, b) = (h.resample_mse, h.resample_recomputed);
        assert!(
            (a - b).abs() <= 1e-9 * b.abs().max(1e-300),
            "{kind}: resample_mse {a} vs {b}"
        );
    }
}

#[test]
fn hop_a_recipient_that_came_closer_holds_one_path_at_two_levels() {
    // Karate: node 9 is 2 hops from node 0 (0–2–9); the event makes it 1 (ε 1.6 → 2).
    check(DistanceKind::Hop, "9");
}

#[test]
fn resistance_a_recipient_that_came_closer_holds_one_path_at_two_levels() {
    check(DistanceKind::Resistance, "9");
}
