//! Figures drawn from the CSVs that `simulate` and `collude` write, as PNG or
//! SVG (by the output's extension), with plotters and no system libraries
//! (DejaVu Sans from the `dejavu` crate, rendered by `ab_glyph`).
//!
//! | kind | input | what to see |
//! |---|---|---|
//! | [`Kind::Jumps`] | `paths.csv`, `jumps.csv`, `owners.csv` (+ `summary.json`) | (a) the answer error against distance for up to four owners: constant between jumps, jumps (markers) ever larger farther out; (b) the histogram of jump locations over all owners on top of the theoretical count λ·\|Δ ln ε\| per bin |
//! | [`Kind::Ego`] | `ego.csv`, `jumps.csv` (`owners.csv`) | recipients around their owner at radius = distance, coloured by error; everyone between two jump circles receives the same answer |
//! | [`Kind::Error`] | `by_distance.csv` | empirical RMSE with 95% intervals on the theoretical curve, per mechanism |
//! | [`Kind::Coalition`] | `coalition.csv` | gain of pooling against coalition size: ≤ 1 under the correlated mechanism, far above 1 under independent noise |
//! | [`Kind::Path`] | a `path` CSV or `paths.csv` | sample paths against ε on a log axis, arctan scale |
//!
//! Files are written atomically (temporary sibling, then rename). Missing or
//! malformed inputs give [`crate::error::Error`]s naming the file and line.

pub mod coalition;
pub mod data;
pub mod ego;
pub mod error;
pub mod gossip;
pub mod jump_stats;
pub mod jumps;
pub mod markers;
pub mod path;
pub mod relay;
pub mod style;
pub mod sweep;
#[cfg(feature = "store")]
pub mod timeline;
pub mod utility;

pub use jumps::{JumpHistogram, expected_jump_counts};
pub use style::{Figure, render, render_with};

use crate::error::{Error, Result};
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
}

impl Kind {
    /// All kinds, in CLI order.
    pub const ALL: [Kind; 5] = [
        Kind::Jumps,
        Kind::Ego,
        Kind::Error,
        Kind::Coalition,
        Kind::Path,
    ];

    /// CLI spelling, also the default file stem.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::Jumps => "jumps",
            Kind::Ego => "ego",
            Kind::Error => "error",
            Kind::Coalition => "coalition",
            Kind::Path => "path",
        }
    }

    /// Files this kind needs inside a run directory.
    pub fn inputs(self) -> &'static [&'static str] {
        match self {
            Kind::Jumps => &["paths.csv", "jumps.csv", "owners.csv"],
            Kind::Ego => &["ego.csv", "jumps.csv", "owners.csv"],
            Kind::Error => &["by_distance.csv"],
            Kind::Coalition => &["coalition.csv"],
            Kind::Path => &["paths.csv"],
        }
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
            .ok_or_else(|| Error::param("kind", s, "jumps, ego, error, coalition or path"))
    }
}

/// Options of one drawing.
#[derive(Clone, Debug, PartialEq, Eq)]
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
}

impl Default for PlotOptions {
    fn default() -> Self {
        PlotOptions {
            width: DEFAULT_SIZE.0,
            height: DEFAULT_SIZE.1,
            owner: None,
            edges: false,
        }
    }
}

/// Where a figure goes by default: `DIR/<kind>.png` for a directory input,
/// `<stem>_<kind>.png` beside a file input.
pub fn default_output(kind: Kind, input: &Path) -> PathBuf {
    if input.is_dir() {
        input.join(format!("{kind}.png"))
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
}

impl Figure for AnyFigure {
    fn draw<DB: DrawingBackend>(&self, root: &DrawingArea<DB, Shift>) -> style::DrawResult<DB> {
        match self {
            AnyFigure::Jumps(f) => f.draw(root),
            AnyFigure::Ego(f) => f.draw(root),
            AnyFigure::Error(f) => f.draw(root),
            AnyFigure::Coalition(f) => f.draw(root),
            AnyFigure::Path(f) => f.draw(root),
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

/// Reads the inputs of `kind` from `input` (a run directory, or for `error`,
/// `coalition` and `path` also the CSV file itself).
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
    render_with(&fig, out, (opts.width, opts.height), existing)
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
/// file too), or nothing drawable in it (e.g. only empty coalitions) are
/// skipped. Returns the files written. Meant for `simulate` and `collude`,
/// which call it on their (staging) output directory.
pub fn draw_default_figures(dir: &Path, kinds: &[Kind]) -> Result<Vec<PathBuf>> {
    let mut written = Vec::new();
    let opts = PlotOptions::default();
    for &kind in kinds {
        if !kind.inputs().iter().all(|f| has_rows(&dir.join(f))) {
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
            other => other?,
        };
        for ext in ["png", "svg"] {
            let out = dir.join(format!("{kind}.{ext}"));
            render(&fig, &out, DEFAULT_SIZE)?;
            written.push(out);
        }
    }
    Ok(written)
}
