//! The lazy Laplace process {V_ε}: one sample path per data owner.
//!
//! * [`NoisePath`] — a sampled path as its breakpoint list, `value_at` in O(log k).
//! * [`PathSampler`] — exact samplers over `[eps_lo, eps_hi]`, ℓ1 and ℓ2 (memo §1a, §2).
//! * [`laplace`] — elementary draws (rand_distr has no Laplace).
//! * [`forward`], [`backward`], [`bridge`] — relaxing, tightening and
//!   inserting levels (memo §1c–1e, §2.4, §3).
//! * [`gaussian`], [`calibration`] — the Brownian (Gaussian) variant indexed by
//!   variance and σ(ε, δ, Δ₂) (memo §4).
//! * [`GradualRelease`] — one secret released at privacy levels requested in
//!   any order, serialisable (memo §3).

pub mod backward;
pub mod bridge;
pub mod calibration;
pub mod forward;
pub mod gaussian;
pub mod laplace;
pub mod path;
pub mod release;
pub mod sampler;

pub use calibration::Calibration;
pub use gaussian::BrownianPath;
pub use path::{Jump, NoisePath, Norm};
pub use sampler::{PathSampler, add_jump, sample_marginal, walk_down};

pub use release::{GradualRelease, Mechanism, ReleaseState, Released, StateError};
