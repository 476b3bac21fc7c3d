//! The `info` and `generate` commands, run as a user would run them.

use crate::support::scratch::scratch;
use privdiffuse::graph::GraphStats;
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

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// The value on the line `name   value`.
fn field(out: &str, name: &str) -> String {
    out.lines()
        .find_map(|l| l.strip_prefix(name).filter(|r| r.starts_with("  ")))
        .unwrap_or_else(|| panic!("no line {name:?} in:\n{out}"))
        .trim()
        .to_string()
}

#[test]
fn info_prints_karate_statistics() {
    let o = run(bin()
        .arg("info")
        .arg("--graph")
        .arg(repo("data/karate.edges")));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let out = text(&o.stdout);
    assert_eq!(field(&out, "nodes"), "34");
    assert_eq!(field(&out, "edges"), "78");
    assert_eq!(field(&out, "components"), "1");
    assert_eq!(field(&out, "degree min/mean/max"), "1 / 4.588 / 17");
    assert_eq!(field(&out, "duplicates dropped"), "0");
}

#[test]
fn info_json_parses_as_graph_stats() {
    let o = run(bin()
        .args(["info", "--json", "--graph"])
        .arg(repo("tests/golden/karate_weighted.edges")));
    assert!(o.status.success(), "{}", text(&o.stderr));
    let s: GraphStats = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(
        (s.nodes, s.edges, s.weighted, s.components),
        (34, 78, true, 1)
    );
}

#[test]
fn info_with_node_list_and_conflict_warning() {
    let dir = scratch("info-nodes");
    let nodes = dir.join("plus.nodes");
    let ids: String = (0..=36).map(|i| format!("{i}\n")).collect();
    std::fs::write(&nodes, ids).unwrap();
    let o = run(bin()
        .args(["info", "--graph"])
        .arg(repo("tests/golden/karate_plus.edges"))
        .arg("--nodes")
        .arg(&nodes));
    let out = text(&o.stdout);
    assert_eq!(field(&out, "nodes"), "37");
    assert_eq!(field(&out, "components"), "3");
    assert_eq!(field(&out, "isolated nodes"), "1");

    let w = dir.join("w.edges");
    std::fs::write(&w, "1 2 1\n2 1 2\n").unwrap();
    let o = run(bin().args(["info", "--graph"]).arg(&w));
    assert!(o.status.success());
    assert!(text(&o.stderr).starts_with("warning: 1 duplicate edge(s) had a different weight"));
    assert_eq!(field(&text(&o.stdout), "conflicting weights"), "1");
}

#[test]
fn info_on_bad_input_exits_1_with_file_and_line() {
    let dir = scratch("info-bad");
    let bad = dir.join("bad.edges");
    std::fs::write(&bad, "1 2\n2 3 0.5\n").unwrap();
    let o = run(bin().args(["info", "--graph"]).arg(&bad));
    assert_eq!(o.status.code(), Some(1));
    let err = text(&o.stderr);
    assert!(err.starts_with("error: "), "{err}");
    assert!(err.contains("bad.edges:2:"), "{err}");
    assert!(err.contains("'2 3 0.5'"), "{err}");
    assert!(
        !err.contains("panicked") && !err.contains("backtrace"),
        "{err}"
    );
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(o.stdout.is_empty());
}

#[test]
fn generate_writes_reproducible_edges_and_coordinates() {
    let dir = scratch("gen");
    let make = |seed: &str, out: &str| {
        let o = run(bin().current_dir(&dir).args([
            "generate",
            "geometric",
            "--n",
            "60",
            "--radius",
            "0.25",
            "--seed",
            seed,
            "--out",
            out,
        ]));
        assert!(o.status.success(), "{}", text(&o.stderr));
    };
    make("3", "a.edges");
    make("3", "b.edges");
    make("4", "c.edges");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap();
    let a = read("a.edges");
    assert!(a.starts_with(
        "# privdiffuse generate geometric --n 60 --radius 0.25 --seed 3 --out a.edges\n# 60 nodes,"
    ));
    let body = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with('#'))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&a), body(&read("b.edges")));
    assert_ne!(body(&a), body(&read("c.edges")));
    assert_eq!(read("a.coords.csv"), read("b.coords.csv"));
    assert_ne!(read("a.coords.csv"), read("c.coords.csv"));
    assert_eq!(read("a.coords.csv").lines().count(), 61);
    // The written file loads back; the coordinates double as the node list
    // that keeps isolated points.
    let o = run(bin().current_dir(&dir).args([
        "info",
        "--json",
        "--graph",
        "a.edges",
        "--nodes",
        "a.coords.csv",
    ]));
    let s: GraphStats = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!(s.nodes, 60);
    assert_eq!(
        a.lines().filter(|l| !l.starts_with('#')).count() as u64,
        s.edges
    );
}

#[test]
fn generate_other_models_and_reject_bad_parameters() {
    let dir = scratch("gen-models");
    for (args, m) in [
        (vec!["er", "--n", "30", "--m", "50"], "50"),
        (vec!["ba", "--n", "30", "--m", "2"], "57"),
        (vec!["ws", "--n", "30", "--k", "4", "--p", "0.1"], "60"),
    ] {
        let o = run(bin()
            .current_dir(&dir)
            .arg("generate")
            .args(&args)
            .args(["--out", "g.edges", "--force"]));
        assert!(o.status.success(), "{}", text(&o.stderr));
        let o = run(bin().current_dir(&dir).args(["info", "--graph", "g.edges"]));
        assert_eq!(field(&text(&o.stdout), "edges"), m, "{args:?}");
    }
    let o = run(bin()
        .current_dir(&dir)
        .args(["generate", "er", "--n", "3", "--m", "4", "--out", "x.edges"]));
    assert_eq!(o.status.code(), Some(2));
    assert!(
        text(&o.stderr).contains("invalid --m '4'"),
        "{}",
        text(&o.stderr)
    );
    assert!(!dir.join("x.edges").exists());
    // --radius and --edges are exclusive.
    let o = run(bin().current_dir(&dir).args([
        "generate",
        "geometric",
        "--n",
        "10",
        "--radius",
        "0.1",
        "--edges",
        "3",
        "--out",
        "y.edges",
    ]));
    assert_eq!(o.status.code(), Some(2));
}

/// The documented command (data/README.md), run from a copy of the repository
/// layout, reproduces the bundled files byte for byte.
#[test]
fn documented_command_regenerates_bundled_geometric150() {
    let dir = scratch("gen150");
    let o = run(bin().current_dir(&dir).args([
        "generate",
        "geometric",
        "--n",
        "150",
        "--edges",
        "1256",
        "--seed",
        "2",
        "--out",
        "data/geometric150.edges",
    ]));
    assert!(o.status.success(), "{}", text(&o.stderr));
    for f in ["data/geometric150.edges", "data/geometric150.coords.csv"] {
        assert_eq!(
            std::fs::read(dir.join(f)).unwrap(),
            std::fs::read(repo(f)).unwrap(),
            "{f}"
        );
    }
}
