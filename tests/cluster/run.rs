//! `--cluster`: two processes over 127.0.0.1 give the single-process files
//! byte for byte (simulate, utility, collude), process 1 reading a copy of
//! the inputs at another path; two processes that differ in one option, an
//! input file's content or the command both stop before any work with exit
//! code 1 and the same line naming the option; a dead, silent, missing or
//! failing peer ends the others with exit code 1 and a one-line message
//! naming it, within the timeout.

use crate::scratch::scratch;
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
    // Process 1 reads the same content from another path (inputs are
    // compared by content), and asks for figures and --force (output-only
    // options are not compared).
    let copy = d.join("copy");
    fs::create_dir_all(&copy).unwrap();
    for f in ["geometric150.edges", "geometric150.coords.csv"] {
        fs::copy(Path::new("data").join(f), copy.join(f)).unwrap();
    }
    let copied = copy
        .join("geometric150.edges")
        .to_string_lossy()
        .into_owned();
    let mut children = Vec::new();
    for p in 0..2 {
        let mut own: Vec<&str> = args.to_vec();
        if p == 1 {
            for a in own.iter_mut().filter(|a| **a == "data/geometric150.edges") {
                *a = &copied;
            }
            own.extend(["--plots", "--force"]);
        }
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
        children.push(spawn(&own, &extra));
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

/// A job far longer than any test waits (a chunk of 64 owners × 2,000,000
/// views for each process): both processes are mid-work, past the
/// agreement on their fingerprints, when one is stopped or killed.
const LONG: &[&str] = &[
    "collude",
    "--graph",
    "data/geometric150.edges",
    "--owners",
    "150",
    "--coalition",
    "nearest:m=3",
    "--estimators",
    "best",
    "--mechanism",
    "correlated",
    "--dim",
    "1",
    "--norm",
    "l1",
    "--trials",
    "1000000",
    "--workers",
    "1",
    "--quiet",
    "--no-plots",
];

/// `args` started as processes 0 and 1 of a fresh 2-line host file with a
/// `timeout`, each with its own `--out` (`o0`, `o1` in `d`), plus `extra[p]`.
fn pair(
    d: &Path,
    args: [&[&str]; 2],
    extra: [&[&str]; 2],
    timeout: &str,
) -> (Vec<Child>, Vec<String>) {
    let (hosts, addrs) = hostfile(d, 2);
    let hosts = hosts.to_string_lossy().into_owned();
    let children = (0..2)
        .map(|p| {
            let mut more: Vec<String> = [
                "--cluster",
                &hosts,
                "--process",
                &p.to_string(),
                "--cluster-timeout",
                timeout,
                "--out",
                &d.join(format!("o{p}")).to_string_lossy(),
            ]
            .map(String::from)
            .into();
            more.extend(extra[p].iter().map(|s| s.to_string()));
            spawn(args[p], &more)
        })
        .collect();
    (children, addrs)
}

fn peer_failure(name: &str, stop: bool) {
    let d = scratch(name);
    let (mut children, addrs) = pair(&d, [LONG, LONG], [&[], &[]], "3");
    let mut p1 = children.pop().unwrap();
    let p0 = children.pop().unwrap();
    // Joined and agreed by now (loopback connects in milliseconds); both
    // are computing their first chunk.
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
    assert!(!d.join("o0").exists(), "no output from a failed cluster");
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

/// `zero` and `one` (processes 0 and 1) disagree: both stop before any work
/// with exit code 1 and exactly the line `error: cluster: {message}`, and
/// neither writes anything.
fn refused(name: &str, zero: &[&str], one: &[&str], message: &str) {
    let d = scratch(name);
    let (children, _) = pair(&d, [zero, one], [&[], &[]], "20");
    for (p, c) in children.into_iter().enumerate() {
        let (o, took) = wait_bounded(c, Duration::from_secs(60));
        let e = stderr(&o);
        assert_eq!(o.status.code(), Some(1), "process {p}: {e}");
        assert_eq!(e, format!("error: cluster: {message}\n"), "process {p}");
        assert!(took < Duration::from_secs(20), "process {p}: {took:?}");
        assert!(!d.join(format!("o{p}")).exists(), "process {p} wrote");
    }
    let _ = fs::remove_dir_all(&d);
}

/// `simulate` on the bundled graph plus `more`.
fn sim(more: &[&'static str]) -> Vec<&'static str> {
    let base = [
        "simulate",
        "--graph",
        "data/geometric150.edges",
        "--quiet",
        "--no-plots",
    ];
    [&base[..], more].concat()
}

#[test]
fn a_different_seed_stops_both_processes_naming_it() {
    refused(
        "seed",
        &sim(&["--seed", "1"]),
        &sim(&["--seed", "2"]),
        "process 1 has seed = 2 where process 0 has seed = 1",
    );
}

#[test]
fn a_different_eps_stops_both_processes_naming_it() {
    refused(
        "eps",
        &sim(&["--eps", "exp:a=3,b=1"]),
        &sim(&["--eps", "exp:a=3,b=2"]),
        "process 1 has eps = exp:a=3,b=2 where process 0 has eps = exp:a=3,b=1",
    );
}

#[test]
fn different_owners_stop_both_processes_naming_them() {
    refused(
        "owners",
        &sim(&["--owners", "100"]),
        &sim(&["--owners", "150"]),
        "process 1 has owners = 150 where process 0 has owners = 100",
    );
}

#[test]
fn a_different_command_stops_both_processes_naming_it() {
    let mut utility = sim(&[]);
    utility[0] = "utility";
    refused(
        "command",
        &sim(&[]),
        &utility,
        "process 1 has command = utility where process 0 has command = simulate",
    );
}

/// `--responses` decides which rows every process computes and sends: a
/// process 1 without it would leave its chunks out of `responses.csv`.
#[test]
fn responses_on_one_process_only_stop_both() {
    refused(
        "responses",
        &sim(&["--responses"]),
        &sim(&[]),
        "process 1 has responses = false where process 0 has responses = true",
    );
}

/// Inputs count by content: another graph under the same name differs by
/// its SHA-256 (what `sha256sum` prints for each file).
#[test]
fn a_graph_with_other_content_stops_both_processes() {
    let d = scratch("graph-content");
    let other = d.join("geometric150.edges");
    let mut text = fs::read_to_string("data/geometric150.edges").unwrap();
    text.push_str("# one more line\n");
    fs::write(&other, text).unwrap();
    let other = other.to_string_lossy().into_owned();
    let one = [
        "simulate",
        "--graph",
        &other,
        "--quiet",
        "--no-plots",
        "--values",
        "uniform:0,1",
    ];
    let zero = sim(&["--values", "uniform:0,1"]);
    let (children, _) = pair(&d, [&zero, &one], [&[], &[]], "20");
    let mut lines = Vec::new();
    for c in children {
        let (o, _) = wait_bounded(c, Duration::from_secs(60));
        assert_eq!(o.status.code(), Some(1), "{}", stderr(&o));
        lines.push(stderr(&o));
    }
    assert_eq!(lines[0], lines[1]);
    let e = &lines[0];
    let hex = |s: &str| s.len() == 64 && s.bytes().all(|b| b.is_ascii_hexdigit());
    let rest = e
        .strip_prefix("error: cluster: process 1 has graph.sha256 = ")
        .unwrap_or_else(|| panic!("{e}"));
    let (theirs, ours) = rest
        .trim_end()
        .split_once(" where process 0 has graph.sha256 = ")
        .unwrap_or_else(|| panic!("{e}"));
    assert!(hex(theirs) && hex(ours) && theirs != ours, "{e}");
    let _ = fs::remove_dir_all(&d);
}

/// Process 0 fails after the processes agreed (its `--out` is taken): process
/// 1 does not exit 0 with its share computed for nothing, but 1, naming it.
#[test]
fn a_failing_process_0_ends_the_others_with_exit_1() {
    let d = scratch("zero-fails");
    fs::create_dir_all(d.join("o0")).unwrap();
    fs::write(d.join("o0").join("keep.txt"), "not a run").unwrap();
    let args = sim(&[]);
    let (children, addrs) = pair(&d, [&args, &args], [&[], &[]], "20");
    let outs: Vec<(Output, Duration)> = children
        .into_iter()
        .map(|c| wait_bounded(c, Duration::from_secs(60)))
        .collect();
    let (e0, e1) = (stderr(&outs[0].0), stderr(&outs[1].0));
    // Its own error (a usage error: exit code 2), not the cluster's.
    assert_eq!(outs[0].0.status.code(), Some(2), "{e0}");
    assert!(e0.contains("o0 already exists"), "{e0}");
    assert_eq!(outs[1].0.status.code(), Some(1), "{e1}");
    assert_eq!(e1.lines().count(), 1, "{e1}");
    assert!(e1.contains(&format!("process 0 ({})", addrs[0])), "{e1}");
    assert!(outs[1].1 < Duration::from_secs(20), "{:?}", outs[1].1);
    assert_eq!(
        fs::read_to_string(d.join("o0/keep.txt")).unwrap(),
        "not a run"
    );
    assert!(!d.join("o1").exists());
    let _ = fs::remove_dir_all(&d);
}

/// The relay as the round exchange (issue 26): nodes split over two
/// processes, one timely exchange per round; relay.csv,
/// relay_by_distance.csv and summary.json equal the single-process run's
/// (the owner-chunk engines) byte for byte — the hop protocol with
/// untrimmed relays, and weighted distances.
#[test]
fn two_processes_write_the_single_process_relay_files() {
    same_files(
        "relay",
        &[
            "relay",
            "--graph",
            "data/geometric150.edges",
            "--untrimmed",
            "0,0.05,0.2",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--no-plots",
            "--quiet",
            "--seed",
            "7",
        ],
        "relay_by_distance.csv",
    );
    same_files(
        "relay-weighted",
        &[
            "relay",
            "--graph",
            "tests/golden/karate_weighted.edges",
            "--distance",
            "weighted",
            "--no-plots",
            "--quiet",
        ],
        "relay.csv",
    );
}

/// `relay` on the bundled graph plus `more`.
fn relay(more: &[&'static str]) -> Vec<&'static str> {
    let base = [
        "relay",
        "--graph",
        "data/geometric150.edges",
        "--quiet",
        "--no-plots",
    ];
    [&base[..], more].concat()
}

/// A relay cluster compares its fingerprint as simulate does: a different
/// seed, untrimmed fractions or ε map on one process stops both.
#[test]
fn relay_processes_that_differ_stop_both_naming_the_difference() {
    refused(
        "relay-seed",
        &relay(&["--seed", "1"]),
        &relay(&["--seed", "2"]),
        "process 1 has sim.seed = 2 where process 0 has sim.seed = 1",
    );
    refused(
        "relay-untrimmed",
        &relay(&["--untrimmed", "0,0.2"]),
        &relay(&["--untrimmed", "0,0.05"]),
        "process 1 has untrimmed.1 = 0.05 where process 0 has untrimmed.1 = 0.2",
    );
    refused(
        "relay-eps",
        &relay(&["--eps", "exp:a=3,b=1"]),
        &relay(&["--eps", "exp:a=3,b=2"]),
        "process 1 has sim.eps = exp:a=3,b=2 where process 0 has sim.eps = exp:a=3,b=1",
    );
}

/// `simulate` on the bundled graph started as processes 0 and 1 of a fresh
/// host file, process `p` running the executable `exes[p]`; each process's
/// exit code and standard error.
fn pair_of_binaries(d: &Path, exes: [&Path; 2]) -> Vec<(Option<i32>, String)> {
    let (hosts, _) = hostfile(d, 2);
    let children: Vec<Child> = (0..2)
        .map(|p| {
            Command::new(exes[p])
                .env_remove("RUST_BACKTRACE")
                .args(sim(&["--cluster-timeout", "20"]))
                .arg("--cluster")
                .arg(&hosts)
                .args(["--process", &p.to_string(), "--out"])
                .arg(d.join(format!("o{p}")))
                .stdout(Stdio::piped())
                .stderr(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    children
        .into_iter()
        .map(|c| {
            let (o, _) = wait_bounded(c, Duration::from_secs(60));
            (o.status.code(), stderr(&o))
        })
        .collect()
}

/// A copy of this build's binary at `to`, executable, edited by `edit`.
fn edited_binary(to: &Path, edit: impl FnOnce(&mut Vec<u8>) -> bool) -> bool {
    let mut bytes = fs::read(env!("CARGO_BIN_EXE_privdiffuse")).unwrap();
    if !edit(&mut bytes) {
        return false;
    }
    fs::write(to, bytes).unwrap();
    use std::os::unix::fs::PermissionsExt;
    fs::set_permissions(to, fs::Permissions::from_mode(0o755)).unwrap();
    true
}

/// Issue 33 item 14: peers running different binaries are refused, never
/// merged — one built from another commit (its version says so), and one
/// whose version agrees but whose code differs (a tree with uncommitted
/// changes, a build outside a checkout): the executable's SHA-256 is part
/// of the fingerprint.
#[test]
fn peers_running_different_binaries_stop_both() {
    let d = scratch("binaries");
    let ours = PathBuf::from(env!("CARGO_BIN_EXE_privdiffuse"));
    // Same version, other bytes (trailing bytes: the ELF still runs).
    let other = d.join("privdiffuse-other");
    assert!(edited_binary(&other, |b| {
        b.extend_from_slice(b"another build");
        true
    }));
    let outs = pair_of_binaries(&d, [&ours, &other]);
    for (p, (code, e)) in outs.iter().enumerate() {
        assert_eq!(*code, Some(1), "process {p}: {e}");
        assert!(
            e.starts_with("error: cluster: process 1 has binary.sha256 = "),
            "process {p}: {e}"
        );
        assert!(!d.join(format!("o{p}")).exists(), "process {p} wrote");
    }
    assert_eq!(outs[0].1, outs[1].1);
    // Another commit: the version's git hash differs.
    let commit = d.join("privdiffuse-commit");
    let patched = edited_binary(&commit, |b| {
        // Every copy of "(git HASH)" (the version is embedded in several
        // places), the hash rewritten.
        let at: Vec<usize> = b
            .windows(5)
            .enumerate()
            .filter(|(_, w)| *w == b"(git ")
            .map(|(i, _)| i)
            .collect();
        for &i in &at {
            for c in &mut b[i + 5..i + 15] {
                *c = if *c == b'0' { b'1' } else { b'0' };
            }
        }
        !at.is_empty()
    });
    if patched {
        let outs = pair_of_binaries(&d, [&ours, &commit]);
        for (p, (code, e)) in outs.iter().enumerate() {
            assert_eq!(*code, Some(1), "process {p}: {e}");
            assert!(
                e.starts_with("error: cluster: process 1 has version = 0.1.0 (git "),
                "process {p}: {e}"
            );
        }
    } else {
        eprintln!("SKIPPED: built outside a git checkout: no commit in the version");
    }
    let _ = fs::remove_dir_all(&d);
}
