//! `relay --noise discrete` (issue 25 on the protocol of issue 26): every
//! read-out equals `simulate --noise discrete`'s answer bit for bit, on
//! karate, les misérables, weighted karate and the bundled geometric graph,
//! on 1 and 3 threads and under every engine; messages carry integer
//! breakpoints only at rungs at or below the receiver's level and are
//! accounted with the integer encoding; refusals.

use super::*;
use crate::distance::DistanceKind;
use crate::epsilon::EpsilonMap;
use crate::graph::{Graph, LoadOptions, load_graph};
use crate::mechanism::MechanismChoice;
use crate::process::Norm;
use crate::process::discrete::{DiscreteNoise, Grid, NoiseKind, RngSource};
use crate::process::family::Discrete;
use crate::sim::{Rows, SimConfig, Simulation};
use crate::values::ValueSpec;
use std::collections::HashMap;

fn load(path: &str) -> Graph {
    let p = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
    load_graph(&p, &LoadOptions::default()).unwrap()
}

fn config(kind: DistanceKind, spec: &str, dim: usize, grid: i32, m: u32) -> SimConfig {
    let eps: EpsilonMap = spec.parse().unwrap();
    SimConfig {
        dim,
        norm: Norm::L1,
        distance: kind,
        eps_min: eps.eps_min(),
        eps_max: eps.eps_max(),
        eps,
        noise: NoiseKind::Discrete,
        granularity: Grid::from_exponent(grid).unwrap(),
        levels_per_doubling: m,
        values: ValueSpec::Normal { mean: 0.0, sd: 3.0 },
        seed: 17,
        ..SimConfig::default()
    }
}

/// `simulate --noise discrete`'s correlated answers by (owner, recipient):
/// (the rung's ε it used, the answer).
fn simulate_answers(g: &Graph, sim: &SimConfig) -> HashMap<(String, String), (f64, Vec<f64>)> {
    let c = SimConfig {
        mechanism: MechanismChoice::Correlated,
        ..sim.clone()
    };
    let out = Simulation::with_config(g, c)
        .keep([Rows::Responses])
        .run()
        .unwrap();
    super::tests::answers_by_pair(&out)
}

/// The relay of `sim` on `g` with the untrimmed `fractions`.
fn relay<'g>(g: &'g Graph, sim: &SimConfig, fractions: &[f64]) -> Relay<'g> {
    Relay::with_config(
        g,
        RelayConfig {
            sim: sim.clone(),
            untrimmed: fractions.to_vec(),
        },
    )
}

/// The acceptance test: on the four graphs, every owner, every recipient's
/// read-out from the integer breakpoints its signal carries equals
/// `simulate --noise discrete`'s answer bit for bit (also with untrimmed
/// relays); answers are grid multiples answered at the rung of ε(d); no
/// message carries a breakpoint at a rung above its receiver's ε(d); sizes
/// are 8 + (4 + 8n) per breakpoint; counts equal under every engine and on
/// 1 and 3 threads; summary records the noise.
#[test]
fn discrete_answers_are_simulates_bit_for_bit() {
    let cases = [
        (
            "data/karate.edges",
            DistanceKind::Hop,
            "exp:a=3,b=1",
            1,
            -10,
            32,
        ),
        (
            "tests/golden/lesmis.edges",
            DistanceKind::Hop,
            "exp:a=3,b=0.7",
            2,
            -6,
            8,
        ),
        (
            "tests/golden/karate_weighted.edges",
            DistanceKind::Weighted,
            "range:0.5..15",
            1,
            -10,
            32,
        ),
        (
            "data/geometric150.edges",
            DistanceKind::Hop,
            "range:0.5..15",
            1,
            -4,
            4,
        ),
    ];
    let mut changes_seen = 0usize;
    for (file, kind, spec, dim, grid, m) in cases {
        let g = load(file);
        let sim = config(kind, spec, dim, grid, m);
        let noise = DiscreteNoise::new(sim.granularity, m, 1.0, dim).unwrap();
        let gamma = noise.grid().value();
        let answers = simulate_answers(&g, &sim);
        // [0]: the 64-owner batch on hop distances; [0, 0.2]: the sweep.
        for fractions in [vec![0.0], vec![0.0, 0.2]] {
            let relay = relay(&g, &sim, &fractions);
            let base = relay.run().unwrap();
            let mut pairs = 0;
            for r in base.rows() {
                assert_eq!(r.identical, r.recipients, "{file} owner {}", r.owner);
                if r.untrimmed == 0.0 {
                    assert_eq!(r.eps_learned_excess_max, Some(1.0), "{file}");
                    pairs += r.recipients;
                }
            }
            assert_eq!(pairs as usize, answers.len(), "{file}: the same recipients");
            // Engines and thread counts: the same counts exactly.
            for engine in [
                RelayEngine::Sweep,
                RelayEngine::Rounds,
                RelayEngine::Exchange,
            ] {
                let other = relay.clone().engine(engine).run().unwrap();
                assert_eq!(other.stats(), base.stats(), "{file} {engine:?}");
            }
            for threads in [1, 3] {
                let again = crate::exec::on_threads(threads, || relay.run()).unwrap();
                assert_eq!(again.stats(), base.stats(), "{file}, {threads} threads");
                assert_eq!(again.rows(), base.rows());
            }
            let s = base
                .summary()
                .discrete
                .as_ref()
                .expect("summary records the noise");
            assert_eq!(
                (s.delta_z, s.levels_per_doubling, s.rng),
                (noise.delta_z(), m, RngSource::Seeded)
            );
            assert!(base.summary().bytes.contains("4 + 8n"));
        }
        let relay = relay(&g, &sim, &[0.0, 0.2]);
        // Message by message, every owner, trimming and 20 % untrimmed.
        for o in 0..g.n() as u32 {
            let id = g.ids().label(o).to_string();
            for fraction in [0.0, 0.2] {
                let t = relay.trace(&id, Untrimmed::Fraction(fraction)).unwrap();
                if t.nodes.is_empty() {
                    continue;
                }
                changes_seen += t.path.len() - 1;
                let bps: Vec<f64> = t.path.iter().map(|b| b.eps).collect();
                for b in &t.path {
                    // Breakpoints at rungs, their noise on the grid.
                    assert_eq!(noise.eps_of(noise.rung_of(b.eps).unwrap()), b.eps);
                    assert!(b.noise.iter().all(|&x| (x / gamma).fract() == 0.0));
                }
                let own: HashMap<u32, f64> = t.nodes.iter().map(|n| (n.node, n.eps)).collect();
                for n in &t.nodes {
                    let (e, raw) = &answers[&(id.clone(), n.id.clone())];
                    let rung = noise.rung_of(n.eps).unwrap();
                    assert_eq!(e.to_bits(), noise.eps_of(rung).to_bits(), "{file} {id}");
                    let a = n.answer.as_ref().expect("held its level");
                    assert!(
                        a.iter().zip(raw).all(|(x, y)| x.to_bits() == y.to_bits()),
                        "{file} {id} → {}: {a:?} vs {raw:?}",
                        n.id
                    );
                    assert!(a.iter().all(|&y| (y / gamma).fract() == 0.0), "on the grid");
                    assert!(n.identical);
                }
                for msg in &t.messages {
                    assert_eq!(msg.breakpoints, bps.partition_point(|&e| e <= msg.trim));
                    assert_eq!(msg.bytes, message_bytes::<Discrete>(dim, msg.breakpoints));
                    assert_eq!(msg.bytes, 8 + (4 + 8 * dim as u64) * msg.breakpoints as u64);
                    if fraction > 0.0 || msg.to == o {
                        continue;
                    }
                    let mine = own[&msg.to];
                    assert!(
                        bps[..msg.breakpoints].iter().all(|&e| e <= mine),
                        "{file} {id}: {msg:?} carries a rung above ε = {mine}"
                    );
                }
            }
        }
    }
    // The chains are not trivial: values change between rungs.
    assert!(changes_seen > 1000, "{changes_seen} changes");
}

/// A different seed gives different chains (the equality above is not that
/// of two constants), and the same seed the same bytes.
#[test]
fn discrete_relay_follows_the_seed() {
    let g = load("data/karate.edges");
    let mut sim = config(DistanceKind::Hop, "exp:a=3,b=1", 1, -10, 32);
    let run = |sim: &SimConfig| {
        relay(&g, sim, &[0.0])
            .trace("0", Untrimmed::Fraction(0.0))
            .unwrap()
    };
    let a = run(&sim);
    assert_eq!(run(&sim), a);
    sim.seed = 18;
    let b = run(&sim);
    assert_ne!(a.path, b.path);
}

/// Refusals in one line naming the parameter: the OS generator (the relay
/// redraws each path from the seed), ℓ2 in two dimensions; a Laplace run's
/// summary has no `discrete` record.
#[test]
fn discrete_relay_refusals() {
    let g = load("data/karate.edges");
    let mut sim = config(DistanceKind::Hop, "exp:a=3,b=1", 1, -10, 32);
    sim.rng = RngSource::Os;
    let run = |sim: &SimConfig| relay(&g, sim, &[0.0]).run();
    let e = run(&sim).unwrap_err().to_string();
    assert!(
        e.contains("rng") && e.contains("seeded") && !e.contains('\n'),
        "{e}"
    );
    sim.rng = RngSource::Seeded;
    sim.dim = 2;
    sim.norm = Norm::L2;
    let e = run(&sim).unwrap_err().to_string();
    assert!(e.contains("norm") && !e.contains('\n'), "{e}");
    sim.noise = NoiseKind::Laplace;
    let out = run(&sim).unwrap();
    assert!(out.summary().discrete.is_none());
    let json = serde_json::to_string(out.summary()).unwrap();
    assert!(!json.contains("delta_z"), "{json}");
}

/// A secret beyond the grid's range is refused naming its owner, never the
/// value (the relay rounded it itself and quoted it: issue 32).
#[test]
fn discrete_relay_never_shows_a_secret() {
    let g = load("data/karate.edges");
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path().to_path_buf();
    let file = dir.join("values.csv");
    let text: String = (0..34)
        .map(|i| format!("{i},{}\n", if i == 5 { "123456789012345" } else { "0.5" }))
        .collect();
    std::fs::write(&file, text).unwrap();
    let mut sim = config(DistanceKind::Hop, "exp:a=3,b=1", 1, -10, 32);
    sim.values = ValueSpec::File(file);
    for engine in [
        RelayEngine::Auto,
        RelayEngine::Rounds,
        RelayEngine::Exchange,
    ] {
        let e = relay(&g, &sim, &[0.0])
            .engine(engine)
            .run()
            .unwrap_err()
            .to_string();
        assert!(e.contains("owner 5") && e.contains("not shown"), "{e}");
        assert!(
            !e.contains("123456789012345") && !e.contains("1.2345678"),
            "{e}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}
