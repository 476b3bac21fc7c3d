//! `evolve`, `answers` and `generate events` as a user runs them: outputs,
//! refusals with one line, a second writer, a reader beside a writer.

use super::crash::{answers, bin, ego_events, evolve_args, no_double_release, ok, tmpdir};
use std::process::{Output, Stdio};

fn err(o: &Output) -> String {
    String::from_utf8(o.stderr.clone()).unwrap()
}

/// A small store on karate (34 nodes), one event per batch.
fn karate(dir: &std::path::Path, extra: &[&str]) -> Output {
    let ev = dir.join("k.csv");
    std::fs::write(&ev, "time,u,v,op\n1,0,9,add\n2,0,1,remove\n3,0,26,add\n").unwrap();
    bin()
        .args(["evolve", "--graph", "data/karate.edges", "--events"])
        .arg(&ev)
        .arg("--store")
        .arg(dir.join("k.db"))
        .arg("--out")
        .arg(dir.join("k"))
        .args([
            "--eps",
            "exp:a=2,b=1",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--batch",
            "1",
            "--quiet",
        ])
        .args(extra)
        .output()
        .unwrap()
}

#[test]
fn evolve_writes_the_timeline_figure_and_summary_and_answers_lists_every_release() {
    let dir = tmpdir("karate");
    ok(&karate(&dir, &[]));
    let t = std::fs::read_to_string(dir.join("k/timeline.csv")).unwrap();
    let lines: Vec<&str> = t.lines().collect();
    assert_eq!(
        lines[0],
        "batch,time,events,pairs_closer,pairs_farther,answers,pairs,mse,mse_theory,eps_spent,\
         resample_mse,resample_eps_spent,frozen_mse,frozen_eps_spent"
    );
    assert_eq!(lines.len(), 1 + 4, "K + 1 rows for K = 3 batches");
    assert!(lines[1].starts_with("0,,0,0,0,"), "{}", lines[1]);
    for f in [
        "summary.json",
        "timings.json",
        "timeline.png",
        "timeline.svg",
    ] {
        assert!(dir.join("k").join(f).exists(), "{f}");
    }
    let a = answers(&dir.join("k.db"));
    assert_eq!(
        a.lines().next(),
        Some("owner,recipient,batch,distance,eps,y1")
    );
    let rows = no_double_release(&a);
    // Batch 0: every ordered pair of the connected karate graph.
    let batch0 = a
        .lines()
        .skip(1)
        .filter(|l| l.split(',').nth(2) == Some("0"))
        .count();
    assert_eq!(batch0, 34 * 33);
    // The timeline counts each batch's releases.
    let released: u64 = lines[1..]
        .iter()
        .map(|l| l.split(',').nth(5).unwrap().parse::<u64>().unwrap())
        .sum();
    assert_eq!(released as usize, rows);
    // Filters.
    let one = ok(&bin()
        .args(["answers", "--owner", "0", "--recipient", "9", "--store"])
        .arg(dir.join("k.db"))
        .output()
        .unwrap());
    let l: Vec<&str> = one.lines().skip(1).collect();
    assert_eq!(
        l.len(),
        2,
        "0 → 9 at batch 0 and again when the edge 0–9 is added:\n{one}"
    );
    assert!(
        l[0].starts_with("0,9,0,2,") && l[1].starts_with("0,9,1,1,"),
        "{one}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn refusals_are_one_line() {
    let dir = tmpdir("refusals");
    ok(&karate(&dir, &[]));
    // The store exists: refused without --resume (usage, exit 2).
    let o = karate(&dir, &[]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("k.db already exists (continue it with --resume"),
        "{}",
        err(&o)
    );
    // Another configuration cannot continue it.
    let o = karate(&dir, &["--resume", "--seed", "2"]);
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains("was made with seed = 1, not 2"),
        "{}",
        err(&o)
    );
    // The same one continues it (nothing left to do) and rewrites the timeline.
    ok(&karate(&dir, &["--resume"]));
    // Bad event rows: file:line, nothing written.
    let ev = dir.join("bad.csv");
    for (text, want) in [
        (
            "time,u,v,op\n1,0,9,add\n2,0,99,add\n",
            ":3: node '99' is not in the start graph",
        ),
        (
            "time,u,v,op\n1,0,1,add\n",
            ":2: add 0 1: the edge is already in the graph",
        ),
        (
            "time,u,v,op\n1,0,9,drop\n",
            ":2: op 'drop': expected add or remove",
        ),
    ] {
        std::fs::write(&ev, text).unwrap();
        let o = bin()
            .args(["evolve", "--graph", "data/karate.edges", "--events"])
            .arg(&ev)
            .arg("--store")
            .arg(dir.join("bad.db"))
            .output()
            .unwrap();
        let e = err(&o);
        assert_eq!(o.status.code(), Some(1), "{e}");
        assert!(
            e.starts_with(&format!("error: {}{want}", ev.display())),
            "{e}"
        );
        assert_eq!(e.lines().count(), 1, "{e}");
        assert!(!dir.join("bad.db").exists());
    }
    // Weighted distances need the paths' top.
    let o = karate(&dir, &["--store", "w.db"]);
    assert_eq!(o.status.code(), Some(2));
    let o = bin()
        .args([
            "evolve",
            "--graph",
            "data/karate.edges",
            "--distance",
            "weighted",
            "--events",
        ])
        .arg(dir.join("k.csv"))
        .arg("--store")
        .arg(dir.join("w.db"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("--eps-max"), "{}", err(&o));
    // A store of another schema version.
    {
        let mut s = privdiffuse::store::Store::open_writer(dir.join("k.db")).unwrap();
        s.write_batch(|w| w.execute_raw("PRAGMA user_version = 9;"))
            .unwrap();
    }
    let o = bin()
        .args(["answers", "--store"])
        .arg(dir.join("k.db"))
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(1));
    assert!(
        err(&o).contains(
            "a release store of schema version 9; this privdiffuse reads versions 1 to 2 only"
        ),
        "{}",
        err(&o)
    );
    assert_eq!(err(&o).lines().count(), 1);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_writer_fails_at_once_while_a_reader_runs_beside_the_writer() {
    let dir = tmpdir("writers");
    let (start, events, nodes) = ego_events(&dir, "0");
    let db = dir.join("w.db");
    let mut args = evolve_args(&start, &events, &nodes, &db, &dir.join("w"));
    // One event per batch: a few hundred transactions.
    let b = args.iter().position(|a| a == "--batch").unwrap();
    args[b + 1] = "1".into();
    let mut first = bin().args(&args).stderr(Stdio::piped()).spawn().unwrap();
    let t = std::time::Instant::now();
    while !dir.join("w/timeline.csv").exists() && t.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let second = bin().args(&args).arg("--resume").output().unwrap();
    let reader = bin()
        .args(["answers", "--store"])
        .arg(&db)
        .output()
        .unwrap();
    let still_running = first.try_wait().unwrap().is_none();
    let done = first.wait_with_output().unwrap();
    assert!(done.status.success(), "{}", err(&done));
    if !still_running {
        crate::skip::skipped("the first writer finished before the second started");
        return;
    }
    assert_eq!(second.status.code(), Some(1));
    // The output directory is claimed first, then the store.
    assert_eq!(
        err(&second),
        format!(
            "error: {} is in use by another run\n",
            dir.join("w").display()
        )
    );
    let listed = ok(&reader);
    assert!(
        listed.lines().count() > 1000,
        "the reader saw the committed batches"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// Two runs with different stores into one `--out` (issue 32 item 2): the
/// second fails at once naming OUT and writes nothing; the first finishes;
/// no `OUT.lock` is left.
/// An `--out` that holds another run's files is refused unless `--force`
/// (it was replaced without a word); `--resume` continues its own.
#[test]
fn an_out_with_files_is_refused_unless_force_or_resume() {
    let dir = tmpdir("out-exists");
    let o = karate(&dir, &[]);
    assert!(o.status.success(), "{}", err(&o));
    let summary = std::fs::read(dir.join("k").join("summary.json")).unwrap();
    // Another store into the same --out.
    let ev = dir.join("k.csv");
    let again = |extra: &[&str]| {
        bin()
            .args(["evolve", "--graph", "data/karate.edges", "--events"])
            .arg(&ev)
            .arg("--store")
            .arg(dir.join("other.db"))
            .arg("--out")
            .arg(dir.join("k"))
            .args(["--dim", "1", "--norm", "l1", "--seed", "9", "--quiet"])
            .args(extra)
            .output()
            .unwrap()
    };
    let o = again(&[]);
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(
        err(&o).contains("already exists") && err(&o).contains("--force"),
        "{}",
        err(&o)
    );
    assert!(!dir.join("other.db").exists(), "refused before its store");
    assert_eq!(
        std::fs::read(dir.join("k").join("summary.json")).unwrap(),
        summary
    );
    let o = again(&["--force"]);
    assert!(o.status.success(), "{}", err(&o));
    assert_ne!(
        std::fs::read(dir.join("k").join("summary.json")).unwrap(),
        summary
    );
    // The first store resumed into its own --out (nothing left to do).
    let o = karate(&dir, &["--resume"]);
    assert!(o.status.success(), "{}", err(&o));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_second_run_into_the_same_out_fails_at_once() {
    let dir = tmpdir("one-out");
    let (start, events, nodes) = ego_events(&dir, "0");
    let out = dir.join("o");
    let mut args = evolve_args(&start, &events, &nodes, &dir.join("a.db"), &out);
    let b = args.iter().position(|a| a == "--batch").unwrap();
    args[b + 1] = "1".into();
    let mut first = bin().args(&args).stderr(Stdio::piped()).spawn().unwrap();
    let t = std::time::Instant::now();
    while !out.join("timeline.csv").exists() && t.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let second = bin()
        .args(evolve_args(
            &start,
            &events,
            &nodes,
            &dir.join("b.db"),
            &out,
        ))
        .output()
        .unwrap();
    let still_running = first.try_wait().unwrap().is_none();
    let done = first.wait_with_output().unwrap();
    assert!(done.status.success(), "{}", err(&done));
    assert!(!dir.join("o.lock").exists(), "the claim is removed");
    if !still_running {
        crate::skip::skipped("the first run finished before the second started");
        return;
    }
    assert_eq!(second.status.code(), Some(1));
    assert_eq!(
        err(&second),
        format!("error: {} is in use by another run\n", out.display())
    );
    assert!(
        !dir.join("b.db").exists(),
        "refused before its store is made"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn generate_events_writes_start_events_and_nodes_together() {
    let dir = tmpdir("generate");
    let (start, events, nodes) = ego_events(&dir, "0.02");
    let e = std::fs::read_to_string(&events).unwrap();
    assert_eq!(e.lines().next(), Some("time,u,v,op"));
    let adds = e.lines().filter(|l| l.ends_with(",add")).count();
    let removes = e.lines().filter(|l| l.ends_with(",remove")).count();
    assert_eq!(adds, (0.1f64 * 2866.0).round() as usize);
    assert_eq!(removes, (0.02 * (2866 - adds) as f64).round() as usize);
    let times: Vec<String> = e
        .lines()
        .skip(1)
        .map(|l| l.split(',').next().unwrap().to_string())
        .collect();
    assert_eq!(
        times,
        (1..=adds + removes)
            .map(|t| t.to_string())
            .collect::<Vec<_>>()
    );
    assert_eq!(
        std::fs::read_to_string(&nodes).unwrap().lines().count(),
        348
    );
    let edges = std::fs::read_to_string(&start).unwrap();
    assert_eq!(
        edges.lines().filter(|l| !l.starts_with('#')).count(),
        2866 - adds
    );
    // Existing outputs are refused (all three are one output).
    let o = bin()
        .args([
            "generate",
            "events",
            "--graph",
            "data/facebook_ego0.edges",
            "--hold-out",
            "0.1",
            "--out",
        ])
        .arg(&start)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", err(&o));
    assert!(err(&o).contains("already exists"));
    let _ = std::fs::remove_dir_all(&dir);
}
