//! What the trust-pass tests share: the binary (or, with
//! `PRIVDIFFUSE_TEST_BIN`, another build of it — how these tests were shown
//! to fail on 683415f), scratch folders, outputs.

pub use crate::support::scratch::scratch as tmpdir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

/// The `privdiffuse` under test: this build's, or the one named by
/// `PRIVDIFFUSE_TEST_BIN` (e.g. the release binary of an older commit).
pub fn exe() -> PathBuf {
    std::env::var_os("PRIVDIFFUSE_TEST_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_BIN_EXE_privdiffuse")))
}

pub fn bin() -> Command {
    let mut c = Command::new(exe());
    c.env_remove("RUST_BACKTRACE");
    c
}

pub fn err(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).into_owned()
}

pub fn ok(o: &Output) -> String {
    assert!(o.status.success(), "{}", err(o));
    String::from_utf8(o.stdout.clone()).unwrap()
}

/// A refusal: exit `code`, one line on standard error holding every part.
pub fn refused(o: &Output, code: i32, parts: &[&str]) -> String {
    let e = err(o);
    assert_eq!(o.status.code(), Some(code), "{e}");
    assert_eq!(e.lines().count(), 1, "one line: {e}");
    for p in parts {
        assert!(e.contains(p), "{p:?} not in: {e}");
    }
    e
}

/// The names in `dir`, sorted.
pub fn names(dir: &Path) -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    v.sort();
    v
}

/// `generate events` on karate (hold-out 0.2, remove 0.1, seed 1):
/// `dir/k.edges`, `dir/k.events.csv`, `dir/k.nodes`.
pub fn karate_events(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let start = dir.join("k.edges");
    ok(&bin()
        .args(["generate", "events", "--graph", "data/karate.edges"])
        .args([
            "--hold-out",
            "0.2",
            "--remove",
            "0.1",
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

/// The issue's `EV`: `evolve` on the karate events into `store`, output
/// `dir/out-<store name>`, plus `extra`.
pub fn ev(dir: &Path, store: &Path, extra: &[&str]) -> Output {
    let (start, events, nodes) = (
        dir.join("k.edges"),
        dir.join("k.events.csv"),
        dir.join("k.nodes"),
    );
    let out = dir.join(format!(
        "out-{}",
        store.file_name().unwrap().to_string_lossy()
    ));
    bin()
        .arg("evolve")
        .arg("--graph")
        .arg(&start)
        .arg("--nodes")
        .arg(&nodes)
        .arg("--events")
        .arg(&events)
        .args(["--dim", "1", "--norm", "l1", "--quiet", "--no-plots"])
        .arg("--store")
        .arg(store)
        .arg("--out")
        .arg(out)
        .args(extra)
        .output()
        .unwrap()
}

/// Whether this process runs as root (then `setpriv` can drop to another
/// user for the tests of read-only access).
pub fn is_root() -> bool {
    std::fs::read_to_string("/proc/self/status").is_ok_and(|s| {
        s.lines()
            .find(|l| l.starts_with("Uid:"))
            .is_some_and(|l| l.split_whitespace().nth(1) == Some("0"))
    })
}
