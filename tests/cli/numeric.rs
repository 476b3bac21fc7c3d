//! Every numeric option of every command, driven with the values that break
//! parsers and size computations: 0, −1, 1e308, 2⁶³, 2⁶⁴ − 1, NaN and inf.
//! Each run must exit 0, 1 or 2 (never a panic, abort or signal) within a
//! time bound, print at most one line on stderr when it fails, and leave no
//! staging file (`.tmp`) and, on failure, no output behind.
//!
//! The options are not a hand-kept list alone: [`every_option_is_classified`]
//! reads every command's `--help` and fails when an option taking a value is
//! neither in [`NUMERIC`] nor in [`NOT_NUMERIC`], so a new option cannot be
//! forgotten.

use crate::support::scratch::scratch;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::time::{Duration, Instant};

const VALUES: [&str; 7] = [
    "0",
    "-1",
    "1e308",
    "9223372036854775808",
    "18446744073709551615",
    "NaN",
    "inf",
];

/// The commands (a subcommand path) whose options are checked.
const COMMANDS: [&str; 18] = [
    "simulate",
    "utility",
    "gossip",
    "relay",
    "subgraph",
    "collude",
    "sweep",
    "path",
    "relax",
    "distances",
    "generate geometric",
    "generate er",
    "generate ba",
    "generate ws",
    "info",
    "plot",
    "evolve",
    "answers",
];

/// Options that take a number (or a list of numbers), per command. `owners`
/// counts as numeric where a bare number is a count or a node id.
const NUMERIC: &[(&str, &[&str])] = &[
    (
        "simulate",
        &[
            "bins",
            "eps-min",
            "eps-max",
            "dim",
            "delta",
            "sensitivity",
            "owners",
            "seed",
            "resistance-cap",
            "approx-k",
            "threads",
            "memory-budget",
            "ego-owners",
            "replicates",
            "replicate",
            "granularity",
            "levels-per-doubling",
        ],
    ),
    (
        "utility",
        &[
            "bins",
            "eps-min",
            "eps-max",
            "dim",
            "delta",
            "sensitivity",
            "owners",
            "access-radius",
            "replicates",
            "seed",
            "resistance-cap",
            "approx-k",
            "threads",
            "memory-budget",
            "granularity",
            "levels-per-doubling",
        ],
    ),
    (
        "gossip",
        &[
            "owners",
            "observers",
            "sigma",
            "steps",
            "alpha",
            "delta",
            "sensitivity",
            "replicates",
            "seed",
            "threads",
            "memory-budget",
        ],
    ),
    (
        "relay",
        &[
            "bins",
            "eps-min",
            "eps-max",
            "dim",
            "delta",
            "sensitivity",
            "owners",
            "untrimmed",
            "seed",
            "resistance-cap",
            "approx-k",
            "threads",
            "memory-budget",
            "granularity",
            "levels-per-doubling",
        ],
    ),
    ("subgraph", &["ego", "memory-budget"]),
    (
        "collude",
        &[
            "granularity",
            "levels-per-doubling",
            "bins",
            "eps-min",
            "eps-max",
            "dim",
            "delta",
            "sensitivity",
            "owners",
            "seed",
            "resistance-cap",
            "approx-k",
            "trials",
            "composition-delta",
            "threads",
            "memory-budget",
        ],
    ),
    ("sweep", &["threads", "at-distance", "memory-budget"]),
    (
        "path",
        &[
            "dim",
            "eps-lo",
            "eps-hi",
            "samples",
            "at",
            "seed",
            "memory-budget",
            "granularity",
            "levels-per-doubling",
        ],
    ),
    (
        "relax",
        &[
            "value",
            "eps",
            "dim",
            "delta",
            "sensitivity",
            "seed",
            "trials",
            "memory-budget",
            "granularity",
            "levels-per-doubling",
            "eps-max",
        ],
    ),
    (
        "distances",
        &[
            "owners",
            "resistance-cap",
            "approx-k",
            "approx-tol",
            "seed",
            "memory-budget",
        ],
    ),
    (
        "generate geometric",
        &["n", "radius", "edges", "seed", "memory-budget"],
    ),
    ("generate er", &["n", "m", "seed", "memory-budget"]),
    ("generate ba", &["n", "m", "seed", "memory-budget"]),
    ("generate ws", &["n", "k", "p", "seed", "memory-budget"]),
    ("info", &["memory-budget"]),
    ("plot", &["width", "height", "at-distance", "memory-budget"]),
    (
        "evolve",
        &[
            "eps-max",
            "dim",
            "owners",
            "seed",
            "threads",
            "batch",
            "memory-budget",
            "granularity",
            "levels-per-doubling",
        ],
    ),
    ("answers", &["memory-budget"]),
];

/// Options that take a value that is not a number (paths, specs, names).
const NOT_NUMERIC: &[&str] = &[
    "graph",
    // yes | no | auto
    "header",
    // graph views: `ID[:R]` (driven with numbers under `subgraph`) and a file
    "ego",
    "subgraph",
    "nodes",
    "distance",
    "eps",
    "unreachable",
    "norm",
    "mechanism",
    "values",
    "post",
    "config",
    "out",
    "coalition",
    "estimators",
    "set",
    "x",
    "metric",
    "only",
    "calibration",
    "state",
    "input",
    "kind",
    "owner",
    "owners",
    "recipient",
    "events",
    "store",
    "noise",
    "rng",
    // gossip's scheme: accelerated | simple
    "gossip",
    // `--features distributed` only (tests/cluster/ drives them: a peer
    // needs its partners, so they are not driven alone here)
    "cluster",
    "process",
    "workers",
    "cluster-timeout",
];

/// Sweep keys that take numbers, driven through `sweep --set KEY=V` (the
/// sweep parses its own values, not clap).
const SWEEP_KEYS: [&str; 5] = ["approx-k", "bins", "dim", "trials", "sensitivity"];

fn bin() -> &'static str {
    env!("CARGO_BIN_EXE_privdiffuse")
}

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

/// The options taking a value that `cmd --help` lists.
fn value_options(cmd: &str) -> Vec<String> {
    let o = Command::new(bin())
        .args(cmd.split(' '))
        .arg("--help")
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    assert!(o.status.success(), "{cmd} --help");
    let text = String::from_utf8(o.stdout).unwrap();
    let mut out = Vec::new();
    for line in text.lines() {
        let t = line.trim_start();
        let t = t
            .strip_prefix('-')
            .filter(|r| r.len() > 2 && r.as_bytes()[1] == b',')
            .map_or(t, |r| r[2..].trim_start());
        let Some(rest) = t.strip_prefix("--") else {
            continue;
        };
        let mut parts = rest.splitn(2, ' ');
        let name = parts.next().unwrap();
        if parts.next().is_some_and(|v| v.starts_with('<')) {
            out.push(name.to_string());
        }
    }
    out
}

fn numeric(cmd: &str) -> &'static [&'static str] {
    NUMERIC
        .iter()
        .find(|(c, _)| *c == cmd)
        .map_or(&[], |(_, o)| o)
}

#[test]
fn every_option_is_classified() {
    let top = Command::new(bin()).arg("--help").output().unwrap();
    let text = String::from_utf8(top.stdout).unwrap();
    let listed: Vec<&str> = text
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| l.starts_with("  "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|c| *c != "help")
        .collect();
    for c in &listed {
        assert!(
            COMMANDS.iter().any(|k| k.split(' ').next() == Some(*c)),
            "command `{c}` is not in COMMANDS: add it and its numeric options"
        );
    }
    let mut unknown = Vec::new();
    for cmd in COMMANDS {
        let opts = value_options(cmd);
        assert!(!opts.is_empty(), "no options parsed from `{cmd} --help`");
        for o in &opts {
            if !numeric(cmd).contains(&o.as_str()) && !NOT_NUMERIC.contains(&o.as_str()) {
                unknown.push(format!("{cmd} --{o}"));
            }
        }
        for o in numeric(cmd) {
            assert!(
                opts.iter().any(|x| x == o),
                "`{cmd} --{o}` is listed as numeric but `--help` has no such option"
            );
        }
    }
    assert!(
        unknown.is_empty(),
        "options neither in NUMERIC nor in NOT_NUMERIC: {unknown:?}"
    );
}

/// The arguments of a small run of `cmd` writing into `dir` (karate graph,
/// no plots, quiet, few trials), with `--OPT VALUE` set; `None` for the
/// sweep keys case.
fn base(cmd: &str, opt: &str, dir: &Path) -> (Vec<String>, PathBuf) {
    let karate = repo("data/karate.edges");
    let s = |v: &[&str]| v.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let out_dir = dir.join("out");
    let out_file = |ext: &str| dir.join(format!("out.{ext}"));
    let (mut args, out) = match cmd {
        "simulate" => (
            s(&[
                "simulate",
                "--graph",
                &karate,
                "--no-plots",
                "-q",
                "--owners",
                "3",
            ]),
            out_dir,
        ),
        "utility" => (
            s(&[
                "utility",
                "--graph",
                &karate,
                "--no-plots",
                "-q",
                "--owners",
                "3",
            ]),
            out_dir,
        ),
        "gossip" => {
            let mut a = s(&[
                "gossip",
                "--graph",
                &karate,
                "--no-plots",
                "-q",
                "--owners",
                "3",
                "--steps",
                "4",
            ]);
            // The option driven is not given twice.
            if opt == "steps" {
                a.truncate(a.len() - 2);
            }
            if opt != "sigma" {
                a.extend(s(&["--sigma", "1"]));
            }
            (a, out_dir)
        }
        "relay" => (
            s(&[
                "relay",
                "--graph",
                &karate,
                "--no-plots",
                "-q",
                "--owners",
                "3",
            ]),
            out_dir,
        ),
        "subgraph" => (
            // `--ego` is the option under test, or the view to write.
            if opt == "ego" {
                s(&["subgraph", "--graph", &karate])
            } else {
                s(&["subgraph", "--graph", &karate, "--ego", "0"])
            },
            out_file("edges"),
        ),
        "collude" => (
            s(&[
                "collude",
                "--graph",
                &karate,
                "--no-plots",
                "-q",
                "--owners",
                "2",
                "--trials",
                "10",
                "--coalition",
                "nearest:m=3",
            ]),
            out_dir,
        ),
        "sweep" => (
            s(&[
                "sweep",
                "-q",
                "--set",
                &format!("graph={karate}"),
                "--set",
                "owners=2",
                "--set",
                "trials=10",
                "--set",
                "dim=1,2",
            ]),
            out_file("csv"),
        ),
        "path" => (
            s(&[
                "path",
                "--dim",
                "1",
                "--norm",
                "l1",
                "--eps-lo",
                "0.1",
                "--eps-hi",
                "10",
                "--samples",
                "2",
            ]),
            out_file("csv"),
        ),
        "relax" => (s(&["relax", "--value", "1", "--eps", "1"]), out_file("csv")),
        "distances" => (
            s(&["distances", "--graph", &karate, "--owner", "0"]),
            out_file("csv"),
        ),
        "generate geometric" => (
            s(&["generate", "geometric", "--n", "30", "--edges", "40"]),
            out_file("edges"),
        ),
        "generate er" => (
            s(&["generate", "er", "--n", "30", "--m", "40"]),
            out_file("edges"),
        ),
        "generate ba" => (
            s(&["generate", "ba", "--n", "30", "--m", "2"]),
            out_file("edges"),
        ),
        "generate ws" => (
            s(&["generate", "ws", "--n", "30", "--k", "4", "--p", "0.1"]),
            out_file("edges"),
        ),
        "info" => (s(&["info", "--graph", &karate]), dir.join("none")),
        "plot" => (
            s(&[
                "plot",
                "--input",
                &repo("results/geometric150"),
                "--kind",
                "error",
            ]),
            out_file("svg"),
        ),
        "evolve" => {
            let events = dir.join("events.csv");
            std::fs::write(&events, "time,u,v,op\n1,0,9,add\n2,0,9,remove\n").unwrap();
            (
                s(&[
                    "evolve",
                    "--graph",
                    &karate,
                    "--events",
                    &events.display().to_string(),
                    "--store",
                    &dir.join("s.db").display().to_string(),
                    "--no-plots",
                    "-q",
                    "--owners",
                    "2",
                    "--batch",
                    "1",
                ]),
                out_dir,
            )
        }
        // No store: every run fails, on its argument or on the missing file.
        "answers" => (
            s(&[
                "answers",
                "--store",
                &dir.join("none.db").display().to_string(),
            ]),
            out_file("csv"),
        ),
        _ => panic!("no base command line for `{cmd}`"),
    };
    // The option's neighbours that make it matter.
    match (cmd, opt) {
        ("simulate" | "collude" | "distances", "approx-k") => {
            args.extend(s(&["--distance", "resistance-approx"]))
        }
        ("distances", "approx-tol") => args.extend(s(&["--distance", "resistance-approx"])),
        ("simulate" | "collude" | "distances", "resistance-cap")
        | ("simulate" | "collude", "bins") => args.extend(s(&["--distance", "resistance"])),
        ("relay", "bins") => args.extend(s(&["--distance", "weighted"])),
        ("simulate" | "collude" | "relax", "delta") => {
            args.extend(s(&["--mechanism", "gaussian", "--norm", "l2"]))
        }
        // The discrete chain's options matter under --noise discrete.
        ("relax", "granularity" | "levels-per-doubling" | "eps-max") => {
            args.extend(s(&["--noise", "discrete"]))
        }
        ("sweep", "at-distance") => args.extend(s(&["--plots", "--x", "dim", "--metric", "mse"])),
        _ => {}
    }
    if cmd != "info" {
        args.extend(s(&["--out", &out.display().to_string()]));
    }
    (args, out)
}

/// What a run did wrong, if anything.
fn check_run(
    label: &str,
    args: &[String],
    dir: &Path,
    out: &Path,
    limit: Duration,
) -> Option<String> {
    let t = Instant::now();
    let mut child = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let mut stderr = child.stderr.take().unwrap();
    let reader = std::thread::spawn(move || {
        let mut s = Vec::new();
        let _ = std::io::Read::read_to_end(&mut stderr, &mut s);
        s
    });
    let status = loop {
        if let Some(s) = child.try_wait().unwrap() {
            break s;
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            return Some(format!("{label}: still running after {limit:?}"));
        }
        std::thread::sleep(Duration::from_millis(5));
    };
    let err = String::from_utf8_lossy(&reader.join().unwrap()).into_owned();
    let code = status.code();
    let mut bad = Vec::new();
    if !matches!(code, Some(0..=2)) {
        bad.push(format!("exit {code:?}"));
    }
    if code != Some(0) && err.lines().count() > 1 {
        bad.push(format!("{} lines on stderr", err.lines().count()));
    }
    // A sweep whose figure fails after its CSV is complete says so and
    // keeps the CSV (the figure's filters cannot be checked before the rows
    // exist).
    if code != Some(0) && out.exists() && !err.contains("the sweep itself is complete") {
        bad.push(format!("left {}", out.display()));
    }
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).into_iter().flatten().flatten() {
            let name = e.file_name().to_string_lossy().into_owned();
            if name.contains(".tmp") {
                bad.push(format!("left {}", e.path().display()));
            }
            if e.path().is_dir() {
                stack.push(e.path());
            }
        }
    }
    (!bad.is_empty()).then(|| format!("{label}: {} — stderr: {}", bad.join(", "), err.trim_end()))
}

/// Runs `jobs` on two threads; returns every failure.
fn run_all(jobs: Vec<(String, Vec<String>, PathBuf, PathBuf)>, limit: Duration) -> Vec<String> {
    let queue = Mutex::new(jobs);
    let failures = Mutex::new(Vec::new());
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| {
                loop {
                    let Some((label, args, dir, out)) = queue.lock().unwrap().pop() else {
                        break;
                    };
                    if let Some(f) = check_run(&label, &args, &dir, &out, limit) {
                        failures.lock().unwrap().push(f);
                    }
                    let _ = std::fs::remove_dir_all(&dir);
                }
            });
        }
    });
    failures.into_inner().unwrap()
}

/// The time bound of one run: generous in debug builds on a shared machine.
const LIMIT: Duration = Duration::from_secs(30);

#[test]
fn every_numeric_option_with_extreme_values() {
    let root = scratch("extremes");
    let mut jobs = Vec::new();
    for (cmd, opts) in NUMERIC {
        for opt in *opts {
            for (vi, v) in VALUES.iter().enumerate() {
                let dir = root.join(format!("{}-{opt}-{vi}", cmd.replace(' ', "-")));
                std::fs::create_dir_all(&dir).unwrap();
                let (mut args, out) = base(cmd, opt, &dir);
                // `--opt=-1` so that clap does not read -1 as a flag.
                args.push(format!("--{opt}={v}"));
                jobs.push((format!("{cmd} --{opt}={v}"), args, dir, out));
            }
        }
    }
    for key in SWEEP_KEYS {
        for (vi, v) in VALUES.iter().enumerate() {
            let dir = root.join(format!("sweep-set-{key}-{vi}"));
            std::fs::create_dir_all(&dir).unwrap();
            let (mut args, out) = base("sweep", "", &dir);
            args.extend(["--set".to_string(), format!("{key}={v}")]);
            if key == "approx-k" {
                args.extend([
                    "--set".to_string(),
                    "distance=resistance-approx".to_string(),
                ]);
            } else if key == "bins" {
                args.extend(["--set".to_string(), "distance=resistance".to_string()]);
            }
            jobs.push((format!("sweep --set {key}={v}"), args, dir, out));
        }
    }
    let n = jobs.len();
    let t = Instant::now();
    let failures = run_all(jobs, LIMIT);
    let _ = std::fs::remove_dir_all(&root);
    assert!(
        failures.is_empty(),
        "{} of {n} runs failed ({:?}):\n{}",
        failures.len(),
        t.elapsed(),
        failures.join("\n")
    );
}

/// Runs the program in `dir`; returns (exit code, stderr).
fn run(dir: &Path, args: &[&str]) -> (Option<i32>, String) {
    let o = Command::new(bin())
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .unwrap();
    (
        o.status.code(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// `relax --trials 2⁶³` wrote rows forever (into a staging file that grew
/// until the disk was full); it is refused with collude's cap.
#[test]
fn relax_trials_beyond_the_cap_are_refused() {
    let d = scratch("relax-trials");
    std::fs::create_dir_all(&d).unwrap();
    let t = Instant::now();
    let (code, err) = run(
        &d,
        &[
            "relax",
            "--value",
            "1",
            "--eps",
            "1",
            "--trials",
            "9223372036854775808",
            "--out",
            "r.csv",
        ],
    );
    assert_eq!(code, Some(2), "{err}");
    assert!(
        err.contains("--trials") && err.contains("2147483647"),
        "{err}"
    );
    assert!(t.elapsed() < Duration::from_secs(10));
    assert!(!d.join("r.csv").exists());
    let _ = std::fs::remove_dir_all(&d);
}

/// `sweep --at-distance NaN` (or −1, inf) ran every point and failed only
/// when drawing; it is refused before the sweep runs, leaving nothing. A
/// finite distance that no bucket holds still fails after the sweep, and the
/// message says the CSV is complete.
#[test]
fn sweep_at_distance_is_checked_before_the_sweep() {
    let d = scratch("sweep-at");
    std::fs::create_dir_all(&d).unwrap();
    let karate = format!("graph={}", repo("data/karate.edges"));
    let args = |at: &'static str| {
        vec![
            "sweep",
            "-q",
            "--set",
            &karate,
            "--set",
            "owners=2",
            "--set",
            "dim=1,2",
            "--plots",
            "--x",
            "dim",
            "--metric",
            "mse",
            "--at-distance",
            at,
            "--out",
            "s.csv",
        ]
        .into_iter()
        .map(String::from)
        .collect::<Vec<_>>()
    };
    for at in ["NaN", "-1", "inf"] {
        let a = args(at);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let (code, err) = run(&d, &a);
        assert_eq!(code, Some(2), "{at}: {err}");
        assert!(err.contains("--at-distance"), "{err}");
        assert_eq!(err.lines().count(), 1, "{err}");
        assert!(!d.join("s.csv").exists(), "{at}: the sweep ran");
    }
    let a = args("1e300");
    let a: Vec<&str> = a.iter().map(String::as_str).collect();
    let (code, err) = run(&d, &a);
    assert_eq!(code, Some(1), "{err}");
    assert!(err.contains("the sweep itself is complete"), "{err}");
    assert!(d.join("s.csv").exists());
    let _ = std::fs::remove_dir_all(&d);
}
