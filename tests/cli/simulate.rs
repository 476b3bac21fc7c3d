//! `privdiffuse simulate` through the binary: files, determinism across thread
//! counts, `--config` re-runs, refusal to overwrite, no partial outputs.

use crate::support::scratch::scratch;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn simulate(args: &[&str]) -> Output {
    bin().arg("simulate").args(args).output().unwrap()
}

/// Every file of a run directory except timings.json, by name.
fn data_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "timings.json")
        .filter(|p| p.extension().is_some_and(|e| e == "csv" || e == "json"))
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn default_experiment_writes_every_file_identically_for_1_and_2_threads() {
    let d = scratch("threads");
    let (a, b) = (d.join("a"), d.join("b"));
    for (out, t) in [(&a, "1"), (&b, "2")] {
        let o = simulate(&[
            "--out",
            out.to_str().unwrap(),
            "--threads",
            t,
            "--no-plots",
            "-q",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    let fa = data_files(&a);
    let names: Vec<_> = fa.iter().map(|f| f.0.as_str()).collect();
    for f in [
        "by_distance.csv",
        "ego.csv",
        "jumps.csv",
        "owners.csv",
        "paths.csv",
        "summary.json",
    ] {
        assert!(names.contains(&f), "{f} missing: {names:?}");
    }
    assert!(a.join("timings.json").exists());
    assert_eq!(fa, data_files(&b));
    let head = fs::read_to_string(a.join("by_distance.csv")).unwrap();
    assert!(
        head.starts_with(
            "mechanism,distance_lo,distance_hi,count,mean_eps,mse,mse_se,mse_theory\n"
        )
    );
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn config_from_summary_reproduces_the_run() {
    let d = scratch("config");
    let a = d.join("a");
    let o = simulate(&[
        "--out",
        a.to_str().unwrap(),
        "--eps",
        "exp:a=3,b=0.7",
        "--dim",
        "1",
        "--norm",
        "l1",
        "--owners",
        "40",
        "--seed",
        "5",
        "--no-plots",
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let b = d.join("b");
    let o = simulate(&[
        "--config",
        a.join("summary.json").to_str().unwrap(),
        "--out",
        b.to_str().unwrap(),
        "--no-plots",
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert_eq!(data_files(&a), data_files(&b));
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn refuses_non_empty_out_without_force() {
    let d = scratch("force");
    fs::write(d.join("keep.txt"), "x").unwrap();
    let o = simulate(&["--out", d.to_str().unwrap(), "--no-plots", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains(&format!("{} already exists", d.display())) && err.contains("--force"),
        "{err}"
    );
    assert!(d.join("keep.txt").exists());
    let o = simulate(&["--out", d.to_str().unwrap(), "--force", "--no-plots", "-q"]);
    assert!(o.status.success());
    assert!(!d.join("keep.txt").exists());
    assert!(d.join("summary.json").exists());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn failing_run_leaves_no_partial_directory() {
    let d = scratch("fail");
    let out = d.join("run");
    // ε(1) = e^799 overflows: the run fails after the staging directory exists.
    let o = simulate(&[
        "--out",
        out.to_str().unwrap(),
        "--eps",
        "exp:a=800,b=1",
        "--no-plots",
        "-q",
    ]);
    assert!(!o.status.success());
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.starts_with("error:") && err.contains("--eps-max"),
        "{err}"
    );
    assert!(!err.contains("panicked"));
    assert_eq!(
        fs::read_dir(&d).unwrap().count(),
        0,
        "leftovers in {}",
        d.display()
    );
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn bad_arguments_are_usage_errors() {
    for args in [
        &["--eps", "exp:a=1"][..],
        &["--dim", "0"],
        &["--norm", "l3"],
        &["--mechanism", "magic"],
        &["--owners", "0"],
        &["--values", "uniform:2,1"],
        &["--post", "floor"],
        &["--unreachable", "floor"],
    ] {
        let d = scratch("bad");
        let mut a: Vec<&str> = args.to_vec();
        let out = d.join("o");
        a.extend(["--out", out.to_str().unwrap(), "--no-plots", "-q"]);
        let o = simulate(&a);
        assert_eq!(
            o.status.code(),
            Some(2),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!err.contains("panicked"), "{err}");
        assert!(!out.exists());
        fs::remove_dir_all(&d).unwrap();
    }
}

#[test]
fn missing_graph_is_a_runtime_error_naming_the_file() {
    let o = simulate(&["--graph", "no/such/file.edges", "--no-plots", "-q"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&o.stderr).contains("no/such/file.edges"));
}

#[test]
fn gaussian_paths_csv_holds_the_answered_values() {
    let d = scratch("gauss");
    let out = d.join("g");
    let o = simulate(&[
        "--graph",
        "data/karate.edges",
        "--mechanism",
        "gaussian",
        "--dim",
        "1",
        "--values",
        "const:0",
        "--eps",
        "exp:a=2,b=0.5",
        "--responses",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // paths.csv: owner,replicate,eps,v1 — one row per level answered, ascending.
    let paths = fs::read_to_string(out.join("paths.csv")).unwrap();
    let mut by_level = std::collections::HashMap::new();
    let mut last: Option<(String, f64)> = None;
    for l in paths.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        let eps: f64 = f[2].parse().unwrap();
        if let Some((o, e)) = &last
            && o == f[0]
        {
            assert!(eps > *e, "ascending levels: {l}");
        }
        last = Some((f[0].to_string(), eps));
        by_level.insert((f[0].to_string(), f[2].to_string()), f[3].to_string());
    }
    assert!(!by_level.is_empty());
    // With u = 0, every answer of a recorded owner is its path value at its ε.
    let resp = fs::read_to_string(out.join("responses.csv")).unwrap();
    let mut checked = 0;
    for l in resp.lines().skip(1) {
        // owner,replicate,recipient,distance,eps,mechanism,u1,raw1,y1
        let f: Vec<&str> = l.split(',').collect();
        if let Some(v) = by_level.get(&(f[0].to_string(), f[4].to_string())) {
            assert_eq!(v, f[8], "{l}");
            checked += 1;
        }
    }
    assert!(checked >= 4 * 20, "{checked} answers checked");
    // No jump or sample-path figure for a process without jumps.
    assert!(!out.join("path.png").exists() && !out.join("jumps.png").exists());
    assert!(out.join("error.png").exists());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn owners_zero_points_at_owner_and_owner_runs_one_id() {
    let o = simulate(&["--owners", "0", "--no-plots", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("--owner 0"), "{err}");
    let d = scratch("owner");
    let out = d.join("o");
    let o = simulate(&[
        "--graph",
        "data/karate.edges",
        "--owner",
        "0",
        "--owner",
        "33",
        "--ego-owners",
        "33",
        "--out",
        out.to_str().unwrap(),
        "--no-plots",
        "-q",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let owners = fs::read_to_string(out.join("owners.csv")).unwrap();
    let ids: Vec<&str> = owners
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap())
        .collect();
    assert_eq!(ids, ["0", "33"]);
    let ego = fs::read_to_string(out.join("ego.csv")).unwrap();
    assert!(
        ego.starts_with(
            "owner,replicate,recipient,distance,eps,error_norm,u1,u2,raw1,raw2,y1,y2\n"
        )
    );
    assert!(ego.lines().skip(1).all(|l| l.starts_with("33,0,")));
    // --owner and --owners together are a usage error; so is an ego owner
    // that is not an owner, named by its flag.
    let o = simulate(&["--owner", "0", "--owners", "3", "--no-plots", "-q"]);
    assert_eq!(o.status.code(), Some(2));
    let o = simulate(&[
        "--graph",
        "data/karate.edges",
        "--owner",
        "0",
        "--ego-owners",
        "5",
        "--out",
        d.join("p").to_str().unwrap(),
        "--no-plots",
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("--ego-owners"));
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn replicates_are_identical_for_1_and_2_threads() {
    let d = scratch("replicates");
    let (a, b) = (d.join("a"), d.join("b"));
    for (out, t) in [(&a, "1"), (&b, "2")] {
        let o = simulate(&[
            "--owners",
            "70",
            "--replicates",
            "3",
            "--responses",
            "--out",
            out.to_str().unwrap(),
            "--threads",
            t,
            "--no-plots",
            "-q",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
    assert_eq!(data_files(&a), data_files(&b));
    let summary = fs::read_to_string(a.join("summary.json")).unwrap();
    assert!(summary.contains("\"replicates\": 3"), "{summary}");
    fs::remove_dir_all(&d).unwrap();
}

/// Values near ±1e300 were accepted, and their answers were the values
/// themselves (the noise at ε = 15 is lost to rounding): they are refused
/// now, naming the owner and never the value, before anything is written.
/// (Cells an axis cannot place are skipped by the figures: tests/cli/finite.rs.)
#[test]
fn values_the_noise_cannot_hide_are_refused_before_anything_is_written() {
    let d = scratch("huge-values");
    let out = d.join("o");
    let o = simulate(&[
        "--graph",
        "data/karate.edges",
        "--values",
        "uniform:1e300,1.5e300",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("error: invalid --values '(owner ")
            && e.contains("2^42 noise standard deviations"),
        "{e}"
    );
    assert!(!out.exists(), "nothing written");
    fs::remove_dir_all(&d).unwrap();
}

/// `--owners 0` (zero owners, or the owner with id 0?) is refused on every
/// command that takes `--owners`, and the hint names `--owner 0` only where
/// the command has that flag (relay, evolve and gossip pointed at an
/// `owner` they do not take).
#[test]
fn owners_zero_names_only_flags_the_command_has() {
    let karate = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/karate.edges");
    for (cmd, has_owner) in [
        ("simulate", true),
        ("collude", true),
        ("utility", true),
        ("relay", false),
        ("evolve", false),
        ("gossip", false),
    ] {
        let o = Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
            .args([cmd, "--graph", karate.to_str().unwrap(), "--owners", "0"])
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{cmd}: {err}");
        assert_eq!(err.lines().count(), 1, "{cmd}: {err}");
        assert!(err.contains("`0,`"), "{cmd}: {err}");
        assert_eq!(err.contains("--owner 0"), has_owner, "{cmd}: {err}");
        assert!(!err.contains("`owner`"), "{cmd}: {err}");
    }
}
