//! # privdiffuse
//!
//! Simulates coalition-free diffusion of private data over social networks
//! (Koufogiannis & Pappas). A data owner releases `u + V_ε(d)` to a recipient at
//! graph distance `d`, where `ε(d)` falls with distance and `{V_ε}` is one sample
//! path of a lazy Markov process whose marginals are optimal Laplace noise. The
//! answers are correlated so that a coalition learns no more than its closest
//! member.
//!
//! # Layers and data flow
//!
//! Data flows one way — graph → distances → ε → path → responses →
//! evaluation → output — and each stage is a module that imports only the
//! stages before it. The modules are the crate's internal rooms: everything a
//! user needs is re-exported at the crate root, listed below by stage.
//!
//! | stage | module | what it gives |
//! |---|---|---|
//! | graph | `graph` | [`Graph`]: compressed sparse rows, [`Graph::load`] (edge lists, `.gz`, any ids), generators |
//! | distances | `distance` | [`Distances`]: hop, weighted, resistance (exact or sketched) from an owner to everyone |
//! | privacy map | `epsilon` | [`EpsilonMap`]: ε(d), validated non-increasing |
//! | noise | `process` | [`PathSampler`] → [`NoisePath`]: one lazy Laplace path per owner, read at every ε; [`GradualRelease`] |
//! | answers | `mechanism`, `values`, `post` | correlated / independent / Gaussian noise on the owners' values |
//! | runs | `sim`, `collusion`, `utility`, `sweep` | the engines: builders run in memory, typed rows handed to a [`RecordSink`] |
//! | files | `io` | CSV writers and readers, summaries, resume files, the runs written to directories as the CLI does, and (feature `plots`) figures |
//!
//! Beside the pipeline: `exec` (chunk jobs and the executors that run
//! them), `util` (leaf: number formatting, CSV rows, atomic files),
//! `rng` (random streams), `control` (cancel and progress), `limits`
//! (size caps, memory budget), `error`.
//!
//! A run is described by typed values, each validated when built
//! ([`EpsilonMap::exp`], [`Owners::Count`], [`Coalition::far`], …; every one
//! also parses the command line's spec grammar with `FromStr` and prints its
//! canonical spec with `Display`), and run in memory by a builder — nothing is
//! written to disk:
//!
//! * [`Simulation`] — every owner answers every reachable member; accuracy per
//!   mechanism and distance ([`SimOutput::by_distance`]), optionally every
//!   jump, path and answer as typed rows ([`SimOutput::rows`]); as `simulate`;
//! * [`Collusion`] — coalitions pool their answers: estimator gains, exact
//!   privacy loss, a distinguishing attack ([`CollusionOutput`]); as `collude`;
//! * [`GradualRelease`] — one secret released at levels in any order, and
//!   [`ReleaseTrials`] — many trials of it with the accuracy table and the
//!   composition baseline (`relax`);
//! * [`PathSamples`] — independent sample paths as rows (`path`);
//! * [`Grid`] and [`run_sweep`] — parameter sweeps into one CSV (`sweep`);
//! * [`Relay`] — the decentralised protocol, each owner's path passed on
//!   between friends by trimming relays ([`RelayOutput`]); as `relay`;
//! * [`run_gossip`] — the other school: private gossip averaging
//!   (Muffliato) with its pairwise privacy, the reference code's accounting
//!   next to the exact loss, beside diffusion ([`GossipOutput`]); as `gossip`.
//!
//! # Example: graph → distances → ε → simulate → rows
//!
//! ```
//! use privdiffuse::{
//!     DistanceKind, DistanceOptions, Distances, EpsilonMap, Graph, MechanismChoice, Norm,
//!     Owners, Simulation,
//! };
//! # fn main() -> Result<(), privdiffuse::Error> {
//! // The bundled 150-node random geometric graph (the loader of `--graph`).
//! let g = Graph::load("data/geometric150.edges")?;
//! assert_eq!((g.n(), g.m()), (150, 1256));
//!
//! // Hop distances from node 0 to every member.
//! let hop = Distances::new(&g, DistanceKind::Hop, &DistanceOptions::default())?;
//! let mut d = Vec::new();
//! hop.from_owner(0, &mut hop.workspace(), &mut d);
//! let farthest = d.iter().copied().fold(0.0, f64::max);
//! assert!(farthest.is_finite() && farthest <= 9.0); // connected, hop diameter 9
//!
//! // Privacy falls with distance: ε(d) = e^(3 − d).
//! let eps = EpsilonMap::exp(3.0, 1.0)?;
//! assert!(eps.eps(1.0) > eps.eps(farthest));
//!
//! // 20 owners, each with one lazy path (correlated) next to fresh noise
//! // per recipient (independent); 1-D values, ℓ1 noise.
//! let out = Simulation::new(&g)
//!     .eps(eps.clone())
//!     .dim(1)
//!     .norm(Norm::L1)
//!     .mechanism(MechanismChoice::Both)
//!     .owners(Owners::Count(20))
//!     .seed(5)
//!     .run()?;
//!
//! // The rows of by_distance.csv: one per mechanism and hop.
//! for row in out.by_distance() {
//!     // Every answer in a hop bucket is given at ε(hop); the optimal
//!     // 1-D Laplace noise at ε has MSE 2/ε².
//!     let e = eps.eps(row.distance_lo);
//!     assert!((row.mean_eps - e).abs() <= 1e-12 * e);
//!     assert!((row.mse_theory - 2.0 / (e * e)).abs() <= 1e-9 * row.mse_theory);
//! }
//! let answers = |m: &str| -> u64 {
//!     out.by_distance().iter().filter(|r| r.mechanism == m).map(|r| r.count).sum()
//! };
//! // 20 owners × 149 members, answered by each mechanism.
//! assert_eq!(answers("correlated"), 20 * 149);
//! assert_eq!(answers("independent"), 20 * 149);
//! assert_eq!(out.counts().responses, 2 * 20 * 149);
//! # Ok(()) }
//! ```
//!
//! The numbers are those of `privdiffuse simulate --eps exp:a=3,b=1 --dim 1
//! --norm l1 --mechanism both --owners 20 --seed 5` (its `by_distance.csv`),
//! bit for bit. `examples/` has complete programs (`cargo run --example
//! library`).
//!
//! # Randomness
//!
//! Every random quantity is drawn from its own generator,
//! [`rng_for`]`(seed, owner, trial, purpose)` — never from a shared or
//! thread-local one — so results are reproducible and do not depend on the
//! number of threads. Distinct tuples get distinct ChaCha8 keys (the
//! derivation is injective); [`rng_for`] states exactly what is guaranteed.
//! Library code that draws its own noise (e.g. [`PathSampler::sample`]) takes
//! the caller's generator: derive it the same way to stay reproducible.
//!
//! # Errors, cancellation, limits
//!
//! Errors ([`Error`]) are values naming the parameter as the API does (`eps`,
//! `eps_min`, `owners`) — never a command-line flag — or the file and line.
//! Long calls take a [`Control`]: a [`CancelToken`] checked between batches of
//! owners and an optional progress callback. Sizes are checked against caps
//! and a memory budget before anything is allocated (`limits`).
//!
//! # Features
//!
//! `cli` (the `privdiffuse` binary: clap, ctrlc, indicatif) and `plots`
//! (figures: plotters with an embedded font) are default features. A library
//! user can leave both out — `privdiffuse = { path = "…", default-features =
//! false }` — and keeps the whole engine; only drawing figures then returns an
//! error.
//!
//! Outputs are simulations: the noise is sampled in `f64` and is not a
//! floating-point-safe differentially private release (see Mironov, CCS 2012).

#![warn(missing_docs)]
// Without `internals` the rooms are crate-private: items that only this
// crate's tests, benches and Python extension use (and the re-exports that
// name them) are then unused in the library itself, which is expected.
#![cfg_attr(not(feature = "internals"), allow(dead_code, unused_imports))]

// The modules are the crate's rooms, not its API: a user reaches what they
// need from the root (re-exported below, documented there), and the rooms
// are `pub(crate)`. The feature `internals` (off by default; this crate's
// integration tests, benches, fuzz targets and Python extension turn it on)
// opens them, hidden from the documentation and not a stable interface, so
// that those can test internals.
macro_rules! rooms {
    ($($(#[$attr:meta])* $name:ident;)*) => {$(
        $(#[$attr])*
        #[cfg(feature = "internals")]
        #[doc(hidden)]
        pub mod $name;
        $(#[$attr])*
        #[cfg(not(feature = "internals"))]
        pub(crate) mod $name;
    )*};
}

rooms! {
    #[cfg(feature = "distributed")]
    cluster;
    collusion;
    control;
    distance;
    epsilon;
    error;
    #[cfg(feature = "store")]
    evolve;
    exec;
    #[cfg(feature = "distributed")]
    fingerprint;
    gossip;
    graph;
    io;
    limits;
    mechanism;
    paths;
    post;
    process;
    relay;
    release;
    rng;
    sim;
    sink;
    special;
    #[cfg(feature = "store")]
    store;
    sweep;
    util;
    utility;
    value_models;
    values;
}

/// The `privdiffuse` command line (feature `cli`): the binary's `main` calls
/// [`cli::main`]; the rest of the module is internal.
#[cfg(feature = "cli")]
#[doc(hidden)]
pub mod cli;

// Errors, control, randomness, limits.
pub use control::{CancelToken, Control, Progress};
pub use error::{Error, Result};
pub use limits::{BudgetSource, MemoryBudget, memory_budget, set_memory_budget};
pub use rng::{PrivRng, Purpose, rng_for, rng_for_stream};
// Graphs, distances, privacy maps, values.
pub use distance::{Direction, DistanceKind, DistanceOptions, Distances, Workspace};
pub use epsilon::EpsilonMap;
pub use graph::generate::{barabasi_albert, erdos_renyi, geometric, watts_strogatz};
pub use graph::{
    Dropped, GeometricParam, Graph, GraphStats, GraphView, HeaderMode, LoadOptions, NodeIds,
};
pub use mechanism::{Mechanism, MechanismChoice};
pub use post::Post;
pub use value_models::ValueModel;
pub use values::{GivenValues, ValueSpec, Values};
// The lazy process and its exact samplers.
pub use process::discrete::{
    DiscreteNoise, DiscretePath, DiscreteWalk, Grid as DiscreteGrid, Ladder, OsRng, PrivacyLoss,
    Ratio, RngSource, Rung,
};
pub use process::{
    AnchoredPath, BrownianPath, Calibration, GradualRelease, Jump, NoisePath, Norm, PathSampler,
    ReleaseNoise, ReleaseState, Released,
};
// The engines: configurations, runners, results, row types.
pub use collusion::{
    Accounting, AuditRow, Coalition, CoalitionMembers, CoalitionRow, Collusion, CollusionConfig,
    CollusionOutput, CollusionSummary, Estimator, LossSummary, correlated_loss, gaussian_loss,
    independent_loss,
};
#[cfg(feature = "store")]
pub use evolve::{Evolve, EvolveOutput, HeldOut, hold_out, read_events};
pub use exec::{ChunkJob, Executor, Local};
pub use gossip::{
    CoalitionLossRow, GossipConfig, GossipOutput, GossipScheme, GossipSummary,
    PrivacyByDistanceRow, PrivacyRow, TwoSchoolsRow, run_gossip,
};
pub use paths::{PathSampleRow, PathSamples};
pub use relay::{Relay, RelayConfig, RelayOutput};
pub use release::{AccuracyRow, ReleaseRow, ReleaseTrials};
pub use sim::{
    ByDistanceRow, EgoRow, JumpRow, KeptRow, OwnerRow, Owners, PathRow, ResponseRow, Rows,
    SimConfig, SimOutput, SimSummary, Simulation, Unreachable,
};
pub use sink::RecordSink;
#[cfg(feature = "store")]
pub use store::{AnswerFilter, AnswerRow, EdgeEvent, Store, StoreAnswer, StoreConfig, TimelineRow};
pub use sweep::{Grid, Point, SweepRow};
pub use utility::{Scheme, Utility, UtilityConfig, UtilityResult, UtilityRow, UtilitySummary};
// Files: runs written as the command line writes them.
#[cfg(feature = "plots")]
pub use io::plot::{Kind as PlotKind, PlotOptions};
pub use io::{
    OutputOptions, SweepOptions, SweepReport, collude_to_dir, run_sweep, save_release,
    simulate_to_dir, utility_to_dir, write_edge_list,
};
