//! `privdiffuse relax`: release one secret at privacy levels given in any order
//! (gradual release, memo §3), optionally over many trials with an accuracy
//! table against the single-release optimum and the composition baseline.

use super::Output;
use privdiffuse::process::{Calibration, GradualRelease, Norm, ReleaseNoise};
use privdiffuse::rng::{Purpose, rng_for};
use privdiffuse::util::{Existing, write_f64};
use privdiffuse::{Error, Result};
use std::io::Write;
use std::path::PathBuf;

/// Noise family on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum MechanismArg {
    /// Lazy Laplace process (ε-DP in the chosen --norm).
    Laplace,
    /// Brownian motion indexed by variance ((ε, δ)-DP in ℓ2).
    Gaussian,
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
    #[arg(long, value_delimiter = ',', allow_hyphen_values = true)]
    pub value: Option<Vec<f64>>,

    /// Privacy levels ε > 0 to release, in request order (any order), e.g.
    /// `--eps 0.5,1,2,4` (relaxing) or `--eps 4,1,2` (mixed).
    #[arg(
        long,
        value_delimiter = ',',
        required = true,
        allow_hyphen_values = true
    )]
    pub eps: Vec<f64>,

    /// Dimension n; must equal the number of values (a consistency check).
    #[arg(long)]
    pub dim: Option<usize>,

    /// Privacy metric of the Laplace process: l1 (independent coordinates,
    /// optimal MSE 2n/ε²) or l2 (optimal MSE n(n+1)/ε²). [default: l1]
    #[arg(long)]
    pub norm: Option<Norm>,

    /// Noise family. [default: laplace]
    #[arg(long, value_enum)]
    pub mechanism: Option<MechanismArg>,

    /// δ of the Gaussian mechanism, in (0, 1), the same at every level.
    /// Only with --mechanism gaussian. [default: 1e-5]
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
}

/// A per-level accumulator of squared errors.
#[derive(Clone, Copy, Default)]
struct Acc {
    lazy: f64,
    comp: f64,
}

/// Runs `privdiffuse relax`.
pub fn run(args: RelaxArgs) -> anyhow::Result<()> {
    for &e in &args.eps {
        if !(e.is_finite() && e > 0.0) {
            return Err(Error::param("eps", e, "finite numbers > 0, e.g. 0.5,1,2").into());
        }
    }
    let resumed = args.state.as_ref().is_some_and(|p| p.exists());
    let trials = args.trials.unwrap_or(1);
    // The cap of `collude --trials` (limits.rs): each trial writes a row
    // per level, so 2⁶³ trials would run (and fill the disk) forever.
    let max = privdiffuse::collusion::run::MAX_TRIALS as u64;
    if trials == 0 || trials > max {
        return Err(Error::param("trials", trials, format!("an integer from 1 to {max}")).into());
    }
    if args.state.is_some() && trials > 1 {
        return Err(Error::param("trials", trials, "1 when --state is given").into());
    }
    let (template, first_step) = build_template(&args)?;
    let n = template.dim();
    let u = template.value().to_vec();
    let sens = template.sensitivity();
    let mech = template.mechanism();
    let seed = template.seed();
    let m = args.eps.len();

    // Composition baseline: only for strictly increasing requests.
    let increasing = args.eps.windows(2).all(|w| w[0] < w[1]) && first_step == 0;
    let comp_mech = match mech {
        ReleaseNoise::Gaussian { delta, calibration } => ReleaseNoise::Gaussian {
            delta: delta / m as f64,
            calibration,
        },
        other => other,
    };
    let mut comp_mse = Vec::with_capacity(m);
    if increasing {
        let mut prev = 0.0;
        for &e in &args.eps {
            comp_mse.push(comp_mech.single_release_mse(e - prev, n, sens)?);
            prev = e;
        }
    }

    // Every level checked (one throw-away release of each) before the header
    // goes out, so a refused level leaves no partial CSV behind.
    let mut probe = template.clone();
    for &e in &args.eps {
        probe.release(e)?;
    }

    let mut out = Output::open(args.out.as_deref(), args.force)?;
    let out_name = args
        .out
        .as_ref()
        .map_or("<stdout>".to_string(), |p| p.display().to_string());
    let io_err = |e: std::io::Error| Error::io(&out_name, e);
    let mut line = String::from("trial,step,eps");
    for i in 1..=n {
        line.push_str(&format!(",y{i}"));
    }
    line.push('\n');
    out.write_all(line.as_bytes()).map_err(io_err)?;

    let mut acc = vec![Acc::default(); m];
    let mut last = None;
    let mut fresh = vec![0.0; n];
    let mut comb = vec![0.0; n];
    for t in 0..trials {
        let mut g = template.clone();
        if args.state.is_none() {
            g = g.with_stream(t);
        }
        let mut wsum = 0.0;
        comb.iter_mut().for_each(|x| *x = 0.0);
        for (i, &e) in args.eps.iter().enumerate() {
            let y = g.release(e)?;
            line.clear();
            line.push_str(&format!("{t},{},", first_step + i));
            write_f64(&mut line, e);
            for &x in &y {
                line.push(',');
                write_f64(&mut line, x);
            }
            line.push('\n');
            out.write_all(line.as_bytes()).map_err(io_err)?;
            acc[i].lazy += y
                .iter()
                .zip(&u)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>();
            if increasing {
                // Fresh noise with budget ε_i − ε_{i−1}, inverse-variance weights.
                let budget = e - if i == 0 { 0.0 } else { args.eps[i - 1] };
                let mut rng = rng_for(seed, t, i as u64, Purpose::Independent);
                comp_mech.fresh_noise(budget, sens, &mut fresh, &mut rng)?;
                let w = 1.0 / comp_mse[i];
                wsum += w;
                for (c, z) in comb.iter_mut().zip(&fresh) {
                    *c += w * z;
                }
                acc[i].comp += comb.iter().map(|c| (c / wsum) * (c / wsum)).sum::<f64>();
            }
        }
        last = Some(g);
    }
    if let (Some(path), Some(g)) = (&args.state, &last) {
        // The state resumed is updated; a new one must still be new.
        let existing = if resumed {
            Existing::Replace
        } else {
            Existing::Refuse
        };
        privdiffuse::io::save_release_with(g, path, existing)?;
    }

    if args.trials.is_some() {
        let mut table = String::new();
        table.push_str(&format!(
            "# gradual release: {mech}, n = {n}, sensitivity {sens}, {trials} trials, seed {seed}\n"
        ));
        table.push_str(&format!(
            "{:>4} {:>8} {:>12} {:>12} {:>7} {:>12} {:>12} {:>10}\n",
            "step", "eps", "mse", "optimum", "ratio", "comp_mse", "comp_theory", "comp_ratio"
        ));
        let tf = trials as f64;
        let mut inv_sum = 0.0;
        for (i, &e) in args.eps.iter().enumerate() {
            let opt = mech.single_release_mse(e, n, sens)?;
            let lazy = acc[i].lazy / tf;
            table.push_str(&format!(
                "{:>4} {:>8} {:>12.6} {:>12.6} {:>7.4}",
                first_step + i,
                e,
                lazy,
                opt,
                lazy / opt
            ));
            if increasing {
                inv_sum += 1.0 / comp_mse[i];
                let comp = acc[i].comp / tf;
                table.push_str(&format!(
                    " {:>12.6} {:>12.6} {:>10.4}\n",
                    comp,
                    1.0 / inv_sum,
                    comp / opt
                ));
            } else {
                table.push_str(&format!(" {:>12} {:>12} {:>10}\n", "-", "-", "-"));
            }
        }
        table.push_str(
            "# mse: mean ‖y − u‖² of the lazy release; optimum: a single release at that ε; \
comp: fresh noise with ε_i − ε_(i−1) per step, inverse-variance weighted",
        );
        if let ReleaseNoise::Gaussian { .. } = mech {
            table.push_str(&format!(" (δ/{m} per step)"));
        }
        table.push('\n');
        if !increasing {
            table.push_str("# composition baseline shown only for strictly increasing --eps\n");
        }
        if args.out.is_some() {
            print!("{table}");
        } else {
            eprint!("{table}");
        }
    }
    out.finish()?;
    Ok(())
}

/// Builds the configured (possibly resumed) release and the index of its
/// next request.
fn build_template(args: &RelaxArgs) -> Result<(GradualRelease, usize)> {
    if let Some(path) = args.state.as_ref().filter(|p| p.exists()) {
        let g = GradualRelease::load(path)?;
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
            return Err(conflict("value", fmt_list(v), fmt_list(g.value())));
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
        if args.mechanism.is_some()
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
        let next = g.history().len();
        return Ok((g, next));
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
    let mech = mechanism_from(args, None)?;
    let g = GradualRelease::new(
        value,
        mech,
        args.sensitivity.unwrap_or(1.0),
        args.seed.unwrap_or(1),
    )?;
    Ok((g, 0))
}

/// The mechanism named by the flags; unset flags fall back to `stored`'s
/// settings (when resuming) or to the defaults.
fn mechanism_from(args: &RelaxArgs, stored: Option<ReleaseNoise>) -> Result<ReleaseNoise> {
    let stored_kind = match stored {
        Some(ReleaseNoise::Gaussian { .. }) => MechanismArg::Gaussian,
        _ => MechanismArg::Laplace,
    };
    match args.mechanism.unwrap_or(stored_kind) {
        MechanismArg::Laplace => {
            if let Some(d) = args.delta {
                return Err(Error::param(
                    "delta",
                    d,
                    "no --delta with --mechanism laplace",
                ));
            }
            if let Some(c) = args.calibration {
                return Err(Error::param(
                    "calibration",
                    c,
                    "no --calibration with --mechanism laplace",
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
        MechanismArg::Gaussian => {
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

fn fmt_list(v: &[f64]) -> String {
    v.iter()
        .map(|x| privdiffuse::util::fmt_f64(*x))
        .collect::<Vec<_>>()
        .join(",")
}
