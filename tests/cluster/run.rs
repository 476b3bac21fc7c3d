//! `--cluster`: two processes over 127.0.0.1 give the single-process files
//! byte for byte (simulate, utility, collude); a dead, silent or missing peer ends the others with exit
//! code 1 and a one-line message naming it, within the timeout.

use std::fs;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn scratch(name: &str) -> PathBuf {
    let d = std::env::temp_dir().join(format!("pd-cluster-{name}-{}", std::process::id()));
    let _ = fs::remove_dir_all(&d);
    fs::create_dir_all(&d).unwrap();
    d
}

/// A host file of `k` loopback addresses on ports free right now.
fn hostfile(dir: &Path, k: usize) -> (PathBuf, Vec<String>) {
    let listeners: Vec<TcpListener> = (0..k)
        .map(|_| TcpListener::bind("127.0.0.1:0").unwrap())
        .collect();
    let addrs: Vec<String> = listeners
        .iter()
        .map(|l| l.local_addr().unwrap().to_string())
        .collect();
    let f = dir.join("hosts");
    fs::write(&f, addrs.join("\n") + "\n").unwrap();
    (f, addrs)
}

/// Waits for `child` at most `limit`; kills it and fails past that.
fn wait_bounded(mut child: Child, limit: Duration) -> (Output, Duration) {
    let t = Instant::now();
    loop {
        if child.try_wait().unwrap().is_some() {
            return (child.wait_with_output().unwrap(), t.elapsed());
        }
        if t.elapsed() > limit {
            let _ = child.kill();
            let out = child.wait_with_output().unwrap();
            panic!(
                "still running after {limit:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// Every data file of a run directory (timings.json apart), by name.
fn data_files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "timings.json")
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

const RUN: &[&str] = &[
    "simulate",
    "--graph",
    "data/geometric150.edges",
    "--responses",
    "--no-plots",
    "--quiet",
    "--seed",
    "7",
];

fn spawn(args: &[&str], extra: &[String]) -> Child {
    bin()
        .args(args)
        .args(extra)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap()
}

fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

#[test]
fn two_processes_write_the_single_process_files() {
    same_files("same", RUN, "responses.csv");
}

/// The utility: per-recipient sums travel once per process and replicate
/// and add up exactly — the plain run (per-level counted noise, a guessed
/// `range:` hop range), and projected bits (noise drawn per visit).
#[test]
fn two_processes_write_the_single_process_utility_files() {
    let base = [
        "utility",
        "--graph",
        "data/geometric150.edges",
        "--recipients",
        "--replicates",
        "3",
        "--no-plots",
        "--quiet",
        "--seed",
        "7",
    ];
    same_files(
        "utility",
        &[&base[..], &["--dim", "1", "--norm", "l1"]].concat(),
        "recipients.csv",
    );
    same_files(
        "utility-bits",
        &[
            &base[..],
            &["--values", "bits:0.3", "--post", "bit", "--dim", "1"],
        ]
        .concat(),
        "recipients.csv",
    );
}

/// Collusion: owner chunks of 64, their results merged in chunk order by
/// process 0 (150 owners: chunks 0 and 2 on process 0, chunk 1 on process 1).
#[test]
fn two_processes_write_the_single_process_collude_files() {
    same_files(
        "collude",
        &[
            "collude",
            "--graph",
            "data/geometric150.edges",
            "--owners",
            "150",
            "--coalition",
            "far:min-d=4",
            "--coalition",
            "sybil:m=20,d=6",
            "--trials",
            "100",
            "--no-plots",
            "--quiet",
            "--seed",
            "7",
        ],
        "audit.csv",
    );
}

/// `args` run by one process with 2 threads and by 2 processes of 1 worker:
/// process 0 writes the same files (`must` among them), process 1 none.
fn same_files(name: &str, args: &[&str], must: &str) {
    let d = scratch(name);
    let single = d.join("single");
    let out = bin()
        .args(args)
        .args(["--threads", "2", "--out"])
        .arg(&single)
        .output()
        .unwrap();
    assert!(out.status.success(), "{}", stderr(&out));
    let (hosts, _) = hostfile(&d, 2);
    let hosts = hosts.to_string_lossy().into_owned();
    let cl = d.join("cluster");
    let mut children = Vec::new();
    for p in 0..2 {
        let mut extra: Vec<String> = ["--cluster", &hosts, "--process", &p.to_string()]
            .map(String::from)
            .into();
        extra.extend([
            "--workers".into(),
            "1".into(),
            "--cluster-timeout".into(),
            "30".into(),
        ]);
        extra.extend([
            "--out".into(),
            cl.join(format!("p{p}")).to_string_lossy().into_owned(),
        ]);
        children.push(spawn(args, &extra));
    }
    let outs: Vec<Output> = children
        .into_iter()
        .map(|c| wait_bounded(c, Duration::from_secs(60)).0)
        .collect();
    for o in &outs {
        assert!(o.status.success(), "{}", stderr(o));
    }
    // Process 1 writes nothing; process 0 writes the single-process files.
    assert!(!cl.join("p1").exists());
    let a = data_files(&single);
    let b = data_files(&cl.join("p0"));
    assert_eq!(
        a.iter().map(|f| &f.0).collect::<Vec<_>>(),
        b.iter().map(|f| &f.0).collect::<Vec<_>>()
    );
    assert!(a.iter().any(|f| f.0 == must));
    for (x, y) in a.iter().zip(&b) {
        assert!(x.1 == y.1, "{} differs between the two runs", x.0);
    }
    let _ = fs::remove_dir_all(&d);
}

/// A graph file that never delivers a line: a process given it stays in
/// loading (after joining the cluster) until it is killed.
fn endless_graph(dir: &Path) -> PathBuf {
    let f = dir.join("fifo.edges");
    let ok = Command::new("mkfifo")
        .arg(&f)
        .status()
        .is_ok_and(|s| s.success());
    assert!(ok, "mkfifo");
    f
}

fn peer_failure(name: &str, stop: bool) {
    let d = scratch(name);
    let (hosts, addrs) = hostfile(&d, 2);
    let hosts = hosts.to_string_lossy().into_owned();
    let fifo = endless_graph(&d).to_string_lossy().into_owned();
    let base = [
        "--cluster",
        &hosts,
        "--cluster-timeout",
        "3",
        "--quiet",
        "--no-plots",
    ];
    let p0 = spawn(
        &["simulate", "--graph", "data/geometric150.edges"],
        &[
            base.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            vec![
                "--process".into(),
                "0".into(),
                "--out".into(),
                d.join("o").to_string_lossy().into(),
            ],
        ]
        .concat(),
    );
    let mut p1 = spawn(
        &["simulate", "--graph", &fifo],
        &[
            base.iter().map(|s| s.to_string()).collect::<Vec<_>>(),
            vec![
                "--process".into(),
                "1".into(),
                "--out".into(),
                d.join("o1").to_string_lossy().into(),
            ],
        ]
        .concat(),
    );
    // Joined by now (loopback connects in milliseconds); process 1 waits on
    // its graph, process 0 for process 1's chunks.
    std::thread::sleep(Duration::from_millis(1500));
    let pid = p1.id().to_string();
    let sig = if stop { "-STOP" } else { "-KILL" };
    assert!(
        Command::new("kill")
            .args([sig, &pid])
            .status()
            .unwrap()
            .success()
    );
    let (o, took) = wait_bounded(p0, Duration::from_secs(30));
    let _ = p1.kill();
    let _ = p1.wait();
    let e = stderr(&o);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    assert!(e.contains(&format!("lost process 1 ({})", addrs[1])), "{e}");
    assert!(!e.contains("panicked"), "{e}");
    if stop {
        assert!(e.contains("no heartbeat for 3 s"), "{e}");
    }
    // Bounded: the timeout (3 s) plus slack, counted from the failure.
    assert!(took < Duration::from_secs(15), "{took:?}");
    assert!(!d.join("o").exists(), "no output from a failed cluster");
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn a_killed_peer_ends_process_0_naming_it() {
    peer_failure("killed", false);
}

#[test]
fn a_silent_peer_ends_process_0_after_the_timeout() {
    peer_failure("stopped", true);
}

#[test]
fn a_peer_that_never_starts_is_named_within_the_timeout() {
    let d = scratch("absent");
    let (hosts, addrs) = hostfile(&d, 2);
    let hosts = hosts.to_string_lossy().into_owned();
    for (me, other) in [(0, 1), (1, 0)] {
        let args = [
            "simulate",
            "--graph",
            "data/geometric150.edges",
            "--quiet",
            "--no-plots",
        ];
        let c = spawn(
            &args,
            &[
                "--cluster".into(),
                hosts.clone(),
                "--process".into(),
                me.to_string(),
                "--cluster-timeout".into(),
                "2".into(),
                "--out".into(),
                d.join(format!("o{me}")).to_string_lossy().into(),
            ],
        );
        let (o, took) = wait_bounded(c, Duration::from_secs(30));
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(
            e.contains(&format!("process {other} ({})", addrs[other])),
            "{e}"
        );
        assert!(e.contains("within 2 s"), "{e}");
        assert!(
            took >= Duration::from_secs(2) && took < Duration::from_secs(12),
            "{took:?}"
        );
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn bad_cluster_flags_are_refused_with_their_file_line_or_flag() {
    let d = scratch("flags");
    let f = d.join("hosts");
    fs::write(&f, "127.0.0.1:4000\n127.0.0.1:4000\n").unwrap();
    let run = |extra: &[&str]| {
        bin()
            .args(["simulate", "--quiet", "--no-plots", "--cluster"])
            .arg(&f)
            .args(extra)
            .output()
            .unwrap()
    };
    let o = run(&["--process", "0"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        stderr(&o).contains(&format!("{}:2", f.display())),
        "{}",
        stderr(&o)
    );
    assert!(stderr(&o).contains("repeats line 1"), "{}", stderr(&o));
    fs::write(&f, "127.0.0.1:4000\n127.0.0.1:4001\n").unwrap();
    let o = run(&["--process", "2"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--process"), "{}", stderr(&o));
    let o = run(&["--process", "0", "--cluster-timeout", "0"]);
    assert_eq!(o.status.code(), Some(2), "{}", stderr(&o));
    assert!(stderr(&o).contains("--cluster-timeout"), "{}", stderr(&o));
    // --process without --cluster is a usage error.
    let o = bin().args(["simulate", "--process", "0"]).output().unwrap();
    assert_eq!(o.status.code(), Some(2));
    let _ = fs::remove_dir_all(&d);
}
