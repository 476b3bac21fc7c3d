//! What the engine needs of each hop level, from the run's noise family
//! (chosen once, [`Noise::visit`]): the closed forms of one answer at the
//! level (noise variance, bit flips and their debiasing, the Laplace rate of
//! fresh noise), their fixed-point images, and the fixed-point formats of
//! the run's sums, sized by the noisiest level.
//!
//! Under `noise = discrete` (issue 25) a hop level is answered at its rung
//! (the largest ladder level ≤ ε(L)); the variance is the discrete law's,
//! 2a/(1 − a)²·γ² per coordinate; the flips are those of the bits rounded
//! to the grid (ties go up, so they differ on grids finer than ½), and the
//! values' format leaves room for the rounding (γ).

use super::fixed::Fixed;
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::process::family::{BitFlips, Noise, NoiseFamily, Visit};

/// One hop level under the run's noise family.
#[derive(Clone, Copy, Debug)]
pub(crate) struct LevelInfo {
    /// ε(L) as the map gives it (the family's level is computed from it).
    pub eps: f64,
    /// The ε it is answered at (the rung's under discrete noise).
    pub eps_used: f64,
    /// E‖noise‖² of one answer (value units²).
    pub mse: f64,
    /// Var of one coordinate of an answer's noise.
    pub coord_var: f64,
    /// Bits answered 1{y ≥ ½}: flips and keep (no flips, keep 1, for raw
    /// answers on a grid, whose values are not bits).
    pub bits: BitFlips,
    /// λ when fresh noise has iid Laplace(1/λ) coordinates.
    pub rate: Option<f64>,
    /// Σ Var added per answer whose bit is 0, 1 (raw answers: n·Var for
    /// both; bits: f_b(1 − f_b)), variance format.
    pub var_fixed: [i128; 2],
    /// f₀, f₁ (bias format).
    pub flip_fixed: [i128; 2],
    /// The debiased variance per bit (debiased variance format).
    pub deb_var_fixed: [i128; 2],
}

impl LevelInfo {
    /// The debiased answer of bit `b` ∈ {0, 1}: (b − f₀)/keep.
    #[inline]
    pub fn debiased(&self, b: f64) -> f64 {
        (b - self.bits.flip[0]) / self.bits.keep
    }

    /// The variance of a debiased answer that does not know its bit: the
    /// mean over b of the two.
    pub fn debiased_variance(&self) -> f64 {
        let [a, b] = self.bits.debiased_variance();
        0.5 * (a + b)
    }
}

/// Every hop level's laws and the run's formats.
pub(crate) struct Levels {
    /// Index L (0 unused); `None` where the family cannot answer ε(L).
    pub levels: Vec<Option<LevelInfo>>,
    /// ε of the largest level of the run (the paths' top).
    pub top_eps: Option<f64>,
    /// Fixed-point formats: values, debiased values, variances, bias,
    /// debiased variances.
    pub formats: [Fixed; 5],
    /// The largest E‖noise‖² of a level (0 without any).
    pub mse_max: f64,
    /// Whether answers are exact on a grid (secrets rounded).
    pub on_grid: bool,
}

impl Levels {
    /// The laws of hop levels 1..=`hop_bound` of `map` under `noise`, with
    /// projected `bits` or raw answers; `umax` is the values' largest
    /// magnitude.
    pub fn new(
        noise: &Noise,
        map: &EpsilonMap,
        hop_bound: u32,
        bits: bool,
        umax: f64,
    ) -> Result<Levels> {
        noise.visit(Build {
            map,
            hop_bound,
            bits,
            umax,
        })
    }
}

struct Build<'m> {
    map: &'m EpsilonMap,
    hop_bound: u32,
    bits: bool,
    umax: f64,
}

impl Visit for Build<'_> {
    type Out = Result<Levels>;
    fn run<F: NoiseFamily>(self, fam: &F) -> Result<Levels> {
        let grid = fam.grid();
        // Flips exist for raw answers too where they are a property of the
        // noise alone (f64 families); on a grid they are those of bits
        // rounded to it, so only for projected bits.
        let flips = self.bits || grid.is_none();
        let spec = self.map.spec();
        let mut levels = vec![None];
        for d in 1..=self.hop_bound {
            let eps = self.map.eps(d as f64);
            let Ok(level) = fam.checked_level(eps, &spec, &format!("distance {d}")) else {
                levels.push(None);
                continue;
            };
            levels.push(Some(LevelInfo {
                eps,
                eps_used: fam.eps_used(eps, level),
                mse: fam.mse(level),
                coord_var: fam.coord_variance(level),
                bits: if flips {
                    fam.bit_flips(level)?
                } else {
                    BitFlips {
                        flip: [0.0; 2],
                        keep: 1.0,
                    }
                },
                rate: fam.laplace_rate(level),
                var_fixed: [0; 2],
                flip_fixed: [0; 2],
                deb_var_fixed: [0; 2],
            }));
        }
        // The largest single terms: the noisiest level's.
        let valid = || levels.iter().flatten();
        let mse_max = valid().map(|l| l.mse).fold(0.0, f64::max);
        let deb_max = valid().map(|l| 1.0 / l.bits.keep).fold(1.0, f64::max);
        let deb_var_max = valid()
            .flat_map(|l| l.bits.debiased_variance())
            .fold(0.0, f64::max);
        let formats = [
            Fixed::for_scale(if self.bits {
                1.0
            } else {
                (self.umax + grid.unwrap_or(0.0)).max(mse_max.sqrt())
            }),
            Fixed::for_scale(deb_max),
            Fixed::for_scale(if self.bits { 0.25 } else { mse_max }),
            Fixed::for_scale(0.5),
            Fixed::for_scale(deb_var_max),
        ];
        let top_eps = valid().next().map(|l| l.eps);
        let [_, _, fx_var, fx_bias, fx_var_deb] = formats;
        let to = |f: Fixed, x: f64| {
            f.to_fixed(x)
                .ok_or_else(|| Error::Numerical(format!("a level's closed form {x} overflowed")))
        };
        for l in levels.iter_mut().flatten() {
            if !self.bits {
                l.var_fixed = [to(fx_var, l.mse)?; 2];
                continue;
            }
            let [f0, f1] = l.bits.flip;
            let [v0, v1] = l.bits.debiased_variance();
            l.var_fixed = [to(fx_var, f0 * (1.0 - f0))?, to(fx_var, f1 * (1.0 - f1))?];
            l.flip_fixed = [to(fx_bias, f0)?, to(fx_bias, f1)?];
            l.deb_var_fixed = [to(fx_var_deb, v0)?, to(fx_var_deb, v1)?];
        }
        Ok(Levels {
            levels,
            top_eps,
            formats,
            mse_max,
            on_grid: grid.is_some(),
        })
    }
}
