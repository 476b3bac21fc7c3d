//! Where the work of a run happens: owner chunks, the [`Executor`] trait and
//! the local executor. The bottom floor of the engines: it knows no engine,
//! no file format and no cluster.
//!
//! A job ([`ChunkJob`]) splits its owners into chunks of [`CHUNK`] (one
//! 64-source bit-parallel BFS batch), computes a partial aggregate per chunk
//! and hands the partials to a merge closure **in chunk order**. Because
//! every chunk's partial is a function of the chunk alone and the merge order
//! is fixed, the results do not depend on the number of threads, workers or
//! peers: byte identity holds by construction.
//!
//! * [`Local`]: rayon over waves of chunks in this process.
//! * Another implementation of [`Executor`] (the timely-dataflow cluster of
//!   feature `distributed`) computes chunk `i` on peer `i mod P` and merges
//!   on peer 0. Partials travel as serde values; the encoding belongs to that
//!   executor, never to the engines.

use crate::control::Control;
use crate::error::Result;
use rayon::prelude::*;
use serde::Serialize;
use serde::de::DeserializeOwned;
use std::sync::Mutex;

pub mod rounds;

pub use rounds::{RoundExecutor, RoundJob};

/// Owners per chunk: one 64-source bit-parallel BFS batch.
pub const CHUNK: usize = 64;

/// A job cut into owner chunks. Implementations keep per-worker scratch in
/// [`ChunkJob::Worker`] (reused across chunks; it must not change results).
pub trait ChunkJob: Sync {
    /// Per-worker scratch.
    type Worker: Send;
    /// A chunk's partial aggregate.
    type Partial: Send;
    /// Number of chunks.
    fn chunks(&self) -> usize;
    /// Owners in chunk `index` (for progress reports).
    fn chunk_owners(&self, index: usize) -> u64;
    /// A fresh worker.
    fn new_worker(&self) -> Self::Worker;
    /// Computes chunk `index`.
    fn run_chunk(&self, worker: &mut Self::Worker, index: usize) -> Result<Self::Partial>;
    /// Whether chunks must run one at a time (a chunk that uses every
    /// thread itself, with memory for one at a time); default `false`.
    fn sequential(&self) -> bool {
        false
    }
    /// Whether partials must be merged in chunk order (default `true`). A
    /// job whose merge commutes (exact integer sums) returns `false`: an
    /// executor may then merge each partial as it arrives.
    fn ordered(&self) -> bool {
        true
    }
}

/// The closure merging partials, called with chunk indices 0, 1, 2, … in
/// order (as they arrive for a job that is not [`ordered`](ChunkJob::ordered)).
pub type Merge<'m, P> = dyn FnMut(usize, P) -> Result<()> + 'm;

/// Runs chunk jobs: here ([`Local`]) or spread over peers.
///
/// Generic over the job, so an engine runs on any executor without naming
/// it; partials must be serde values so that an executor spreading work
/// over processes can move them (exactly: decoding gives back the value
/// encoded, bit for bit).
pub trait Executor: Sync {
    /// Number of peers sharing the work (1 for [`Local`]).
    fn peers(&self) -> usize {
        1
    }

    /// This peer's index, from 0.
    fn rank(&self) -> usize {
        0
    }

    /// Whether this peer merges the partials and writes the outputs (peer 0).
    fn merges_here(&self) -> bool {
        self.rank() == 0
    }

    /// Runs `job`, calling `merge` in chunk order where
    /// [`merges_here`](Executor::merges_here) (elsewhere `merge` is never
    /// called); `control` is checked between waves of chunks and told of the
    /// owners done.
    fn execute<J>(
        &self,
        job: &J,
        control: &Control,
        merge: &mut Merge<'_, J::Partial>,
    ) -> Result<()>
    where
        J: ChunkJob,
        J::Partial: Serialize + DeserializeOwned;
}

/// This process, on the current rayon pool.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Local;

impl Executor for Local {
    fn execute<J>(
        &self,
        job: &J,
        control: &Control,
        merge: &mut Merge<'_, J::Partial>,
    ) -> Result<()>
    where
        J: ChunkJob,
        J::Partial: Serialize + DeserializeOwned,
    {
        run_local(job, control, merge)
    }
}

/// Computes the chunks `indices` in parallel on the current rayon pool,
/// reusing workers from `pool`; results in the order of `indices`.
pub(crate) fn compute_wave<J: ChunkJob>(
    job: &J,
    pool: &Mutex<Vec<J::Worker>>,
    indices: &[usize],
) -> Vec<Result<J::Partial>> {
    if job.sequential() {
        let mut w = job.new_worker();
        return indices.iter().map(|&i| job.run_chunk(&mut w, i)).collect();
    }
    indices
        .par_iter()
        .map(|&i| {
            let mut w = pool
                .lock()
                .ok()
                .and_then(|mut p| p.pop())
                .unwrap_or_else(|| job.new_worker());
            let r = job.run_chunk(&mut w, i);
            if let Ok(mut p) = pool.lock() {
                p.push(w);
            }
            r
        })
        .collect()
}

/// Waves of 4 chunks per thread: enough to keep every thread busy, few
/// enough that the partials (and their rows) held at once stay bounded.
pub(crate) fn wave_size() -> usize {
    (rayon::current_num_threads() * 4).max(1)
}

/// Runs `job` in this process: waves of chunks in parallel, each wave's
/// partials merged in chunk order; `control` is checked before each wave
/// and told of the owners done after it.
pub(crate) fn run_local<J: ChunkJob>(
    job: &J,
    control: &Control,
    merge: &mut Merge<'_, J::Partial>,
) -> Result<()> {
    let pool = Mutex::new(Vec::new());
    let indices: Vec<usize> = (0..job.chunks()).collect();
    let total: u64 = indices.iter().map(|&i| job.chunk_owners(i)).sum();
    let mut done = 0u64;
    for group in indices.chunks(wave_size()) {
        control.check()?;
        let outs = compute_wave(job, &pool, group);
        for (&i, out) in group.iter().zip(outs) {
            merge(i, out?)?;
        }
        done += group.iter().map(|&i| job.chunk_owners(i)).sum::<u64>();
        control.report("owners", done, total);
    }
    Ok(())
}

/// `f` run on a pool of its own of `threads` threads (tests: what a run
/// gives must not depend on the thread count).
#[cfg(test)]
pub(crate) fn on_threads<T: Send>(threads: usize, f: impl FnOnce() -> T + Send) -> T {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(f)
}
