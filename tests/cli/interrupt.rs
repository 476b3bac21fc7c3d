//! An interrupted run (Ctrl-C, SIGTERM) leaves nothing behind: neither its
//! output, nor its staging, nor the claim on a new output; a sweep leaves
//! only its progress file, which `--resume` needs.
#![cfg(unix)]

use crate::support::scratch::scratch;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

/// Names in `dir`, sorted.
fn entries(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

fn has_staging(dir: &Path) -> bool {
    entries(dir).iter().any(|n| n.contains(".tmp-"))
}

/// Starts `cmd`, waits until `under_way()` (the run has staged its output),
/// sends `signal` and checks that it exits with 130. Returns `false` (after
/// a visible `SKIPPED:` line) when the run ended before it could be
/// interrupted.
fn interrupt(what: &str, cmd: &mut Command, signal: &str, under_way: impl Fn() -> bool) -> bool {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let t0 = Instant::now();
    while !under_way() && t0.elapsed() < Duration::from_secs(60) {
        if child.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(Duration::from_millis(5));
    }
    let killed = Command::new("kill")
        .args([signal, &child.id().to_string()])
        .status();
    let status = child.wait().unwrap();
    if status.success() || killed.map_or(true, |s| !s.success()) {
        crate::skip::skipped(&format!(
            "{what} {signal}: the run ended before it could be interrupted"
        ));
        return false;
    }
    assert_eq!(status.code(), Some(130), "{what} {signal}");
    true
}

/// `path` writing `out`: 5 M paths, seconds of writing, and an output (about
/// 1 GiB projected) that fits the free space the run checks before it starts.
fn long_path(out: &Path) -> Command {
    let mut cmd = bin();
    cmd.args(["path", "--dim", "1", "--norm", "l1", "--eps-lo", "0.5"])
        .args(["--eps-hi", "15", "--samples", "5000000", "--out"])
        .arg(out);
    cmd
}

/// A `path` file of 8 samples, `dir/in.csv` (and its sidecar `in.json`),
/// for a `plot --kind path` to draw.
fn plot_input(dir: &Path) -> std::path::PathBuf {
    let input = dir.join("in.csv");
    let o = bin()
        .args(["path", "--dim", "1", "--norm", "l1", "--eps-lo", "0.001"])
        .args(["--eps-hi", "1000", "--samples", "8", "--out"])
        .arg(&input)
        .output()
        .unwrap();
    assert!(o.status.success());
    input
}

#[test]
fn interrupted_simulate_removes_its_staging_directory() {
    let dir = scratch("simulate");
    let graph = dir.join("g.edges");
    let made = bin()
        .args([
            "generate", "er", "--n", "20000", "--m", "100000", "--seed", "1", "--out",
        ])
        .arg(&graph)
        .output()
        .unwrap();
    assert!(made.status.success());
    let out = dir.join("sub").join("run");
    for signal in ["-INT", "-TERM"] {
        // All 20,000 owners: far longer than it takes to interrupt.
        let mut cmd = bin();
        cmd.args(["simulate", "--owners", "all", "--values", "uniform:0,1"])
            .args(["--dim", "1", "--no-plots", "--quiet", "--graph"])
            .arg(&graph)
            .arg("--out")
            .arg(&out);
        let sub = dir.join("sub");
        if !interrupt("simulate", &mut cmd, signal, || {
            sub.exists() && has_staging(&sub)
        }) {
            let _ = std::fs::remove_dir_all(&sub);
            continue;
        }
        // Neither the run, its staging, its claim, nor the folder it made.
        assert_eq!(entries(&dir), ["g.edges"], "{signal}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn interrupted_collude_path_and_plot_leave_nothing() {
    let dir = scratch("writers");
    // collude: a claimed new directory, staged.
    let mut cmd = bin();
    cmd.args(["collude", "--graph", "data/karate.edges", "--owners", "all"])
        .args(["--coalition", "nearest:m=3", "--trials", "1000000", "-q"])
        .arg("--out")
        .arg(dir.join("run"));
    if interrupt("collude", &mut cmd, "-INT", || has_staging(&dir)) {
        assert!(entries(&dir).is_empty(), "collude: {:?}", entries(&dir));
    }
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();

    // path: a claimed new file, staged.
    let mut cmd = long_path(&dir.join("p.csv"));
    if interrupt("path", &mut cmd, "-TERM", || has_staging(&dir)) {
        assert!(entries(&dir).is_empty(), "path: {:?}", entries(&dir));
    }

    // plot: a large PNG takes a second or two to draw and encode.
    let input = plot_input(&dir);
    let mut cmd = bin();
    cmd.args([
        "plot", "--kind", "path", "--width", "10000", "--height", "10000",
    ])
    .arg("--input")
    .arg(&input)
    .arg("--out")
    .arg(dir.join("big.png"));
    if interrupt("plot", &mut cmd, "-TERM", || has_staging(&dir)) {
        // `path` writes its range sidecar `in.json` beside the CSV. A signal
        // that lands between the figure's rename and the exit finds nothing
        // staged: the figure is then whole (it decodes), never partial.
        let left = entries(&dir);
        if left.iter().any(|e| e == "big.png") {
            let bytes = std::fs::read(dir.join("big.png")).unwrap();
            let (w, h, _) = crate::plot::common::decode_rgb(&bytes);
            assert_eq!((w, h), (10000, 10000), "plot");
            assert_eq!(left, ["big.png", "in.csv", "in.json"], "plot");
        } else {
            assert_eq!(left, ["in.csv", "in.json"], "plot");
        }
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn interrupted_sweep_leaves_only_its_progress_file() {
    let dir = scratch("sweep");
    let out = dir.join("s.csv");
    let progress = dir.join("s.progress");
    let mut cmd = bin();
    cmd.args([
        "sweep",
        "--set",
        "graph=data/karate.edges",
        "--set",
        "seed=1..2000",
    ])
    .args(["-q", "--threads", "1", "--out"])
    .arg(&out);
    let done = || std::fs::read_to_string(&progress).is_ok_and(|t| t.contains("\n# done,"));
    if interrupt("sweep", &mut cmd, "-TERM", done) {
        assert_eq!(entries(&dir), ["s.progress"]);
        let text = std::fs::read_to_string(&progress).unwrap();
        assert!(text.starts_with("# privdiffuse sweep progress"), "{text}");
        // A later run of the same grid is told to resume (or force).
        let o = bin()
            .args([
                "sweep",
                "--set",
                "graph=data/karate.edges",
                "--set",
                "seed=1..2000",
            ])
            .args(["-q", "--out"])
            .arg(&out)
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("--resume"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

/// An interrupted run leaves nothing in its temporary folder (`TMPDIR`)
/// either: a `path` staging beside its output, and a figure that waits to
/// be written into a named pipe no one reads (a special output is written in
/// place; the signal lands while the run blocks on opening it).
#[test]
fn interrupted_runs_leave_nothing_in_the_temporary_folder() {
    let dir = scratch("tempdir");
    let tmp = dir.join("tmp");
    std::fs::create_dir(&tmp).unwrap();
    let mut cmd = long_path(&dir.join("p.csv"));
    cmd.env("TMPDIR", &tmp);
    if interrupt("path", &mut cmd, "-INT", || has_staging(&dir)) {
        assert_eq!(entries(&dir), ["tmp"], "path");
        assert!(entries(&tmp).is_empty(), "path: {:?}", entries(&tmp));
    }

    let input = plot_input(&dir);
    let fifo = dir.join("f.png");
    let made = Command::new("mkfifo").arg(&fifo).status();
    if !made.is_ok_and(|s| s.success()) {
        crate::skip::skipped("no mkfifo: the named-pipe output is not tried");
        return;
    }
    let mut cmd = bin();
    cmd.env("TMPDIR", &tmp)
        .args(["plot", "--kind", "path", "--input"])
        .arg(&input)
        .arg("--out")
        .arg(&fifo);
    let t0 = Instant::now();
    // Never done without a reader: the signal finds it drawing or blocked.
    if interrupt("plot", &mut cmd, "-TERM", || {
        t0.elapsed() > Duration::from_secs(1)
    }) {
        assert_eq!(entries(&dir), ["f.png", "in.csv", "in.json", "tmp"], "plot");
        assert!(entries(&tmp).is_empty(), "plot: {:?}", entries(&tmp));
    }
}
