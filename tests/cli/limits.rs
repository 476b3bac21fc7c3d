//! Bounds from one place (`privdiffuse::limits`), through the binary: every
//! size a user controls is refused before anything is allocated when it needs
//! more than the memory budget — exit 2, one line naming the flag, the value,
//! the estimate and the budget, and nothing left behind — and `--threads` is
//! capped before any pool is built. The runs pass a small `--memory-budget`
//! so that they do not depend on the test machine's memory; the refusals
//! they check are all far above any machine's.

use crate::support::scratch::scratch;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .display()
        .to_string()
}

/// Runs `args` (repository root as working directory) and checks it took
/// less than `secs`.
fn run_within(args: &[&str], secs: u64) -> Output {
    let t = Instant::now();
    let o = bin()
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args(args)
        .output()
        .unwrap();
    assert!(
        t.elapsed() < Duration::from_secs(secs),
        "{args:?} took {:?}",
        t.elapsed()
    );
    o
}

/// Asserts a budget refusal: exit 2, one stderr line naming `flag` and
/// `value`, with an estimate and the budget, nothing on stdout.
fn refused(o: &Output, flag: &str, value: &str) -> String {
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with(&format!("error: {flag} = {value}")),
        "expected '{flag} = {value}': {e}"
    );
    assert!(
        e.contains("needs about") && e.contains("over the budget of"),
        "{e}"
    );
    assert!(o.stdout.is_empty());
    e
}

/// Nothing in `dir` (no output, no staging directory or file).
fn empty(dir: &Path) {
    let left: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    assert!(left.is_empty(), "left behind: {left:?}");
}

const MAX: &str = "18446744073709551615";

#[test]
fn threads_are_capped_before_any_pool_is_built() {
    // Before: 10000 took > 50 s spawning threads; 2147483648 failed after 13 s.
    let d = scratch("threads");
    let out = d.join("run").display().to_string();
    for t in ["10000", "2147483648", "0"] {
        for cmd in [
            vec!["simulate", "--no-plots", "-q", "--out", out.as_str()],
            vec![
                "collude",
                "--coalition",
                "far:min-d=2",
                "--no-plots",
                "-q",
                "--out",
                out.as_str(),
            ],
            vec!["sweep", "--set", "dim=1", "-q", "--out", out.as_str()],
        ] {
            let mut args = cmd.clone();
            args.extend(["--threads", t]);
            let o = run_within(&args, 10);
            let e = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(2), "{args:?}: {e}");
            assert!(
                e.starts_with(&format!("error: invalid --threads '{t}': expected 1 to "))
                    && e.contains("per core")
                    && e.lines().count() == 1,
                "{e}"
            );
        }
    }
    empty(&d);
}

#[test]
fn bins_of_continuous_distances_are_refused_above_the_budget() {
    // Before: 2^64 − 1 aborted (a 1 GB allocation under ulimit), 2^32 aborted
    // leaving `.out.tmp-PID/`, 1e9 with resistance asked for 25.6 GB.
    let d = scratch("bins");
    let out = d.join("run").display().to_string();
    for (bins, dist) in [
        (MAX, "resistance"),
        ("4294967296", "resistance"),
        ("1000000000", "resistance"),
        ("4294967296", "weighted"),
    ] {
        let o = run_within(
            &[
                "simulate",
                "--distance",
                dist,
                "--bins",
                bins,
                "--memory-budget",
                "1G",
                "--no-plots",
                "-q",
                "--out",
                &out,
            ],
            10,
        );
        let e = refused(&o, "--bins", bins);
        assert!(
            e.contains("budget of 1.0 GiB (set by --memory-budget)"),
            "{e}"
        );
    }
    empty(&d);
    // Hop distances have no bins: the flag is refused in one line (it was
    // accepted and ignored).
    let o = run_within(
        &[
            "simulate",
            "--bins",
            "4294967296",
            "--memory-budget",
            "1G",
            "--no-plots",
            "-q",
            "--out",
            &out,
        ],
        60,
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--bins") && e.contains("does not use it"), "{e}");
    empty(&d);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn approx_k_is_refused_above_the_budget_from_every_door() {
    // Before: 2^64 − 1 panicked (capacity overflow), 5e7 aborted (6.4 GB).
    let d = scratch("approxk");
    let karate = repo("data/karate.edges");
    for k in [MAX, "50000000"] {
        let o = run_within(
            &[
                "distances",
                "--graph",
                &karate,
                "--distance",
                "resistance-approx",
                "--owner",
                "0",
                "--approx-k",
                k,
                "--memory-budget",
                "1G",
            ],
            10,
        );
        refused(&o, "--approx-k", k);
        // A sweep names its key.
        let csv = d.join("s.csv").display().to_string();
        let o = run_within(
            &[
                "sweep",
                "--set",
                &format!("approx-k={k}"),
                "--set",
                "distance=resistance-approx",
                "--set",
                &format!("graph={karate}"),
                "--set",
                "owners=2",
                "--memory-budget",
                "1G",
                "-q",
                "--out",
                &csv,
            ],
            10,
        );
        refused(&o, "approx_k", k);
    }
    // A tampered summary.json given to --config.
    let run = d.join("run");
    let o = run_within(
        &[
            "simulate",
            "--graph",
            &karate,
            "--distance",
            "resistance-approx",
            "--approx-k",
            "16",
            "--owners",
            "3",
            "--no-plots",
            "-q",
            "--out",
            run.to_str().unwrap(),
        ],
        60,
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = fs::read_to_string(run.join("summary.json")).unwrap();
    assert!(text.contains("\"approx_k\": 16"), "{text}");
    let tampered = d.join("tampered.json");
    fs::write(
        &tampered,
        text.replace("\"approx_k\": 16", "\"approx_k\": 50000000"),
    )
    .unwrap();
    fs::remove_dir_all(&run).unwrap();
    let o = run_within(
        &[
            "simulate",
            "--config",
            tampered.to_str().unwrap(),
            "--memory-budget",
            "1G",
            "--no-plots",
            "-q",
            "--out",
            run.to_str().unwrap(),
        ],
        10,
    );
    refused(&o, "--approx-k", "50000000");
    assert!(!run.exists());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn exact_resistance_is_refused_when_its_matrices_exceed_the_budget() {
    // karate: one 34-node component, 8·34² + 16·34² bytes = 27 KiB.
    let o = run_within(
        &[
            "distances",
            "--graph",
            &repo("data/karate.edges"),
            "--distance",
            "resistance",
            "--owner",
            "0",
            "--memory-budget",
            "20k",
        ],
        10,
    );
    let e = refused(&o, "--distance", "resistance (largest component: 34 nodes)");
    assert!(e.contains("use --distance resistance-approx"), "{e}");
}

#[test]
fn coalition_sizes_and_trials_are_refused_above_the_budget() {
    // Before: sybil m = 2^64 − 1 panicked, m = 1e8 aborted (1.6 GB at once).
    let d = scratch("sybil");
    let out = d.join("run").display().to_string();
    for spec in [
        format!("sybil:m={MAX},d=2"),
        "sybil:m=100000000,d=3".to_string(),
    ] {
        let o = run_within(
            &[
                "collude",
                "--coalition",
                &spec,
                "--trials",
                "10",
                "--memory-budget",
                "1G",
                "--no-plots",
                "-q",
                "--out",
                &out,
            ],
            10,
        );
        refused(&o, "--coalition", &spec);
    }
    // 2^31 − 1 trials keep 48 bytes each per worker.
    let o = run_within(
        &[
            "collude",
            "--coalition",
            "far:min-d=2",
            "--trials",
            "2147483647",
            "--memory-budget",
            "1G",
            "--no-plots",
            "-q",
            "--out",
            &out,
        ],
        10,
    );
    refused(&o, "--trials", "2147483647");
    // A coalition the distances decide is checked once selected: every node
    // of the bundled graph, with a budget too small for 149 members.
    let o = run_within(
        &[
            "collude",
            "--coalition",
            "far:min-d=0",
            "--trials",
            "10",
            "--owners",
            "2",
            "--memory-budget",
            "60k",
            "--no-plots",
            "-q",
            "--out",
            &out,
        ],
        10,
    );
    refused(&o, "--coalition", "far:min-d=0 (149 members)");
    empty(&d);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn generators_are_refused_above_the_budget() {
    let d = scratch("generate");
    let out = d.join("g.edges").display().to_string();
    for (args, flag, value) in [
        (
            vec!["er", "--n", "1000000000", "--m", "10"],
            "n",
            "1000000000",
        ),
        (
            vec!["ba", "--n", "100000000", "--m", "40"],
            "m",
            "40 (about 3999999180 edges on 100000000 nodes)",
        ),
        (
            vec!["geometric", "--n", "100000", "--edges", "2000000000"],
            "edges",
            "2000000000 (about 2000000000 edges on 100000 nodes)",
        ),
        (
            vec!["geometric", "--n", "100000", "--radius", "0.5"],
            "radius",
            "0.5",
        ),
        (
            vec!["ws", "--n", "100000000", "--k", "40", "--p", "0.1"],
            "k",
            "40 (about 2000000000 edges on 100000000 nodes)",
        ),
    ] {
        let mut a = vec!["generate"];
        a.extend(args);
        a.extend(["--memory-budget", "1G", "--out", &out]);
        let o = run_within(&a, 10);
        refused(&o, &format!("--{flag}"), value);
    }
    empty(&d);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn path_samples_sweep_grids_and_figures_are_refused_above_the_budget() {
    let d = scratch("misc");
    // ℓ2 paths in 1000 dimensions over [0.5, 15]: ~3,400 breakpoints of
    // 8 KB each, and 32 chunks of their CSV text in flight.
    let o = run_within(
        &[
            "path",
            "--dim",
            "1000",
            "--norm",
            "l2",
            "--eps-lo",
            "0.5",
            "--eps-hi",
            "15",
            "--memory-budget",
            "100M",
        ],
        10,
    );
    refused(&o, "--dim", "1000 (paths from ε = 0.5 to 15)");
    // A million points held before the first one runs.
    let csv = d.join("s.csv").display().to_string();
    let o = run_within(
        &[
            "sweep",
            "--set",
            "seed=1..100000",
            "--set",
            "dim=1..10",
            "--memory-budget",
            "100M",
            "-q",
            "--out",
            &csv,
        ],
        30,
    );
    refused(&o, "sweep grid", "1000000 points");
    // A 10,000² canvas is 600 MB with the encoder's copy.
    let run = d.join("run");
    let o = run_within(
        &[
            "simulate",
            "--owners",
            "3",
            "--no-plots",
            "-q",
            "--out",
            run.to_str().unwrap(),
        ],
        60,
    );
    assert!(o.status.success());
    let png = d.join("e.png").display().to_string();
    let o = run_within(
        &[
            "plot",
            "--input",
            run.to_str().unwrap(),
            "--kind",
            "error",
            "--width",
            "10000",
            "--height",
            "10000",
            "--memory-budget",
            "100M",
            "--out",
            &png,
        ],
        10,
    );
    refused(&o, "--width", "10000 (× height 10000)");
    assert!(!Path::new(&png).exists());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn memory_budget_flag_parses_sizes_and_names_itself() {
    // The simulated path of the default run, with a budget of 100 KiB (the graph fits, ≈ 40 KiB; the path with its jump rows in flight does not, ≈ 1 MiB): refused
    // at the first owner (the budget is the one a user set).
    let d = scratch("budget");
    let out = d.join("run").display().to_string();
    let o = run_within(
        &[
            "simulate",
            "--memory-budget",
            "100k",
            "--no-plots",
            "-q",
            "--out",
            &out,
        ],
        60,
    );
    let e = refused(&o, "--dim", "2 (a path over ε from ");
    assert!(
        e.contains("(set by --memory-budget); lower it, or raise --memory-budget"),
        "{e}"
    );
    empty(&d);
    for bad in ["x", "0", "-1", "1e400", "5Q"] {
        let flag = format!("--memory-budget={bad}");
        let o = run_within(&["info", "--graph", "x", &flag], 10);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{e}");
        assert_eq!(
            e.trim_end(),
            format!(
                "error: invalid --memory-budget '{bad}': expected a size in bytes, e.g. 1500000000, 800M, 1.5G"
            )
        );
    }
    // Every command takes it; a generous one changes nothing.
    let o = run_within(
        &[
            "info",
            "--graph",
            &repo("data/karate.edges"),
            "--memory-budget",
            "2G",
        ],
        10,
    );
    assert!(o.status.success());
    fs::remove_dir_all(&d).unwrap();
}

/// Memory the estimates did not foresee (here forced: an explicit budget far
/// above what `ulimit -v` leaves) ends the run with one error line and exit
/// 1, not an allocation abort (exit 134), and leaves neither the claimed
/// output nor its staging behind.
#[test]
fn running_out_of_memory_is_an_error_line_not_an_abort() {
    let d = scratch("oom");
    let out = d.join("run");
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!(
            "ulimit -v 80000 && exec '{}' simulate --graph '{}' --distance weighted \
             --bins 10000000 --threads 1 --memory-budget 100G --no-plots -q --out '{}'",
            env!("CARGO_BIN_EXE_privdiffuse"),
            repo("data/geometric150.edges"),
            out.display()
        ))
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("error: out of memory: allocating ")
            && e.contains("under the address-space limit of 80000 KiB (ulimit -v)"),
        "{e}"
    );
    empty(&d);
}

/// `replicates` has one cap for every command that repeats a run: simulate
/// had none (10⁸ replicates of karate took 24 GB before the kernel killed
/// it), utility and gossip refused above 100,000.
#[test]
fn replicates_have_one_cap_in_every_command() {
    let dir = scratch("replicates-cap");
    let out = dir.join("o");
    let o = out.to_str().unwrap();
    for cmd in [
        vec!["simulate", "--graph", "data/karate.edges"],
        vec!["utility", "--graph", "data/karate.edges"],
        vec!["gossip", "--graph", "data/karate.edges", "--sigma", "1"],
    ] {
        let mut args = cmd.clone();
        args.extend(["--replicates", "100000001", "--out", o, "-q"]);
        let r = run_within(&args, 10);
        let e = String::from_utf8_lossy(&r.stderr);
        assert_eq!(r.status.code(), Some(2), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.contains("--replicates '100000001'") && e.contains("100000"),
            "{args:?}: {e}"
        );
        empty(&dir);
    }
    // Replicate r exists only below the cap: it is the one a longer run has.
    for (r, ok) in [("99999", true), ("100000", false), ("4000000000", false)] {
        let args = [
            "simulate",
            "--graph",
            "data/karate.edges",
            "--replicate",
            r,
            "--out",
            o,
            "-q",
            "--no-plots",
        ];
        let run = run_within(&args, 10);
        let e = String::from_utf8_lossy(&run.stderr);
        assert_eq!(run.status.success(), ok, "{r}: {e}");
        if ok {
            fs::remove_dir_all(&out).unwrap();
        } else {
            assert_eq!(run.status.code(), Some(2), "{e}");
            assert!(e.contains(&format!("--replicate '{r}'")), "{e}");
        }
        empty(&dir);
    }
    fs::remove_dir_all(&dir).unwrap();
}
