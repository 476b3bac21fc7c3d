//! [`DiscreteNoise`]: the validated configuration of the discrete chain (grid,
//! ladder, integer sensitivity, dimension) that an engine holds, with the map
//! between privacy levels and rungs and the exact rates of the rungs.

use super::grid::Grid;
use super::ladder::{Ladder, Rung};
use super::rational::Ratio;
use crate::error::{Error, Result};
use crate::limits::{EPS_MAX, EPS_MIN};
use num_bigint::BigUint;
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// Largest noise scale Δ_Z/ε in grid steps (memo §1): beyond it the noise
/// leaves i64 and f64-exact outputs.
pub const MAX_SCALE_LOG2: i32 = 40;

/// The coarsest grid any command takes, 2^400 (issue 33 item 8: one grid
/// limit for every command and face): an answer is at most 2^53 grid steps,
/// so its square stays below 2^(2·(53 + 400)) and a sum of 2^40 of them
/// (a timeline's squared errors, a coalition's trials) below 2^946 < 2^1023.
pub const GRID_EXPONENT_MAX: i32 = 400;

/// The configuration of a floating-point-safe release (memo §1, §4): values
/// on the grid γ, integer sensitivity Δ_Z = ⌈Δ/γ⌉ + n − 1 for ℓ1 in n
/// coordinates, rungs on the ladder with m levels per doubling, each rung's
/// rate t = ε/Δ_Z an exact rational. Built once (validated), then shared by
/// the samplers of `chain` and the closed forms.
#[derive(Clone, Debug, Serialize, Deserialize)]
#[serde(try_from = "NoiseParts", into = "NoiseParts")]
pub struct DiscreteNoise {
    grid: Grid,
    ladder: Arc<Ladder>,
    sensitivity: f64,
    dim: usize,
    delta_z: u64,
    min_rung: Rung,
    max_rung: Rung,
}

impl PartialEq for DiscreteNoise {
    fn eq(&self, o: &Self) -> bool {
        self.grid == o.grid
            && self.ladder.levels_per_doubling() == o.ladder.levels_per_doubling()
            && self.sensitivity.to_bits() == o.sensitivity.to_bits()
            && self.dim == o.dim
    }
}

/// The serialised form: the parameters, re-validated on the way in, and Δ_Z
/// for the reader (checked against the parameters).
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct NoiseParts {
    granularity: Grid,
    levels_per_doubling: u32,
    sensitivity: f64,
    dim: usize,
    delta_z: u64,
}

impl TryFrom<NoiseParts> for DiscreteNoise {
    type Error = Error;
    fn try_from(p: NoiseParts) -> Result<Self> {
        let noise = DiscreteNoise::new(p.granularity, p.levels_per_doubling, p.sensitivity, p.dim)?;
        if noise.delta_z != p.delta_z {
            return Err(Error::param(
                "delta_z",
                p.delta_z,
                format!("{} (⌈sensitivity/granularity⌉ + dim − 1)", noise.delta_z),
            ));
        }
        Ok(noise)
    }
}

impl From<DiscreteNoise> for NoiseParts {
    fn from(n: DiscreteNoise) -> Self {
        NoiseParts {
            granularity: n.grid,
            levels_per_doubling: n.ladder.levels_per_doubling(),
            sensitivity: n.sensitivity,
            dim: n.dim,
            delta_z: n.delta_z,
        }
    }
}

/// A rate p/q in the width the samplers run in.
pub(super) enum Level {
    Small(u128, u128),
    Big(BigUint, BigUint),
}

/// The rungs one search of the jump-to-jump walk looks at from a start
/// rung k (sampler 2): k − 1 down to the lowest rung of k − 1's octave (not
/// below `min_rung`), rates p(i)/q = M_i·2^`shift`/q for the octave's
/// indices `lo..=hi`, and k's rate `top`/q.
pub(super) struct Window<N> {
    /// The rung of the octave's index 0.
    pub base: i32,
    pub lo: usize,
    pub hi: usize,
    pub top: N,
    pub q: N,
    pub shift: u32,
}

/// A [`Window`] in the width the samplers run in.
pub(super) enum Windowed {
    Small(Window<u128>),
    Big(Window<BigUint>),
}

/// Consecutive rates t₁ = p₁/q > t₂ = p₂/q of one step down the ladder.
pub(super) enum Step {
    Small(u128, u128, u128),
    Big(BigUint, BigUint, BigUint),
}

impl DiscreteNoise {
    /// Validates and derives Δ_Z = ⌈`sensitivity`/γ⌉ + `dim` − 1 (memo §1):
    /// γ at most 2^400 (`GRID_EXPONENT_MAX`), `levels_per_doubling` in 1..=1024, `sensitivity` finite > 0, `dim` in
    /// 1..=`MAX_DIM`, Δ_Z ≤ 2⁵³.
    pub fn new(grid: Grid, levels_per_doubling: u32, sensitivity: f64, dim: usize) -> Result<Self> {
        if grid.exponent() > GRID_EXPONENT_MAX {
            return Err(Error::param(
                "granularity",
                grid,
                format!(
                    "a grid of at most 2^{GRID_EXPONENT_MAX} (answers' squared errors, summed \
                     over trials and pairs, would overflow)"
                ),
            ));
        }
        let ladder = Ladder::get(levels_per_doubling)?;
        crate::process::check_dim("dim", dim)?;
        crate::process::check_sensitivity(sensitivity)?;
        let too_fine = || {
            Error::param(
                "sensitivity",
                sensitivity,
                format!("at most 2^53 grid steps of {grid} (with `dim` − 1 added)"),
            )
        };
        let steps = grid.steps_ceil(sensitivity).ok_or_else(too_fine)?;
        let delta_z = steps
            .checked_add(dim as u64 - 1)
            .filter(|&d| d <= 1 << 53)
            .ok_or_else(too_fine)?;
        // Smallest rung with ε ≥ Δ_Z·2^-40 (exact: Δ_Z ≤ 2^53 is an f64).
        let floor = delta_z as f64 / (1u64 << MAX_SCALE_LOG2) as f64;
        let below = ladder.rung_of(floor).ok_or_else(too_fine)?;
        let min_rung = if ladder.eps_of(below) == Some(floor) {
            below
        } else {
            Rung(below.0 + 1)
        };
        let max_rung = ladder.rung_of(EPS_MAX).ok_or_else(too_fine)?;
        Ok(DiscreteNoise {
            grid,
            ladder,
            sensitivity,
            dim,
            delta_z,
            min_rung,
            max_rung,
        })
    }

    /// The grid γ.
    pub fn grid(&self) -> Grid {
        self.grid
    }

    /// Levels per doubling m.
    pub fn levels_per_doubling(&self) -> u32 {
        self.ladder.levels_per_doubling()
    }

    /// The ladder's table.
    pub fn ladder(&self) -> &Ladder {
        &self.ladder
    }

    /// The sensitivity Δ (ℓ1, in value units).
    pub fn sensitivity(&self) -> f64 {
        self.sensitivity
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Integer sensitivity Δ_Z = ⌈Δ/γ⌉ + n − 1 (memo §1).
    pub fn delta_z(&self) -> u64 {
        self.delta_z
    }

    /// Lowest rung allowed: the smallest with Δ_Z/ε ≤ 2⁴⁰.
    pub fn min_rung(&self) -> Rung {
        self.min_rung
    }

    /// Highest rung allowed (the rung of `EPS_MAX`).
    pub fn max_rung(&self) -> Rung {
        self.max_rung
    }

    /// The rung answering a request at `eps`: the largest rung with ε_k ≤
    /// `eps` (memo §4). Refuses ε outside [`EPS_MIN`, `EPS_MAX`] and
    /// rungs whose noise scale Δ_Z/ε_k exceeds 2⁴⁰ grid steps, naming the
    /// smallest allowed ε.
    pub fn rung_of(&self, eps: f64) -> Result<Rung> {
        if !(eps.is_finite() && (EPS_MIN..=EPS_MAX).contains(&eps)) {
            return Err(Error::param(
                "eps",
                eps,
                format!("a finite level within [{EPS_MIN:e}, {EPS_MAX:e}]"),
            ));
        }
        let k = self
            .ladder
            .rung_of(eps)
            .filter(|&k| k >= self.min_rung)
            .ok_or_else(|| self.too_small(eps))?;
        Ok(k)
    }

    fn too_small(&self, eps: f64) -> Error {
        Error::param(
            "eps",
            eps,
            format!(
                "ε ≥ {} (with granularity {} and sensitivity {}, Δ_Z = {} grid steps, and the \
                 noise scale Δ_Z/ε may not exceed 2^40 steps)",
                crate::limits::fmt_num(self.eps_of(self.min_rung)),
                self.grid,
                self.sensitivity,
                self.delta_z
            ),
        )
    }

    /// ε of a rung (exact f64; rungs outside [`min_rung`](Self::min_rung) ..=
    /// [`max_rung`](Self::max_rung) give the nearest allowed one's level).
    pub fn eps_of(&self, rung: Rung) -> f64 {
        let k = rung.clamp(self.min_rung, self.max_rung);
        // min_rung and max_rung are normal by construction.
        self.ladder.eps_of(k).unwrap_or(f64::NAN)
    }

    /// Checks that `rung` lies in [`min_rung`](Self::min_rung) ..=
    /// [`max_rung`](Self::max_rung); `name` is the parameter in the error.
    #[inline]
    pub fn check_rung(&self, name: &str, rung: Rung) -> Result<()> {
        if (self.min_rung..=self.max_rung).contains(&rung) {
            Ok(())
        } else {
            Err(self.rung_error(name, rung))
        }
    }

    /// The error of [`check_rung`](Self::check_rung), out of the per-draw path.
    #[cold]
    fn rung_error(&self, name: &str, rung: Rung) -> Error {
        Error::param(
            name,
            rung,
            format!(
                "a rung from {} to {} (ε from {} to {})",
                self.min_rung,
                self.max_rung,
                self.eps_of(self.min_rung),
                self.eps_of(self.max_rung)
            ),
        )
    }

    /// The exact rate t = ε/Δ_Z of a rung (memo §1).
    pub fn rate(&self, rung: Rung) -> Result<Ratio> {
        self.check_rung("rung", rung)?;
        Ok(match self.level(rung.0) {
            Level::Small(p, q) => Ratio::from_u128(p, q)?,
            Level::Big(p, q) => Ratio::new(p, q)?,
        })
    }

    /// t = ε/Δ_Z of a rung in f64, for the closed forms (not for sampling).
    pub fn rate_f64(&self, rung: Rung) -> f64 {
        self.eps_of(rung) / self.delta_z as f64
    }

    /// Numerators p·2^e over Δ_Z (e ≥ 0) or p over Δ_Z·2^{−e} (e < 0), in
    /// big integers: the fallback where `u128` cannot hold them.
    fn build<const K: usize>(&self, nums: [u64; K], e: i32) -> ([BigUint; K], BigUint) {
        let dz = BigUint::from(self.delta_z);
        if e >= 0 {
            (nums.map(|p| BigUint::from(p) << e as u32), dz)
        } else {
            (nums.map(BigUint::from), dz << (-e) as u32)
        }
    }

    /// The rate of rung k as p/q (powers of two shared by p and the grid
    /// scale removed).
    #[inline]
    pub(super) fn level(&self, k: i32) -> Level {
        let (o, i) = self.ladder.split(k);
        let mut p = self.ladder.mantissa(i);
        let tz = p.trailing_zeros();
        p >>= tz;
        let e = o - 52 + tz as i32;
        let dz_bits = 64 - self.delta_z.leading_zeros() as i32;
        if e < 0 && dz_bits - e <= 128 {
            return Level::Small(u128::from(p), u128::from(self.delta_z) << (-e));
        }
        if e >= 0 && 54 + e <= 128 {
            return Level::Small(u128::from(p) << e, u128::from(self.delta_z));
        }
        let ([p], q) = self.build([p], e);
        Level::Big(p, q)
    }

    /// The rates of rung k and k − 1 over a common denominator (memo §2),
    /// from rung k's (octave ⌊k/m⌋, index k mod m).
    #[inline]
    pub(super) fn step_at(&self, o: i32, i: usize) -> Step {
        let m = self.ladder.levels_per_doubling() as usize;
        // ε_k = M_i·2^{o−52}; across an octave boundary both are written
        // with exponent o − 53 (ε_k = 2^53·2^{o−53}).
        let (mut p1, mut p2, mut e) = if i > 0 {
            (self.ladder.mantissa(i), self.ladder.mantissa(i - 1), o - 52)
        } else {
            (1u64 << 53, self.ladder.mantissa(m - 1), o - 53)
        };
        let tz = p1.trailing_zeros().min(p2.trailing_zeros());
        p1 >>= tz;
        p2 >>= tz;
        e += tz as i32;
        let dz_bits = 64 - self.delta_z.leading_zeros() as i32;
        if e < 0 && dz_bits - e <= 128 {
            return Step::Small(
                u128::from(p1),
                u128::from(p2),
                u128::from(self.delta_z) << (-e),
            );
        }
        if e >= 0 && 54 + e <= 128 {
            return Step::Small(
                u128::from(p1) << e,
                u128::from(p2) << e,
                u128::from(self.delta_z),
            );
        }
        let ([p1, p2], q) = self.build([p1, p2], e);
        Step::Big(p1, p2, q)
    }

    /// The search window below rung `k` (see [`Window`]); `None` at or
    /// below `min_rung`, where the chain has no rung left.
    #[inline]
    pub(super) fn window(&self, k: i32) -> Option<Windowed> {
        if k <= self.min_rung.0 {
            return None;
        }
        let m = self.ladder.levels_per_doubling() as usize;
        let (o, hi) = self.ladder.split(k - 1);
        let base = o * m as i32;
        let lo = (self.min_rung.0.max(base) - base) as usize;
        // ε_k = M_{hi+1}·2^{o−52}, or 2^53·2^{o−52} at the next octave's start.
        let pk = if hi + 1 < m {
            self.ladder.mantissa(hi + 1)
        } else {
            1 << 53
        };
        let e = o - 52;
        let dz_bits = 64 - self.delta_z.leading_zeros() as i32;
        let dz = u128::from(self.delta_z);
        let small = |top: u128, q: u128, shift: u32| {
            Windowed::Small(Window {
                base,
                lo,
                hi,
                top,
                q,
                shift,
            })
        };
        if e < 0 && dz_bits - e <= 128 {
            return Some(small(u128::from(pk), dz << (-e), 0));
        }
        if e >= 0 && 54 + e <= 128 {
            return Some(small(u128::from(pk) << e, dz, e as u32));
        }
        let ([top], q) = self.build([pk], e);
        Some(Windowed::Big(Window {
            base,
            lo,
            hi,
            top,
            q,
            shift: e.max(0) as u32,
        }))
    }

    /// Rounds values to the grid (û = ⌊u/γ + ½⌋, exact; memo §1) into `out`.
    pub fn round_into(&self, values: &[f64], out: &mut [i64]) -> Result<()> {
        self.check_len("values", values.len())?;
        self.check_len("out", out.len())?;
        for (o, &u) in out.iter_mut().zip(values) {
            *o = self.grid.round(u)?;
        }
        Ok(())
    }

    /// The released answer y = (û + X)·γ per coordinate, exact (memo §1);
    /// refused when |û + X| ≥ 2⁵³.
    #[inline]
    pub fn answer_into(&self, uhat: &[i64], noise: &[i64], out: &mut [f64]) -> Result<()> {
        self.check_len("uhat", uhat.len())?;
        self.check_len("noise", noise.len())?;
        self.check_len("out", out.len())?;
        for ((o, &u), &x) in out.iter_mut().zip(uhat).zip(noise) {
            *o = self.grid.value_of(i128::from(u) + i128::from(x))?;
        }
        Ok(())
    }

    #[inline]
    pub(super) fn check_len(&self, name: &str, len: usize) -> Result<()> {
        if len == self.dim {
            Ok(())
        } else {
            Err(self.len_error(name, len))
        }
    }

    /// The error of `check_len`, out of the per-draw path.
    #[cold]
    fn len_error(&self, name: &str, len: usize) -> Error {
        Error::param(
            name,
            format!("{len} coordinates"),
            format!("`dim` = {} coordinates", self.dim),
        )
    }
}
