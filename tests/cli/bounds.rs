//! Input that breaks a bound — `/dev/zero`, gzip bombs, endless FIFOs, corrupt
//! gzip — ends with a one-line error naming the file within seconds, in
//! bounded memory: each case runs under `ulimit -v` (a run that buffered the
//! input would abort at the allocation, exit 134). Bombs are built here, from
//! repeated gzip members (a `MultiGzDecoder` reads them as one stream), so a
//! 512 MiB line costs a few kB of disk and no time to compress.

use crate::support::scratch::scratch;
use flate2::Compression;
use flate2::write::GzEncoder;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::time::{Duration, Instant};

fn repo(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}

/// Runs the program with `args` under `ulimit -v kib`, in `dir`.
fn limited(kib: u64, dir: &Path, args: &[&str]) -> (Output, Duration) {
    let t = Instant::now();
    let o = Command::new("sh")
        .arg("-c")
        .arg(format!("ulimit -v {kib} && exec \"$0\" \"$@\""))
        .arg(env!("CARGO_BIN_EXE_privdiffuse"))
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .env_remove("RUST_LIB_BACKTRACE")
        .output()
        .expect("sh runs");
    (o, t.elapsed())
}

/// Asserts exit `code`, a one-line message holding every part, within 10 s.
fn refused(r: (Output, Duration), code: i32, parts: &[&str]) -> String {
    let (o, took) = r;
    let err = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(code), "{err}");
    assert_eq!(err.matches('\n').count(), 1, "not one line: {err:?}");
    assert!(err.starts_with("error: "), "{err}");
    for p in parts {
        assert!(err.contains(p), "{p:?} not in {err}");
    }
    assert!(took < Duration::from_secs(10), "took {took:?}: {err}");
    err
}

/// `copies` gzip members each holding `block`.
fn repeated_gzip(block: &[u8], copies: usize) -> Vec<u8> {
    let mut enc = GzEncoder::new(Vec::new(), Compression::fast());
    enc.write_all(block).unwrap();
    let member = enc.finish().unwrap();
    member.repeat(copies)
}

/// 300 MB of address space: enough for any of these runs done right, far
/// too little for the input buffered whole.
const ULIMIT_KIB: u64 = 300_000;

#[test]
fn dev_zero_as_any_input_file_is_refused_at_the_first_line() {
    let dir = scratch("zero");
    let k = repo("data/karate.edges");
    let k = k.to_str().unwrap();
    let long = "line longer than 1 MiB holding binary data";
    let cases: Vec<(Vec<&str>, &str)> = vec![
        (vec!["info", "--graph", "/dev/zero"], long),
        (vec!["info", "--graph", k, "--nodes", "/dev/zero"], long),
        (
            vec![
                "simulate",
                "--graph",
                k,
                "--values",
                "file:/dev/zero",
                "-q",
                "--no-plots",
                "--out",
                "o1",
            ],
            long,
        ),
        (
            vec![
                "collude",
                "--graph",
                k,
                "--coalition",
                "file:/dev/zero",
                "-q",
                "--no-plots",
                "--out",
                "o2",
            ],
            long,
        ),
        (
            vec!["simulate", "--config", "/dev/zero", "-q", "--out", "o3"],
            "larger than 64 MiB",
        ),
        (
            vec![
                "collude",
                "--config",
                "/dev/zero",
                "--coalition",
                "random:m=2",
                "-q",
                "--out",
                "o4",
            ],
            "larger than 64 MiB",
        ),
        (
            vec!["sweep", "--config", "/dev/zero", "-q", "--out", "s.csv"],
            "larger than 16 MiB",
        ),
        (
            vec![
                "relax",
                "--value",
                "0",
                "--eps",
                "1,2",
                "--state",
                "/dev/zero",
                "--out",
                "r.csv",
            ],
            "the file is larger than",
        ),
        (
            vec![
                "plot",
                "--input",
                "/dev/zero",
                "--kind",
                "error",
                "--out",
                "z.png",
            ],
            "line longer than 1 MiB",
        ),
    ];
    for (args, part) in cases {
        refused(
            limited(ULIMIT_KIB, &dir, &args),
            1,
            &["/dev/zero:1: ", part],
        );
    }
    // Nothing was written.
    assert_eq!(std::fs::read_dir(&dir).unwrap().count(), 0);
}

#[test]
fn gzip_bomb_of_one_huge_line_stops_at_the_line_bound() {
    let dir = scratch("bomb-line");
    // 512 MiB without a newline, in ~1 MB of gzip.
    let gz = repeated_gzip(&vec![b'7'; 1 << 20], 512);
    std::fs::write(dir.join("line.gz"), gz).unwrap();
    let r = limited(ULIMIT_KIB, &dir, &["info", "--graph", "line.gz"]);
    refused(r, 1, &["line.gz:1: line longer than 1 MiB"]);
}

#[test]
fn gzip_bomb_of_repeated_lines_loads_in_memory_for_its_distinct_edges() {
    let dir = scratch("bomb-lines");
    // 20 M lines `1 2` (80 MB decoded, 400 kB of gzip): past the point where
    // the loader compacts its edge buffer instead of growing it.
    let gz = repeated_gzip(&b"1 2\n".repeat(1 << 20), 20);
    std::fs::write(dir.join("ones.gz"), gz).unwrap();
    let (o, took) = limited(ULIMIT_KIB, &dir, &["info", "--json", "--graph", "ones.gz"]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(o.status.success(), "{err}");
    let s: privdiffuse::graph::GraphStats = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((s.nodes, s.edges), (2, 1));
    assert_eq!(s.duplicates_dropped, 20 * (1 << 20) - 1);
    assert!(took < Duration::from_secs(30), "{took:?}");
}

#[test]
fn corrupt_gzip_is_reported_as_corrupt_gzip_not_as_a_column_error() {
    let dir = scratch("corrupt");
    let text: String = (0..20_000)
        .map(|i| format!("{i} {}\n", i * 7 % 20_000))
        .collect();
    let mut enc = GzEncoder::new(Vec::new(), Compression::default());
    enc.write_all(text.as_bytes()).unwrap();
    let gz = enc.finish().unwrap();
    // Damage at several places: some break the deflate stream at once, some
    // decode to garbage lines first and fail only at the checksum.
    for at in [20, gz.len() / 4, gz.len() / 2, gz.len() - 20] {
        let mut bad = gz.clone();
        bad[at] ^= 0x55;
        let name = format!("bad{at}.gz");
        std::fs::write(dir.join(&name), &bad).unwrap();
        let r = limited(ULIMIT_KIB, &dir, &["info", "--graph", &name]);
        let err = refused(
            r,
            1,
            &[
                &format!("{name}:"),
                "gzip data is truncated or corrupt",
                "compressed byte",
            ],
        );
        assert!(!err.contains("column"), "{err}");
    }
}

/// Makes a FIFO at `path` and feeds it from a thread: `chunk(i)` for
/// i = 0, 1, … until the reader goes away or a chunk is empty.
fn endless_fifo(path: &Path, chunk: impl Fn(u64) -> Vec<u8> + Send + 'static) -> bool {
    let ok = Command::new("mkfifo")
        .arg(path)
        .status()
        .is_ok_and(|s| s.success());
    if !ok {
        return false;
    }
    let p = path.to_path_buf();
    // Detached: blocks in `open` until the program opens the FIFO, ends with
    // EPIPE when it closes it.
    std::thread::spawn(move || {
        let Ok(mut f) = std::fs::OpenOptions::new().write(true).open(&p) else {
            return;
        };
        for i in 0.. {
            let c = chunk(i);
            if c.is_empty() || f.write_all(&c).is_err() {
                break;
            }
        }
    });
    true
}

#[test]
fn endless_fifos_end_with_an_error_in_bounded_memory() {
    let dir = scratch("fifo");
    if !endless_fifo(&dir.join("zeros"), |_| vec![0; 1 << 16]) {
        crate::skip::skipped("mkfifo unavailable");
        return;
    }
    let r = limited(ULIMIT_KIB, &dir, &["info", "--graph", "zeros"]);
    refused(
        r,
        1,
        &["zeros:1: line longer than 1 MiB holding binary data"],
    );
    // Distinct edges without end: the graph outgrows the memory budget.
    assert!(endless_fifo(&dir.join("edges"), |i| {
        let mut s = String::new();
        for k in i * 4096..(i + 1) * 4096 {
            s.push_str(&format!("{k} {}\n", k + 1));
        }
        s.into_bytes()
    }));
    let r = limited(ULIMIT_KIB, &dir, &["info", "--graph", "edges"]);
    refused(
        r,
        2,
        &[
            "--graph = edges (",
            " nodes and ",
            "needs about",
            "over the budget of",
            "ulimit -v",
        ],
    );
}

#[test]
fn string_ids_in_a_fifo_load_in_one_pass() {
    // The loader used to read a file of string ids twice (integers first,
    // then again as strings): a FIFO's second open waited forever.
    let dir = scratch("fifo-tokens");
    let fifo = dir.join("fam");
    let text = b"1 2\n2 007\nMedici 1\nStrozzi Medici\n".to_vec();
    // One copy, then the writer closes the FIFO.
    if !endless_fifo(
        &fifo,
        move |i| if i == 0 { text.clone() } else { Vec::new() },
    ) {
        crate::skip::skipped("mkfifo unavailable");
        return;
    }
    let mut child = Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .args(["info", "--json", "--graph"])
        .arg(&fifo)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let t = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if t.elapsed() > Duration::from_secs(10) {
            let _ = child.kill();
            panic!("hung reading a FIFO of string ids");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let o = child.wait_with_output().unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let s: privdiffuse::graph::GraphStats = serde_json::from_slice(&o.stdout).unwrap();
    assert_eq!((s.nodes, s.edges), (5, 4));
}
