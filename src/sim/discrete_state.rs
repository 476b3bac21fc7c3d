//! The discrete noise a plan holds and the per-worker buffers of its branch
//! (`sim/discrete.rs` runs it): types that the plan and the workers own.

use super::config::SimConfig;
use crate::error::Result;
use crate::mechanism::MechanismChoice;
use crate::process::discrete::options::refuse_gaussian;
use crate::process::discrete::{
    DiscreteNoise, DiscretePath, DiscreteSummary, NoiseOptions, RngSource, Rung, theory,
};

/// The discrete configuration a plan holds: the validated noise, the entropy
/// source and the expected number of path changes per rung (for
/// `jumps_expected`).
pub(crate) struct DiscreteSim {
    pub(crate) noise: DiscreteNoise,
    pub(crate) rng: RngSource,
    /// `changes[k − min_rung]`: Σ over the steps from rung min_rung + 1 up to
    /// k of P(the value changes at that step) = 1 − atom(t_j, t_{j−1})ⁿ.
    pub(super) changes: Vec<f64>,
}

/// Per-worker buffers of the discrete branch.
#[derive(Default)]
pub(super) struct DiscreteScratch {
    pub(super) uhat: Vec<i64>,
    pub(super) x: Vec<i64>,
    pub(super) y: Vec<f64>,
    pub(super) err: Vec<f64>,
    pub(super) post: Vec<f64>,
    pub(super) rungs: Vec<Rung>,
    pub(super) eps: Vec<f64>,
    pub(super) theory: Vec<f64>,
    pub(super) correct: Vec<f64>,
    pub(super) sq: Vec<f64>,
    pub(super) path: DiscretePath,
}

impl SimConfig {
    /// The noise options of this configuration.
    pub fn noise_options(&self) -> NoiseOptions {
        NoiseOptions {
            noise: self.noise,
            granularity: self.granularity,
            levels_per_doubling: self.levels_per_doubling,
            rng: self.rng,
        }
    }

    /// The discrete noise of this configuration (`None` for `laplace`), with
    /// the refusals of issue 25: ℓ2 in n ≥ 2, the Gaussian mechanism.
    pub fn discrete_noise(&self) -> Result<Option<DiscreteNoise>> {
        let noise = self
            .noise_options()
            .discrete(self.sensitivity, self.dim, self.norm)?;
        if let Some(n) = &noise {
            // The public range first: no refusal may depend on a secret.
            super::discrete_bound::check_public_range(&self.values, n)?;
        }
        if noise.is_some() && self.mechanism == MechanismChoice::Gaussian {
            return Err(refuse_gaussian(
                "mechanism",
                "gaussian",
                "correlated, independent or both",
            ));
        }
        Ok(noise)
    }

    /// What `summary.json` records of the discrete noise (`None` for `laplace`).
    pub fn discrete_summary(&self) -> Option<DiscreteSummary> {
        let noise = self.discrete_noise().ok()??;
        Some(DiscreteSummary::of(&noise, self.rng))
    }
}

impl DiscreteSim {
    /// The plan's discrete configuration, or `None` for `laplace`.
    pub(crate) fn of(config: &SimConfig) -> Result<Option<DiscreteSim>> {
        let Some(noise) = config.discrete_noise()? else {
            return Ok(None);
        };
        let (lo, hi) = (noise.min_rung().0, noise.max_rung().0);
        let n = noise.dim() as i32;
        let mut changes = Vec::with_capacity((hi - lo + 1) as usize);
        let mut acc = 0.0;
        changes.push(acc);
        for k in lo + 1..=hi {
            let (t1, t2) = (noise.rate_f64(Rung(k)), noise.rate_f64(Rung(k - 1)));
            acc += 1.0 - theory::atom(t1, t2).powi(n);
            changes.push(acc);
        }
        Ok(Some(DiscreteSim {
            noise,
            rng: config.rng,
            changes,
        }))
    }

    /// Expected number of changes of a path from `top` down to `bottom`.
    pub(super) fn expected_changes(&self, top: Rung, bottom: Rung) -> f64 {
        let lo = self.noise.min_rung().0;
        let at = |k: Rung| self.changes[(k.0 - lo) as usize];
        at(top) - at(bottom)
    }
}
