//! # privdiffuse
//!
//! Simulates coalition-free diffusion of private data over social networks
//! (Koufogiannis & Pappas). A data owner releases `u + V_ε(d)` to a recipient at
//! graph distance `d`, where `ε(d)` falls with distance and `{V_ε}` is one sample
//! path of a lazy Markov process whose marginals are optimal Laplace noise. The
//! answers are correlated so that a coalition learns no more than its closest
//! member.
//!
//! Data flow: graph → distances → ε → path → responses → evaluation → output.
//! Lower layers never import higher ones.
//!
//! # The library in one screen
//!
//! A run is described by typed values, each validated when built
//! ([`EpsilonMap::exp`], [`Owners::Count`], [`Coalition::far`], …; every one
//! also parses the command line's spec grammar with `FromStr` and prints its
//! canonical spec with `Display`), and run in memory by a builder:
//!
//! * [`Simulation`] — every owner answers every reachable member; accuracy per
//!   mechanism and distance ([`SimOutput::by_distance`]), as `simulate`;
//! * [`Collusion`] — coalitions pool their answers: estimator gains, exact
//!   privacy loss, a distinguishing attack ([`CollusionOutput`]), as `collude`;
//! * [`GradualRelease`] — one secret released at rising levels (`relax`);
//! * [`Grid`] and [`run_sweep`] — parameter sweeps into one CSV (`sweep`).
//!
//! ```no_run
//! use privdiffuse::{EpsilonMap, Graph, MechanismChoice, Norm, Owners, Simulation};
//! # fn main() -> Result<(), privdiffuse::Error> {
//! let g = Graph::load("data/geometric150.edges")?;
//! let out = Simulation::new(&g)
//!     .eps(EpsilonMap::exp(3.0, 1.0)?)
//!     .dim(1)
//!     .norm(Norm::L1)
//!     .mechanism(MechanismChoice::Both)
//!     .owners(Owners::Count(20))
//!     .seed(5)
//!     .run()?;
//! for row in out.by_distance() {
//!     println!("{} {} {} {}", row.mechanism, row.distance_lo, row.mse, row.mse_theory);
//! }
//! # Ok(()) }
//! ```
//!
//! Errors ([`Error`]) name parameters as the API does (`eps`, `eps_min`,
//! `owners`), never a command-line flag; cancellation and progress go through
//! a [`Control`] given to the builders.
//!
//! Outputs are simulations: the noise is sampled in `f64` and is not a
//! floating-point-safe differentially private release (see Mironov, CCS 2012).

#![warn(missing_docs)]

pub mod collusion;
pub mod control;
pub mod distance;
pub mod epsilon;
pub mod error;
pub mod graph;
pub mod limits;
pub mod mechanism;
pub mod output;
pub mod post;
pub mod process;
pub mod rng;
pub mod sim;
pub mod special;
pub mod sweep;
pub mod util;
pub mod values;

pub use collusion::{Coalition, CoalitionMembers, Collusion, CollusionOutput, Estimator};
pub use control::{CancelToken, Control, Progress};
pub use distance::{DistanceKind, DistanceOptions, Distances, Workspace};
pub use epsilon::EpsilonMap;
pub use error::{Error, Result};
pub use graph::{Graph, LoadOptions, NodeIds};
pub use mechanism::{Mechanism, MechanismChoice};
pub use post::Post;
pub use process::{GradualRelease, NoisePath, Norm, PathSampler, ReleaseNoise};
pub use rng::{PrivRng, Purpose, rng_for, rng_for_stream};
pub use sim::{ByDistanceRow, Owners, Rows, SimConfig, SimOutput, Simulation, Unreachable};
pub use sweep::{Grid, SweepOptions, SweepReport, run_sweep};
pub use values::ValueSpec;
