//! Cheap resume (issue 24 item 4, schema 2): a run stopped after batch k
//! and resumed rebuilds its state from the store (stored running sums, two
//! searches per owner, the ledger, lazily redrawn pooling sums) without
//! replaying batch 0 — and its `answers` listing and timeline are
//! byte-identical to an uninterrupted run's, at every stopping point tried,
//! with hop distances (additions and removals) and resistance distances. A
//! schema-1 store (no stored sums) is resumed by the full replay, upgraded
//! to schema 2, and gives the same bytes too.

use super::crash::{ego_events, tmpdir};
use privdiffuse::distance::DistanceKind;
use privdiffuse::evolve::{Evolve, EvolveOutput};
use privdiffuse::store::{AnswerFilter, SCHEMA_VERSION, Store};
use privdiffuse::{EpsilonMap, Norm, ValueSpec};
use std::path::Path;

struct Case<'a> {
    start: &'a Path,
    events: &'a Path,
    nodes: &'a Path,
    kind: DistanceKind,
}

fn run(c: &Case<'_>, db: &Path, resume: bool, stop: Option<u64>, threads: usize) -> EvolveOutput {
    let mut ev = Evolve::new(c.start, c.events, db)
        .nodes(c.nodes)
        .eps(EpsilonMap::exp(3.0, 1.0).unwrap())
        .distance(c.kind)
        .dim(1)
        .norm(Norm::L1)
        .values("uniform:0,1".parse::<ValueSpec>().unwrap())
        .batch(10)
        .seed(7)
        .resume(resume)
        .stop_after(stop);
    if c.kind != DistanceKind::Hop {
        ev = ev.eps_max(Some(4.0));
    }
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| ev.run())
        .unwrap()
}

/// The `answers` listing (bytes) and the timeline (exact: `{:?}` of every f64).
fn outputs(db: &Path, out: &EvolveOutput) -> (Vec<u8>, String) {
    let mut s = Store::open(db).unwrap();
    let mut listing = Vec::new();
    s.write_answers(&AnswerFilter::default(), &mut listing)
        .unwrap();
    (listing, format!("{:?}", out.timeline))
}

fn check(name: &str, kind: DistanceKind, remove: &str) {
    let dir = tmpdir(name);
    let (start, events, nodes) = ego_events(&dir, remove);
    let c = Case {
        start: &start,
        events: &events,
        nodes: &nodes,
        kind,
    };
    let whole = run(&c, &dir.join("ref.db"), false, None, 1);
    let k = whole.batches;
    assert!(k >= 10, "{k} batches");
    let (ref_listing, ref_timeline) = outputs(&dir.join("ref.db"), &whole);
    assert!(ref_listing.len() > 100_000);
    for (i, stop) in [0, 1, k / 2, k - 1].into_iter().enumerate() {
        let db = dir.join(format!("stop{stop}.db"));
        let first = run(&c, &db, false, Some(stop), 2);
        assert_eq!(first.timeline.len() as u64, stop + 1);
        let rest = run(&c, &db, true, None, 1 + i % 2);
        assert!(!rest.seconds.full_replay, "stopped after {stop}: replayed");
        assert_eq!(rest.started_at, stop + 1);
        let (listing, timeline) = outputs(&db, &rest);
        assert!(
            listing == ref_listing,
            "{name}: answers differ after a stop at {stop}"
        );
        assert_eq!(timeline, ref_timeline, "{name}: stop at {stop}");
    }
}

#[test]
fn hop_with_removals_resumes_without_replay_byte_identical() {
    check("resume-hop", DistanceKind::Hop, "0.05");
}

#[test]
fn resistance_resumes_without_replay_byte_identical() {
    check("resume-res", DistanceKind::Resistance, "0");
}

#[test]
fn a_schema_1_store_is_replayed_once_upgraded_and_byte_identical() {
    let dir = tmpdir("resume-v1");
    let (start, events, nodes) = ego_events(&dir, "0.05");
    let c = Case {
        start: &start,
        events: &events,
        nodes: &nodes,
        kind: DistanceKind::Hop,
    };
    let whole = run(&c, &dir.join("ref.db"), false, None, 2);
    let reference = outputs(&dir.join("ref.db"), &whole);
    let db = dir.join("v1.db");
    run(&c, &db, false, Some(3), 2);
    {
        // What schema 1 wrote: no stored sums, user_version 1.
        let conn = rusqlite::Connection::open(&db).unwrap();
        conn.execute_batch(
            "DROP TABLE batch_totals; PRAGMA user_version = 1; \
             UPDATE meta SET value = '1' WHERE key = 'schema_version';",
        )
        .unwrap();
    }
    assert!(Store::open(&db).unwrap().totals_at(3).unwrap().is_none());
    assert!(run(&c, &db, true, Some(6), 2).seconds.full_replay);
    let replayed = {
        // The first resume replayed (no sums for batch 3) and upgraded…
        let s = Store::open(&db).unwrap();
        let v: i64 = rusqlite::Connection::open(&db)
            .unwrap()
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(v, SCHEMA_VERSION);
        assert!(s.totals_at(3).unwrap().is_none());
        s.totals_at(6).unwrap().is_some()
    };
    assert!(replayed, "batches after the upgrade store their sums");
    // …the next one does not replay.
    let rest = run(&c, &db, true, None, 1);
    assert!(!rest.seconds.full_replay);
    assert!(outputs(&db, &rest) == reference, "schema-1 resume differs");
}
