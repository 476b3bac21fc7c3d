//! The two couplings of one owner's answers (its mechanism) and the choice of
//! them a run makes: one path per owner ([`Mechanism::Correlated`]; the
//! Gaussian family's Brownian path is recorded as [`Mechanism::Gaussian`]),
//! or fresh noise per recipient ([`Mechanism::Independent`]).

use crate::error::{Error, Result};
use serde::{Deserialize, Serialize};

/// One noise mechanism.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Mechanism {
    /// One lazy path per owner (the point of privdiffuse).
    Correlated,
    /// Fresh noise per recipient (baseline).
    Independent,
    /// Brownian path indexed by variance, (ε, δ)-DP.
    Gaussian,
}

impl Mechanism {
    /// Lower-case name as used in CSV files.
    pub fn name(self) -> &'static str {
        match self {
            Mechanism::Correlated => "correlated",
            Mechanism::Independent => "independent",
            Mechanism::Gaussian => "gaussian",
        }
    }
}

impl std::fmt::Display for Mechanism {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

/// The `mechanism` choice: one mechanism, or `both` (correlated and
/// independent on the same distances and values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum MechanismChoice {
    /// Correlated only.
    Correlated,
    /// Independent only.
    Independent,
    /// Gaussian only.
    Gaussian,
    /// Correlated and independent side by side.
    #[default]
    Both,
}

impl MechanismChoice {
    /// The mechanisms to run, in output order.
    pub fn mechanisms(self) -> &'static [Mechanism] {
        match self {
            MechanismChoice::Correlated => &[Mechanism::Correlated],
            MechanismChoice::Independent => &[Mechanism::Independent],
            MechanismChoice::Gaussian => &[Mechanism::Gaussian],
            MechanismChoice::Both => &[Mechanism::Correlated, Mechanism::Independent],
        }
    }
}

impl std::str::FromStr for MechanismChoice {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "correlated" => Ok(MechanismChoice::Correlated),
            "independent" => Ok(MechanismChoice::Independent),
            "gaussian" => Ok(MechanismChoice::Gaussian),
            "both" => Ok(MechanismChoice::Both),
            _ => Err(Error::param(
                "mechanism",
                s,
                format!(
                    "correlated, independent, gaussian or both{}",
                    crate::util::suggest::did_you_mean(
                        s,
                        &["correlated", "independent", "gaussian", "both"]
                    )
                ),
            )),
        }
    }
}

impl std::fmt::Display for MechanismChoice {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            MechanismChoice::Correlated => "correlated",
            MechanismChoice::Independent => "independent",
            MechanismChoice::Gaussian => "gaussian",
            MechanismChoice::Both => "both",
        })
    }
}
