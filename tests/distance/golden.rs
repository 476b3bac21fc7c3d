//! Every golden distance file in `tests/golden/` (networkx / exact rational
//! arithmetic, see its README) matched to 1e-9: every listed pair, and no
//! finite distance for a pair the file leaves out.

use privdiffuse::distance::{DistanceKind, DistanceOptions, Distances};
use privdiffuse::graph::Graph;
use std::collections::HashMap;
use std::path::PathBuf;

fn golden(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(name)
}

/// `u v` or `u v w` per line, 0-based ids. Returns (edges, weights if any, max id + 1).
fn read_edges(name: &str) -> (Vec<(u32, u32)>, Option<Vec<f64>>, usize) {
    let text = std::fs::read_to_string(golden(name)).unwrap();
    let mut edges = Vec::new();
    let mut weights = Vec::new();
    let mut n = 0usize;
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let (u, v): (u32, u32) = (f[0].parse().unwrap(), f[1].parse().unwrap());
        n = n.max(u.max(v) as usize + 1);
        edges.push((u, v));
        if let Some(w) = f.get(2) {
            weights.push(w.parse::<f64>().unwrap());
        }
    }
    let w = (!weights.is_empty()).then(|| {
        assert_eq!(weights.len(), edges.len());
        weights
    });
    (edges, w, n)
}

fn read_distances(name: &str) -> HashMap<(u32, u32), f64> {
    let text = std::fs::read_to_string(golden(name)).unwrap();
    let mut lines = text.lines();
    assert_eq!(lines.next(), Some("source,target,distance"));
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                (f[0].parse().unwrap(), f[1].parse().unwrap()),
                f[2].parse().unwrap(),
            )
        })
        .collect()
}

/// Checks all rows (single-source and batch paths) against the file.
fn check(edges: &str, n: Option<usize>, kind: DistanceKind, expected: &str) {
    let (e, w, n_file) = read_edges(edges);
    let n = n.unwrap_or(n_file);
    let g = Graph::from_index_edges(n, &e, w.as_deref(), false).unwrap();
    let want = read_distances(expected);
    let opts = DistanceOptions::default();
    check_with(
        &Distances::new(&g, kind, &opts).unwrap(),
        n,
        &want,
        expected,
    );
    if kind == DistanceKind::Resistance {
        // Read from G⁻¹ (the route of runs with few owners): the same golden
        // values, and every entry within 1e-12 of the full inverse's.
        let few = Distances::for_rows(&g, kind, &opts, 0).unwrap();
        check_with(&few, n, &want, expected);
        let full = Distances::new(&g, kind, &opts).unwrap();
        let (mut ws, mut a, mut b) = (few.workspace(), Vec::new(), Vec::new());
        let mut differ = 0;
        for s in 0..n as u32 {
            few.from_owner(s, &mut ws, &mut a);
            full.from_owner(s, &mut ws, &mut b);
            for (x, y) in a.iter().zip(&b) {
                assert!(
                    x == y || (x - y).abs() <= 1e-12 * y.abs().max(1.0),
                    "{expected}: {x} vs {y}"
                );
            }
            differ += a.iter().zip(&b).filter(|(x, y)| x != y).count();
        }
        assert!(
            differ > 0,
            "{expected}: the two routes are different computations"
        );
    }
}

fn check_with(d: &Distances<'_>, n: usize, want: &HashMap<(u32, u32), f64>, expected: &str) {
    let mut ws = d.workspace();
    let mut row = Vec::new();
    let compare = |s: u32, row: &[f64]| {
        assert_eq!(row.len(), n);
        for (t, &got) in row.iter().enumerate() {
            let t = t as u32;
            if t == s {
                assert_eq!(got, 0.0, "{expected}: d({s},{s})");
                continue;
            }
            match want.get(&(s, t)) {
                Some(&x) => assert!(
                    (got - x).abs() <= 1e-9,
                    "{expected}: d({s},{t}) = {got}, golden {x}"
                ),
                None => assert!(
                    got == f64::INFINITY,
                    "{expected}: ({s},{t}) is unreachable in the file but got {got}"
                ),
            }
        }
    };
    for s in 0..n as u32 {
        d.from_owner(s, &mut ws, &mut row);
        compare(s, &row);
    }
    let owners: Vec<u32> = (0..n as u32).collect();
    let mut calls = 0;
    d.batch(&owners, &mut ws, |i, r| {
        assert_eq!(i, calls);
        calls += 1;
        compare(owners[i], r);
    });
    assert_eq!(calls, n);
}

#[test]
fn karate_hop() {
    check("karate.edges", None, DistanceKind::Hop, "karate.hop.csv");
}

#[test]
fn karate_resistance() {
    check(
        "karate.edges",
        None,
        DistanceKind::Resistance,
        "karate.resistance.csv",
    );
}

#[test]
fn lesmis_hop() {
    check("lesmis.edges", None, DistanceKind::Hop, "lesmis.hop.csv");
}

#[test]
fn lesmis_resistance() {
    check(
        "lesmis.edges",
        None,
        DistanceKind::Resistance,
        "lesmis.resistance.csv",
    );
}

#[test]
fn florentine_hop() {
    check(
        "florentine.edges",
        None,
        DistanceKind::Hop,
        "florentine.hop.csv",
    );
}

#[test]
fn florentine_resistance() {
    check(
        "florentine.edges",
        None,
        DistanceKind::Resistance,
        "florentine.resistance.csv",
    );
}

/// 37 nodes: node 36 is isolated (on no edge line), 34–35 a separate pair.
#[test]
fn karate_plus_hop_with_isolated_node() {
    check(
        "karate_plus.edges",
        Some(37),
        DistanceKind::Hop,
        "karate_plus.hop.csv",
    );
    // Weighted on the same unit-length graph must agree too.
    check(
        "karate_plus.edges",
        Some(37),
        DistanceKind::Weighted,
        "karate_plus.hop.csv",
    );
}

#[test]
fn karate_weighted_dijkstra() {
    check(
        "karate_weighted.edges",
        None,
        DistanceKind::Weighted,
        "karate_weighted.dijkstra.csv",
    );
}

/// Weight = resistance (conductance 1/w).
#[test]
fn karate_weighted_resistance() {
    check(
        "karate_weighted.edges",
        None,
        DistanceKind::Resistance,
        "karate_weighted.resistance.csv",
    );
}
