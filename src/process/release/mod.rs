//! [`GradualRelease`]: one secret released at privacy levels requested in any
//! order (memo §3), for the Laplace process (ℓ1 or ℓ2) or the Gaussian
//! (Brownian) variant (memo §4).
//!
//! The noise is a lazily materialised path. For the Laplace process: a
//! breakpoint list over `[eps_lo, eps_hi]` plus the latent variance s at the
//! top (memo §1b). A request inside the range is a lookup (every jump there is
//! already drawn, so this is the exact bridge); below the range the backward
//! jump walk continues ([`walk_down`], independent increments); above it the
//! latent forward step of memo §2.4 ([`forward_latent`]) runs from the top
//! state. For the Gaussian variant: a [`BrownianPath`] indexed by variance.
//! Answers already given never change, and releasing any set of levels is
//! exactly as private as the largest of them ([`GradualRelease::privacy_level`]).
//!
//! Randomness: request number k (0-based, counting every request) draws from
//! `rng_for(seed, stream, k, Purpose::Release)`, so a release is a
//! deterministic function of its seed, stream and request sequence — also
//! across [`GradualRelease::to_json`] / [`GradualRelease::from_json`].
//!
//! Sensitivity Δ: the Laplace process runs at level ε/Δ (noise scale Δ/ε);
//! the Gaussian variance is σ(ε, δ, Δ)². Levels with ε/Δ outside
//! [1e−60, 1e60] are refused (the range of every mechanism, [`crate::limits`]).
//!
//! The saved state holds the secret u and noise not yet released (path
//! values between released levels, the latent at the top): keep it as
//! private as u itself.

use super::calibration::{Calibration, check_gaussian_params};
use super::forward::{forward_latent, latent_posterior, latent_prior};
use super::gaussian::BrownianPath;
use super::laplace::std_normal;
use super::path::{NoisePath, Norm};
use super::sampler::walk_down;
use crate::error::{Error, Result};
use crate::rng::{Purpose, rng_for};
use serde::{Deserialize, Serialize};
use std::path::Path;

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
}

impl ReleaseNoise {
    /// Checks the parameters (δ in (0, 1)).
    pub fn validate(&self) -> Result<()> {
        if let ReleaseNoise::Gaussian { delta, .. } = *self {
            check_gaussian_params(1.0, delta, 1.0)?;
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
        }
        Ok(())
    }
}

impl std::fmt::Display for ReleaseNoise {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReleaseNoise::Laplace { norm } => write!(f, "laplace ({norm})"),
            ReleaseNoise::Gaussian { delta, calibration } => {
                write!(f, "gaussian (δ = {delta}, {calibration})")
            }
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

/// The materialised noise.
#[derive(Clone, Debug, PartialEq)]
enum Noise {
    /// Nothing released yet.
    Empty,
    /// Laplace process in process units (level ε/Δ), with the latent
    /// variance at the top: one per coordinate (ℓ1), one in total (ℓ2), or
    /// none (unknown: drawn from its posterior when first needed, memo §2.4).
    Laplace {
        path: NoisePath,
        top_latent: Vec<f64>,
    },
    /// Brownian path indexed by variance.
    Gaussian { path: BrownianPath },
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
    noise: Noise,
}

/// Smallest and largest process level ε/Δ served: the one range of every
/// mechanism (see [`crate::limits`], "The range of privacy levels").
const MIN_LEVEL: f64 = crate::limits::LEVEL_MIN;
const MAX_LEVEL: f64 = crate::limits::LEVEL_MAX;

fn check_level(eps: f64) -> Result<()> {
    if eps.is_finite() && eps > 0.0 {
        Ok(())
    } else {
        Err(Error::param("epsilon", eps, "a finite number > 0"))
    }
}

impl GradualRelease {
    /// A new release of `value` (n ≥ 1 finite numbers) under `mechanism`
    /// with sensitivity Δ (finite > 0) and randomness `seed` (stream 0).
    pub fn new(
        value: Vec<f64>,
        mechanism: ReleaseNoise,
        sensitivity: f64,
        seed: u64,
    ) -> Result<Self> {
        if value.is_empty() {
            return Err(Error::param("value", "(empty)", "at least one number"));
        }
        if let Some(x) = value.iter().find(|x| !x.is_finite()) {
            return Err(Error::param("value", x, "finite numbers"));
        }
        if !(sensitivity.is_finite() && sensitivity > 0.0) {
            return Err(Error::param(
                "sensitivity",
                sensitivity,
                "a finite number > 0",
            ));
        }
        mechanism.validate()?;
        Ok(GradualRelease {
            value,
            mechanism,
            sensitivity,
            seed,
            stream: 0,
            history: Vec::new(),
            noise: Noise::Empty,
        })
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
        match &self.noise {
            Noise::Laplace { path, .. } => Some(path),
            _ => None,
        }
    }

    /// The materialised Brownian path (Gaussian mechanism).
    pub fn brownian_path(&self) -> Option<&BrownianPath> {
        match &self.noise {
            Noise::Gaussian { path } => Some(path),
            _ => None,
        }
    }

    /// Releases the value at privacy level `eps` (finite > 0), in any order.
    /// A level released before gets the same answer again.
    pub fn release(&mut self, eps: f64) -> Result<Vec<f64>> {
        check_level(eps)?;
        let q = eps / self.sensitivity;
        if !(MIN_LEVEL..=MAX_LEVEL).contains(&q) {
            return Err(Error::param(
                "epsilon",
                eps,
                format!(
                    "ε/Δ between {MIN_LEVEL:e} and {MAX_LEVEL:e} (noise must stay within f64 range)"
                ),
            ));
        }
        if let Some(r) = self.history.iter().find(|r| r.eps == eps) {
            let y = r.value.clone();
            self.history.push(Released {
                eps,
                value: y.clone(),
            });
            return Ok(y);
        }
        let request = self.history.len() as u64;
        let mut rng = rng_for(self.seed, self.stream, request, Purpose::Release);
        let noise = match self.mechanism {
            ReleaseNoise::Laplace { norm } => {
                self.laplace_noise(norm, eps / self.sensitivity, &mut rng)?
            }
            ReleaseNoise::Gaussian { delta, calibration } => {
                let sigma = calibration.sigma(eps, delta, self.sensitivity)?;
                let n = self.dim();
                if matches!(self.noise, Noise::Empty) {
                    self.noise = Noise::Gaussian {
                        path: BrownianPath::new(n)?,
                    };
                }
                match &mut self.noise {
                    Noise::Gaussian { path } => path.sample_at(sigma * sigma, &mut rng)?.to_vec(),
                    _ => {
                        return Err(Error::Numerical(
                            "noise state does not match mechanism".into(),
                        ));
                    }
                }
            }
        };
        let y: Vec<f64> = self.value.iter().zip(&noise).map(|(u, v)| u + v).collect();
        if y.iter().any(|x| !x.is_finite()) {
            return Err(Error::Numerical(format!(
                "release at ε = {eps} overflowed f64 (value {:?} + noise {noise:?})",
                self.value
            )));
        }
        self.history.push(Released {
            eps,
            value: y.clone(),
        });
        Ok(y)
    }

    /// `V_q` of the Laplace process at process level `q`, extending the path
    /// as needed (memo §3 cases i–iii).
    fn laplace_noise(
        &mut self,
        norm: Norm,
        q: f64,
        rng: &mut crate::rng::PrivRng,
    ) -> Result<Vec<f64>> {
        check_level(q)?;
        let n = self.dim();
        let (path, top_latent) = match &mut self.noise {
            Noise::Empty => {
                // First point: v = sqrt(s)·Z with s from its prior (memo §1b).
                let mut v = vec![0.0; n];
                let latent: Vec<f64> = match norm {
                    Norm::L1 => v
                        .iter_mut()
                        .map(|x| {
                            let s = latent_prior(q, 1, rng);
                            *x = s.sqrt() * std_normal(rng);
                            s
                        })
                        .collect(),
                    Norm::L2 => {
                        let s = latent_prior(q, n, rng);
                        for x in v.iter_mut() {
                            *x = s.sqrt() * std_normal(rng);
                        }
                        vec![s]
                    }
                };
                let path = NoisePath::from_parts(n, vec![q], v.clone(), q)?;
                self.noise = Noise::Laplace {
                    path,
                    top_latent: latent,
                };
                return Ok(v);
            }
            Noise::Laplace { path, top_latent } => (path, top_latent),
            Noise::Gaussian { .. } => {
                return Err(Error::Numerical(
                    "noise state does not match mechanism".into(),
                ));
            }
        };
        if path.contains(q) {
            return Ok(path.value_at(q).to_vec());
        }
        let lo = path.eps_lo();
        let hi = path.eps_hi();
        let mut levels: Vec<f64>;
        let mut values: Vec<f64>;
        let new_hi;
        if q < lo {
            // Backward: continue the jump walk below the bottom (memo §1a).
            let mut v = path.value(0).to_vec();
            let mut jl = Vec::new();
            let mut jv = Vec::new();
            walk_down(norm, lo, q, &mut v, rng, |e, w| {
                jl.push(e);
                jv.extend_from_slice(w);
            });
            let k = jl.len();
            // Ascending: [q, e_k, …, e_1, old levels[1..]] with values
            // [w_k, …, w_1, old rows]: w_j holds on [e_{j+1}, e_j).
            levels = Vec::with_capacity(k + path.len());
            values = Vec::with_capacity((k + path.len()) * n);
            levels.push(q);
            for j in (0..k).rev() {
                values.extend_from_slice(&jv[j * n..(j + 1) * n]);
                if j > 0 {
                    levels.push(jl[j]);
                }
            }
            if k > 0 {
                levels.push(jl[0]);
            }
            levels.extend_from_slice(&path.levels()[1..]);
            values.extend_from_slice(path.values());
            new_hi = hi;
        } else {
            // Forward: latent-variance step from the top state (memo §2.4).
            let top = path.value(path.len() - 1).to_vec();
            levels = path.levels().to_vec();
            values = path.values().to_vec();
            match norm {
                Norm::L2 => {
                    let mut s = match top_latent.first() {
                        Some(&s) => s,
                        None => latent_posterior(hi, Norm::L2.norm_of(&top), rng),
                    };
                    let mut v = top;
                    forward_latent(hi, &mut s, &mut v, q, rng, |e, w| {
                        levels.push(e);
                        values.extend_from_slice(w);
                    });
                    *top_latent = vec![s];
                }
                Norm::L1 => {
                    // n independent 1-D processes, each with its own latent;
                    // merge their jumps in ascending ε.
                    if top_latent.len() != n {
                        *top_latent = top
                            .iter()
                            .map(|x| latent_posterior(hi, x.abs(), rng))
                            .collect();
                    }
                    let mut jumps: Vec<(f64, usize, f64)> = Vec::new();
                    for (i, s) in top_latent.iter_mut().enumerate() {
                        let mut v = [top[i]];
                        forward_latent(hi, s, &mut v, q, rng, |e, w| jumps.push((e, i, w[0])));
                    }
                    jumps.sort_by(|a, b| a.0.total_cmp(&b.0));
                    let mut v = top;
                    for (e, i, x) in jumps {
                        v[i] = x;
                        levels.push(e);
                        values.extend_from_slice(&v);
                    }
                }
            }
            new_hi = q;
        }
        dedup_levels(&mut levels, &mut values, n);
        *path = NoisePath::from_parts(n, levels, values, new_hi)?;
        Ok(path.value_at(q).to_vec())
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
        let st: ReleaseState =
            serde_json::from_str(text).map_err(|e| Error::input(file, e.line(), e.to_string()))?;
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
        // Parsed into vectors of f64: about a third of the text's size,
        // plus serde's buffers; refuse what could not fit the budget.
        let cap = (crate::limits::memory_budget().bytes / 4).min(1 << 30);
        let text = crate::util::lines::read_text(path, cap)?;
        Self::from_json(&text, path)
    }
}

/// Removes rows on empty intervals: for equal consecutive levels (a jump gap
/// that rounded to zero) the later row wins.
fn dedup_levels(levels: &mut Vec<f64>, values: &mut Vec<f64>, n: usize) {
    if levels.windows(2).all(|w| w[0] < w[1]) {
        return;
    }
    let mut kl = Vec::with_capacity(levels.len());
    let mut kv = Vec::with_capacity(values.len());
    for i in 0..levels.len() {
        if i + 1 < levels.len() && levels[i + 1] <= levels[i] {
            continue;
        }
        kl.push(levels[i]);
        kv.extend_from_slice(&values[i * n..(i + 1) * n]);
    }
    *levels = kl;
    *values = kv;
}

/// The serialised form of a [`GradualRelease`] (format version 1). Loading
/// validates it: finite value and levels, ε > 0, ascending breakpoints, shapes,
/// no level released twice with different answers, and every released answer
/// equal (bitwise) to `u + V` looked up on the stored Laplace path.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ReleaseState {
    /// Format version (1).
    pub version: u32,
    /// The secret u.
    pub value: Vec<f64>,
    /// The mechanism.
    pub mechanism: ReleaseNoise,
    /// Sensitivity Δ.
    pub sensitivity: f64,
    /// Seed.
    pub seed: u64,
    /// Stream.
    #[serde(default)]
    pub stream: u64,
    /// Answered requests in order.
    pub history: Vec<Released>,
    /// Laplace noise path, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub laplace: Option<LaplaceState>,
    /// Brownian path, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gaussian: Option<GaussianState>,
}

/// A stored Laplace path: breakpoints (levels in units of ε/Δ, ascending) and
/// the latent variance at the top (empty = unknown).
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LaplaceState {
    /// Breakpoint levels, ascending.
    pub levels: Vec<f64>,
    /// Values, row-major.
    pub values: Vec<f64>,
    /// Top of the materialised range.
    pub eps_hi: f64,
    /// Latent variance(s) at the top.
    #[serde(default)]
    pub top_latent: Vec<f64>,
}

/// A stored Brownian path: variances ascending and values.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GaussianState {
    /// Variances, ascending.
    pub vars: Vec<f64>,
    /// Values, row-major.
    pub values: Vec<f64>,
}

impl From<GradualRelease> for ReleaseState {
    fn from(g: GradualRelease) -> Self {
        let (laplace, gaussian) = match g.noise {
            Noise::Empty => (None, None),
            Noise::Laplace { path, top_latent } => (
                Some(LaplaceState {
                    levels: path.levels().to_vec(),
                    values: path.values().to_vec(),
                    eps_hi: path.eps_hi(),
                    top_latent,
                }),
                None,
            ),
            Noise::Gaussian { path } => (
                None,
                Some(GaussianState {
                    vars: path.vars().to_vec(),
                    values: path.values().to_vec(),
                }),
            ),
        };
        ReleaseState {
            version: 1,
            value: g.value,
            mechanism: g.mechanism,
            sensitivity: g.sensitivity,
            seed: g.seed,
            stream: g.stream,
            history: g.history,
            laplace,
            gaussian,
        }
    }
}

/// A validation failure of a [`ReleaseState`], located by the JSON key (and
/// history entry) it concerns so file errors can name a line.
#[derive(Debug)]
pub struct StateError {
    /// Top-level key of the offending field (`value`, `history`, `laplace`, …).
    pub field: &'static str,
    /// History entry index, when the error concerns one.
    pub entry: Option<usize>,
    /// What is wrong and what was expected.
    pub message: String,
}

impl std::fmt::Display for StateError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for StateError {}

fn state_err(field: &'static str, entry: Option<usize>, message: impl Into<String>) -> StateError {
    StateError {
        field,
        entry,
        message: message.into(),
    }
}

/// 1-based line of `"field":` in `text` (for a history entry: of its
/// `"eps"` key); 1 when not found.
fn locate(text: &str, err: &StateError) -> usize {
    let key = format!("\"{}\"", err.field);
    let Some(mut pos) = text.find(&key) else {
        return 1;
    };
    if let Some(k) = err.entry {
        let mut p = pos;
        for _ in 0..=k {
            match text[p..].find("\"eps\"") {
                Some(off) => {
                    pos = p + off;
                    p = pos + 1;
                }
                None => break,
            }
        }
    }
    1 + text[..pos].matches('\n').count()
}

impl TryFrom<ReleaseState> for GradualRelease {
    type Error = StateError;

    fn try_from(st: ReleaseState) -> std::result::Result<Self, StateError> {
        if st.version != 1 {
            return Err(state_err(
                "version",
                None,
                format!("state format version {}: expected 1", st.version),
            ));
        }
        let mut g = GradualRelease::new(st.value, st.mechanism, st.sensitivity, st.seed)
            .map_err(|e| state_err("value", None, e.to_string()))?;
        g.stream = st.stream;
        let n = g.dim();
        g.noise = match (st.mechanism, st.laplace, st.gaussian) {
            (_, None, None) => Noise::Empty,
            (ReleaseNoise::Laplace { norm }, Some(l), None) => {
                if let Some(x) = l.values.iter().find(|x| !x.is_finite()) {
                    return Err(state_err(
                        "laplace",
                        None,
                        format!("path value {x}: expected finite numbers"),
                    ));
                }
                let path = NoisePath::from_parts(n, l.levels, l.values, l.eps_hi).map_err(|e| {
                    state_err(
                        "laplace",
                        None,
                        format!("noise path: {e} (levels must be positive and strictly ascending)"),
                    )
                })?;
                let want = match norm {
                    Norm::L1 => n,
                    Norm::L2 => 1,
                };
                if !(l.top_latent.is_empty() || l.top_latent.len() == want)
                    || l.top_latent.iter().any(|s| !(s.is_finite() && *s > 0.0))
                {
                    return Err(state_err(
                        "top_latent",
                        None,
                        format!(
                            "top_latent {:?}: expected {want} finite numbers > 0, or none",
                            l.top_latent
                        ),
                    ));
                }
                Noise::Laplace {
                    path,
                    top_latent: l.top_latent,
                }
            }
            (ReleaseNoise::Gaussian { .. }, None, Some(gs)) => Noise::Gaussian {
                path: BrownianPath::from_parts(n, gs.vars, gs.values)
                    .map_err(|e| state_err("gaussian", None, format!("Brownian path: {e}")))?,
            },
            _ => {
                return Err(state_err(
                    "mechanism",
                    None,
                    format!(
                        "the stored noise path does not match mechanism {}",
                        st.mechanism
                    ),
                ));
            }
        };
        for (k, r) in st.history.iter().enumerate() {
            let at = Some(k);
            if !(r.eps.is_finite() && r.eps > 0.0) {
                return Err(state_err(
                    "history",
                    at,
                    format!(
                        "history entry {k}: epsilon {}: expected a finite number > 0",
                        r.eps
                    ),
                ));
            }
            if r.value.len() != n || r.value.iter().any(|x| !x.is_finite()) {
                return Err(state_err(
                    "history",
                    at,
                    format!(
                        "history entry {k}: value {:?}: expected {n} finite numbers",
                        r.value
                    ),
                ));
            }
            if let Some((j, prev)) = st.history[..k]
                .iter()
                .enumerate()
                .find(|(_, p)| p.eps == r.eps && p.value != r.value)
            {
                return Err(state_err(
                    "history",
                    at,
                    format!(
                        "history entry {k}: level {} released twice with different values \
                         ({:?} in entry {j}, {:?} in entry {k}): expected one answer per level",
                        r.eps, prev.value, r.value
                    ),
                ));
            }
            match &g.noise {
                Noise::Empty => {
                    return Err(state_err(
                        "history",
                        at,
                        format!("history entry {k}: no stored noise path behind this answer"),
                    ));
                }
                Noise::Laplace { path, .. } => {
                    let q = r.eps / g.sensitivity;
                    let ok = path.contains(q)
                        && path
                            .value_at(q)
                            .iter()
                            .zip(&g.value)
                            .zip(&r.value)
                            .all(|((v, u), y)| u + v == *y);
                    if !ok {
                        return Err(state_err(
                            "history",
                            at,
                            format!(
                                "history entry {k}: answer {:?} at ε = {} does not match the stored noise path",
                                r.value, r.eps
                            ),
                        ));
                    }
                }
                Noise::Gaussian { .. } => {}
            }
        }
        g.history = st.history;
        Ok(g)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lap(norm: Norm) -> ReleaseNoise {
        ReleaseNoise::Laplace { norm }
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
        let mut big = GradualRelease::new(vec![f64::MAX], lap(Norm::L2), 1.0, 1).unwrap();
        for e in [1e-60, 1e60, 1.0] {
            assert!(big.release(e).unwrap().iter().all(|x| x.is_finite()));
        }
        let gm = ReleaseNoise::Gaussian {
            delta: 1e-5,
            calibration: Calibration::Analytic,
        };
        let mut big = GradualRelease::new(vec![1.0; 2], gm, 1.0, 1).unwrap();
        for e in [1e-60, 1e60, 1.0, 1e-59] {
            assert!(big.release(e).unwrap().iter().all(|x| x.is_finite()), "{e}");
        }
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
