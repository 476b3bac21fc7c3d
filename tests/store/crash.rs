//! Crash and resume (issue 24, Acceptance "Crash"): the facebook ego net of
//! node 0 (data/facebook_ego0.edges) with 10 % of its edges held out and
//! added back in batches of 10; one uninterrupted run on 1 thread, one run
//! killed with SIGKILL at 10 random points and resumed on 1 or 2 threads.
//! `answers` and `timeline.csv` must be byte-identical, with no pair ever
//! released twice at one level or at a falling one.

pub(super) use crate::support::scratch::scratch as tmpdir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

pub(super) fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

pub(super) fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// `generate events` on the ego net: START, events, nodes in `dir`.
pub(super) fn ego_events(dir: &Path, remove: &str) -> (PathBuf, PathBuf, PathBuf) {
    let start = dir.join("ego.edges");
    ok(&bin()
        .args(["generate", "events", "--graph", "data/facebook_ego0.edges"])
        .args([
            "--hold-out",
            "0.1",
            "--remove",
            remove,
            "--seed",
            "1",
            "--out",
        ])
        .arg(&start)
        .output()
        .unwrap());
    (
        start.clone(),
        start.with_extension("events.csv"),
        start.with_extension("nodes"),
    )
}

pub(super) fn evolve_args(
    start: &Path,
    events: &Path,
    nodes: &Path,
    db: &Path,
    out: &Path,
) -> Vec<String> {
    let s = |p: &Path| p.display().to_string();
    let mut a: Vec<String> = vec![
        "evolve".into(),
        "--graph".into(),
        s(start),
        "--nodes".into(),
        s(nodes),
    ];
    a.extend([
        "--events".into(),
        s(events),
        "--store".into(),
        s(db),
        "--out".into(),
        s(out),
    ]);
    a.extend(
        [
            "--eps",
            "exp:a=3,b=1",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--values",
            "uniform:0,1",
            "--batch",
            "10",
            "--seed",
            "7",
            "--no-plots",
            "--quiet",
        ]
        .map(String::from),
    );
    a
}

pub(super) fn answers(db: &Path) -> String {
    ok(&bin().args(["answers", "--store"]).arg(db).output().unwrap())
}

/// Every (owner, recipient) is answered at strictly rising levels.
pub(super) fn no_double_release(csv: &str) -> usize {
    let mut last: Option<(String, String, f64)> = None;
    let mut rows = 0;
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        let (o, r, eps) = (
            f[0].to_string(),
            f[1].to_string(),
            f[4].parse::<f64>().unwrap(),
        );
        if let Some((lo, lr, le)) = &last
            && (lo, lr) == (&o, &r)
        {
            assert!(eps > *le, "{o} → {r} released again at ε {eps} after {le}");
        }
        last = Some((o, r, eps));
        rows += 1;
    }
    rows
}

#[test]
fn killed_at_ten_random_points_and_resumed_the_release_is_byte_identical() {
    let dir = tmpdir("crash");
    let (start, events, nodes) = ego_events(&dir, "0");
    let reference = evolve_args(
        &start,
        &events,
        &nodes,
        &dir.join("ref.db"),
        &dir.join("ref"),
    );
    let t = Instant::now();
    ok(&bin()
        .args(&reference)
        .args(["--threads", "1"])
        .output()
        .unwrap());
    let whole = t.elapsed();
    let ref_answers = answers(&dir.join("ref.db"));
    let ref_timeline = std::fs::read(dir.join("ref/timeline.csv")).unwrap();
    let rows = no_double_release(&ref_answers);
    assert!(rows > 100_000, "{rows} answers");

    let db = dir.join("crash.db");
    let args = evolve_args(&start, &events, &nodes, &db, &dir.join("crash"));
    // A fixed sequence of kill delays in (0, whole/3]: xorshift, seed 1.
    let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
    let mut kills = 0;
    for attempt in 0..40 {
        if kills == 10 {
            break;
        }
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        let delay = whole.mul_f64(((x >> 11) as f64 / (1u64 << 53) as f64) / 3.0 + 0.01);
        let threads = if attempt % 2 == 0 { "2" } else { "1" };
        let mut child = bin()
            .args(&args)
            .args(["--resume", "--threads", threads])
            .stdout(Stdio::null())
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        std::thread::sleep(delay);
        if child.try_wait().unwrap().is_none() {
            child.kill().unwrap(); // SIGKILL
            kills += 1;
        }
        let _ = child.wait();
    }
    // Finish: resume until done.
    ok(&bin()
        .args(&args)
        .args(["--resume", "--threads", "2"])
        .output()
        .unwrap());
    assert_eq!(kills, 10, "the run ended before 10 kills");
    let got = answers(&db);
    assert!(got == ref_answers, "answers differ after {kills} kills");
    assert_eq!(
        std::fs::read(dir.join("crash/timeline.csv")).unwrap(),
        ref_timeline,
        "timeline.csv differs after {kills} kills"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Recomputing only the owners the events can affect gives exactly what
/// recomputing every owner gives (removals included), on 1 or 2 threads.
#[test]
fn incremental_recomputation_equals_full_recomputation() {
    let dir = tmpdir("incremental");
    let (start, events, nodes) = ego_events(&dir, "0.05");
    let a = evolve_args(&start, &events, &nodes, &dir.join("a.db"), &dir.join("a"));
    let b = evolve_args(&start, &events, &nodes, &dir.join("b.db"), &dir.join("b"));
    ok(&bin().args(&a).args(["--threads", "2"]).output().unwrap());
    ok(&bin()
        .args(&b)
        .args(["--threads", "1", "--full-recompute"])
        .output()
        .unwrap());
    let (ta, tb) = (
        std::fs::read_to_string(dir.join("a/timeline.csv")).unwrap(),
        std::fs::read_to_string(dir.join("b/timeline.csv")).unwrap(),
    );
    assert_eq!(ta, tb);
    assert!(
        ta.lines().any(|l| l
            .split(',')
            .nth(4)
            .is_some_and(|f| f != "0" && f != "pairs_farther")),
        "removals should move some pairs farther:\n{ta}"
    );
    assert!(answers(&dir.join("a.db")) == answers(&dir.join("b.db")));
    let timings: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("a/timings.json")).unwrap())
            .unwrap();
    let full: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("b/timings.json")).unwrap())
            .unwrap();
    assert!(
        timings["owners_recomputed"].as_u64() < full["owners_recomputed"].as_u64(),
        "{timings} vs {full}"
    );
    let _ = std::fs::remove_dir_all(&dir);
    let _ = Duration::ZERO;
}
