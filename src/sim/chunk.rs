//! What one chunk of owners produces: its partial aggregate and counts,
//! merged in chunk order by the run (and sent between cluster peers).

use super::aggregate::Table;
use super::rows::{EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow};
use serde::Serialize;

/// Totals of a run (echoed in `summary.json`).
#[derive(Clone, Debug, Default, Serialize, serde::Deserialize, PartialEq)]
pub struct Counts {
    /// Owners simulated.
    pub owners: u64,
    /// Owners with no reachable member (nothing to answer).
    pub owners_without_recipients: u64,
    /// Answers, summed over the mechanisms run (see [`MechanismTotal::responses`](super::run::MechanismTotal::responses) for each).
    pub responses: u64,
    /// Unreachable members skipped (per mechanism run once).
    pub skipped_unreachable: u64,
    /// Jumps of all correlated paths.
    pub jumps: u64,
    /// Expected jumps: Σ_owners rate · ln(ε_hi/ε_lo).
    pub jumps_expected: f64,
}

/// What one chunk of owners produces (its partial aggregate).
#[derive(Serialize, serde::Deserialize)]
pub(crate) struct ChunkOut {
    pub(super) tables: Vec<Table>,
    pub(super) counts: Counts,
    pub(super) jumps: Vec<JumpRow>,
    pub(super) owners: Vec<OwnerRow>,
    pub(super) paths: Vec<PathRow>,
    pub(super) ego: Vec<EgoRow>,
    pub(super) responses: Vec<ResponseRow>,
}
