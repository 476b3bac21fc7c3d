//! Every figure a command draws, and `plot` draws again from the files the
//! command wrote — the same bytes. Each kind has one figure type built from
//! typed rows (from memory in a run, read back from its files by `plot`),
//! drawn once as SVG by plotters and rasterised for PNG by resvg
//! ([`raster`]: text shaped with the embedded DejaVu Sans; no system
//! library or font). Each drawing returns its [`layout::Layout`]: legends
//! are placed where they cover no data ([`legend`]), axes that count whole
//! things have whole ticks and every axis one number format ([`axis`]).
//!
//! | kind | drawn by | input | what to see |
//! |---|---|---|---|
//! | [`Kind::Jumps`] | `simulate` | `paths.csv`, `jumps.csv`, `owners.csv` (+ `summary.json`) | (a) the answer error against distance for up to four owners: constant between jumps, jumps (markers) ever larger farther out; (b) the histogram of jump locations over all owners on top of the theoretical count λ·\|Δ ln ε\| per bin |
//! | [`Kind::Ego`] | `simulate` | `ego.csv`, `jumps.csv` (`owners.csv`) | recipients around their owner at radius = distance, coloured by error; everyone between two jump circles receives the same answer |
//! | [`Kind::Error`] | `simulate` | `by_distance.csv` | empirical RMSE with 95% intervals on the theoretical curve, per mechanism |
//! | [`Kind::Coalition`] | `collude` | `coalition.csv` | gain of pooling per coalition: ≤ 1 under the correlated mechanism, far above 1 under independent noise |
//! | [`Kind::Path`] | `simulate` | a `path` CSV or `paths.csv` | sample paths against ε on a log axis, arctan scale |
//! | [`Kind::Sweep`] | `sweep --plots` | the sweep CSV | metrics against one key column, one panel per metric |
//! | [`Kind::Utility`] | `utility` | `utility.csv` | RMSE of the recipients' estimates of their network mean against degree, per scheme |
//! | [`Kind::Relay`] | `relay` | `relay_by_distance.csv` | privacy learned relative to one's own against distance, per untrimmed fraction |
//! | [`Kind::Timeline`] | `evolve` | `timeline.csv` | privacy spent and error against batch for the three release policies |
//! | [`Kind::Gossip`] | `gossip` | `privacy_by_distance.csv`, `two_schools.csv` | privacy loss against hop: the code's accounting, the exact loss, diffusion's Laplace matched (drawn as `privacy.png`) |
//!
//! Files are written atomically (temporary sibling, then rename). Missing or
//! malformed inputs give [`crate::error::Error`]s naming the file and line.

pub mod axis;
pub mod chart;
pub mod coalition;
pub mod data;
pub mod ego;
pub mod error;
pub mod gossip;
pub mod jump_stats;
pub mod jumps;
pub mod layout;
pub mod legend;
pub mod markers;
pub mod path;
pub mod raster;
pub mod relay;
pub mod style;
pub mod sweep;
#[cfg(feature = "store")]
pub mod timeline;
pub mod utility;

pub use jumps::{JumpHistogram, expected_jump_counts};
pub use layout::Layout;
pub use style::{Figure, render, render_with};

use crate::error::{Error, Result};
use crate::io::sweep_figure::PlotSpec;
use crate::util::Existing;
use plotters::coord::Shift;
use plotters::prelude::*;
use std::path::{Path, PathBuf};

/// Default canvas size in pixels.
pub const DEFAULT_SIZE: (u32, u32) = (1200, 800);

/// The figure kinds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Kind {
    /// Jumps against distance + jump-location histogram.
    Jumps,
    /// One owner's recipients around it.
    Ego,
    /// RMSE against distance per mechanism.
    Error,
    /// Coalition gain per estimator and mechanism.
    Coalition,
    /// Sample paths against ε.
    Path,
    /// A sweep's metrics against one of its keys.
    Sweep,
    /// Utility: error of the recipients' estimates against degree.
    Utility,
    /// Relay: privacy learned against distance.
    Relay,
    /// Evolve: privacy spent and error against batch.
    Timeline,
    /// Gossip: privacy loss against hop distance, both schools.
    Gossip,
}

impl Kind {
    /// All kinds, in CLI order.
    pub const ALL: [Kind; 10] = [
        Kind::Jumps,
        Kind::Ego,
        Kind::Error,
        Kind::Path,
        Kind::Coalition,
        Kind::Sweep,
        Kind::Utility,
        Kind::Relay,
        Kind::Timeline,
        Kind::Gossip,
    ];

    /// CLI spelling, also the default file stem.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Jumps => "jumps",
            Kind::Ego => "ego",
            Kind::Error => "error",
            Kind::Coalition => "coalition",
            Kind::Path => "path",
            Kind::Sweep => "sweep",
            Kind::Utility => "utility",
            Kind::Relay => "relay",
            Kind::Timeline => "timeline",
            Kind::Gossip => "gossip",
        }
    }

    /// The file stem a run writes this figure under (`privacy` for
    /// `gossip`, the kind's name otherwise).
    pub fn stem(self) -> &'static str {
        match self {
            Kind::Gossip => "privacy",
            k => k.as_str(),
        }
    }

    /// Files this kind needs inside a run directory (none for `sweep`,
    /// which reads the sweep's CSV file itself).
    pub fn inputs(self) -> &'static [&'static str] {
        match self {
            Kind::Jumps => &["paths.csv", "jumps.csv", "owners.csv"],
            Kind::Ego => &["ego.csv", "jumps.csv", "owners.csv"],
            Kind::Error => &["by_distance.csv"],
            Kind::Coalition => &["coalition.csv"],
            Kind::Path => &["paths.csv"],
            Kind::Sweep => &[],
            Kind::Utility => &["utility.csv"],
            Kind::Relay => &["relay_by_distance.csv"],
            Kind::Timeline => &["timeline.csv"],
            Kind::Gossip => &["privacy_by_distance.csv", "two_schools.csv"],
        }
    }

    /// The kinds' names, for messages: `jumps, ego, …, relay or timeline`.
    pub fn names() -> String {
        let n: Vec<&str> = Kind::ALL.iter().map(|k| k.as_str()).collect();
        format!("{} or {}", n[..n.len() - 1].join(", "), n[n.len() - 1])
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl std::str::FromStr for Kind {
    type Err = Error;
    fn from_str(s: &str) -> Result<Kind> {
        Kind::ALL
            .into_iter()
            .find(|k| k.as_str() == s.trim())
            .ok_or_else(|| Error::param("kind", s, Kind::names()))
    }
}

/// Options of one drawing.
#[derive(Clone, Debug, PartialEq)]
pub struct PlotOptions {
    /// Canvas width in pixels.
    pub width: u32,
    /// Canvas height in pixels.
    pub height: u32,
    /// Owner to show (`jumps`: draw only this owner's path; `ego`: must be
    /// the owner `ego.csv` describes).
    pub owner: Option<String>,
    /// `ego`: draw the friendships among the members faintly (reads the
    /// graph `summary.json` names).
    pub edges: bool,
    /// `sweep`: what to draw (the x key, metrics, filters).
    pub sweep: PlotSpec,
}

impl Default for PlotOptions {
    fn default() -> Self {
        PlotOptions {
            width: DEFAULT_SIZE.0,
            height: DEFAULT_SIZE.1,
            owner: None,
            edges: false,
            sweep: PlotSpec::default(),
        }
    }
}

/// Where a figure goes by default: `DIR/<stem>.png` ([`Kind::stem`]: the
/// name the run wrote it under) for a directory input,
/// `<stem>_<kind>.png` beside a file input.
pub fn default_output(kind: Kind, input: &Path) -> PathBuf {
    if input.is_dir() {
        input.join(format!("{}.png", kind.stem()))
    } else {
        let stem = input
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_else(|| "figure".into());
        input.with_file_name(format!("{stem}_{kind}.png"))
    }
}

/// Any of the figures, loaded and ready to render (to several formats).
#[derive(Clone, Debug)]
pub enum AnyFigure {
    /// Figure 1.
    Jumps(jumps::JumpsFigure),
    /// Figure 2.
    Ego(ego::EgoFigure),
    /// Figure 3.
    Error(error::ErrorFigure),
    /// Figure 4.
    Coalition(coalition::CoalitionFigure),
    /// Figure 5.
    Path(path::PathFigure),
    /// A sweep.
    Sweep(crate::io::sweep_figure::SweepFigure),
    /// Utility.
    Utility(utility::UtilityFigure),
    /// Relay.
    Relay(relay::RelayFigure),
    /// Evolve's timeline.
    #[cfg(feature = "store")]
    Timeline(timeline::TimelineFigure),
    /// Gossip's privacy against hop.
    Gossip(gossip::GossipFigure),
}

impl AnyFigure {
    /// The size it is drawn at for `opts`: theirs, except that a sweep
    /// asked at the default size gets its own (900 px per panel).
    pub fn size(&self, opts: &PlotOptions) -> (u32, u32) {
        match self {
            AnyFigure::Sweep(f) if (opts.width, opts.height) == DEFAULT_SIZE => sweep::size_of(f),
            _ => (opts.width, opts.height),
        }
    }
}

impl Figure for AnyFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> style::DrawResult<DB> {
        match self {
            AnyFigure::Jumps(f) => f.draw(root),
            AnyFigure::Ego(f) => f.draw(root),
            AnyFigure::Error(f) => f.draw(root),
            AnyFigure::Coalition(f) => f.draw(root),
            AnyFigure::Path(f) => f.draw(root),
            AnyFigure::Sweep(f) => f.draw(root),
            AnyFigure::Utility(f) => f.draw(root),
            AnyFigure::Relay(f) => f.draw(root),
            #[cfg(feature = "store")]
            AnyFigure::Timeline(f) => f.draw(root),
            AnyFigure::Gossip(f) => f.draw(root),
        }
    }
}

fn needs_dir(kind: Kind, input: &Path) -> Result<()> {
    if input.is_dir() {
        Ok(())
    } else if input.exists() {
        Err(Error::param(
            "input",
            input.display(),
            format!(
                "a directory written by simulate (`kind` = {kind} reads {})",
                kind.inputs().join(", ")
            ),
        ))
    } else {
        Err(Error::io(
            input,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
        ))
    }
}

/// Reads the inputs of `kind` from `input` (a run directory, or for every
/// kind but `jumps` and `ego` also the CSV file itself; `sweep` reads the
/// sweep CSV `opts.sweep` describes).
pub fn load(kind: Kind, input: &Path, opts: &PlotOptions) -> Result<AnyFigure> {
    if !input.exists() {
        return Err(Error::io(
            input,
            std::io::Error::new(std::io::ErrorKind::NotFound, "no such file or directory"),
        ));
    }
    let owner = opts.owner.as_deref();
    Ok(match kind {
        Kind::Jumps => {
            needs_dir(kind, input)?;
            AnyFigure::Jumps(jumps::load(input, owner)?)
        }
        Kind::Ego => {
            needs_dir(kind, input)?;
            AnyFigure::Ego(ego::load(input, owner, opts.edges)?)
        }
        Kind::Error => AnyFigure::Error(error::load(input)?),
        Kind::Coalition => AnyFigure::Coalition(coalition::load(input)?),
        Kind::Path => AnyFigure::Path(path::load(input)?),
        Kind::Sweep => {
            if input.is_dir() {
                return Err(Error::param(
                    "input",
                    input.display(),
                    "the CSV file a sweep wrote (`kind` = sweep)",
                ));
            }
            AnyFigure::Sweep(crate::io::sweep_figure::load_with(
                input,
                &opts.sweep,
                Some(data::MAX_ROWS),
            )?)
        }
        Kind::Utility => AnyFigure::Utility(utility::load(input)?),
        Kind::Relay => AnyFigure::Relay(relay::load(input)?),
        Kind::Gossip => {
            needs_dir(kind, input)?;
            AnyFigure::Gossip(gossip::load(input)?)
        }
        #[cfg(feature = "store")]
        Kind::Timeline => AnyFigure::Timeline(timeline::load(input)?),
        #[cfg(not(feature = "store"))]
        Kind::Timeline => {
            return Err(Error::Unsupported(
                "this build has no release store (the `store` feature): no timeline figure".into(),
            ));
        }
    })
}

/// Loads `kind` from `input` and writes it to `out` (`.png` or `.svg`),
/// replacing a file there.
pub fn draw(kind: Kind, input: &Path, out: &Path, opts: &PlotOptions) -> Result<()> {
    draw_with(kind, input, out, opts, Existing::Replace)
}

/// As [`draw`], with the policy `existing` for an `out` that exists (see
/// [`Existing`]): with [`Existing::Refuse`] an existing file is refused
/// before anything is read, and a new one is claimed when drawing starts.
pub fn draw_with(
    kind: Kind,
    input: &Path,
    out: &Path,
    opts: &PlotOptions,
    existing: Existing,
) -> Result<()> {
    // Check the output name before reading anything.
    style::Format::of(out)?;
    crate::util::atomic::check_new(out, existing)?;
    let fig = load(kind, input, opts)?;
    render_with(&fig, out, fig.size(opts), existing).map(|_| ())
}

/// Whether `file` exists and holds at least one line after its header (an
/// independent-only run writes `jumps.csv` with a header and no jumps).
fn has_rows(file: &Path) -> bool {
    use std::io::BufRead;
    let Ok(f) = std::fs::File::open(file) else {
        return false;
    };
    std::io::BufReader::new(f)
        .lines()
        .skip(1)
        .map_while(|l| l.ok())
        .any(|l| !l.trim().is_empty())
}

/// Draws every kind in `kinds` whose inputs are all present in `dir` into
/// `dir/<kind>.png` and `dir/<kind>.svg` at the default size; kinds with a
/// missing input, a header and no rows, an input of more than
/// [`data::MAX_ROWS`] rows (the run keeps its data; `plot` would refuse the
/// file too), nothing drawable in it (e.g. only empty coalitions), or
/// numbers beyond [`data::DRAWABLE`] (with a warning) are skipped. Returns the files written. Meant for `simulate` and `collude`,
/// which call it on their (staging) output directory.
pub fn draw_default_figures(dir: &Path, kinds: &[Kind]) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let opts = PlotOptions::default();
    for &kind in kinds {
        // A sweep's figure is drawn from its CSV by the sweep itself.
        if kind.inputs().is_empty() || !kind.inputs().iter().all(|f| has_rows(&dir.join(f))) {
            continue;
        }
        if !kind
            .inputs()
            .iter()
            .all(|f| crate::io::figure_input::rows_within(&dir.join(f), data::MAX_ROWS))
        {
            continue;
        }
        let fig = match load(kind, dir, &opts) {
            Err(Error::NothingToDraw { .. }) => continue,
            // The run's own numbers beyond what an axis can place (values
            // near ±1e300): its data files stand, the figure is skipped.
            Err(Error::Input {
                file,
                line,
                message,
            }) if message.contains(crate::util::table::BEYOND_BOUND) => {
                crate::util::notes::warn(&format!(
                    "figure {} not drawn: {}:{line} holds numbers beyond ±{:e}, which no axis \
                     can place (the data files are complete)",
                    kind.stem(),
                    // The staging directory's name means nothing to the user.
                    file.strip_prefix(dir).unwrap_or(&file).display(),
                    data::DRAWABLE
                ));
                continue;
            }
            other => other?,
        };
        written.extend(render_pair(&fig, dir, kind, fig.size(&opts))?);
    }
    Ok(written)
}

/// Renders `fig` as `DIR/<stem>.png` and `DIR/<stem>.svg` ([`Kind::stem`])
/// at `size`; returns the two files.
pub fn render_pair<F: Figure>(
    fig: &F,
    dir: &Path,
    kind: Kind,
    size: (u32, u32),
) -> Result<Vec<PathBuf>> {
    ["png", "svg"]
        .into_iter()
        .map(|ext| {
            let out = dir.join(format!("{}.{ext}", kind.stem()));
            render(fig, &out, size).map(|_| out)
        })
        .collect()
}

/// The file a figure reads: `input` itself, or `input/name` when `input`
/// is a run directory.
pub fn input_file(input: &Path, name: &str) -> PathBuf {
    if input.is_dir() {
        input.join(name)
    } else {
        input.to_path_buf()
    }
}
