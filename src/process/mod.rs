//! The lazy Laplace process {V_ε}: one sample path per data owner.
//!
//! An owner who answers many recipients at different privacy levels ε does
//! not draw fresh noise per answer: it samples **one path** `ε ↦ V_ε ∈ Rⁿ`
//! and answers the recipient at level ε with `u + V_ε`. The path's marginal
//! at every ε is the optimal Laplace noise (1-D density `(ε/2)·e^(−ε|v|)`,
//! `E V_ε² = 2/ε²`), and going *down* in ε it only adds independent noise:
//! it is piecewise constant, jumping at the points of a Poisson process in
//! `ln ε` (rate 2 per coordinate for ℓ1, `n + 1` for ℓ2). Whoever holds the
//! answer at the largest ε therefore holds everything the others could add
//! up — that is why a coalition learns no more than its best member.
//!
//! * [`PathSampler`] — exact samplers over `[eps_lo, eps_hi]`, ℓ1 and ℓ2
//!   (memo §1a, §2): a small value built once, sampling with the caller's
//!   generator;
//! * [`NoisePath`] — a sampled path as its breakpoint list, read at any level
//!   with [`NoisePath::value_at`] in O(log k);
//! * [`laplace`] — elementary draws (rand_distr has no Laplace);
//! * [`forward`], [`backward`], [`bridge`] — relaxing, tightening and
//!   inserting levels (memo §1c–1e, §2.4, §3);
//! * [`gaussian`], [`calibration`] — the Brownian (Gaussian) variant indexed by
//!   variance and σ(ε, δ, Δ₂) (memo §4);
//! * [`GradualRelease`] — one secret released at privacy levels requested in
//!   any order, serialisable (memo §3);
//! * [`AnchoredPath`] — a path anchored at a fixed top and only ever extended
//!   downward, resumable from its stored state (the release store).
//!
//! Levels are in units of ε/Δ (sensitivity Δ = 1 unless a caller scales).
//!
//! # Example: sample paths and read them at several levels
//!
//! ```
//! use privdiffuse::{Norm, PathSampler, Purpose, rng_for};
//! # fn main() -> Result<(), privdiffuse::Error> {
//! // 1-D ℓ1 paths over [0.5, 15]: 2·ln 30 ≈ 6.8 jumps on average.
//! let sampler = PathSampler::new(1, Norm::L1, 0.5, 15.0)?;
//! let n = 20_000;
//! let (mut sq, mut same) = (0.0, 0);
//! for owner in 0..n {
//!     // One generator per path, as the simulations derive them.
//!     let path = sampler.sample(&mut rng_for(1, owner, 0, Purpose::Path));
//!     // Breakpoint 0 sits at eps_lo; every later one is a jump.
//!     assert_eq!(path.levels()[0], 0.5);
//!     assert_eq!(path.levels().len(), path.num_jumps() + 1);
//!     // Recipients at ε = 1 and ε = 2 read the same path.
//!     let (v1, v2) = (path.value_at(1.0)[0], path.value_at(2.0)[0]);
//!     sq += v2 * v2;
//!     if v1 == v2 {
//!         same += 1; // no jump in between: the very same answer
//!     }
//! }
//! // The marginal at ε = 2 is Laplace: E V² = 2/ε² = 0.5 (sd of V² is √20/ε²).
//! let se = 20f64.sqrt() / 4.0 / (n as f64).sqrt();
//! assert!((sq / n as f64 - 0.5).abs() < 6.0 * se);
//! // No jump in [1, 2] with probability (1/2)^rate = 1/4.
//! let p = same as f64 / n as f64;
//! assert!((p - 0.25).abs() < 6.0 * (0.25f64 * 0.75 / n as f64).sqrt());
//! # Ok(()) }
//! ```

pub mod anchored;
pub mod backward;
pub mod bridge;
pub mod calibration;
pub mod discrete;
pub mod family;
pub mod forward;
pub mod gaussian;
pub mod laplace;
pub mod mechanism;
pub mod path;
pub mod release;
pub mod sampler;

/// Largest dimension n accepted. A path over a fixed ε range stores about
/// rate·ln(ε_hi/ε_lo) breakpoints of n values each, so its memory grows as n²
/// (about 55 MB per path at n = 1000 over [0.5, 15]); larger n is refused with
/// a clear error rather than an allocation failure.
pub const MAX_DIM: usize = 1000;

/// Checks 1 ≤ `dim` ≤ [`MAX_DIM`]; `name` is the parameter named in the error.
pub fn check_dim(name: &str, dim: usize) -> crate::error::Result<()> {
    if (1..=MAX_DIM).contains(&dim) {
        Ok(())
    } else {
        Err(crate::error::Error::param(
            name,
            dim,
            format!("an integer from 1 to {MAX_DIM} (path memory grows as n²)"),
        ))
    }
}

/// Checks the sensitivity Δ: a finite number > 0.
pub fn check_sensitivity(sensitivity: f64) -> crate::error::Result<()> {
    if sensitivity.is_finite() && sensitivity > 0.0 {
        Ok(())
    } else {
        Err(crate::error::Error::param(
            "sensitivity",
            sensitivity,
            "a finite number > 0",
        ))
    }
}

/// Checks the δ of an (ε, δ) guarantee: a number in (0, 1).
pub fn check_delta(delta: f64) -> crate::error::Result<()> {
    if delta > 0.0 && delta < 1.0 {
        Ok(())
    } else {
        Err(crate::error::Error::param(
            "delta",
            delta,
            "a number in (0, 1)",
        ))
    }
}

pub use anchored::{AnchoredPath, StoredSegments};
pub use calibration::Calibration;
pub use gaussian::BrownianPath;
pub use path::{Jump, NoisePath, Norm};
pub use sampler::{DownWalk, DownWalkState, PathSampler, add_jump, sample_marginal, walk_down};

pub use release::{GradualRelease, ReleaseNoise, ReleaseState, Released, StateError};
