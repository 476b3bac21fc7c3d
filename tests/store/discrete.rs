//! `evolve --noise discrete` (issue 25 on the release store): one integer
//! chain per owner anchored at the rung of the top, levels that are rungs,
//! answers that are grid multiples, and the store's guarantees kept.
//!
//! * Law: on karate, a recipient that comes closer holds the chain read at
//!   two rungs — P(equal) is the memo's atom c + (1 − c)·P(L = 0), the
//!   covariance the variance at the higher rung, and pooling gains nothing;
//!   the `resample` policy's fresh discrete answers (redrawn here from the
//!   documented streams) do gain, and its timeline agrees with them.
//! * Resume: seeded stores stopped at several batches and resumed on 1 or 2
//!   threads list byte-identical answers and timelines; with `rng = os`
//!   a resume never redraws what is stored.
//! * Refusals: each in one line naming the fix.
//!
//! Tolerances are standard errors from the sample (5–6 s.e.).

use super::crash::{bin, ego_events, tmpdir};
use crate::support::scratch::scratch_in_memory as scratch;
use privdiffuse::distance::DistanceKind;
use privdiffuse::evolve::{Evolve, EvolveOutput};
use privdiffuse::process::discrete::theory::{atom, variance};
use privdiffuse::process::discrete::{DiscreteNoise, Grid, NoiseKind, NoiseOptions, RngSource};
use privdiffuse::rng::rng_for_stream;
use privdiffuse::sim::Owners;
use privdiffuse::store::{AnswerFilter, Store};
use privdiffuse::{EpsilonMap, Norm, Purpose, ValueSpec};
use std::path::Path;

const SEEDS: u64 = 1500;

/// γ = 2^-3, 8 levels per doubling: Δ_Z = 8 in 1-D.
fn options(rng: RngSource) -> NoiseOptions {
    NoiseOptions {
        noise: NoiseKind::Discrete,
        granularity: Grid::from_exponent(-3).unwrap(),
        levels_per_doubling: 8,
        rng,
    }
}

fn chain() -> DiscreteNoise {
    DiscreteNoise::new(Grid::from_exponent(-3).unwrap(), 8, 1.0, 1).unwrap()
}

struct Held {
    eps: (f64, f64),
    /// The pair's answers in grid steps (u = 0: y = X·γ).
    x: (i64, i64),
    /// The `resample` policy's answers to the pair, redrawn here.
    fresh: (i64, i64),
    resample_ok: bool,
}

/// The `resample` policy's fresh answer (grid steps, u = 0) at `eps`.
fn fresh(seed: u64, recipient: u64, batch: u64, eps: f64) -> i64 {
    let nz = chain();
    let mut rng = rng_for_stream(seed, 0, recipient, Purpose::Resample, batch);
    let mut x = [0i64];
    nz.sample_fresh_into(nz.rung_of(eps).unwrap(), &mut rng, &mut x)
        .unwrap();
    x[0]
}

/// One seed: START = karate, owner 0, the event adds edge 0–9 (2 hops → 1).
fn one(dir: &Path, seed: u64) -> Held {
    let events = dir.join("e.csv");
    if !events.exists() {
        std::fs::write(&events, "time,u,v,op\n1,0,9,add\n").unwrap();
    }
    let db = dir.join(format!("{seed}.db"));
    // ε(d) = 2.5·1.25^−d: ε(1) = 2 (a rung), ε(2) = 1.6 (answered at the rung below).
    let out = Evolve::new("data/karate.edges", &events, &db)
        .eps(EpsilonMap::exp(2.5f64.ln(), 1.25f64.ln()).unwrap())
        .dim(1)
        .norm(Norm::L1)
        .values(ValueSpec::Const { x: 0.0 })
        .owners(Owners::Ids(vec!["0".into()]))
        .seed(seed)
        .batch(1)
        .noise(options(RngSource::Seeded))
        .run()
        .unwrap();
    let mut s = Store::open(&db).unwrap();
    let all = s.answers(&AnswerFilter::default()).unwrap();
    let nz = chain();
    let steps = |y: f64| {
        let x = y * 8.0;
        assert_eq!(x, x.round(), "an answer off the grid: {y}");
        x as i64
    };
    for r in &all {
        // Every level is a rung at or below min(ε(d), top).
        let k = nz.rung_of(r.eps).unwrap();
        assert_eq!(nz.eps_of(k), r.eps);
        assert!(r.eps <= 2.5 * 1.25f64.powf(-r.distance));
        steps(r.y[0]);
    }
    let pair: Vec<_> = all.iter().filter(|r| r.recipient == "9").collect();
    assert_eq!(pair.len(), 2, "released at batch 0 and again at batch 1");
    // resample: Σ ε per pair, and the pooling of its fresh answers with
    // weights 1/variance at the rung.
    let mut per: std::collections::BTreeMap<&str, (f64, f64, f64)> = Default::default();
    for r in &all {
        let rec: u64 = r.recipient.parse().unwrap();
        let x = fresh(seed, rec, r.batch, r.eps) as f64 / 8.0;
        let w = 1.0 / nz.variance(nz.rung_of(r.eps).unwrap());
        let e = per.entry(r.recipient.as_str()).or_default();
        e.0 += r.eps;
        e.1 += w;
        e.2 += w * x;
    }
    let n = per.len() as f64;
    let spent = per.values().map(|v| v.0).sum::<f64>() / n;
    let pooled = per.values().map(|v| (v.2 / v.1).powi(2)).sum::<f64>() / n;
    let last = out.timeline.last().unwrap();
    let close = |a: f64, b: f64| (a - b).abs() <= 1e-9 * b.abs().max(1e-300);
    let resample_ok =
        close(last.resample_eps_spent.unwrap(), spent) && close(last.resample_mse.unwrap(), pooled);
    drop(s);
    let _ = std::fs::remove_file(&db);
    Held {
        eps: (pair[0].eps, pair[1].eps),
        x: (steps(pair[0].y[0]), steps(pair[1].y[0])),
        fresh: (
            fresh(seed, 9, 0, pair[0].eps),
            fresh(seed, 9, 1, pair[1].eps),
        ),
        resample_ok,
    }
}

fn mean_se(x: &[f64]) -> (f64, f64) {
    let n = x.len() as f64;
    let m = x.iter().sum::<f64>() / n;
    let v = x.iter().map(|a| (a - m) * (a - m)).sum::<f64>() / (n - 1.0);
    (m, (v / n).sqrt())
}

#[test]
fn a_recipient_that_came_closer_holds_one_integer_chain_at_two_rungs() {
    let dir = scratch("law");
    let held: Vec<Held> = (1..=SEEDS).map(|s| one(&dir, s)).collect();
    let _ = std::fs::remove_dir_all(&dir);
    let (eo, en) = held[0].eps;
    assert!(held.iter().all(|h| h.eps == (eo, en)));
    assert!(eo < 1.6 && en == 2.0, "rungs {eo}, {en}");
    let nz = chain();
    let (to, tn) = (eo / 8.0, en / 8.0);
    let n = held.len() as f64;
    // P(X_old = X_new) = c + (1 − c)·P(L = 0) (memo §2).
    let q = atom(tn, to);
    let p = held.iter().filter(|h| h.x.0 == h.x.1).count() as f64 / n;
    let se = (q * (1.0 - q) / n).sqrt();
    assert!((p - q).abs() < 6.0 * se, "P(equal) {p} vs {q} ± 6·{se}");
    // Cov(X_old, X_new) = Var X_new: the lower rung only adds noise.
    let prods: Vec<f64> = held.iter().map(|h| (h.x.0 * h.x.1) as f64).collect();
    let (c, se) = mean_se(&prods);
    let v = variance(tn);
    assert!((c - v).abs() < 6.0 * se, "cov {c} vs {v} ± 6·{se}");
    // Pooling with weights 1/variance gains nothing over the newest…
    let w = (
        1.0 / nz.variance(nz.rung_of(eo).unwrap()),
        1.0 / nz.variance(nz.rung_of(en).unwrap()),
    );
    let pool = |a: i64, b: i64| (w.0 * a as f64 + w.1 * b as f64) / (w.0 + w.1);
    let d: Vec<f64> = held
        .iter()
        .map(|h| (h.x.1 as f64).powi(2) - pool(h.x.0, h.x.1).powi(2))
        .collect();
    let (diff, se) = mean_se(&d);
    assert!(diff < 5.0 * se, "pooling gained: {diff} ± {se}");
    // …while the `resample` policy's fresh answers gain from it
    // (theory: Var_new − 1/(w_old + w_new)).
    let d: Vec<f64> = held
        .iter()
        .map(|h| (h.fresh.1 as f64).powi(2) - pool(h.fresh.0, h.fresh.1).powi(2))
        .collect();
    let (gain, se) = mean_se(&d);
    let theory = v - 1.0 / (w.0 + w.1);
    assert!(
        gain > 5.0 * se,
        "resample pooling did not gain: {gain} ± {se}"
    );
    assert!(
        (gain - theory).abs() < 6.0 * se,
        "resample gain {gain} vs {theory} ± 6·{se}"
    );
    assert!(
        held.iter().all(|h| h.resample_ok),
        "resample timeline ≠ its streams"
    );
    // (`--nocapture` shows the measured values.)
    println!(
        "rungs {eo}, {en}: P(equal) {p} vs {q}; cov {c} vs {v}; pooling gain {diff}; \
         resample gain {gain} vs {theory}"
    );
}

#[allow(clippy::too_many_arguments)]
fn run(
    start: &Path,
    events: &Path,
    nodes: &Path,
    db: &Path,
    kind: DistanceKind,
    rng: RngSource,
    resume: bool,
    stop: Option<u64>,
    threads: usize,
) -> EvolveOutput {
    let mut ev = Evolve::new(start, events, db)
        .nodes(nodes)
        .eps(EpsilonMap::exp(3.0, 1.0).unwrap())
        .distance(kind)
        .dim(2)
        .norm(Norm::L1)
        .values("uniform:0,1".parse::<ValueSpec>().unwrap())
        .batch(10)
        .seed(7)
        .noise(NoiseOptions {
            granularity: Grid::from_exponent(-10).unwrap(),
            levels_per_doubling: 32,
            ..options(rng)
        })
        .resume(resume)
        .stop_after(stop);
    if kind != DistanceKind::Hop {
        ev = ev.eps_max(Some(4.0));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| ev.run())
        .unwrap()
}

fn listing(db: &Path) -> String {
    let mut s = Store::open(db).unwrap();
    let mut out = Vec::new();
    s.write_answers(&AnswerFilter::default(), &mut out).unwrap();
    String::from_utf8(out).unwrap()
}

/// Every answer of the listing (2-D) a multiple of γ = 2^-10.
fn on_grid(text: &str) -> usize {
    let mut n = 0;
    for line in text.lines().skip(1) {
        for y in line.split(',').skip(5) {
            let y: f64 = y.parse().unwrap();
            assert_eq!(y * 1024.0, (y * 1024.0).round(), "off the grid: {line}");
        }
        n += 1;
    }
    n
}

#[test]
fn seeded_discrete_stores_resume_to_the_same_bytes() {
    let dir = tmpdir("discrete-resume");
    let (start, events, nodes) = ego_events(&dir, "0.05");
    for kind in [DistanceKind::Hop, DistanceKind::Resistance] {
        let full = dir.join(format!("{kind}-full.db"));
        let o = run(
            &start,
            &events,
            &nodes,
            &full,
            kind,
            RngSource::Seeded,
            false,
            None,
            2,
        );
        let want = (listing(&full), format!("{:?}", o.timeline));
        assert!(on_grid(&want.0) > 10_000);
        let k = o.batches;
        for (stop, threads) in [(0, 1), (1, 2), (k / 2, 1), (k - 1, 2)] {
            let db = dir.join(format!("{kind}-{stop}.db"));
            run(
                &start,
                &events,
                &nodes,
                &db,
                kind,
                RngSource::Seeded,
                false,
                Some(stop),
                2,
            );
            let o = run(
                &start,
                &events,
                &nodes,
                &db,
                kind,
                RngSource::Seeded,
                true,
                None,
                threads,
            );
            assert!(!o.seconds.full_replay);
            assert_eq!(
                (listing(&db), format!("{:?}", o.timeline)),
                want,
                "{kind}: stopped after batch {stop}, resumed on {threads} threads"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn os_entropy_is_never_redrawn_by_a_resume() {
    let dir = tmpdir("discrete-os");
    let (start, events, nodes) = ego_events(&dir, "0");
    let db = dir.join("os.db");
    let kind = DistanceKind::Hop;
    run(
        &start,
        &events,
        &nodes,
        &db,
        kind,
        RngSource::Os,
        false,
        Some(2),
        2,
    );
    let before = listing(&db);
    let o = run(
        &start,
        &events,
        &nodes,
        &db,
        kind,
        RngSource::Os,
        true,
        None,
        1,
    );
    let after = listing(&db);
    assert!(o.timeline.len() as u64 == o.batches + 1);
    // The rows of batches 0–2 are listed again, unchanged and in order.
    let early: Vec<&str> = after
        .lines()
        .enumerate()
        .filter(|(i, l)| {
            *i == 0
                || l.split(',')
                    .nth(2)
                    .is_some_and(|b| b.parse::<u64>().is_ok_and(|b| b <= 2))
        })
        .map(|(_, l)| l)
        .collect();
    let want: Vec<&str> = before.lines().collect();
    assert!(
        early.len() == want.len(),
        "{} rows vs {}",
        early.len(),
        want.len()
    );
    if let Some(i) = (0..want.len()).find(|&i| early[i] != want[i]) {
        panic!("row {i} redrawn: {} vs {}", early[i], want[i]);
    }
    assert!(after.lines().count() > before.lines().count());
    on_grid(&after);
    // Not reproducible: another store drawn from the OS differs.
    let other = dir.join("os2.db");
    run(
        &start,
        &events,
        &nodes,
        &other,
        kind,
        RngSource::Os,
        false,
        None,
        2,
    );
    assert!(
        listing(&other) != after,
        "two os stores drew the same answers"
    );
    // The store records its entropy; a seeded resume of it is refused.
    let s = Store::open(&db).unwrap();
    assert_eq!(s.config().unwrap().rng, Some(RngSource::Os));
    drop(s);
    let e = Evolve::new(&start, &events, &db)
        .nodes(&nodes)
        .eps(EpsilonMap::exp(3.0, 1.0).unwrap())
        .dim(2)
        .norm(Norm::L1)
        .values("uniform:0,1".parse::<ValueSpec>().unwrap())
        .batch(10)
        .seed(7)
        .noise(NoiseOptions {
            granularity: Grid::from_exponent(-10).unwrap(),
            levels_per_doubling: 32,
            ..options(RngSource::Seeded)
        })
        .resume(true)
        .run()
        .unwrap_err()
        .to_string();
    assert!(e.contains("rng = os, not seeded"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn store_answer_releases_rungs_on_the_grid() {
    let dir = tmpdir("discrete-answer");
    let events = dir.join("e.csv");
    std::fs::write(&events, "time,u,v,op\n1,0,9,add\n").unwrap();
    let db = dir.join("a.db");
    Evolve::new("data/karate.edges", &events, &db)
        .eps(EpsilonMap::exp(2.5f64.ln(), 1.25f64.ln()).unwrap())
        .dim(1)
        .norm(Norm::L1)
        .values("uniform:0,1".parse::<ValueSpec>().unwrap())
        .owners(Owners::Ids(vec!["0".into()]))
        .batch(1)
        .noise(options(RngSource::Seeded))
        .stop_after(Some(0))
        .run()
        .unwrap();
    let nz = chain();
    let mut s = Store::open_writer(&db).unwrap();
    // Recipient 9 is at 2 hops after batch 0: the answer held since batch 0.
    let a = s.answer("0", "9").unwrap();
    assert!(!a.released && a.batch == 0);
    assert_eq!(nz.eps_of(nz.rung_of(a.eps).unwrap()), a.eps);
    assert_eq!(a.y[0] * 8.0, (a.y[0] * 8.0).round());
    // The listing gives the same answer.
    let rows = s
        .answers(&AnswerFilter {
            owner: Some("0".into()),
            recipient: Some("9".into()),
        })
        .unwrap();
    assert_eq!((rows[0].eps, rows[0].y.clone()), (a.eps, a.y.clone()));
    drop(s);
    let _ = std::fs::remove_dir_all(&dir);
}

fn refused(args: &[&str], want: &[&str]) {
    let o = bin().args(args).output().unwrap();
    assert_eq!(o.status.code(), Some(2), "{args:?}");
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(e.lines().count(), 1, "{e}");
    for w in want {
        assert!(e.contains(w), "{args:?}: {e} lacks {w}");
    }
}

#[test]
fn discrete_evolve_refusals_are_one_line() {
    let dir = tmpdir("discrete-refusals");
    let events = dir.join("e.csv");
    std::fs::write(&events, "time,u,v,op\n1,0,9,add\n").unwrap();
    let db = dir.join("r.db");
    let db = db.to_str().unwrap();
    let ev = events.to_str().unwrap();
    let base = [
        "evolve",
        "--graph",
        "data/karate.edges",
        "--events",
        ev,
        "--store",
        db,
        "--no-plots",
        "--quiet",
    ];
    let with = |extra: &[&'static str]| -> Vec<&str> {
        base.iter().copied().chain(extra.iter().copied()).collect()
    };
    // ℓ2 in 2-D has no discrete form.
    refused(
        &with(&["--noise", "discrete", "--dim", "2", "--norm", "l2"]),
        &["norm", "l1"],
    );
    // A value model beyond the grid's range.
    refused(
        &with(&[
            "--noise",
            "discrete",
            "--dim",
            "1",
            "--granularity",
            "2^-50",
            "--values",
            "uniform:0,100",
        ]),
        &["values", "granularity"],
    );
    // Discrete options without the discrete noise do nothing: refused.
    refused(
        &with(&["--granularity", "2^-3", "--dim", "1"]),
        &["granularity", "discrete"],
    );
    refused(&with(&["--rng", "os", "--dim", "1"]), &["rng", "discrete"]);
    // A level below the smallest rung the grid allows names it.
    refused(
        &with(&[
            "--noise",
            "discrete",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--eps",
            "exp:a=-25,b=1",
        ]),
        &["ε ≥"],
    );
    // A store continued with another noise is refused naming the key.
    let o = bin()
        .args(with(&[
            "--noise",
            "discrete",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--eps",
            "exp:a=1,b=1",
        ]))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let o = bin()
        .args(with(&[
            "--dim",
            "1",
            "--norm",
            "l1",
            "--eps",
            "exp:a=1,b=1",
            "--resume",
        ]))
        .output()
        .unwrap();
    // (Exit 1, as for any store continued with another configuration.)
    assert_eq!(o.status.code(), Some(1));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(
        e.contains("noise") && e.contains("discrete") && e.lines().count() == 1,
        "{e}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a black-box pass found (issue 25 follow-up), each pinned: a value
/// model resolved from `auto` is checked on its public range (never
/// secret-dependent); a pair whose ε falls below the smallest rung keeps
/// what it holds (a grid too coarse for the timeline's sums: the one grid
/// limit of `trust::rules`); an existing non-regular `--store` is refused and left
/// alone; a bad `answers` filter writes nothing; an `--out` that is a file
/// is refused before batch 0; mismatched resumes name values as written.
#[test]
fn refusals_come_first_and_never_depend_on_a_secret_or_remove_a_file() {
    let dir = tmpdir("discrete-bbt");
    let p = |name: &str| dir.join(name).to_str().unwrap().to_string();
    std::fs::write(dir.join("two.edges"), "0 1\n").unwrap();
    std::fs::write(dir.join("two.csv"), "time,u,v,op\n1,0,1,remove\n").unwrap();
    // `auto` = uniform:0,1 beyond a grid of ±0.5: refused for every seed.
    for seed in ["1", "3", "8"] {
        let db = p(&format!("two{seed}.db"));
        let o = bin()
            .args([
                "evolve",
                "--graph",
                &p("two.edges"),
                "--events",
                &p("two.csv"),
            ])
            .args([
                "--store",
                &db,
                "--noise",
                "discrete",
                "--granularity",
                "2^-53",
            ])
            .args(["--eps", "recip:c=10000", "--eps-max", "10000", "--dim", "1"])
            .args(["--norm", "l1", "--seed", seed, "--no-plots", "--quiet"])
            .output()
            .unwrap();
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "seed {seed}: {e}");
        assert!(e.contains("uniform:0,1") && !e.contains("owner"), "{e}");
        assert!(!Path::new(&db).exists());
    }
    // A 6-cycle losing an edge: ε(5) = e^-30 falls below every rung.
    std::fs::write(dir.join("c.edges"), "0 1\n1 2\n2 3\n3 4\n4 5\n5 0\n").unwrap();
    std::fs::write(dir.join("c.csv"), "time,u,v,op\n1,5,0,remove\n").unwrap();
    let cycle = |store: &str, extra: &[&str]| {
        let mut c = bin();
        c.args([
            "evolve",
            "--graph",
            &p("c.edges"),
            "--events",
            &p("c.csv"),
            "--store",
        ])
        .arg(p(store))
        .args([
            "--dim",
            "1",
            "--norm",
            "l1",
            "--batch",
            "1",
            "--no-plots",
            "--quiet",
        ])
        .args(extra);
        c.output().unwrap()
    };
    let o = cycle("c.db", &["--noise", "discrete", "--eps", "exp:a=0,b=6"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let t = std::fs::read_to_string(dir.join("c-evolve/timeline.csv")).unwrap();
    assert_eq!(
        t.lines().nth(2).unwrap().split(',').nth(4),
        Some("6"),
        "{t}"
    );
    // A mismatched resume names the values as the configuration writes them.
    let o = cycle(
        "c.db",
        &[
            "--noise",
            "discrete",
            "--eps",
            "exp:a=0,b=6",
            "--granularity",
            "2^-9",
            "--resume",
        ],
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("granularity = 2^-10, not 2^-9"), "{e}");
    // An existing directory as the store: refused, left in place.
    std::fs::create_dir(dir.join("d.db")).unwrap();
    let o = cycle("d.db", &[]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a regular file"));
    assert!(dir.join("d.db").is_dir());
    // An existing file as --out: refused before batch 0.
    std::fs::write(dir.join("outfile"), "").unwrap();
    let o = cycle("o.db", &["--out", &p("outfile")]);
    assert_eq!(o.status.code(), Some(1));
    assert!(!dir.join("o.db").exists());
    // A bad filter: one line on stderr, nothing on stdout.
    let o = bin()
        .args(["answers", "--store", &p("c.db"), "--owner", "99"])
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    assert!(
        o.stdout.is_empty(),
        "{}",
        String::from_utf8_lossy(&o.stdout)
    );
    let _ = std::fs::remove_dir_all(&dir);
}
