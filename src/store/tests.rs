//! The store's own guarantees, tested by writing around the code: what the
//! schema refuses, the lock, readers beside a writer, versions.

use super::*;
use crate::process::AnchoredPath;

fn config(top: f64) -> StoreConfig {
    StoreConfig {
        seed: 5,
        eps_requested: "exp:a=2,b=1".into(),
        eps: "exp:a=2,b=1".into(),
        eps_max: None,
        top,
        distance: DistanceKind::Hop,
        dim: 1,
        norm: Norm::L1,
        noise: NOISE_LAPLACE.into(),
        granularity: None,
        levels_per_doubling: None,
        rng: None,
        values_requested: "const:1".into(),
        values: "const:1".into(),
        owners: "all".into(),
        batch: 10,
        graph: "g.edges".into(),
        nodes: None,
        events: "g.events.csv".into(),
    }
}

/// A store on the path graph 0-1-2-3 with one owner (0), batch 0 committed.
fn small(dir: &Path) -> (PathBuf, AnchoredPath) {
    let db = dir.join("s.db");
    let mut s = Store::create(&db).unwrap();
    let top = (2f64 - 1.0).exp();
    let mut p = AnchoredPath::new(Norm::L1, 1, top, 5, 0).unwrap();
    p.extend_to((2f64 - 3.0).exp()).unwrap();
    let row = TimelineRow {
        batch: 0,
        time: None,
        events: 0,
        pairs_closer: 3,
        pairs_farther: 0,
        answers: 3,
        pairs: 3,
        mse: Some(1.0),
        mse_theory: Some(1.0),
        eps_spent: Some(1.0),
        resample_mse: Some(1.0),
        resample_eps_spent: Some(1.0),
        frozen_mse: Some(1.0),
        frozen_eps_spent: Some(1.0),
        pairs_skipped: None,
    };
    s.write_batch(|w| {
        w.create(
            &config(top),
            &NodeIds::range(4),
            &[1.0, 1.0, 1.0, 1.0],
            &[(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0)],
        )?;
        w.save_path(0, &OwnerPath::Laplace(p.clone()), 0)?;
        w.insert_timeline(&row)
    })
    .unwrap();
    (db, p)
}

#[track_caller]
fn refused(s: &mut Store, f: impl FnOnce(&mut BatchWriter<'_>) -> Result<()>) -> String {
    s.write_batch(f).unwrap_err().to_string()
}

#[test]
fn the_schema_refuses_a_second_different_release_and_any_rewrite() {
    let dir = tempfile::tempdir().unwrap();
    let (db, p) = small(dir.path());
    let mut s = Store::open_writer(&db).unwrap();
    let e = (2f64 - 2.0).exp();
    let v = f64s_to_blob(p.value_at(e).unwrap());
    // An explicit release read from the path is accepted…
    s.write_batch(|w| w.insert_answer(0, 2, e, 1, 2.0, &v))
        .unwrap();
    // …the same pair again in that batch is refused (key).
    let m = refused(&mut s, |w| w.insert_answer(0, 2, e, 1, 2.0, &v));
    assert!(m.contains("UNIQUE"), "{m}");
    // Other noise at any ε is refused: not the stored path.
    let v0 = p.value_at(e).unwrap()[0];
    let other = f64s_to_blob(&[v0 * (1.0 + 1e-12) + 1e-12]);
    assert_ne!(other, v);
    let m = refused(&mut s, |w| w.insert_answer(0, 3, e, 1, 2.0, &other));
    assert!(m.contains("not the stored path"), "{m}");
    // Above the top, below the bottom: refused.
    let top = p.top();
    let vt = f64s_to_blob(p.value_at(top).unwrap());
    let m = refused(&mut s, |w| w.insert_answer(0, 1, top * 1.5, 1, 1.0, &vt));
    assert!(m.contains("not the stored path"), "{m}");
    let m = refused(&mut s, |w| {
        w.insert_answer(0, 1, p.bottom() / 2.0, 1, 1.0, &vt)
    });
    assert!(m.contains("not the stored path"), "{m}");
    // Rewriting history: segments, paths, answers, timeline, values.
    for (sql, want) in [
        (
            "UPDATE segment SET v = x'0000000000000000' WHERE owner = 0 AND k = 0",
            "append-only",
        ),
        ("DELETE FROM segment WHERE owner = 0", "append-only"),
        (
            "UPDATE path SET top = top * 2 WHERE owner = 0",
            "top is fixed",
        ),
        (
            "UPDATE path SET bottom = top WHERE owner = 0",
            "extends downward",
        ),
        ("DELETE FROM path", "never resampled"),
        ("DELETE FROM answer", "never revoked"),
        ("UPDATE answer SET noise = x'00'", "never changed"),
        ("UPDATE timeline SET mse = 0", "committed once"),
        ("UPDATE node SET u = x'0000000000000000'", "drawn once"),
        (
            "INSERT INTO segment (owner, k, hi, v) VALUES (0, 99, 1e9, x'00')",
            "downward",
        ),
        (
            "INSERT INTO timeline (batch, events, pairs_closer, pairs_farther, answers, pairs) VALUES (5, 0, 0, 0, 0, 0)",
            "in order",
        ),
    ] {
        let m = s
            .write_batch(|w| w.execute_raw(sql))
            .err()
            .map(|e| e.to_string());
        let m = m.unwrap_or_else(|| panic!("accepted: {sql}"));
        assert!(m.contains(want), "{sql}: {m}");
    }
    // Nothing of the refused batches was kept.
    assert_eq!(s.explicit_count().unwrap(), 1);
}

#[test]
fn a_second_writer_fails_at_once_and_readers_run_beside_it() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = small(dir.path());
    let w = Store::open_writer(&db).unwrap();
    let e = Store::open_writer(&db).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!("{} is in use by another run", db.display())
    );
    assert!(matches!(
        Store::create(&db).unwrap_err(),
        Error::InUse { .. }
    ));
    let mut r = Store::open(&db).unwrap();
    assert_eq!(r.last_batch().unwrap(), Some(0));
    assert_eq!(r.answers(&AnswerFilter::default()).unwrap().len(), 3);
    drop(w);
    // The lock is free again; an existing store is refused by `create`.
    let e = Store::create(&db).unwrap_err();
    assert!(e.to_string().contains("already exists"), "{e}");
}

#[test]
fn another_schema_version_or_a_foreign_file_is_refused_in_one_line() {
    let dir = tempfile::tempdir().unwrap();
    let (db, _) = small(dir.path());
    {
        let c = Connection::open(&db).unwrap();
        c.execute_batch("PRAGMA user_version = 7;").unwrap();
    }
    let e = Store::open(&db).unwrap_err().to_string();
    assert!(
        e.contains("schema version 7") && e.contains("versions 1 to 2 only"),
        "{e}"
    );
    assert!(!e.contains('\n'));
    let other = dir.path().join("other.db");
    Connection::open(&other)
        .unwrap()
        .execute_batch("CREATE TABLE t (x);")
        .unwrap();
    let e = Store::open(&other).unwrap_err().to_string();
    assert!(e.contains("not a privdiffuse release store"), "{e}");
}

#[test]
fn batch_zero_is_listed_from_the_path_and_answer_releases_once() {
    let dir = tempfile::tempdir().unwrap();
    let (db, p) = small(dir.path());
    let mut s = Store::open_writer(&db).unwrap();
    let rows = s.answers(&AnswerFilter::default()).unwrap();
    let eps: Vec<f64> = rows.iter().map(|r| r.eps).collect();
    assert_eq!(eps, [1f64.exp(), 1.0, (-1f64).exp()]);
    for r in &rows {
        assert_eq!(r.y[0], 1.0 + p.value_at(r.eps).unwrap()[0]);
        assert_eq!(r.batch, 0);
    }
    // Held answers: nothing new is released.
    let a = s.answer("0", "3").unwrap();
    assert!(!a.released);
    assert_eq!((a.eps, a.y.clone()), (rows[2].eps, rows[2].y.clone()));
    assert!(s.answer("0", "0").is_err());
    assert!(s.answer("1", "0").is_err()); // 1 has no path
    assert!(s.answer("0", "9").is_err());
    // Add edge 0-3 in batch 1: 3 comes closer; answer() releases once.
    s.write_batch(|w| {
        w.insert_events(
            1,
            &[EdgeEvent {
                line: 2,
                time: 1.0,
                u: 0,
                v: 3,
                add: true,
                w: 1.0,
            }],
        )?;
        w.insert_timeline(&TimelineRow {
            batch: 1,
            ..rows_timeline()
        })
    })
    .unwrap();
    let a = s.answer("0", "3").unwrap();
    assert!(a.released && a.eps == 1f64.exp() && a.batch == 1);
    assert_eq!(a.y, rows[0].y); // ε(1) is the level of recipient 1: the same value
    let again = s.answer("0", "3").unwrap();
    assert!(!again.released);
    assert_eq!(again.y, a.y);
    let listed = s.answers(&AnswerFilter {
        owner: Some("0".into()),
        recipient: Some("3".into()),
    });
    let listed = listed.unwrap();
    assert_eq!(listed.len(), 2);
    assert_eq!((listed[1].batch, listed[1].eps), (1, 1f64.exp()));
    // A reader cannot release, but reads held answers.
    drop(s);
    let mut r = Store::open(&db).unwrap();
    assert!(!r.answer("0", "3").unwrap().released);
}

fn rows_timeline() -> TimelineRow {
    TimelineRow {
        batch: 0,
        time: Some(1.0),
        events: 1,
        pairs_closer: 0,
        pairs_farther: 0,
        answers: 0,
        pairs: 0,
        mse: None,
        mse_theory: None,
        eps_spent: None,
        resample_mse: None,
        resample_eps_spent: None,
        frozen_mse: None,
        frozen_eps_spent: None,
        pairs_skipped: None,
    }
}

/// A discrete store (issue 25): integer rows in `segment`, answers
/// `(û + X)·γ` exact, and the same triggers refuse any other value.
#[test]
fn a_discrete_store_keeps_integer_paths_and_refuses_other_noise() {
    use crate::process::discrete::{Grid, RngSource};
    let dir = tempfile::tempdir().unwrap();
    let db = dir.path().join("d.db");
    let mut c = config(4.0);
    c.noise = NOISE_DISCRETE.into();
    c.granularity = Some(Grid::from_exponent(-4).unwrap());
    c.levels_per_doubling = Some(4);
    c.rng = Some(RngSource::Seeded);
    let levels = Levels::of(&c).unwrap();
    // Levels are rungs at or below min(ε(d), top).
    let top = levels.at(0.5).unwrap();
    assert!(top <= 4.0 && top > 4.0 / 2f64.powf(0.25));
    let l3 = levels.at(3.0).unwrap();
    assert!(l3 <= (2f64 - 3.0).exp() && l3 > (2f64 - 3.0).exp() / 2f64.powf(0.25));
    let mut p = levels.new_path(&c, 0).unwrap();
    p.reach(l3).unwrap();
    let u = 0.3;
    let mut s = Store::create(&db).unwrap();
    s.write_batch(|w| {
        w.create(
            &c,
            &NodeIds::range(4),
            &[u, u, u, u],
            &[(0, 1, 1.0), (1, 2, 1.0), (2, 3, 1.0)],
        )?;
        w.save_path(0, &p, 0)?;
        w.insert_timeline(&rows_timeline_at(0))
    })
    .unwrap();
    drop(s);
    let mut s = Store::open_writer(&db).unwrap();
    assert_eq!(s.config().unwrap(), &c);
    let back = s.load_path(0).unwrap().unwrap();
    let rows = s.answers(&AnswerFilter::default()).unwrap();
    assert_eq!(rows.len(), 3);
    let uhat = (u * 16.0 + 0.5).floor() as i64;
    for r in &rows {
        let blob = back.blob_at(r.eps).unwrap();
        assert_eq!(Some(blob.clone()), p.blob_at(r.eps));
        let x = super::path::blob_to_i64s(&blob).unwrap()[0];
        // Exact: a multiple of γ, û + X grid steps.
        assert_eq!(r.y[0], (uhat + x) as f64 / 16.0);
        assert_eq!(r.eps, levels.at(r.distance).unwrap());
    }
    // The path's own value is accepted once; any other integer is refused.
    let e = rows[1].eps;
    let v = back.blob_at(e).unwrap();
    s.write_batch(|w| w.insert_answer(0, 2, e, 1, 2.0, &v))
        .unwrap();
    let x = super::path::blob_to_i64s(&v).unwrap()[0];
    let other = super::path::i64s_to_blob(&[x + 1]);
    let m = refused(&mut s, |w| w.insert_answer(0, 3, e, 1, 2.0, &other));
    assert!(m.contains("not the stored path"), "{m}");
    // An f64 encoding of the same number is another value too.
    let f = f64s_to_blob(&[x as f64]);
    let m = refused(&mut s, |w| w.insert_answer(0, 3, e, 1, 2.0, &f));
    assert!(m.contains("not the stored path"), "{m}");
    // A configuration that mixes the families is refused in one line.
    drop(s);
    {
        let conn = Connection::open(&db).unwrap();
        let mut bad = c.clone();
        bad.noise = NOISE_LAPLACE.into();
        conn.execute(
            "UPDATE meta SET value = ?1 WHERE key = 'config'",
            [serde_json::to_string(&bad).unwrap()],
        )
        .unwrap();
    }
    let e = Store::open(&db).unwrap_err().to_string();
    assert!(
        e.contains("invalid stored configuration") && !e.contains('\n'),
        "{e}"
    );
}

fn rows_timeline_at(batch: u64) -> TimelineRow {
    TimelineRow {
        batch,
        time: None,
        ..rows_timeline()
    }
}
