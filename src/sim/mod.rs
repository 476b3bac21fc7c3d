//! The simulation: every owner's distances → privacy levels → one lazy path
//! (or fresh noise) → answers, aggregated per mechanism and distance bucket.
//!
//! The question a simulation answers: how accurate is what each recipient
//! receives, as a function of its distance from the owner, under the
//! correlated mechanism and its baselines? Each owner shares its value with
//! every reachable member; the answers are compared with the value and
//! aggregated as they are produced (never an N×N matrix), per mechanism and
//! distance bucket, next to the closed-form MSE. Owners run in parallel in
//! batches of 64; every random draw comes from
//! [`rng_for`](crate::rng_for)`(seed, owner, …)`, so the numbers do not depend
//! on the thread count. Optional per-row outputs (every jump, path, answer)
//! are streamed, not collected.
//!
//! * [`Simulation`] — the builder: typed options over a loaded graph, run in
//!   memory ([`SimOutput`]).
//! * [`SimConfig`] — the options that change the numbers (echoed in `summary.json`).
//! * [`Plan`] — a validated, resolved run over a loaded graph; [`Plan::run`]
//!   streams optional per-row outputs and returns the aggregates.
//! * [`crate::io::simulate_to_dir`] — the `simulate` command as a library call.
//! * [`rows`] — one row type per output, shared by the engine, the writers and
//!   the readers; [`SimSummary`] — `summary.json` as a typed record.

pub mod aggregate;
pub mod builder;
mod chunk;
pub mod config;
pub mod discrete_bound;
mod owner;
pub(crate) mod plan;
mod replicate;
pub mod rows;
pub mod run;
pub mod summary;

pub use aggregate::BucketAcc;
pub use builder::{KeptRow, Rows, SimOutput, Simulation};
pub use chunk::Counts;
pub(crate) use config::Ignored;
pub use config::{DEFAULT_GRAPH, Owners, SimConfig, Unreachable};
pub use plan::{Buckets, Plan, distances_for};
pub use rows::{ByDistanceRow, EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow};
pub use run::{MechanismTotal, SimResult, Sinks, simulate};
pub use summary::{MapSummary, SimSummary, summarize, summarize_output};
