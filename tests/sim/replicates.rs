//! Replicates, the u/raw/y and `correct` columns, and the ego owners, end to
//! end through the library builder.

use privdiffuse::graph::{GeometricParam, Graph, generate};
use privdiffuse::sim::{ByDistanceRow, ResponseRow, Rows};
use privdiffuse::{MechanismChoice, Owners, Post, Simulation};
use std::collections::BTreeMap;

fn geometric(n: usize, seed: u64) -> Graph {
    generate::geometric(n, GeometricParam::TargetEdges(6 * n as u64), seed)
        .unwrap()
        .0
}

fn sim(g: &Graph) -> Simulation<'_> {
    Simulation::new(g)
        .eps("exp:a=2.5,b=0.6".parse().unwrap())
        .dim(1)
        .norm("l1".parse().unwrap())
        .values("uniform:0,1".parse().unwrap())
        .owners(Owners::Count(12))
        .seed(5)
        .keep([
            Rows::Jumps,
            Rows::Owners,
            Rows::Paths,
            Rows::Ego,
            Rows::Responses,
        ])
}

/// The rows of replicate `r`.
fn of_replicate<T: Clone>(rows: &[T], r: u32, rep: impl Fn(&T) -> u32) -> Vec<T> {
    rows.iter().filter(|x| rep(x) == r).cloned().collect()
}

/// Replicate 2 of three equals the run of replicate 2 alone; replicate 0 of
/// any K is the run without replicates; replicates differ.
fn check_replicates<T: Clone + PartialEq + std::fmt::Debug>(
    all: &[T],
    one: &[T],
    first: &[T],
    rep: impl Fn(&T) -> u32 + Copy,
    name: &str,
) {
    assert_eq!(
        of_replicate(all, 2, rep),
        of_replicate(one, 2, rep),
        "{name}: replicate 2 alone"
    );
    assert_eq!(
        of_replicate(all, 0, rep),
        of_replicate(first, 0, rep),
        "{name}"
    );
    assert!(!of_replicate(all, 0, rep).is_empty(), "{name}");
    assert_ne!(
        of_replicate(all, 0, rep),
        of_replicate(all, 1, rep),
        "{name}"
    );
}

#[test]
fn replicate_r_alone_has_the_numbers_it_has_among_k() {
    let g = geometric(200, 2);
    let all = sim(&g).replicates(3).run().unwrap();
    let one = sim(&g).replicate_range(2..3).run().unwrap();
    let first = sim(&g).run().unwrap();
    macro_rules! same {
        ($f:ident, $rep:expr) => {
            check_replicates(
                all.$f().unwrap(),
                one.$f().unwrap(),
                first.$f().unwrap(),
                $rep,
                stringify!($f),
            )
        };
    }
    same!(jumps, |r| r.replicate);
    same!(owners, |r| r.replicate);
    same!(paths, |r| r.replicate.unwrap_or(0));
    same!(ego, |r| r.replicate);
    same!(responses, |r| r.replicate);
    assert_eq!(all.owners().unwrap().len(), 36);
    assert_eq!(all.counts().responses, 3 * first.counts().responses);
    assert!(
        sim(&g)
            .replicates(0)
            .run()
            .unwrap_err()
            .to_string()
            .contains("replicates")
    );
}

/// Cluster standard error of the MSE per (mechanism, distance) from the
/// responses, with clusters keyed by `key`.
fn clustered_se(
    resp: &[ResponseRow],
    key: impl Fn(&ResponseRow) -> String,
) -> BTreeMap<(String, u64), f64> {
    // (mech, d) → cluster → (S, c)
    let mut m: BTreeMap<(String, u64), BTreeMap<String, (f64, f64)>> = BTreeMap::new();
    for r in resp {
        let e = r.raw()[0] - r.u()[0];
        let c = m
            .entry((r.mechanism.name().to_string(), r.distance as u64))
            .or_default()
            .entry(key(r))
            .or_default();
        c.0 += e * e;
        c.1 += 1.0;
    }
    m.into_iter()
        .map(|(k, cl)| {
            let (s, c): (f64, f64) = cl.values().fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
            let r = s / c;
            let kk = cl.len() as f64;
            let ss: f64 = cl.values().map(|(si, ci)| (si - r * ci).powi(2)).sum();
            (k, (kk / (kk - 1.0) * ss).sqrt() / c)
        })
        .collect()
}

#[test]
fn mse_se_treats_owner_and_replicate_as_the_cluster() {
    let g = geometric(200, 2);
    let out = sim(&g)
        .mechanism(MechanismChoice::Correlated)
        .replicates(4)
        .run()
        .unwrap();
    let resp = out.responses().unwrap();
    let by_cluster = clustered_se(resp, |r| format!("{}#{}", r.owner, r.replicate));
    let by_owner = clustered_se(resp, |r| r.owner.to_string());
    let by_answer = clustered_se(resp, |r| {
        format!("{}#{}#{}", r.owner, r.replicate, r.recipient)
    });
    let mut differs_answer = 0;
    let mut differs_owner = 0;
    for row in out.by_distance().iter().filter(|r| r.mse_se.is_finite()) {
        let k = (row.mechanism.clone(), row.distance_lo as u64);
        let se = by_cluster[&k];
        assert!(
            (row.mse_se - se).abs() <= 1e-9 * se,
            "d={}: {} vs {se}",
            row.distance_lo,
            row.mse_se
        );
        differs_answer += ((row.mse_se - by_answer[&k]).abs() > 1e-6 * se) as usize;
        differs_owner += ((row.mse_se - by_owner[&k]).abs() > 1e-6 * se) as usize;
    }
    // The per-answer and per-owner formulas give other numbers.
    assert!(
        differs_answer >= 3 && differs_owner >= 3,
        "{differs_answer} {differs_owner}"
    );
}

/// Correct-bit rate per bucket against its theory: z = (rate − theory) /
/// s.e., the s.e. from the clusters (answers of one owner's replicate in one
/// bucket share their noise for the correlated and Gaussian mechanisms).
fn correct_z(
    rows: &[ByDistanceRow],
    resp: &[ResponseRow],
    theory: impl Fn(&ByDistanceRow) -> f64,
) -> Vec<(String, f64, f64)> {
    let mut m: BTreeMap<(String, u64), BTreeMap<String, (f64, f64)>> = BTreeMap::new();
    for r in resp {
        let independent = r.mechanism.name() == "independent";
        let key = if independent {
            format!("{}#{}#{}", r.owner, r.replicate, r.recipient)
        } else {
            format!("{}#{}", r.owner, r.replicate)
        };
        let c = m
            .entry((r.mechanism.name().to_string(), r.distance as u64))
            .or_default()
            .entry(key)
            .or_default();
        c.0 += (r.y() == r.u()) as u64 as f64;
        c.1 += 1.0;
    }
    let mut out = Vec::new();
    for row in rows.iter().filter(|r| r.count >= 300) {
        let cl = &m[&(row.mechanism.clone(), row.distance_lo as u64)];
        let (ok, c): (f64, f64) = cl.values().fold((0.0, 0.0), |a, b| (a.0 + b.0, a.1 + b.1));
        assert_eq!(row.correct_rate, Some(ok / c), "the rate is the responses'");
        let p = theory(row);
        let c2: f64 = cl.values().map(|x| x.1 * x.1).sum();
        let se = (p * (1.0 - p) * c2).sqrt() / c;
        out.push((row.mechanism.clone(), row.distance_lo, (ok / c - p) / se));
    }
    out
}

#[test]
fn correct_rate_matches_its_theory() {
    let g = geometric(300, 4);
    for (mech, dim, norm) in [("both", 1, "l1"), ("gaussian", 1, "l1"), ("both", 2, "l1")] {
        let out = Simulation::new(&g)
            .eps("exp:a=1.5,b=0.5".parse().unwrap())
            .dim(dim)
            .norm(norm.parse().unwrap())
            .mechanism(mech.parse().unwrap())
            .values("bits:0.5".parse().unwrap())
            .post(Post::Bit)
            .sensitivity(1.5)
            .owners(Owners::Count(40))
            .replicates(5)
            .seed(3)
            .keep([Rows::Responses, Rows::Ego])
            .run()
            .unwrap();
        let rows = out.by_distance();
        let resp = out.responses().unwrap();
        let zs = correct_z(rows, resp, |r| r.correct_theory.flatten().unwrap());
        assert!(zs.len() >= 4, "{mech}: {zs:?}");
        for (m, d, z) in &zs {
            assert!(z.abs() < 6.0, "{mech} dim {dim}: {m} d={d}: z = {z}");
        }
        if mech == "both" && dim == 1 {
            // The check can fail: the rate of noise of scale 1/ε (Δ forgotten).
            let wrong = correct_z(rows, resp, |r| 1.0 - 0.5 * (-r.mean_eps / 2.0).exp());
            assert!(wrong.iter().any(|(_, _, z)| z.abs() > 6.0), "{wrong:?}");
        }
        // ego.csv's `correct` says whether y = u.
        for e in out.ego().unwrap() {
            assert_eq!(e.correct, Some((e.y() == e.u()) as u8));
        }
    }
    // ℓ2 noise in 2-D has no closed form here: the column is empty.
    let out = Simulation::new(&g)
        .dim(2)
        .norm("l2".parse().unwrap())
        .values("bits:0.5".parse().unwrap())
        .post(Post::Bit)
        .owners(Owners::Count(3))
        .run()
        .unwrap();
    assert!(
        out.by_distance()
            .iter()
            .all(|r| r.correct_theory == Some(None))
    );
}

#[test]
fn ego_owners_are_recorded_with_their_owner_column() {
    let g = Graph::load("data/karate.edges").unwrap();
    let out = Simulation::new(&g)
        .owners(Owners::All)
        .ego_owners(["33", "0"])
        .replicates(2)
        .keep([Rows::Ego])
        .run()
        .unwrap();
    let ego = out.ego().unwrap();
    // 33 recipients each, 2 replicates, owners in owner order.
    assert_eq!(ego.len(), 2 * 2 * 33);
    assert_eq!(ego[0].owner.as_deref(), Some("0"));
    assert_eq!(ego.last().unwrap().owner.as_deref(), Some("33"));
    assert_eq!(ego.last().unwrap().replicate, 1);
    for e in ego {
        let err: f64 = e
            .raw()
            .iter()
            .zip(e.u())
            .map(|(a, b)| (a - b) * (a - b))
            .sum::<f64>()
            .sqrt();
        assert!((err - e.error_norm).abs() <= 1e-9 * (1.0 + err));
        assert_eq!(e.y(), e.raw()); // no post-processing
    }
    let e = Simulation::new(&g)
        .owners(Owners::Ids(vec!["1".into()]))
        .ego_owners(["2"])
        .run()
        .unwrap_err();
    assert!(e.to_string().contains("ego_owners"), "{e}");
}
