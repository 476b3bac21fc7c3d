//! `evolve` on graphs that grow far apart, and on an edgeless START (issue
//! 33 items 5 and 6).

use super::common::*;
use std::path::{Path, PathBuf};

/// The case: START `0-1-2`, nodes 0–6, events adding 2-3, 3-4,
/// 4-5, 5-6 (one per batch).
fn far_case(dir: &Path) -> (PathBuf, PathBuf, PathBuf) {
    let (s, n, e) = (dir.join("s.edges"), dir.join("s.nodes"), dir.join("e.csv"));
    std::fs::write(&s, "0 1\n1 2\n").unwrap();
    std::fs::write(&n, "0\n1\n2\n3\n4\n5\n6\n").unwrap();
    std::fs::write(
        &e,
        "time,u,v,op\n1,2,3,add\n2,3,4,add\n3,4,5,add\n4,5,6,add\n",
    )
    .unwrap();
    (s, n, e)
}

fn far(dir: &Path, db: &Path, out: &str, extra: &[&str]) -> std::process::Output {
    let (s, n, e) = (dir.join("s.edges"), dir.join("s.nodes"), dir.join("e.csv"));
    bin()
        .arg("evolve")
        .arg("--graph")
        .arg(s)
        .arg("--nodes")
        .arg(n)
        .arg("--events")
        .arg(e)
        .args([
            "--dim",
            "1",
            "--norm",
            "l1",
            "--quiet",
            "--no-plots",
            "--batch",
            "1",
        ])
        .arg("--store")
        .arg(db)
        .arg("--out")
        .arg(dir.join(out))
        .args(extra)
        .output()
        .unwrap()
}

/// Ordered pairs at distance ≥ 4 on the path 0 … k (k + 1 nodes): the
/// pairs whose ε falls out of range under both maps below.
fn far_pairs(k: usize) -> u64 {
    let mut n = 0;
    for a in 0..=k {
        for b in 0..=k {
            if a.abs_diff(b) >= 4 {
                n += 1;
            }
        }
    }
    n
}

/// Item 5: a pair the events bring to a distance whose ε is out of range
/// (underflowed, below 1e-60, below the smallest rung) killed the run at
/// batch 2 after batch 1 was committed, and every resume failed the same
/// way. Now it gets no answer: skipped, counted in the timeline, and the
/// run (or a resumed one) finishes with the same files.
#[test]
fn a_far_new_pair_is_skipped_counted_and_resumable() {
    let dir = tmpdir("far");
    far_case(&dir);
    // ε(4) = e^-9 below the smallest rung of 2^-30 (2^-10); e^-157 < 1e-60.
    for (name, extra) in [
        (
            "discrete",
            &[
                "--eps",
                "exp:a=3,b=3",
                "--noise",
                "discrete",
                "--granularity",
                "2^-30",
            ][..],
        ),
        ("laplace", &["--eps", "exp:a=3,b=40"][..]),
    ] {
        let db = dir.join(format!("{name}.db"));
        let o = far(&dir, &db, name, extra);
        assert!(o.status.success(), "{name}: {}", err(&o));
        let t = std::fs::read_to_string(dir.join(name).join("timeline.csv")).unwrap();
        let header: Vec<&str> = t.lines().next().unwrap().split(',').collect();
        let col = header
            .iter()
            .position(|h| *h == "pairs_skipped")
            .expect("pairs_skipped");
        let skipped: Vec<u64> = t
            .lines()
            .skip(1)
            .map(|l| l.split(',').nth(col).unwrap().parse().unwrap())
            .collect();
        // Batch b connects the path 0 … b + 2.
        let want: Vec<u64> = (0..=4).map(|b| far_pairs(b + 2)).collect();
        assert_eq!(skipped, want, "{name}");
        let s: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(dir.join(name).join("summary.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(s["pairs_skipped"], 12, "{name}");
        // No answer at distance ≥ 4.
        let a = ok(&bin()
            .args(["answers", "--store"])
            .arg(&db)
            .output()
            .unwrap());
        assert!(a.lines().count() > 1);
        for l in a.lines().skip(1) {
            let d: f64 = l.split(',').nth(3).unwrap().parse().unwrap();
            assert!(d < 4.0, "{name}: answered at distance {d}: {l}");
        }
        // A run stopped after batch 2, resumed: the same files.
        let part = dir.join(format!("{name}-part.db"));
        let mut e = privdiffuse::evolve::Evolve::new(dir.join("s.edges"), dir.join("e.csv"), &part)
            .nodes(dir.join("s.nodes"))
            .dim(1)
            .norm(privdiffuse::Norm::L1)
            .batch(1)
            .stop_after(Some(2));
        e = match name {
            "laplace" => e.eps("exp:a=3,b=40".parse().unwrap()),
            _ => e.eps("exp:a=3,b=3".parse().unwrap()).noise(
                privdiffuse::process::discrete::NoiseOptions {
                    noise: privdiffuse::process::discrete::NoiseKind::Discrete,
                    granularity: "2^-30".parse().unwrap(),
                    ..Default::default()
                },
            ),
        };
        e.run().unwrap();
        let o = far(
            &dir,
            &part,
            &format!("{name}-part"),
            &[extra, &["--resume"]].concat(),
        );
        assert!(o.status.success(), "{name} resumed: {}", err(&o));
        let resumed =
            std::fs::read_to_string(dir.join(format!("{name}-part")).join("timeline.csv")).unwrap();
        assert_eq!(resumed, t, "{name}: resumed timeline");
        let b = ok(&bin()
            .args(["answers", "--store"])
            .arg(&part)
            .output()
            .unwrap());
        assert_eq!(b, a, "{name}: resumed answers");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What START already holds is known before anything is written: a map out
/// of range at one of its distances is refused, naming the map as typed,
/// and no store is left.
#[test]
fn a_map_out_of_range_on_start_is_refused_before_anything_is_written() {
    let dir = tmpdir("far-start");
    far_case(&dir);
    std::fs::write(dir.join("s.edges"), "0 1\n1 2\n2 3\n3 4\n4 5\n").unwrap();
    std::fs::write(dir.join("e.csv"), "time,u,v,op\n1,5,6,add\n").unwrap();
    let db = dir.join("x.db");
    let o = far(&dir, &db, "x", &["--eps", "exp:a=3,b=40"]);
    let e = refused(&o, 2, &["--eps", "exp:a=3,b=40", "distance 4 of START"]);
    assert!(!e.contains("0000000000"), "{e}");
    assert!(!db.exists() && !dir.join("x").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// Item 6: `generate events --hold-out 1` wrote a START with 0 edges that
/// `evolve` refused even with every node in `--nodes`.
#[test]
fn an_edgeless_start_from_generate_events_evolves_with_its_nodes() {
    let dir = tmpdir("edgeless");
    let start = dir.join("k.edges");
    ok(&bin()
        .args(["generate", "events", "--graph", "data/karate.edges"])
        .args(["--hold-out", "1", "--seed", "1", "--out"])
        .arg(&start)
        .output()
        .unwrap());
    let db = dir.join("e.db");
    let o = ev(&dir, &db, &["--eps", "exp:a=3,b=1", "--batch", "20"]);
    assert!(o.status.success(), "{}", err(&o));
    let t = std::fs::read_to_string(dir.join("out-e.db/timeline.csv")).unwrap();
    let rows: Vec<&str> = t.lines().collect();
    assert_eq!(rows.len(), 1 + 1 + 78usize.div_ceil(20));
    assert!(rows[1].starts_with("0,,0,0,0,0,0,"), "{}", rows[1]);
    // The default `range:` map needs START's distances: one line naming it.
    let o = ev(&dir, &dir.join("r.db"), &[]);
    refused(&o, 2, &["--eps", "range:"]);
    assert!(!dir.join("r.db").exists());
    // Without the node list an edgeless file is still a mistake.
    let o = bin()
        .args(["info", "--graph"])
        .arg(&start)
        .output()
        .unwrap();
    refused(&o, 1, &["no edges"]);
    let _ = std::fs::remove_dir_all(&dir);
}
