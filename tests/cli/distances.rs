//! `privdiffuse distances`, run as a user would run it.

use crate::support::scratch::scratch;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    c
}

fn run(c: &mut Command) -> Output {
    c.output().expect("the binary runs")
}

fn text(b: &[u8]) -> String {
    String::from_utf8_lossy(b).into_owned()
}

fn golden(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/golden")
        .join(p)
}

fn parse_csv(s: &str) -> Vec<(String, String, f64)> {
    let mut lines = s.lines();
    assert_eq!(lines.next(), Some("source,target,distance"));
    lines
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            assert_eq!(f.len(), 3, "{l}");
            (f[0].to_string(), f[1].to_string(), f[2].parse().unwrap())
        })
        .collect()
}

fn golden_rows(name: &str) -> HashMap<(String, String), f64> {
    parse_csv(&std::fs::read_to_string(golden(name)).unwrap())
        .into_iter()
        .map(|(s, t, d)| ((s, t), d))
        .collect()
}

/// Hop rows for two owners of the disconnected karate_plus (with its node
/// list): exactly the reachable targets ≠ source, original ids.
#[test]
fn hop_rows_match_golden_for_reachable_targets_only() {
    let dir = scratch("hop");
    let nodes = dir.join("nodes.txt");
    std::fs::write(
        &nodes,
        (0..37).map(|i| format!("{i}\n")).collect::<String>(),
    )
    .unwrap();
    let o = run(bin()
        .args([
            "distances",
            "--distance",
            "hop",
            "--owners",
            "0,34,36",
            "--graph",
        ])
        .arg(golden("karate_plus.edges"))
        .arg("--nodes")
        .arg(&nodes));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let rows = parse_csv(&text(&o.stdout));
    let want = golden_rows("karate_plus.hop.csv");
    // Owner 0 reaches the 33 other karate members; 34 reaches 35; 36 nothing.
    assert_eq!(rows.len(), 33 + 1);
    for (s, t, d) in &rows {
        assert_ne!(s, t);
        assert_eq!(want[&(s.clone(), t.clone())], *d, "{s}->{t}");
    }
    assert!(rows.iter().any(|(s, t, _)| s == "34" && t == "35"));
    assert!(!rows.iter().any(|(s, _, _)| s == "36"));
}

/// Resistance to a file: printed in shortest round-trip form, 1e-9 of golden.
#[test]
fn resistance_to_a_file() {
    let dir = scratch("res");
    // A missing folder of --out is created.
    let out = dir.join("new").join("r.csv");
    let o = run(bin()
        .args([
            "distances",
            "--distance",
            "resistance",
            "--owner",
            "5",
            "--graph",
        ])
        .arg(golden("karate_weighted.edges"))
        .arg("--out")
        .arg(&out));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert!(o.stdout.is_empty());
    let rows = parse_csv(&std::fs::read_to_string(&out).unwrap());
    assert_eq!(rows.len(), 33);
    let want = golden_rows("karate_weighted.resistance.csv");
    for (s, t, d) in &rows {
        assert!((want[&(s.clone(), t.clone())] - d).abs() < 1e-9);
    }
}

#[test]
fn unknown_owner_is_a_usage_error_naming_it() {
    let o = run(bin()
        .args([
            "distances",
            "--distance",
            "hop",
            "--owners",
            "3,4711",
            "--graph",
        ])
        .arg(golden("karate.edges")));
    assert_eq!(o.status.code(), Some(2));
    let e = text(&o.stderr);
    assert!(
        e.contains("'4711'") && e.contains("owner") && e.contains("karate.edges"),
        "{e}"
    );
    assert!(!e.contains("stack backtrace"), "{e}");
}

#[test]
fn repeated_owner_is_a_usage_error() {
    let o = run(bin()
        .args([
            "distances",
            "--distance",
            "hop",
            "--owners",
            "3,3",
            "--graph",
        ])
        .arg(golden("karate.edges")));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("each owner once"));
    assert!(o.stdout.is_empty());
}

#[test]
fn resistance_on_a_directed_graph_is_refused() {
    let o = run(bin()
        .args([
            "distances",
            "--distance",
            "resistance",
            "--directed",
            "--owner",
            "0",
            "--graph",
        ])
        .arg(golden("karate.edges")));
    assert_eq!(o.status.code(), Some(1));
    let e = text(&o.stderr);
    assert!(e.contains("undirected"), "{e}");
    // Hop on the same directed graph works and follows u → v arcs (u < v).
    let o = run(bin()
        .args([
            "distances",
            "--distance",
            "hop",
            "--directed",
            "--owner",
            "33",
            "--graph",
        ])
        .arg(golden("karate.edges")));
    assert!(o.status.success(), "{}", text(&o.stderr));
    assert_eq!(text(&o.stdout), "source,target,distance\n");
}

#[test]
fn bad_kind_is_a_usage_error() {
    let o = run(bin()
        .args([
            "distances",
            "--distance",
            "euclid",
            "--owner",
            "0",
            "--graph",
        ])
        .arg(golden("karate.edges")));
    assert_eq!(o.status.code(), Some(2));
    assert!(text(&o.stderr).contains("resistance-approx"));
}

#[test]
fn a_bare_number_of_owners_is_refused_naming_both_readings() {
    // `simulate --owners 42` samples 42 owners; `distances --owners 42`
    // meant node 42. One syntax everywhere, and no silent switch.
    let o = Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .env_remove("RUST_BACKTRACE")
        .args([
            "distances",
            "--graph",
            "data/karate.edges",
            "--distance",
            "hop",
        ])
        .args(["--owners", "5"])
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("--owner 5") && e.contains("--owners 5,"), "{e}");
    // Both spellings of the single owner give the same rows; `all` is every
    // node as a source.
    let rows = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
            .args([
                "distances",
                "--graph",
                "data/karate.edges",
                "--distance",
                "hop",
            ])
            .args(args)
            .output()
            .unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        String::from_utf8(o.stdout).unwrap()
    };
    assert_eq!(rows(&["--owner", "5"]), rows(&["--owners", "5,"]));
    assert_eq!(rows(&["--owners", "all"]).lines().count(), 1 + 34 * 33);
}
