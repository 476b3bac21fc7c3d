//! `privdiffuse plot`: draws one figure from a run directory (or a CSV file)
//! to PNG or SVG.

use privdiffuse::output::plot::{self, Kind, PlotOptions};
use privdiffuse::util::Existing;
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
}

impl From<KindArg> for Kind {
    fn from(k: KindArg) -> Kind {
        match k {
            KindArg::Jumps => Kind::Jumps,
            KindArg::Ego => Kind::Ego,
            KindArg::Error => Kind::Error,
            KindArg::Coalition => Kind::Coalition,
            KindArg::Path => Kind::Path,
        }
    }
}

/// Draw a figure (PNG or SVG) from the output of `simulate`, `collude` or `path`.
#[derive(Debug, clap::Args)]
#[command(after_help = "Examples:
  privdiffuse plot --input results/geometric150 --kind jumps
  privdiffuse plot --input results/geometric150 --kind error --out error.svg
  privdiffuse plot --input results/geometric150 --kind ego --width 1600 --height 1000
  privdiffuse path --dim 1 --norm l1 --eps-lo 0.1 --eps-hi 100 --samples 5 --out p.csv
  privdiffuse plot --input p.csv --kind path          # writes p_path.png")]
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
    /// and view that summary.json records).
    #[arg(long)]
    pub edges: bool,
    /// Width in pixels.
    #[arg(long, value_name = "W", default_value_t = plot::DEFAULT_SIZE.0)]
    pub width: u32,
    /// Height in pixels.
    #[arg(long, value_name = "H", default_value_t = plot::DEFAULT_SIZE.1)]
    pub height: u32,
}

/// Runs `privdiffuse plot`.
pub fn run(args: PlotArgs) -> anyhow::Result<()> {
    let kind = Kind::from(args.kind);
    let existing = Existing::for_out(args.out.is_some(), args.force);
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
