//! The lazy Laplace process {V_ε}: one sample path per data owner.
//!
//! * [`NoisePath`] — a sampled path as its breakpoint list, `value_at` in O(log k).
//! * [`PathSampler`] — exact samplers over `[eps_lo, eps_hi]`, ℓ1 and ℓ2 (memo §1a, §2).
//! * [`laplace`] — elementary draws (rand_distr has no Laplace).

pub mod laplace;
pub mod path;
pub mod sampler;

pub use path::{Jump, NoisePath, Norm};
pub use sampler::{PathSampler, add_jump, sample_marginal, walk_down};
