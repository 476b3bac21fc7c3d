//! `privdiffuse plot`: draws one figure from a run directory (or a CSV file)
//! to PNG or SVG — any figure a command draws, the same bytes as the
//! command drew from the same files.

use crate::Error;
use crate::io::PlotSpec;
use crate::io::plot::{self, Kind, PlotOptions};
use crate::util::Existing;
use std::path::PathBuf;

/// Figure kinds on the command line: every figure a command draws.
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
    /// Sample paths against ε (log x), y = arctan(V). Reads a `privdiffuse
    /// path` CSV (--input FILE) or paths.csv of a run directory.
    Path,
    /// Coalition gain per estimator, one panel per mechanism, log y, line at
    /// gain = 1. Reads coalition.csv (collude).
    Coalition,
    /// A finished sweep CSV (--input FILE.csv): --metric against --x, mean
    /// over seeds with a 95% band (--per-seed: one line per seed), one line
    /// per combination of the columns that vary after --only (at most 12).
    Sweep,
    /// RMSE of the recipients' estimates of their network mean against
    /// degree, per scheme. Reads utility.csv (utility).
    Utility,
    /// Privacy learned relative to one's own against distance, per
    /// untrimmed fraction. Reads relay_by_distance.csv (relay).
    Relay,
    /// Privacy spent and error against batch for the three release
    /// policies. Reads timeline.csv (evolve).
    Timeline,
    /// Privacy loss against hop distance: the code's accounting, the exact
    /// loss and diffusion's Laplace matched. Reads privacy_by_distance.csv
    /// and two_schools.csv (gossip); default output DIR/privacy.png.
    Gossip,
}

impl KindArg {
    /// The figure this kind draws.
    fn kind(self) -> Kind {
        match self {
            KindArg::Jumps => Kind::Jumps,
            KindArg::Ego => Kind::Ego,
            KindArg::Error => Kind::Error,
            KindArg::Path => Kind::Path,
            KindArg::Coalition => Kind::Coalition,
            KindArg::Sweep => Kind::Sweep,
            KindArg::Utility => Kind::Utility,
            KindArg::Relay => Kind::Relay,
            KindArg::Timeline => Kind::Timeline,
            KindArg::Gossip => Kind::Gossip,
        }
    }
}

/// Draw any figure (PNG or SVG) again from the files a command wrote
/// (simulate, collude, path, sweep, utility, relay, evolve).
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  privdiffuse plot --input runs/geometric150 --kind jumps
  privdiffuse plot --input runs/geometric150 --kind error --out error.svg
  privdiffuse plot --input runs/geometric150 --kind ego --width 1600 --height 1000
  privdiffuse path --dim 1 --norm l1 --eps-lo 0.1 --eps-hi 100 --samples 5 --out p.csv
  privdiffuse plot --input p.csv --kind path          # writes p_path.png
  privdiffuse plot --input results/thesis/coalition_size.csv --kind sweep --x m --metric gain_median --log-x --out runs/coalition_size.png
  privdiffuse plot --input results/geometric150-utility --kind utility --out utility.svg")]
pub struct PlotArgs {
    /// Run directory written by a command, or a CSV file (a `path` CSV for
    /// --kind path, a sweep CSV for --kind sweep; by_distance.csv,
    /// coalition.csv, utility.csv, relay_by_distance.csv and timeline.csv
    /// also work directly).
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
    #[arg(long, id = "metrics", value_name = "M")]
    pub metric: Option<String>,
    /// sweep: only rows whose COLUMN is VALUE (repeatable)
    #[arg(long, value_name = "COLUMN=VALUE")]
    pub only: Vec<String>,
    /// sweep: only distance buckets containing these distances (e.g. 1,2,3)
    #[arg(long, id = "at", value_name = "D,..", allow_hyphen_values = true)]
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
    let kind = args.kind.kind();
    let out = args
        .out
        .clone()
        .unwrap_or_else(|| plot::default_output(kind, &args.input));
    let opts = PlotOptions {
        width: args.width,
        height: args.height,
        owner: args.owner.clone(),
        edges: args.edges,
        sweep: sweep_spec(&args)?,
    };
    plot::draw_with(kind, &args.input, &out, &opts, existing)?;
    eprintln!("wrote {}", out.display());
    Ok(())
}

/// What `--kind sweep` draws, from the sweep flags.
fn sweep_spec(args: &PlotArgs) -> Result<PlotSpec, Error> {
    super::common::sweep_plot_spec(
        args.x.as_deref(),
        args.metric.as_deref(),
        &args.only,
        args.at_distance.as_deref(),
        (args.log_x, args.per_seed),
    )
}
