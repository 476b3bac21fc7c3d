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

/// Largest dimension n accepted. A path over a fixed ε range stores about
/// rate·ln(ε_hi/ε_lo) breakpoints of n values each, so its memory grows as n²
/// (about 55 MB per path at n = 1000 over [0.5, 15]); larger n is refused with
/// a clear error rather than an allocation failure.
pub const MAX_DIM: usize = 1000;

/// Checks 1 ≤ `dim` ≤ [`MAX_DIM`]; `name` is the parameter named in the error.
pub fn check_dim(name: &str, dim: usize) -> crate::Result<()> {
    if (1..=MAX_DIM).contains(&dim) {
        Ok(())
    } else {
        Err(crate::Error::param(
            name,
            dim,
            format!("an integer from 1 to {MAX_DIM} (path memory grows as n²)"),
        ))
    }
}

pub use calibration::Calibration;
pub use gaussian::BrownianPath;
pub use path::{Jump, NoisePath, Norm};
pub use sampler::{PathSampler, add_jump, sample_marginal, walk_down};

pub use release::{GradualRelease, ReleaseNoise, ReleaseState, Released, StateError};
