//! The top layer: what goes to files. Figures (feature `plots`: the drawing
//! code, and the entry points the run writers call whether or not the feature
//! is built), and the writers of data the lower layers return — edge lists and
//! coordinates of generated graphs, the state of a gradual release — so that
//! `graph` and `process` never write files.
//!
//! The CSV and JSON files of a run are written by the runs' own writers
//! ([`sim::write`](crate::sim::write), [`collusion::write`](crate::collusion::write),
//! [`sweep`](crate::sweep)) with the row types of
//! [`sim::rows`](crate::sim::rows), [`collusion::rows`](crate::collusion::rows)
//! and [`sweep::rows`](crate::sweep::rows); the figures read those files
//! back with the same types. Without the `plots` feature
//! [`check_plots_available`] reports that no figure can be drawn, before any
//! work is done.

pub mod collude;
pub mod figure_input;
pub mod graph;
#[cfg(feature = "plots")]
pub mod plot;
pub mod release;
pub mod simulate;
pub mod summary;
pub mod sweep;
pub mod sweep_figure;
pub mod sweep_summary;
pub mod utility;

pub use collude::{
    ColludeRunOptions, ColludeTimings, collude_config_from_summary, collude_default_out_dir,
    collude_to_dir, collude_to_dir_on,
};
pub use graph::{coords_to, edge_list_to, write_coords, write_edge_list};
pub use release::{save_release, save_release_with};
pub use simulate::{
    RunOptions, Timings, sim_config_from_summary, sim_default_out_dir, simulate_to_dir,
    simulate_to_dir_on, write_by_distance,
};
pub use summary::{ConfigEcho, SummaryFile};
pub use sweep::{DEFAULT_OUT as SWEEP_DEFAULT_OUT, SweepOptions, SweepReport, run_sweep};
pub use sweep_figure::{PlotSpec, side_file};
pub use utility::{UtilityTimings, utility_config_from_summary, utility_to_dir, utility_to_dir_on};

use crate::error::Result;
use std::path::Path;

/// The default figures of a run directory.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RunFigures {
    /// `simulate`: ego and error figures, plus the jump and sample-path
    /// figures when the lazy Laplace process ran (`laplace`).
    Simulation {
        /// The correlated (Laplace-process) mechanism was simulated.
        laplace: bool,
    },
    /// `collude`: the coalition-gain figure.
    Collusion,
}

/// `Ok` when this build can draw figures, else the error to report before
/// any work is done.
pub fn check_plots_available() -> Result<()> {
    if cfg!(feature = "plots") {
        Ok(())
    } else {
        Err(crate::error::Error::Unsupported(
            "this build of privdiffuse draws no figures (enable the `plots` feature)".into(),
        ))
    }
}

/// Draws the default figures of the run in `dir` (PNG and SVG).
pub fn draw_run_figures(dir: &Path, which: RunFigures) -> Result<()> {
    check_plots_available()?;
    #[cfg(feature = "plots")]
    {
        use plot::Kind;
        // The jump and sample-path figures show the lazy Laplace process;
        // a Gaussian-only run has neither jumps nor such a path.
        let kinds: &[Kind] = match which {
            RunFigures::Simulation { laplace: true } => {
                &[Kind::Jumps, Kind::Ego, Kind::Error, Kind::Path]
            }
            RunFigures::Simulation { laplace: false } => &[Kind::Ego, Kind::Error],
            RunFigures::Collusion => &[Kind::Coalition],
        };
        plot::draw_default_figures(dir, kinds)?;
    }
    #[cfg(not(feature = "plots"))]
    let _ = (dir, which);
    Ok(())
}
