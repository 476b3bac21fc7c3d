//! A floating-point-safe lazy process: discrete Laplace on a grid, exact in
//! integers (memo `discrete.md`, issue 25).
//!
//! A release drawn in f64 has a set of attainable values that depends on the
//! secret (Mironov, CCS 2012). Here values are rounded to a grid γ = 2^k,
//! noise is an integer drawn exactly (Canonne–Kamath–Steinke 2020) and the
//! answer is (û + X)·γ, exact in f64: the attainable answers for û + 1 are
//! those for û shifted by γ. The lazy coupling survives in integers: going
//! down a ladder of levels, each step adds B·L with L ~ DL(a₂) and a coin B
//! sampled with O(1) Bernoulli(e^{−x}) coins (memo §2), so a coalition stays
//! max-ε private.
//!
//! * [`DiscreteNoise`] — the validated configuration an engine holds (grid,
//!   m levels per doubling, Δ_Z, dimension): [`rung_of`](DiscreteNoise::rung_of),
//!   [`eps_of`](DiscreteNoise::eps_of), one-shot paths
//!   ([`sample_path_into`](DiscreteNoise::sample_path_into)), fresh draws for
//!   the independent baseline, closed forms, exact privacy loss;
//! * [`DiscretePath`], [`DiscreteWalk`] — one path per owner, read at rungs;
//!   the walk is extended downwards later and serialises (memo §4);
//! * [`samplers`] — Bernoulli(e^{−x}), geometric, discrete Laplace and the
//!   jump coin for exact rationals ([`Ratio`]);
//! * [`Ladder`], [`Rung`], [`Grid`] — the levels and the grid;
//! * [`theory`] — closed forms (f64, reporting only);
//! * [`OsRng`], [`RngSource`] — the operating system's generator for releases.
//!
//! # Example
//!
//! ```
//! use privdiffuse::process::discrete::{DiscreteNoise, Grid};
//! use privdiffuse::{Purpose, rng_for};
//! # fn main() -> Result<(), privdiffuse::Error> {
//! // γ = 2^-10, 32 levels per doubling, sensitivity 1, one coordinate: Δ_Z = 1024.
//! let noise = DiscreteNoise::new(Grid::default(), 32, 1.0, 1)?;
//! let (top, bottom) = (noise.rung_of(15.0)?, noise.rung_of(0.5)?);
//! assert!(noise.eps_of(top) <= 15.0 && noise.eps_of(bottom) == 0.5);
//! let path = noise.sample_path(top, bottom, &mut rng_for(1, 7, 0, Purpose::Path))?;
//! // A recipient at ε = 2 reads the path at the rung of 2; the answer is on the grid.
//! let uhat = [noise.grid().round(0.3)?];
//! let x = path.value_at(noise.rung_of(2.0)?).unwrap();
//! let mut y = [0.0];
//! noise.answer_into(&uhat, x, &mut y)?;
//! assert_eq!(y[0], (uhat[0] + x[0]) as f64 / 1024.0);
//! # Ok(()) }
//! ```

pub mod anchored;
pub mod chain;
pub mod entropy;
pub mod grid;
pub mod ladder;
pub mod loss;
pub mod noise;
pub mod options;
pub mod rational;
pub mod samplers;
pub mod theory;

#[cfg(test)]
mod tests;

pub use anchored::DiscreteAnchored;
pub use chain::{DiscretePath, DiscreteWalk, Sampler};
pub use entropy::{NoiseRng, OsRng, RngSource};
pub use grid::{Grid, MAX_GRID_VALUE};
pub use ladder::{DEFAULT_LEVELS_PER_DOUBLING, Ladder, MAX_LEVELS_PER_DOUBLING, Rung};
pub use loss::{MemberView, PrivacyLoss};
pub use noise::DiscreteNoise;
pub use options::{DiscreteSummary, NoiseKind, NoiseOptions};
pub use rational::Ratio;
pub use samplers::{JumpCoin, bernoulli_exp, discrete_laplace_exact, geometric_exp, jump_coin};
