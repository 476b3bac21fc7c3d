//! The discrete engine's per-worker buffers (`utility --noise discrete`),
//! reused across chunks; the engine in `discrete.rs` fills them.

use super::shrinkage::ShrinkScratch;
use crate::distance::{LevelSearch, SubsetSums};
use crate::process::discrete::{DiscreteWalk, NoiseRng};

/// Per-worker buffers of the discrete engine, reused across chunks.
#[derive(Default)]
pub(crate) struct DiscreteScratch {
    pub(super) search: LevelSearch,
    /// Each owner's chain (started at its first level) and its generator.
    pub(super) walks: Vec<Option<(DiscreteWalk, NoiseRng)>>,
    /// Values (`dim` per owner) and their grid integers.
    pub(super) u: Vec<f64>,
    pub(super) uhat: Vec<i64>,
    /// The owners' correlated answers at the current level.
    pub(super) y: Vec<f64>,
    pub(super) zeros: Vec<f64>,
    /// One fresh draw.
    pub(super) x: Vec<i64>,
    /// One visit's independent answers, `dim` each in owner-bit order.
    pub(super) ind: Vec<f64>,
    /// Their sum in grid integers.
    pub(super) isum: Vec<i128>,
    pub(super) u_tables: Vec<SubsetSums<i128>>,
    pub(super) r_tables: Vec<SubsetSums<i128>>,
    pub(super) tables: Vec<SubsetSums<i128>>,
    pub(super) deb_tables: Vec<SubsetSums<i128>>,
    pub(super) terms: Vec<i128>,
    pub(super) shrink: ShrinkScratch,
}
