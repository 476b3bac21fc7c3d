//! `privdiffuse path`: parses the flags into a [`PathSamples`] run (the
//! library's engine: sample `k` drawn from `rng_for(seed, k, 0,
//! Purpose::Path)`) and writes it with [`crate::io::paths::write_paths`]
//! (the CSV `sample,eps,v1..vn` and, beside a file, its sidecar).

use crate::Error;
use crate::PathSamples;
use crate::process::discrete::{Grid, NoiseKind, NoiseOptions, RngSource};
use crate::process::{Norm, PathSampler};
use std::path::PathBuf;

/// Sample paths of the lazy Laplace process {V_ε} (CSV to stdout or --out).
///
/// V_ε has the optimal noise at every privacy level ε (Laplace with scale 1/ε,
/// or density ∝ e^{−ε‖v‖} in n dimensions) and changes only at the random
/// levels where it jumps, so the noise at a lower ε is the noise at a higher ε
/// plus independent extra noise. Each sample is one exact path on
/// [eps-lo, eps-hi], drawn from the top level downwards with no discretisation.
///
/// Output: `sample,eps,v1,...,vn`. Without --at, one row per breakpoint in
/// ascending ε (the first at eps-lo); a row's value holds from its ε up to the
/// next row's ε (the last row's up to eps-hi). With --at, one row per sample and
/// requested level, in the order given; levels between which the path did not
/// jump give bit-identical values.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example (three 1-D paths, each read at ε = 0.5, 1 and 15):\n  \
    privdiffuse path --dim 1 --norm l1 --eps-lo 0.5 --eps-hi 15 --samples 3 --at 0.5,1,15"
)]
pub struct PathArgs {
    /// Dimension n of the noise vector (integer ≥ 1).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub dim: String,

    /// Norm of the privacy metric: `l1` (n independent 1-D processes) or `l2`
    /// (density ∝ e^{−ε‖v‖₂}).
    #[arg(long, value_name = "l1|l2")]
    pub norm: String,

    /// Lowest privacy level of the path (finite, > 0).
    #[arg(long = "eps-lo", value_name = "A", allow_negative_numbers = true)]
    pub eps_lo: String,

    /// Highest privacy level of the path (finite, ≥ eps-lo).
    #[arg(long = "eps-hi", value_name = "B", allow_negative_numbers = true)]
    pub eps_hi: String,

    /// Number of independent paths (integer ≥ 1); sample k uses generator
    /// (seed, owner = k).
    #[arg(
        long,
        value_name = "K",
        default_value = "1",
        allow_negative_numbers = true
    )]
    pub samples: String,

    /// Comma-separated levels to print instead of the breakpoints, each in
    /// [eps-lo, eps-hi], e.g. `0.5,1,15`.
    #[arg(long, value_name = "E1,E2,...", allow_hyphen_values = true)]
    pub at: Option<String>,

    /// Seed of the random generators (unsigned 64-bit integer).
    #[arg(
        long,
        value_name = "S",
        default_value = "1",
        allow_negative_numbers = true
    )]
    pub seed: String,

    /// Output CSV file (written atomically; an existing FILE is refused
    /// without --force); default or `-`: standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Replace --out if it exists.
    #[arg(long)]
    pub force: bool,

    /// Noise: laplace (f64) | discrete (the exact integer chain on a grid, sensitivity 1: rows
    /// at the ladder's rungs, the first at the rung of --eps-lo; values grid multiples)
    /// [default: laplace]
    #[arg(long, value_name = "KIND")]
    pub noise: Option<NoiseKind>,
    /// Grid γ of --noise discrete, a power of two (2^-10 or 0.0009765625) [default: 2^-10]
    #[arg(long, value_name = "G")]
    pub granularity: Option<Grid>,
    /// Levels per doubling of the --noise discrete ladder (1 to 1024) [default: 32]
    #[arg(long, value_name = "M")]
    pub levels_per_doubling: Option<u32>,
    /// Entropy of --noise discrete: seeded (reproducible) | os (not reproducible)
    /// [default: seeded]
    #[arg(long, value_name = "SRC")]
    pub rng: Option<RngSource>,
}

fn parse_level(name: &str, text: &str) -> crate::Result<f64> {
    use crate::limits::{LEVEL_MAX, LEVEL_MIN};
    match text.trim().parse::<f64>() {
        Ok(x) if (LEVEL_MIN..=LEVEL_MAX).contains(&x) => Ok(x),
        Ok(x) if x.is_finite() && x > 0.0 => Err(Error::param(
            name,
            text,
            format!(
                "a level within [{LEVEL_MIN:e}, {LEVEL_MAX:e}] (beyond, the noise overflows or \
                 vanishes)"
            ),
        )),
        _ => Err(Error::param(name, text, "a finite number > 0")),
    }
}

fn parse_count(name: &str, text: &str) -> crate::Result<u64> {
    match text.trim().parse::<u64>() {
        Ok(k) if k >= 1 => Ok(k),
        _ => Err(Error::param(name, text, "an integer ≥ 1")),
    }
}

/// The run the flags describe. Texts are parsed here (errors name the flag
/// and quote the text); the engine checks the rest (`samples`, `at` within
/// the range, memory), in the library's words that the command line
/// rewrites into its flags.
fn run_from_args(a: &PathArgs) -> crate::Result<PathSamples> {
    let dim = parse_count("--dim", &a.dim)?;
    let dim =
        usize::try_from(dim).map_err(|_| Error::param("--dim", &a.dim, "a smaller integer"))?;
    crate::process::check_dim("--dim", dim)?;
    let norm: Norm = a
        .norm
        .parse()
        .map_err(|_| Error::param("--norm", &a.norm, "l1 or l2"))?;
    let eps_lo = parse_level("--eps-lo", &a.eps_lo)?;
    let eps_hi = parse_level("--eps-hi", &a.eps_hi)?;
    if eps_lo > eps_hi {
        return Err(Error::param(
            "--eps-lo",
            &a.eps_lo,
            format!("a level ≤ --eps-hi ({})", a.eps_hi.trim()),
        ));
    }
    let samples = parse_count("--samples", &a.samples)?;
    let seed = a
        .seed
        .trim()
        .parse::<u64>()
        .map_err(|_| Error::param("--seed", &a.seed, "an unsigned 64-bit integer"))?;
    let mut run = PathSamples::new(PathSampler::new(dim, norm, eps_lo, eps_hi)?)
        .samples(samples)
        .seed(seed);
    if let Some(list) = &a.at {
        let mut levels = Vec::new();
        for item in list.split(',') {
            let x = parse_level("--at", item).map_err(|_| {
                Error::param(
                    "--at",
                    list,
                    format!(
                        "comma-separated finite levels in [{eps_lo}, {eps_hi}] (bad item '{}')",
                        item.trim()
                    ),
                )
            })?;
            levels.push(x);
        }
        run = run.at(levels);
    }
    let d = NoiseOptions::default();
    let options = NoiseOptions {
        noise: a.noise.unwrap_or(d.noise),
        granularity: a.granularity.unwrap_or(d.granularity),
        levels_per_doubling: a.levels_per_doubling.unwrap_or(d.levels_per_doubling),
        rng: a.rng.unwrap_or(d.rng),
    };
    run = run.noise(&options)?;
    run.validate()?;
    Ok(run)
}

/// Runs `privdiffuse path`.
pub fn run(args: PathArgs) -> anyhow::Result<()> {
    let run = run_from_args(&args)?;
    crate::io::paths::write_paths(&run, args.out.as_deref(), args.force)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(dim: &str, norm: &str, lo: &str, hi: &str, at: Option<&str>) -> PathArgs {
        PathArgs {
            dim: dim.into(),
            norm: norm.into(),
            eps_lo: lo.into(),
            eps_hi: hi.into(),
            samples: "2".into(),
            at: at.map(Into::into),
            seed: "1".into(),
            out: None,
            force: false,
            noise: None,
            granularity: None,
            levels_per_doubling: None,
            rng: None,
        }
    }

    fn err_name(a: PathArgs) -> String {
        match run_from_args(&a) {
            Err(Error::Parameter { name, .. }) => name,
            other => panic!("expected a parameter error, got {other:?}"),
        }
    }

    #[test]
    fn validation_names_the_flag() {
        assert_eq!(err_name(args("0", "l1", "1", "2", None)), "--dim");
        assert_eq!(err_name(args("x", "l1", "1", "2", None)), "--dim");
        assert_eq!(err_name(args("1", "l3", "1", "2", None)), "--norm");
        assert_eq!(err_name(args("1", "l1", "0", "2", None)), "--eps-lo");
        assert_eq!(err_name(args("1", "l1", "NaN", "2", None)), "--eps-lo");
        assert_eq!(err_name(args("1", "l1", "1", "inf", None)), "--eps-hi");
        assert_eq!(err_name(args("1", "l1", "3", "2", None)), "--eps-lo");
        assert_eq!(err_name(args("1", "l1", "1", "2", Some("1,,2"))), "--at");
        // In the library's words (`at`), rewritten to --at by the command line.
        assert_eq!(err_name(args("1", "l1", "1", "2", Some("3"))), "at");
        let ok = run_from_args(&args("2", "L2", "0.5", "15", Some("15,0.5"))).unwrap();
        assert_eq!(ok.levels(), Some(&[15.0, 0.5][..]));
    }
}
