//! [`GradualRelease`]: one secret released at privacy levels requested in any
//! order (memo §3), for the Laplace process (ℓ1 or ℓ2) or the Gaussian
//! (Brownian) variant (memo §4).
//!
//! The noise is a lazily materialised path of the release's noise family
//! (chosen once, from [`ReleaseNoise`]), and the release is written once over
//! the family ([`NoiseFamily::lazy_noise`]). For the Laplace process: a
//! breakpoint list over `[eps_lo, eps_hi]` plus the latent variance s at the
//! top (memo §1b). A request inside the range is a lookup (every jump there is
//! already drawn, so this is the exact bridge); below the range the backward
//! jump walk continues ([`walk_down`](super::walk_down), independent increments); above it the
//! latent forward step of memo §2.4 ([`forward_latent`](super::forward::forward_latent)) runs from the top
//! state ([`LazyLaplace`]). For the Gaussian variant: a [`BrownianPath`]
//! indexed by variance. For the discrete chain (issue 25; memo
//! `discrete.md` §4): the secret rounded to the grid and one
//! [`super::discrete::DiscreteWalk`] with a top fixed at
//! creation (the rung of `eps_max`), walked down through every rung as
//! requests need it and never resampled or walked up; a request at ε is
//! answered at the largest rung ≤ ε (the top above it), and the level
//! recorded is the rung's. Answers already given never change, and releasing
//! any set of levels is exactly as private as the largest of them
//! ([`GradualRelease::privacy_level`]).
//!
//! Randomness: request number k (0-based, counting every request) draws from
//! `rng_for(seed, stream, k, Purpose::Release)`, so a release is a
//! deterministic function of its seed, stream and request sequence — also
//! across [`GradualRelease::to_json`] / [`GradualRelease::from_json`]. The
//! discrete walk instead reads ONE stream, ChaCha stream 1 of
//! `rng_for(seed, stream, 0, Purpose::Release)`, continued from the word
//! position its state keeps: its answers depend on the set of levels
//! requested, not on their order (with `rng` = os, each extension draws from
//! a fresh operating-system generator).
//!
//! Sensitivity Δ: the Laplace process runs at level ε/Δ (noise scale Δ/ε);
//! the Gaussian variance is σ(ε, δ, Δ)². Levels with ε/Δ outside
//! [1e−60, 1e60] are refused (the range of every mechanism, [`crate::limits`]).
//!
//! The saved state holds the secret u and noise not yet released (path
//! values between released levels, the latent at the top): keep it as
//! private as u itself.

use super::calibration::{Calibration, check_gaussian_params};
use super::discrete::{DiscreteNoise, DiscreteWalk, NoiseKind, NoiseOptions, Rung};
use super::family::{
    Discrete, Gaussian, Laplace, Lazies, LazyLaplace, Noise, NoiseFamily, StreamKey, Visit, Whose,
};
use super::gaussian::BrownianPath;
use super::path::{NoisePath, Norm};
use crate::error::{Error, Result};
use crate::rng::Purpose;
use serde::{Deserialize, Serialize};
use std::path::Path;

mod state;

pub use super::family::DiscreteState;
use state::locate;
pub use state::{GaussianState, LaplaceState, ReleaseState, StateError};

/// Default fixed top of a discrete release (`eps_max`).
pub const DEFAULT_EPS_MAX: f64 = 256.0;

/// Refuses the discrete chain's options given to a release without
/// `noise` = discrete (`options.noise` is then Laplace or Gaussian; its
/// other options as given, unset ones at their defaults): they would
/// silently do nothing. One check for `relax` and Python's
/// `GradualRelease`, each naming its own flag or keyword.
pub fn refuse_discrete_options(options: &NoiseOptions, eps_max: Option<f64>) -> Result<()> {
    let laplace = NoiseOptions {
        noise: NoiseKind::Laplace,
        ..*options
    };
    laplace.discrete(1.0, 1, Norm::L1)?;
    match eps_max {
        Some(e) => Err(Error::param(
            "eps_max",
            e,
            "no `eps_max` unless `noise` = discrete (it is the discrete chain's fixed top)",
        )),
        None => Ok(()),
    }
}

/// The noise family of a release.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "lowercase")]
pub enum ReleaseNoise {
    /// The lazy Laplace process in norm ℓ1 (independent coordinates) or ℓ2;
    /// ε-DP per release with respect to that norm.
    Laplace {
        /// Privacy metric.
        norm: Norm,
    },
    /// Brownian motion indexed by variance σ(ε, δ, Δ₂)²; (ε, δ)-DP per release
    /// with respect to ℓ2.
    Gaussian {
        /// δ in (0, 1), the same for every level.
        delta: f64,
        /// How σ is computed.
        calibration: Calibration,
    },
    /// The discrete chain of memo `discrete.md` (issue 25): the secret
    /// rounded to the grid, integer noise drawn exactly, ε-DP per release in
    /// ℓ1 with Δ_Z = ⌈Δ/γ⌉ + n − 1; levels answered at their rungs, the top
    /// fixed at the rung of `eps_max`.
    Discrete {
        /// The grid γ.
        granularity: crate::process::discrete::Grid,
        /// Levels per doubling m of the ladder.
        levels_per_doubling: u32,
        /// The fixed top: requests above its rung are answered there.
        eps_max: f64,
        /// Entropy source (`os` for real releases).
        rng: crate::process::discrete::RngSource,
    },
}

impl ReleaseNoise {
    /// Checks the parameters (δ in (0, 1)).
    pub fn validate(&self) -> Result<()> {
        if let ReleaseNoise::Gaussian { delta, .. } = *self {
            check_gaussian_params(1.0, delta, 1.0)?;
        }
        if let ReleaseNoise::Discrete {
            levels_per_doubling,
            eps_max,
            ..
        } = *self
        {
            crate::process::discrete::Ladder::get(levels_per_doubling)?;
            if !(eps_max.is_finite() && eps_max > 0.0) {
                return Err(Error::param("eps_max", eps_max, "a finite number > 0"));
            }
        }
        Ok(())
    }

    /// The optimal single-release MSE `E‖y − u‖²` at level `eps`: `2n/ε²`
    /// (ℓ1), `n(n+1)/ε²` (ℓ2), times Δ²; `nσ²` (Gaussian).
    pub fn single_release_mse(&self, eps: f64, dim: usize, sensitivity: f64) -> Result<f64> {
        check_level(eps)?;
        match *self {
            ReleaseNoise::Laplace { norm } => {
                Ok(norm.mse_factor(dim) * (sensitivity / eps) * (sensitivity / eps))
            }
            ReleaseNoise::Gaussian { delta, calibration } => {
                let s = calibration.sigma(eps, delta, sensitivity)?;
                Ok(dim as f64 * s * s)
            }
            ReleaseNoise::Discrete { .. } => match self.discrete_noise(sensitivity, dim)? {
                // The noise at the rung answering ε (the top above it).
                Some((noise, top)) => Ok(noise.mse(noise.rung_of(eps)?.min(top))),
                None => Err(Error::Numerical("not a discrete release".into())),
            },
        }
    }

    /// A fresh, independent single release of the zero vector at `eps` into
    /// `out` (the composition baseline's noise).
    pub fn fresh_noise<R: rand::Rng + ?Sized>(
        &self,
        eps: f64,
        sensitivity: f64,
        out: &mut [f64],
        rng: &mut R,
    ) -> Result<()> {
        check_level(eps)?;
        match *self {
            ReleaseNoise::Laplace { norm } => {
                super::sampler::sample_marginal(norm, eps / sensitivity, out, rng)
            }
            ReleaseNoise::Gaussian { delta, calibration } => {
                let s = calibration.sigma(eps, delta, sensitivity)?;
                super::gaussian::first_draw(s * s, out, rng);
            }
            ReleaseNoise::Discrete { .. } => {
                // Fresh DL at the rung of ε, in value units X·γ.
                if let Some((noise, top)) = self.discrete_noise(sensitivity, out.len())? {
                    let mut x = vec![0i64; out.len()];
                    noise.sample_fresh_into(noise.rung_of(eps)?.min(top), rng, &mut x)?;
                    for (o, &xi) in out.iter_mut().zip(&x) {
                        *o = noise.grid().value_of(i128::from(xi))?;
                    }
                }
            }
        }
        Ok(())
    }
}

impl ReleaseNoise {
    /// The noise family of a release of `dim` coordinates with sensitivity
    /// Δ: the one place the family is chosen.
    pub fn family(&self, sensitivity: f64, dim: usize) -> Result<Noise> {
        Ok(match *self {
            ReleaseNoise::Laplace { norm } => Noise::Laplace(Laplace::new(dim, norm, sensitivity)?),
            ReleaseNoise::Gaussian { delta, calibration } => Noise::Gaussian(
                Gaussian::new(dim, Norm::L2, sensitivity, delta)?.with_calibration(calibration),
            ),
            ReleaseNoise::Discrete { rng, .. } => {
                let (noise, top) = self
                    .discrete_noise(sensitivity, dim)?
                    .ok_or_else(|| Error::Numerical("discrete options without a chain".into()))?;
                Noise::Discrete(Discrete::new(noise, Norm::L1, rng).with_top(top))
            }
        })
    }

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

impl std::fmt::Display for ReleaseNoise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReleaseNoise::Laplace { norm } => write!(f, "laplace ({norm})"),
            ReleaseNoise::Gaussian { delta, calibration } => {
                write!(f, "gaussian (δ = {delta}, {calibration})")
            }
            ReleaseNoise::Discrete {
                granularity,
                levels_per_doubling,
                eps_max,
                rng,
            } => write!(
                f,
                "discrete (γ = {granularity}, M = {levels_per_doubling}, eps_max = {eps_max}, rng {rng})"
            ),
        }
    }
}

/// One answered request: the level and the released vector `u + noise`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Released {
    /// Privacy level ε of this release.
    pub eps: f64,
    /// The released value (length n).
    pub value: Vec<f64>,
}

/// A secret released gradually at privacy levels requested in any order.
/// See the module documentation.
///
/// ```
/// use privdiffuse::{GradualRelease, Norm, ReleaseNoise};
/// use std::path::Path;
/// # fn main() -> Result<(), privdiffuse::Error> {
/// let laplace = ReleaseNoise::Laplace { norm: Norm::L1 };
/// let mut r = GradualRelease::new(vec![10.0], laplace, 1.0, 7)?;
/// let y2 = r.release(2.0)?; // first at ε = 2
/// let _y05 = r.release(0.5)?; // then tighter
/// let _y4 = r.release(4.0)?; // then looser
/// assert_eq!(r.release(2.0)?, y2); // asked again: the same answer
/// // Everything released is as private as the loosest answer: max ε, not Σ ε.
/// assert_eq!(r.privacy_level(), Some(4.0));
///
/// // The state can be saved and resumed: the next answers are the same.
/// let mut resumed = GradualRelease::from_json(&r.to_json()?, Path::new("state.json"))?;
/// assert_eq!(resumed.release(1.0)?, r.release(1.0)?);
///
/// // Each answer is distributed as one release at its own ε (MSE 2/ε²),
/// // whatever the order: 4000 secrets, one stream each.
/// let (n, levels) = (4000, [2.0, 0.5, 4.0]);
/// let mut sq = [0.0; 3];
/// for t in 0..n {
///     let mut r = GradualRelease::new(vec![0.0], laplace, 1.0, 7)?.with_stream(t);
///     for (s, &e) in sq.iter_mut().zip(&levels) {
///         *s += r.release(e)?[0].powi(2);
///     }
/// }
/// for (s, e) in sq.iter().zip(levels) {
///     let se = 20f64.sqrt() / (e * e) / (n as f64).sqrt(); // sd of V² is √20/ε²
///     assert!((s / n as f64 - 2.0 / (e * e)).abs() < 6.0 * se);
/// }
/// # Ok(()) }
/// ```
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "ReleaseState", into = "ReleaseState")]
pub struct GradualRelease {
    value: Vec<f64>,
    mechanism: ReleaseNoise,
    sensitivity: f64,
    seed: u64,
    stream: u64,
    history: Vec<Released>,
    /// The noise family of `mechanism`, chosen once.
    family: Noise,
    /// The materialised noise (the family's slot).
    noise: Lazies,
}

fn check_level(eps: f64) -> Result<()> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(Error::param("eps", eps, "a finite number > 0"))
    }
}

/// The answer to `u` (the release's `value` in a refusal, never shown)
/// under `noise`: u + V, or (û + X)·γ.
fn answer_of<F: NoiseFamily>(fam: &F, u: &[f64], noise: &[F::Coord], eps: f64) -> Result<Vec<f64>> {
    let mut secret = Vec::new();
    fam.prepare(u, &mut secret, Whose::Release)?;
    crate::process::family::check_resolved(fam, u, [fam.release_level(eps)?], Whose::Release)?;
    let mut y = vec![0.0; u.len()];
    fam.answer(u, &secret, noise, &mut y)?;
    if y.iter().any(|x| !x.is_finite()) {
        return Err(Error::Numerical(format!(
            "release at ε = {eps} overflowed f64 (the value plus its noise; not shown)"
        )));
    }
    Ok(y)
}

/// One request, run over the release's family: the level answered, a
/// repeat of a level released before, or the noise materialised there.
struct Request<'g> {
    value: &'g [f64],
    seed: u64,
    stream: u64,
    history: &'g mut Vec<Released>,
    noise: &'g mut Lazies,
    eps: f64,
}

impl Visit for Request<'_> {
    type Out = Result<Vec<f64>>;
    fn run<F: NoiseFamily>(self, fam: &F) -> Result<Vec<f64>> {
        let level = fam.release_level(self.eps)?;
        let eps = fam.eps_used(self.eps, level);
        let y = match self.history.iter().find(|r| r.eps == eps) {
            Some(r) => r.value.clone(),
            None => {
                let request = self.history.len() as u64;
                let key = StreamKey::new(self.seed, self.stream, request, Purpose::Release);
                let noise = fam.lazy_noise(F::lazy_slot(self.noise), level, key, self.eps)?;
                answer_of(fam, self.value, &noise, eps)?
            }
        };
        self.history.push(Released {
            eps,
            value: y.clone(),
        });
        Ok(y)
    }
}

/// serde's message with the literals it quotes from the file hidden: a
/// state file holds the secret, and `invalid type: string "31415926535"`
/// showed it. Field and variant names (`unknown field `x``) and the
/// grammar's tokens of a syntax error (`expected `,` or `}``) stay.
fn quotes_hidden(message: &str) -> String {
    let names = [
        "unknown field",
        "missing field",
        "duplicate field",
        "unknown variant",
        "expected ",
    ];
    let hide_backquoted = !names.iter().any(|p| message.starts_with(p));
    let mut out = String::with_capacity(message.len());
    let mut open: Option<char> = None;
    for c in message.chars() {
        match open {
            Some(q) if c == q => {
                out.push_str("(not shown)");
                out.push(c);
                open = None;
            }
            Some(_) => {}
            None => {
                out.push(c);
                if c == '"' || (c == '`' && hide_backquoted) {
                    open = Some(c);
                }
            }
        }
    }
    if open.is_some() {
        out.push_str("(not shown)");
    }
    out
}

impl GradualRelease {
    /// A new release of `value` (n ≥ 1 finite numbers) under `mechanism`
    /// with sensitivity Δ (finite > 0) and randomness `seed` (stream 0).
    /// Under the discrete chain the value must fit the grid (refused naming
    /// the release, never the value).
    pub fn new(
        value: Vec<f64>,
        mechanism: ReleaseNoise,
        sensitivity: f64,
        seed: u64,
    ) -> Result<Self> {
        if value.is_empty() {
            return Err(Error::param("value", "(empty)", "at least one number"));
        }
        // The coordinate, never the number (a cell of the secret).
        if let Some(i) = value.iter().position(|x| !x.is_finite()) {
            return Err(Error::param(
                "value",
                format!("(coordinate {i}: not shown)"),
                "finite numbers",
            ));
        }
        crate::process::check_sensitivity(sensitivity)?;
        mechanism.validate()?;
        let family = mechanism.family(sensitivity, value.len())?;
        let g = GradualRelease {
            value,
            mechanism,
            sensitivity,
            seed,
            stream: 0,
            history: Vec::new(),
            family,
            noise: Lazies::default(),
        };
        g.rounding()?;
        Ok(g)
    }

    /// ‖û·γ − u‖²: the rounding of the value to the discrete grid (0 for
    /// the f64 families); refuses a value beyond the grid.
    fn rounding(&self) -> Result<f64> {
        struct Rounding<'g>(&'g [f64]);
        impl Visit for Rounding<'_> {
            type Out = Result<f64>;
            fn run<F: NoiseFamily>(self, fam: &F) -> Result<f64> {
                fam.prepare(self.0, &mut Vec::new(), Whose::Release)
            }
        }
        self.family.visit(Rounding(&self.value))
    }

    /// Selects the random stream (e.g. the trial number): generators are
    /// `rng_for(seed, stream, request, Purpose::Release)`. Must be set before
    /// the first release.
    pub fn with_stream(mut self, stream: u64) -> Self {
        if self.history.is_empty() {
            self.stream = stream;
        }
        self
    }

    /// The secret value u.
    pub fn value(&self) -> &[f64] {
        &self.value
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        self.value.len()
    }

    /// The mechanism.
    pub fn mechanism(&self) -> ReleaseNoise {
        self.mechanism
    }

    /// Sensitivity Δ.
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// Seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Stream.
    pub fn stream(&self) -> u64 {
        self.stream
    }

    /// Every answered request, in request order.
    pub fn history(&self) -> &[Released] {
        &self.history
    }

    /// The privacy level of everything released so far: the largest ε
    /// (memo §5: the released set is exactly as private as its least private
    /// member). `None` before the first release.
    pub fn privacy_level(&self) -> Option<f64> {
        self.history.iter().map(|r| r.eps).reduce(f64::max)
    }

    /// The materialised Laplace noise path (levels in units of ε/Δ).
    pub fn noise_path(&self) -> Option<&NoisePath> {
        self.noise.laplace.as_ref().map(LazyLaplace::path)
    }

    /// The materialised Brownian path (Gaussian mechanism).
    pub fn brownian_path(&self) -> Option<&BrownianPath> {
        self.noise.gaussian.as_ref()
    }

    /// The materialised discrete walk (discrete mechanism, after the first
    /// release).
    pub fn discrete_walk(&self) -> Option<&DiscreteWalk> {
        self.noise.discrete.as_ref().map(|d| &d.walk)
    }

    /// Breakpoints (or variances) of the materialised noise path.
    pub fn noise_points(&self) -> u64 {
        struct Points<'g>(&'g Lazies);
        impl Visit for Points<'_> {
            type Out = u64;
            fn run<F: NoiseFamily>(self, fam: &F) -> u64 {
                F::lazy_ref(self.0).map_or(0, |l| fam.lazy_points(l))
            }
        }
        self.family.visit(Points(&self.noise))
    }

    /// The discrete configuration and top rung of this release (`None` for
    /// the Laplace and Gaussian mechanisms).
    pub fn discrete_noise(&self) -> Result<Option<(DiscreteNoise, Rung)>> {
        self.mechanism.discrete_noise(self.sensitivity, self.dim())
    }

    /// Releases the value at privacy level `eps` (finite > 0), in any order.
    /// A level released before gets the same answer again. Under the
    /// discrete chain the answer is at the rung of `eps` (the largest rung
    /// ≤ ε, the top above it), and the history records the rung.
    pub fn release(&mut self, eps: f64) -> Result<Vec<f64>> {
        check_level(eps)?;
        let GradualRelease {
            value,
            seed,
            stream,
            history,
            family,
            noise,
            ..
        } = self;
        family.visit(Request {
            value,
            seed: *seed,
            stream: *stream,
            history,
            noise,
            eps,
        })
    }

    /// The level a request at `eps` is answered at and the expected
    /// ‖y − u‖² of that answer: `eps` and the single-release optimum for the
    /// Laplace and Gaussian mechanisms; for the discrete chain the rung used
    /// and n·2a/(1 − a)²·γ² there plus the rounding ‖γ·û − u‖² of the secret.
    pub fn expected_mse(&self, eps: f64) -> Result<(f64, f64)> {
        struct Used(f64);
        impl Visit for Used {
            type Out = Result<f64>;
            fn run<F: NoiseFamily>(self, fam: &F) -> Result<f64> {
                Ok(fam.eps_used(self.0, fam.release_level(self.0)?))
            }
        }
        let used = self.family.visit(Used(eps))?;
        let optimum = self
            .mechanism
            .single_release_mse(used, self.dim(), self.sensitivity)?;
        Ok((used, optimum + self.rounding()?))
    }

    /// The state as pretty-printed JSON (exact: floats round-trip).
    pub fn to_json(&self) -> Result<String> {
        serde_json::to_string_pretty(self)
            .map_err(|e| Error::Numerical(format!("cannot serialise release state: {e}")))
    }

    /// Restores a state written by [`GradualRelease::to_json`], validating it
    /// (see [`ReleaseState`]). `file` names the source in error messages,
    /// which also give the line of the offending field.
    pub fn from_json(text: &str, file: &Path) -> Result<Self> {
        let st: ReleaseState = serde_json::from_str(text)
            .map_err(|e| Error::input(file, e.line(), quotes_hidden(&e.to_string())))?;
        GradualRelease::try_from(st).map_err(|e| {
            Error::input(
                file,
                locate(text, &e),
                format!("invalid release state: {e}"),
            )
        })
    }

    /// Loads and validates a state file (as written by the top layer's
    /// `output::save_release`).
    pub fn load(path: &Path) -> Result<Self> {
        let name = path.as_os_str().to_string_lossy();
        if !path.exists() && (name.trim_start().starts_with('{') || name.contains('\n')) {
            // A state's JSON text given as its path: an error naming the
            // "file" would print the secret it holds.
            return Err(Error::param(
                "path",
                "(not shown: it looks like a state's JSON text, which holds the secret)",
                "the path of a state file (JSON text is read by `from_json`)",
            ));
        }
        // Parsed into vectors of f64: about a third of the text's size,
        // plus serde's buffers; refuse what could not fit the budget.
        let cap = (crate::limits::memory_budget().bytes / 4).min(1 << 30);
        let text = crate::util::lines::read_text(path, cap)?;
        Self::from_json(&text, path)
    }
}

#[cfg(test)]
#[path = "discrete_tests.rs"]
mod discrete_tests;

#[cfg(test)]
mod tests {
    use super::*;

    fn lap(norm: Norm) -> ReleaseNoise {
        ReleaseNoise::Laplace { norm }
    }

    #[test]
    fn a_state_files_literals_are_hidden_its_grammar_is_not() {
        assert_eq!(
            quotes_hidden("invalid type: string \"314159\", expected f64 at line 3 column 9"),
            "invalid type: string \"(not shown)\", expected f64 at line 3 column 9"
        );
        assert_eq!(
            quotes_hidden("invalid value: `314159`"),
            "invalid value: `(not shown)`"
        );
        for kept in [
            "expected `,` or `}` at line 4 column 15",
            "unknown field `vale`, expected one of `value`, `eps`",
        ] {
            assert_eq!(quotes_hidden(kept), kept);
        }
    }

    #[test]
    fn answers_are_stable_and_levels_any_order() {
        for mech in [
            lap(Norm::L1),
            lap(Norm::L2),
            ReleaseNoise::Gaussian {
                delta: 1e-5,
                calibration: Calibration::Analytic,
            },
        ] {
            let mut g = GradualRelease::new(vec![1.0, -2.0, 0.5], mech, 2.0, 9).unwrap();
            let order = [1.0, 0.3, 6.0, 0.7, 2.5, 1.0, 0.05, 40.0];
            let first: Vec<Vec<f64>> = order.iter().map(|&e| g.release(e).unwrap()).collect();
            for (&e, y) in order.iter().zip(&first) {
                assert_eq!(&g.release(e).unwrap(), y, "{mech} ε={e}");
            }
            assert_eq!(g.privacy_level(), Some(40.0));
            let json = g.to_json().unwrap();
            let mut h = GradualRelease::from_json(&json, Path::new("state.json")).unwrap();
            assert_eq!(h, g);
            // Same continuation before and after a save/load.
            let a = g.release(3.3).unwrap();
            let b = h.release(3.3).unwrap();
            assert_eq!(a, b);
            for (&e, y) in order.iter().zip(&first) {
                assert_eq!(&h.release(e).unwrap(), y);
            }
        }
    }

    #[test]
    fn rejects_bad_requests() {
        let mut g = GradualRelease::new(vec![0.0], lap(Norm::L1), 1.0, 1).unwrap();
        for e in [
            0.0,
            -1.0,
            f64::NAN,
            f64::INFINITY,
            1e-200,
            1e200,
            1e-61,
            1e61,
        ] {
            assert!(g.release(e).unwrap_err().is_usage());
        }
        // Extreme but valid levels give finite answers.
        let mut big = GradualRelease::new(vec![0.0], lap(Norm::L2), 1.0, 1).unwrap();
        for e in [1e-60, 1e60, 1.0] {
            assert!(big.release(e).unwrap().iter().all(|x| x.is_finite()));
        }
        let gm = ReleaseNoise::Gaussian {
            delta: 1e-5,
            calibration: Calibration::Analytic,
        };
        let mut big = GradualRelease::new(vec![0.0; 2], gm, 1.0, 1).unwrap();
        for e in [1e-60, 1e60, 1.0, 1e-59] {
            assert!(big.release(e).unwrap().iter().all(|x| x.is_finite()), "{e}");
        }
        // A value the noise cannot hide is refused, never shown: at ε = 1
        // (σ = √2) 1e17 was answered as itself; at ε = 1e60 so is 1.
        for (u, e) in [(1e17, 1.0), (f64::MAX, 1e-60), (1.0, 1e60)] {
            let mut r = GradualRelease::new(vec![u], lap(Norm::L2), 1.0, 1).unwrap();
            let m = r.release(e).unwrap_err().to_string();
            assert!(m.contains("invalid value '(not shown)'"), "{m}");
            assert!(!m.contains("1e17") && !m.contains("1000000"), "{m}");
        }
        let mut near = GradualRelease::new(vec![4e12], lap(Norm::L2), 1.0, 1).unwrap();
        assert!(near.release(1.0).is_ok(), "within 2^42·√2");
        assert!(g.history().is_empty());
        assert!(GradualRelease::new(vec![], lap(Norm::L1), 1.0, 1).is_err());
        assert!(GradualRelease::new(vec![f64::NAN], lap(Norm::L1), 1.0, 1).is_err());
        assert!(GradualRelease::new(vec![1.0], lap(Norm::L1), 0.0, 1).is_err());
        let bad = ReleaseNoise::Gaussian {
            delta: 1.5,
            calibration: Calibration::Classic,
        };
        assert!(GradualRelease::new(vec![1.0], bad, 1.0, 1).is_err());
    }
}
