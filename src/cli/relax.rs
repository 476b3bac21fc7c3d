//! `privdiffuse relax`: release one secret at privacy levels given in any order
//! (gradual release, memo §3), optionally over many trials with an accuracy
//! table against the single-release optimum and the composition baseline.

use crate::io::relax::{StateFile, accounting_line, accuracy_table, write_releases};
use crate::mechanism::NoiseName;
use crate::process::discrete::{Grid, NoiseKind, NoiseOptions, RngSource};
use crate::process::release::DEFAULT_EPS_MAX;
use crate::process::{Calibration, GradualRelease, Norm, ReleaseNoise};
use crate::release::ReleaseTrials;
use crate::{Error, Result};
use std::path::PathBuf;

/// `--mechanism` of relax: the coupling (a gradual release is one path:
/// `correlated`), or, in the older spelling, the f64 noise family.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MechanismArg {
    /// One path per secret, answered at each level (the only coupling of a release).
    Correlated,
    /// The older spelling of --noise laplace.
    Laplace,
    /// The older spelling of --noise gaussian.
    Gaussian,
}

/// The f64 noise family of a release: the lazy Laplace process or the
/// Brownian one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Family {
    Laplace,
    Gaussian,
}

impl RelaxArgs {
    /// The f64 family named by `--noise` and `--mechanism` (its older
    /// spelling), `None` when neither names one; the two contradicting each
    /// other are refused. `--noise discrete` names none (its own checks
    /// refuse `--mechanism gaussian` beside it).
    fn family(&self) -> Result<Option<Family>> {
        let from_mechanism = match self.mechanism {
            Some(MechanismArg::Laplace) => Some(Family::Laplace),
            Some(MechanismArg::Gaussian) => Some(Family::Gaussian),
            Some(MechanismArg::Correlated) | None => None,
        };
        let from_noise = match self.noise {
            Some(NoiseName::Laplace) => Some(Family::Laplace),
            Some(NoiseName::Gaussian) => Some(Family::Gaussian),
            Some(NoiseName::Discrete) | None => None,
        };
        match (from_noise, from_mechanism) {
            (Some(n), Some(m)) if n != m => Err(Error::param(
                "mechanism",
                self.mechanism.map_or("", |m| {
                    if m == MechanismArg::Laplace {
                        "laplace"
                    } else {
                        "gaussian"
                    }
                }),
                format!(
                    "correlated with --noise {} (--mechanism laplace|gaussian is the older \
                     spelling of --noise)",
                    NoiseName::from_family(n)
                ),
            )),
            (n, m) => Ok(n.or(m)),
        }
    }

    /// `--noise` as the discrete-or-f64 choice.
    fn noise_kind(&self) -> Option<NoiseKind> {
        self.noise.map(|n| match n {
            NoiseName::Discrete => NoiseKind::Discrete,
            NoiseName::Laplace | NoiseName::Gaussian => NoiseKind::Laplace,
        })
    }
}

impl NoiseName {
    fn from_family(f: Family) -> Self {
        match f {
            Family::Laplace => NoiseName::Laplace,
            Family::Gaussian => NoiseName::Gaussian,
        }
    }
}

/// Release one secret at privacy levels requested in any order (gradual release).
///
/// Releases `u + noise` at each level in the order given. A looser level
/// later costs nothing in accuracy: every answer is distributed exactly like a
/// single release at its ε, and everything released together is only as
/// private as the largest ε (not the sum).
///
/// Example: `privdiffuse relax --value 0 --eps 0.5,1,2,4 --trials 20000 --out r.csv`
#[derive(Debug, clap::Args)]
pub struct RelaxArgs {
    /// The secret: n comma-separated numbers, e.g. `--value 3.5` or
    /// `--value 1,-2,0.5`. Optional when --state names an existing file.
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true, value_parser = secret_number)]
    pub value: Option<Vec<f64>>,

    /// Privacy levels ε > 0 to release, in request order (any order), e.g.
    /// `--eps 0.5,1,2,4` (relaxing) or `--eps 4,1,2` (mixed).
    #[arg(
        long,
        value_delimiter = ',',
        required = true,
        allow_hyphen_values = true,
        value_parser = level
    )]
    pub eps: Vec<f64>,

    /// Dimension n; must equal the number of values (a consistency check).
    #[arg(long)]
    pub dim: Option<usize>,

    /// Privacy metric of the Laplace process: l1 (independent coordinates,
    /// optimal MSE 2n/ε²) or l2 (optimal MSE n(n+1)/ε²). [default: l1]
    #[arg(long)]
    pub norm: Option<Norm>,

    /// correlated (a release is one path per secret); laplace | gaussian: the older
    /// spelling of --noise
    #[arg(long, value_enum)]
    pub mechanism: Option<MechanismArg>,

    /// δ of the Gaussian mechanism, in (0, 1), the same at every level.
    /// Only with --noise gaussian. [default: 1e-5]
    #[arg(long, allow_hyphen_values = true)]
    pub delta: Option<f64>,

    /// σ(ε, δ) calibration of the Gaussian mechanism: analytic (Balle & Wang
    /// 2018, tightest), classic (Δ·sqrt(2 ln(1.25/δ))/ε) or le-ny-pappas.
    /// [default: analytic]
    #[arg(long)]
    pub calibration: Option<Calibration>,

    /// Sensitivity Δ of the released quantity (ℓ1 or ℓ2 as the norm; ℓ2 for
    /// Gaussian). Noise scales with Δ. [default: 1]
    #[arg(long, allow_hyphen_values = true)]
    pub sensitivity: Option<f64>,

    /// Random seed; the same seed and arguments give the same output. [default: 1]
    #[arg(long, allow_hyphen_values = true)]
    pub seed: Option<u64>,

    /// Independent repetitions. When given, also prints per level the
    /// empirical MSE, the single-release optimum, their ratio and (for
    /// increasing levels) the composition-theorem baseline — to stderr, or to
    /// stdout when --out is given.
    #[arg(long, allow_hyphen_values = true)]
    pub trials: Option<u64>,

    /// Write the CSV `trial,step,eps,y1..yn` here (atomically) instead of
    /// stdout. An existing FILE is refused without --force.
    #[arg(long)]
    pub out: Option<PathBuf>,

    /// Replace --out if it exists (--state is always updated in place: it
    /// is the state resumed).
    #[arg(long)]
    pub force: bool,

    /// JSON state file to resume from and save to: earlier answers are kept
    /// and never change. Created when missing. Not with --trials > 1.
    #[arg(long)]
    pub state: Option<PathBuf>,

    /// Noise: laplace (f64; simulations) | gaussian (Brownian motion indexed by variance,
    /// (ε, δ)-DP in ℓ2) | discrete (exact integers on a grid: floating-point safe, see
    /// docs/releases.md; each level answered at its rung, the largest ≤ ε) [default: laplace]
    #[arg(long, value_name = "KIND")]
    pub noise: Option<NoiseName>,

    /// Grid γ of --noise discrete, a power of two (2^-10 or 0.0009765625) [default: 2^-10]
    #[arg(long, value_name = "G")]
    pub granularity: Option<Grid>,

    /// Levels per doubling of the --noise discrete ladder (1 to 1024) [default: 32]
    #[arg(long, value_name = "M")]
    pub levels_per_doubling: Option<u32>,

    /// Entropy of --noise discrete: seeded (reproducible) | os (releases; not
    /// reproducible) [default: seeded]
    #[arg(long, value_name = "SRC")]
    pub rng: Option<RngSource>,

    /// The fixed top of the --noise discrete chain: the path is drawn at its
    /// rung and walked down; a level above it is answered at the top.
    /// Recorded in --state. [default: 256]
    #[arg(long, value_name = "E", allow_hyphen_values = true)]
    pub eps_max: Option<f64>,
}

/// Runs `privdiffuse relax`.
pub fn run(args: RelaxArgs) -> anyhow::Result<()> {
    if args.state.is_some() && args.trials.is_some_and(|t| t > 1) {
        let t = args.trials.unwrap_or(1);
        return Err(Error::param("trials", t, "1 when --state is given").into());
    }
    // Locked from here until the new state is in place.
    let state = match &args.state {
        Some(p) => Some(StateFile::open(p)?),
        None => None,
    };
    let template = build_template(&args, state.as_ref())?;
    let run = ReleaseTrials::new(template, args.eps.clone()).trials(args.trials.unwrap_or(1));
    let out = write_releases(&run, args.out.as_deref(), args.force, state)?;
    if args.trials.is_some() {
        let table = accuracy_table(&out);
        if args.out.is_some() {
            print!("{table}");
        } else {
            eprint!("{table}");
        }
    } else {
        eprintln!("{}", accounting_line(out.accounting(), false));
    }
    Ok(())
}

/// The configured release: the one stored in `state`, checked against the
/// flags given, or a new one.
fn build_template(args: &RelaxArgs, state: Option<&StateFile>) -> Result<GradualRelease> {
    if let Some((path, g)) = state.and_then(|s| Some((s.path(), s.release()?.clone()))) {
        let conflict = |flag: &str, given: String, stored: String| {
            Error::param(
                flag,
                given,
                format!(
                    "the value stored in {} ({stored}), or omit it",
                    path.display()
                ),
            )
        };
        if let Some(v) = &args.value
            && v.as_slice() != g.value()
        {
            // The secret: neither the stored nor the given value is shown.
            return Err(conflict("value", "(not shown)".into(), "not shown".into()));
        }
        if let Some(d) = args.dim
            && d != g.dim()
        {
            return Err(conflict("dim", d.to_string(), g.dim().to_string()));
        }
        if let Some(s) = args.seed
            && s != g.seed()
        {
            return Err(conflict("seed", s.to_string(), g.seed().to_string()));
        }
        if let Some(s) = args.sensitivity
            && s != g.sensitivity()
        {
            return Err(conflict(
                "sensitivity",
                s.to_string(),
                g.sensitivity().to_string(),
            ));
        }
        check_noise_flags(args, g.mechanism(), &conflict)?;
        let discrete = matches!(g.mechanism(), ReleaseNoise::Discrete { .. });
        if !discrete && args.family()?.is_some()
            || args.norm.is_some()
            || args.delta.is_some()
            || args.calibration.is_some()
        {
            let m = mechanism_from(args, Some(g.mechanism()))?;
            if m != g.mechanism() {
                return Err(conflict(
                    "mechanism",
                    m.to_string(),
                    g.mechanism().to_string(),
                ));
            }
        }
        return Ok(g);
    }
    let value = args.value.clone().ok_or_else(|| {
        Error::param(
            "value",
            "(missing)",
            "--value U1[,U2,...] (required unless --state names an existing file)",
        )
    })?;
    if let Some(d) = args.dim
        && d != value.len()
    {
        return Err(Error::param(
            "dim",
            d,
            format!("the number of values given to --value ({})", value.len()),
        ));
    }
    let mech = match noise_from(args, None)? {
        Some(discrete) => {
            refuse_with_discrete(args)?;
            discrete
        }
        None => mechanism_from(args, None)?,
    };
    if let ReleaseNoise::Discrete { .. } = mech {
        // ℓ2 in n ≥ 2 has no discrete form (in 1-D it is ℓ1).
        if args.norm == Some(Norm::L2) && value.len() >= 2 {
            return Err(Error::param(
                "norm",
                "l2",
                "l1 with --noise discrete and --dim ≥ 2 (the discrete chain has independent \
                 integer coordinates; use --norm l1)",
            ));
        }
    }
    GradualRelease::new(
        value,
        mech,
        args.sensitivity.unwrap_or(1.0),
        args.seed.unwrap_or(1),
    )
}

/// The discrete mechanism named by --noise and its options (unset ones from
/// `stored`'s, when resuming a discrete state, or the defaults); `None` for
/// laplace, whose discrete options must be unset.
fn noise_from(args: &RelaxArgs, stored: Option<ReleaseNoise>) -> Result<Option<ReleaseNoise>> {
    let (g0, m0, e0, r0, stored_kind) = match stored {
        Some(ReleaseNoise::Discrete {
            granularity,
            levels_per_doubling,
            eps_max,
            rng,
        }) => (
            granularity,
            levels_per_doubling,
            eps_max,
            rng,
            NoiseKind::Discrete,
        ),
        _ => {
            let d = NoiseOptions::default();
            (
                d.granularity,
                d.levels_per_doubling,
                DEFAULT_EPS_MAX,
                d.rng,
                NoiseKind::Laplace,
            )
        }
    };
    let options = NoiseOptions {
        noise: args.noise_kind().unwrap_or(stored_kind),
        granularity: args.granularity.unwrap_or(g0),
        levels_per_doubling: args.levels_per_doubling.unwrap_or(m0),
        rng: args.rng.unwrap_or(r0),
    };
    if options.noise == NoiseKind::Laplace {
        // The checks of the other commands: discrete options need --noise discrete.
        crate::process::release::refuse_discrete_options(&options, args.eps_max)?;
        return Ok(None);
    }
    let m = ReleaseNoise::Discrete {
        granularity: options.granularity,
        levels_per_doubling: options.levels_per_doubling,
        eps_max: args.eps_max.unwrap_or(e0),
        rng: options.rng,
    };
    m.validate()?;
    Ok(Some(m))
}

/// The Laplace-only flags refused under --noise discrete, naming the fix.
fn refuse_with_discrete(args: &RelaxArgs) -> Result<()> {
    if args.mechanism == Some(MechanismArg::Gaussian) {
        return Err(crate::process::discrete::options::refuse_gaussian(
            "mechanism",
            "gaussian",
            "laplace",
        ));
    }

    if let Some(d) = args.delta {
        return Err(Error::param("delta", d, "no --delta with --noise discrete"));
    }
    if let Some(c) = args.calibration {
        return Err(Error::param(
            "calibration",
            c,
            "no --calibration with --noise discrete",
        ));
    }
    Ok(())
}

/// On a stored state: every discrete setting given must be the stored one
/// (`conflict` names the key, the value given and the one stored).
fn check_noise_flags(
    args: &RelaxArgs,
    stored: ReleaseNoise,
    conflict: &dyn Fn(&str, String, String) -> Error,
) -> Result<()> {
    let stored_name = match stored {
        ReleaseNoise::Discrete { .. } => NoiseName::Discrete,
        ReleaseNoise::Gaussian { .. } => NoiseName::Gaussian,
        ReleaseNoise::Laplace { .. } => NoiseName::Laplace,
    };
    if let Some(n) = args.noise
        && n != stored_name
    {
        return Err(conflict("noise", n.to_string(), stored_name.to_string()));
    }
    let (kind, g, m, e, r) = match stored {
        ReleaseNoise::Discrete {
            granularity,
            levels_per_doubling,
            eps_max,
            rng,
        } => (
            NoiseKind::Discrete,
            Some(granularity),
            Some(levels_per_doubling),
            Some(eps_max),
            Some(rng),
        ),
        _ => (NoiseKind::Laplace, None, None, None, None),
    };
    let stored_or_default = |s: Option<String>| s.unwrap_or_else(|| "none: laplace".into());
    if let Some(x) = args.granularity
        && Some(x) != g
    {
        return Err(conflict(
            "granularity",
            x.to_string(),
            stored_or_default(g.map(|v| v.to_string())),
        ));
    }
    if let Some(x) = args.levels_per_doubling
        && Some(x) != m
    {
        return Err(conflict(
            "levels_per_doubling",
            x.to_string(),
            stored_or_default(m.map(|v| v.to_string())),
        ));
    }
    if let Some(x) = args.eps_max
        && Some(x) != e
    {
        return Err(conflict(
            "eps_max",
            crate::util::fmt_f64(x),
            stored_or_default(e.map(crate::util::fmt_f64)),
        ));
    }
    if let Some(x) = args.rng
        && Some(x) != r
    {
        return Err(conflict(
            "rng",
            x.to_string(),
            stored_or_default(r.map(|v| v.to_string())),
        ));
    }
    if kind == NoiseKind::Discrete {
        refuse_with_discrete(args)?;
    }
    Ok(())
}

/// The mechanism named by the flags; unset flags fall back to `stored`'s
/// settings (when resuming) or to the defaults.
fn mechanism_from(args: &RelaxArgs, stored: Option<ReleaseNoise>) -> Result<ReleaseNoise> {
    let stored_family = match stored {
        Some(ReleaseNoise::Gaussian { .. }) => Family::Gaussian,
        _ => Family::Laplace,
    };
    match args.family()?.unwrap_or(stored_family) {
        Family::Laplace => {
            if let Some(d) = args.delta {
                return Err(Error::param("delta", d, "no --delta with --noise laplace"));
            }
            if let Some(c) = args.calibration {
                return Err(Error::param(
                    "calibration",
                    c,
                    "no --calibration with --noise laplace",
                ));
            }
            let default_norm = match stored {
                Some(ReleaseNoise::Laplace { norm }) => norm,
                _ => Norm::L1,
            };
            Ok(ReleaseNoise::Laplace {
                norm: args.norm.unwrap_or(default_norm),
            })
        }
        Family::Gaussian => {
            let (d0, c0) = match stored {
                Some(ReleaseNoise::Gaussian { delta, calibration }) => (delta, calibration),
                _ => (1e-5, Calibration::Analytic),
            };
            if args.norm == Some(Norm::L1) {
                return Err(Error::param(
                    "norm",
                    "l1",
                    "l2 (the Gaussian mechanism is calibrated to ℓ2 sensitivity)",
                ));
            }
            let m = ReleaseNoise::Gaussian {
                delta: args.delta.unwrap_or(d0),
                calibration: args.calibration.unwrap_or(c0),
            };
            m.validate()?;
            Ok(m)
        }
    }
}

/// One level of `--eps`: a finite number > 0, refused as typed.
fn level(s: &str) -> Result<f64> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|e| e.is_finite() && *e > 0.0)
        .ok_or_else(|| crate::release::level_refusal(s))
}

/// One coordinate of `--value`: a finite number. The secret is never shown,
/// not even when it does not parse (clap's own message quotes the text).
fn secret_number(s: &str) -> Result<f64> {
    s.trim()
        .parse::<f64>()
        .ok()
        .filter(|x| x.is_finite())
        .ok_or_else(|| {
            Error::param(
                "value",
                "(not shown)",
                "finite numbers, comma-separated (the value is not shown)",
            )
        })
}
