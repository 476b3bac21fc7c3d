//! A gradual release under the discrete chain (`relax --noise discrete`,
//! issue 25; memo `discrete.md` §4): the secret is rounded to the grid, the
//! noise is one [`DiscreteWalk`] with a top fixed at creation (the rung of
//! `eps_max`), walked down through every rung as requests need it and never
//! resampled or walked up. A request at ε is answered at the largest rung ≤ ε
//! (never less private); a request above `eps_max` is answered at the top
//! (memo §4). Every recorded level is the rung actually used.
//!
//! Randomness (`rng` = seeded): the walk reads ONE stream, ChaCha stream 1 of
//! `rng_for(seed, stream, 0, Purpose::Release)` (the Laplace and Gaussian
//! requests read stream 0 of their per-request tuples), continued from its
//! word position, which the state keeps. Since every step of the walk reads
//! the stream in the same order whatever the requests, the answers depend on
//! the set of levels requested, not on their order, and a saved state
//! continues exactly. With `rng` = os, each extension draws from a fresh
//! operating-system generator (the chain is Markov: continuing from the
//! bottom needs no memory beyond the path).

use super::{GradualRelease, Noise, ReleaseNoise, Released};
use crate::error::{Error, Result};
use crate::limits;
use crate::process::Norm;
use crate::process::discrete::{
    DiscreteNoise, DiscreteWalk, NoiseKind, NoiseOptions, NoiseRng, RngSource, Rung,
};
use crate::rng::{Purpose, rng_for_stream};
use serde::{Deserialize, Serialize};

/// ChaCha stream number of a discrete walk's generator (see the module
/// documentation): distinct from stream 0, which Laplace and Gaussian
/// requests read.
const WALK_STREAM: u64 = 1;

/// Default fixed top of a discrete release (`eps_max`).
pub const DEFAULT_EPS_MAX: f64 = 256.0;

/// The stored noise of a discrete release ([`ReleaseState::discrete`](super::ReleaseState)):
/// the walk (its configuration, with Δ_Z, and the path from the top down to
/// the lowest rung released) and, for a seeded generator, its word position.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscreteState {
    /// The walk drawn so far.
    pub walk: DiscreteWalk,
    /// Words of the seeded stream read so far (`None` with `rng` = os).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word_pos: Option<u64>,
}

impl ReleaseNoise {
    /// The discrete chain's configuration for a release of `dim`
    /// coordinates with sensitivity Δ, and its fixed top rung (the rung of
    /// `eps_max`), or `None` for the Laplace and Gaussian mechanisms.
    pub fn discrete_noise(
        &self,
        sensitivity: f64,
        dim: usize,
    ) -> Result<Option<(DiscreteNoise, Rung)>> {
        let ReleaseNoise::Discrete {
            granularity,
            levels_per_doubling,
            eps_max,
            rng,
        } = *self
        else {
            return Ok(None);
        };
        let options = NoiseOptions {
            noise: NoiseKind::Discrete,
            granularity,
            levels_per_doubling,
            rng,
        };
        // ℓ1: the chain has independent integer coordinates.
        let noise = options
            .discrete(sensitivity, dim, Norm::L1)?
            .ok_or_else(|| Error::Numerical("discrete options without a chain".into()))?;
        if !(eps_max.is_finite() && eps_max > 0.0) {
            return Err(Error::param("eps_max", eps_max, "a finite number > 0"));
        }
        let top = noise.rung_of(eps_max).map_err(|e| match e {
            Error::Parameter {
                value, expected, ..
            } => Error::Parameter {
                name: "eps_max".into(),
                value,
                expected,
            },
            other => other,
        })?;
        Ok(Some((noise, top)))
    }
}

/// The rung answering `eps` under `noise` with top `top`: the largest rung
/// ≤ ε, or the top above it (memo §4).
fn answer_rung(noise: &DiscreteNoise, top: Rung, eps: f64) -> Result<Rung> {
    if eps.is_finite() && eps >= noise.eps_of(top) {
        return Ok(top);
    }
    noise.rung_of(eps)
}

/// The walk's generator: the seeded stream at word `pos`, or the OS's.
fn generator(seed: u64, stream: u64, rng: RngSource, pos: u64) -> Result<NoiseRng> {
    NoiseRng::continued(
        rng,
        || rng_for_stream(seed, stream, 0, Purpose::Release, WALK_STREAM),
        pos,
    )
}

/// The word position to keep after drawing from `rng` (`None` for the OS's).
fn position(rng: &NoiseRng) -> Result<Option<u64>> {
    rng.word_pos()
}

impl GradualRelease {
    /// The discrete configuration and top rung of this release (`None` for
    /// the Laplace and Gaussian mechanisms).
    pub fn discrete_noise(&self) -> Result<Option<(DiscreteNoise, Rung)>> {
        self.mechanism.discrete_noise(self.sensitivity, self.dim())
    }

    /// The materialised discrete walk (discrete mechanism, after the first
    /// release).
    pub fn discrete_walk(&self) -> Option<&DiscreteWalk> {
        match &self.noise {
            Noise::Discrete { walk, .. } => Some(walk),
            _ => None,
        }
    }

    /// The level a request at `eps` is answered at and the expected
    /// ‖y − u‖² of that answer: `eps` and the single-release optimum for the
    /// Laplace and Gaussian mechanisms; for the discrete chain the rung used
    /// and n·2a/(1 − a)²·γ² there plus the rounding ‖γ·û − u‖² of the secret.
    pub fn expected_mse(&self, eps: f64) -> Result<(f64, f64)> {
        match self.discrete_noise()? {
            None => Ok((
                eps,
                self.mechanism
                    .single_release_mse(eps, self.dim(), self.sensitivity)?,
            )),
            Some((noise, top)) => {
                let rung = answer_rung(&noise, top, eps)?;
                let g = noise.grid();
                let mut rounding = 0.0;
                for &u in &self.value {
                    let d = g.value_of(i128::from(g.round(u)?))? - u;
                    rounding += d * d;
                }
                Ok((noise.eps_of(rung), noise.mse(rung) + rounding))
            }
        }
    }

    /// Releases at the rung of `eps` (see the module documentation).
    pub(super) fn release_discrete(&mut self, eps: f64) -> Result<Vec<f64>> {
        let (noise, top) = self
            .discrete_noise()?
            .ok_or_else(|| Error::Numerical("not a discrete release".into()))?;
        let ReleaseNoise::Discrete { rng: source, .. } = self.mechanism else {
            return Err(Error::Numerical("not a discrete release".into()));
        };
        let rung = answer_rung(&noise, top, eps)?;
        let level = noise.eps_of(rung);
        if let Some(r) = self.history.iter().find(|r| r.eps == level) {
            let y = r.value.clone();
            self.history.push(Released {
                eps: level,
                value: y.clone(),
            });
            return Ok(y);
        }
        let n = self.dim();
        let bottom = match &self.noise {
            Noise::Discrete { walk, .. } => walk.bottom(),
            _ => top,
        };
        if rung < bottom {
            // At worst one breakpoint of n values per rung walked.
            let steps = u64::try_from(bottom.0 - rung.0).unwrap_or(u64::MAX);
            limits::memory_budget().check_with(
                "eps",
                format!(
                    "{} (the discrete walk extended {steps} rungs down to ε = {level}, n = {n})",
                    limits::fmt_num(eps)
                ),
                limits::path_bytes(steps.saturating_add(1), n).saturating_mul(2),
                "request higher levels, lower the dimension, or raise `memory_budget`",
            )?;
        }
        let (seed, stream) = (self.seed, self.stream);
        match &mut self.noise {
            Noise::Empty => {
                let mut rng = generator(seed, stream, source, 0)?;
                let mut walk = DiscreteWalk::start(&noise, top, &mut rng)?;
                walk.extend_to(rung, &mut rng)?;
                let word_pos = position(&rng)?;
                self.noise = Noise::Discrete { walk, word_pos };
            }
            Noise::Discrete { walk, word_pos } => {
                if rung < walk.bottom() {
                    let mut rng = generator(seed, stream, source, word_pos.unwrap_or(0))?;
                    walk.extend_to(rung, &mut rng)?;
                    *word_pos = position(&rng)?;
                }
            }
            _ => {
                return Err(Error::Numerical(
                    "noise state does not match mechanism".into(),
                ));
            }
        }
        let y = self.discrete_answer(&noise, rung)?;
        self.history.push(Released {
            eps: level,
            value: y.clone(),
        });
        Ok(y)
    }

    /// (û + X_rung)·γ from the stored walk, or an error when the walk does
    /// not reach `rung`.
    fn discrete_answer(&self, noise: &DiscreteNoise, rung: Rung) -> Result<Vec<f64>> {
        let Noise::Discrete { walk, .. } = &self.noise else {
            return Err(Error::Numerical("no discrete walk".into()));
        };
        let x = walk
            .path()
            .value_at(rung)
            .ok_or_else(|| Error::param("rung", rung, "a rung the walk reached"))?;
        let mut uhat = vec![0i64; self.dim()];
        noise.round_into(&self.value, &mut uhat)?;
        let mut y = vec![0.0; self.dim()];
        noise.answer_into(&uhat, x, &mut y)?;
        Ok(y)
    }

    /// Restores a discrete walk from a state (checked against the
    /// configuration: the same γ, m, Δ, n and Δ_Z, the top at the rung of
    /// `eps_max`, a word position exactly when seeded).
    pub(super) fn restore_discrete(&mut self, d: DiscreteState) -> std::result::Result<(), String> {
        let (noise, top) = match self.discrete_noise() {
            Ok(Some(c)) => c,
            Ok(None) => return Err("a discrete walk under a non-discrete mechanism".into()),
            Err(e) => return Err(e.to_string()),
        };
        if *d.walk.noise() != noise || d.walk.noise().delta_z() != noise.delta_z() {
            return Err(format!(
                "the walk's configuration (granularity {}, levels_per_doubling {}, sensitivity \
                 {}, dim {}) does not match the release's ({}, {}, {}, {})",
                d.walk.noise().grid(),
                d.walk.noise().levels_per_doubling(),
                d.walk.noise().sensitivity(),
                d.walk.noise().dim(),
                noise.grid(),
                noise.levels_per_doubling(),
                noise.sensitivity(),
                noise.dim()
            ));
        }
        if d.walk.top() != top {
            return Err(format!(
                "the walk's top rung {} is not the rung of eps_max ({top})",
                d.walk.top()
            ));
        }
        let ReleaseNoise::Discrete { rng, .. } = self.mechanism else {
            return Err("not a discrete release".into());
        };
        match (rng, d.word_pos) {
            (RngSource::Seeded, Some(_)) | (RngSource::Os, None) => {}
            (RngSource::Seeded, None) => {
                return Err("word_pos missing: a seeded walk keeps its stream position".into());
            }
            (RngSource::Os, Some(_)) => {
                return Err("word_pos given for rng = os (no stream to continue)".into());
            }
        }
        self.noise = Noise::Discrete {
            walk: d.walk,
            word_pos: d.word_pos,
        };
        Ok(())
    }

    /// A seeded walk replayed (issue 33 item 7): the stream of this
    /// release's seed and stream, from word 0, walked from the top down to
    /// the lowest rung of the history, must give the stored walk and word
    /// position exactly — so an edited seed, stream, walk or `word_pos` (a
    /// stream rewound to draw the same secret's noise again) is refused. A
    /// walk of `rng` = os has no stream to replay (see `ReleaseState::sha256`).
    /// Called once the walk and the history are restored.
    pub(super) fn check_replay(&self) -> std::result::Result<(), String> {
        let ReleaseNoise::Discrete {
            rng: RngSource::Seeded,
            ..
        } = self.mechanism
        else {
            return Ok(());
        };
        let Noise::Discrete { walk, word_pos } = &self.noise else {
            return Ok(());
        };
        let (noise, top) = match self.discrete_noise() {
            Ok(Some(c)) => c,
            Ok(None) => return Err("a discrete walk under a non-discrete mechanism".into()),
            Err(e) => return Err(e.to_string()),
        };
        let lowest = self
            .history
            .iter()
            .map(|r| answer_rung(&noise, top, r.eps))
            .collect::<Result<Vec<Rung>>>()
            .map_err(|e| e.to_string())?
            .into_iter()
            .min()
            .ok_or("a discrete walk without any answer released from it")?;
        let replayed = || -> Result<(DiscreteWalk, Option<u64>)> {
            let mut rng = generator(self.seed, self.stream, RngSource::Seeded, 0)?;
            let mut w = DiscreteWalk::start(&noise, top, &mut rng)?;
            w.extend_to(lowest, &mut rng)?;
            Ok((w, position(&rng)?))
        };
        let (w, pos) = replayed().map_err(|e| e.to_string())?;
        if w != *walk {
            return Err(format!(
                "the walk is not the one seed {} and stream {} draw down to the history's \
                 lowest rung: a seeded state replays exactly (was its seed, stream or walk \
                 edited?)",
                self.seed, self.stream
            ));
        }
        if pos != *word_pos {
            return Err(format!(
                "word_pos {}: expected {} (the seeded stream replayed from seed {} and the \
                 history)",
                word_pos.map_or_else(|| "none".into(), |p| p.to_string()),
                pos.map_or_else(|| "none".into(), |p| p.to_string()),
                self.seed
            ));
        }
        Ok(())
    }

    /// Whether a stored answer is the one the walk gives at its level: the
    /// level a rung at or below the top, reached by the walk, and the value
    /// (û + X)·γ bit for bit.
    pub(super) fn check_discrete_answer(&self, r: &Released) -> bool {
        let Ok(Some((noise, top))) = self.discrete_noise() else {
            return false;
        };
        let Ok(rung) = answer_rung(&noise, top, r.eps) else {
            return false;
        };
        noise.eps_of(rung) == r.eps
            && self.discrete_answer(&noise, rung).is_ok_and(|y| {
                y.iter()
                    .zip(&r.value)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            })
    }

    /// The stored form of the discrete walk, if any.
    pub(super) fn discrete_state(noise: Noise) -> Option<DiscreteState> {
        match noise {
            Noise::Discrete { walk, word_pos } => Some(DiscreteState { walk, word_pos }),
            _ => None,
        }
    }
}

#[cfg(test)]
#[path = "discrete_tests.rs"]
mod tests;
