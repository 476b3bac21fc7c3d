//! The relay against `simulate`, against hand computations, and its engines
//! against each other (issue 26, acceptance).

use super::*;
use crate::graph::{Graph, LoadOptions};
use crate::process::family::Laplace;
use crate::sim::{Rows, SimOutput, Simulation};
use crate::{
    distance::DistanceKind, epsilon::EpsilonMap, mechanism::MechanismChoice, process::Norm,
    sim::Owners, values::ValueSpec,
};
use std::collections::HashMap;

fn golden(name: &str) -> Graph {
    Graph::load(format!("tests/golden/{name}")).unwrap()
}

/// `simulate`'s raw answers (u + V) by (owner id, recipient id), as it
/// writes them to `responses.csv`.
fn simulate_answers(
    g: &Graph,
    map: &EpsilonMap,
    kind: DistanceKind,
    dim: usize,
    norm: Norm,
    seed: u64,
) -> HashMap<(String, String), (f64, Vec<f64>)> {
    let out = Simulation::new(g)
        .eps(map.clone())
        .distance(kind)
        .dim(dim)
        .norm(norm)
        .mechanism(MechanismChoice::Correlated)
        .seed(seed)
        .keep([Rows::Responses])
        .run()
        .unwrap();
    answers_by_pair(&out)
}

/// A run's answers (the rung's ε used, u + V) by (owner id, recipient id).
pub(super) fn answers_by_pair(out: &SimOutput) -> HashMap<(String, String), (f64, Vec<f64>)> {
    out.responses()
        .unwrap()
        .iter()
        .map(|r| {
            (
                (r.owner.to_string(), r.recipient.to_string()),
                (r.eps, r.raw().to_vec()),
            )
        })
        .collect()
}

/// Every relay trimming, on karate and les misérables (hop) and the
/// weighted karate club: for every owner, every recipient's read-out is
/// `simulate`'s answer bit for bit, and no message carries a breakpoint
/// above its receiver's own level — checked on the messages themselves.
/// Messages: Σ out-degrees of the reached nodes ≤ 2|E|; hop rounds: the
/// owner's eccentricity.
#[test]
fn every_answer_is_simulates_and_no_message_exceeds_its_receiver() {
    let cases = [
        (
            "karate.edges",
            DistanceKind::Hop,
            "range:0.5..15",
            2,
            Norm::L2,
        ),
        (
            "lesmis.edges",
            DistanceKind::Hop,
            "exp:a=3,b=0.7",
            1,
            Norm::L1,
        ),
        (
            "karate_weighted.edges",
            DistanceKind::Weighted,
            "range:0.5..15",
            1,
            Norm::L1,
        ),
    ];
    for (file, kind, spec, dim, norm) in cases {
        let g = golden(file);
        let map: EpsilonMap = spec.parse().unwrap();
        let seed = 11;
        let sim = simulate_answers(&g, &map, kind, dim, norm, seed);
        let relay = Relay::new(&g)
            .eps(map.clone())
            .distance(kind)
            .dim(dim)
            .norm(norm)
            .seed(seed);
        let out = relay.run().unwrap();
        let mut pairs = 0;
        for r in out.rows() {
            assert_eq!(r.identical, r.recipients, "{file} owner {}", r.owner);
            assert_eq!(r.eps_learned_excess_max, Some(1.0), "{file}");
            pairs += r.recipients;
        }
        assert_eq!(pairs as usize, sim.len(), "{file}: the same recipients");
        let degree: HashMap<u32, usize> = (0..g.n() as u32).map(|v| (v, g.degree(v))).collect();
        for o in 0..g.n() as u32 {
            let id = g.ids().label(o).to_string();
            let t = relay.trace(&id, Untrimmed::Fraction(0.0)).unwrap();
            let row = out.rows().iter().find(|r| r.owner == id).unwrap();
            assert_eq!(t.stats.messages, row.messages, "{file} {id}");
            assert_eq!(t.stats.bytes, row.bytes, "{file} {id}");
            assert_eq!(t.stats.rounds, row.rounds, "{file} {id}");
            let eps: HashMap<u32, f64> = t.nodes.iter().map(|n| (n.node, n.eps)).collect();
            for n in &t.nodes {
                let (e, raw) = &sim[&(id.clone(), n.id.clone())];
                assert_eq!(e.to_bits(), n.eps.to_bits(), "{file} {id} → {}", n.id);
                let a = n.answer.as_ref().unwrap();
                assert!(
                    a.iter().zip(raw).all(|(x, y)| x.to_bits() == y.to_bits()),
                    "{file} {id} → {}: {a:?} vs {raw:?}",
                    n.id
                );
                assert!(n.identical && n.hold_round.is_some());
                assert_eq!(n.eps_learned, Some(n.eps), "{file} {id} → {}", n.id);
            }
            let levels: Vec<f64> = t.path.iter().map(|b| b.eps).collect();
            for m in &t.messages {
                assert_eq!(m.breakpoints, levels.partition_point(|&l| l <= m.trim));
                assert_eq!(m.bytes, message_bytes::<Laplace>(dim, m.breakpoints));
                if m.to == o {
                    continue; // the owner holds her whole path
                }
                let own = eps[&m.to];
                assert!(m.trim <= own, "{file} {id}: {m:?} above ε = {own}");
                assert!(
                    levels[..m.breakpoints].iter().all(|&l| l <= own),
                    "{file} {id}: {m:?} carries a breakpoint above ε = {own}"
                );
            }
            let sent: usize = std::iter::once(o)
                .chain(t.nodes.iter().map(|n| n.node))
                .map(|v| degree[&v])
                .sum();
            assert_eq!(t.messages.len(), sent);
            assert!(t.messages.len() as u64 <= 2 * g.m());
            if kind == DistanceKind::Hop {
                let ecc = t.nodes.iter().map(|n| n.distance).fold(0.0, f64::max);
                assert_eq!(t.stats.rounds as f64, ecc, "{file} {id}");
                assert!(
                    t.messages
                        .iter()
                        .all(|m| m.round >= 1 && m.round <= t.stats.rounds + 1)
                );
            }
        }
    }
}

/// Every engine gives the same counts bit for bit — the 64-owner batch,
/// the sweep, round by round, the partitioned exchange — with and without
/// untrimmed relays, on hop and weighted distances, a directed graph, a
/// graph with isolated nodes and a path of 300 nodes, and whatever the
/// number of threads.
#[test]
fn every_engine_gives_the_same_counts() {
    let mut directed_edges = Vec::new();
    for u in 0..40u32 {
        directed_edges.push((u, (u * 7 + 3) % 40));
        directed_edges.push((u, (u * 11 + 5) % 40));
    }
    directed_edges.retain(|&(a, b)| a != b);
    let directed = Graph::from_index_edges(40, &directed_edges, None, true).unwrap();
    let florentine = Graph::load_with(
        "tests/golden/florentine.edges",
        &LoadOptions {
            nodes_file: Some("tests/golden/florentine.nodes.csv".into()),
            ..LoadOptions::default()
        },
    )
    .unwrap();
    // A deep one (eccentricity 299: many levels of the 64-owner batch).
    let long: Vec<(u32, u32)> = (0..299).map(|i| (i, i + 1)).collect();
    let long = Graph::from_index_edges(300, &long, None, false).unwrap();
    let exp = "exp:a=2,b=0.6";
    // A `range:` map: the plan's pre-pass runs, and the batch reads the
    // nodes and out-degrees per hop from it instead of searching.
    let range = "range:0.5..15";
    let cases: Vec<(Graph, DistanceKind, &str)> = vec![
        (long.clone(), DistanceKind::Hop, exp),
        (long, DistanceKind::Hop, range),
        (golden("lesmis.edges"), DistanceKind::Hop, range),
        (directed.clone(), DistanceKind::Hop, range),
        (florentine.clone(), DistanceKind::Hop, range),
        (golden("karate.edges"), DistanceKind::Hop, exp),
        // Plateaus: ε(1) = ε(2) and ε(3) = ε(4) = …
        (
            golden("karate.edges"),
            DistanceKind::Hop,
            "table:1=8,2=8,3=2,*=2",
        ),
        (golden("lesmis.edges"), DistanceKind::Hop, exp),
        (golden("karate_weighted.edges"), DistanceKind::Weighted, exp),
        (golden("karate_weighted.edges"), DistanceKind::Hop, exp),
        (directed, DistanceKind::Hop, exp),
        (florentine, DistanceKind::Hop, exp),
    ];
    for (g, kind, map) in &cases {
        for fractions in [vec![0.0], vec![0.0, 0.05, 0.2]] {
            let relay = Relay::new(g)
                .eps(map.parse().unwrap())
                // (a floor under the 300-node path's levels: a plateau)
                .eps_clamp(Some(0.05), None)
                .distance(*kind)
                .dim(1)
                .norm(Norm::L1)
                .values(ValueSpec::Normal { mean: 0.0, sd: 3.0 })
                .untrimmed(fractions.clone())
                .seed(5);
            let base = relay.run().unwrap();
            for engine in [
                RelayEngine::Sweep,
                RelayEngine::Rounds,
                RelayEngine::Exchange,
            ] {
                let other = relay.clone().engine(engine).run().unwrap();
                assert_eq!(
                    other.stats(),
                    base.stats(),
                    "{engine:?} {kind} {fractions:?}"
                );
                assert_eq!(other.rows(), base.rows());
                assert_eq!(other.by_distance(), base.by_distance());
            }
            for threads in [1, 3] {
                let again = crate::exec::on_threads(threads, || relay.run()).unwrap();
                assert_eq!(again.stats(), base.stats(), "{threads} threads");
                let ex = crate::exec::on_threads(threads, || {
                    relay.clone().engine(RelayEngine::Exchange).run()
                })
                .unwrap();
                assert_eq!(ex.stats(), base.stats(), "exchange, {threads} threads");
            }
            for r in base.rows() {
                assert_eq!(r.identical, r.recipients);
            }
        }
    }
}

/// Under a `range:` map on hop distances the relay's plan keeps every
/// owner's nodes and out-degree sums per hop from its pre-pass (what the
/// 64-owner batch reads), equal to a level search of the owner's own; under
/// a map that needs no pre-pass, or on weighted distances, it keeps none.
#[test]
fn the_plan_keeps_the_level_sums_of_a_range_map() {
    let g = golden("lesmis.edges");
    for (map, kind, kept) in [
        ("range:0.5..15", DistanceKind::Hop, true),
        ("exp:a=2,b=0.6", DistanceKind::Hop, false),
        ("range:0.5..15", DistanceKind::Weighted, false),
    ] {
        let relay = Relay::new(&g)
            .eps(map.parse().unwrap())
            .distance(kind)
            .owners(Owners::Count(40));
        let d = crate::distance::Distances::new(&g, kind, &Default::default()).unwrap();
        let plan = RelayPlan::new(relay.config(), &g, &d).unwrap();
        let owners = plan.owners().to_vec();
        assert_eq!(owners.len(), 40);
        if !kept {
            assert!(plan.sim().level_sums(0).is_none(), "{map} {kind}");
            continue;
        }
        for (p, &o) in owners.iter().enumerate() {
            let (nodes, degs) = plan.sim().level_sums(p).unwrap();
            let mut sums = crate::distance::LevelSums::default();
            sums.run(&mut crate::distance::LevelSearch::new(), &g, &[o], true);
            assert_eq!(nodes, sums.hist(0), "owner {o}");
            assert_eq!(Some(degs), sums.degrees(0), "owner {o}");
            assert_eq!(degs[0], g.degree(o) as u64);
        }
    }
}

/// A table map with distinct levels: ε(1..=5) = 16, 8, 4, 2, 1.
fn halving() -> EpsilonMap {
    "table:1=16,2=8,3=4,4=2,5=1,*=0.5".parse().unwrap()
}

fn learned(t: &RelayTrace) -> Vec<(String, f64, Option<u32>)> {
    t.nodes
        .iter()
        .map(|n| (n.id.clone(), n.eps_learned.unwrap(), n.hold_round))
        .collect()
}

/// A path 0 – 1 – 2 – 3 – 4 – 5 from owner 0, checked by hand: an
/// untrimmed relay forwards the richest signal it holds when it first holds
/// its level, and a node learns the richest signal among all it receives.
#[test]
fn path_graph_by_hand() {
    let edges: Vec<(u32, u32)> = (0..5).map(|i| (i, i + 1)).collect();
    let g = Graph::from_index_edges(6, &edges, None, false).unwrap();
    let relay = Relay::new(&g).eps(halving()).dim(1).norm(Norm::L1);
    let ids = |v: &[&str]| Untrimmed::Nodes(v.iter().map(|s| s.to_string()).collect());
    let row = |l: &[(f64, u32)]| -> Vec<(String, f64, Option<u32>)> {
        l.iter()
            .enumerate()
            .map(|(i, &(e, r))| ((i + 1).to_string(), e, Some(r)))
            .collect()
    };
    for engine in [RelayEngine::Auto, RelayEngine::Rounds] {
        let r = relay.clone().engine(engine);
        // Everyone trims: each learns its own level, in the round of its hop.
        let t = r.trace("0", ids(&[])).unwrap();
        assert_eq!(
            learned(&t),
            row(&[(16.0, 1), (8.0, 2), (4.0, 3), (2.0, 4), (1.0, 5)])
        );
        assert_eq!(t.stats.messages, 10);
        assert_eq!(t.stats.excess_max, 1.0);
        // Node 2 untrimmed: it forwards ε(2) = 8 (what it holds in round 2)
        // instead of ε(3) = 4; node 3 learns 8, twice its own 4; node 1
        // hears 8 from node 2 but holds 16 from the owner.
        let t = r.trace("0", ids(&["2"])).unwrap();
        assert_eq!(
            learned(&t),
            row(&[(16.0, 1), (8.0, 2), (8.0, 3), (2.0, 4), (1.0, 5)])
        );
        assert_eq!(t.stats.excess_max, 2.0);
        assert!(t.nodes.iter().all(|n| n.identical));
        // Nodes 1 and 2 untrimmed: 16 travels to node 3 (4× its level).
        let t = r.trace("0", ids(&["1", "2"])).unwrap();
        assert_eq!(
            learned(&t),
            row(&[(16.0, 1), (16.0, 2), (16.0, 3), (2.0, 4), (1.0, 5)])
        );
        assert_eq!(t.stats.excess_max, 4.0);
        // The owner listed stays trimming.
        let t = r.trace("0", ids(&["0"])).unwrap();
        assert_eq!(t.stats.excess_max, 1.0);
        // Every message: 8 bytes plus 16 per breakpoint at or below its trim.
        for m in &t.messages {
            let k = t.path.iter().filter(|b| b.eps <= m.trim).count();
            assert_eq!(m.bytes, 8 + 16 * k as u64);
        }
        assert_eq!(
            t.stats.bytes,
            t.messages.iter().map(|m| m.bytes).sum::<u64>()
        );
    }
}

/// A star, centre 0 and leaves 1..=5, checked by hand.
#[test]
fn star_by_hand() {
    let edges: Vec<(u32, u32)> = (1..6).map(|i| (0, i)).collect();
    let g = Graph::from_index_edges(6, &edges, None, false).unwrap();
    let relay = Relay::new(&g).eps(halving()).dim(1).norm(Norm::L1);
    let ids = |v: &[&str]| Untrimmed::Nodes(v.iter().map(|s| s.to_string()).collect());
    for engine in [RelayEngine::Auto, RelayEngine::Rounds] {
        let r = relay.clone().engine(engine);
        // Owner leaf 1, centre trimming: leaves 2..5 (hop 2) learn ε(2) = 8.
        let t = r.trace("1", ids(&[])).unwrap();
        let got: Vec<f64> = t.nodes.iter().map(|n| n.eps_learned.unwrap()).collect();
        assert_eq!(got, [16.0, 8.0, 8.0, 8.0, 8.0]);
        // Centre untrimmed: it forwards ε(1) = 16 to every leaf: twice their
        // level; the owner hears it back (she is no recipient).
        let t = r.trace("1", ids(&["0"])).unwrap();
        let got: Vec<f64> = t.nodes.iter().map(|n| n.eps_learned.unwrap()).collect();
        assert_eq!(got, [16.0, 16.0, 16.0, 16.0, 16.0]);
        assert_eq!(t.stats.excess_max, 2.0);
        assert_eq!(t.stats.identical, 5);
        // Leaves untrimmed as well: they send only back to the centre, which
        // already holds 16: nothing more leaks.
        let t = r.trace("1", ids(&["0", "2", "3", "4", "5"])).unwrap();
        assert_eq!(t.stats.excess_max, 2.0);
        assert_eq!(t.stats.messages, 10);
        // The centre as owner: every leaf is at hop 1 and hears only her.
        let t = r.trace("0", ids(&["1", "2", "3", "4", "5"])).unwrap();
        let got: Vec<f64> = t.nodes.iter().map(|n| n.eps_learned.unwrap()).collect();
        assert_eq!(got, [16.0; 5]);
        assert_eq!((t.stats.excess_max, t.stats.rounds), (1.0, 1));
    }
}

/// Weighted distances: a node may hear first along a long edge, too poor
/// for its level, and hold it only along its shortest path, a round later.
#[test]
fn weighted_rounds_count_message_hops() {
    // a – b of length 5; a – c – b of length 1 + 1.
    let g = Graph::from_index_edges(3, &[(0, 1), (0, 2), (2, 1)], Some(&[5.0, 1.0, 1.0]), false)
        .unwrap();
    let relay = Relay::new(&g)
        .distance(DistanceKind::Weighted)
        .eps(halving())
        .dim(1)
        .norm(Norm::L1);
    let t = relay.trace("0", Untrimmed::Fraction(0.0)).unwrap();
    // b: ε(5) = 1 in round 1 (from a), ε(1 + 1) = 8 in round 2 (from c).
    let b = t.nodes.iter().find(|n| n.id == "1").unwrap();
    assert_eq!((b.distance, b.eps, b.hold_round), (2.0, 8.0, Some(2)));
    assert_eq!(b.eps_learned, Some(8.0));
    let c = t.nodes.iter().find(|n| n.id == "2").unwrap();
    assert_eq!((c.hold_round, c.eps_learned), (Some(1), Some(16.0)));
    assert_eq!((t.stats.rounds, t.stats.messages), (2, 6));
    let first: Vec<(u32, u32, f64)> = t
        .messages
        .iter()
        .filter(|m| m.round == 1)
        .map(|m| (m.from, m.to, m.trim))
        .collect();
    assert_eq!(first, [(0, 1, 1.0), (0, 2, 16.0)]);
    let out = relay.run().unwrap();
    assert!(out.rows().iter().all(|r| r.identical == r.recipients));
}

/// Untrimmed fractions 0, 0.05, 0.2 in one run: the sets are nested, so
/// every recipient's learned ε can only grow with the fraction, and the
/// mean excess grows strictly (bundled geometric graph, 150 nodes: 8 and 30
/// untrimmed relays); every answer stays simulate's.
#[test]
fn leakage_grows_with_the_untrimmed_fraction() {
    let g = Graph::load("data/geometric150.edges").unwrap();
    let relay = Relay::new(&g)
        .eps(EpsilonMap::exp(3.0, 0.5).unwrap())
        .dim(1)
        .norm(Norm::L1)
        .untrimmed([0.0, 0.05, 0.2])
        .owners(Owners::Count(40))
        .seed(3);
    let out = relay.run().unwrap();
    let t = out.totals();
    assert_eq!(t.len(), 3);
    assert_eq!(t[0].eps_learned_ratio_mean, Some(1.0));
    assert_eq!(t[0].eps_learned_excess_max, 1.0);
    let m: Vec<f64> = t
        .iter()
        .map(|x| x.eps_learned_ratio_mean.unwrap())
        .collect();
    assert!(m[0] < m[1] && m[1] < m[2], "mean ratio {m:?}");
    assert!(t.iter().all(|x| x.identical == x.recipients));
    for r in out.by_distance().iter().filter(|r| r.untrimmed == 0.0) {
        assert_eq!(
            (r.eps_learned_ratio_mean, r.eps_learned_ratio_max),
            (1.0, 1.0)
        );
    }
    // Per recipient, for a few owners: nested sets, monotone learning.
    for owner in ["0", "17", "99"] {
        let traces: Vec<RelayTrace> = [0.0, 0.05, 0.2]
            .iter()
            .map(|&f| relay.trace(owner, Untrimmed::Fraction(f)).unwrap())
            .collect();
        for w in traces.windows(2) {
            for (a, b) in w[0].nodes.iter().zip(&w[1].nodes) {
                assert_eq!(a.node, b.node);
                assert!(
                    a.eps_learned <= b.eps_learned,
                    "owner {owner}, node {}",
                    a.id
                );
                assert!(!a.untrimmed || b.untrimmed, "nested sets");
            }
        }
        let n: Vec<usize> = traces
            .iter()
            .map(|t| t.nodes.iter().filter(|n| n.untrimmed).count())
            .collect();
        // round(0.05 · 150) = 8 and round(0.2 · 150) = 30 (connected graph).
        assert_eq!(n, [0, 8, 30]);
    }
}

#[test]
fn bad_requests_are_refused_in_one_line() {
    let g = golden("karate.edges");
    for (relay, what) in [
        (
            Relay::new(&g).distance(DistanceKind::Resistance),
            "not path metrics",
        ),
        (
            Relay::new(&g).distance(DistanceKind::ResistanceApprox),
            "not path metrics",
        ),
        (Relay::new(&g).untrimmed([0.1, 1.5]), "untrimmed"),
        (Relay::new(&g).untrimmed([0.1, 0.1]), "each fraction once"),
        (Relay::new(&g).untrimmed([]), "untrimmed"),
    ] {
        let e = relay.run().unwrap_err().to_string();
        assert!(e.contains(what) && !e.contains('\n'), "{e}");
    }
    let e = Relay::new(&g)
        .trace("nobody", Untrimmed::Fraction(0.0))
        .unwrap_err()
        .to_string();
    assert!(e.contains("owner") && e.contains("nobody"), "{e}");
    let e = Relay::new(&g)
        .trace("0", Untrimmed::Nodes(vec!["x".into()]))
        .unwrap_err()
        .to_string();
    assert!(e.contains("untrimmed"), "{e}");
}

/// Totals: the central scheme's cost next to the relay's, and exact counts
/// that travel exactly.
#[test]
fn totals_and_counts_travel() {
    let g = golden("karate.edges");
    let out = Relay::new(&g)
        .dim(3)
        .norm(Norm::L2)
        .untrimmed([0.0, 0.3])
        .run()
        .unwrap();
    for t in out.totals() {
        assert_eq!(t.owners, 34);
        assert_eq!(t.recipients, 34 * 33);
        assert_eq!(t.central_messages, t.recipients);
        assert_eq!(t.central_bytes, t.recipients * (8 + 24));
        assert_eq!(t.messages, 34 * 156);
        assert!(t.bytes > t.messages * 8);
    }
    // The counts and a message travel between peers as CBOR (the
    // cluster's encoding), exactly.
    #[cfg(feature = "distributed")]
    {
        fn cbor<T: serde::Serialize + serde::de::DeserializeOwned>(x: &T) -> T {
            let mut b = Vec::new();
            ciborium::into_writer(x, &mut b).unwrap();
            ciborium::from_reader(&b[..]).unwrap()
        }
        let s = out.stats();
        assert_eq!(&cbor(s), s);
        let m = job::RelayMsg {
            slot: 7,
            trim: 0.1 + 0.2,
        };
        let back = cbor(&m);
        assert_eq!((back.slot, back.trim.to_bits()), (7, m.trim.to_bits()));
    }
}
