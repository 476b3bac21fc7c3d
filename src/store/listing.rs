//! Every answer ever released, listed exactly: batch 0's implied answers
//! (START distances, the map and the stored paths) merged with the explicit
//! rows, ordered by owner, recipient and batch.

use super::{Levels, Store};
use crate::distance::{DistanceOptions, Distances};
use crate::error::{Error, Result};
use crate::util::table::{Columns, CsvRow, RowSink, Writer, columns};
use serde::{Deserialize, Serialize};
use std::io::Write;

/// Which answers to list: an owner, a recipient, both or neither (original ids).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct AnswerFilter {
    /// Only this owner's answers.
    pub owner: Option<String>,
    /// Only answers to this recipient.
    pub recipient: Option<String>,
}

/// One release: `owner,recipient,batch,distance,eps,y1..yn` (the names of
/// `responses.csv`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct AnswerRow {
    /// Owner id.
    pub owner: String,
    /// Recipient id.
    pub recipient: String,
    /// Batch of the release (0: START).
    pub batch: u64,
    /// Distance at the release.
    pub distance: f64,
    /// Level answered (after the clamp at the top).
    pub eps: f64,
    /// The answer: `u + V_ε`, or `(û + X)·γ` for a discrete store.
    pub y: Vec<f64>,
}

impl CsvRow for AnswerRow {
    const VECTOR: Option<&'static str> = Some("y");

    /// The listing writes what the store holds, as it holds it.
    fn allows(&self, _: &str, _: f64) -> bool {
        true
    }
}

/// An error writing the answers' listing.
fn answers_error(e: std::io::Error) -> Error {
    Error::io("<answers>", e)
}

/// What every owner's answers are read with: the store's level map,
/// secret values (`dim` per node), node ids, and the recipient filter.
struct AnswerContext {
    levels: Levels,
    values: Vec<f64>,
    dim: usize,
    ids: crate::graph::NodeIds,
    recipient: Option<u32>,
}

impl Store {
    /// Every release matching `filter`, in (owner, recipient, batch) order.
    pub fn answers(&mut self, filter: &AnswerFilter) -> Result<Vec<AnswerRow>> {
        let mut out = Vec::new();
        self.each_answer(filter, |r| {
            out.push(r.clone());
            Ok(())
        })?;
        Ok(out)
    }

    /// Writes every release matching `filter` as CSV
    /// (`owner,recipient,batch,distance,eps,y1..yn`), numbers in shortest
    /// round-trip form. Returns the number of rows.
    pub fn write_answers(&mut self, filter: &AnswerFilter, out: &mut dyn Write) -> Result<u64> {
        let (w, rows) = self.answers_into(filter, |h| Writer::with_header(out, h))?;
        w.into_inner().map_err(answers_error)?;
        Ok(rows)
    }

    /// The columns of [`Store::write_answers`]'s text: its header and rows.
    pub fn answer_columns(&mut self, filter: &AnswerFilter) -> Result<Columns> {
        Ok(self.answers_into(filter, |h| Ok(Columns::new(h)))?.0)
    }

    /// Every release matching `filter` in the sink `new` makes of the
    /// header, and their number.
    fn answers_into<S: RowSink>(
        &mut self,
        filter: &AnswerFilter,
        new: impl FnOnce(Vec<String>) -> std::io::Result<S>,
    ) -> Result<(S, u64)> {
        let n = self.config()?.dim;
        // A bad filter is refused before the header: no half output.
        self.resolve_filter(filter)?;
        let mut sink = new(columns::<AnswerRow>(n, &[])).map_err(answers_error)?;
        let mut rows = 0u64;
        self.each_answer(filter, |r| {
            rows += 1;
            sink.row(r).map_err(answers_error)
        })?;
        Ok((sink, rows))
    }

    /// The filter's owner and recipient as node indices, and the owners to
    /// list; refused in one line when an id is not in the store or the
    /// owner has no path.
    fn resolve_filter(
        &mut self,
        filter: &AnswerFilter,
    ) -> Result<(Option<u32>, Option<u32>, Vec<u32>)> {
        let ids = self.ids_ref()?.clone();
        let find = |name: &str, id: &str| {
            ids.index_of(id)
                .ok_or_else(|| Error::param(name, id, "the id of a node in the store"))
        };
        let owner_f = filter
            .owner
            .as_deref()
            .map(|o| find("owner", o))
            .transpose()?;
        let rec_f = filter
            .recipient
            .as_deref()
            .map(|r| find("recipient", r))
            .transpose()?;
        let mut owners = self.owners()?;
        if let Some(o) = owner_f {
            if owners.binary_search(&o).is_err() {
                return Err(Error::param(
                    "owner",
                    ids.label(o),
                    "an owner of the store (a node with a path)",
                ));
            }
            owners = vec![o];
        }
        Ok((owner_f, rec_f, owners))
    }

    fn each_answer(
        &mut self,
        filter: &AnswerFilter,
        mut f: impl FnMut(&AnswerRow) -> Result<()>,
    ) -> Result<()> {
        let config = self.config()?.clone();
        let levels = Levels::of(&config)?;
        let ids = self.node_ids()?;
        let (owner_f, rec_f, owners) = self.resolve_filter(filter)?;
        if self.last_batch()?.is_none() {
            return Ok(());
        }
        let with = AnswerContext {
            levels,
            values: self.values()?,
            dim: config.dim,
            ids,
            recipient: rec_f,
        };
        let explicit = self.explicit_sorted(owner_f, rec_f)?;
        let start = self.graph_at(0)?;
        let dist = Distances::new(&start, config.distance, &DistanceOptions::default())?;
        let mut ws = dist.workspace();
        let mut err = None;
        let mut at = 0;
        for chunk in owners.chunks(crate::distance::BATCH) {
            dist.batch(chunk, &mut ws, |i, row| {
                if err.is_some() {
                    return;
                }
                let o = chunk[i];
                while at < explicit.len() && explicit[at].0 < o {
                    at += 1;
                }
                let from = at;
                while at < explicit.len() && explicit[at].0 == o {
                    at += 1;
                }
                if let Err(e) = self.owner_answers(&with, o, row, &explicit[from..at], &mut f) {
                    err = Some(e);
                }
            });
            if let Some(e) = err.take() {
                return Err(e);
            }
        }
        Ok(())
    }

    /// Calls `f` with each answer of `owner`: at its START distances
    /// `start_row`, then its explicit releases `explicit` (sorted by
    /// recipient), for every recipient or `with.recipient` only.
    fn owner_answers(
        &self,
        with: &AnswerContext,
        owner: u32,
        start_row: &[f64],
        explicit: &[super::read::ExplicitAnswer],
        f: &mut impl FnMut(&AnswerRow) -> Result<()>,
    ) -> Result<()> {
        let AnswerContext {
            levels,
            values,
            dim: n,
            ids,
            recipient,
        } = with;
        let (n, recipient) = (*n, *recipient);
        let path = self.load_path(owner)?.ok_or_else(|| {
            Error::input(
                &self.path,
                0,
                format!("corrupt store: owner {owner} has no path"),
            )
        })?;
        let u = &values[owner as usize * n..(owner as usize + 1) * n];
        let label = ids.label(owner).to_string();
        let mut row = AnswerRow {
            owner: label,
            recipient: String::new(),
            batch: 0,
            distance: 0.0,
            eps: 0.0,
            y: vec![0.0; n],
        };
        let mut next = 0;
        let recipients: Box<dyn Iterator<Item = u32>> = match recipient {
            Some(r) => Box::new(std::iter::once(r)),
            None => Box::new(0..start_row.len() as u32),
        };
        for r in recipients {
            if r == owner {
                continue;
            }
            let d = start_row[r as usize];
            let mut any = false;
            if d.is_finite() {
                let e = levels.at(d)?;
                if !path.answer_into(e, u, &mut row.y)? {
                    return Err(Error::input(
                        &self.path,
                        0,
                        format!("corrupt store: owner {owner}'s path does not reach ε = {e}"),
                    ));
                }
                row.recipient = ids.label(r).to_string();
                any = true;
                row.batch = 0;
                row.distance = d;
                row.eps = e;
                f(&row)?;
            }
            while next < explicit.len() && explicit[next].1 == r {
                let (_, _, eps, batch, distance, ref noise) = explicit[next];
                if !any {
                    row.recipient = ids.label(r).to_string();
                    any = true;
                }
                row.batch = batch;
                row.distance = distance;
                row.eps = eps;
                path.answer_from_blob(u, noise, &mut row.y)
                    .map_err(|e| Error::input(&self.path, 0, format!("corrupt store: {e}")))?;
                f(&row)?;
                next += 1;
            }
        }
        Ok(())
    }
}
