//! The store's SQL: tables, keys and the triggers that make a second,
//! different release impossible whatever the code above does. The schema is
//! documented in the [module docs](super).

/// The schema version this build writes (`PRAGMA user_version` and the
/// `meta` row `schema_version`). Version 2 adds `batch_totals` (cheap
/// resume, see `store::resume`); it reads versions 1 and 2 and upgrades a
/// version-1 store it opens for writing.
pub const SCHEMA_VERSION: i64 = 2;

/// The oldest schema version this build reads.
pub const SCHEMA_VERSION_MIN: i64 = 1;

/// `PRAGMA application_id`: "PDIF", so that `file` and other tools can tell
/// a release store from any SQLite file. A new store's file carries it from
/// its first write on, before anything else is written (issue 33 item 1):
/// a file without it that holds any page is someone else's and is never
/// written.
pub const APPLICATION_ID: i64 = 0x5044_4946;

/// Refuses a schema version this build does not know (issue 33 item 2):
/// `PRAGMA user_version` must lie in [`SCHEMA_VERSION_MIN`] ..=
/// [`SCHEMA_VERSION`] and the `meta` row `schema_version` must say the same
/// number — a store whose two records disagree was edited, and this build
/// cannot tell which one it is. The message names the version found.
pub(super) fn check_version(user_version: i64, meta: Option<&str>) -> Result<(), String> {
    let reads =
        format!("this privdiffuse reads versions {SCHEMA_VERSION_MIN} to {SCHEMA_VERSION} only");
    if !(SCHEMA_VERSION_MIN..=SCHEMA_VERSION).contains(&user_version) {
        return Err(format!(
            "a release store of schema version {user_version}; {reads}"
        ));
    }
    match meta {
        Some(m) if m == user_version.to_string() => Ok(()),
        Some(m) => Err(format!(
            "a release store of schema version '{}' (its meta schema_version; PRAGMA \
             user_version says {user_version}); {reads}",
            crate::util::lines::one_line(&m.chars().take(40).collect::<String>())
        )),
        None => Err(format!(
            "a release store without a meta schema_version (PRAGMA user_version says \
             {user_version}); {reads}"
        )),
    }
}

/// Every table and trigger, created in one transaction with the store.
pub const CREATE: &str = r#"
CREATE TABLE meta (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
) WITHOUT ROWID;

CREATE TABLE node (
    idx INTEGER PRIMARY KEY,
    id  TEXT NOT NULL UNIQUE,
    u   BLOB NOT NULL
);

CREATE TABLE start_edge (
    u INTEGER NOT NULL,
    v INTEGER NOT NULL,
    w REAL NOT NULL,
    PRIMARY KEY (u, v),
    CHECK (u < v AND w > 0)
) WITHOUT ROWID;

CREATE TABLE event (
    seq   INTEGER PRIMARY KEY,
    batch INTEGER NOT NULL CHECK (batch >= 1),
    line  INTEGER NOT NULL,
    time  REAL NOT NULL,
    u     INTEGER NOT NULL,
    v     INTEGER NOT NULL,
    op    TEXT NOT NULL CHECK (op IN ('add', 'remove')),
    w     REAL NOT NULL CHECK (w > 0)
);

CREATE TABLE path (
    owner         INTEGER PRIMARY KEY,
    top           REAL NOT NULL CHECK (top > 0),
    bottom        REAL NOT NULL CHECK (bottom > 0 AND bottom <= top),
    walk_level    REAL NOT NULL,
    pending_level REAL,
    pending_bits  INTEGER,
    jumps         INTEGER NOT NULL,
    word_pos      TEXT NOT NULL
);

CREATE TABLE segment (
    owner INTEGER NOT NULL,
    k     INTEGER NOT NULL,
    hi    REAL NOT NULL,
    v     BLOB NOT NULL,
    PRIMARY KEY (owner, k)
) WITHOUT ROWID;

CREATE TABLE answer (
    owner     INTEGER NOT NULL,
    recipient INTEGER NOT NULL,
    eps       REAL NOT NULL CHECK (eps > 0),
    batch     INTEGER NOT NULL CHECK (batch >= 0),
    distance  REAL NOT NULL,
    noise     BLOB NOT NULL,
    PRIMARY KEY (batch, owner, recipient),
    CHECK (owner <> recipient)
) WITHOUT ROWID;

CREATE TABLE timeline (
    batch              INTEGER PRIMARY KEY,
    time               REAL,
    events             INTEGER NOT NULL,
    pairs_closer       INTEGER NOT NULL,
    pairs_farther      INTEGER NOT NULL,
    answers            INTEGER NOT NULL,
    pairs              INTEGER NOT NULL,
    mse                REAL,
    mse_theory         REAL,
    eps_spent          REAL,
    resample_mse       REAL,
    resample_eps_spent REAL,
    frozen_mse         REAL,
    frozen_eps_spent   REAL
);

CREATE TRIGGER node_values_are_drawn_once BEFORE UPDATE ON node
BEGIN SELECT RAISE(ABORT, 'node: values are drawn once'); END;
CREATE TRIGGER node_kept BEFORE DELETE ON node
BEGIN SELECT RAISE(ABORT, 'node: values are drawn once'); END;

CREATE TRIGGER start_edge_fixed_u BEFORE UPDATE ON start_edge
BEGIN SELECT RAISE(ABORT, 'start_edge: the start graph is fixed'); END;
CREATE TRIGGER start_edge_fixed_d BEFORE DELETE ON start_edge
BEGIN SELECT RAISE(ABORT, 'start_edge: the start graph is fixed'); END;

CREATE TRIGGER event_log_u BEFORE UPDATE ON event
BEGIN SELECT RAISE(ABORT, 'event: the event log is append-only'); END;
CREATE TRIGGER event_log_d BEFORE DELETE ON event
BEGIN SELECT RAISE(ABORT, 'event: the event log is append-only'); END;

CREATE TRIGGER path_kept BEFORE DELETE ON path
BEGIN SELECT RAISE(ABORT, 'path: a path is never resampled'); END;
CREATE TRIGGER path_top_fixed BEFORE UPDATE ON path
WHEN NEW.top IS NOT OLD.top OR NEW.owner IS NOT OLD.owner OR NEW.bottom > OLD.bottom
BEGIN SELECT RAISE(ABORT, 'path: the top is fixed and a path only extends downward'); END;

CREATE TRIGGER segment_kept_u BEFORE UPDATE ON segment
BEGIN SELECT RAISE(ABORT, 'segment: segments are append-only (never resampled, never rescaled)'); END;
CREATE TRIGGER segment_kept_d BEFORE DELETE ON segment
BEGIN SELECT RAISE(ABORT, 'segment: segments are append-only (never resampled, never rescaled)'); END;
CREATE TRIGGER segment_extends_downward BEFORE INSERT ON segment
WHEN NOT (
    (NEW.k = 0 AND NEW.hi = coalesce((SELECT top FROM path WHERE owner = NEW.owner), -1)
        AND NOT EXISTS (SELECT 1 FROM segment WHERE owner = NEW.owner))
    OR (NEW.k > 0 AND NEW.hi < coalesce(
        (SELECT hi FROM segment WHERE owner = NEW.owner AND k = NEW.k - 1), -1)))
BEGIN SELECT RAISE(ABORT, 'segment: a path only extends downward from its top'); END;

CREATE TRIGGER answer_kept_u BEFORE UPDATE ON answer
BEGIN SELECT RAISE(ABORT, 'answer: a release is never changed'); END;
CREATE TRIGGER answer_kept_d BEFORE DELETE ON answer
BEGIN SELECT RAISE(ABORT, 'answer: a release is never revoked'); END;
CREATE TRIGGER answer_reads_the_path BEFORE INSERT ON answer
WHEN NEW.noise IS NOT (SELECT s.v FROM segment s
                       WHERE s.owner = NEW.owner AND (s.k = 0 OR s.hi > NEW.eps)
                       ORDER BY s.k DESC LIMIT 1)
  OR NOT (NEW.eps <= coalesce((SELECT top FROM path WHERE owner = NEW.owner), -1))
  OR NOT (NEW.eps >= coalesce((SELECT bottom FROM path WHERE owner = NEW.owner), 1e308))
BEGIN SELECT RAISE(ABORT, 'answer: not the stored path of the owner at its eps'); END;

CREATE TRIGGER timeline_kept_u BEFORE UPDATE ON timeline
BEGIN SELECT RAISE(ABORT, 'timeline: rows are committed once'); END;
CREATE TRIGGER timeline_kept_d BEFORE DELETE ON timeline
BEGIN SELECT RAISE(ABORT, 'timeline: rows are committed once'); END;
CREATE TRIGGER timeline_in_order BEFORE INSERT ON timeline
WHEN NEW.batch IS NOT coalesce((SELECT max(batch) + 1 FROM timeline), 0)
BEGIN SELECT RAISE(ABORT, 'timeline: batches are committed in order'); END;
"#;

/// The `batch_totals` table and its triggers (schema 2).
pub(super) const CREATE_TOTALS: &str = r#"
CREATE TABLE batch_totals (
    batch INTEGER PRIMARY KEY,
    pairs INTEGER NOT NULL CHECK (pairs >= 0),
    sums  BLOB NOT NULL CHECK (length(sums) = 56)
);
CREATE TRIGGER batch_totals_kept_u BEFORE UPDATE ON batch_totals
BEGIN SELECT RAISE(ABORT, 'batch_totals: rows are committed once'); END;
CREATE TRIGGER batch_totals_kept_d BEFORE DELETE ON batch_totals
BEGIN SELECT RAISE(ABORT, 'batch_totals: rows are committed once'); END;
CREATE TRIGGER batch_totals_with_timeline BEFORE INSERT ON batch_totals
WHEN NEW.batch IS NOT (SELECT max(batch) FROM timeline)
BEGIN SELECT RAISE(ABORT, 'batch_totals: the sums of the batch whose timeline row is written'); END;
"#;
