//! What a resumed `evolve` reads instead of replaying batch 0 (schema 2,
//! issue 24 item 4): the running sums of the timeline after each batch,
//! committed in the batch's transaction.
//!
//! The timeline's means are running sums over every pair released, added in
//! an order fixed by the data ([`crate::evolve`]); they cannot be recovered
//! bit for bit from the means, and rebuilding them means re-reading batch
//! 0's 16 M implied answers (facebook). Schema 2 therefore stores them: one
//! `batch_totals` row per batch, `pairs` and the seven f64 sums as 56
//! little-endian bytes (exact bits). Everything else a resume needs per pair
//! — current distance, largest ε, the `resample` policy's pooling — follows
//! from START, the graph after the last batch, the ledger and the stored
//! paths (see `evolve`'s resume).
//!
//! A schema-1 store (no such table) is upgraded in place when opened for
//! writing: the table is added and `user_version` set to 2; its first resume
//! replays batch 0 (no sums stored for its last batch), later ones do not.

use super::write::BatchWriter;
use super::{Store, blob_to_f64s, db_error, f64s_to_blob};
use crate::error::{Error, Result};
use rusqlite::{OptionalExtension, params};

/// The timeline's running sums after a batch: pairs released so far, and
/// Σ best², Σ theory, Σ ε, Σ resample ε, Σ pooled², Σ first², Σ first ε
/// (in that order).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchTotals {
    /// Pairs released so far.
    pub pairs: u64,
    /// The seven running sums, in the order above.
    pub sums: [f64; 7],
}

impl BatchWriter<'_> {
    /// Records the running sums after the batch whose timeline row this
    /// transaction wrote (call after [`BatchWriter::insert_timeline`]).
    pub fn insert_totals(&mut self, batch: u64, t: &BatchTotals) -> Result<()> {
        let path = self.path.clone();
        self.tx()
            .execute(
                "INSERT INTO batch_totals (batch, pairs, sums) VALUES (?1, ?2, ?3)",
                params![batch as i64, t.pairs as i64, f64s_to_blob(&t.sums)],
            )
            .map(|_| ())
            .map_err(|e| db_error(&path, e))
    }
}

impl Store {
    /// The running sums stored after `batch` (`None`: not stored, as in a
    /// store written by schema 1).
    pub fn totals_at(&self, batch: u64) -> Result<Option<BatchTotals>> {
        if !self.has_totals_table()? {
            return Ok(None);
        }
        let row: Option<(i64, Vec<u8>)> = self
            .conn
            .query_row(
                "SELECT pairs, sums FROM batch_totals WHERE batch = ?1",
                params![batch as i64],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| db_error(&self.path, e))?;
        let Some((pairs, blob)) = row else {
            return Ok(None);
        };
        let sums: [f64; 7] = blob_to_f64s(&blob)
            .and_then(|v| v.try_into().ok())
            .ok_or_else(|| {
                Error::input(
                    &self.path,
                    0,
                    format!("corrupt store: batch_totals of batch {batch}"),
                )
            })?;
        Ok(Some(BatchTotals {
            pairs: pairs as u64,
            sums,
        }))
    }

    /// Explicit releases recorded in `batch` (a key range: cheap).
    pub(crate) fn explicit_count_at(&self, batch: u64) -> Result<u64> {
        self.conn
            .query_row(
                "SELECT count(*) FROM answer WHERE batch = ?1",
                params![batch as i64],
                |r| r.get::<_, i64>(0),
            )
            .map(|c| c as u64)
            .map_err(|e| db_error(&self.path, e))
    }

    fn has_totals_table(&self) -> Result<bool> {
        self.conn
            .query_row(
                "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name = 'batch_totals'",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|c| c > 0)
            .map_err(|e| db_error(&self.path, e))
    }

    /// A writer on a schema-1 store: adds `batch_totals` and sets the
    /// version to 2, in one transaction (an older privdiffuse then refuses
    /// the file in one line, as it refuses any other version).
    pub(super) fn upgrade_from_1(&mut self) -> Result<()> {
        let path = self.path.clone();
        let tx = self
            .conn
            .transaction_with_behavior(rusqlite::TransactionBehavior::Immediate)
            .map_err(|e| db_error(&path, e))?;
        tx.execute_batch(super::schema::CREATE_TOTALS)
            .and_then(|_| {
                tx.execute_batch(&format!(
                    "PRAGMA user_version = {v}; \
                     INSERT OR REPLACE INTO meta (key, value) VALUES ('schema_version', '{v}');",
                    v = super::SCHEMA_VERSION
                ))
            })
            .and_then(|_| tx.commit())
            .map_err(|e| db_error(&path, e))
    }
}
