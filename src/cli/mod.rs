//! Command-line definitions (clap) and dispatch. No mathematics lives here:
//! each subcommand file turns its flags into library calls.

mod collude;
mod common;
mod distances;
mod generate;
mod info;
mod path;
mod plot;
mod progress;
mod relax;
mod sim_options;
mod simulate;
mod sweep;

pub use common::Output;

use clap::{Parser, Subcommand};

/// Simulate coalition-free diffusion of private data over social networks.
///
/// A data owner shares a noisy copy of a private value with every member of a
/// network; the privacy level ε falls with graph distance. One sample path of a
/// lazy Laplace process per owner correlates the answers, so a coalition of
/// recipients learns no more than its closest member (max ε instead of Σ ε).
#[derive(Debug, Parser)]
#[command(name = "privdiffuse", propagate_version = true, max_term_width = 100)]
pub struct Cli {
    #[command(subcommand)]
    pub command: Command,
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    Simulate(Box<simulate::SimulateArgs>),
    Collude(Box<collude::ColludeArgs>),
    Sweep(Box<sweep::SweepArgs>),
    Path(path::PathArgs),
    Relax(relax::RelaxArgs),
    Distances(distances::DistancesArgs),
    Generate(generate::GenerateArgs),
    Info(info::InfoArgs),
    Plot(plot::PlotArgs),
}

/// Runs a parsed command line.
pub fn run(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Simulate(a) => simulate::run(*a),
        Command::Path(a) => path::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Info(a) => info::run(a),
        Command::Distances(a) => distances::run(a),
        Command::Relax(a) => relax::run(a),
        Command::Collude(a) => collude::run(*a),
        Command::Plot(a) => plot::run(a),
        Command::Sweep(a) => sweep::run(*a),
    }
}
