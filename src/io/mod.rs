//! Files: everything the engines produce, written and read back. The engines
//! hand typed rows to [`RecordSink`](crate::sink::RecordSink)s and return
//! typed summaries; this layer implements the sinks as CSV files
//! ([`csv::CsvSink`]), writes whole run directories as the command line does
//! ([`simulate_to_dir`], [`collude_to_dir`], [`utility_to_dir`],
//! [`run_sweep`] with its resume file), reads `summary.json` back
//! ([`summary`]), writes edge lists and release states, and (feature
//! `plots`) draws the figures from the files with the same row types
//! ([`sim::rows`](crate::sim::rows), [`collusion::rows`](crate::collusion::rows),
//! [`sweep::rows`](crate::sweep::rows)). No engine imports this layer. Without the `plots` feature
//! [`check_plots_available`] reports that no figure can be drawn, before any
//! work is done.

pub mod collude;
pub mod csv;
pub mod driver;
#[cfg(feature = "store")]
pub mod evolve;
pub mod figure_input;
pub mod gossip;
pub mod graph;
pub mod live_dir;
pub mod memory;
pub mod paths;
#[cfg(feature = "plots")]
pub mod plot;
pub mod relax;
pub mod relay;
pub mod release;
mod run_dir;
pub mod simulate;
mod stream;
pub mod summary;
pub mod sweep;
pub mod sweep_figure;
pub mod sweep_intervals;
pub mod sweep_summary;
pub mod utility;

pub use collude::{
    CollusionTimings, collude_config_from_summary, collude_default_out_dir, collude_to_dir,
    collude_to_dir_on,
};
pub use driver::OutputOptions;
pub use gossip::{gossip_config_from_summary, gossip_files, gossip_to_dir};
pub use graph::{coords_to, edge_list_to, write_coords, write_edge_list};
pub use relay::{
    RelayTimings, relay_config_from_summary, relay_default_out_dir, relay_to_dir, relay_to_dir_on,
};
pub use release::{save_release, save_release_with};
pub use simulate::{
    SimTimings, by_distance_header, sim_config_from_summary, sim_default_out_dir, simulate_to_dir,
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
            "this build of privdiffuse draws no figures (build it with the cargo feature 'plots')"
                .into(),
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
