//! The two couplings of one owner's answers (its mechanism) and the choice of
//! them a run makes: one path per owner ([`Mechanism::Correlated`]; the
//! Gaussian family's Brownian path is recorded as [`Mechanism::Gaussian`]),
//! or fresh noise per recipient ([`Mechanism::Independent`]).

use crate::error::{Error, Result};
use crate::process::discrete::NoiseKind;
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

/// The noise a command's `--noise` (a sweep's or Python's `noise`) names:
/// one word per concept, the coupling being `mechanism`'s. `gaussian` is
/// the Brownian process (once only `mechanism = gaussian`, still taken).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NoiseName {
    /// The f64 lazy Laplace process.
    Laplace,
    /// The Brownian process by variance, (ε, δ)-DP, correlated.
    Gaussian,
    /// The exact integer chain on a grid.
    Discrete,
}

/// The words [`NoiseName`] reads, in the order errors list them.
pub const NOISE_NAMES: [&str; 3] = ["laplace", "gaussian", "discrete"];

impl std::str::FromStr for NoiseName {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "laplace" => Ok(NoiseName::Laplace),
            "gaussian" => Ok(NoiseName::Gaussian),
            "discrete" => Ok(NoiseName::Discrete),
            _ => Err(Error::param(
                "noise",
                s,
                format!(
                    "laplace, gaussian or discrete{}",
                    crate::util::suggest::did_you_mean(s, &NOISE_NAMES)
                ),
            )),
        }
    }
}

impl std::fmt::Display for NoiseName {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(NOISE_NAMES[*self as usize])
    }
}

impl From<NoiseKind> for NoiseName {
    fn from(k: NoiseKind) -> Self {
        match k {
            NoiseKind::Laplace => NoiseName::Laplace,
            NoiseKind::Discrete => NoiseName::Discrete,
        }
    }
}

/// The commands whose runs have no Gaussian form, and why.
const WITHOUT_GAUSSIAN: &[(&str, &str)] = &[
    (
        "relay",
        "the relay is the correlated mechanism on the Laplace or discrete path; \
         Gaussian noise: simulate or collude",
    ),
    (
        "utility",
        "it runs the correlated, independent and access schemes on the Laplace or \
         discrete path; Gaussian noise: simulate or collude",
    ),
];

/// The refusal of `noise` = gaussian in `command` when that command has no
/// Gaussian form (`relay`, `utility`), naming `noise` on every face (the CLI
/// flag, the Python keyword, the sweep key); `None` where Gaussian noise
/// runs.
pub fn no_gaussian_form(command: &str) -> Option<Error> {
    why_no_gaussian(command).map(|why| {
        Error::param(
            "noise",
            NoiseName::Gaussian,
            format!("laplace or discrete: {command} has no Gaussian form ({why})"),
        )
    })
}

/// Why `command` has no Gaussian form (`None` where Gaussian noise runs).
pub fn why_no_gaussian(command: &str) -> Option<&'static str> {
    WITHOUT_GAUSSIAN
        .iter()
        .find(|(c, _)| *c == command)
        .map(|(_, why)| *why)
}

/// The one reading of `noise` and `mechanism` as a face gives them (`None`:
/// not given) over `base`, the configuration they overlay (defaults, or a
/// `--config` file's): the (noise, mechanism) pair the typed configuration
/// holds. Every face calls it — CLI flags, Python keywords, sweep keys —
/// so `noise = gaussian` means the same everywhere.
///
/// * `gaussian` is the correlated Brownian path: with `mechanism` unset,
///   `correlated` or (the older spelling) `gaussian`; `independent` and
///   `both` are refused (there is no independent Gaussian baseline).
/// * `laplace` with `mechanism = gaussian` contradict each other and are
///   refused (`discrete` with it is refused by the discrete options' check,
///   which names the fix); with `mechanism` unset over a Gaussian base
///   `laplace` and `discrete` take the default coupling (`both`), not the
///   base's Gaussian.
pub fn resolve_noise(
    base: (NoiseKind, MechanismChoice),
    noise: Option<NoiseName>,
    mechanism: Option<MechanismChoice>,
) -> Result<(NoiseKind, MechanismChoice)> {
    let kind = match noise {
        None => return Ok((base.0, mechanism.unwrap_or(base.1))),
        Some(NoiseName::Gaussian) => {
            return match mechanism {
                None | Some(MechanismChoice::Correlated | MechanismChoice::Gaussian) => {
                    Ok((NoiseKind::Laplace, MechanismChoice::Gaussian))
                }
                Some(m) => Err(Error::param(
                    "mechanism",
                    m,
                    "correlated with `noise` = gaussian (one Brownian path per owner; \
                     there is no independent Gaussian baseline)",
                )),
            };
        }
        Some(NoiseName::Laplace) => NoiseKind::Laplace,
        Some(NoiseName::Discrete) => NoiseKind::Discrete,
    };
    match mechanism {
        // Discrete + Gaussian: the discrete options' own refusal names it.
        Some(MechanismChoice::Gaussian) if kind == NoiseKind::Laplace => Err(Error::param(
            "mechanism",
            "gaussian",
            "correlated, independent or both with `noise` = laplace \
             (`mechanism` = gaussian is the older spelling of `noise` = gaussian)",
        )),
        Some(m) => Ok((kind, m)),
        None if base.1 == MechanismChoice::Gaussian => Ok((kind, MechanismChoice::default())),
        None => Ok((kind, base.1)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use MechanismChoice::{Both, Correlated, Gaussian, Independent};
    use NoiseKind::{Discrete, Laplace};

    /// (base, noise, mechanism as given, what the configuration holds; `None`: refused)
    type Case = (
        (NoiseKind, MechanismChoice),
        Option<NoiseName>,
        Option<MechanismChoice>,
        Option<(NoiseKind, MechanismChoice)>,
    );

    /// Every (base, noise, mechanism) a face can give, and what the typed
    /// configuration then holds (`None`: refused).
    #[test]
    fn noise_and_mechanism_are_read_together() {
        let n = |s: &str| Some(s.parse::<NoiseName>().unwrap());
        let cases: &[Case] = &[
            ((Laplace, Both), None, None, Some((Laplace, Both))),
            (
                (Laplace, Both),
                None,
                Some(Gaussian),
                Some((Laplace, Gaussian)),
            ),
            (
                (Discrete, Correlated),
                None,
                Some(Independent),
                Some((Discrete, Independent)),
            ),
            (
                (Laplace, Both),
                n("gaussian"),
                None,
                Some((Laplace, Gaussian)),
            ),
            (
                (Laplace, Both),
                n("gaussian"),
                Some(Correlated),
                Some((Laplace, Gaussian)),
            ),
            (
                (Laplace, Both),
                n("gaussian"),
                Some(Gaussian),
                Some((Laplace, Gaussian)),
            ),
            (
                (Discrete, Independent),
                n("gaussian"),
                None,
                Some((Laplace, Gaussian)),
            ),
            ((Laplace, Both), n("gaussian"), Some(Independent), None),
            ((Laplace, Both), n("gaussian"), Some(Both), None),
            (
                (Laplace, Gaussian),
                n("laplace"),
                None,
                Some((Laplace, Both)),
            ),
            (
                (Laplace, Gaussian),
                n("discrete"),
                None,
                Some((Discrete, Both)),
            ),
            (
                (Laplace, Correlated),
                n("discrete"),
                None,
                Some((Discrete, Correlated)),
            ),
            ((Laplace, Both), n("laplace"), Some(Gaussian), None),
            // Left to the discrete options' check, which names the fix.
            (
                (Laplace, Both),
                n("discrete"),
                Some(Gaussian),
                Some((Discrete, Gaussian)),
            ),
            (
                (Discrete, Both),
                n("laplace"),
                Some(Independent),
                Some((Laplace, Independent)),
            ),
        ];
        for &(base, noise, mechanism, want) in cases {
            let got = resolve_noise(base, noise, mechanism);
            assert_eq!(
                got.as_ref().ok().copied(),
                want,
                "{base:?} {noise:?} {mechanism:?}: {got:?}"
            );
            if let Err(e) = got {
                assert!(!e.to_string().contains('\n'), "{e}");
                assert!(e.to_string().contains("mechanism"), "{e}");
            }
        }
    }

    #[test]
    fn noise_words_round_trip_and_suggest() {
        for w in NOISE_NAMES {
            assert_eq!(w.parse::<NoiseName>().unwrap().to_string(), w);
        }
        let e = "gausian".parse::<NoiseName>().unwrap_err().to_string();
        assert!(e.contains("did you mean `gaussian`"), "{e}");
        assert_eq!(NoiseName::from(Discrete), NoiseName::Discrete);
    }
}
