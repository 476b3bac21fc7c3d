//! `relax --state`: a state replays or is refused; files holding secrets
//! are private; no lock file is left (issue 33 items 7 and 11).

use super::common::*;
use std::path::Path;

fn relax(args: &[&str]) -> std::process::Output {
    bin().arg("relax").args(args).output().unwrap()
}

fn read_json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

fn write_json(p: &Path, v: &serde_json::Value) {
    std::fs::write(p, serde_json::to_string_pretty(v).unwrap() + "\n").unwrap();
}

fn mode(p: &Path) -> u32 {
    use std::os::unix::fs::PermissionsExt;
    std::fs::metadata(p).unwrap().permissions().mode() & 0o777
}

/// Item 7, seeded: a state whose `discrete.word_pos` or `seed` was edited
/// was accepted and changed later answers (the stream replayed: a second
/// release of one secret with other noise). Now the stream is replayed from
/// the seed and the history on load, and any field that differs is refused.
#[test]
fn an_edited_seeded_discrete_state_is_refused() {
    let dir = tmpdir("state-seeded");
    let st = dir.join("st.json");
    let s = st.to_str().unwrap();
    let base = ["--value", "0.3", "--noise", "discrete", "--seed", "4"];
    ok(&relax(
        &[&base[..], &["--eps", "1,0.25", "--state", s]].concat(),
    ));
    let created = mode(&st);
    let good = read_json(&st);
    // The unedited state continues (a copy, to compare the answer).
    let copy = dir.join("copy.json");
    std::fs::copy(&st, &copy).unwrap();
    let cont = ok(&relax(&[
        "--eps",
        "0.125",
        "--state",
        copy.to_str().unwrap(),
    ]));
    type Edit = fn(&mut serde_json::Value);
    let edits: [(&str, Edit); 3] = [
        ("word_pos", |v| {
            let w = v["discrete"]["word_pos"].as_u64().unwrap();
            v["discrete"]["word_pos"] = (w / 2).into();
        }),
        ("seed", |v| v["seed"] = 5.into()),
        ("stream", |v| v["stream"] = 1.into()),
    ];
    for (what, edit) in edits {
        let mut v = good.clone();
        edit(&mut v);
        write_json(&st, &v);
        let before = std::fs::read(&st).unwrap();
        let o = relax(&["--eps", "0.125", "--state", s]);
        let e = refused(&o, 1, &["st.json", "invalid release state"]);
        assert!(e.contains("seed") || e.contains("word_pos"), "{what}: {e}");
        assert!(o.stdout.is_empty(), "{what}: an answer was printed");
        assert_eq!(std::fs::read(&st).unwrap(), before, "{what}: state changed");
    }
    write_json(&st, &good);
    assert_eq!(ok(&relax(&["--eps", "0.125", "--state", s])), cont);
    // Created private (it holds the secret), and no lock file left.
    assert_eq!(created & 0o077, 0, "state mode {created:o}");
    assert_eq!(mode(&st) & 0o077, 0, "state mode {:o}", mode(&st));
    std::fs::remove_file(&copy).unwrap();
    assert_eq!(names(&dir), ["st.json"], "no lock file left");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 7, `--rng os`: no stream to replay; a SHA-256 over the fields
/// catches an accidental edit (only that: whoever holds the state holds the
/// secret).
#[test]
fn an_edited_os_discrete_state_fails_its_checksum() {
    let dir = tmpdir("state-os");
    let st = dir.join("st.json");
    let s = st.to_str().unwrap();
    // One release at 0.25: the walk goes down from the top (256) and the
    // history reads its last row only.
    let args = [
        "--value", "0.3", "--noise", "discrete", "--rng", "os", "--eps", "0.25",
    ];
    ok(&relax(&[&args[..], &["--state", s]].concat()));
    let created = mode(&st);
    let good = read_json(&st);
    let sum = good["sha256"].as_str().expect("a checksum").to_string();
    assert_eq!(sum.len(), 64);
    let mut v = good.clone();
    // A row of the walk no answer was read from (a later request at a
    // higher level would read it): changed by one grid step.
    let values = &mut v["discrete"]["walk"]["path"]["values"];
    assert!(values.as_array().unwrap().len() > 1, "a walk of one row");
    values[0] = (values[0].as_i64().unwrap() + 1).into();
    write_json(&st, &v);
    let o = relax(&["--eps", "4", "--state", s]);
    refused(&o, 1, &["st.json", "sha256"]);
    write_json(&st, &good);
    ok(&relax(&["--eps", "4", "--state", s]));
    assert_eq!(created & 0o077, 0, "state mode {created:o}");
    assert_eq!(names(&dir), ["st.json"]);
    // A Laplace state keeps its format: no checksum.
    let l = dir.join("l.json");
    ok(&relax(&[
        "--value",
        "1",
        "--eps",
        "1",
        "--state",
        l.to_str().unwrap(),
    ]));
    assert!(read_json(&l).get("sha256").is_none());
    assert_eq!(mode(&l) & 0o077, 0);
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 11: `generate events` left `OUT.lock`, `relax --state` left
/// `STATE.lock`, every `evolve` left `FILE.db.lock`.
#[test]
fn no_lock_file_is_left_beside_a_users_files() {
    let dir = tmpdir("locks");
    karate_events(&dir);
    assert_eq!(names(&dir), ["k.edges", "k.events.csv", "k.nodes"]);
    ok(&ev(&dir, &dir.join("s.db"), &[]));
    ok(&ev(&dir, &dir.join("s.db"), &["--resume"]));
    ok(&relax(&[
        "--value",
        "1",
        "--eps",
        "1",
        "--state",
        dir.join("st.json").to_str().unwrap(),
    ]));
    assert_eq!(
        names(&dir),
        [
            "k.edges",
            "k.events.csv",
            "k.nodes",
            "out-s.db",
            "s.db",
            "st.json"
        ]
    );
    let _ = std::fs::remove_dir_all(&dir);
}
