//! Coalition specs: every bad spec is rejected with a message naming it;
//! selection semantics of far / band / nearest / random / sybil / file.

use crate::support::scratch::scratch;
use std::path::{Path, PathBuf};

use privdiffuse::Error;
use privdiffuse::collusion::{Coalition, Member};
use privdiffuse::graph::NodeIds;

/// Six nodes with ids 10..60; node 0 is the owner, node 4 unreachable.
fn row() -> (NodeIds, Vec<f64>) {
    let ids = NodeIds::integers(vec![10, 20, 30, 40, 50, 60]);
    let dist = vec![0.0, 1.0, 2.0, 2.0, f64::INFINITY, 3.0];
    (ids, dist)
}

fn nodes(spec: &str, band: Option<f64>, seed: u64) -> Vec<u32> {
    let (ids, dist) = row();
    let c = Coalition::parse(spec)
        .unwrap()
        .select(0, &dist, band, &ids, seed)
        .unwrap();
    assert_eq!(c.label, spec.trim());
    c.members.iter().map(|m| m.node.unwrap()).collect()
}

fn temp_file(dir: &Path, name: &str, text: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, text).unwrap();
    p
}

#[test]
fn bad_specs_name_themselves() {
    let bad = [
        "",
        "far",
        "far:",
        "far:min-d",
        "crowd:m=3",
        "far:min-d=-1",
        "far:min-d=NaN",
        "far:min-d=inf",
        "far:min-d=x",
        "band:d=1,d=2",
        "far:min-d=1,m=3",
        "random:m=0",
        "random:m=3,min-d=-0.5",
        "random:min-d=2",
        "nearest:m=-3",
        "nearest:m=2.5",
        "sybil:m=3",
        "sybil:d=2",
        "sybil:m=0,d=2",
    ];
    for spec in bad {
        let err = Coalition::parse(spec).unwrap_err();
        assert!(matches!(err, Error::Parameter { .. }), "{spec}: {err:?}");
        let msg = err.to_string();
        assert!(
            msg.contains(&format!("'{spec}'")),
            "{spec}: message does not name it: {msg}"
        );
    }
    let msg = Coalition::parse("crowd:m=3").unwrap_err().to_string();
    assert!(
        msg.contains("crowd") && msg.contains("far:min-d=X"),
        "{msg}"
    );
    let msg = Coalition::parse("far:min-d=1,m=3").unwrap_err().to_string();
    assert!(msg.contains("unknown key 'm'"), "{msg}");
    let msg = Coalition::parse("random:m=0").unwrap_err().to_string();
    assert!(msg.contains("≥ 1"), "{msg}");
    // A missing file is an I/O error naming the path.
    let err = Coalition::parse("file:/nonexistent/privdiffuse/members.txt").unwrap_err();
    assert!(
        matches!(err, Error::Io { .. })
            && err
                .to_string()
                .contains("/nonexistent/privdiffuse/members.txt")
    );
}

#[test]
fn far_band_nearest_and_sybil_select_as_documented() {
    // The owner (distance 0) and the unreachable node are never members.
    assert_eq!(nodes("far:min-d=0", None, 1), vec![1, 2, 3, 5]);
    assert_eq!(nodes("far:min-d=2", None, 1), vec![2, 3, 5]);
    assert_eq!(nodes("far:min-d=3.5", None, 1), Vec::<u32>::new());
    // Integer distances: exact match; continuous: within ±width/2.
    assert_eq!(nodes("band:d=2", None, 1), vec![2, 3]);
    assert_eq!(nodes("band:d=2.1", None, 1), Vec::<u32>::new());
    assert_eq!(nodes("band:d=2.1", Some(0.4), 1), vec![2, 3]);
    assert_eq!(nodes("band:d=2.5", Some(1.0), 1), vec![2, 3, 5]);
    // Nearest: ties at distance 2 broken by node index.
    assert_eq!(nodes("nearest:m=2", None, 1), vec![1, 2]);
    assert_eq!(nodes("nearest:m=3", None, 1), vec![1, 2, 3]);
    assert_eq!(nodes("nearest:m=10", None, 1), vec![1, 2, 3, 5]);
    // Sybils: M accounts at distance X, no node.
    let (ids, dist) = row();
    let c = Coalition::parse(" sybil:m=3,d=4 ")
        .unwrap()
        .select(0, &dist, None, &ids, 1)
        .unwrap();
    assert_eq!(c.label, "sybil:m=3,d=4");
    assert_eq!(
        c.members,
        vec![
            Member {
                node: None,
                distance: 4.0
            };
            3
        ]
    );
    // Distances travel with the members.
    let c = Coalition::parse("far:min-d=2")
        .unwrap()
        .select(0, &dist, None, &ids, 1)
        .unwrap();
    assert_eq!(
        c.members.iter().map(|m| m.distance).collect::<Vec<_>>(),
        vec![2.0, 2.0, 3.0]
    );
    // A different owner: node 0 becomes a candidate, node 2 is excluded.
    let dist2 = vec![1.0, 1.0, 0.0, 1.0, f64::INFINITY, 2.0];
    let c = Coalition::parse("far:min-d=1")
        .unwrap()
        .select(2, &dist2, None, &ids, 1)
        .unwrap();
    assert_eq!(
        c.members
            .iter()
            .map(|m| m.node.unwrap())
            .collect::<Vec<_>>(),
        vec![0, 1, 3, 5]
    );
    // Shape errors.
    let spec = Coalition::parse("far:min-d=1").unwrap();
    assert!(spec.select(0, &dist[..3], None, &ids, 1).is_err());
    assert!(spec.select(9, &dist, None, &ids, 1).is_err());
    assert!(spec.select(0, &dist, Some(f64::NAN), &ids, 1).is_err());
}

#[test]
fn random_is_seeded_uniform_and_respects_min_distance() {
    let a = nodes("random:m=2", None, 5);
    assert_eq!(a, nodes("random:m=2", None, 5), "same seed, same members");
    assert_eq!(a.len(), 2);
    assert!(a.windows(2).all(|w| w[0] < w[1]), "sorted by node index");
    // Inclusion frequencies over seeds: each of the 4 candidates is in a 2-subset
    // with probability 1/2; 4000 seeds → s.e. sqrt(4000/4) = 31.6, 6 s.e. = 190.
    let mut count = [0u32; 6];
    for seed in 0..4_000 {
        for v in nodes("random:m=2", None, seed) {
            count[v as usize] += 1;
        }
    }
    assert_eq!((count[0], count[4]), (0, 0));
    for v in [1, 2, 3, 5] {
        assert!(
            (count[v] as f64 - 2000.0).abs() < 190.0,
            "node {v}: {}",
            count[v]
        );
    }
    for seed in 0..50 {
        let s = nodes("random:m=2,min-d=2", None, seed);
        assert!(s.iter().all(|v| [2, 3, 5].contains(v)), "{s:?}");
    }
    // More requested than available: everyone eligible.
    assert_eq!(nodes("random:m=9,min-d=2", None, 3), vec![2, 3, 5]);
}

#[test]
fn file_members_resolve_ids_and_report_unknown_ones() {
    let d = scratch("members");
    let p = temp_file(
        &d,
        "ok.txt",
        "# coalition of friends\n20\n30   # cousin\n\n60\n10\n20\n50\n",
    );
    let spec = format!("file:{}", p.display());
    // 10 is the owner and 50 unreachable: dropped; the duplicate 20 counted once.
    assert_eq!(nodes(&spec, None, 1), vec![1, 2, 5]);
    // The list is read at parse time: later edits do not matter.
    let parsed = Coalition::parse(&spec).unwrap();
    std::fs::write(&p, "999\n").unwrap();
    let (ids, dist) = row();
    assert_eq!(parsed.select(0, &dist, None, &ids, 1).unwrap().len(), 3);
    std::fs::remove_file(&p).unwrap();

    let p = temp_file(&d, "bad.txt", "20\n99\nalice\n30\n");
    let spec = Coalition::parse(&format!("file:{}", p.display())).unwrap();
    let err = spec.select(0, &dist, None, &ids, 1).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Input { line: 2, .. }), "{err:?}");
    assert!(
        msg.contains(&p.display().to_string()) && msg.contains("'99'") && msg.contains("'alice'"),
        "{msg}"
    );
    std::fs::remove_file(&p).unwrap();

    let p = temp_file(&d, "two.txt", "20\n30 40\n");
    let err = Coalition::parse(&format!("file:{}", p.display())).unwrap_err();
    assert!(matches!(err, Error::Input { line: 2, .. }), "{err:?}");
    std::fs::remove_file(&p).unwrap();

    // An empty list is an empty coalition, not an error.
    let p = temp_file(&d, "empty.txt", "# nobody\n");
    assert!(nodes(&format!("file:{}", p.display()), None, 1).is_empty());
    std::fs::remove_file(&p).unwrap();
}
