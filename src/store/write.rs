//! [`BatchWriter`]: everything a batch writes, in one transaction.

use super::OwnerPath;
use super::schema::{APPLICATION_ID, CREATE, SCHEMA_VERSION};
use super::{StoreConfig, db_error, f64s_to_blob};
use crate::error::{Error, Result};
use crate::graph::NodeIds;
use rusqlite::{Transaction, params};
use serde::{Deserialize, Serialize};
use std::path::{Path, PathBuf};

/// One edge event of the log (`op` add or remove; `w` the length, 1 when
/// the file gives none), with the line of the events file it came from.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EdgeEvent {
    /// 1-based line in the events file.
    pub line: u64,
    /// The event's time.
    pub time: f64,
    /// One end (node index).
    pub u: u32,
    /// The other end (node index).
    pub v: u32,
    /// Addition (true) or removal (false).
    pub add: bool,
    /// Length of the edge.
    pub w: f64,
}

/// One row of `timeline.csv` (and of the store's `timeline` table): see
/// `privdiffuse evolve --help` for the columns. Means are over every pair
/// released so far (empty before any).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TimelineRow {
    /// Batch number (0 = START).
    pub batch: u64,
    /// Time of the batch's last event (empty for batch 0).
    pub time: Option<f64>,
    /// Events applied in this batch.
    pub events: u64,
    /// Ordered pairs whose ε rose against the previous batch.
    pub pairs_closer: u64,
    /// Ordered pairs whose ε fell.
    pub pairs_farther: u64,
    /// Releases in this batch.
    pub answers: u64,
    /// Pairs released so far.
    pub pairs: u64,
    /// Mean ‖y − u‖² of each pair's best answer (the one at its largest ε).
    pub mse: Option<f64>,
    /// Mean variance at each pair's largest ε.
    pub mse_theory: Option<f64>,
    /// Mean of each pair's largest ε (the correlated mechanism's privacy spent).
    pub eps_spent: Option<f64>,
    /// `resample`: mean ‖pooled − u‖² of the inverse-variance pooling of all answers.
    pub resample_mse: Option<f64>,
    /// `resample`: mean over pairs of the sum of ε released.
    pub resample_eps_spent: Option<f64>,
    /// `frozen`: mean ‖y − u‖² of each pair's first answer.
    pub frozen_mse: Option<f64>,
    /// `frozen`: mean of each pair's first ε.
    pub frozen_eps_spent: Option<f64>,
    /// Reachable ordered pairs whose ε at their current distance is out of
    /// the range any answer is given at (0 or underflowed, below 1e-60, or
    /// below the smallest rung): they get no answer there (issue 33 item 5).
    /// Absent (and no column in `timeline.csv`) while there are none.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pairs_skipped: Option<u64>,
}

impl crate::util::CsvRow for TimelineRow {
    const OPTIONAL: &'static [&'static str] = &["pairs_skipped"];
}

/// The `meta` keys of the batches' `pairs_skipped`: this prefix and the
/// batch (one row per batch that skipped any pair, so that the schema stays
/// version 2; read back by `Store::timeline`).
pub(super) const SKIPPED_KEY: &str = "pairs_skipped.";

/// One explicit release: (owner, recipient, ε, distance, the path's value
/// at ε as stored), for [`BatchWriter::insert_answers`].
pub type AnswerInsert<'n> = (u32, u32, f64, f64, &'n [u8]);

/// Rows of `answer` per `INSERT` statement in [`BatchWriter::insert_answers`]
/// (6 parameters each: 384, under SQLite's oldest limit of 999).
const ANSWERS_PER_INSERT: usize = 64;

/// The `INSERT` of `k` answers (1 or [`ANSWERS_PER_INSERT`]: the two
/// statements the writer keeps prepared).
fn answers_sql(k: usize) -> &'static str {
    debug_assert!(k == 1 || k == ANSWERS_PER_INSERT);
    static SQL: std::sync::OnceLock<[String; 2]> = std::sync::OnceLock::new();
    let sql = SQL.get_or_init(|| {
        [1, ANSWERS_PER_INSERT].map(|k| {
            format!(
                "INSERT INTO answer (owner, recipient, eps, batch, distance, noise) VALUES {}",
                vec!["(?, ?, ?, ?, ?, ?)"; k].join(", ")
            )
        })
    });
    &sql[usize::from(k != 1)]
}

/// The writes of one batch, inside one transaction ([`Store::write_batch`](super::Store::write_batch)).
pub struct BatchWriter<'a> {
    tx: Option<Transaction<'a>>,
    pub(super) path: PathBuf,
    pub(super) created: Option<StoreConfig>,
}

impl<'a> BatchWriter<'a> {
    pub(super) fn new(tx: Transaction<'a>, path: &Path) -> Self {
        BatchWriter {
            tx: Some(tx),
            path: path.to_path_buf(),
            created: None,
        }
    }

    pub(super) fn tx(&self) -> &Transaction<'a> {
        // Present until `commit` consumes the writer.
        self.tx.as_ref().expect("transaction open until commit")
    }

    fn err(&self, e: rusqlite::Error) -> Error {
        db_error(&self.path, e)
    }

    pub(super) fn commit(mut self) -> Result<()> {
        let path = self.path.clone();
        match self.tx.take() {
            Some(tx) => tx.commit().map_err(|e| db_error(&path, e)),
            None => Ok(()),
        }
    }

    /// Creates the schema and writes what is fixed at creation: the
    /// configuration, every node with its value (`values`: n per node, in
    /// index order) and the START edges (`u < v`, any order).
    pub fn create(
        &mut self,
        config: &StoreConfig,
        ids: &NodeIds,
        values: &[f64],
        edges: &[(u32, u32, f64)],
    ) -> Result<()> {
        let tx = self.tx();
        tx.execute_batch(CREATE).map_err(|e| self.err(e))?;
        tx.execute_batch(super::schema::CREATE_TOTALS)
            .map_err(|e| self.err(e))?;
        tx.execute_batch(&format!(
            "PRAGMA user_version = {SCHEMA_VERSION}; PRAGMA application_id = {APPLICATION_ID};"
        ))
        .map_err(|e| self.err(e))?;
        let json = serde_json::to_string(config)
            .map_err(|e| Error::Numerical(format!("the store's configuration: {e}")))?;
        let ids_kind = if ids.is_integer() { "integer" } else { "token" };
        for (k, v) in [
            ("schema_version", SCHEMA_VERSION.to_string()),
            ("config", json),
            ("ids", ids_kind.to_string()),
            ("version", env!("CARGO_PKG_VERSION").to_string()),
        ] {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                params![k, v],
            )
            .map_err(|e| self.err(e))?;
        }
        let n = config.dim;
        {
            let mut st = tx
                .prepare("INSERT INTO node (idx, id, u) VALUES (?1, ?2, ?3)")
                .map_err(|e| self.err(e))?;
            for i in 0..ids.len() {
                let u = &values[i * n..(i + 1) * n];
                st.execute(params![
                    i as i64,
                    ids.label(i as u32).to_string(),
                    f64s_to_blob(u)
                ])
                .map_err(|e| self.err(e))?;
            }
        }
        let mut sorted: Vec<(u32, u32, f64)> = edges
            .iter()
            .map(|&(u, v, w)| (u.min(v), u.max(v), w))
            .collect();
        sorted.sort_by_key(|a| (a.0, a.1));
        {
            let mut st = tx
                .prepare("INSERT INTO start_edge (u, v, w) VALUES (?1, ?2, ?3)")
                .map_err(|e| self.err(e))?;
            for (u, v, w) in sorted {
                st.execute(params![u as i64, v as i64, w])
                    .map_err(|e| self.err(e))?;
            }
        }
        self.created = Some(config.clone());
        Ok(())
    }

    /// Appends the events applied in `batch` (≥ 1), continuing the log's
    /// numbering.
    pub fn insert_events(&mut self, batch: u64, events: &[EdgeEvent]) -> Result<()> {
        let tx = self.tx();
        let mut st = tx
            .prepare_cached(
                "INSERT INTO event (batch, line, time, u, v, op, w) VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)",
            )
            .map_err(|e| self.err(e))?;
        for e in events {
            st.execute(params![
                batch as i64,
                e.line as i64,
                e.time,
                e.u as i64,
                e.v as i64,
                if e.add { "add" } else { "remove" },
                e.w
            ])
            .map_err(|e| db_error(&self.path, e))?;
        }
        Ok(())
    }

    /// Saves `owner`'s path: its walk state, and its segments from
    /// `stored` on (those already in the store are never written again).
    /// `stored = 0` creates the path.
    pub fn save_path(&mut self, owner: u32, path: &OwnerPath, stored: usize) -> Result<()> {
        let tx = self.tx();
        let (level, pl, pb, jumps, word_pos) = path.walk_row();
        let sql = if stored == 0 {
            "INSERT INTO path (owner, top, bottom, walk_level, pending_level, pending_bits, jumps, word_pos) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8)"
        } else {
            "UPDATE path SET top = ?2, bottom = ?3, walk_level = ?4, pending_level = ?5, \
             pending_bits = ?6, jumps = ?7, word_pos = ?8 WHERE owner = ?1"
        };
        tx.prepare_cached(sql)
            .and_then(|mut st| {
                st.execute(params![
                    owner as i64,
                    path.top(),
                    path.bottom(),
                    level,
                    pl,
                    pb,
                    jumps,
                    word_pos
                ])
            })
            .map_err(|e| self.err(e))?;
        let mut st = tx
            .prepare_cached("INSERT INTO segment (owner, k, hi, v) VALUES (?1, ?2, ?3, ?4)")
            .map_err(|e| self.err(e))?;
        for k in stored..path.segments() {
            let (hi, v) = path.segment_blob(k);
            st.execute(params![owner as i64, k as i64, hi, v])
                .map_err(|e| db_error(&self.path, e))?;
        }
        Ok(())
    }

    /// Records an explicit release: `noise` must be the stored path's value
    /// at `eps`, as stored ([`OwnerPath::blob_at`]; the schema refuses
    /// anything else).
    pub fn insert_answer(
        &mut self,
        owner: u32,
        recipient: u32,
        eps: f64,
        batch: u64,
        distance: f64,
        noise: &[u8],
    ) -> Result<()> {
        self.insert_answers(batch, [(owner, recipient, eps, distance, noise)])
    }

    /// Records the explicit releases of `batch`, in the order given, as
    /// [`BatchWriter::insert_answer`] does one by one: the same rows in the
    /// same order, each checked by the schema's trigger, written 64 to a
    /// statement (a statement's fixed cost —
    /// its savepoint, the copy of the page it first touches into the
    /// statement journal — paid once for them; issue 37). A refused row
    /// fails its statement, and the batch is rolled back as before.
    pub fn insert_answers<'n>(
        &mut self,
        batch: u64,
        rows: impl IntoIterator<Item = AnswerInsert<'n>>,
    ) -> Result<()> {
        let tx = self.tx();
        let rows: Vec<AnswerInsert<'n>> = rows.into_iter().collect();
        let mut chunks = rows.chunks_exact(ANSWERS_PER_INSERT);
        let run = |k: usize, chunk: &[AnswerInsert<'_>]| -> rusqlite::Result<()> {
            let mut st = tx.prepare_cached(answers_sql(k))?;
            for (j, &(owner, recipient, eps, distance, noise)) in chunk.iter().enumerate() {
                let i = 6 * j;
                st.raw_bind_parameter(i + 1, owner as i64)?;
                st.raw_bind_parameter(i + 2, recipient as i64)?;
                st.raw_bind_parameter(i + 3, eps)?;
                st.raw_bind_parameter(i + 4, batch as i64)?;
                st.raw_bind_parameter(i + 5, distance)?;
                st.raw_bind_parameter(i + 6, noise)?;
            }
            st.raw_execute().map(|_| ())
        };
        for chunk in chunks.by_ref() {
            run(ANSWERS_PER_INSERT, chunk).map_err(|e| self.err(e))?;
        }
        for row in chunks.remainder() {
            run(1, std::slice::from_ref(row)).map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Commits a batch's timeline row (batches in order).
    pub fn insert_timeline(&mut self, r: &TimelineRow) -> Result<()> {
        let tx = self.tx();
        tx.execute(
            "INSERT INTO timeline (batch, time, events, pairs_closer, pairs_farther, answers, pairs, \
             mse, mse_theory, eps_spent, resample_mse, resample_eps_spent, frozen_mse, frozen_eps_spent) \
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14)",
            params![
                r.batch as i64,
                r.time,
                r.events as i64,
                r.pairs_closer as i64,
                r.pairs_farther as i64,
                r.answers as i64,
                r.pairs as i64,
                r.mse,
                r.mse_theory,
                r.eps_spent,
                r.resample_mse,
                r.resample_eps_spent,
                r.frozen_mse,
                r.frozen_eps_spent
            ],
        )
        .map_err(|e| self.err(e))?;
        if let Some(n) = r.pairs_skipped {
            tx.execute(
                "INSERT INTO meta (key, value) VALUES (?1, ?2)",
                params![format!("{SKIPPED_KEY}{}", r.batch), n.to_string()],
            )
            .map_err(|e| self.err(e))?;
        }
        Ok(())
    }

    /// Runs raw SQL inside the batch (tests: writing around the code to see
    /// the schema refuse it).
    #[doc(hidden)]
    pub fn execute_raw(&mut self, sql: &str) -> Result<()> {
        self.tx().execute_batch(sql).map_err(|e| self.err(e))
    }
}
