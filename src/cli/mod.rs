//! Command-line definitions (clap) and dispatch. No mathematics lives here:
//! each subcommand file turns its flags into library calls.
// The doc comments of this module are clap's help text (`runs/<graph
// stem>` is a placeholder, not HTML).
#![allow(rustdoc::invalid_html_tags)]

mod answers;
mod cluster;
mod collude;
mod common;
mod distances;
mod entry;
mod evolve;
#[cfg(all(test, feature = "distributed"))]
mod fingerprint_tests;
mod flags;
mod generate;
mod generate_events;
mod gossip;
mod info;
mod oom;
mod path;
mod plain_graph;
mod plot;
mod progress;
mod relax;
mod relay;
mod run_args;
mod sim_options;
mod simulate;
mod subgraph;
mod sweep;
mod utility;

pub(crate) use common::Output;
pub use entry::main;
pub use oom::ExitOnOom;

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
    /// Memory a run may use, e.g. 800M, 2G (powers of 1024) [default: the
    /// smallest of ¾ of physical memory, what ulimit -v and the cgroup leave]
    #[arg(
        long,
        global = true,
        value_name = "SIZE",
        value_parser = parse_budget,
        display_order = 900
    )]
    pub memory_budget: Option<u64>,
}

fn parse_budget(s: &str) -> crate::Result<u64> {
    crate::limits::parse_size(s)
}

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    Simulate(Box<simulate::SimulateArgs>),
    Collude(Box<collude::ColludeArgs>),
    Sweep(Box<sweep::SweepArgs>),
    Utility(Box<utility::UtilityArgs>),
    Gossip(Box<gossip::GossipArgs>),
    Relay(Box<relay::RelayArgs>),
    Path(path::PathArgs),
    Relax(relax::RelaxArgs),
    Distances(distances::DistancesArgs),
    Generate(generate::GenerateArgs),
    Info(info::InfoArgs),
    Subgraph(subgraph::SubgraphArgs),
    Plot(plot::PlotArgs),
    Evolve(Box<evolve::EvolveArgs>),
    Answers(answers::AnswersArgs),
}

impl Command {
    /// The subcommand's name on the command line.
    pub fn name(&self) -> &'static str {
        match self {
            Command::Simulate(_) => "simulate",
            Command::Collude(_) => "collude",
            Command::Sweep(_) => "sweep",
            Command::Utility(_) => "utility",
            Command::Gossip(_) => "gossip",
            Command::Relay(_) => "relay",
            Command::Path(_) => "path",
            Command::Relax(_) => "relax",
            Command::Distances(_) => "distances",
            Command::Generate(_) => "generate",
            Command::Info(_) => "info",
            Command::Subgraph(_) => "subgraph",
            Command::Plot(_) => "plot",
            Command::Evolve(_) => "evolve",
            Command::Answers(_) => "answers",
        }
    }
}

/// Runs a parsed command line; library errors come back in its words
/// (`flags`).
pub fn run(cli: Cli) -> anyhow::Result<()> {
    let name = cli.command.name();
    crate::limits::set_memory_budget(cli.memory_budget);
    flags::warn_in_cli_words(name);
    dispatch(cli).map_err(|e| flags::anyhow_in_cli_words(name, e))
}

fn dispatch(cli: Cli) -> anyhow::Result<()> {
    match cli.command {
        Command::Simulate(a) => simulate::run(*a),
        Command::Path(a) => path::run(a),
        Command::Generate(a) => generate::run(a),
        Command::Info(a) => info::run(a),
        Command::Subgraph(a) => subgraph::run(a),
        Command::Distances(a) => distances::run(a),
        Command::Relax(a) => relax::run(a),
        Command::Collude(a) => collude::run(*a),
        Command::Plot(a) => plot::run(a),
        Command::Sweep(a) => sweep::run(*a),
        Command::Utility(a) => utility::run(*a),
        Command::Gossip(a) => gossip::run(*a),
        Command::Relay(a) => relay::run(*a),
        Command::Evolve(a) => evolve::run(*a),
        Command::Answers(a) => answers::run(a),
    }
}
