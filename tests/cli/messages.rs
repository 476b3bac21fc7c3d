//! Every error is one line that names the file and line, or the parameter:
//! control characters from files and option values are escaped, TOML errors
//! point to their line, and a full disk names the file being written.

use crate::support::scratch::scratch;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE");
    c
}

fn repo(p: &str) -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join(p)
        .to_string_lossy()
        .into_owned()
}

/// Runs `args` in `dir`; asserts exit `code` and a one-line message holding
/// every part; returns the message.
fn one_line_error(dir: &Path, args: &[&str], code: i32, parts: &[&str]) -> String {
    let o: Output = bin().args(args).current_dir(dir).output().unwrap();
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(code), "{args:?}: {err}");
    assert_eq!(err.matches('\n').count(), 1, "not one line: {err:?}");
    assert!(!err.contains('\r'), "raw carriage return: {err:?}");
    for p in parts {
        assert!(err.contains(p), "{p:?} not in {err}");
    }
    err
}

#[test]
fn carriage_returns_in_a_file_are_escaped_and_explained() {
    let dir = scratch("cr");
    std::fs::write(dir.join("mac.edges"), "1 2\r2 3\r3 4\r").unwrap();
    one_line_error(
        &dir,
        &["info", "--graph", "mac.edges"],
        1,
        &["mac.edges:1: '1 2\\r2 3\\r3 4'", "CR-only line endings"],
    );
    // A coalition file and a values table with the same line endings.
    std::fs::write(dir.join("ids.txt"), "1\r2\r3\r").unwrap();
    let k = repo("data/karate.edges");
    one_line_error(
        &dir,
        &[
            "collude",
            "--graph",
            &k,
            "--coalition",
            "file:ids.txt",
            "-q",
            "--out",
            "o",
        ],
        1,
        &["ids.txt:1: ", "'1\\r2\\r3'"],
    );
}

#[test]
fn line_breaks_inside_option_values_are_escaped() {
    let dir = scratch("newline");
    let k = repo("data/karate.edges");
    // A spec refused by the library's parser, a number refused by clap, a
    // coalition spec.
    one_line_error(
        &dir,
        &[
            "simulate",
            "--graph",
            &k,
            "--eps",
            "exp:a=1\nb=2",
            "--out",
            "o",
        ],
        2,
        &["--eps 'exp:a=1\\nb=2'"],
    );
    one_line_error(
        &dir,
        &["simulate", "--graph", &k, "--seed", "1\n2", "--out", "o"],
        2,
        &["'1\\n2'", "--seed"],
    );
    one_line_error(
        &dir,
        &[
            "collude",
            "--graph",
            &k,
            "--coalition",
            "random:m=x\r3",
            "--out",
            "o",
        ],
        2,
        &["random:m=x\\r3"],
    );
    one_line_error(
        &dir,
        &[
            "simulate",
            "--graph",
            &k,
            "--owners",
            "1,\u{1b}[31m",
            "-q",
            "--out",
            "o",
        ],
        2,
        &["\\u{1b}[31m"],
    );
}

#[test]
fn toml_errors_are_one_line_at_the_offending_line() {
    let dir = scratch("toml");
    let write = |name: &str, text: &str| std::fs::write(dir.join(name), text).unwrap();
    // Syntax: the toml crate's five-line report, reduced to one line at the
    // line of the error.
    write(
        "syntax.toml",
        "[base]\neps = \"exp:a=1,b=1\"\n\n[grid]\nseed = [1, 2\ndim = 3\n",
    );
    one_line_error(
        &dir,
        &["sweep", "--config", "syntax.toml", "-q", "--out", "s.csv"],
        1,
        &["syntax.toml:6: not valid TOML: ", "(column 1)"],
    );
    // A bad value in [base] and in [grid], a table that is not allowed:
    // each at its own line.
    write(
        "base.toml",
        "# comment\n[base]\ndim = 1\neps = \"exp:a=1\"\n",
    );
    one_line_error(
        &dir,
        &["sweep", "--config", "base.toml", "-q", "--out", "s.csv"],
        1,
        &["base.toml:4: invalid eps 'exp:a=1'"],
    );
    write("grid.toml", "[grid]\nseed = [1, 2]\n\ndim = [1, \"x\"]\n");
    one_line_error(
        &dir,
        &["sweep", "--config", "grid.toml", "-q", "--out", "s.csv"],
        1,
        &["grid.toml:4: invalid dim 'x'"],
    );
    write("table.toml", "[base]\ndim = 1\n\n[extra]\nx = 1\n");
    one_line_error(
        &dir,
        &["sweep", "--config", "table.toml", "-q", "--out", "s.csv"],
        1,
        &["table.toml:4: invalid sweep file table 'extra'"],
    );
    assert!(!dir.join("s.csv").exists());
}

/// Mounts a tmpfs of `kib` at `dir` (root only); `false` if that fails.
fn tiny_tmpfs(dir: &Path, kib: u64) -> bool {
    std::fs::create_dir_all(dir).unwrap();
    Command::new("mount")
        .args(["-t", "tmpfs", "-o", &format!("size={kib}k"), "tmpfs"])
        .arg(dir)
        .output()
        .is_ok_and(|o| o.status.success())
}

#[test]
fn a_full_disk_names_the_file_being_written() {
    let dir = scratch("full");
    // A graph whose run outputs overflow 64 kB.
    let g = dir.join("g.edges");
    let o = bin()
        .args(["generate", "er", "--n", "400", "--m", "2000", "--out"])
        .arg(&g)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let g = g.to_string_lossy().into_owned();
    // A device that is always full: single-file writers.
    one_line_error(
        &dir,
        &[
            "distances",
            "--graph",
            &g,
            "--distance",
            "hop",
            "--owners",
            "0,1",
            "--out",
            "/dev/full",
        ],
        1,
        &["/dev/full: No space left on device"],
    );
    let mnt = dir.join("mnt");
    if !tiny_tmpfs(&mnt, 64) {
        crate::skip::skipped("cannot mount a tmpfs (not root?)");
        return;
    }
    // 8 kB left: too little for any of the runs below.
    let _ = std::fs::write(mnt.join("fill"), vec![0u8; 56 << 10]);
    let gset = format!("graph={g}");
    let cases: [(&[&str], &str); 3] = [
        (
            &[
                "simulate",
                "--graph",
                &g,
                "--no-plots",
                "-q",
                "--out",
                "mnt/run",
            ],
            "mnt/run/",
        ),
        (
            &[
                "collude",
                "--graph",
                &g,
                "--coalition",
                "random:m=5",
                "--trials",
                "200",
                "--no-plots",
                "-q",
                "--out",
                "mnt/col",
            ],
            "mnt/col/",
        ),
        (
            &[
                "sweep",
                "--set",
                &gset,
                "--set",
                "seed=1..40",
                "-q",
                "--out",
                "mnt/s.csv",
            ],
            // Rows go to the progress file until the sweep is complete.
            "mnt/s.progress",
        ),
    ];
    let mut results = Vec::new();
    for (args, path) in cases {
        let o = bin().args(args).current_dir(&dir).output().unwrap();
        results.push((o, path));
    }
    let _ = Command::new("umount").arg(&mnt).status();
    for (o, path) in results {
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{err}");
        assert_eq!(err.matches('\n').count(), 1, "{err:?}");
        assert!(err.contains("No space left on device"), "{err}");
        assert!(err.contains(path), "{path:?} not in {err}");
        assert!(!err.contains("<simulation output>"), "{err}");
        assert!(!err.contains(".tmp"), "staging path in {err}");
    }
}

/// `--help` and `--version` into a full device fail with one line (the text
/// was lost); a reader that leaves early (`| head`) is no error.
#[test]
fn help_into_a_full_device_is_an_error() {
    if !Path::new("/dev/full").exists() {
        crate::skip::skipped("/dev/full absent");
        return;
    }
    for args in [
        &["simulate", "--help"][..],
        &["generate", "--help"],
        &["--help"],
        &["--version"],
    ] {
        let full = std::fs::OpenOptions::new()
            .write(true)
            .open("/dev/full")
            .unwrap();
        let o = bin().args(args).stdout(full).output().unwrap();
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {err}");
        assert_eq!(err.matches('\n').count(), 1, "{args:?}: {err:?}");
        assert!(err.starts_with("error: <stdout>: "), "{args:?}: {err}");
    }
    let mut child = bin()
        .args(["simulate", "--help"])
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    drop(child.stdout.take()); // the reader leaves at once
    assert_eq!(child.wait().unwrap().code(), Some(0));
}

/// Front-door frictions (issue 34 item 5), one table: a mistyped word of any
/// spec or sweep key is answered with the nearest known one, once; a sweep
/// value cut by the list's commas says the rule and how to escape it.
#[test]
fn typos_get_a_suggestion_and_commas_their_rule() {
    let dir = scratch("typos");
    let karate = repo("data/karate.edges");
    let out = dir.join("o").to_string_lossy().into_owned();
    let csv = dir.join("s.csv").to_string_lossy().into_owned();
    let cases: Vec<(Vec<&str>, Vec<&str>)> = vec![
        (
            vec!["simulate", "--graph", &karate, "--eps", "expo:a=3,b=1"],
            vec!["--eps", "did you mean `exp`?"],
        ),
        (
            vec!["simulate", "--graph", &karate, "--values", "unifrom:0,1"],
            vec!["--values", "did you mean `uniform`?"],
        ),
        (
            vec!["collude", "--graph", &karate, "--coalition", "nearst:m=3"],
            vec!["--coalition", "did you mean `nearest`?"],
        ),
        (
            vec!["simulate", "--graph", &karate, "--distance", "resistence"],
            vec!["--distance", "did you mean `resistance`?"],
        ),
        (
            vec!["simulate", "--graph", &karate, "--mechanism", "corelated"],
            vec!["--mechanism", "did you mean `correlated`?"],
        ),
        (
            vec!["simulate", "--graph", &karate, "--noise", "discret"],
            vec!["--noise", "did you mean `discrete`?"],
        ),
        (
            vec!["simulate", "--graph", &karate, "--post", "clmp:0,1"],
            vec!["--post", "did you mean `clamp`?"],
        ),
        (
            vec!["simulate", "--graph", &karate, "--unreachable", "skp"],
            vec!["--unreachable", "did you mean `skip`?"],
        ),
        (
            vec!["collude", "--graph", &karate, "--estimators", "bset"],
            vec!["--estimators", "did you mean `best`?"],
        ),
        (
            vec!["sweep", "--set", "dims=1,2", "--out", &csv],
            vec!["'dims'", "did you mean `dim`?"],
        ),
        (
            vec!["sweep", "--set", "seeed=1,2", "--out", &csv],
            vec!["'seeed'", "did you mean `seed`?"],
        ),
        (
            vec!["sweep", "--set", "eps=exp:a=3,b=1", "--out", &csv],
            vec!["split on its commas", "eps=exp:a=3,b=1|"],
        ),
    ];
    for (mut args, parts) in cases {
        if args[0] != "sweep" {
            args.extend(["--out", &out, "-q"]);
        }
        let err = one_line_error(&dir, &args, 2, &parts);
        assert_eq!(
            err.matches("did you mean").count(),
            parts.iter().filter(|p| p.contains("did you mean")).count(),
            "{err}"
        );
        assert_eq!(err.matches("invalid").count(), 1, "printed once: {err}");
    }
    // Far from every word: no suggestion.
    let err = one_line_error(
        &dir,
        &[
            "simulate", "--graph", &karate, "--eps", "zzzz:a=1", "--out", &out,
        ],
        2,
        &["--eps"],
    );
    assert!(!err.contains("did you mean"), "{err}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--mechanism gaussian` where only the Laplace or discrete path runs
/// (relay, utility) is refused in one line rather than ignored, and so is
/// every other flag of simulate's options those commands do not use (issue
/// 32 item 3): `--delta` without the Gaussian mechanism and `--bins` with
/// hop distances in simulate and collude too, and `--norm l1` in 2 or more
/// coordinates with the Gaussian mechanism (it ran ℓ2).
#[test]
fn gaussian_is_refused_where_it_would_be_ignored() {
    let dir = scratch("gaussian-refused");
    let karate = repo("data/karate.edges");
    let out = dir.join("o").display().to_string();
    for cmd in ["relay", "utility"] {
        let err = one_line_error(
            &dir,
            &[
                cmd,
                "--graph",
                &karate,
                "--mechanism",
                "gaussian",
                "--out",
                &out,
                "-q",
            ],
            2,
            &["--mechanism", "gaussian", cmd, "simulate or collude"],
        );
        assert!(!Path::new(&out).exists(), "{cmd}: nothing written: {err}");
    }
    for cmd in ["simulate", "collude"] {
        let mut args = vec![cmd, "--graph", &karate, "--mechanism", "gaussian"];
        args.extend(["--norm", "l1", "--dim", "2", "--out", &out, "-q"]);
        if cmd == "collude" {
            args.extend(["--coalition", "random:m=3"]);
        }
        one_line_error(&dir, &args, 2, &["--norm 'l1'", "l2 for the Gaussian"]);
        assert!(!Path::new(&out).exists(), "{cmd}: nothing written");
    }
    // Every flag of simulate's options that the command does not use.
    for (cmd, flag, value) in [
        ("utility", "--mechanism", "both"),
        ("utility", "--bins", "5"),
        ("relay", "--mechanism", "correlated"),
        ("relay", "--delta", "1e-6"),
        ("relay", "--bins", "5"),
        ("utility", "--delta", "1e-6"),
        ("simulate", "--delta", "1e-6"),
        ("simulate", "--bins", "5"),
        ("collude", "--delta", "1e-6"),
        ("collude", "--bins", "5"),
    ] {
        let mut args = vec![cmd, "--graph", &karate, flag, value, "--out", &out, "-q"];
        if cmd == "collude" {
            args.extend(["--coalition", "random:m=3"]);
        }
        one_line_error(&dir, &args, 2, &[flag, cmd, "does not use it"]);
        assert!(!Path::new(&out).exists(), "{cmd} {flag}: nothing written");
    }
    // The same parameters from a `--config` file (simulate accepted them
    // and recorded them, as if used).
    let first = dir.join("first").display().to_string();
    let o = bin()
        .args([
            "simulate",
            "--graph",
            &karate,
            "--no-plots",
            "-q",
            "--out",
            &first,
        ])
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let summary = std::fs::read_to_string(Path::new(&first).join("summary.json")).unwrap();
    for (key, value, why) in [
        ("delta", "1e-6", "Gaussian"),
        ("bins", "5", "hop distances"),
    ] {
        let mut s: serde_json::Value = serde_json::from_str(&summary).unwrap();
        s["config"][key] = serde_json::from_str(value).unwrap();
        let cfg = dir.join(format!("{key}.json"));
        std::fs::write(&cfg, s.to_string()).unwrap();
        let cfg = cfg.display().to_string();
        let args = ["simulate", "--config", &cfg, "--out", &out, "-q"];
        let flag = format!("--{key}");
        one_line_error(&dir, &args, 2, &[flag.as_str(), why]);
        assert!(!Path::new(&out).exists(), "--config {key}: nothing written");
    }
    // The options of a distance the run does not use.
    for cmd in ["simulate", "collude"] {
        for (flag, value, why) in [
            (
                "--resistance-cap",
                "5",
                "with --distance hop: it caps --distance resistance",
            ),
            (
                "--approx-k",
                "8",
                "with --distance hop: it tunes --distance resistance-approx",
            ),
        ] {
            let mut args = vec![cmd, "--graph", &karate, flag, value, "--out", &out, "-q"];
            if cmd == "collude" {
                args.extend(["--coalition", "random:m=3"]);
            }
            one_line_error(&dir, &args, 2, &[flag, why]);
            assert!(!Path::new(&out).exists(), "{cmd} {flag}: nothing written");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `--plots`/`--no-plots` on every command that draws (sweep's default
/// stays "no figure"), and `distances` defaults to hop as every command.
#[test]
fn plots_flags_and_the_distance_default_are_the_same_everywhere() {
    let dir = scratch("plots-flags");
    let karate = repo("data/karate.edges");
    let run = |args: &[&str]| {
        let o = bin().args(args).current_dir(&dir).output().unwrap();
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    };
    run(&[
        "sweep",
        "--set",
        &format!("graph={karate}"),
        "--set",
        "seed=1,2",
        "--set",
        "owners=2",
        "--plots",
        "--x",
        "seed",
        "--no-plots",
        "-q",
        "--out",
        "s.csv",
    ]);
    assert!(dir.join("s.csv").exists() && !dir.join("s.png").exists());
    run(&[
        "simulate",
        "--graph",
        &karate,
        "--owners",
        "2",
        "--no-plots",
        "--plots",
        "-q",
        "--out",
        "sim",
    ]);
    assert!(dir.join("sim/jumps.png").exists());
    run(&[
        "distances",
        "--graph",
        &karate,
        "--owner",
        "0",
        "--out",
        "d.csv",
    ]);
    let hop = std::fs::read_to_string(dir.join("d.csv")).unwrap();
    run(&[
        "distances",
        "--graph",
        &karate,
        "--owner",
        "0",
        "--distance",
        "hop",
        "--out",
        "d2.csv",
    ]);
    assert_eq!(hop, std::fs::read_to_string(dir.join("d2.csv")).unwrap());
    std::fs::remove_dir_all(&dir).unwrap();
}
