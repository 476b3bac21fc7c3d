//! Collusion: coalitions of recipients who pool their answers (memo §5).
//!
//! The correlated mechanism exists because recipients collude. This module puts
//! that claim to the test:
//!
//! * [`coalition`] — which recipients collude ([`Coalition`]: `far:min-d=3`,
//!   `sybil:m=50,d=4`, …) and who they are for a given owner
//!   ([`CoalitionMembers`]);
//! * [`estimators`] — what a coalition can compute from its pooled answers: the
//!   best member's answer, means, medians, the independent-Laplace MLE and the
//!   Pitman (flat-prior posterior mean) estimator, O(m log m) per coordinate with
//!   reused buffers;
//! * [`accounting`] — the ε of the coalition's view: `max ε_j` for the correlated
//!   mechanism, basic and advanced composition for independent noise, the
//!   smallest σ for the Gaussian mechanism;
//! * [`audit`] — the exact privacy loss of every sampled view (two independent
//!   computations for the correlated mechanism), its summaries, and an empirical
//!   lower bound on ε from a distinguishing attack;
//! * [`builder`] — [`Collusion`], the typed builder run in memory;
//! * [`run`] — the trial runner behind `privdiffuse collude`: every owner ×
//!   coalition × mechanism, `T` fresh draws, estimator gains, audit, attack;
//! * [`stats`] — MSE / gain accumulators with delta-method confidence intervals,
//!   Clopper–Pearson bounds;
//! * [`rows`] — the rows of `coalition.csv` and `audit.csv`, shared by the
//!   writers and the coalition figure.
//!
//! Conventions: a coalition view holds `m` members' answers, `n` coordinates each,
//! row-major (`answers[j * n + i]`). Laplace members are described by their noise
//! *rate* λ_j (density ∝ e^{−λ_j|v|} per coordinate; with sensitivity calibration
//! λ_j = ε_j/Δ), Gaussian members by their per-coordinate standard deviation σ_j.

pub mod accounting;
pub mod audit;
pub mod builder;
pub mod coalition;
pub mod config;
pub mod estimators;
pub mod pool;
pub mod rows;
pub mod run;
pub mod stats;
pub mod summary;

pub use accounting::Accounting;
pub use audit::{
    DistinguishingBound, FullChain, LossSummary, correlated_loss, correlated_loss_full_chain,
    distinguishing_lower_bound, gaussian_loss, independent_loss,
};
pub use builder::{Collusion, CollusionOutput};
pub use coalition::{Coalition, CoalitionMembers, Member};
pub use config::{CollusionConfig, DEFAULT_COMPOSITION_DELTA, DEFAULT_OWNERS, DEFAULT_TRIALS};
pub use estimators::{
    Estimator, EstimatorPanel, EstimatorScratch, MemberNoise, View, estimator_list,
};
pub use pool::{PooledAudit, PooledEstimator, audit_rows, coalition_rows, pool};
pub use rows::{AuditRow, CoalitionRow};
pub use run::{
    AuditResult, CoalitionResult, CollusionOptions, CollusionResult, MechanismResult, OwnerChunk,
    PhaseTimes, collude, collude_on,
};
pub use stats::{GainAccumulator, GainSummary, clopper_pearson};
pub use summary::{CollusionSummary, summarize_collusion};

/// Norm of the n-dimensional mechanism: the crate-wide [`crate::process::Norm`]
/// (1-D views are the same under both).
///
/// ℓ1: coordinates are independent 1-D processes at the same level, so every
/// coordinate-wise computation is exact. ℓ2: the noise density is
/// ∝ e^{−λ‖v‖₂}; coordinate-wise estimators then use the per-coordinate Laplace
/// model as an approximation the attacker chooses (it is not the true model).
pub use crate::process::Norm;
