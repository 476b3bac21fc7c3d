//! Every figure from every face (issue 34 item 3): each command's figures,
//! drawn again by `privdiffuse plot --kind KIND` from the files the command
//! wrote, are the same bytes — PNG and SVG, for every kind.

use super::common::scratch;
use std::path::Path;
use std::process::Command;

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.current_dir(env!("CARGO_MANIFEST_DIR"))
        .env_remove("RUST_BACKTRACE");
    c
}

fn ok(args: &[&str]) {
    let o = bin().args(args).output().unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
}

/// `plot --kind kind --input input` (plus `extra`) into `dir/again.EXT`
/// gives exactly the bytes of `drawn.EXT`, for PNG and SVG.
fn same(kind: &str, input: &Path, drawn: &Path, extra: &[&str]) {
    for ext in ["png", "svg"] {
        let first = drawn.with_extension(ext);
        let again = input.parent().unwrap().join(format!("again-{kind}.{ext}"));
        let mut args = vec![
            "plot",
            "--kind",
            kind,
            "--input",
            input.to_str().unwrap(),
            "--out",
            again.to_str().unwrap(),
        ];
        args.extend(extra);
        ok(&args);
        let (a, b) = (
            std::fs::read(&first).unwrap(),
            std::fs::read(&again).unwrap(),
        );
        assert!(a.len() > 1000, "{}", first.display());
        assert!(
            a == b,
            "{kind}: {} and {} differ",
            first.display(),
            again.display()
        );
    }
}

#[test]
fn simulate_and_collude_figures_redraw_byte_for_byte() {
    let d = scratch("redraw-sim");
    let sim = d.join("sim");
    let s = sim.to_str().unwrap();
    ok(&[
        "simulate",
        "--graph",
        "data/karate.edges",
        "--owners",
        "4",
        "-q",
        "--out",
        s,
    ]);
    for kind in ["jumps", "ego", "error", "path"] {
        same(kind, &sim, &sim.join(format!("{kind}.png")), &[]);
    }
    let col = d.join("col");
    let c = col.to_str().unwrap();
    ok(&[
        "collude",
        "--graph",
        "data/karate.edges",
        "--owners",
        "2",
        "--coalition",
        "nearest:m=3",
        "--coalition",
        "random:m=6",
        "--trials",
        "40",
        "-q",
        "--out",
        c,
    ]);
    same("coalition", &col, &col.join("coalition.png"), &[]);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn utility_relay_and_sweep_figures_redraw_byte_for_byte() {
    let d = scratch("redraw-more");
    let u = d.join("util");
    ok(&[
        "utility",
        "--graph",
        "data/karate.edges",
        "--replicates",
        "2",
        "-q",
        "--out",
        u.to_str().unwrap(),
    ]);
    same("utility", &u, &u.join("utility.png"), &[]);
    let r = d.join("relay");
    ok(&[
        "relay",
        "--graph",
        "data/karate.edges",
        "--dim",
        "1",
        "--norm",
        "l1",
        "--untrimmed",
        "0,0.2",
        "-q",
        "--out",
        r.to_str().unwrap(),
    ]);
    same("relay", &r, &r.join("relay.png"), &[]);
    let csv = d.join("s.csv");
    ok(&[
        "sweep",
        "--set",
        "graph=data/karate.edges",
        "--set",
        "m=2,4",
        "--set",
        "coalition=random:m={m}",
        "--set",
        "seed=1..2",
        "--set",
        "trials=20",
        "--plots",
        "--x",
        "m",
        "--metric",
        "gain_median",
        "-q",
        "--out",
        csv.to_str().unwrap(),
    ]);
    same(
        "sweep",
        &csv,
        &csv,
        &["--x", "m", "--metric", "gain_median"],
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn evolve_timeline_redraws_byte_for_byte() {
    let d = scratch("redraw-evolve");
    let start = d.join("k.edges");
    ok(&[
        "generate",
        "events",
        "--graph",
        "data/karate.edges",
        "--hold-out",
        "0.2",
        "--remove",
        "0.1",
        "--seed",
        "3",
        "--out",
        start.to_str().unwrap(),
    ]);
    let out = d.join("run");
    ok(&[
        "evolve",
        "--graph",
        start.to_str().unwrap(),
        "--nodes",
        start.with_extension("nodes").to_str().unwrap(),
        "--events",
        start.with_extension("events.csv").to_str().unwrap(),
        "--store",
        d.join("k.db").to_str().unwrap(),
        "--dim",
        "1",
        "--norm",
        "l1",
        "--batch",
        "3",
        "--quiet",
        "--out",
        out.to_str().unwrap(),
    ]);
    same("timeline", &out, &out.join("timeline.png"), &[]);
    std::fs::remove_dir_all(&d).unwrap();
}

/// Gossip's privacy figure and its utility figure, from the run's files;
/// `plot --kind gossip` on the directory writes `privacy.png` by default.
#[test]
fn gossip_figures_redraw_byte_for_byte() {
    let d = scratch("redraw-gossip");
    let g = d.join("gossip");
    ok(&[
        "gossip",
        "--graph",
        "data/karate.edges",
        "--sigma",
        "1",
        "--owners",
        "0,33",
        "--replicates",
        "2",
        "-q",
        "--out",
        g.to_str().unwrap(),
    ]);
    same("gossip", &g, &g.join("privacy.png"), &[]);
    same("utility", &g, &g.join("utility.png"), &[]);
    let first = std::fs::read(g.join("privacy.png")).unwrap();
    std::fs::remove_file(g.join("privacy.png")).unwrap();
    ok(&["plot", "--kind", "gossip", "--input", g.to_str().unwrap()]);
    assert!(std::fs::read(g.join("privacy.png")).unwrap() == first);
    std::fs::remove_dir_all(&d).unwrap();
}
