//! The loader never guesses silently (issue 33 item 12): header lines are
//! detected, reported, and chosen with `--header yes|no|auto`.

use super::common::*;
use privdiffuse::graph::{HeaderMode, LoadOptions, load_graph};
use std::path::Path;

fn info(graph: &Path, extra: &[&str]) -> std::process::Output {
    bin()
        .arg("info")
        .arg("--graph")
        .arg(graph)
        .args(extra)
        .output()
        .unwrap()
}

/// `name value` of `info`'s text.
fn field(text: &str, name: &str) -> Option<String> {
    text.lines()
        .find(|l| l.starts_with(name) && l[name.len()..].starts_with("  "))
        .map(|l| l[name.len()..].trim().to_string())
}

/// SNAP's MUSAE header `id_1,id_2` was an edge between two text-named
/// nodes, silently: 5 nodes, 3 edges, 2 components.
#[test]
fn a_musae_header_is_detected_and_reported() {
    let dir = tmpdir("musae");
    let m = dir.join("m.csv");
    std::fs::write(&m, "id_1,id_2\n0,1\n1,2\n").unwrap();
    let o = info(&m, &[]);
    let t = ok(&o);
    assert_eq!(field(&t, "nodes").as_deref(), Some("3"), "{t}");
    assert_eq!(field(&t, "edges").as_deref(), Some("2"));
    assert_eq!(field(&t, "components").as_deref(), Some("1"));
    assert_eq!(field(&t, "text ids"), None);
    let e = err(&o);
    assert!(
        e.contains(&format!(
            "{}:1: skipped 'id_1,id_2' as a header",
            m.display()
        )),
        "{e}"
    );
    assert!(e.contains("--header no"), "{e}");
    // `--header no` keeps line 1 (and `info` counts the text ids).
    let t = ok(&info(&m, &["--header", "no"]));
    assert_eq!(field(&t, "nodes").as_deref(), Some("5"), "{t}");
    assert_eq!(field(&t, "text ids").as_deref(), Some("2 of 5"));
    let j: serde_json::Value =
        serde_json::from_str(&ok(&info(&m, &["--header", "no", "--json"]))).unwrap();
    assert_eq!(j["text_ids"], 2);
    // `--header yes` skips a first line of numbers too.
    let n = dir.join("n.edges");
    std::fs::write(&n, "5 6\n0 1\n1 2\n").unwrap();
    let o = info(&n, &["--header", "yes"]);
    assert_eq!(field(&ok(&o), "nodes").as_deref(), Some("3"));
    assert!(err(&o).contains("skipped '5 6' as a header"), "{}", err(&o));
    let o = info(&n, &[]);
    assert_eq!(field(&ok(&o), "nodes").as_deref(), Some("5"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// The known-word check dropped a `u v` line of a text-id file silently;
/// now every skipped line is reported. A first line kept as an edge whose
/// ids occur nowhere else is reported too (`name1 name2` over text ids).
#[test]
fn every_skipped_header_line_is_reported() {
    let dir = tmpdir("header-words");
    let w = dir.join("w.edges");
    std::fs::write(&w, "u v\na b\nb c\n").unwrap();
    let o = info(&w, &[]);
    assert_eq!(field(&ok(&o), "nodes").as_deref(), Some("3"));
    assert!(err(&o).contains("skipped 'u v' as a header"), "{}", err(&o));
    let t = dir.join("t.edges");
    std::fs::write(&t, "a b\nb c\nc d\n").unwrap();
    let o = info(&t, &[]);
    assert_eq!(field(&ok(&o), "nodes").as_deref(), Some("4"));
    assert_eq!(err(&o), "", "text ids throughout: no header");
    let l = dir.join("l.edges");
    std::fs::write(&l, "name1 name2\na b\nb c\n").unwrap();
    let o = info(&l, &[]);
    assert_eq!(field(&ok(&o), "nodes").as_deref(), Some("5"));
    let e = err(&o);
    assert!(
        e.contains("occur on no other line") && e.contains("--header yes"),
        "{e}"
    );
    // A node list's header word is reported too.
    let nodes = dir.join("n.txt");
    std::fs::write(&nodes, "node\nz\n").unwrap();
    let o = info(&t, &["--nodes", nodes.to_str().unwrap()]);
    assert_eq!(field(&ok(&o), "nodes").as_deref(), Some("5"));
    assert!(
        err(&o).contains("skipped 'node' as a header"),
        "{}",
        err(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A first line held back as a possible header and found to be an edge
/// (another line has text ids) is the graph `--header no` reads: the same
/// edges, weights and node order (first appearance, the node list first).
#[test]
fn a_held_first_line_that_is_an_edge_loads_as_header_no_does() {
    let dir = tmpdir("held");
    let nodes = dir.join("n.txt");
    std::fs::write(&nodes, "9\n").unwrap();
    for (name, text) in [
        ("late.edges", "x y 2\n1 2 1\n3 4 1\ny 3 5\n"),
        ("next.edges", "x y\n1 x\n2 3\n"),
        ("only.edges", "x y\n"),
        ("dup.edges", "x y 2\n1 2 1\nx y 7\nz 1 1\n"),
    ] {
        let p = dir.join(name);
        std::fs::write(&p, text).unwrap();
        for list in [None, Some(nodes.clone())] {
            let load = |header| {
                load_graph(
                    &p,
                    &LoadOptions {
                        header,
                        nodes_file: list.clone(),
                        ..LoadOptions::default()
                    },
                )
                .unwrap()
            };
            let (a, b) = (load(HeaderMode::Auto), load(HeaderMode::No));
            let ids = |g: &privdiffuse::Graph| -> Vec<String> {
                (0..g.n() as u32)
                    .map(|i| g.ids().label(i).to_string())
                    .collect()
            };
            assert_eq!(ids(&a), ids(&b), "{name}");
            let edges = |g: &privdiffuse::Graph| -> Vec<(u32, u32, f64)> { g.edges().collect() };
            assert_eq!(edges(&a), edges(&b), "{name}");
            assert_eq!(a.dropped(), b.dropped(), "{name}");
        }
    }
    // Shapes are checked on the held line as on any edge line.
    let p = dir.join("bad.edges");
    std::fs::write(&p, "x y\n1 x 2\n").unwrap();
    let e = load_graph(&p, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("bad.edges:") && e.contains("columns"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--header` on every command that loads a graph, once in its help.
#[test]
fn every_command_that_loads_a_graph_takes_header() {
    for cmd in [
        &["simulate"][..],
        &["collude"],
        &["utility"],
        &["relay"],
        &["info"],
        &["distances"],
        &["subgraph"],
        &["evolve"],
        &["generate", "events"],
    ] {
        let h = ok(&bin().args(cmd).arg("--help").output().unwrap());
        assert_eq!(h.matches("--header <WHEN>").count(), 1, "{cmd:?}");
    }
    // And it reaches the engines: simulate on the MUSAE file.
    let dir = tmpdir("header-run");
    let m = dir.join("m.csv");
    std::fs::write(&m, "id_1,id_2\n0,1\n1,2\n").unwrap();
    for (mode, nodes) in [("auto", 3), ("no", 5)] {
        let out = dir.join(mode);
        ok(&bin()
            .args([
                "simulate",
                "--dim",
                "1",
                "--values",
                "const:0",
                "--no-plots",
                "--quiet",
            ])
            .arg("--graph")
            .arg(&m)
            .args(["--header", mode, "--out"])
            .arg(&out)
            .output()
            .unwrap());
        let s: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(out.join("summary.json")).unwrap())
                .unwrap();
        assert_eq!(s["graph"]["nodes"], nodes, "{mode}: {s}");
    }
    // A sweep key too.
    let csv = dir.join("sweep.csv");
    ok(&bin()
        .args([
            "sweep",
            "--set",
            "header=no,auto",
            "--set",
            "dim=1",
            "--set",
            "values=const:0",
        ])
        .arg("--set")
        .arg(format!("graph={}", m.display()))
        .arg("--out")
        .arg(&csv)
        .output()
        .unwrap());
    let t = std::fs::read_to_string(&csv).unwrap();
    assert!(t.starts_with("header,"), "{t}");
    // Both points ran (`no` on 5 nodes, `auto` on 3).
    let col = |mode: &str| {
        t.lines()
            .filter(|l| l.starts_with(&format!("{mode},")))
            .count()
    };
    assert!(col("no") > 0 && col("auto") > 0, "{t}");
    let _ = std::fs::remove_dir_all(&dir);
}
