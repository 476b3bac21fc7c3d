//! The release store refuses what is not its own and leaves nothing behind
//! (issue 33 items 1–4, 11 for the store).

use super::common::*;
use std::path::Path;
use std::time::{Duration, Instant};

/// Every byte of `path` and of the `-wal`/`-shm`/`.lock` names beside it.
fn snapshot(path: &Path) -> Vec<(String, Option<Vec<u8>>)> {
    ["", "-wal", "-shm", ".lock"]
        .iter()
        .map(|s| {
            let mut p = path.as_os_str().to_os_string();
            p.push(s);
            (s.to_string(), std::fs::read(&p).ok())
        })
        .collect()
}

fn tables(db: &Path) -> Vec<String> {
    let c = rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap();
    let mut st = c
        .prepare("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")
        .unwrap();
    st.query_map([], |r| r.get(0))
        .unwrap()
        .collect::<Result<_, _>>()
        .unwrap()
}

/// Item 1: `sqlite3 f.db "create table mydata(x)"; EV --store f.db --resume`
/// wrote the store's schema and a release into the user's database.
#[test]
fn a_foreign_sqlite_file_is_refused_and_never_written() {
    let dir = tmpdir("foreign");
    karate_events(&dir);
    let f = dir.join("f.db");
    {
        let c = rusqlite::Connection::open(&f).unwrap();
        c.execute_batch("CREATE TABLE mydata(x); INSERT INTO mydata VALUES (42);")
            .unwrap();
    }
    let before = snapshot(&f);
    for extra in [&["--resume"][..], &[][..]] {
        let o = ev(&dir, &f, extra);
        refused(&o, 1, &["not a privdiffuse release store", "f.db"]);
        assert_eq!(snapshot(&f), before, "{extra:?}: the file was touched");
    }
    assert_eq!(tables(&f), ["mydata"]);
    let o = bin().args(["answers", "--store"]).arg(&f).output().unwrap();
    let e = refused(&o, 1, &["not a privdiffuse release store", "f.db"]);
    assert!(!e.contains(":0"), "{e}");
    // Not SQLite at all.
    let t = dir.join("notes.db");
    std::fs::write(&t, "my notes\n").unwrap();
    let o = ev(&dir, &t, &["--resume"]);
    refused(&o, 1, &["not a privdiffuse release store", "notes.db"]);
    assert_eq!(std::fs::read(&t).unwrap(), b"my notes\n");
    assert_eq!(
        names(&dir),
        ["f.db", "k.edges", "k.events.csv", "k.nodes", "notes.db"]
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A store of this build: made by `EV` in `dir` (batches of 5).
fn store(dir: &Path, name: &str) -> std::path::PathBuf {
    karate_events(dir);
    let db = dir.join(name);
    ok(&ev(dir, &db, &["--batch", "5"]));
    db
}

/// Item 2: `update meta set value='3' where key='schema_version'` (or
/// `'x'`): `--resume` and `answers` went on.
#[test]
fn unknown_schema_versions_are_refused_naming_them() {
    let dir = tmpdir("versions");
    let db = store(&dir, "s.db");
    let rows = |db: &Path| tables_rows(db, "timeline");
    let n = rows(&db);
    for v in ["3", "x"] {
        let c = dir.join(format!("v{v}.db"));
        std::fs::copy(&db, &c).unwrap();
        rusqlite::Connection::open(&c)
            .unwrap()
            .execute_batch(&format!(
                "UPDATE meta SET value = '{v}' WHERE key = 'schema_version';"
            ))
            .unwrap();
        let want = format!("schema version '{v}'");
        let o = bin().args(["answers", "--store"]).arg(&c).output().unwrap();
        refused(&o, 1, &[&want, "reads versions 1 to 2 only"]);
        let o = ev(&dir, &c, &["--batch", "5", "--resume"]);
        refused(&o, 1, &[&want]);
        assert_eq!(rows(&c), n, "nothing written");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

fn tables_rows(db: &Path, table: &str) -> i64 {
    rusqlite::Connection::open_with_flags(db, rusqlite::OpenFlags::SQLITE_OPEN_READ_ONLY)
        .unwrap()
        .query_row(&format!("SELECT count(*) FROM {table}"), [], |r| r.get(0))
        .unwrap()
}

/// Waits for `child` at most `limit` (killing it past that).
fn bounded(mut child: std::process::Child, limit: Duration) -> Option<std::process::Output> {
    let t = Instant::now();
    while t.elapsed() < limit {
        if child.try_wait().unwrap().is_some() {
            return Some(child.wait_with_output().unwrap());
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    let _ = child.kill();
    let _ = child.wait();
    None
}

/// Item 3: a FIFO as store blocked `answers` (and Python's
/// `Store('f.db').answers()`) forever.
#[test]
fn a_fifo_as_store_is_refused_at_once() {
    let dir = tmpdir("fifo");
    let f = dir.join("f.db");
    assert!(
        std::process::Command::new("mkfifo")
            .arg(&f)
            .status()
            .unwrap()
            .success()
    );
    let child = bin()
        .args(["answers", "--store"])
        .arg(&f)
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let o = bounded(child, Duration::from_secs(10)).expect("answers on a FIFO blocked");
    refused(&o, 1, &["f.db", "not a regular file"]);
    // The library's reader (what Python's `Store` calls), in a thread.
    let (tx, rx) = std::sync::mpsc::channel();
    let g = f.clone();
    std::thread::spawn(move || {
        let _ = tx.send(privdiffuse::store::Store::open(&g).map(|_| ()));
    });
    let r = rx
        .recv_timeout(Duration::from_secs(10))
        .expect("Store::open on a FIFO blocked");
    assert!(r.unwrap_err().to_string().contains("not a regular file"));
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 4: reading left `-wal`/`-shm` files beside the store, and failed
/// without write access with a bogus ":0".
#[test]
fn reading_a_store_leaves_nothing_and_needs_no_write_access() {
    let dir = tmpdir("readers");
    let db = store(&dir, "s.db");
    // (Lock files are item 11's: `trust::state`.)
    let listing: Vec<String> = names(&dir)
        .into_iter()
        .filter(|n| !n.ends_with(".lock"))
        .collect();
    assert!(
        !listing.iter().any(|n| n.starts_with("s.db-")),
        "{listing:?}"
    );
    let names = |d: &Path| -> Vec<String> {
        names(d)
            .into_iter()
            .filter(|n| !n.ends_with(".lock"))
            .collect()
    };
    let a = ok(&bin()
        .args(["answers", "--store"])
        .arg(&db)
        .output()
        .unwrap());
    assert_eq!(names(&dir), listing, "answers left files beside the store");
    // The library's reader too.
    drop(privdiffuse::store::Store::open(&db).unwrap());
    assert_eq!(names(&dir), listing);
    // A store is created private: it holds the owners' values.
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(&db).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode & 0o077, 0, "store mode {mode:o}");
    // (A missing store: `trust::messages`.)
    // Another user, no write access to the store or its folder.
    if !is_root()
        || std::process::Command::new("setpriv")
            .arg("--help")
            .output()
            .is_err()
    {
        privdiffuse_skip("not root, or no setpriv: no other user to read as");
        return;
    }
    let ro = dir.join("ro");
    std::fs::create_dir(&ro).unwrap();
    std::fs::copy(&db, ro.join("s.db")).unwrap();
    std::fs::set_permissions(ro.join("s.db"), std::fs::Permissions::from_mode(0o444)).unwrap();
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
    let as_nobody = || {
        std::process::Command::new("setpriv")
            .args(["--reuid", "65534", "--regid", "65534", "--clear-groups"])
            .arg(exe())
            .args(["answers", "--store"])
            .arg(ro.join("s.db"))
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap()
    };
    let o = as_nobody();
    if err(&o).contains("Permission denied") && err(&o).contains(&*exe().to_string_lossy()) {
        privdiffuse_skip("the other user cannot run this build");
    } else {
        assert_eq!(
            ok(&o),
            a,
            "a reader without write access lists the same answers"
        );
        assert_eq!(names(&ro), ["s.db"]);
        // A write-ahead log beside it holds commits immutable reading would
        // miss: refused, naming it.
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
        std::fs::write(ro.join("s.db-wal"), b"").unwrap();
        std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o555)).unwrap();
        let o = as_nobody();
        let e = refused(&o, 1, &["s.db-wal"]);
        assert!(!e.contains(":0"), "{e}");
    }
    std::fs::set_permissions(&ro, std::fs::Permissions::from_mode(0o755)).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
}

fn privdiffuse_skip(why: &str) {
    crate::skip::skipped(why);
}
