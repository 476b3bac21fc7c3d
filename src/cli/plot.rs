//! `privdiffuse plot`: draws one figure from a run directory (or a CSV file)
//! to PNG or SVG.

use crate::io::plot::{self, Kind, PlotOptions};
use crate::util::Existing;
use std::path::PathBuf;

/// Figure kinds on the command line.
#[derive(Clone, Copy, Debug, PartialEq, Eq, clap::ValueEnum)]
pub enum KindArg {
    /// (a) answer error against distance for up to 4 owners, markers at jumps;
    /// (b) histogram of jump distances with the theoretical count per bin.
    /// Reads paths.csv, jumps.csv, owners.csv (+ summary.json).
    Jumps,
    /// One owner at the centre, recipients at radius = distance coloured by
    /// error, circles at the path's jumps. Reads ego.csv, jumps.csv, owners.csv.
    Ego,
    /// Empirical RMSE per distance with 95% intervals against theory, per
    /// mechanism, log y. Reads by_distance.csv.
    Error,
    /// Coalition gain per estimator, one panel per mechanism, log y, line at
    /// gain = 1. Reads coalition.csv.
    Coalition,
    /// Sample paths against ε (log x), y = arctan(V). Reads a `privdiffuse
    /// path` CSV (--input FILE) or paths.csv of a run directory.
    Path,
    /// A finished sweep CSV (--input FILE.csv): --metric against --x, mean
    /// over seeds with a 95% band (--per-seed: one line per seed), one line
    /// per combination of the columns that vary after --only (at most 12).
    Sweep,
}

impl KindArg {
    /// The run figure this kind draws (None: the sweep figure).
    fn kind(self) -> Option<Kind> {
        match self {
            KindArg::Jumps => Some(Kind::Jumps),
            KindArg::Ego => Some(Kind::Ego),
            KindArg::Error => Some(Kind::Error),
            KindArg::Coalition => Some(Kind::Coalition),
            KindArg::Path => Some(Kind::Path),
            KindArg::Sweep => None,
        }
    }
}

/// Draw a figure (PNG or SVG) from the output of `simulate`, `collude` or `path`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  privdiffuse plot --input runs/geometric150 --kind jumps
  privdiffuse plot --input runs/geometric150 --kind error --out error.svg
  privdiffuse plot --input runs/geometric150 --kind ego --width 1600 --height 1000
  privdiffuse path --dim 1 --norm l1 --eps-lo 0.1 --eps-hi 100 --samples 5 --out p.csv
  privdiffuse plot --input p.csv --kind path          # writes p_path.png
  privdiffuse plot --input results/thesis/coalition_size.csv --kind sweep --x m --metric gain_median --log-x --out runs/coalition_size.png")]
pub struct PlotArgs {
    /// Run directory written by `simulate`/`collude`, or a CSV file (a `path`
    /// CSV for --kind path; by_distance.csv / coalition.csv also work directly).
    #[arg(long, value_name = "DIR|FILE")]
    pub input: PathBuf,
    /// Which figure to draw.
    #[arg(long, value_enum)]
    pub kind: KindArg,
    /// Output file; the format follows the extension (.png or .svg). An
    /// existing file is refused without --force. Default: DIR/<kind>.png, or
    /// <FILE stem>_<kind>.png beside a FILE input (replaced if it exists).
    #[arg(long, value_name = "FILE.png|FILE.svg")]
    pub out: Option<PathBuf>,
    /// Replace --out if it exists.
    #[arg(long)]
    pub force: bool,
    /// Owner id (original node id). jumps: draw only this owner's path (it
    /// must be in paths.csv); ego: the owner ego.csv describes (default: the
    /// first owner).
    #[arg(long, value_name = "ID")]
    pub owner: Option<String>,
    /// ego: draw the real edges among the members faintly (from the graph
    /// and view that summary.json records; a relative graph path that does
    /// not exist from the current directory is looked up from the run
    /// directory and each directory above it, so a committed run draws from
    /// anywhere).
    #[arg(long)]
    pub edges: bool,
    /// Width in pixels.
    #[arg(long, value_name = "W", default_value_t = plot::DEFAULT_SIZE.0)]
    pub width: u32,
    /// Height in pixels.
    #[arg(long, value_name = "H", default_value_t = plot::DEFAULT_SIZE.1)]
    pub height: u32,
    /// sweep: the key column on the x axis [default: the first numeric key
    /// column that varies, other than seed]
    #[arg(long, value_name = "KEY")]
    pub x: Option<String>,
    /// sweep: metric(s), one panel each, comma-separated [default: gain_median
    /// when the sweep has collusion rows, else mse]
    #[arg(long, value_name = "M")]
    pub metric: Option<String>,
    /// sweep: only rows whose COLUMN is VALUE (repeatable)
    #[arg(long, value_name = "COLUMN=VALUE")]
    pub only: Vec<String>,
    /// sweep: only distance buckets containing these distances (e.g. 1,2,3)
    #[arg(long, value_name = "D,..", allow_hyphen_values = true)]
    pub at_distance: Option<String>,
    /// sweep: logarithmic x axis
    #[arg(long)]
    pub log_x: bool,
    /// sweep: one line per seed instead of their mean and 95% band
    #[arg(long)]
    pub per_seed: bool,
}

/// Runs `privdiffuse plot`.
pub fn run(args: PlotArgs) -> anyhow::Result<()> {
    let existing = Existing::for_out(args.out.is_some(), args.force);
    let Some(kind) = args.kind.kind() else {
        return sweep(args, existing);
    };
    let out = args
        .out
        .unwrap_or_else(|| plot::default_output(kind, &args.input));
    let opts = PlotOptions {
        width: args.width,
        height: args.height,
        owner: args.owner,
        edges: args.edges,
    };
    plot::draw_with(kind, &args.input, &out, &opts, existing)?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// `plot --kind sweep`.
#[cfg(feature = "plots")]
fn sweep(args: PlotArgs, existing: Existing) -> anyhow::Result<()> {
    use crate::Error;
    use crate::io::PlotSpec;
    use crate::sweep::metrics::canonical_metric;
    let only = args
        .only
        .iter()
        .map(|o| {
            o.split_once('=')
                .map(|(c, v)| (c.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| Error::param("--only", o, "COLUMN=VALUE"))
        })
        .collect::<Result<Vec<_>, Error>>()?;
    let at = match &args.at_distance {
        Some(s) => s
            .split(',')
            .map(|t| {
                t.trim()
                    .parse::<f64>()
                    .map_err(|_| Error::param("--at-distance", t, "a list of numbers"))
            })
            .collect::<Result<Vec<f64>, Error>>()?,
        None => Vec::new(),
    };
    let metric = match &args.metric {
        Some(m) => m.clone(),
        None => {
            let t = crate::io::sweep_summary::SweepTable::read_drawable(
                &args.input,
                Some(crate::io::figure_input::MAX_ROWS),
            )?;
            if t.rows.iter().any(|(_, r)| r.metric == "gain_median") {
                "gain_median".into()
            } else {
                "mse".into()
            }
        }
    };
    let spec = PlotSpec {
        x: args.x.clone().unwrap_or_default(),
        metrics: metric
            .split(',')
            .map(|m| canonical_metric(m.trim()).to_string())
            .filter(|m| !m.is_empty())
            .collect(),
        at,
        only,
        log_x: args.log_x,
        per_seed: args.per_seed,
    };
    let out = args.out.clone().unwrap_or_else(|| {
        let stem = args
            .input
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "sweep".into());
        args.input.with_file_name(format!("{stem}_sweep.png"))
    });
    let size = (args.width != plot::DEFAULT_SIZE.0 || args.height != plot::DEFAULT_SIZE.1)
        .then_some((args.width, args.height));
    crate::io::plot::sweep::draw_sweep_to(&args.input, &spec, &out, size, existing)?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// Without the `plots` feature there is no figure.
#[cfg(not(feature = "plots"))]
fn sweep(_args: PlotArgs, _existing: Existing) -> anyhow::Result<()> {
    crate::io::check_plots_available()?;
    Ok(())
}
