//! Helpers shared by subcommands: output to stdout or an atomically written file.

use crate::util::{AtomicFile, Existing};
use crate::{Error, Result};
use std::io::{self, BufWriter, Write};
use std::path::{Path, PathBuf};

/// Where a subcommand writes its CSV: standard output, or a file that appears
/// only when complete.
pub enum Output {
    Stdout(BufWriter<io::Stdout>),
    File(AtomicFile),
}

impl Output {
    /// `path` = None or `-` means standard output. A file that exists is
    /// refused unless `force` (a new one is claimed at once); a missing
    /// folder of it is created.
    pub fn open(path: Option<&Path>, force: bool) -> Result<Output> {
        match path {
            None => Ok(Output::Stdout(BufWriter::with_capacity(
                1 << 16,
                io::stdout(),
            ))),
            Some(p) if p.as_os_str() == "-" => Ok(Output::Stdout(BufWriter::with_capacity(
                1 << 16,
                io::stdout(),
            ))),
            Some(p) => Ok(Output::File(AtomicFile::create_with(
                p,
                Existing::for_out(true, force),
            )?)),
        }
    }

    /// Flushes and, for files, renames into place.
    pub fn finish(self) -> Result<()> {
        match self {
            Output::Stdout(mut w) => w.flush().map_err(|e| Error::io("<stdout>", e)),
            Output::File(f) => Ok(f.commit()?),
        }
    }
}

impl Write for Output {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        match self {
            Output::Stdout(w) => w.write(buf),
            Output::File(f) => f.write(buf),
        }
    }
    fn write_all(&mut self, buf: &[u8]) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.write_all(buf),
            Output::File(f) => f.write_all(buf),
        }
    }
    fn flush(&mut self) -> io::Result<()> {
        match self {
            Output::Stdout(w) => w.flush(),
            Output::File(f) => f.flush(),
        }
    }
}

/// Runs `work` on a rayon pool of `threads` workers (all cores when `None`).
/// Results never depend on the count; only the wall time does. A count of 0
/// or above [`max_threads`](crate::limits::max_threads) is refused
/// before any thread is started.
pub fn with_threads<T: Send>(
    threads: Option<usize>,
    work: impl FnOnce() -> crate::Result<T> + Send,
) -> anyhow::Result<T> {
    Ok(match threads {
        Some(t) => {
            crate::limits::check_threads(t)?;
            rayon::ThreadPoolBuilder::new()
                .num_threads(t)
                .build()
                .map_err(|e| Error::Unsupported(format!("cannot start {t} worker threads: {e}")))?
                .install(work)?
        }
        None => work()?,
    })
}

/// Runs an all-owner command's `work` on its executor (a cluster's with
/// `--cluster`, else this process) with its threads: `Some` on the process
/// that writes the outputs; on a cluster's other processes `None`, after
/// saying (unless `quiet`) that this process's share went to process 0.
///
/// `on_executor!(run_args, job, |exec| work)` ([`RunArgs`](super::run_args::RunArgs)): `work` is
/// written once and compiled for each executor type (the engines are generic
/// over [`crate::exec::Executor`]); `job` (a
/// [`Job`](super::cluster::Job)) is what the processes of a cluster compare
/// before any work. On a cluster every process concludes, so that all exit
/// non-zero when the job fails on any of them.
macro_rules! on_executor {
    ($run:expr, $job:expr, |$exec:ident| $work:expr) => {{
        let (joined, threads) = $run.cluster.join($run.threads, $job)?;
        let done = match joined {
            None => $crate::cli::common::with_threads(threads, || {
                let $exec = &crate::exec::Local;
                $work
            })?,
            #[allow(unreachable_code, unused_variables)]
            Some(c) => {
                #[cfg(not(feature = "distributed"))]
                match c {}
                #[cfg(feature = "distributed")]
                {
                    let done = $crate::cli::common::with_threads(threads, || {
                        let $exec = &*c;
                        $work
                    });
                    c.conclude(done.is_ok())?;
                    done?
                }
            }
        };
        if done.is_none() && !$run.quiet {
            eprintln!("computed this process's share of the owners and sent it to process 0");
        }
        done
    }};
}
pub(crate) use on_executor;

/// `--ego ID[:R]` and `--subgraph FILE`: the view of the graph a command
/// works on (shared by every command that reads `--graph`).
#[derive(Debug, Default, clap::Args)]
pub struct ViewArgs {
    /// Work on the ego network of node ID: ID and every node within R hops
    /// (default 1; out-arcs with --directed), the edges among them, ids kept
    #[arg(long, value_name = "ID[:R]", value_parser = crate::GraphView::parse_ego,
          conflicts_with = "subgraph", display_order = 12)]
    pub ego: Option<crate::GraphView>,
    /// Work on the subgraph induced by the node ids listed in FILE (one per
    /// line, as --nodes), ids kept
    #[arg(long, value_name = "FILE", display_order = 14)]
    pub subgraph: Option<std::path::PathBuf>,
    #[command(flatten)]
    pub header: HeaderArgs,
}

/// `--header yes|no|auto`: on every command that loads an edge list (in
/// [`ViewArgs`], and beside `--graph` where there is no view).
#[derive(Debug, Default, clap::Args)]
pub struct HeaderArgs {
    /// Whether the edge list's first data line is a header: yes | no |
    /// auto (header words such as source,target, or text ids where every
    /// other line has numbers, as SNAP's id_1,id_2); a skipped line is
    /// reported [default: auto]
    #[arg(
        long = "header",
        id = "header",
        value_name = "WHEN",
        display_order = 16
    )]
    pub mode: Option<crate::graph::HeaderMode>,
}

impl HeaderArgs {
    /// The mode asked for (`auto` when none).
    pub fn get(&self) -> crate::graph::HeaderMode {
        self.mode.unwrap_or_default()
    }
}

impl ViewArgs {
    /// The view asked for, if any.
    pub fn view(&self) -> Option<crate::GraphView> {
        match (&self.ego, &self.subgraph) {
            (Some(v), _) => Some(v.clone()),
            (None, Some(f)) => Some(crate::GraphView::subgraph(f)),
            (None, None) => None,
        }
    }

    /// Loads `graph` as the loader options say (`--header` given here
    /// taking precedence) and cuts the view out.
    pub fn load(&self, graph: &Path, opts: &crate::LoadOptions) -> crate::Result<crate::Graph> {
        let opts = crate::LoadOptions {
            header: self.header.mode.unwrap_or(opts.header),
            ..opts.clone()
        };
        let g = crate::graph::load_graph(graph, &opts)?;
        match self.view() {
            Some(v) => v.apply(&g),
            None => Ok(g),
        }
    }
}

/// Options every model takes.
#[derive(Debug, clap::Args)]
pub struct CommonArgs {
    /// Random seed (same seed and parameters → the same file, byte for byte).
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Output edge-list file (its directory is created if missing). An
    /// existing FILE (or STEM.coords.csv of a geometric graph) is refused
    /// without --force.
    #[arg(long, value_name = "FILE")]
    pub out: PathBuf,
    /// Replace --out (and its coordinates file) if they exist.
    #[arg(long)]
    pub force: bool,
}

/// `--owners SPEC` or `--owner ID` (repeatable): whose secrets a run
/// releases (simulate, collude, utility).
#[derive(Debug, Default, clap::Args)]
pub struct OwnerArgs {
    /// Owners: all | N (seeded sample) | ID,ID,... (one id: `17,`) [default: all]
    #[arg(long, value_name = "SPEC", display_order = 160, value_parser = owners_or_owner)]
    owners: Option<crate::sim::Owners>,
    /// One owner by node id (repeatable; instead of --owners)
    #[arg(
        long,
        value_name = "ID",
        conflicts_with = "owners",
        display_order = 161
    )]
    owner: Vec<String>,
}

impl OwnerArgs {
    /// Sets `owners` to what the flags ask for, if they ask.
    pub fn apply(&self, owners: &mut crate::sim::Owners) {
        if !self.owner.is_empty() {
            *owners = crate::sim::Owners::Ids(self.owner.clone());
        } else if let Some(v) = &self.owners {
            *owners = v.clone();
        }
    }
}

/// `--owners` of a command that also has `--owner ID`: the library's
/// reading, whose refusal of `0` (zero owners, or the owner with id 0?)
/// here names `--owner 0` too.
pub fn owners_or_owner(s: &str) -> Result<crate::sim::Owners> {
    s.parse().map_err(|e| match e {
        Error::Parameter {
            name,
            value,
            expected,
        } if expected == crate::sim::config::OWNERS_ZERO => Error::param(
            name,
            value,
            "a count N ≥ 1 (for the one owner with id 0 use --owner 0, or `0,`)",
        ),
        e => e,
    })
}

/// The figure of a sweep from its flags (`plot --kind sweep`, `sweep
/// --plots`): `--only COLUMN=VALUE` pairs, `--at-distance D,..` and the
/// comma-separated `--metric` list, read the same way by both.
pub fn sweep_plot_spec(
    x: Option<&str>,
    metric: Option<&str>,
    only: &[String],
    at_distance: Option<&str>,
    (log_x, per_seed): (bool, bool),
) -> Result<crate::io::PlotSpec> {
    let only = only
        .iter()
        .map(|o| {
            o.split_once('=')
                .map(|(c, v)| (c.trim().to_string(), v.trim().to_string()))
                .ok_or_else(|| Error::param("--only", o, "COLUMN=VALUE"))
        })
        .collect::<Result<Vec<_>>>()?;
    let at = at_distance
        .into_iter()
        .flat_map(|s| s.split(','))
        .map(|t| {
            t.trim()
                .parse::<f64>()
                .map_err(|_| Error::param("--at-distance", t, "a list of numbers"))
        })
        .collect::<Result<Vec<f64>>>()?;
    Ok(crate::io::PlotSpec {
        x: x.unwrap_or_default().to_string(),
        metrics: metric
            .into_iter()
            .flat_map(|m| m.split(','))
            .map(|m| crate::sweep::metrics::canonical_metric(m.trim()).to_string())
            .filter(|m| !m.is_empty())
            .collect(),
        at,
        only,
        log_x,
        per_seed,
    })
}

/// The per-scheme lines of `utility`'s and `gossip`'s closing summary.
pub fn print_scheme_totals(totals: &[crate::utility::UtilityRow]) {
    for r in totals {
        eprintln!(
            "  {:<21} MSE {:.6}{}",
            r.scheme,
            r.mse,
            r.mse_theory
                .map(|t| format!(" (theory {t:.6})"))
                .unwrap_or_default()
        );
    }
}
