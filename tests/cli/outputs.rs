//! Exclusive outputs: one policy for every command that writes (an existing
//! output is refused without `--force`, a new explicit one is claimed at once
//! so that of two concurrent runs exactly one gets it), its exceptions
//! (devices, links, default locations, `--resume`, a resumed `--state`), and
//! full disks (nothing that looks complete, the path named).

use crate::support::scratch::scratch;
use std::fs;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn run(args: &[&str]) -> Output {
    bin().args(args).output().unwrap()
}

fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

/// Entries of `dir` that a writer stages (`.NAME.tmp-…`).
fn staging(dir: &Path) -> Vec<String> {
    fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with('.') && n.contains(".tmp-"))
        .collect()
}

fn s(p: &Path) -> &str {
    p.to_str().unwrap()
}

/// A graph on which `simulate --owners 300` takes a tenth of a second or so:
/// long enough for a second process to start while the first runs.
fn slow_graph(d: &Path) -> PathBuf {
    let g = d.join("g.edges");
    let o = run(&[
        "generate",
        "er",
        "--n",
        "3000",
        "--m",
        "15000",
        "--seed",
        "1",
        "--out",
        s(&g),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    g
}

fn simulate_cmd(graph: &Path, out: &Path, owners: &str, force: bool) -> Command {
    let mut c = bin();
    c.args(["simulate", "--graph", s(graph), "--owners", owners])
        .args(["--values", "uniform:0,1", "--dim", "1", "--no-plots", "-q"])
        .args(["--out", s(out)])
        .stdout(Stdio::null())
        .stderr(Stdio::piped());
    if force {
        c.arg("--force");
    }
    c
}

#[test]
fn of_two_concurrent_runs_into_one_new_out_exactly_one_succeeds() {
    let d = scratch("race");
    let g = slow_graph(&d);
    let trials = 20;
    let mut wins = 0;
    for t in 0..trials {
        let out = d.join(format!("run{t}"));
        let a = simulate_cmd(&g, &out, "300", false).spawn().unwrap();
        let b = simulate_cmd(&g, &out, "300", false).spawn().unwrap();
        let (a, b) = (a.wait_with_output().unwrap(), b.wait_with_output().unwrap());
        let ok: Vec<&Output> = [&a, &b]
            .into_iter()
            .filter(|o| o.status.success())
            .collect();
        assert_eq!(ok.len(), 1, "trial {t}: {} | {}", err(&a), err(&b));
        let lost = if a.status.success() { &b } else { &a };
        assert_eq!(lost.status.code(), Some(1), "trial {t}: {}", err(lost));
        assert_eq!(
            err(lost),
            format!("error: {} was created by another run\n", out.display()),
            "trial {t}"
        );
        wins += 1;
        // The winner's output is complete; the loser left nothing.
        assert!(out.join("summary.json").exists(), "trial {t}");
        assert!(staging(&d).is_empty(), "trial {t}: {:?}", staging(&d));
    }
    assert_eq!(wins, trials);
    fs::remove_dir_all(&d).unwrap();
}

#[test]
fn concurrent_forced_runs_never_fail_spuriously() {
    let d = scratch("force-race");
    let g = slow_graph(&d);
    let out = d.join("run");
    for t in 0..8 {
        let runs: Vec<_> = (0..3)
            .map(|_| simulate_cmd(&g, &out, "50", true).spawn().unwrap())
            .collect();
        for r in runs {
            let o = r.wait_with_output().unwrap();
            assert!(o.status.success(), "trial {t}: {}", err(&o));
        }
        assert!(out.join("summary.json").exists());
        let entries: Vec<String> = fs::read_dir(&d)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        assert_eq!(entries.len(), 2, "trial {t}: {entries:?}"); // g.edges, run
    }
    fs::remove_dir_all(&d).unwrap();
}

/// A command writing `out`, as a list of arguments.
fn writers(d: &Path) -> Vec<(&'static str, PathBuf, Vec<String>)> {
    let run_dir = d.join("sim");
    let o = run(&[
        "simulate",
        "--graph",
        "data/karate.edges",
        "--owners",
        "3",
        "--out",
        s(&run_dir),
        "-q",
        "--no-plots",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let v = |a: &[&str]| a.iter().map(|x| x.to_string()).collect::<Vec<_>>();
    let p = |n: &str| d.join(n);
    vec![
        (
            "simulate",
            p("simulate"),
            v(&[
                "simulate",
                "--graph",
                "data/karate.edges",
                "--owners",
                "3",
                "-q",
                "--no-plots",
            ]),
        ),
        (
            "collude",
            p("collude"),
            v(&[
                "collude",
                "--graph",
                "data/karate.edges",
                "--owners",
                "2",
                "--coalition",
                "nearest:m=2",
                "--trials",
                "10",
                "-q",
                "--no-plots",
            ]),
        ),
        (
            "sweep",
            p("s.csv"),
            v(&[
                "sweep",
                "--set",
                "graph=data/karate.edges",
                "--set",
                "owners=3",
                "-q",
            ]),
        ),
        (
            "path",
            p("p.csv"),
            v(&[
                "path", "--dim", "1", "--norm", "l1", "--eps-lo", "0.5", "--eps-hi", "15",
            ]),
        ),
        (
            "distances",
            p("d.csv"),
            v(&[
                "distances",
                "--graph",
                "data/karate.edges",
                "--distance",
                "hop",
                "--owner",
                "0",
            ]),
        ),
        (
            "generate",
            p("g.edges"),
            v(&["generate", "geometric", "--n", "30", "--radius", "0.3"]),
        ),
        (
            "plot",
            p("e.svg"),
            v(&["plot", "--input", s(&run_dir), "--kind", "error"]),
        ),
        (
            "subgraph",
            p("ego.edges"),
            v(&["subgraph", "--graph", "data/karate.edges", "--ego", "0"]),
        ),
        (
            "relax",
            p("r.csv"),
            v(&["relax", "--value", "0", "--eps", "1,2"]),
        ),
    ]
}

#[test]
fn every_writer_refuses_an_existing_output_unless_forced() {
    let d = scratch("policy");
    for (name, out, args) in writers(&d) {
        let with = |extra: &[&str]| {
            let mut c = bin();
            c.args(&args).arg("--out").arg(&out).args(extra);
            c.output().unwrap()
        };
        let o = with(&[]);
        assert!(o.status.success(), "{name}: {}", err(&o));
        // Tamper with the output, so that a rewrite would show.
        let marker = if out.is_dir() {
            out.join("summary.json")
        } else {
            out.clone()
        };
        fs::write(&marker, "mine\n").unwrap();
        let o = with(&[]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", err(&o));
        assert_eq!(
            err(&o),
            format!(
                "error: {} already exists (add --force to replace it)\n",
                out.display()
            ),
            "{name}"
        );
        assert_eq!(fs::read_to_string(&marker).unwrap(), "mine\n", "{name}");
        let o = with(&["--force"]);
        assert!(o.status.success(), "{name}: {}", err(&o));
        assert_ne!(fs::read_to_string(&marker).unwrap(), "mine\n", "{name}");
        assert!(staging(&d).is_empty(), "{name}: {:?}", staging(&d));
    }
    // A generated graph's coordinates file counts as its output too.
    fs::remove_file(d.join("g.edges")).unwrap();
    let o = run(&[
        "generate",
        "geometric",
        "--n",
        "30",
        "--radius",
        "0.3",
        "--out",
        s(&d.join("g.edges")),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("g.coords.csv already exists"),
        "{}",
        err(&o)
    );
    assert!(
        !d.join("g.edges").exists(),
        "the edge list's claim is released"
    );
    // So does a sweep's progress file (an interrupted sweep): --resume or --force.
    fs::remove_file(d.join("s.csv")).unwrap();
    fs::remove_file(d.join("s.timings.csv")).unwrap();
    fs::remove_file(d.join("s.summary.csv")).unwrap();
    fs::write(d.join("s.progress"), "x\n").unwrap();
    let o = run(&[
        "sweep",
        "--set",
        "graph=data/karate.edges",
        "--set",
        "owners=3",
        "-q",
        "--out",
        s(&d.join("s.csv")),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("s.progress")
            && err(&o).contains("--resume")
            && err(&o).contains("--force"),
        "{}",
        err(&o)
    );
    assert!(!d.join("s.csv").exists());
    fs::remove_dir_all(&d).unwrap();
}

#[cfg(unix)]
#[test]
fn overwriting_stays_where_it_is_the_point() {
    let d = scratch("exceptions");
    // A device is written in place, a link through.
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
        "/dev/null",
    ]);
    assert!(o.status.success(), "{}", err(&o));
    let target = d.join("target.csv");
    fs::write(&target, "old\n").unwrap();
    let link = d.join("link.csv");
    std::os::unix::fs::symlink("target.csv", &link).unwrap();
    let o = run(&[
        "distances",
        "--graph",
        "data/karate.edges",
        "--distance",
        "hop",
        "--owner",
        "0",
        "--out",
        s(&link),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    assert!(
        fs::read_to_string(&target)
            .unwrap()
            .starts_with("source,target")
    );
    // plot's default output beside its input is replaced.
    let p = d.join("p.csv");
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
        s(&p),
    ]);
    assert!(o.status.success(), "{}", err(&o));
    for _ in 0..2 {
        let o = run(&["plot", "--input", s(&p), "--kind", "path"]);
        assert!(o.status.success(), "{}", err(&o));
    }
    assert!(d.join("p_path.png").exists());
    // relax --state: the state resumed is updated; a new one is created.
    let state = d.join("state.json");
    for eps in ["1", "2"] {
        let o = run(&["relax", "--value", "0", "--eps", eps, "--state", s(&state)]);
        assert!(o.status.success(), "{}", err(&o));
    }
    assert!(fs::read_to_string(&state).unwrap().contains('2'));
    // sweep --resume over a finished sweep recomputes it in place.
    let out = d.join("s.csv");
    let args = [
        "sweep",
        "--set",
        "graph=data/karate.edges",
        "--set",
        "owners=3",
        "-q",
        "--out",
        s(&out),
    ];
    let o = run(&args);
    assert!(o.status.success(), "{}", err(&o));
    let first = fs::read(&out).unwrap();
    let o = bin().args(args).arg("--resume").output().unwrap();
    assert!(o.status.success(), "{}", err(&o));
    assert_eq!(fs::read(&out).unwrap(), first);
    fs::remove_dir_all(&d).unwrap();
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_device_fails_naming_it() {
    if !Path::new("/dev/full").exists() {
        crate::skip::skipped("/dev/full absent");
        return;
    }
    for args in [
        vec![
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
            "50000",
        ],
        vec![
            "distances",
            "--graph",
            "data/karate.edges",
            "--distance",
            "hop",
            "--owner",
            "0",
        ],
        vec!["relax", "--value", "0", "--eps", "1,2", "--trials", "20000"],
        vec!["generate", "er", "--n", "300", "--m", "2000"],
    ] {
        let mut c = bin();
        let o = c.args(&args).args(["--out", "/dev/full"]).output().unwrap();
        let e = err(&o);
        assert_eq!(o.status.code(), Some(1), "{args:?}: {e}");
        assert_eq!(e.lines().count(), 1, "{args:?}: {e}");
        assert!(
            e.starts_with("error: /dev/full: No space left on device"),
            "{args:?}: {e}"
        );
    }
}

/// Runs `script` (sh) with a 32 KiB tmpfs mounted at `$T` in a private mount
/// namespace (as root, or in a user namespace); `None` if neither is allowed.
#[cfg(target_os = "linux")]
fn on_tiny_disk(dir: &Path, script: &str) -> Option<String> {
    let full = format!(
        "mount -t tmpfs -o size=32k tmpfs \"$T\" || exit 99\n{script}\necho '--- left:'; ls -A \"$T\""
    );
    for flags in [&["-m"][..], &["-r", "-m"][..]] {
        let o = Command::new("unshare")
            .args(flags)
            .args(["sh", "-c", &full])
            .env("T", dir)
            .env("B", env!("CARGO_BIN_EXE_privdiffuse"))
            .env("CARGO_MANIFEST_DIR", env!("CARGO_MANIFEST_DIR"))
            .env_remove("RUST_BACKTRACE")
            .output();
        match o {
            Ok(o) if o.status.code() != Some(99) && o.status.success() => {
                return Some(String::from_utf8_lossy(&o.stdout).into_owned());
            }
            _ => continue,
        }
    }
    None
}

#[cfg(target_os = "linux")]
#[test]
fn a_full_disk_leaves_nothing_that_looks_complete() {
    let d = scratch("tiny");
    // 120 points of about 2 KB of rows each: the progress file outgrows
    // the disk long before the sweep ends.
    let script = "\"$B\" sweep --set graph=data/karate.edges --set dim=1 --set seed=1..120 \
                  --out \"$T/s.csv\" -q --threads 1 2>&1; echo \"exit $?\"\n\
                  \"$B\" simulate --graph data/karate.edges --responses --no-plots -q \
                  --out \"$T/run\" 2>&1; echo \"exit $?\"";
    let Some(text) = on_tiny_disk(&d, script) else {
        crate::skip::skipped("cannot mount a tmpfs (unshare -m / -rm refused)");
        return;
    };
    let (runs, left) = text.split_once("--- left:\n").unwrap();
    let lines: Vec<&str> = runs.lines().collect();
    assert_eq!(lines.len(), 4, "{text}");
    // The sweep: its progress file is named, and all that is left.
    assert!(
        lines[0].starts_with(&format!(
            "error: {}/s.progress: No space left on device",
            d.display()
        )),
        "{text}"
    );
    assert_eq!(lines[1], "exit 1", "{text}");
    // The simulation: no directory, no staging.
    assert!(
        lines[2].starts_with("error: ") && lines[2].contains("No space left on device"),
        "{text}"
    );
    assert_eq!(lines[3], "exit 1", "{text}");
    assert_eq!(
        left.split_whitespace().collect::<Vec<_>>(),
        ["s.progress"],
        "{text}"
    );
    fs::remove_dir_all(&d).unwrap();
}

/// Every writer, run with its own empty temporary folder (`TMPDIR`), leaves
/// nothing there, and nothing but its output beside `--out` (no staging, no
/// lock file) — when it succeeds, when it is refused (the output exists)
/// and when it replaces its output (`--force`).
#[test]
fn writers_leave_nothing_in_the_temporary_folder_or_beside_the_output() {
    let d = scratch("tempdir");
    let tmp = d.join("tmp");
    fs::create_dir(&tmp).unwrap();
    let listing = |dir: &Path| {
        let mut v: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        v.sort();
        v
    };
    for (name, out, args) in writers(&d) {
        let with = |extra: &[&str]| {
            let mut c = bin();
            c.env("TMPDIR", &tmp).args(&args).arg("--out").arg(&out);
            c.args(extra).output().unwrap()
        };
        let o = with(&[]);
        assert!(o.status.success(), "{name}: {}", err(&o));
        let after = listing(&d);
        assert!(
            !after
                .iter()
                .any(|n| n.contains(".tmp-") || n.ends_with(".lock")),
            "{name}: {after:?}"
        );
        assert!(listing(&tmp).is_empty(), "{name}: {:?}", listing(&tmp));
        let o = with(&[]);
        assert_eq!(o.status.code(), Some(2), "{name}: {}", err(&o));
        assert_eq!(listing(&d), after, "{name}: refused");
        assert!(listing(&tmp).is_empty(), "{name}: {:?}", listing(&tmp));
        let o = with(&["--force"]);
        assert!(o.status.success(), "{name}: {}", err(&o));
        assert_eq!(listing(&d), after, "{name}: forced");
        assert!(listing(&tmp).is_empty(), "{name}: {:?}", listing(&tmp));
    }
}

/// `--out /dev/stdout` with standard output a pipe (`… | wc -c`) writes the
/// bytes `--out -` writes, for every command whose `--out` is one file
/// (it failed with "/dev/stdout: No such file or directory": the link chain
/// ends at `/proc/self/fd/1 -> pipe:[N]`).
#[cfg(target_os = "linux")]
#[test]
fn out_dev_stdout_into_a_pipe_is_standard_output() {
    let karate = Path::new(env!("CARGO_MANIFEST_DIR")).join("data/karate.edges");
    let karate = karate.to_str().unwrap();
    let rows: &[&[&str]] = &[
        &[
            "path", "--dim", "1", "--norm", "l1", "--eps-lo", "1", "--eps-hi", "2",
        ],
        &["relax", "--value", "0", "--eps", "1,2"],
        &["distances", "--graph", karate, "--owners", "0,1"],
    ];
    for args in rows {
        let mut outs = Vec::new();
        for out in ["/dev/stdout", "-"] {
            let mut a = args.to_vec();
            a.extend(["--out", out]);
            let o = bin().args(&a).stdout(Stdio::piped()).output().unwrap();
            assert!(o.status.success(), "{a:?}: {}", err(&o));
            outs.push(o.stdout);
        }
        assert!(!outs[0].is_empty(), "{args:?}");
        assert_eq!(outs[0], outs[1], "{args:?}");
    }
}
