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
//! Outputs are simulations: the noise is sampled in `f64` and is not a
//! floating-point-safe differentially private release (see Mironov, CCS 2012).

pub mod collusion;
pub mod control;
pub mod distance;
pub mod epsilon;
pub mod error;
pub mod graph;
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

pub use control::{CancelToken, Control, Progress};
pub use distance::{DistanceKind, DistanceOptions, Distances, Workspace};
pub use epsilon::EpsilonMap;
pub use error::{Error, Result};
pub use graph::{Graph, NodeIds};
pub use rng::{PrivRng, Purpose, rng_for};
