//! `privdiffuse relax --noise discrete` end to end (issue 25): rows at
//! rungs on the grid, order independence across runs of one state, the
//! state's record and its mismatch refusals, the lock, the accounting line
//! and the accuracy table.

use crate::support::scratch::scratch as tmpdir;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn run(args: &[&str]) -> Output {
    bin().arg("relax").args(args).output().unwrap()
}

fn stdout(o: &Output) -> String {
    String::from_utf8(o.stdout.clone()).unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// (eps, y) of each CSV row.
fn rows(o: &Output) -> Vec<(f64, f64)> {
    stdout(o)
        .lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (f[2].parse().unwrap(), f[3].parse().unwrap())
        })
        .collect()
}

/// Rows hold rungs (a power of two is a rung; 1.5 answered at the largest
/// rung below it; 300 at the top 256) and grid multiples; the answers per
/// level are the same whether asked in one run or over three runs of a
/// state in another order; the accounting line counts rungs.
#[test]
fn rungs_grid_and_order_independence_across_runs() {
    let dir = tmpdir("order");
    let st = dir.join("st.json");
    let st_s = st.to_str().unwrap();
    let base = ["--value", "0.3", "--noise", "discrete", "--seed", "4"];
    let one = run(&[&base[..], &["--eps", "1,0.5,300,2,1.5"]].concat());
    assert!(one.status.success(), "{}", stderr(&one));
    let r = rows(&one);
    let levels: Vec<f64> = r.iter().map(|x| x.0).collect();
    assert_eq!(&levels[..4], &[1.0, 0.5, 256.0, 2.0]);
    let k = (1.5f64.log2() * 32.0).floor();
    assert_eq!(levels[4], 2f64.powf(k / 32.0), "the rung below 1.5");
    assert!(levels[4] <= 1.5 && levels[4] > 1.5 * 2f64.powf(-1.0 / 32.0));
    for (_, y) in &r {
        assert_eq!((y * 1024.0).fract(), 0.0, "{y} off the grid");
    }
    assert_eq!(
        stderr(&one),
        format!(
            "# privacy: everything released is 256-DP (max ε: one lazy path over 5 levels); \
             fresh noise at each level would be {}-DP (Σ ε)\n",
            privdiffuse::util::fmt_f64(1.0 + 0.5 + 256.0 + 2.0 + levels[4])
        )
    );
    for part in [
        &["--eps", "2,1.5"][..],
        &["--eps", "300"],
        &["--eps", "0.5,1"],
    ] {
        let o = run(&[&base[..], part, &["--state", st_s]].concat());
        assert!(o.status.success(), "{}", stderr(&o));
    }
    let o = run(&["--eps", "1,0.5,300,2,1.5", "--state", st_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(
        rows(&o),
        r,
        "the same answers, whatever the order of requests"
    );
    let v: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&st).unwrap()).unwrap();
    assert_eq!(v["mechanism"]["kind"], "discrete");
    assert_eq!(v["mechanism"]["granularity"], "2^-10");
    assert_eq!(v["mechanism"]["levels_per_doubling"], 32);
    assert_eq!(v["mechanism"]["eps_max"], 256.0);
    assert_eq!(v["mechanism"]["rng"], "seeded");
    assert_eq!(v["discrete"]["walk"]["noise"]["delta_z"], 1024);
    assert_eq!(v["privacy_level"], 256.0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A later call must use the stored settings: each mismatch is one line,
/// exit 2, naming the key and both values, and leaves the state alone. A
/// Laplace state refuses the discrete options, and its file has no
/// discrete record.
#[test]
fn mismatches_are_refused_naming_key_and_values() {
    let dir = tmpdir("mismatch");
    let st = dir.join("st.json");
    let st_s = st.to_str().unwrap();
    let o = run(&[
        "--value",
        "1",
        "--eps",
        "1",
        "--noise",
        "discrete",
        "--eps-max",
        "64",
        "--granularity",
        "2^-6",
        "--state",
        st_s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(&st).unwrap();
    for (flag, given, stored) in [
        ("--granularity", "2^-3", "2^-6"),
        ("--levels-per-doubling", "8", "32"),
        ("--eps-max", "128", "64"),
        ("--rng", "os", "seeded"),
        ("--noise", "laplace", "discrete"),
    ] {
        let o = run(&["--eps", "2", "--state", st_s, flag, given]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        let e = stderr(&o);
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.contains(flag) && e.contains(given) && e.contains(&format!("({stored})")),
            "{e}"
        );
        assert!(o.stdout.is_empty());
    }
    let o = run(&["--eps", "2", "--state", st_s, "--mechanism", "gaussian"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("laplace"), "{}", stderr(&o));
    assert_eq!(std::fs::read(&st).unwrap(), before);
    // The same settings given again are accepted; above --eps-max: the top.
    let o = run(&[
        "--eps",
        "100",
        "--state",
        st_s,
        "--noise",
        "discrete",
        "--eps-max",
        "64",
        "--granularity",
        "0.015625",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&o)[0].0, 64.0);
    // A Laplace state: its format unchanged, the discrete options refused.
    let lst = dir.join("lap.json");
    let l_s = lst.to_str().unwrap();
    assert!(
        run(&["--value", "1", "--eps", "1", "--state", l_s])
            .status
            .success()
    );
    let text = std::fs::read_to_string(&lst).unwrap();
    assert!(
        !text.contains("discrete") && !text.contains("eps_max"),
        "{text}"
    );
    for (flag, v) in [
        ("--eps-max", "8"),
        ("--granularity", "2^-3"),
        ("--noise", "discrete"),
    ] {
        let o = run(&["--eps", "2", "--state", l_s, flag, v]);
        assert_eq!(o.status.code(), Some(2), "{flag}: {}", stderr(&o));
        assert!(stderr(&o).contains(flag), "{}", stderr(&o));
    }
    // Without a state: discrete options need --noise discrete; ℓ2 in 2-D and
    // the Gaussian mechanism have no discrete form.
    for (args, want) in [
        (&["--eps-max", "8"][..], "--eps-max"),
        (&["--levels-per-doubling", "8"], "--levels-per-doubling"),
        (&["--noise", "discrete", "--norm", "l2"], "l1"),
        (
            &["--noise", "discrete", "--mechanism", "gaussian"],
            "laplace",
        ),
        (&["--noise", "discrete", "--eps-max", "0"], "--eps-max"),
    ] {
        let o = run(&[&["--value", "1,2", "--eps", "1"][..], args].concat());
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        assert!(stderr(&o).contains(want), "{args:?}: {}", stderr(&o));
        assert_eq!(stderr(&o).lines().count(), 1);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The lock of a discrete state behaves as for Laplace: a held lock refuses
/// at once (exit 1, one line, nothing printed, the state unchanged).
#[test]
fn a_held_lock_refuses_a_discrete_state_update() {
    let dir = tmpdir("held");
    let st = dir.join("s.json");
    let st_s = st.to_str().unwrap();
    let o = run(&[
        "--value", "1", "--eps", "1", "--noise", "discrete", "--state", st_s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let before = std::fs::read(&st).unwrap();
    let held = privdiffuse::util::lock::FileLock::acquire(&st).unwrap();
    let o = run(&["--eps", "0.5", "--state", st_s]);
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!("error: {st_s} is in use by another run\n")
    );
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read(&st).unwrap(), before);
    drop(held);
    assert!(run(&["--eps", "0.5", "--state", st_s]).status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--trials`: each level's MSE over its optimum (the discrete law at the
/// rung plus the rounding of u) is 1 within 6 standard errors: the ratio's
/// s.e. is sd(X²)/E X²/√n = √5/√n for a law with Laplace's kurtosis 6 (the
/// discrete law at t = ε/1024 ≪ 1); no composition baseline.
#[test]
fn trials_table_has_ratio_one_at_rungs() {
    let n = 4000;
    let dir = tmpdir("trials");
    let out = dir.join("r.csv");
    let o = run(&[
        "--value",
        "0.3",
        "--eps",
        "0.5,1.5,4",
        "--noise",
        "discrete",
        "--trials",
        &n.to_string(),
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    let tol = 6.0 * 5f64.sqrt() / (n as f64).sqrt();
    let mut seen = 0;
    for line in table.lines().filter(|l| !l.starts_with('#')).skip(1) {
        let f: Vec<&str> = line.split_whitespace().collect();
        let ratio: f64 = f[4].parse().unwrap();
        assert!((ratio - 1.0).abs() < tol, "{line} (tol {tol})");
        assert_eq!(f[5], "-", "no composition baseline: {line}");
        seen += 1;
    }
    assert_eq!(seen, 3, "{table}");
    assert!(
        table.contains("discrete (γ = 2^-10, M = 32, eps_max = 256, rng seeded)"),
        "{table}"
    );
    assert!(
        table.contains("# privacy: each trial's answers together are 4-DP"),
        "{table}"
    );
    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(csv.lines().count(), 1 + 3 * n);
    let _ = std::fs::remove_dir_all(&dir);
}

/// `--rng os`: answers on the grid, the state records `os` and no stream
/// position, and resumes.
#[test]
fn os_entropy_is_recorded() {
    let dir = tmpdir("os");
    let st = dir.join("s.json");
    let st_s = st.to_str().unwrap();
    let o = run(&[
        "--value", "2", "--eps", "1", "--noise", "discrete", "--rng", "os", "--state", st_s,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = std::fs::read_to_string(&st).unwrap();
    assert!(
        text.contains("\"rng\": \"os\"") && !text.contains("word_pos"),
        "{text}"
    );
    let o = run(&["--eps", "0.25,1", "--state", st_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    let r = rows(&o);
    assert_eq!(r[0].0, 0.25);
    assert_eq!((r[0].1 * 1024.0).fract(), 0.0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// The committed fixture (tests/fixtures/discrete/README.md) is a state
/// drawn by sampler 1 (privdiffuse 683415f) with no sampler record: it is
/// continued with sampler 1 — exactly the answers that binary gave — and
/// stays without a record; a new state records sampler 2; a record naming
/// a sampler this build does not know is refused in one line.
#[test]
fn a_state_without_a_sampler_record_continues_with_sampler_1() {
    let dir = tmpdir("sampler");
    let fixture = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/discrete/relax-683415f.json");
    let old = std::fs::read_to_string(&fixture).unwrap();
    assert!(!old.contains("sampler"), "the fixture has no record");
    let st = dir.join("old.json");
    std::fs::write(&st, &old).unwrap();
    let args = |st: &std::path::Path, eps: &str| -> Output {
        let s = st.to_str().unwrap().to_string();
        run(&[
            "--noise", "discrete", "--seed", "7", "--eps", eps, "--state", &s,
        ])
    };
    let o = args(&st, "0.25,1");
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(rows(&o), [(0.25, -1.85546875), (1.0, 1.466796875)]);
    let saved = std::fs::read_to_string(&st).unwrap();
    assert!(!saved.contains("sampler") && !saved.contains("pending"));

    let new = dir.join("new.json");
    let o = run(&[
        "--noise",
        "discrete",
        "--seed",
        "7",
        "--value",
        "0.3",
        "--eps",
        "2,0.5",
        "--state",
        new.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let saved = std::fs::read_to_string(&new).unwrap();
    assert!(saved.contains("\"sampler\": 2"), "{saved}");
    assert!(saved.contains("\"pending\""), "{saved}");
    // Continued with its own sampler, a second run replays and extends it.
    let o = args(&new, "0.25");
    assert!(o.status.success(), "{}", stderr(&o));

    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        old.replacen(
            "\"dim\": 1,\n        \"top\"",
            "\"dim\": 1,\n        \"sampler\": 7,\n        \"top\"",
            1,
        ),
    )
    .unwrap();
    assert!(
        std::fs::read_to_string(&bad)
            .unwrap()
            .contains("\"sampler\": 7")
    );
    let o = args(&bad, "0.25");
    assert!(!o.status.success());
    assert!(matches!(o.status.code(), Some(1 | 2)), "{:?}", o.status);
    let e = stderr(&o);
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(e.contains("sampler"), "{e}");
}
