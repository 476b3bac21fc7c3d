//! Numbers and messages (issue 33 items 8, 9 and 10). Item 8's one grid
//! limit for every command is a rule of `trust::rules`' table.

use super::common::*;
use std::path::Path;

/// Item 8: `collude --noise discrete --granularity 2^300` put NaN in
/// `gain_lo`/`gain_hi` (the gain's co-moments overflowed); now they are
/// computed in units of γ².
#[test]
fn coarse_grids_give_finite_gain_intervals() {
    let dir = tmpdir("coarse");
    let out = dir.join("c");
    ok(&bin()
        .args([
            "collude",
            "--graph",
            "data/karate.edges",
            "--noise",
            "discrete",
        ])
        .args([
            "--granularity",
            "2^300",
            "--coalition",
            "random:m=5",
            "--trials",
            "50",
        ])
        .args([
            "--dim",
            "1",
            "--norm",
            "l1",
            "--owners",
            "6",
            "--no-plots",
            "--quiet",
        ])
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap());
    let t = std::fs::read_to_string(out.join("coalition.csv")).unwrap();
    let header: Vec<&str> = t.lines().next().unwrap().split(',').collect();
    let col = |n: &str| header.iter().position(|h| *h == n).unwrap();
    let (size, lo, hi) = (col("size"), col("gain_lo"), col("gain_hi"));
    let mut rows = 0;
    for l in t.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        if f[size] == "0" {
            continue;
        }
        rows += 1;
        for c in [lo, hi] {
            let x: f64 = f[c].parse().unwrap();
            assert!(x.is_finite() && x > 0.0, "{}: {l}", header[c]);
        }
    }
    assert!(rows > 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// No run of more than 40 digits in `text` (a number's full expansion).
fn no_expansion(text: &str) {
    let mut run = 0;
    for c in text.chars() {
        run = if c.is_ascii_digit() { run + 1 } else { 0 };
        assert!(run <= 40, "a long expansion in: {text}");
    }
}

/// Item 9: messages print a value as the user typed it.
#[test]
fn messages_print_values_as_typed_once_and_name_files_and_lines() {
    let dir = tmpdir("messages");
    karate_events(&dir);
    let o = ev(&dir, &dir.join("a.db"), &["--eps-max", "1e308"]);
    let e = err(&o);
    assert!(!o.status.success());
    assert!(e.contains("--eps-max '1e308'"), "{e}");
    no_expansion(&e);
    let o = ev(&dir, &dir.join("b.db"), &["--eps", "power:c=1,p=400"]);
    let e = refused(&o, 2, &["--eps 'power:c=1,p=400'"]);
    no_expansion(&e);
    let o = bin()
        .args(["relax", "--value", "1", "--eps", "1e308"])
        .output()
        .unwrap();
    let e = err(&o);
    assert!(!o.status.success() && e.contains("1e308"), "{e}");
    no_expansion(&e);
    // Once, not "expected invalid granularity '0': expected …".
    let o = bin()
        .args(["sweep", "--set", "granularity=0"])
        .output()
        .unwrap();
    let e = err(&o);
    assert!(!o.status.success());
    assert_eq!(e.matches("expected").count(), 1, "{e}");
    assert_eq!(e.matches("granularity").count(), 1, "{e}");
    // The file by name, not "entity not found".
    let o = bin()
        .args(["answers", "--store"])
        .arg(dir.join("missing.db"))
        .output()
        .unwrap();
    let e = refused(&o, 1, &["missing.db", "No such file"]);
    assert!(!e.contains("entity not found"), "{e}");
    // A values file whose node column is wrong points at its header line.
    let v = dir.join("v.csv");
    let mut text = String::from("id,v1\n");
    for i in 0..34 {
        text.push_str(&format!("n{i},0.5\n"));
    }
    std::fs::write(&v, text).unwrap();
    let o = bin()
        .args([
            "simulate",
            "--graph",
            "data/karate.edges",
            "--dim",
            "1",
            "--no-plots",
            "--quiet",
        ])
        .arg(format!("--values=file:{}", v.display()))
        .arg("--out")
        .arg(dir.join("v"))
        .output()
        .unwrap();
    let e = refused(&o, 1, &[&format!("{}:1:", v.display()), "not in the graph"]);
    assert!(!e.contains(":0:"), "{e}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 10: under `ulimit -f`, every command died of SIGXFSZ (exit 153, no
/// message, staged files left). Now the write fails: one line, exit 1,
/// nothing staged left behind.
#[test]
fn a_file_size_limit_is_an_error_line_not_a_signal() {
    let dir = tmpdir("xfsz");
    let out = dir.join("o");
    let o = std::process::Command::new("sh")
        .arg("-c")
        .arg("ulimit -f 100; exec \"$0\" \"$@\"")
        .arg(exe())
        .args([
            "simulate",
            "--graph",
            "data/geometric150.edges",
            "--responses",
        ])
        .args(["--no-plots", "--quiet", "--out"])
        .arg(&out)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    refused(&o, 1, &["File too large"]);
    assert!(!out.exists());
    assert_eq!(names(&dir), Vec::<String>::new(), "staged files left");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sweep without axes (a `[base]` table only) ended its errors with an
/// empty `[sweep point 0: ]` or named the point `''`; with axes the point
/// is named as before.
#[test]
fn a_sweep_without_axes_names_no_empty_point() {
    let dir = tmpdir("no-axes");
    let k = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/karate.edges");
    let run = |name: &str, base: &str, sets: &[&str]| {
        let config = dir.join(format!("{name}.toml"));
        let text = format!("[base]\ngraph = {:?}\n{base}\n", k.display().to_string());
        std::fs::write(&config, text).unwrap();
        let mut c = bin();
        c.arg("sweep").arg("--config").arg(&config);
        for s in sets {
            c.args(["--set", s]);
        }
        c.arg("--out").arg(dir.join(format!("{name}.csv")));
        c.output().unwrap()
    };
    let e = refused(&run("a", "owners = 99", &[]), 2, &["invalid owners '99'"]);
    assert!(
        e.ends_with("expected at most the number of nodes (34)\n"),
        "{e}"
    );
    let e = refused(&run("b", "", &["owners=99,3"]), 2, &[]);
    assert!(e.ends_with("(34) [sweep point 0: owners=99]\n"), "{e}");
    let contradicts = "noise = \"gaussian\"\nmechanism = \"independent\"";
    refused(
        &run("c", contradicts, &[]),
        2,
        &[
            "invalid sweep point '(the base configuration)': expected a valid configuration (invalid mechanism 'independent'",
        ],
    );
    refused(
        &run("d", contradicts, &["seed=1,2"]),
        2,
        &["invalid sweep point 'seed=1': expected a valid configuration"],
    );
    assert_eq!(names(&dir), ["a.toml", "b.toml", "c.toml", "d.toml"]);
}
