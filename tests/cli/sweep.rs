//! `privdiffuse sweep` from the command line: exit codes and messages.

use crate::support::scratch::scratch as tmpdir;
use std::process::Command;

fn sweep(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .arg("sweep")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn malformed_grid_exits_2_naming_key_and_value() {
    let dir = tmpdir("malformed");
    let out = dir.join("s.csv");
    let out = out.to_str().unwrap();
    for (args, needles) in [
        (vec!["--set", "colour=red"], vec!["colour"]),
        (vec!["--set", "dim=1,x"], vec!["dim", "x"]),
        (vec!["--set", "seed=3..1"], vec!["seed", "3..1"]),
        (vec!["--set", "eps=exp:a=1"], vec!["eps", "exp:a=1"]),
    ] {
        let mut a = args.clone();
        a.extend(["--out", out, "--quiet"]);
        let o = sweep(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: '{err}' should name '{n}'");
        }
        assert!(
            !std::path::Path::new(out).exists(),
            "nothing runs before validation"
        );
    }
    let o = sweep(&[
        "--set",
        "graph=data/karate.edges",
        "--set",
        "values=uniform:0,1|",
        "--set",
        "dim=1,2",
        "--out",
        out,
        "--quiet",
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out).unwrap();
    assert!(text.starts_with("graph,values,dim,mechanism,"));
    assert!(text.contains("\n\"data/karate.edges\"") || text.contains("\ndata/karate.edges,"));
}

/// The coalition-size grid on the bundled karate graph (20 owners, the
/// default trials): long enough that computing before checking the figure
/// would show.
const M_GRID: [&str; 10] = [
    "--set",
    "graph=data/karate.edges",
    "--set",
    "m=2,3,5,8",
    "--set",
    "coalition=random:m={m},min-d=2",
    "--set",
    "seed=1..5",
    "--metric",
    "gain_median",
];

/// The figure's --x is checked before the first point: a typo fails at once
/// (exit 2, naming it and the key columns) and leaves nothing; `--x
/// coalition` is the grid key (written `coalition_spec`), not refused after
/// the sweep.
#[test]
fn x_typo_fails_before_the_first_point() {
    let d = tmpdir("x");
    let out = d.join("m.csv");
    let out = out.to_str().unwrap();
    let t = std::time::Instant::now();
    let mut a = M_GRID.to_vec();
    a.extend(["--plots", "--x", "mm", "--out", out, "-q"]);
    let o = sweep(&a);
    let secs = t.elapsed().as_secs_f64();
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("mm") && err.contains("coalition.m"), "{err}");
    assert!(secs < 1.0, "{secs} s");
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
    // Unknown --only column, same.
    let mut a = M_GRID.to_vec();
    a.extend([
        "--plots",
        "--x",
        "m",
        "--only",
        "estimatr=ivw",
        "--out",
        out,
        "-q",
    ]);
    let o = sweep(&a);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("estimatr"));
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
}

/// --dry-run prints one line per point and an estimate, exits 0 and writes
/// nothing.
#[test]
fn dry_run_prints_points_and_writes_nothing() {
    let d = tmpdir("dry");
    let out = d.join("m.csv");
    let mut a = M_GRID.to_vec();
    a.extend([
        "--plots",
        "--x",
        "m",
        "--dry-run",
        "--out",
        out.to_str().unwrap(),
    ]);
    let o = sweep(&a);
    let text = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(
        text.starts_with("point,graph,m,coalition_spec,seed,coalition.m,"),
        "{text}"
    );
    assert_eq!(text.lines().filter(|l| !l.starts_with('#')).count(), 1 + 20);
    assert!(
        text.contains("estimated") && text.contains("nothing was run"),
        "{text}"
    );
    assert_eq!(std::fs::read_dir(&d).unwrap().count(), 0);
}

fn plot(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .arg("plot")
        .args(args)
        .output()
        .unwrap()
}

/// `plot --kind sweep` redraws from a finished CSV: x = the template
/// variable, means over seeds; more than 12 lines is refused naming the
/// columns to fix; --only brings it under.
#[test]
fn plot_kind_sweep_redraws_from_the_csv() {
    let d = tmpdir("plot");
    let out = d.join("m.csv");
    let o = sweep(&[
        "--set",
        "graph=data/karate.edges",
        "--set",
        "m=2,4",
        "--set",
        "coalition=random:m={m}",
        "--set",
        "seed=1..3",
        "--set",
        "trials=30",
        "--out",
        out.to_str().unwrap(),
        "-q",
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let csv = out.to_str().unwrap();
    let png = d.join("f.png");
    // 2 mechanisms × 6 estimators = 12 lines: drawn.
    let o = plot(&[
        "--kind",
        "sweep",
        "--input",
        csv,
        "--out",
        png.to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(std::fs::metadata(&png).unwrap().len() > 5000);
    // Per seed: 36 lines, refused with the columns to fix.
    let o = plot(&[
        "--kind",
        "sweep",
        "--input",
        csv,
        "--per-seed",
        "--out",
        d.join("g.png").to_str().unwrap(),
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    for n in ["12", "seed", "estimator", "mechanism", "only"] {
        assert!(err.contains(n), "'{err}' should name {n}");
    }
    assert!(!d.join("g.png").exists());
    let o = plot(&[
        "--kind",
        "sweep",
        "--input",
        csv,
        "--per-seed",
        "--only",
        "estimator=ivw",
        "--x",
        "coalition.m",
        "--out",
        d.join("g.png").to_str().unwrap(),
    ]);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
}

#[test]
fn an_output_that_is_its_own_side_file_is_refused_and_nothing_is_left() {
    let d = tmpdir("own-side-file");
    for name in ["s.progress", "sweep.progress"] {
        let out = d.join(name);
        let o = sweep(&["--set", "dim=1", "--out", out.to_str().unwrap(), "-q"]);
        let e = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{name}: {e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(e.contains("STEM.csv") && !e.contains("another run"), "{e}");
        assert!(!out.exists(), "{name} left behind");
    }
    std::fs::remove_dir_all(&d).unwrap();
}
