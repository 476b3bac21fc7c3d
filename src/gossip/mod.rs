//! Private gossip averaging (Muffliato: Cyffers, Even, Bellet, Massoulié,
//! NeurIPS 2022) on the graphs `privdiffuse` diffuses on, with its pairwise
//! privacy computed two ways — the reference code's accounting and the
//! exact loss — beside diffusion's (`privdiffuse gossip`, issue 36; the
//! memo is `math/gossip.md`).
//!
//! | file | what | memo |
//! |---|---|---|
//! | `metropolis` | W in CSR: Metropolis–Hastings weights | (2) |
//! | `iteration` | simple / accelerated gossip, γ, the mixing rule | (3)–(6) |
//! | `spectral_gap` | λ₂ by Lanczos (no dense matrix) | (2) |
//! | `spectrum` | the one dense eigendecomposition (≤ 10,000 nodes) | (10), (13) |
//! | `paper` | the code's per-message accounting, per source | (8) via (10) |
//! | `exact` | the exact loss by block Lanczos | (11), (11b) |
//! | `conversion` | Rényi → (ε, δ) by the tight Gaussian curve; matched Laplace | (12) |
//! | `utility` | MSE of every member's estimate and its closed form | (13)–(14) |
//! | `compare` | the side-by-side with diffusion | issue 36 item 5 |
//! | `config`, `run`, `rows` | the run and what it returns | |
//!
//! Conventions (memo §3, §6): the accounting (8) starts at t₀ = 0 and uses
//! the `P_t` of the gossip actually run (not `W^t` for accelerated runs),
//! with the factor `αΔ²/(2σ²)`, and is capped at that local level (9) when
//! reported; losses are carried in units of the local level. The noisy start
//! is never clipped.

pub mod compare;
pub mod config;
pub mod conversion;
pub mod exact;
pub mod iteration;
pub mod metropolis;
pub mod paper;
pub mod rows;
pub mod run;
pub mod spectral_gap;
pub mod spectrum;
pub mod utility;

pub use config::GossipConfig;
pub use exact::{ExactLoss, ExactScratch, RANK_TOLERANCE, exact_loss};
pub use iteration::{GossipScheme, Recursion, mixing_steps, momentum};
pub use metropolis::Metropolis;
pub use rows::{CoalitionLossRow, PrivacyByDistanceRow, PrivacyRow, RankRow, Stats, TwoSchoolsRow};
pub use run::{GossipOutput, GossipSummary, GossipTimings, run_gossip};
pub use spectral_gap::{SpectralGap, spectral_gap};
pub use spectrum::Spectrum;

#[cfg(test)]
mod tests;
