//! `privdiffuse relax` end to end: output format, determinism, the accuracy
//! table, state files and usage errors.

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

#[test]
fn csv_format_and_determinism() {
    let o = run(&[
        "--value", "1,-2", "--eps", "0.5,2,1", "--norm", "l2", "--seed", "7",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let text = stdout(&o);
    let lines: Vec<&str> = text.lines().collect();
    assert_eq!(lines[0], "trial,step,eps,y1,y2");
    assert_eq!(lines.len(), 4);
    for (i, (l, e)) in lines[1..].iter().zip(["0.5", "2", "1"]).enumerate() {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 5);
        assert_eq!(f[0], "0");
        assert_eq!(f[1], i.to_string());
        assert_eq!(f[2], e);
        for x in &f[3..] {
            assert!(x.parse::<f64>().unwrap().is_finite());
        }
    }
    // Same arguments, same bytes; another seed, other numbers.
    assert_eq!(
        stdout(&run(&[
            "--value", "1,-2", "--eps", "0.5,2,1", "--norm", "l2", "--seed", "7"
        ])),
        text
    );
    assert_ne!(
        stdout(&run(&[
            "--value", "1,-2", "--eps", "0.5,2,1", "--norm", "l2", "--seed", "8"
        ])),
        text
    );
    // Gaussian mechanism works too.
    let o = run(&[
        "--value",
        "0",
        "--eps",
        "1,3",
        "--mechanism",
        "gaussian",
        "--delta",
        "1e-6",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 3);
}

#[test]
fn trials_table_shows_no_loss_and_composition_loss() {
    let dir = tmpdir("table");
    let out = dir.join("r.csv");
    let o = run(&[
        "--value",
        "0",
        "--eps",
        "0.5,1,2,4",
        "--trials",
        "4000",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    // With --out the table goes to stdout; the CSV has 4000 × 4 rows.
    let csv = std::fs::read_to_string(&out).unwrap();
    assert_eq!(csv.lines().count(), 1 + 4000 * 4);
    let table = stdout(&o);
    let rows: Vec<Vec<f64>> = table
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim_start().starts_with("step"))
        .map(|l| l.split_whitespace().map(|x| x.parse().unwrap()).collect())
        .collect();
    assert_eq!(rows.len(), 4, "{table}");
    for r in &rows {
        // columns: step eps mse optimum ratio comp_mse comp_theory comp_ratio
        let (eps, ratio, comp_ratio) = (r[1], r[4], r[7]);
        // The lazy release's MSE ratio: s.e. = sd(V²)/E V²/√T = √20/2/√4000 = 0.035.
        assert!(
            (ratio - 1.0).abs() < 6.0 * 0.035,
            "ε={eps}: ratio {ratio}\n{table}"
        );
        if eps > 0.5 {
            // Composition loses: theory 2, 2.67, 2.91 (s.e. of the ratio ≤ 0.035·3).
            assert!(
                comp_ratio > 1.5,
                "ε={eps}: composition ratio {comp_ratio}\n{table}"
            );
            assert!(r[6] > r[3] * 1.9, "theory column\n{table}");
        }
    }
    // Without --out the table goes to stderr; a non-increasing order has no composition.
    let o = run(&["--value", "0", "--eps", "2,1", "--trials", "10"]);
    assert!(o.status.success());
    assert!(stderr(&o).contains("comp_mse"));
    assert!(stderr(&o).contains("strictly increasing"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn state_file_resumes_without_changing_answers() {
    let dir = tmpdir("state");
    let st = dir.join("s.json");
    let st_s = st.to_str().unwrap();
    let a = run(&[
        "--value", "5", "--eps", "1,2", "--state", st_s, "--seed", "3",
    ]);
    assert!(a.status.success(), "{}", stderr(&a));
    let b = run(&["--eps", "0.5,2,1,8", "--state", st_s]);
    assert!(b.status.success(), "{}", stderr(&b));
    let first: Vec<String> = stdout(&a).lines().skip(1).map(|l| l.to_string()).collect();
    let second: Vec<String> = stdout(&b).lines().skip(1).map(|l| l.to_string()).collect();
    // Steps continue (2..5); ε = 2 and ε = 1 get their earlier answers back.
    let y = |l: &str| l.splitn(4, ',').nth(3).unwrap().to_string();
    assert!(second[0].starts_with("0,2,0.5,"));
    assert_eq!(y(&second[1]), y(&first[1]));
    assert_eq!(y(&second[2]), y(&first[0]));
    // Conflicting value → usage error, state untouched.
    let before = std::fs::read_to_string(&st).unwrap();
    let c = run(&["--value", "6", "--eps", "1", "--state", st_s]);
    assert_eq!(c.status.code(), Some(2));
    assert_eq!(std::fs::read_to_string(&st).unwrap(), before);
    // A level repeated with a different value → input error naming file and line.
    let mut v: serde_json::Value = serde_json::from_str(&before).unwrap();
    let mut dup = v["history"][0].clone();
    dup["value"][0] = serde_json::json!(-1.5);
    v["history"].as_array_mut().unwrap().push(dup);
    let bad = dir.join("bad.json");
    std::fs::write(&bad, serde_json::to_string_pretty(&v).unwrap()).unwrap();
    let d = run(&["--eps", "1", "--state", bad.to_str().unwrap()]);
    assert_eq!(d.status.code(), Some(1));
    let err = stderr(&d);
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.contains("bad.json:") && err.contains("released twice"),
        "{err}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn bad_arguments_exit_2_with_one_line() {
    let cases: &[&[&str]] = &[
        &["--value", "1", "--eps", "1,-2"],
        &["--value", "1", "--eps", "0"],
        &["--value", "1", "--eps", "nan"],
        &["--value", "1,2", "--eps", "1", "--dim", "3"],
        &["--value", "1", "--eps", "1", "--delta", "0.1"],
        &[
            "--value",
            "1",
            "--eps",
            "1",
            "--mechanism",
            "gaussian",
            "--delta",
            "1.5",
        ],
        &["--value", "1", "--eps", "1", "--trials", "0"],
        &["--eps", "1"],
        &["--value", "1", "--eps", "1", "--norm", "l3"],
        &["--value", "1", "--eps", "1", "--sensitivity", "0"],
    ];
    for args in cases {
        let o = run(args);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {}", stderr(&o));
        let err = stderr(&o);
        assert!(err.starts_with("error:"), "{args:?}: {err}");
        // One line of error (clap adds its standard "try '--help'" hint).
        let msg = err
            .lines()
            .filter(|l| !l.trim().is_empty() && !l.starts_with("For more information"))
            .count();
        assert_eq!(msg, 1, "{args:?}: {err}");
        assert!(o.stdout.is_empty(), "{args:?}: no partial output");
    }
}

#[test]
fn negative_secret_and_refused_levels() {
    let o = run(&["--value", "-1,2", "--eps", "1,2"]);
    assert!(o.status.success(), "{}", stderr(&o));
    assert_eq!(stdout(&o).lines().count(), 3);
    // A refused level anywhere in the list: nothing on stdout, one line on stderr.
    let o = run(&["--value", "1", "--eps", "1,1e200"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(stdout(&o).is_empty(), "{}", stdout(&o));
    assert_eq!(stderr(&o).trim_end().lines().count(), 1);
    for bad in [
        ["--delta", "-0.1"],
        ["--sensitivity", "-1"],
        ["--trials", "-2"],
    ] {
        let mut args = vec!["--value", "1", "--eps", "1", "--mechanism", "gaussian"];
        args.extend(bad);
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{bad:?}");
        let e = stderr(&o);
        assert!(e.contains(bad[0].trim_start_matches('-')), "{bad:?}: {e}");
        assert_eq!(e.trim_end().lines().count(), 1, "{bad:?}: {e}");
    }
}

/// Issue 23.A1: 20 concurrent runs on one state. Each either fails at once
/// (exit 1, `STATE is in use by another run`, nothing printed) or prints
/// an answer that the state then holds; no level is ever answered twice
/// with different values, and asking again returns what was printed.
#[test]
fn concurrent_state_updates_lose_nothing_and_never_answer_twice() {
    let dir = tmpdir("concurrent");
    let st = dir.join("st.json");
    let st_s = st.to_str().unwrap();
    let o = run(&["--value", "0", "--eps", "0.1", "--state", st_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    let mut printed: Vec<(String, String)> = Vec::new();
    let mut succeeded = 0;
    for round in 0..3 {
        let children: Vec<_> = (1..=20)
            .map(|i| {
                let eps = format!("{}", i * 10 + round);
                let child = bin()
                    .args(["relax", "--eps", &eps, "--state", st_s])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap();
                (eps, child)
            })
            .collect();
        for (eps, child) in children {
            let o = child.wait_with_output().unwrap();
            if o.status.success() {
                succeeded += 1;
                let out = stdout(&o);
                let row = out.lines().nth(1).expect("an answer row");
                let f: Vec<&str> = row.splitn(4, ',').collect();
                assert_eq!(f[2], eps, "{out}");
                printed.push((eps, f[3].to_string()));
            } else {
                assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
                assert_eq!(
                    stderr(&o),
                    format!("error: {st_s} is in use by another run\n")
                );
                assert!(o.stdout.is_empty(), "printed without recording");
            }
        }
    }
    assert!(succeeded >= 3, "at least the first run of each round");
    // Every printed answer is in the state, once per level.
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&st).unwrap()).unwrap();
    let history = state["history"].as_array().unwrap();
    let mut seen: std::collections::HashMap<String, String> = Default::default();
    for h in history {
        let e = privdiffuse::util::fmt_f64(h["eps"].as_f64().unwrap());
        let y = privdiffuse::util::fmt_f64(h["value"][0].as_f64().unwrap());
        if let Some(prev) = seen.insert(e.clone(), y.clone()) {
            assert_eq!(prev, y, "level {e} answered twice");
        }
    }
    assert_eq!(seen.len(), 1 + printed.len(), "{state}");
    for (e, y) in &printed {
        assert_eq!(seen.get(e), Some(y), "printed {e} → {y}, not recorded");
    }
    // Asked again, every level gets the answer printed before.
    let all: Vec<&str> = printed.iter().map(|(e, _)| e.as_str()).collect();
    let o = run(&["--eps", &all.join(","), "--state", st_s]);
    assert!(o.status.success(), "{}", stderr(&o));
    for (row, (e, y)) in stdout(&o).lines().skip(1).zip(&printed) {
        assert!(row.ends_with(&format!(",{e},{y}")), "{row} vs {e} {y}");
    }
    // The lock file is removed with the lock (issue 33 item 11).
    assert!(!dir.join("st.json.lock").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_held_state_lock_refuses_at_once_and_leaves_the_state_alone() {
    let dir = tmpdir("held");
    let st = dir.join("s.json");
    let st_s = st.to_str().unwrap();
    assert!(
        run(&["--value", "1", "--eps", "1", "--state", st_s])
            .status
            .success()
    );
    let before = std::fs::read(&st).unwrap();
    let held = privdiffuse::util::lock::FileLock::acquire(&st).unwrap();
    let t = std::time::Instant::now();
    let o = run(&["--eps", "2", "--state", st_s]);
    assert!(t.elapsed() < std::time::Duration::from_secs(20));
    assert_eq!(o.status.code(), Some(1));
    assert_eq!(
        stderr(&o),
        format!("error: {st_s} is in use by another run\n")
    );
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read(&st).unwrap(), before);
    drop(held);
    assert!(run(&["--eps", "2", "--state", st_s]).status.success());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 23.C: the level the released set is private at — in the table,
/// on stderr for a plain release, and in the state.
#[test]
fn privacy_accounting_is_printed_and_recorded() {
    let dir = tmpdir("accounting");
    let out = dir.join("r.csv");
    let o = run(&[
        "--value",
        "0",
        "--eps",
        "0.5,1,2,4",
        "--trials",
        "50",
        "--out",
        out.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let table = stdout(&o);
    assert_eq!(
        table.lines().last().unwrap(),
        "# privacy: each trial's answers together are 4-DP (max ε: one lazy path over 4 \
         levels); the composition baseline's are 4-DP (Σ of its fresh budgets ε_i − ε_(i−1))",
        "{table}"
    );
    let o = run(&[
        "--value",
        "0",
        "--eps",
        "0.5,2",
        "--trials",
        "5",
        "--mechanism",
        "gaussian",
    ]);
    assert!(
        stderr(&o).contains("are (2, 1e-5)-DP (max ε")
            && stderr(&o).contains("are (2, 1e-5)-DP (Σ"),
        "{}",
        stderr(&o)
    );
    // A plain release: the CSV on stdout, one line of accounting on stderr.
    let st = dir.join("s.json");
    let o = run(&[
        "--value",
        "0",
        "--eps",
        "2,0.5,1",
        "--state",
        st.to_str().unwrap(),
    ]);
    assert!(o.status.success());
    assert_eq!(stdout(&o).lines().count(), 4);
    assert_eq!(
        stderr(&o),
        "# privacy: everything released is 2-DP (max ε: one lazy path over 3 levels); fresh \
         noise at each level would be 3.5-DP (Σ ε)\n"
    );
    let state: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&st).unwrap()).unwrap();
    assert_eq!(state["privacy_level"], 2.0);
    // Resumed: earlier answers count.
    let o = run(&["--eps", "0.25", "--state", st.to_str().unwrap()]);
    assert!(
        stderr(&o).contains("2-DP (max ε: one lazy path over 4 levels)"),
        "{}",
        stderr(&o)
    );
    // A state whose recorded level disagrees with its history is refused.
    let text = std::fs::read_to_string(&st).unwrap();
    let bad = dir.join("bad.json");
    std::fs::write(
        &bad,
        text.replace("\"privacy_level\": 2.0", "\"privacy_level\": 1.0"),
    )
    .unwrap();
    let o = run(&["--eps", "1", "--state", bad.to_str().unwrap()]);
    assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
    assert!(
        stderr(&o).contains("bad.json:") && stderr(&o).contains("privacy_level"),
        "{}",
        stderr(&o)
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 23.B1: a path extension beyond the memory budget is refused with
/// one line naming --eps, not an allocation abort (exit 134). Under
/// `ulimit -v 4000000` the run aborted allocating 4.19 GB (ℓ1) and 1.1 GB
/// (ℓ2) before.
#[test]
fn extensions_beyond_the_memory_budget_are_refused() {
    let zeros = vec!["0"; 1000].join(",");
    for norm in ["l1", "l2"] {
        let script = format!(
            "ulimit -v 4000000; exec \"$0\" relax --value {zeros} --eps 1,1e-60 --norm {norm}"
        );
        let o = Command::new("sh")
            .args(["-c", &script, env!("CARGO_BIN_EXE_privdiffuse")])
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap();
        let err = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{norm}: {err}");
        assert!(o.stdout.is_empty(), "{norm}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(
            err.starts_with("error: --eps = 1e-60 (the noise path extended from [1, 1]")
                && err.contains("of memory, over the budget of"),
            "{err}"
        );
    }
    // Explicitly: a budget the extension does not fit.
    let o = run(&[
        "--value",
        "0,0,0",
        "--eps",
        "1e10,1e-50",
        "--memory-budget",
        "10K",
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--memory-budget"), "{}", stderr(&o));
}

/// The secret of `relax` is never shown: not when `--value` does not parse
/// (clap quoted it; the table of `trust::rules` runs the other forms under
/// every noise), not when it differs from the value a `--state` file holds
/// (both were printed), not as a stray argument, under either noise.
#[test]
fn the_secret_is_never_shown() {
    let dir = tmpdir("secret");
    let secret = "31415926535";
    for bad in [format!("{secret};2"), format!("1,{secret}e400")] {
        let o = run(&["--value", &bad, "--eps", "1"]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(!e.contains(secret) && e.contains("--value"), "{e}");
    }
    // A secret's second number after a space is a stray argument: clap
    // echoed it ("unexpected argument '31415926535' found").
    for args in [
        &["--value", "1", secret, "--eps", "1"][..],
        &["--eps", "1", secret],
    ] {
        let o = run(args);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            !e.contains(secret) && e.contains("unexpected argument"),
            "{e}"
        );
    }
    for noise in [&[][..], &["--noise", "discrete"][..]] {
        let state = dir.join(format!("s{}.json", noise.len()));
        let st = state.to_str().unwrap();
        let mut first = vec!["--value", secret, "--eps", "1", "--state", st];
        first.extend(noise);
        let o = run(&first);
        assert!(o.status.success(), "{}", stderr(&o));
        let mut again = vec!["--value", "27182818284", "--eps", "2", "--state", st];
        again.extend(noise);
        let o = run(&again);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert!(
            !e.contains(secret) && !e.contains("27182818284") && e.contains("--value"),
            "{e}"
        );
        // A state edited so that its value is a string: serde quoted it.
        let text = std::fs::read_to_string(&state).unwrap();
        let edited = text.replacen(
            "\"value\": [",
            &format!("\"value\": \"{secret}\", \"x\": ["),
            1,
        );
        assert_ne!(text, edited);
        std::fs::write(&state, edited).unwrap();
        let o = run(&["--eps", "2", "--state", st]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert!(!e.contains(secret) && e.contains("invalid type"), "{e}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
