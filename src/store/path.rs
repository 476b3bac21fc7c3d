//! What a store's noise family fixes: the level answered at a distance
//! ([`Levels`]) and one owner's stored path of either family
//! ([`OwnerPath`]), with the encoding of its values in `segment` and
//! `answer` rows.
//!
//! * `laplace`: the f64 lazy Laplace process ([`AnchoredPath`]); a value
//!   is n little-endian f64 (the noise V), the answer `u + V`.
//! * `discrete`: the integer chain ([`DiscreteAnchored`], issue 25); a
//!   level is the rung answering `min(ε(d), top)` (the largest rung at or
//!   below it), a value is n little-endian i64 (grid steps X), the answer
//!   `(û + X)·γ` with û the value rounded to the grid — exact, every answer
//!   a multiple of γ.
//!
//! In both, the `answer` row's noise is byte for byte the segment's value,
//! which is what the schema's trigger checks.

use super::{StoreConfig, blob_to_f64s, f64s_to_blob};
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::process::AnchoredPath;
use crate::process::discrete::{DiscreteAnchored, DiscreteNoise, Rung};

/// The stored family of the paths, as the configuration fixes it.
#[derive(Clone, Debug)]
pub enum Family {
    /// The f64 lazy Laplace process.
    Laplace,
    /// The discrete chain: its configuration (Δ = 1), the paths' top rung
    /// and the entropy source.
    Discrete {
        /// γ, m, Δ_Z, n.
        noise: DiscreteNoise,
        /// The rung of the store's top.
        top: Rung,
        /// Seeded (reproducible) or the operating system's.
        rng: crate::process::discrete::RngSource,
    },
}

/// The level answered at a distance: `min(ε(d), top)`, then, for the
/// discrete family, the rung at or below it.
#[derive(Clone, Debug)]
pub struct Levels {
    map: EpsilonMap,
    top: f64,
    family: Family,
}

impl Levels {
    /// The levels of a store's configuration.
    pub fn of(config: &StoreConfig) -> Result<Levels> {
        Ok(Levels {
            map: config.map()?,
            top: config.top,
            family: config.family()?,
        })
    }

    /// The level at distance `d` (0 for an unreachable recipient). For
    /// the discrete family, a level below the smallest rung the grid allows
    /// is returned as it is: it compares below every rung (a pair whose ε
    /// falls there keeps what it holds), and a release at it fails naming
    /// the smallest allowed ε.
    #[inline]
    pub fn at(&self, d: f64) -> Result<f64> {
        let e = StoreConfig::eps_at(&self.map, self.top, d);
        match &self.family {
            Family::Laplace => Ok(e),
            Family::Discrete { noise, .. } if e < noise.eps_of(noise.min_rung()) => Ok(e),
            Family::Discrete { noise, top, .. } => {
                let k = noise.rung_of(e)?.min(*top);
                Ok(noise.eps_of(k))
            }
        }
    }

    /// The family of the paths.
    pub fn family(&self) -> &Family {
        &self.family
    }

    /// The discrete configuration, if the paths are discrete.
    pub fn discrete(&self) -> Option<&DiscreteNoise> {
        match &self.family {
            Family::Discrete { noise, .. } => Some(noise),
            Family::Laplace => None,
        }
    }

    /// A new path of `owner` (at the store's top, nothing below).
    pub fn new_path(&self, config: &StoreConfig, owner: u32) -> Result<OwnerPath> {
        Ok(match &self.family {
            Family::Laplace => OwnerPath::Laplace(
                AnchoredPath::new(
                    config.norm,
                    config.dim,
                    config.top,
                    config.seed,
                    u64::from(owner),
                )
                .map_err(|e| config.name_the_top(e))?,
            ),
            Family::Discrete { noise, top, rng } => OwnerPath::Discrete(DiscreteAnchored::new(
                noise,
                *top,
                config.seed,
                u64::from(owner),
                *rng,
            )?),
        })
    }
}

/// One owner's stored path, of the store's family.
#[derive(Clone, Debug)]
pub enum OwnerPath {
    /// f64 segments.
    Laplace(AnchoredPath),
    /// Integer rows.
    Discrete(DiscreteAnchored),
}

/// The `path` row's walk columns: `walk_level`, `pending_level`,
/// `pending_bits`, `jumps`, `word_pos`.
pub(crate) type WalkRow = (f64, Option<f64>, Option<i64>, i64, String);

/// `word_pos` of a path drawn from the operating system's generator.
pub(crate) const WORD_POS_OS: &str = "os";

impl OwnerPath {
    /// The `top` column: the level segment 0 holds up to (Laplace: the
    /// top, inclusive; discrete: the rung above the top, exclusive — see
    /// [`DiscreteAnchored::ceiling`]). Every answer's level lies below it
    /// (or at it, for Laplace).
    pub fn top(&self) -> f64 {
        match self {
            OwnerPath::Laplace(p) => p.top(),
            OwnerPath::Discrete(p) => p.ceiling(),
        }
    }

    /// The lowest level walked.
    pub fn bottom(&self) -> f64 {
        match self {
            OwnerPath::Laplace(p) => p.bottom(),
            OwnerPath::Discrete(p) => p.bottom(),
        }
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        match self {
            OwnerPath::Laplace(p) => p.dim(),
            OwnerPath::Discrete(p) => p.dim(),
        }
    }

    /// Segments so far.
    pub fn segments(&self) -> usize {
        match self {
            OwnerPath::Laplace(p) => p.segments(),
            OwnerPath::Discrete(p) => p.segments(),
        }
    }

    /// Segment `k`'s upper level and its value as stored.
    pub fn segment_blob(&self, k: usize) -> (f64, Vec<u8>) {
        match self {
            OwnerPath::Laplace(p) => {
                let (hi, v) = p.segment(k);
                (hi, f64s_to_blob(v))
            }
            OwnerPath::Discrete(p) => {
                let (hi, v) = p.segment(k);
                (hi, i64s_to_blob(v))
            }
        }
    }

    /// The `path` row's walk columns.
    pub(crate) fn walk_row(&self) -> WalkRow {
        match self {
            OwnerPath::Laplace(p) => {
                let s = p.walk_state();
                let (pl, pb) = match s.pending {
                    Some((l, b)) => (Some(l), Some(b as i64)),
                    None => (None, None),
                };
                (s.level, pl, pb, s.jumps as i64, p.word_pos().to_string())
            }
            OwnerPath::Discrete(p) => (
                p.bottom(),
                None,
                None,
                p.changes() as i64,
                p.word_pos()
                    .map_or_else(|| WORD_POS_OS.to_string(), |w| w.to_string()),
            ),
        }
    }

    /// Extends the path down to `level` if needed (a level of the store:
    /// [`Levels::at`]).
    pub fn reach(&mut self, level: f64) -> Result<()> {
        match self {
            OwnerPath::Laplace(p) => p.read(level).map(|_| ()),
            OwnerPath::Discrete(p) => p.read(level).map(|_| ()),
        }
    }

    /// The stored value at `level` (`None` below the bottom).
    pub fn blob_at(&self, level: f64) -> Option<Vec<u8>> {
        match self {
            OwnerPath::Laplace(p) => p.value_at(level).map(f64s_to_blob),
            OwnerPath::Discrete(p) => p.value_at(level).map(i64s_to_blob),
        }
    }

    /// The error `y − u` of the answer at `level` into `out` (Laplace: the
    /// noise V itself, bit for bit; discrete: `(û + X)·γ − u`); `Ok(false)`
    /// below the bottom.
    pub fn error_into(&self, level: f64, u: &[f64], out: &mut [f64]) -> Result<bool> {
        match self {
            OwnerPath::Laplace(p) => Ok(p.value_at(level).is_some_and(|v| {
                out.copy_from_slice(v);
                true
            })),
            OwnerPath::Discrete(p) => {
                let Some(x) = p.value_at(level) else {
                    return Ok(false);
                };
                discrete_answer(p.noise(), u, x, out)?;
                for (o, a) in out.iter_mut().zip(u) {
                    *o -= a;
                }
                Ok(true)
            }
        }
    }

    /// The answer `y` at `level` for the owner's value `u` into `out`;
    /// `Ok(false)` below the bottom.
    pub fn answer_into(&self, level: f64, u: &[f64], out: &mut [f64]) -> Result<bool> {
        match self {
            OwnerPath::Laplace(p) => Ok(p.value_at(level).is_some_and(|v| {
                for ((y, a), b) in out.iter_mut().zip(u).zip(v) {
                    *y = a + b;
                }
                true
            })),
            OwnerPath::Discrete(p) => match p.value_at(level) {
                Some(x) => discrete_answer(p.noise(), u, x, out).map(|_| true),
                None => Ok(false),
            },
        }
    }

    /// The answer `y` for `u` from a stored value (an `answer` row's noise).
    pub fn answer_from_blob(&self, u: &[f64], blob: &[u8], out: &mut [f64]) -> Result<()> {
        let bad = || Error::Numerical("a stored answer of the wrong length".into());
        match self {
            OwnerPath::Laplace(_) => {
                let v = blob_to_f64s(blob)
                    .filter(|v| v.len() == out.len())
                    .ok_or_else(bad)?;
                for ((y, a), b) in out.iter_mut().zip(u).zip(&v) {
                    *y = a + b;
                }
                Ok(())
            }
            OwnerPath::Discrete(p) => {
                let x = blob_to_i64s(blob)
                    .filter(|v| v.len() == out.len())
                    .ok_or_else(bad)?;
                discrete_answer(p.noise(), u, &x, out)
            }
        }
    }
}

/// (û + X)·γ, û the grid rounding of `u` (exact).
fn discrete_answer(noise: &DiscreteNoise, u: &[f64], x: &[i64], out: &mut [f64]) -> Result<()> {
    let mut uhat = [0i64; 8];
    let mut big;
    let uhat: &mut [i64] = if u.len() <= uhat.len() {
        &mut uhat[..u.len()]
    } else {
        big = vec![0i64; u.len()];
        &mut big
    };
    noise.round_into(u, uhat)?;
    noise.answer_into(uhat, x, out)
}

/// n i64 as little-endian bytes (the discrete family's values).
pub(crate) fn i64s_to_blob(v: &[i64]) -> Vec<u8> {
    v.iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The inverse of [`i64s_to_blob`]; `None` for a length not a multiple of 8.
pub(crate) fn blob_to_i64s(b: &[u8]) -> Option<Vec<i64>> {
    if !b.len().is_multiple_of(8) {
        return None;
    }
    Some(
        b.chunks_exact(8)
            .map(|c| i64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
    )
}
