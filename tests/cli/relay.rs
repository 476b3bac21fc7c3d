//! `privdiffuse relay` through the binary: the files and their columns,
//! answers identical to `simulate`'s, byte-identical outputs on 1 and 3
//! threads and through `--config`, `--force`, one-line refusals.

use crate::support::scratch::scratch;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn relay(args: &[&str]) -> Output {
    bin().arg("relay").args(args).output().unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap()
}

const KARATE: &[&str] = &[
    "--graph",
    "data/karate.edges",
    "--eps",
    "exp:a=3,b=0.8",
    "--dim",
    "1",
    "--norm",
    "l1",
    "--seed",
    "9",
];

#[test]
fn writes_its_files_identically_on_1_and_3_threads_and_again_from_its_summary() {
    let d = scratch("files");
    let mut outs = Vec::new();
    for t in ["1", "3"] {
        let out = d.join(t);
        let mut args = KARATE.to_vec();
        args.extend(["--untrimmed", "0,0.05,0.2", "--threads", t, "-q"]);
        args.extend(["--out", out.to_str().unwrap()]);
        let o = relay(&args);
        assert!(o.status.success(), "{}", stderr(&o));
        outs.push(out);
    }
    for f in ["relay.csv", "relay_by_distance.csv", "summary.json"] {
        assert_eq!(
            fs::read(outs[0].join(f)).unwrap(),
            fs::read(outs[1].join(f)).unwrap(),
            "{f}"
        );
    }
    for f in ["relay.png", "relay.svg", "timings.json"] {
        assert!(outs[0].join(f).is_file(), "{f}");
    }
    let csv = read(&outs[0].join("relay.csv"));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("owner,untrimmed,rounds,messages,bytes,recipients,identical,eps_learned_excess_max")
    );
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    assert_eq!(rows.len(), 34 * 3, "one row per owner and fraction");
    for r in &rows {
        assert_eq!(r[5], "33");
        assert_eq!(r[6], r[5], "every answer identical: {r:?}");
        assert_eq!(r[3], "156", "2|E| messages");
        if r[1] == "0" {
            assert_eq!(r[7], "1");
        }
    }
    assert_eq!(rows[0][1..2], ["0"]);
    assert_eq!(rows[1][1..2], ["0.05"]);
    let by = read(&outs[0].join("relay_by_distance.csv"));
    assert!(by.starts_with(
        "untrimmed,distance_lo,distance_hi,recipients,eps_learned_ratio_mean,eps_learned_ratio_max\n"
    ));
    // Re-run from the summary: the same files.
    let again = d.join("again");
    let summary = outs[0].join("summary.json");
    let o = relay(&[
        "--config",
        summary.to_str().unwrap(),
        "-q",
        "--no-plots",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    for f in ["relay.csv", "relay_by_distance.csv", "summary.json"] {
        assert_eq!(
            fs::read(outs[0].join(f)).unwrap(),
            fs::read(again.join(f)).unwrap(),
            "{f}"
        );
    }
    let _ = fs::remove_dir_all(&d);
}

/// `relay`'s read-outs are `simulate`'s answers: the path of an owner is
/// the one `simulate --responses` used (same seed and options), and the
/// summary counts every answer identical.
#[test]
fn its_answers_are_simulates() {
    let d = scratch("sim");
    let out = d.join("r");
    let mut args = KARATE.to_vec();
    args.extend(["-q", "--no-plots", "--out", out.to_str().unwrap()]);
    let o = relay(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let summary: serde_json::Value =
        serde_json::from_str(&read(&out.join("summary.json"))).unwrap();
    let t = &summary["totals"][0];
    assert_eq!(t["identical"], t["recipients"]);
    assert_eq!(t["recipients"], 34 * 33);
    assert_eq!(t["central_bytes"], 34 * 33 * 16);
    assert_eq!(summary["config"]["sim"]["mechanism"], "correlated");
    assert!(summary["round"].as_str().unwrap().contains("synchronous"));
    let e = stderr(
        &bin()
            .args([
                "simulate",
                "--mechanism",
                "correlated",
                "--responses",
                "-q",
                "--no-plots",
            ])
            .args(KARATE)
            .arg("--out")
            .arg(d.join("s"))
            .output()
            .unwrap(),
    );
    assert!(e.is_empty(), "{e}");
    let responses = read(&d.join("s/responses.csv"));
    assert_eq!(responses.lines().count(), 1 + 34 * 33);
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn refuses_what_it_cannot_do_in_one_line() {
    let d = scratch("refuse");
    let out = d.join("o");
    for (extra, code, what) in [
        (&["--distance", "resistance"][..], 2, "not path metrics"),
        (
            &["--distance", "resistance-approx"][..],
            2,
            "not path metrics",
        ),
        (&["--untrimmed", "0,1.5"][..], 2, "--untrimmed"),
        (&["--untrimmed", "0.2,0.2"][..], 2, "each fraction once"),
        (
            &["--unreachable", "floor", "--eps-min", "0.1"][..],
            2,
            "--unreachable",
        ),
        (&["--untrimmed", "x"][..], 2, "--untrimmed"),
    ] {
        let mut args = KARATE.to_vec();
        args.extend(extra);
        args.extend(["-q", "--out", out.to_str().unwrap()]);
        let o = relay(&args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(code), "{extra:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{extra:?}: {e}");
        assert!(e.contains(what), "{extra:?}: {e}");
        assert!(!e.contains("panicked"), "{e}");
        assert!(!out.exists(), "{extra:?}: no output");
    }
    // An existing --out is refused without --force, replaced with it.
    let mut args = KARATE.to_vec();
    args.extend(["-q", "--no-plots", "--out", out.to_str().unwrap()]);
    assert!(relay(&args).status.success());
    let o = relay(&args);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--force"), "{}", stderr(&o));
    args.push("--force");
    let o = relay(&args);
    assert!(o.status.success(), "{}", stderr(&o));
    let _ = fs::remove_dir_all(&d);
}

/// Weighted distances: the round-by-round engine, every answer identical.
#[test]
fn weighted_distances_relay_round_by_round() {
    let d = scratch("weighted");
    let out = d.join("w");
    let o = relay(&[
        "--graph",
        "tests/golden/karate_weighted.edges",
        "--distance",
        "weighted",
        "--dim",
        "1",
        "--norm",
        "l1",
        "--untrimmed",
        "0,0.1",
        "--no-plots",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = read(&out.join("relay.csv"));
    for l in csv.lines().skip(1) {
        let c: Vec<&str> = l.split(',').collect();
        assert_eq!(c[5], c[6], "{l}");
    }
    let by = read(&out.join("relay_by_distance.csv"));
    // Continuous distances: `simulate`'s 20 bins, per fraction.
    assert!(by.lines().count() > 2 && by.lines().count() <= 1 + 2 * 20);
    let _ = fs::remove_dir_all(&d);
}
