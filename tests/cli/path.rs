//! `privdiffuse path` end to end: CSV structure, round-trip numbers,
//! determinism (seed, thread count, per-sample generators) and error handling.

use crate::support::scratch::scratch;
use privdiffuse::process::{Norm, PathSampler};
use privdiffuse::rng::{Purpose, rng_for};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    run_env(args, &[])
}

fn run_env(args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.args(args).env_remove("RUST_BACKTRACE");
    for (k, v) in env {
        c.env(k, v);
    }
    c.output().expect("run privdiffuse")
}

fn stdout_ok(args: &[&str]) -> String {
    let o = run(args);
    assert!(
        o.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("UTF-8 output")
}

/// Rows as (sample, eps text, value texts).
fn rows(csv: &str) -> Vec<(u64, String, Vec<String>)> {
    csv.lines()
        .skip(1)
        .map(|l| {
            let f: Vec<&str> = l.split(',').collect();
            (
                f[0].parse().expect("sample index"),
                f[1].to_string(),
                f[2..].iter().map(|s| s.to_string()).collect(),
            )
        })
        .collect()
}

/// A printed number parses to an f64 whose shortest form is the same text.
fn assert_round_trip(text: &str) {
    let x: f64 = text
        .parse()
        .unwrap_or_else(|_| panic!("not a number: {text}"));
    assert!(x.is_finite(), "{text}");
    assert_eq!(format!("{x}"), text, "not the shortest round-trip form");
}

const BASE: [&str; 8] = [
    "path", "--dim", "2", "--norm", "l2", "--eps-lo", "0.5", "--eps-hi",
];

fn base_args<'a>(extra: &[&'a str]) -> Vec<&'a str> {
    let mut v: Vec<&str> = BASE.to_vec();
    v.push("15");
    v.extend_from_slice(extra);
    v
}

#[test]
fn breakpoint_rows_are_ascending_and_start_at_eps_lo() {
    let out = stdout_ok(&base_args(&["--samples", "20", "--seed", "7"]));
    assert_eq!(out.lines().next(), Some("sample,eps,v1,v2"));
    let rows = rows(&out);
    let mut prev: Option<(u64, f64)> = None;
    let mut seen = Vec::new();
    for (k, eps, v) in &rows {
        assert_eq!(v.len(), 2);
        assert_round_trip(eps);
        v.iter().for_each(|t| assert_round_trip(t));
        let e: f64 = eps.parse().unwrap();
        assert!(e <= 15.0);
        match prev {
            Some((pk, pe)) if pk == *k => assert!(e > pe, "sample {k}: {pe} then {e}"),
            _ => {
                assert_eq!(eps, "0.5", "first row of sample {k}");
                seen.push(*k);
            }
        }
        prev = Some((*k, e));
    }
    assert_eq!(seen, (0..20).collect::<Vec<u64>>());
    // ℓ2 n = 2 on [0.5, 15]: 3 ln 30 ≈ 10.2 jumps per path on average.
    assert!(
        rows.len() > 20 * 4,
        "suspiciously few breakpoints: {}",
        rows.len()
    );
}

/// `--at` rows agree bit for bit with a lookup in the breakpoint listing of the
/// same seed, and come in the requested order.
#[test]
fn at_rows_match_breakpoint_lookup() {
    let bp = rows(&stdout_ok(&base_args(&["--samples", "30", "--seed", "3"])));
    let at = stdout_ok(&base_args(&[
        "--samples",
        "30",
        "--seed",
        "3",
        "--at",
        "15,0.5,1,1.0,4.25",
    ]));
    assert_eq!(at.lines().next(), Some("sample,eps,v1,v2"));
    let at = rows(&at);
    assert_eq!(at.len(), 30 * 5);
    let order = ["15", "0.5", "1", "1", "4.25"];
    let mut equal_pairs = 0;
    for (i, (k, eps, v)) in at.iter().enumerate() {
        assert_eq!(*k, (i / 5) as u64);
        assert_eq!(eps, order[i % 5]);
        let q: f64 = eps.parse().unwrap();
        // Value of the last breakpoint row of sample k with level ≤ q.
        let expect = bp
            .iter()
            .rfind(|(bk, be, _)| bk == k && be.parse::<f64>().unwrap() <= q)
            .map(|(_, _, bv)| bv)
            .expect("a breakpoint at or below q");
        assert_eq!(v, expect, "sample {k} at {q}");
        if i % 5 == 3 {
            assert_eq!(v, &at[i - 1].2, "1 and 1.0 are the same level");
        }
        if i % 5 == 2 && v == &at[i - 1].2 {
            equal_pairs += 1;
        }
    }
    // P(V_0.5 = V_1) = (1/2)³ for ℓ2 n = 2: over 30 samples, mostly different.
    assert!(equal_pairs < 30);
}

/// Sample k is the library path drawn from `rng_for(seed, k, 0, Path)`.
#[test]
fn each_sample_is_reproducible_alone() {
    let at = rows(&stdout_ok(&base_args(&[
        "--samples",
        "5",
        "--seed",
        "11",
        "--at",
        "0.5,2",
    ])));
    let s = PathSampler::new(2, Norm::L2, 0.5, 15.0).unwrap();
    for (k, eps, v) in at {
        let p = s.sample(&mut rng_for(11, k, 0, Purpose::Path));
        let want: Vec<String> = p
            .value_at(eps.parse().unwrap())
            .iter()
            .map(|x| format!("{x}"))
            .collect();
        assert_eq!(v, want);
    }
}

#[test]
fn output_is_deterministic_and_thread_independent() {
    // 10 000 samples span several parallel chunks.
    let args = [
        "path",
        "--dim",
        "1",
        "--norm",
        "l1",
        "--eps-lo",
        "0.5",
        "--eps-hi",
        "15",
        "--samples",
        "10000",
        "--seed",
        "5",
    ];
    let a = run_env(&args, &[("RAYON_NUM_THREADS", "1")]);
    let b = run_env(&args, &[("RAYON_NUM_THREADS", "2")]);
    let c = run_env(&args, &[("RAYON_NUM_THREADS", "2")]);
    assert!(a.status.success() && b.status.success() && c.status.success());
    assert_eq!(a.stdout, b.stdout);
    assert_eq!(b.stdout, c.stdout);
    let mut other = args.to_vec();
    other[12] = "6";
    assert_ne!(run(&other).stdout, a.stdout, "the seed must matter");
}

#[test]
fn out_file_equals_stdout() {
    let dir = scratch("out");
    let file = dir.join("p.csv");
    let f = file.to_str().unwrap();
    let args = base_args(&["--samples", "50", "--at", "1,2"]);
    let mut with_out = args.clone();
    with_out.extend_from_slice(&["--out", f]);
    let o = run(&with_out);
    assert!(o.status.success());
    assert!(o.stdout.is_empty());
    assert_eq!(std::fs::read(&file).unwrap(), run(&args).stdout);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn bad_arguments_give_one_line_usage_errors() {
    let ok = |name: &str, v: &str| -> Vec<String> {
        let mut a: Vec<String> = [
            "path", "--dim", "1", "--norm", "l1", "--eps-lo", "0.5", "--eps-hi", "15",
        ]
        .iter()
        .map(|s| s.to_string())
        .collect();
        match a.iter().position(|x| x == name) {
            Some(i) => a[i + 1] = v.to_string(),
            None => {
                a.push(name.to_string());
                a.push(v.to_string());
            }
        }
        a
    };
    let cases = [
        ("--eps-lo", "0", "--eps-lo"),
        ("--eps-lo", "-1", "--eps-lo"),
        ("--eps-lo", "NaN", "--eps-lo"),
        ("--eps-hi", "inf", "--eps-hi"),
        ("--eps-hi", "abc", "--eps-hi"),
        ("--eps-lo", "20", "--eps-lo"), // lo > hi
        ("--dim", "0", "--dim"),
        ("--dim", "two", "--dim"),
        ("--norm", "l3", "--norm"),
        ("--samples", "0", "--samples"),
        ("--seed", "-4", "--seed"),
        ("--at", "1,,2", "--at"),
        ("--at", "1;2", "--at"),
        ("--at", "0.1", "--at"),
        ("--at", "16", "--at"),
        ("--at", "NaN", "--at"),
    ];
    for (flag, value, name) in cases {
        let args = ok(flag, value);
        let argv: Vec<&str> = args.iter().map(String::as_str).collect();
        let o = run(&argv);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{flag} {value}: {err}");
        assert!(o.stdout.is_empty(), "{flag} {value}: wrote output");
        assert_eq!(err.lines().count(), 1, "{flag} {value}: {err}");
        assert!(err.starts_with("error:"), "{flag} {value}: {err}");
        assert!(err.contains(name), "{flag} {value}: {err}");
        assert!(err.contains(value), "{flag} {value}: {err}");
        assert!(!err.contains("panicked"), "{flag} {value}: {err}");
    }
}

#[test]
fn version_names_the_crate_version() {
    let o = run(&["--version"]);
    assert!(o.status.success());
    let s = String::from_utf8_lossy(&o.stdout);
    assert!(s.contains(env!("CARGO_PKG_VERSION")), "{s}");
}

#[test]
fn help_explains_and_shows_an_example() {
    let s = stdout_ok(&["path", "--help"]);
    assert!(s.contains("lazy Laplace process"));
    assert!(s.contains("privdiffuse path --dim 1 --norm l1"));
}

#[test]
fn extreme_ranges_and_dimensions_fail_cleanly_or_work() {
    // The widest range accepted (privdiffuse::limits): ε_hi/ε_lo = 1e120,
    // rate 2 · ln 1e120 ≈ 552.6 jumps (Poisson: 6 s.d. ≈ 141).
    let csv = stdout_ok(&[
        "path", "--dim", "1", "--norm", "l1", "--eps-lo", "1e-60", "--eps-hi", "1e60",
    ]);
    let n = rows(&csv).len();
    assert!((411..=695).contains(&n), "{n} breakpoints");
    assert!(
        csv.lines().skip(1).all(|l| l
            .split(',')
            .all(|c| c.parse::<f64>().is_ok_and(f64::is_finite))),
        "non-finite numbers in the path"
    );
    // Beyond it the noise overflows (5e-324: NaN, 1e-300: ±inf before):
    // a usage error naming the flag and the range.
    for (lo, hi) in [
        ("5e-324", "1.7e308"),
        ("1e-300", "1e300"),
        ("1e-200", "1e200"),
    ] {
        let o = run(&[
            "path", "--dim", "1", "--norm", "l1", "--eps-lo", lo, "--eps-hi", hi,
        ]);
        assert_eq!(o.status.code(), Some(2), "{lo} {hi}");
        assert!(o.stdout.is_empty());
        let e = String::from_utf8_lossy(&o.stderr);
        assert!(
            e.starts_with(&format!("error: invalid --eps-lo '{lo}'"))
                && e.contains("[1e-60, 1e60]")
                && e.lines().count() == 1,
            "{e}"
        );
    }
    let o = run(&[
        "path", "--dim", "1", "--norm", "l1", "--eps-lo", "1", "--eps-hi", "1e61",
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--eps-hi"));
    // A dimension whose paths cannot fit in memory is a usage error, not an abort.
    let o = run(&[
        "path",
        "--dim",
        "1000000000000",
        "--norm",
        "l2",
        "--eps-lo",
        "1",
        "--eps-hi",
        "2",
    ]);
    assert_eq!(o.status.code(), Some(2));
    let e = String::from_utf8_lossy(&o.stderr);
    assert!(e.contains("--dim") && e.contains("1000"), "{e}");
    // clap's own errors are one line naming the argument, too.
    for args in [
        vec!["path", "--dim", "1"],
        vec!["path", "--bogus"],
        vec![
            "path", "--dim", "1", "--norm", "l3", "--eps-lo", "1", "--eps-hi", "2",
        ],
    ] {
        let o = run(&args);
        assert_eq!(o.status.code(), Some(2), "{args:?}");
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(e.trim_end().lines().count(), 1, "{args:?}: {e}");
        assert!(
            e.starts_with("error: ") && e.contains("--"),
            "{args:?}: {e}"
        );
    }
}

/// `path --out FILE.csv` writes `FILE.json` with the range, and the path
/// figure draws every sample up to eps_hi from it (not only to the last
/// breakpoint); without the sidecar the range ends at the last breakpoint.
#[test]
fn sidecar_records_the_range_and_the_figure_uses_it() {
    let d = scratch("sidecar");
    let csv = d.join("p.csv");
    let o = run(&[
        "path",
        "--dim",
        "1",
        "--norm",
        "l1",
        "--eps-lo",
        "0.5",
        "--eps-hi",
        "15",
        "--samples",
        "2",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(d.join("p.json")).unwrap()).unwrap();
    assert_eq!(meta["eps_lo"], 0.5);
    assert_eq!(meta["eps_hi"], 15.0);
    assert_eq!(meta["samples"], 2);
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("sample,eps,v1\n"));
    let last_break = text
        .lines()
        .skip(1)
        .map(|l| l.split(',').nth(1).unwrap().parse::<f64>().unwrap())
        .fold(0.0, f64::max);
    assert!(last_break < 15.0);
    let fig = privdiffuse::io::plot::path::load(&csv).unwrap();
    assert_eq!(fig.eps_range, (0.5, 15.0));
    for t in &fig.traces {
        assert_eq!(t.line.last().unwrap().0, 15.0);
    }
    std::fs::remove_file(d.join("p.json")).unwrap();
    let fig = privdiffuse::io::plot::path::load(&csv).unwrap();
    assert_eq!(fig.eps_range.1, last_break);
    // A broken sidecar is an error naming it.
    std::fs::write(d.join("p.json"), "{\"eps_lo\": 2}").unwrap();
    let e = privdiffuse::io::plot::path::load(&csv)
        .unwrap_err()
        .to_string();
    assert!(e.contains("p.json") && e.contains("eps_hi"), "{e}");
    // A second run is refused without --force, for the sidecar as well.
    std::fs::remove_file(&csv).unwrap();
    let o = run(&[
        "path",
        "--dim",
        "1",
        "--norm",
        "l1",
        "--eps-lo",
        "0.5",
        "--eps-hi",
        "15",
        "--out",
        csv.to_str().unwrap(),
    ]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("p.json already exists"));
    assert!(!csv.exists());
}

/// Runs `args` concurrently for every seed in `seeds` and waits for all.
fn concurrently(seeds: std::ops::RangeInclusive<u32>, args: impl Fn(&str) -> Vec<String>) {
    let children: Vec<_> = seeds
        .map(|s| {
            Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
                .args(args(&s.to_string()))
                .env_remove("RUST_BACKTRACE")
                .stderr(std::process::Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    for c in children {
        let o = c.wait_with_output().unwrap();
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    }
}

/// Issue 23.A2: `path --out P.csv --force` from concurrent runs left the CSV
/// of one seed beside the sidecar of another (1 in 8), and so did
/// `generate … --out G.edges --force` with G.coords.csv (1 in 10). A file
/// and its sidecar are one output now: after every round they are one
/// run's pair.
#[test]
fn concurrent_forced_runs_leave_one_runs_pair() {
    let d = scratch("pairs");
    let p = d.join("P.csv");
    let path_args = |seed: &str, out: &std::path::Path| -> Vec<String> {
        [
            "path",
            "--dim",
            "2",
            "--norm",
            "l1",
            "--eps-lo",
            "0.5",
            "--eps-hi",
            "15",
            "--samples",
            "300",
            "--seed",
            seed,
            "--force",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.display().to_string()])
        .collect()
    };
    // Each seed's CSV alone.
    let mut expected = std::collections::HashMap::new();
    for s in 1..=8u32 {
        let f = d.join(format!("alone{s}.csv"));
        let o = run(&path_args(&s.to_string(), &f)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>());
        assert!(o.status.success());
        expected.insert(u64::from(s), std::fs::read(&f).unwrap());
    }
    for round in 0..6 {
        concurrently(1..=8, |s| path_args(s, &p));
        let meta: serde_json::Value =
            serde_json::from_str(&std::fs::read_to_string(d.join("P.json")).unwrap()).unwrap();
        let seed = meta["seed"].as_u64().unwrap();
        assert!(
            std::fs::read(&p).unwrap() == expected[&seed],
            "round {round}: P.csv is not seed {seed}'s, as P.json says"
        );
    }
    // generate: the edge list's header names its seed; the coordinates
    // must be that seed's.
    let g = d.join("G.edges");
    let gen_args = |seed: &str, out: &std::path::Path| -> Vec<String> {
        [
            "generate",
            "geometric",
            "--n",
            "400",
            "--edges",
            "1600",
            "--seed",
            seed,
            "--force",
            "--out",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([out.display().to_string()])
        .collect()
    };
    let mut coords = std::collections::HashMap::new();
    for s in 1..=8u32 {
        let f = d.join(format!("alone{s}.edges"));
        let o = run(&gen_args(&s.to_string(), &f)
            .iter()
            .map(String::as_str)
            .collect::<Vec<_>>());
        assert!(o.status.success());
        coords.insert(
            s.to_string(),
            std::fs::read(d.join(format!("alone{s}.coords.csv"))).unwrap(),
        );
    }
    for round in 0..6 {
        concurrently(1..=8, |s| gen_args(s, &g));
        let head = std::fs::read_to_string(&g).unwrap();
        let seed = head
            .lines()
            .next()
            .and_then(|l| l.split("--seed ").nth(1))
            .and_then(|r| r.split_whitespace().next())
            .unwrap()
            .to_string();
        assert!(
            std::fs::read(d.join("G.coords.csv")).unwrap() == coords[&seed],
            "round {round}: G.coords.csv is not seed {seed}'s"
        );
    }
    // Nothing staged is left behind.
    let stray: Vec<String> = std::fs::read_dir(&d)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.'))
        .collect();
    assert!(stray.is_empty(), "{stray:?}");
    std::fs::remove_dir_all(&d).unwrap();
}

/// Waits for `child` at most `secs` seconds (killing it then: a run that
/// streams without bound is the bug).
fn wait_bounded(mut child: std::process::Child, secs: u64) -> Output {
    let t = std::time::Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed().as_secs() > secs {
            let _ = child.kill();
            panic!("still writing after {secs} s");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// Issue 23.B3: `path --samples 9223372036854775808` streamed until the
/// disk was full. `samples` is capped, and what cannot fit the file system
/// (a file's, or standard output's when that is a regular file) is refused
/// before anything is written.
#[test]
fn output_size_is_bounded_and_checked_against_free_space() {
    let d = scratch("space");
    let base = [
        "path", "--dim", "1", "--norm", "l1", "--eps-lo", "1e-60", "--eps-hi", "1e60",
    ];
    let o = run(&[&base[..], &["--samples", "9223372036854775808"]].concat());
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(
        err,
        "error: invalid --samples '9223372036854775808': expected an integer from 1 to 2147483647\n"
    );
    // The cap itself: ≈ 553 rows a sample, ≥ 28 TB of CSV.
    let out = d.join("p.csv");
    let args = [
        &base[..],
        &["--samples", "2147483647", "--out", out.to_str().unwrap()],
    ]
    .concat();
    let child = Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .args(&args)
        .env_remove("RUST_BACKTRACE")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let o = wait_bounded(child, 60);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert_eq!(err.lines().count(), 1, "{err}");
    assert!(
        err.starts_with("error: invalid --samples '2147483647': expected at most about ")
            && err.contains("TiB")
            && err.contains(&format!("{} has", d.display())),
        "{err}"
    );
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0, "nothing written");
    // Standard output redirected to a file of that file system: the same.
    let sink = d.join("redirected.csv");
    let args = [&base[..], &["--samples", "2147483647"]].concat();
    let child = Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .args(&args)
        .env_remove("RUST_BACKTRACE")
        .stdout(std::fs::File::create(&sink).unwrap())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let o = wait_bounded(child, 60);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("<stdout> has"), "{err}");
    assert_eq!(std::fs::metadata(&sink).unwrap().len(), 0);
    std::fs::remove_dir_all(&d).unwrap();
}
