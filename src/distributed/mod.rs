//! Owner chunks: the one aggregation path of the all-owner jobs, on one
//! machine or over a cluster.
//!
//! A job ([`ChunkJob`]) splits its owners into chunks of [`CHUNK`] (one
//! 64-source bit-parallel BFS batch), computes a partial aggregate per chunk
//! and hands the partials to a merge closure **in chunk order**. Because
//! every chunk's partial is a function of the chunk alone and the merge order
//! is fixed, the results do not depend on the number of threads, workers or
//! processes: byte identity holds by construction.
//!
//! * [`run_local`]: rayon over waves of chunks in this process (what
//!   `simulate` has always done).
//! * `Executor::Cluster` (feature `distributed`): chunk `i` is computed by
//!   process `i mod P` (its `W` worker threads take chunks as they free up);
//!   the encoded partials ([`Wire`]) travel through a timely-dataflow exchange
//!   channel to process 0, which alone merges them and writes the outputs.

use crate::control::Control;
use crate::error::{Error, Result};
use rayon::prelude::*;
use std::sync::Mutex;

#[cfg(feature = "distributed")]
pub mod cluster;
pub mod wire;

pub use wire::{Reader, Wire};

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
    /// job whose merge commutes (exact integer sums) returns `false`: a
    /// cluster's process 0 then merges each partial as it arrives and holds
    /// none back, whatever the number of processes.
    fn ordered(&self) -> bool {
        true
    }
}

/// The closure merging partials, called with chunk indices 0, 1, 2, … in order.
pub type Merge<'m, P> = dyn FnMut(usize, P) -> Result<()> + 'm;

/// Where the chunks of a job run.
#[derive(Clone, Default)]
pub enum Executor {
    /// This process, on the current rayon pool.
    #[default]
    Local,
    /// A cluster of processes (feature `distributed`).
    #[cfg(feature = "distributed")]
    Cluster(std::sync::Arc<cluster::Cluster>),
}

impl std::fmt::Debug for Executor {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Executor::Local => write!(f, "Local"),
            #[cfg(feature = "distributed")]
            Executor::Cluster(c) => {
                write!(f, "Cluster(process {} of {})", c.process(), c.processes())
            }
        }
    }
}

impl Executor {
    /// Whether this process merges the partials and writes the outputs
    /// (always locally; process 0 of a cluster).
    pub fn merges_here(&self) -> bool {
        match self {
            Executor::Local => true,
            #[cfg(feature = "distributed")]
            Executor::Cluster(c) => c.process() == 0,
        }
    }

    /// Runs `job`, calling `merge` in chunk order where
    /// [`Executor::merges_here`] (elsewhere `merge` is never called).
    pub fn execute<J>(
        &self,
        job: &J,
        control: &Control,
        merge: &mut Merge<'_, J::Partial>,
    ) -> Result<()>
    where
        J: ChunkJob,
        J::Partial: Wire,
    {
        match self {
            Executor::Local => run_local(job, control, merge),
            #[cfg(feature = "distributed")]
            Executor::Cluster(c) => c.execute(job, control, merge),
        }
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
pub fn run_local<J: ChunkJob>(
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

/// An error of the cluster layer (one line, naming the peer where there is one).
pub(crate) fn cluster_error(message: impl Into<String>) -> Error {
    Error::Unsupported(format!("cluster: {}", message.into()))
}
