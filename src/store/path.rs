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
use crate::limits;
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

/// Where a distance puts a pair ([`Levels::level`]).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Level {
    /// No path to the recipient: no answer.
    Unreachable,
    /// ε(d) out of the range any command answers at (issue 33 item 5): no
    /// answer — the pair is skipped and counted (`pairs_skipped`).
    OutOfRange(f64),
    /// The level answered.
    At(f64),
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

    /// Where distance `d` puts a pair (issue 33 item 5): unreachable, out
    /// of the answerable range, or answered at a level — `min(ε(d), top)`,
    /// for the discrete family the rung at or below it. Out of range is a
    /// level outside [`limits::level_in_range`] (0 or underflowed, NaN,
    /// beyond 1e-60 … 1e60: the rule of every command) or, for the discrete
    /// family, below the smallest rung the grid allows.
    #[inline]
    pub fn level(&self, d: f64) -> Result<Level> {
        if !d.is_finite() {
            return Ok(Level::Unreachable);
        }
        let e = StoreConfig::eps_at(&self.map, self.top, d);
        if !limits::level_in_range(e, 1.0) {
            return Ok(Level::OutOfRange(e));
        }
        match &self.family {
            Family::Laplace => Ok(Level::At(e)),
            Family::Discrete { noise, .. } if e < noise.eps_of(noise.min_rung()) => {
                Ok(Level::OutOfRange(e))
            }
            Family::Discrete { noise, top, .. } => {
                let k = noise.rung_of(e)?.min(*top);
                Ok(Level::At(noise.eps_of(k)))
            }
        }
    }

    /// The level answered at distance `d`, or 0 for no answer (an
    /// unreachable recipient, or a level out of range: see [`Levels::level`]).
    /// A pair is (re)answered only when this rises above every level it
    /// was released at; a pair whose level falls out of range keeps what it
    /// holds.
    #[inline]
    pub fn at(&self, d: f64) -> Result<f64> {
        Ok(match self.level(d)? {
            Level::At(e) => e,
            Level::Unreachable | Level::OutOfRange(_) => 0.0,
        })
    }

    /// The refusal of a level out of range at distance `d` of START (the
    /// graph a store is created from: its distances are known before
    /// anything is written, so an out-of-range level there is the map's
    /// mistake, refused as `simulate` refuses it).
    pub fn refusal(&self, d: f64) -> Error {
        let spec = self.map.spec();
        let spec = spec.as_str();
        let e = StoreConfig::eps_at(&self.map, self.top, d);
        let at = format!("distance {} of START", limits::fmt_num(d));
        if let Some(err) = limits::level_error(spec, e, &at, 1.0) {
            return err;
        }
        let floor = match &self.family {
            Family::Discrete { noise, .. } => noise.eps_of(noise.min_rung()),
            Family::Laplace => 0.0,
        };
        Error::param(
            "eps",
            limits::readable(spec),
            format!(
                "ε ≥ {} at every distance of START (the smallest rung of the grid), got ε = {} \
                 at {at}",
                limits::fmt_num(floor),
                limits::fmt_num(e)
            ),
        )
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
