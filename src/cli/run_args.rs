//! The flags of every run that writes a directory on an executor
//! (`simulate`, `collude`, `relay`, `utility`), described once.

use crate::io::OutputOptions;
use std::path::PathBuf;

/// Where a run writes, whether it replaces it, its threads, its figures, its
/// progress and its cluster. A command names only its default directory and
/// what its figures are in `--help`, through `mut_arg` ([`out_help`]).
#[derive(Debug, clap::Args)]
pub struct RunArgs {
    /// Output directory, new unless --force (claimed at once: a second run
    /// into it fails)
    #[arg(long, value_name = "DIR", display_order = 220)]
    pub out: Option<PathBuf>,
    /// Replace --out if it exists
    #[arg(long, display_order = 230)]
    pub force: bool,
    /// Worker threads [default: all cores]; results do not depend on it
    #[arg(long, value_name = "T", display_order = 240)]
    pub threads: Option<usize>,
    /// Draw the figures (default)
    #[arg(long, overrides_with = "no_plots", display_order = 250)]
    pub plots: bool,
    /// Skip the figures
    #[arg(long, display_order = 260)]
    pub no_plots: bool,
    /// No progress bar
    #[arg(long, short, display_order = 270)]
    pub quiet: bool,
    #[command(flatten)]
    pub cluster: super::cluster::ClusterArgs,
}

impl RunArgs {
    /// The output options: `--out`, else `default()`.
    pub fn output(&self, default: impl FnOnce() -> PathBuf) -> OutputOptions {
        OutputOptions {
            explicit_out: self.out.is_some(),
            out: self.out.clone().unwrap_or_else(default),
            force: self.force,
            plots: !self.no_plots,
            control: super::progress::control(!self.quiet),
        }
    }
}

/// `--out`'s help with the command's default directory.
pub fn out_help(default: &str) -> String {
    format!(
        "Output directory, new unless --force (claimed at once: a second run into it fails) \
         [default: {default}, replaced]"
    )
}
