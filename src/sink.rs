//! Where an engine's typed rows go. The engines produce rows (one row type
//! per output, e.g. [`JumpRow`](crate::sim::JumpRow)) and hand them to a
//! [`RecordSink`]: a CSV file of [`crate::io`], a `Vec` in memory, or a
//! sink of the caller's. No engine formats text or names a file.

use crate::error::Result;

/// Takes an engine's rows, in output order.
pub trait RecordSink<R>: Send {
    /// Takes one row.
    fn record(&mut self, row: R) -> Result<()>;

    /// Takes a batch of rows (one chunk of owners), in order. A sink may
    /// override it to work on the batch at once (the CSV writer formats a
    /// large batch on every thread).
    fn record_all(&mut self, rows: Vec<R>) -> Result<()> {
        rows.into_iter().try_for_each(|r| self.record(r))
    }
}

/// Rows kept in memory.
impl<R: Send> RecordSink<R> for Vec<R> {
    fn record(&mut self, row: R) -> Result<()> {
        self.push(row);
        Ok(())
    }

    fn record_all(&mut self, mut rows: Vec<R>) -> Result<()> {
        self.append(&mut rows);
        Ok(())
    }
}

/// Rows nobody keeps: a cluster peer that is not peer 0 still produces every
/// row its chunks would (so its partials equal peer 0's expectation), and
/// sends them on.
pub struct Discard;

impl<R> RecordSink<R> for Discard {
    fn record(&mut self, _row: R) -> Result<()> {
        Ok(())
    }

    fn record_all(&mut self, _rows: Vec<R>) -> Result<()> {
        Ok(())
    }
}
