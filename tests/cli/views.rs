//! `--ego ID[:R]` and `--subgraph FILE` on every command that reads `--graph`:
//! the command works on the view exactly as on the edge list `subgraph`
//! writes out; `info` says it is a view; `summary.json` records the view and
//! `--config` replays it.

use crate::support::scratch::scratch;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8_lossy(&o.stdout).into_owned()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

fn field(out: &str, name: &str) -> String {
    out.lines()
        .find_map(|l| l.strip_prefix(name).filter(|r| r.starts_with("  ")))
        .unwrap_or_else(|| panic!("no line {name:?} in:\n{out}"))
        .trim()
        .to_string()
}

#[test]
fn info_describes_the_view_and_names_the_file() {
    let out = ok(&["info", "--graph", "data/karate.edges", "--ego", "0"]);
    assert_eq!(field(&out, "nodes"), "17");
    assert_eq!(field(&out, "edges"), "34");
    let view = field(&out, "view");
    assert!(
        view.starts_with("ego network of node 0 (1 hop) of data/karate.edges (34 nodes, 78 edges)"),
        "{view}"
    );
    let json = ok(&[
        "info",
        "--graph",
        "data/karate.edges",
        "--ego",
        "33:2",
        "--json",
    ]);
    let v: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(v["view"]["spec"], "ego:33:2");
    assert_eq!(v["view"]["of_nodes"], 34);
    // Without a view there is no such line or key (outputs unchanged).
    let plain = ok(&["info", "--graph", "data/karate.edges", "--json"]);
    assert!(!plain.contains("view"), "{plain}");
}

#[test]
fn bad_views_are_one_line_errors() {
    let d = scratch("bad");
    let list = d.join("l.txt");
    std::fs::write(&list, "0\n5\nfoo\n").unwrap();
    for (args, code, needle) in [
        (
            vec!["--ego", "99"],
            2,
            "invalid --ego '99': expected a node id that occurs in data/karate.edges",
        ),
        (vec!["--ego", "0:0"], 2, "invalid --ego '0:0'"),
        (
            vec!["--subgraph", s(&list)],
            1,
            "l.txt:3: node 'foo' is not in the graph",
        ),
        (
            vec!["--ego", "0", "--subgraph", s(&list)],
            2,
            "cannot be used with",
        ),
    ] {
        for cmd in ["info", "distances"] {
            let mut a = vec![cmd, "--graph", "data/karate.edges"];
            if cmd == "distances" {
                a.extend(["--distance", "hop", "--owner", "0"]);
            }
            a.extend(&args);
            let o = run(&a);
            let err = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(code), "{a:?}: {err}");
            assert!(
                err.contains(needle) && err.lines().count() == 1,
                "{a:?}: {err}"
            );
        }
    }
}

#[test]
fn distances_on_the_view_equal_distances_on_the_written_subgraph() {
    let d = scratch("dist");
    let edges = d.join("e.edges");
    ok(&[
        "subgraph",
        "--graph",
        "data/karate.edges",
        "--ego",
        "5:2",
        "--out",
        s(&edges),
    ]);
    for kind in ["hop", "resistance"] {
        let owners = "5,0,16,31";
        let a = ok(&[
            "distances",
            "--graph",
            "data/karate.edges",
            "--ego",
            "5:2",
            "--distance",
            kind,
            "--owners",
            owners,
        ]);
        let b = ok(&[
            "distances",
            "--graph",
            s(&edges),
            "--distance",
            kind,
            "--owners",
            owners,
        ]);
        assert_eq!(a, b, "{kind}");
        // Resistance on the view differs from the whole graph's (it is
        // computed on the view).
        let whole = ok(&[
            "distances",
            "--graph",
            "data/karate.edges",
            "--distance",
            kind,
            "--owner",
            "5",
        ]);
        let view1 = ok(&[
            "distances",
            "--graph",
            "data/karate.edges",
            "--ego",
            "5:2",
            "--distance",
            kind,
            "--owner",
            "5",
        ]);
        assert!(view1.lines().count() < whole.lines().count());
        if kind == "resistance" {
            assert_ne!(whole.lines().nth(2), view1.lines().nth(2));
        }
    }
}

#[test]
fn simulate_records_the_view_and_config_replays_it() {
    let d = scratch("sim");
    let a = d.join("a");
    let b = d.join("b");
    let c = d.join("c");
    let e = d.join("e.edges");
    ok(&[
        "simulate",
        "--graph",
        "data/karate.edges",
        "--ego",
        "0",
        "--out",
        s(&a),
        "--no-plots",
        "-q",
    ]);
    let sum: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(a.join("summary.json")).unwrap()).unwrap();
    assert_eq!(sum["config"]["view"], "ego:0:1");
    assert_eq!(sum["graph"]["nodes"], 17);
    assert_eq!(sum["graph"]["view"]["of_nodes"], 34);
    ok(&[
        "simulate",
        "--config",
        s(&a.join("summary.json")),
        "--out",
        s(&b),
        "--no-plots",
        "-q",
    ]);
    // The written subgraph gives the same rows.
    ok(&[
        "subgraph",
        "--graph",
        "data/karate.edges",
        "--ego",
        "0",
        "--out",
        s(&e),
    ]);
    ok(&[
        "simulate",
        "--graph",
        s(&e),
        "--out",
        s(&c),
        "--no-plots",
        "-q",
    ]);
    for f in [
        "by_distance.csv",
        "ego.csv",
        "owners.csv",
        "paths.csv",
        "jumps.csv",
    ] {
        let x = std::fs::read_to_string(a.join(f)).unwrap();
        assert_eq!(x, std::fs::read_to_string(b.join(f)).unwrap(), "{f} replay");
        assert_eq!(
            x,
            std::fs::read_to_string(c.join(f)).unwrap(),
            "{f} written view"
        );
    }
    // No view: no key in summary.json.
    let z = d.join("z");
    ok(&[
        "simulate",
        "--graph",
        "data/karate.edges",
        "--out",
        s(&z),
        "--no-plots",
        "-q",
    ]);
    let sum = std::fs::read_to_string(z.join("summary.json")).unwrap();
    assert!(!sum.contains("\"view\""));
}

#[test]
fn collude_and_sweep_take_views() {
    let d = scratch("other");
    let c = d.join("c");
    ok(&[
        "collude",
        "--graph",
        "data/karate.edges",
        "--ego",
        "0",
        "--coalition",
        "random:m=3",
        "--trials",
        "50",
        "--out",
        s(&c),
        "--no-plots",
        "-q",
    ]);
    let sum = std::fs::read_to_string(c.join("summary.json")).unwrap();
    assert!(sum.contains("\"view\": \"ego:0:1\""), "{sum}");
    let sw = d.join("s.csv");
    ok(&[
        "sweep",
        "--set",
        "graph=data/karate.edges",
        "--set",
        "view=ego:0:1,ego:33:1",
        "--set",
        "owners=3",
        "-q",
        "--out",
        s(&sw),
    ]);
    let text = std::fs::read_to_string(&sw).unwrap();
    assert!(text.starts_with("graph,view,"), "{text}");
    assert!(text.contains(",ego:0:1,") && text.contains(",ego:33:1,"));
}
