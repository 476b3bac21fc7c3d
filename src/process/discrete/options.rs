//! The noise choice of a command (issue 25 item 2): `laplace` (the f64
//! process, the default) or `discrete` (the exact integer chain of this
//! module), with the grid, the ladder's levels per doubling and the entropy
//! source; the checks that tie them to the rest of a configuration; and the
//! record `summary.json` keeps of them.

use super::entropy::RngSource;
use super::grid::Grid;
use super::ladder::DEFAULT_LEVELS_PER_DOUBLING;
use super::noise::DiscreteNoise;
use crate::error::{Error, Result};
use crate::process::Norm;
use serde::{Deserialize, Serialize};

/// Which noise a command samples: the f64 lazy Laplace process (simulations)
/// or the floating-point-safe discrete chain (memo `discrete.md`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum NoiseKind {
    /// Continuous Laplace noise sampled in f64 (not floating-point safe).
    #[default]
    Laplace,
    /// Discrete Laplace on a grid, exact in integers.
    Discrete,
}

impl NoiseKind {
    /// Whether this is the default (`laplace`): configurations leave it out
    /// of their JSON so that existing outputs stay byte-identical.
    pub fn is_laplace(&self) -> bool {
        *self == NoiseKind::Laplace
    }
}

impl std::str::FromStr for NoiseKind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "laplace" => Ok(NoiseKind::Laplace),
            "discrete" => Ok(NoiseKind::Discrete),
            _ => Err(Error::param(
                "noise",
                s,
                format!(
                    "laplace or discrete{}",
                    crate::util::suggest::did_you_mean(s, &["laplace", "discrete"])
                ),
            )),
        }
    }
}

impl std::fmt::Display for NoiseKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NoiseKind::Laplace => "laplace",
            NoiseKind::Discrete => "discrete",
        })
    }
}

/// Whether `m` is the default number of levels per doubling (serde helper).
pub fn is_default_levels(m: &u32) -> bool {
    *m == DEFAULT_LEVELS_PER_DOUBLING
}

/// Whether `g` is the default grid (serde helper).
pub fn is_default_grid(g: &Grid) -> bool {
    *g == Grid::default()
}

/// Whether `r` is the default (seeded) source (serde helper).
pub fn is_seeded(r: &RngSource) -> bool {
    *r == RngSource::Seeded
}

/// The default number of levels per doubling (serde helper).
pub fn default_levels() -> u32 {
    DEFAULT_LEVELS_PER_DOUBLING
}

/// The four noise options of a command, as its configuration holds them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NoiseOptions {
    /// `laplace` or `discrete`.
    pub noise: NoiseKind,
    /// The grid γ (discrete only).
    pub granularity: Grid,
    /// Levels per doubling m of the ladder (discrete only).
    pub levels_per_doubling: u32,
    /// Entropy source (discrete only; `os` for real releases).
    pub rng: RngSource,
}

impl Default for NoiseOptions {
    fn default() -> Self {
        NoiseOptions {
            noise: NoiseKind::Laplace,
            granularity: Grid::default(),
            levels_per_doubling: DEFAULT_LEVELS_PER_DOUBLING,
            rng: RngSource::Seeded,
        }
    }
}

impl NoiseOptions {
    /// The discrete configuration, or `None` for `laplace` (whose other
    /// three options must then be at their defaults: they would silently do
    /// nothing). `norm` and `dim` are the command's: ℓ2 in n ≥ 2 has no
    /// discrete form (refused naming `l1`; in 1-D ℓ2 is ℓ1 and accepted).
    pub fn discrete(
        &self,
        sensitivity: f64,
        dim: usize,
        norm: Norm,
    ) -> Result<Option<DiscreteNoise>> {
        if self.noise == NoiseKind::Laplace {
            let unused = if !is_default_grid(&self.granularity) {
                Some(("granularity", self.granularity.to_string()))
            } else if !is_default_levels(&self.levels_per_doubling) {
                Some(("levels_per_doubling", self.levels_per_doubling.to_string()))
            } else if !is_seeded(&self.rng) {
                Some(("rng", self.rng.to_string()))
            } else {
                None
            };
            return match unused {
                Some((name, v)) => Err(Error::param(
                    name,
                    v,
                    "its default unless `noise` = discrete (it applies to the discrete chain only)",
                )),
                None => Ok(None),
            };
        }
        if norm == Norm::L2 && dim >= 2 {
            return Err(Error::param(
                "norm",
                "l2",
                "l1 with `noise` = discrete and `dim` ≥ 2 (the discrete chain has independent \
                 integer coordinates; use `norm` = l1)",
            ));
        }
        DiscreteNoise::new(self.granularity, self.levels_per_doubling, sensitivity, dim).map(Some)
    }
}

/// Refuses the Gaussian mechanism under discrete noise, naming `laplace`,
/// the command's Laplace choice (e.g. `correlated` for `mechanism`).
pub fn refuse_gaussian(param: &str, value: &str, laplace: &str) -> Error {
    Error::param(
        param,
        value,
        format!("{laplace} with `noise` = discrete (the Gaussian mechanism has no discrete form)"),
    )
}

/// What `summary.json` records of a discrete run (issue 25 item 2): the
/// noise, γ, m, Δ_Z and the entropy source.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct DiscreteSummary {
    /// Always `discrete`.
    pub noise: NoiseKind,
    /// γ as `2^k`.
    pub granularity: Grid,
    /// γ as a number.
    pub granularity_value: f64,
    /// Levels per doubling m.
    pub levels_per_doubling: u32,
    /// Integer sensitivity Δ_Z = ⌈Δ/γ⌉ + n − 1 (memo §1).
    pub delta_z: u64,
    /// `seeded` (reproducible simulation) or `os` (a release: not reproducible).
    pub rng: RngSource,
}

impl DiscreteSummary {
    /// The record of `noise` drawn from `rng`.
    pub fn of(noise: &DiscreteNoise, rng: RngSource) -> DiscreteSummary {
        DiscreteSummary {
            noise: NoiseKind::Discrete,
            granularity: noise.grid(),
            granularity_value: noise.grid().value(),
            levels_per_doubling: noise.levels_per_doubling(),
            delta_z: noise.delta_z(),
            rng,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn options_check_and_build() {
        let mut o = NoiseOptions::default();
        assert!(o.discrete(1.0, 2, Norm::L2).unwrap().is_none());
        o.granularity = Grid::from_exponent(-3).unwrap();
        let e = o.discrete(1.0, 1, Norm::L1).unwrap_err().to_string();
        assert!(e.contains("granularity") && e.contains("discrete"), "{e}");
        o.noise = NoiseKind::Discrete;
        let n = o.discrete(1.0, 1, Norm::L2).unwrap().unwrap();
        assert_eq!(n.delta_z(), 8);
        let e = o.discrete(1.0, 2, Norm::L2).unwrap_err().to_string();
        assert!(e.contains("norm") && e.contains("l1"), "{e}");
        assert_eq!(o.discrete(1.0, 3, Norm::L1).unwrap().unwrap().delta_z(), 10);
        assert_eq!(
            "Discrete".parse::<NoiseKind>().unwrap(),
            NoiseKind::Discrete
        );
        assert!("gaussian".parse::<NoiseKind>().is_err());
        let s = DiscreteSummary::of(&n, RngSource::Os);
        let j = serde_json::to_value(&s).unwrap();
        assert_eq!(j["granularity"], "2^-3");
        assert_eq!(j["rng"], "os");
        assert_eq!(j["delta_z"], 8);
    }
}
