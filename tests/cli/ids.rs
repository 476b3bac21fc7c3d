//! The id rule in every file and option that names nodes: an id made only
//! of ASCII digits is a number, so `7`, `07` and `007` are one node, printed
//! `7`, even in a graph whose other ids are strings.

use crate::support::scratch::scratch;
use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap()
}

fn ok(dir: &Path, args: &[&str]) -> String {
    let o = run(dir, args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

/// A string-id graph naming node 7 three ways, and a node list naming node 8
/// a third way: five nodes 7, Medici, Strozzi, 8, lonely.
fn family(dir: &Path) {
    std::fs::write(
        dir.join("fam.edges"),
        "Medici 7\n007 Strozzi\nStrozzi 0008\n",
    )
    .unwrap();
    std::fs::write(dir.join("fam.nodes"), "08\nlonely\n").unwrap();
}

#[test]
fn edge_list_and_node_list_agree_on_zero_padded_ids() {
    let dir = scratch("load");
    family(&dir);
    let out = ok(
        &dir,
        &[
            "info",
            "--json",
            "--graph",
            "fam.edges",
            "--nodes",
            "fam.nodes",
        ],
    );
    let s: privdiffuse::graph::GraphStats = serde_json::from_str(&out).unwrap();
    assert_eq!((s.nodes, s.edges, s.isolated), (5, 3, 1));
    // Distances print the canonical spelling, and `--owners 007` is node 7.
    let out = ok(
        &dir,
        &[
            "distances",
            "--graph",
            "fam.edges",
            "--nodes",
            "fam.nodes",
            "--distance",
            "hop",
            "--owner",
            "007",
        ],
    );
    assert_eq!(
        out,
        "source,target,distance\n7,8,2\n7,Medici,1\n7,Strozzi,1\n"
    );
}

#[test]
fn owners_values_and_coalition_files_follow_the_same_rule() {
    let dir = scratch("files");
    family(&dir);
    let g = ["--graph", "fam.edges", "--nodes", "fam.nodes"];
    // A values table keyed `007` and `8` covers nodes 7 and 8.
    std::fs::write(
        dir.join("vals.csv"),
        "node,v1\n007,1\nMedici,2\nStrozzi,3\n8,4\nlonely,5\n",
    )
    .unwrap();
    let mut args = vec!["simulate"];
    args.extend(g);
    args.extend([
        "--values",
        "file:vals.csv",
        "--dim",
        "1",
        "--owners",
        "07,",
        "--no-plots",
        "-q",
        "--out",
        "sim",
    ]);
    ok(&dir, &args);
    let owners = std::fs::read_to_string(dir.join("sim/owners.csv")).unwrap();
    assert!(owners.lines().nth(1).unwrap().starts_with("7,"), "{owners}");
    // `7` and `007` in one table are the same node twice.
    std::fs::write(
        dir.join("twice.csv"),
        "node,v1\n007,1\nMedici,2\nStrozzi,3\n8,4\nlonely,5\n7,6\n",
    )
    .unwrap();
    let mut args = vec!["simulate"];
    args.extend(g);
    args.extend([
        "--values",
        "file:twice.csv",
        "--dim",
        "1",
        "--no-plots",
        "-q",
        "--out",
        "sim2",
    ]);
    let o = run(&dir, &args);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{err}");
    assert!(
        err.contains("twice.csv:7: a node listed a second time (the id is not shown"),
        "{err}"
    );
    // Owners `7,007`: one owner listed twice.
    let mut args = vec!["simulate"];
    args.extend(g);
    args.extend(["--owners", "7,007", "--no-plots", "-q", "--out", "sim3"]);
    let o = run(&dir, &args);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("each owner once"));
    // A coalition file listing node 7 twice over is a coalition of one.
    std::fs::write(dir.join("coal.txt"), "7\n007 # the same node\n").unwrap();
    let mut args = vec!["collude"];
    args.extend(g);
    args.extend([
        "--coalition",
        "file:coal.txt",
        "--owners",
        "Medici,",
        "--trials",
        "10",
        "--no-plots",
        "-q",
        "--out",
        "col",
    ]);
    ok(&dir, &args);
    let rows = std::fs::read_to_string(dir.join("col/coalition.csv")).unwrap();
    assert!(
        rows.lines()
            .nth(1)
            .unwrap()
            .starts_with("Medici,file:coal.txt,1,"),
        "{rows}"
    );
}

#[test]
fn all_integer_files_keep_their_numbering() {
    // The rule changes nothing for files whose ids are all numbers: sorted
    // numerically, `007` printed `7`, a 30-digit zero-padded id a number too.
    let dir = scratch("ints");
    std::fs::write(
        dir.join("g.edges"),
        "10 007\n7 2\n000000000000000000000000000002 10\n",
    )
    .unwrap();
    let out = ok(
        &dir,
        &[
            "distances",
            "--graph",
            "g.edges",
            "--distance",
            "hop",
            "--owner",
            "2",
        ],
    );
    assert_eq!(out, "source,target,distance\n2,7,1\n2,10,1\n");
}
