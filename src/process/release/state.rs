//! The saved form of a [`GradualRelease`] and its validation on load.

use super::{DiscreteState, GradualRelease, ReleaseNoise, Released, answer_of};
use crate::process::family::{Lazies, LazyLaplace, NoiseFamily, StreamKey, Visit};
use crate::process::gaussian::BrownianPath;
use crate::process::path::NoisePath;
use crate::rng::Purpose;
use serde::{Deserialize, Serialize};

/// The serialised form of a [`GradualRelease`] (format version 1). Loading
/// validates it: finite value and levels, ε > 0, ascending breakpoints, shapes,
/// no level released twice with different answers, and every released answer
/// equal (bitwise) to the one the stored path gives at its level (u + V, or
/// (û + X)·γ at the rung).
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
    /// The privacy level of everything in `history`: its largest ε (one
    /// lazy path, memo §5; for the Gaussian mechanism with the one δ of
    /// `mechanism`). Recorded for the reader, checked on load; absent
    /// before the first release and in files of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub privacy_level: Option<f64>,
    /// Laplace noise path, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub laplace: Option<LaplaceState>,
    /// Brownian path, if any.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub gaussian: Option<GaussianState>,
    /// The discrete chain's walk, if any (absent from Laplace and Gaussian
    /// states, whose files keep their exact bytes).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub discrete: Option<DiscreteState>,
    /// A SHA-256 (hex) over every other field (their compact JSON), kept by
    /// a discrete walk of `rng` = os (issue 33 item 7): its noise comes from
    /// no stream that a load could replay, so an *accidental* edit is caught
    /// by this checksum — not a deliberate one (anyone who can edit the
    /// state holds the secret anyway). Seeded walks are replayed instead;
    /// absent from every other state and from files of earlier versions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sha256: Option<String>,
}

impl ReleaseState {
    /// The checksum of [`ReleaseState::sha256`]: over the compact JSON of
    /// the state without it.
    fn checksum(&self) -> Result<String, StateError> {
        use sha2::Digest;
        let bare = ReleaseState {
            sha256: None,
            ..self.clone()
        };
        let json = serde_json::to_vec(&bare)
            .map_err(|e| state_err("sha256", None, format!("serialising the state: {e}")))?;
        Ok(sha2::Sha256::digest(&json)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect())
    }

    /// Whether this state keeps [`ReleaseState::sha256`]: a discrete walk
    /// drawn from the operating system's generator.
    fn keeps_checksum(&self) -> bool {
        matches!(
            self.mechanism,
            ReleaseNoise::Discrete {
                rng: crate::process::discrete::RngSource::Os,
                ..
            }
        ) && self.discrete.is_some()
    }
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
        let privacy_level = g.privacy_level();
        let Lazies {
            laplace,
            gaussian,
            discrete,
        } = g.noise;
        let mut state = ReleaseState {
            version: 1,
            value: g.value,
            mechanism: g.mechanism,
            sensitivity: g.sensitivity,
            seed: g.seed,
            stream: g.stream,
            history: g.history,
            privacy_level,
            laplace: laplace.map(|l| LaplaceState {
                levels: l.path().levels().to_vec(),
                values: l.path().values().to_vec(),
                eps_hi: l.path().eps_hi(),
                top_latent: l.top_latent().to_vec(),
            }),
            gaussian: gaussian.map(|p| GaussianState {
                vars: p.vars().to_vec(),
                values: p.values().to_vec(),
            }),
            discrete,
            sha256: None,
        };
        if state.keeps_checksum() {
            // Serialising the fields of a valid state does not fail.
            state.sha256 = state.checksum().ok();
        }
        state
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
pub(super) fn locate(text: &str, err: &StateError) -> usize {
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

/// The stored paths of a state, each checked on its own (shapes, finite
/// values, ascending levels).
fn lazies(st: &mut ReleaseState, n: usize) -> std::result::Result<Lazies, StateError> {
    let laplace = match st.laplace.take() {
        Some(l) => {
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
            Some(LazyLaplace::from_parts(path, l.top_latent))
        }
        None => None,
    };
    let gaussian = match st.gaussian.take() {
        Some(gs) => Some(
            BrownianPath::from_parts(n, gs.vars, gs.values)
                .map_err(|e| state_err("gaussian", None, format!("Brownian path: {e}")))?,
        ),
        None => None,
    };
    Ok(Lazies {
        laplace,
        gaussian,
        discrete: st.discrete.take(),
    })
}

impl TryFrom<ReleaseState> for GradualRelease {
    type Error = StateError;

    fn try_from(mut st: ReleaseState) -> std::result::Result<Self, StateError> {
        if st.version != 1 {
            return Err(state_err(
                "version",
                None,
                format!("state format version {}: expected 1", st.version),
            ));
        }
        match (&st.sha256, st.keeps_checksum()) {
            (Some(kept), true) => {
                if *kept != st.checksum()? {
                    return Err(state_err(
                        "sha256",
                        None,
                        "the state's fields do not match its sha256 (the file was edited or \
                         damaged)",
                    ));
                }
            }
            (Some(_), false) => {
                return Err(state_err(
                    "sha256",
                    None,
                    "a sha256 in a state that keeps none (only discrete walks of rng os do)",
                ));
            }
            // Files written before the checksum.
            (None, _) => {}
        }
        let mut g = GradualRelease::new(
            std::mem::take(&mut st.value),
            st.mechanism,
            st.sensitivity,
            st.seed,
        )
        .map_err(|e| state_err("value", None, e.to_string()))?;
        g.stream = st.stream;
        let noise = lazies(&mut st, g.dim())?;
        let restore = Restore {
            g: &g,
            noise,
            history: &st.history,
        };
        g.noise = g.family.visit(restore)?;
        g.history = st.history;
        if let Some(p) = st.privacy_level
            && Some(p) != g.privacy_level()
        {
            return Err(state_err(
                "privacy_level",
                None,
                format!(
                    "privacy_level {p}: expected the largest ε of the history ({})",
                    g.privacy_level()
                        .map_or_else(|| "none: nothing released".to_string(), |e| e.to_string())
                ),
            ));
        }
        Ok(g)
    }
}

/// A stored path checked against its release, over the release's family:
/// only the family's own key, its configuration, and every answer of the
/// history the path's at that level, bit for bit.
struct Restore<'g> {
    g: &'g GradualRelease,
    noise: Lazies,
    history: &'g [Released],
}

impl Visit for Restore<'_> {
    type Out = std::result::Result<Lazies, StateError>;

    fn run<F: NoiseFamily>(self, fam: &F) -> Self::Out {
        let Restore {
            g,
            mut noise,
            history,
        } = self;
        let own = F::lazy_slot(&mut noise).take();
        let mech = g.mechanism;
        if noise.discrete.is_some() {
            return Err(state_err(
                "discrete",
                None,
                format!("a discrete walk under mechanism {mech}"),
            ));
        }
        if noise != Lazies::default() {
            return Err(state_err(
                "mechanism",
                None,
                format!("the stored noise path does not match mechanism {mech}"),
            ));
        }
        if let Some(l) = &own {
            fam.check_lazy(l)
                .map_err(|(key, m)| state_err(key, None, m))?;
        }
        let n = g.dim();
        for (k, r) in history.iter().enumerate() {
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
            if let Some((j, prev)) = history[..k]
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
            let Some(lazy) = &own else {
                return Err(state_err(
                    "history",
                    at,
                    format!("history entry {k}: no stored noise path behind this answer"),
                ));
            };
            let stored = fam
                .release_level(r.eps)
                .ok()
                .filter(|&l| fam.eps_used(r.eps, l) == r.eps)
                .and_then(|l| fam.lazy_read(lazy, l))
                .and_then(|x| answer_of(fam, &g.value, x, r.eps).ok());
            let same = stored.is_some_and(|y| {
                y.iter()
                    .zip(&r.value)
                    .all(|(a, b)| a.to_bits() == b.to_bits())
            });
            if !same {
                return Err(state_err(
                    "history",
                    at,
                    format!(
                        "history entry {k}: the answer (not shown: the file's literals never are) \
                         at ε = {} does not match the stored noise path",
                        r.eps
                    ),
                ));
            }
        }
        if let Some(l) = &own {
            let levels: Vec<F::Level> = history
                .iter()
                .filter_map(|r| fam.release_level(r.eps).ok())
                .collect();
            let key = StreamKey::new(g.seed, g.stream, 0, Purpose::Release);
            fam.check_replay(l, key, &levels)
                .map_err(|(key, m)| state_err(key, None, m))?;
        }
        *F::lazy_slot(&mut noise) = own;
        Ok(noise)
    }
}
