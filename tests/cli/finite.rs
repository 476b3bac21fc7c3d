//! Finite or refused, through the binary: privacy levels outside the range
//! in which a run's statistics stay finite (`privdiffuse::limits`: ε/Δ in
//! [1e-60, 1e60], ε in [1e-100, 1e100]) are refused naming the distance,
//! edge lengths that would overflow a distance are refused naming the edge,
//! rows are checked finite before a file is committed, and figures never
//! hang on extreme coordinates.

use crate::support::scratch::scratch;
use std::fs;
use std::io::Read;
use std::path::Path;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE")
        .current_dir(env!("CARGO_MANIFEST_DIR"));
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

/// Runs `args`, killing the process after `secs` (a hang fails the test
/// instead of blocking it).
fn run_killed_after(args: &[&str], secs: u64) -> (Output, Duration) {
    let t = Instant::now();
    let mut child = bin()
        .args(args)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut stdout = Vec::new();
            let mut stderr = Vec::new();
            child
                .stdout
                .take()
                .unwrap()
                .read_to_end(&mut stdout)
                .unwrap();
            child
                .stderr
                .take()
                .unwrap()
                .read_to_end(&mut stderr)
                .unwrap();
            return (
                Output {
                    status,
                    stdout,
                    stderr,
                },
                t.elapsed(),
            );
        }
        if t.elapsed() > Duration::from_secs(secs) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("{args:?} still running after {secs} s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Every number of every CSV of a run directory parses as a finite f64,
/// except the cells in `allowed` columns, which may also be `inf`/`NaN`.
fn all_finite(dir: &Path, allowed: &[&str]) {
    for e in fs::read_dir(dir).unwrap() {
        let p = e.unwrap().path();
        if p.extension().is_none_or(|x| x != "csv") {
            continue;
        }
        let text = fs::read_to_string(&p).unwrap();
        let mut lines = text.lines();
        let header: Vec<&str> = lines.next().unwrap().split(',').collect();
        for l in lines {
            for (c, cell) in header.iter().zip(l.split(',')) {
                if let Ok(x) = cell.parse::<f64>() {
                    assert!(
                        x.is_finite() || allowed.contains(c),
                        "{}: column {c}: {cell}",
                        p.display()
                    );
                }
            }
        }
    }
}

/// A refused level: exit 2, one line, the flag and the words expected.
fn refused_level(o: &Output, starts: &str, has: &[&str]) {
    let e = stderr(o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.starts_with(starts), "expected '{starts}…': {e}");
    for h in has {
        assert!(e.contains(h), "expected '{h}' in: {e}");
    }
}

#[test]
fn eps_maps_outside_the_range_are_refused_naming_the_distance() {
    // Before, each exited 0: NaN mse and jump norms, inf mse, inf mean_eps,
    // "MSE inf".
    let d = scratch("eps");
    let out = d.join("run").display().to_string();
    for (spec, shown, has) in [
        (
            "exp:a=-700,b=1",
            "exp:a=-700,b=1",
            "got ε = 3.6271722970495225e-305 at distance 1",
        ),
        (
            "power:c=1e-200,p=0",
            "power:c=1e-200,p=0",
            "got ε = 1e-200 at distance 1",
        ),
        (
            "recip:c=1e308",
            "recip:c=1e308",
            "got ε = 1e308 at distance 1",
        ),
        (
            "table:1=1e-320,*=1e-320",
            "table:1=1e-320,*=1e-320",
            "got ε = 1e-320 at distance 1",
        ),
    ] {
        let o = run(&["simulate", "--eps", spec, "--no-plots", "-q", "--out", &out]);
        refused_level(
            &o,
            &format!("error: invalid --eps '{shown}': expected ε within [1e-100, 1e100]"),
            &[has, "--eps-max/--eps-min"],
        );
    }
    // The first distance where a map leaves the range is the one named.
    let o = run(&[
        "simulate",
        "--eps",
        "table:1=1,2=1,3=1e-101,*=1e-101",
        "--no-plots",
        "-q",
        "--out",
        &out,
    ]);
    refused_level(
        &o,
        "error: invalid --eps",
        &["got ε = 1e-101 at distance 3"],
    );
    // Clamping brings a map back into the range.
    let o = run(&[
        "simulate",
        "--eps",
        "recip:c=1e308",
        "--eps-max",
        "20",
        "--owners",
        "5",
        "--no-plots",
        "-q",
        "--out",
        &out,
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    all_finite(Path::new(&out), &["mse_se"]);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn squared_owner_sums_stay_finite_down_to_the_smallest_level() {
    // 1e-90 printed mse_se = 0 (Σ S² overflowed: inf − inf → NaN → max 0);
    // 1e-60 is the smallest level accepted and every statistic is finite.
    let d = scratch("tiny");
    let base = [
        "--dim",
        "1",
        "--norm",
        "l1",
        "--owners",
        "20",
        "--no-plots",
        "-q",
    ];
    let bad = d.join("bad").display().to_string();
    let mut a = vec!["simulate", "--eps", "table:1=1e-90,*=1e-90", "--out", &bad];
    a.extend(base);
    refused_level(
        &run(&a),
        "error: invalid --eps 'table:1=1e-90,*=1e-90': expected ε/Δ within [1e-60, 1e60]",
        &["got ε = 1e-90 at distance 1, ε/Δ = 1e-90"],
    );
    assert!(!Path::new(&bad).exists());
    let ok = d.join("ok");
    let mut a = vec![
        "simulate",
        "--eps",
        "table:1=1e-60,*=1e-60",
        "--out",
        ok.to_str().unwrap(),
    ];
    a.extend(base);
    let o = run(&a);
    assert!(o.status.success(), "{}", stderr(&o));
    all_finite(&ok, &[]);
    let bd = fs::read_to_string(ok.join("by_distance.csv")).unwrap();
    for l in bd.lines().skip(1) {
        let f: Vec<f64> = l.split(',').skip(1).map(|c| c.parse().unwrap()).collect();
        // mse, mse_se, mse_theory = 2/ε² = 2e120: squares of 1e120 were summed.
        let (mse, se, theory) = (f[4], f[5], f[6]);
        assert!(se > 0.0 && se < mse, "{l}");
        assert!((theory / 2e120 - 1.0).abs() < 1e-12, "{l}");
    }
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn the_sensitivity_is_named_when_it_puts_eps_over_delta_outside_the_range() {
    // 1e308 exited 0 with NaN; 1e-308's message named `eps-hi 'inf'`.
    let d = scratch("sens");
    let out = d.join("run").display().to_string();
    for (s, level) in [("1e308", "1.5e-307"), ("1e-308", "inf")] {
        let o = run(&[
            "simulate",
            "--sensitivity",
            s,
            "--no-plots",
            "-q",
            "--out",
            &out,
        ]);
        refused_level(
            &o,
            &format!("error: invalid --sensitivity '{s}': expected ε/Δ within [1e-60, 1e60]"),
            &[&format!("got ε = 15 at distance 1, ε/Δ = {level}")],
        );
    }
    // Collusion members, sybils included, are checked at their distances.
    let o = run(&[
        "collude",
        "--graph",
        "data/karate.edges",
        "--eps",
        "exp:a=2,b=1",
        "--coalition",
        "sybil:m=3,d=300",
        "--owners",
        "2",
        "--trials",
        "5",
        "--no-plots",
        "-q",
        "--out",
        &out,
    ]);
    refused_level(
        &o,
        "error: invalid --eps 'exp:a=2,b=1': expected ε within [1e-100, 1e100]",
        &["at member distance 300"],
    );
    assert!(fs::read_dir(&d).unwrap().next().is_none());
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn relax_levels_share_the_range() {
    for e in ["1e-61", "1e61"] {
        let o = run(&["relax", "--value", "0", "--eps", e]);
        let m = stderr(&o);
        assert_eq!(o.status.code(), Some(2), "{m}");
        assert!(m.contains("ε/Δ between 1e-60 and 1e60"), "{m}");
        assert!(o.stdout.is_empty());
    }
    let o = run(&[
        "relax",
        "--value",
        "0",
        "--eps",
        "1e-60,1e60",
        "--trials",
        "50",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = String::from_utf8(o.stdout).unwrap();
    assert!(
        csv.lines()
            .skip(1)
            .flat_map(|l| l.split(',').map(str::to_string).collect::<Vec<_>>())
            .all(|c| c.parse::<f64>().is_ok_and(f64::is_finite)),
        "{csv}"
    );
}

#[test]
fn lengths_that_would_overflow_a_distance_are_refused_naming_the_edge() {
    // Weighted distances silently dropped the nodes whose distance
    // overflowed; resistance-approx printed only the header.
    let d = scratch("lengths");
    let g = d.join("heavy.edges");
    fs::write(&g, "a b 1e308\nb c 1e308\nc d 1\n").unwrap();
    for (kind, range) in [
        ("weighted", "[0, 5.992310449541053e307]"),
        (
            "resistance",
            "[1.668805393880401e-308, 5.992310449541053e307]",
        ),
        ("resistance-approx", "[1e-30, 1e30]"),
    ] {
        let o = run(&[
            "distances",
            "--graph",
            g.to_str().unwrap(),
            "--distance",
            kind,
            "--owner",
            "a",
        ]);
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert!(
            o.stdout.is_empty(),
            "{}",
            String::from_utf8_lossy(&o.stdout)
        );
        assert_eq!(
            e.trim_end(),
            format!(
                "error: edge a b has length 1e308, outside {range} that {kind} distances accept \
                 on a graph of 4 nodes ({}); rescale the lengths",
                match kind {
                    "weighted" => "so that every path of up to N − 1 edges has a finite length",
                    "resistance" => "so that path lengths and sums of conductances 1/w stay finite",
                    _ => "the sketch stores √resistance as f32",
                }
            )
        );
    }
    // Just inside the cap, every distance is finite and none is dropped.
    fs::write(&g, "a b 5e307\nb c 5e307\nc d 5e307\n").unwrap();
    let o = run(&[
        "distances",
        "--graph",
        g.to_str().unwrap(),
        "--distance",
        "weighted",
        "--owner",
        "a",
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let csv = String::from_utf8(o.stdout).unwrap();
    assert_eq!(csv.lines().count(), 4, "{csv}");
    let last: Vec<&str> = csv.lines().last().unwrap().split(',').collect();
    assert_eq!(&last[..2], ["a", "d"]);
    assert_eq!(last[2].parse::<f64>().unwrap(), 5e307 + 5e307 + 5e307);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn rows_are_checked_finite_before_anything_is_committed() {
    // Answers clamped ~1.6e308 away from u, whose square overflows.
    // Before, by_distance.csv held post_mse = inf. (Values near f64's limit
    // are refused now: the noise vanishes against them.)
    let d = scratch("rows");
    let out = d.join("run");
    let o = run(&[
        "simulate",
        "--values",
        "uniform:0,1",
        "--post",
        "clamp:-1.7e308,-1.6e308",
        "--dim",
        "1",
        "--norm",
        "l1",
        "--no-plots",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(
        e.starts_with("error: numerical failure: ")
            && e.contains(
                "by_distance.csv: column 'post_mse': expected a finite number, found 'inf'"
            ),
        "{e}"
    );
    assert!(fs::read_dir(&d).unwrap().next().is_none(), "left behind");
    fs::remove_dir_all(&d).unwrap();
}

/// A run directory of `simulate` with a cell of `file` (column `col`, first
/// data row, or every row) replaced by `value`.
fn tampered(base: &Path, into: &Path, file: &str, col: &str, value: &str, every: bool) {
    let _ = fs::remove_dir_all(into);
    fs::create_dir_all(into).unwrap();
    for e in fs::read_dir(base).unwrap() {
        let p = e.unwrap().path();
        fs::copy(&p, into.join(p.file_name().unwrap())).unwrap();
    }
    let text = fs::read_to_string(base.join(file)).unwrap();
    let mut lines: Vec<String> = text.lines().map(String::from).collect();
    let k = lines[0].split(',').position(|c| c == col).unwrap();
    let rows = if every { 1..lines.len() } else { 1..2 };
    for l in &mut lines[rows] {
        let mut cells: Vec<String> = l.split(',').map(String::from).collect();
        cells[k] = value.to_string();
        *l = cells.join(",");
    }
    fs::write(into.join(file), lines.join("\n") + "\n").unwrap();
}

#[test]
fn figures_refuse_non_finite_coordinates_and_never_hang() {
    // Before: by_distance.csv with -inf and ego.csv with 1e308 looped forever
    // at 100 % CPU in plotters' tick search.
    let d = scratch("plot");
    let base = d.join("base");
    let o = run(&[
        "simulate",
        "--owners",
        "6",
        "--no-plots",
        "-q",
        "--out",
        base.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", stderr(&o));
    let t = d.join("t");
    let png = d.join("o.png").display().to_string();
    // Refused with file, line and column.
    for (file, col, value, kind) in [
        ("by_distance.csv", "distance_lo", "-inf", "error"),
        ("by_distance.csv", "mse", "NaN", "error"),
        ("ego.csv", "error_norm", "inf", "ego"),
        ("jumps.csv", "eps", "NaN", "jumps"),
        ("paths.csv", "v1", "-inf", "jumps"),
    ] {
        tampered(&base, &t, file, col, value, false);
        let (o, _) = run_killed_after(
            &[
                "plot",
                "--input",
                t.to_str().unwrap(),
                "--kind",
                kind,
                "--out",
                &png,
            ],
            20,
        );
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{file} {col} {value}: {e}");
        assert_eq!(
            e.trim_end(),
            format!(
                "error: {}:2: column '{col}': expected a finite number, found '{value}'",
                t.join(file).display()
            )
        );
        assert!(!Path::new(&png).exists());
    }
    // Finite but extreme: drawn, in bounded time.
    for (file, col, value, kind, every) in [
        ("ego.csv", "distance", "1e308", "ego", false),
        ("ego.csv", "distance", "-1e308", "ego", false),
        ("by_distance.csv", "distance_lo", "1e308", "error", false),
        ("by_distance.csv", "mse", "1e-320", "error", true),
        ("jumps.csv", "distance", "1e308", "jumps", false),
        ("paths.csv", "v1", "1e308", "jumps", true),
        ("ego.csv", "distance", "1e20", "ego", true),
        ("ego.csv", "distance", "1e299", "ego", false),
        ("by_distance.csv", "mse", "1e299", "error", false),
    ] {
        tampered(&base, &t, file, col, value, every);
        let (o, took) = run_killed_after(
            &[
                "plot",
                "--input",
                t.to_str().unwrap(),
                "--kind",
                kind,
                "--out",
                &png,
            ],
            20,
        );
        let e = stderr(&o);
        if value.parse::<f64>().unwrap().abs() > 1e300 {
            // Beyond what an axis can hold: refused, naming the cell's
            // line and column, never its number (a value may be a secret).
            assert_eq!(o.status.code(), Some(1), "{e}");
            assert!(
                e.contains(&format!(
                    ":2: column '{col}': expected a number within ±1e300 (the cell is not shown)"
                )),
                "{e}"
            );
        } else {
            assert_eq!(o.status.code(), Some(0), "{file} {col} {value}: {e}");
            assert!(e.starts_with("wrote "), "{e}");
        }
        assert_eq!(e.lines().count(), 1);
        assert!(
            took < Duration::from_secs(10),
            "{file} {col} {value}: {took:?}"
        );
        let _ = fs::remove_file(&png);
    }
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_range_map_over_subnormal_lengths_is_refused_naming_eps() {
    // 5e-324 on every edge of a 10-edge chain: the range map's slope
    // ln(15/0.5)/(d_max − d_min) overflowed and summary.json said
    // "exp:a=inf,b=inf" with exit 0.
    let d = scratch("subnormal");
    let g = d.join("chain.edges");
    let text: String = (0..10).map(|i| format!("{i} {} 5e-324\n", i + 1)).collect();
    fs::write(&g, text).unwrap();
    let out = d.join("run");
    let o = run(&[
        "simulate",
        "--graph",
        g.to_str().unwrap(),
        "--distance",
        "weighted",
        "--dim",
        "1",
        "--no-plots",
        "-q",
        "--out",
        out.to_str().unwrap(),
    ]);
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(e.contains("eps") && e.contains("range:0.5..15"), "{e}");
    assert!(!out.exists(), "left an output behind");
    fs::remove_dir_all(&d).unwrap();
}
