//! `privdiffuse sweep`: a grid of simulations (and collusion evaluations).

use crate::io::{SWEEP_DEFAULT_OUT as DEFAULT_OUT, SweepOptions, run_sweep};
use crate::sweep::Grid;
use std::path::PathBuf;

/// Run a grid of simulations and collusion runs into one long-format CSV and a figure
///
/// The sweep is the cartesian product of the --set lists (first key outermost,
/// the last one varies fastest). Keys are simulate's options (`eps`, `dim`,
/// `norm`, `distance`, `seed`, `owners`, `eps-min`, ... as in `simulate --help`,
/// `-` or `_` alike), distance options (`approx-k`, `resistance-cap`,
/// `approx-tol`, `distance-seed`) and collusion options (`coalition`,
/// `estimators`, `trials`, `composition-delta`; a coalition turns on the
/// gain/eps_max/eps_sum metrics). A list splits on `|` when it holds one
/// (specs with commas), otherwise on `,`; a single spec with commas ends in
/// `|` (values=uniform:0,1|) or goes in a [base] table; A..B is an inclusive
/// integer range.
/// Several coalitions per point: `;`-separated.
///
/// Templates: a key that is not an option (a plain name such as m) is a
/// template variable; its values fill {m} in other values, e.g.
/// --set m=2,5,10 --set 'coalition=random:m={m},min-d=2|' (3 points, a
/// numeric m column). A value holding a placeholder is never split on commas.
///
/// Defaults are the commands': simulate's, and collude's when a coalition is
/// set (20 sampled owners, every node on a smaller graph; 1000 trials; every
/// estimator). The figure's --x, --metric and --only are checked before the
/// first point; --dry-run prints each point's owners, answers and collusion
/// trials and the estimated time from a short calibration, and exits.
///
/// Output (FILE, default runs/sweep.csv): the grid keys, then one numeric
/// column KEY.PARAM per spec parameter that varies (eps.b, coalition.m), then
/// mechanism,estimator,coalition,metric,distance_lo,distance_hi,value with
/// metrics mse, mse_se, mse_theory (per distance bucket), mse_all(_theory),
/// jumps_per_path(_theory), and with a coalition gain_mean and gain_median
/// (the mean and the median over owners of MSE(best member)/MSE(estimator);
/// --metric gain means gain_mean), coalition_mse, eps_max, eps_sum,
/// coalition_size. STEM.summary.csv: the same keys without seed, then
/// mechanism,...,metric,distance_lo,distance_hi,mean,se,n over the seeds.
/// The figure (--plots, or later `plot --kind sweep --input FILE`): numeric
/// x as connected lines, the mean over seeds with a 95% band, a legend of
/// the columns that vary (at most 12 lines per panel: fix others with
/// --only). Side files are named after STEM, FILE without its
/// extension (runs/sweep): per-point seconds go to STEM.timings.csv. While
/// the sweep runs, each finished point's rows go to STEM.progress (CSV rows
/// and `#` lines); FILE appears only when every point is done, in grid order
/// (byte-identical for the same grid and seeds, any --threads), and
/// STEM.progress is then removed. An interrupted or failed sweep leaves
/// nothing but STEM.progress (when a point was done), for --resume.
///
/// An existing FILE (or STEM.timings.csv, STEM.summary.csv, STEM.png, STEM.svg, STEM.progress)
/// is refused without --force or --resume; the default FILE is replaced.
///
/// Examples:
///   privdiffuse sweep --set dim=1,2,5 --set seed=1..3 --out runs/dims.csv
///   privdiffuse sweep --set 'eps=exp:a=4,b=0.5|exp:a=4,b=1' --set distance=hop,resistance
///   privdiffuse sweep --config examples/sweeps/decay.toml --plots --x eps --at-distance 1,2,3
///   privdiffuse sweep --set m=2,5,10,20 --set 'coalition=random:m={m},min-d=2|' --set seed=1..5 \
///     --out runs/m.csv --plots --x m --metric gain_median --only estimator=pitman --dry-run
///   privdiffuse sweep --config examples/sweeps/dimension.toml --resume
///
/// A sweep file (TOML):
///   [base]                       # fixed options
///   graph = "data/geometric150.edges"
///   norm = "l2"
///   [grid]                       # lists (or strings split as in --set)
///   dim = [1, 2, 5, 20]
///   seed = "1..3"
#[derive(Debug, clap::Args)]
#[command(verbatim_doc_comment)]
pub struct SweepArgs {
    /// A grid axis KEY=V1,V2,... (repeatable), e.g. dim=1,2 or seed=1..5 or
    /// 'eps=exp:a=4,b=1|exp:a=4,b=3'
    #[arg(long = "set", value_name = "KEY=LIST")]
    set: Vec<String>,
    /// A sweep file with [base] (fixed options) and [grid] (lists) tables;
    /// --set adds axes after the file's
    #[arg(long, value_name = "FILE.toml")]
    config: Option<PathBuf>,
    /// Output CSV [default: runs/sweep.csv]
    #[arg(long, value_name = "FILE")]
    out: Option<PathBuf>,
    /// Replace FILE and its side files if they exist, and start afresh over
    /// an interrupted run's STEM.progress
    #[arg(long)]
    force: bool,
    /// Continue an interrupted run of the same grid: keep the complete points in
    /// STEM.progress (a point cut off mid-write is recomputed). Without a progress
    /// file (a finished FILE has none) the sweep is computed whole
    #[arg(long)]
    resume: bool,
    /// Worker threads [default: all cores]; results do not depend on it
    #[arg(long, value_name = "T")]
    threads: Option<usize>,
    /// Draw STEM.png and STEM.svg: --metric against --x, one line per
    /// combination of the other varying keys (and mechanism, bucket, ...)
    #[arg(long, requires = "x", overrides_with = "no_plots")]
    plots: bool,
    /// No figure (the default; as on every other command)
    #[arg(long)]
    no_plots: bool,
    /// The grid key on the figure's x axis
    #[arg(long, value_name = "KEY")]
    x: Option<String>,
    /// Metric(s) to draw, one panel each, comma-separated (e.g. mse,gain_median)
    #[arg(long, id = "metrics", value_name = "M", default_value = "mse")]
    metric: String,
    /// Logarithmic x axis (--plots)
    #[arg(long)]
    log_x: bool,
    /// One line per seed instead of their mean and 95% band (--plots)
    #[arg(long)]
    per_seed: bool,
    /// Print the points, what each computes and the estimated time (from a
    /// short calibration), then exit without running or writing anything
    #[arg(long)]
    dry_run: bool,
    /// Only distance buckets containing these distances (e.g. 1,2,3)
    #[arg(long, id = "at", value_name = "D,..", allow_hyphen_values = true)]
    at_distance: Option<String>,
    /// Only rows whose COLUMN is VALUE (repeatable; rows where the column is empty are kept),
    /// e.g. mechanism=correlated
    #[arg(long, value_name = "COLUMN=VALUE")]
    only: Vec<String>,
    /// No progress bar or summary
    #[arg(long, short)]
    quiet: bool,
}

/// Runs `privdiffuse sweep`.
pub fn run(args: SweepArgs) -> anyhow::Result<()> {
    let mut grid = match &args.config {
        Some(p) => Grid::from_toml(p)?,
        None => Grid::new(),
    };
    for s in &args.set {
        grid.add_set(s)?;
    }
    let plot = if args.plots {
        Some(super::common::sweep_plot_spec(
            args.x.as_deref(),
            Some(&args.metric),
            &args.only,
            args.at_distance.as_deref(),
            (args.log_x, args.per_seed),
        )?)
    } else {
        None
    };
    let opts = SweepOptions {
        out: args
            .out
            .clone()
            .unwrap_or_else(|| PathBuf::from(DEFAULT_OUT)),
        explicit_out: args.out.is_some(),
        force: args.force,
        resume: args.resume,
        control: super::progress::control(!args.quiet),
        plot,
        stop_after: None,
        dry_run: args.dry_run,
    };
    let report = super::common::with_threads(args.threads, || run_sweep(&grid, &opts))?;
    // The last clone of the progress control clears the screen before the summary.
    let out = opts.out.clone();
    drop(opts);
    if let Some(e) = &report.estimate {
        print_estimate(&grid, e);
        return Ok(());
    }
    if !args.quiet {
        eprintln!(
            "swept {} points ({} computed, {} resumed) in {:.2} s → {}",
            report.points,
            report.computed,
            report.reused,
            report.seconds,
            out.display()
        );
        for f in &report.figures {
            eprintln!("  figure {}", f.display());
        }
    }
    Ok(())
}

/// The dry run's table (stdout): one line per point, then the estimate.
fn print_estimate(grid: &Grid, e: &crate::sweep::Estimate) {
    use crate::util::num::short;
    let cols = grid.columns();
    println!(
        "point,{},run.owners,run.answers,run.trials,run.seconds",
        cols.join(",")
    );
    for p in &e.points {
        println!(
            "{},{},{},{},{},{}",
            p.index,
            p.values
                .iter()
                .map(|v| if v.contains(',') {
                    format!("\"{v}\"")
                } else {
                    v.clone()
                })
                .collect::<Vec<_>>()
                .join(","),
            p.owners,
            p.answers,
            p.trials,
            short(p.seconds)
        );
    }
    let trials: u64 = e.points.iter().map(|p| p.trials).sum();
    let answers: u64 = e.points.iter().map(|p| p.answers).sum();
    println!(
        "# {} points, {answers} answers, {trials} collusion trials; estimated {:.1} s on {} threads \
         (graphs and distances {:.2} s, calibration {:.2} s); nothing was run or written",
        e.points.len(),
        e.seconds,
        e.threads,
        e.prepare_seconds,
        e.calibration_seconds
    );
}
