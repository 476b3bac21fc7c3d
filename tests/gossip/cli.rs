//! `privdiffuse gossip` through the binary: the files and their exact
//! columns, identical bytes on 1 and 2 threads, refusals in one line
//! (disconnected graph, σ ≤ 0, T = 0, α ≤ 1, δ outside (0, 1); a secret
//! outside its public range is a rule of `trust::rules`' table), and the
//! atomic claim of `--out`.

use crate::support::scratch::scratch;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn karate() -> &'static str {
    concat!(env!("CARGO_MANIFEST_DIR"), "/data/karate.edges")
}

fn gossip(args: &[&str]) -> Output {
    bin().arg("gossip").args(args).output().unwrap()
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap()
}

#[test]
fn writes_the_contract_files_identically_on_one_and_two_threads() {
    let d = scratch("threads");
    let mut outs = Vec::new();
    for t in ["1", "2"] {
        let out = d.join(t);
        let o = gossip(&[
            "--graph",
            karate(),
            "--sigma",
            "0.8",
            "--owners",
            "0,5,33",
            "--observers",
            "1,5",
            "--coalition",
            "nearest:m=3",
            "--replicates",
            "4",
            "--threads",
            t,
            "--out",
            out.to_str().unwrap(),
            "-q",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        outs.push(out);
    }
    for f in [
        "privacy.csv",
        "privacy_by_distance.csv",
        "utility.csv",
        "coalition.csv",
        "two_schools.csv",
        "summary.json",
    ] {
        assert_eq!(
            fs::read(outs[0].join(f)).unwrap(),
            fs::read(outs[1].join(f)).unwrap(),
            "{f}"
        );
    }
    let privacy = read(&outs[0].join("privacy.csv"));
    let mut lines = privacy.lines();
    assert_eq!(
        lines.next().unwrap(),
        "source,observer,distance,rdp_paper,rdp_exact,eps_paper,eps_exact"
    );
    // 3 owners × 33 members, plus the 2 observers' other 31 sources.
    let rows: Vec<Vec<&str>> = lines.map(|l| l.split(',').collect()).collect();
    let observers = ["1", "5"];
    let owners = ["0", "5", "33"];
    let expect = 3 * 33 + rows.iter().filter(|r| !owners.contains(&r[0])).count();
    assert_eq!(rows.len(), expect);
    for r in &rows {
        assert_eq!(r.len(), 7);
        assert_eq!(r[3].is_empty(), !owners.contains(&r[0]), "{r:?}");
        assert_eq!(r[4].is_empty(), !observers.contains(&r[1]), "{r:?}");
        // Capped at the local level α/(2σ²) = 2/(2·0.64).
        if !r[3].is_empty() {
            assert!(r[3].parse::<f64>().unwrap() <= 1.0 / 0.64 + 1e-12);
        }
        if !r[4].is_empty() {
            assert!(r[4].parse::<f64>().unwrap() <= 1.0 / 0.64 + 1e-12);
        }
    }
    let util = read(&outs[0].join("utility.csv"));
    assert!(util.starts_with("scheme,degree_lo,degree_hi,recipients,mse,mse_se,mse_theory\n"));
    assert!(util.contains("\ngossip-accelerated,,,34,"));
    let by = read(&outs[0].join("privacy_by_distance.csv"));
    assert!(by.starts_with("distance,pairs,pairs_paper,pairs_exact,rdp_paper_mean,"));
    let summary: serde_json::Value =
        serde_json::from_str(&read(&outs[0].join("summary.json"))).unwrap();
    assert_eq!(summary["config"]["gossip"], "accelerated");
    assert_eq!(summary["config"]["alpha"], 2.0);
    assert_eq!(summary["config"]["delta"], 1e-6);
    assert!(outs[0].join("timings.json").exists());
}

#[test]
fn refuses_bad_input_in_one_line() {
    let d = scratch("bad");
    let two = d.join("two.edges");
    fs::write(&two, "0 1\n1 4\n2 3\n3 5\n").unwrap();
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (
            vec!["--graph", two.to_str().unwrap(), "--sigma", "1"],
            "components",
        ),
        (vec!["--graph", karate(), "--sigma", "0"], "--sigma"),
        (vec!["--graph", karate(), "--sigma=-1"], "--sigma"),
        // σ² underflows or overflows (the mixing rule said "inf steps"), and
        // α·Δ²/(2σ²) overflows ("privacy.csv could not be formatted").
        (vec!["--graph", karate(), "--sigma", "1e-160"], "--sigma"),
        (vec!["--graph", karate(), "--sigma", "1e300"], "--sigma"),
        (
            vec![
                "--graph",
                karate(),
                "--sigma",
                "1",
                "--sensitivity",
                "1e300",
            ],
            "local level",
        ),
        (
            vec!["--graph", karate(), "--sigma", "1", "--steps", "0"],
            "--steps",
        ),
        (
            vec!["--graph", karate(), "--sigma", "1", "--alpha", "1"],
            "--alpha",
        ),
        (
            vec!["--graph", karate(), "--sigma", "1", "--delta", "0"],
            "--delta",
        ),
        (
            vec!["--graph", karate(), "--sigma", "1", "--delta", "1"],
            "--delta",
        ),
        (
            vec![
                "--graph",
                karate(),
                "--sigma",
                "1",
                "--values",
                "smooth:sd=1,steps=2",
            ],
            "--sensitivity",
        ),
        (
            vec![
                "--graph",
                karate(),
                "--sigma",
                "1",
                "--coalition",
                "sybil:m=3,d=2",
            ],
            "--coalition",
        ),
    ];
    for (i, (args, word)) in cases.into_iter().enumerate() {
        let out = d.join(format!("o{i}"));
        let mut a = args.clone();
        a.extend(["--out", out.to_str().unwrap(), "-q"]);
        let o = gossip(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success(), "{args:?}");
        assert!(
            matches!(o.status.code(), Some(1 | 2)),
            "{args:?}: {:?}",
            o.status
        );
        assert!(err.contains(word), "{args:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
        assert!(!err.contains("panicked"), "{err}");
        assert!(!out.exists(), "no half-written output for {args:?}");
    }
}

#[test]
fn out_is_claimed_atomically_and_refused_when_it_exists() {
    let d = scratch("out");
    let out = d.join("run");
    let args = |force: bool| {
        let mut a = vec![
            "--graph",
            karate(),
            "--sigma",
            "1",
            "--owners",
            "0,",
            "--out",
            out.to_str().unwrap(),
            "--no-plots",
            "-q",
        ];
        if force {
            a.push("--force");
        }
        a.iter().map(|s| s.to_string()).collect::<Vec<_>>()
    };
    let run = |a: Vec<String>| bin().arg("gossip").args(a).output().unwrap();
    assert!(run(args(false)).status.success());
    let again = run(args(false));
    assert!(!again.status.success());
    assert!(String::from_utf8_lossy(&again.stderr).contains("--force"));
    assert!(run(args(true)).status.success());
    // The default T of rule (6) is recorded, and --config re-runs it.
    let summary = out.join("summary.json");
    let s: serde_json::Value = serde_json::from_str(&read(&summary)).unwrap();
    assert_eq!(s["steps_from_rule"], true);
    let re = d.join("re");
    let o = bin()
        .args(["gossip", "--config", summary.to_str().unwrap(), "--out"])
        .arg(&re)
        .args(["--no-plots", "-q"])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(
        read(&out.join("privacy.csv")),
        read(&re.join("privacy.csv"))
    );
}
