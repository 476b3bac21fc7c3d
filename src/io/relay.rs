//! `relay --out DIR` (issue 26): `relay.csv`, `relay_by_distance.csv`,
//! `summary.json`, `timings.json` and the figure, in a staging directory
//! that replaces DIR only when complete (the rules of `simulate`). The
//! engine (`crate::relay`) hands over typed rows; this module writes them.

use super::csv::CsvSink;
use super::driver::OutputOptions;
use super::driver::{At, Job, Phases, RunFile, load_sim_graph, run_here, run_to_dir};
use super::run_dir::json_bytes;
use super::summary::{config_as, config_object};
use crate::control::Control;
use crate::distance::Distances;
use crate::error::{Error, Result};
use crate::exec::RoundExecutor;
use crate::graph::Graph;
use crate::relay::stats::{RunStats, bucket_rows, owner_rows};
use crate::relay::{RelayByDistanceRow, RelayConfig, RelayEngine, RelayPlan};
use crate::relay::{RelaySummary, summarize};
use crate::sim::ResponseRow;
use crate::util::table::{self, CsvRow};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// `timings.json` of a relay run (kept apart: every other file is a pure
/// function of the configuration).
#[derive(Clone, Debug, Default, Serialize)]
pub struct RelayTimings {
    /// Worker threads.
    pub threads: usize,
    /// Loading the graph.
    pub load_s: f64,
    /// Resolving owners, values and the map.
    pub plan_s: f64,
    /// Every owner's diffusion.
    pub relay_s: f64,
    /// `responses.csv` (with `responses`; absent otherwise).
    #[serde(skip_serializing_if = "is_zero")]
    pub responses_s: f64,
    /// Figures.
    pub plots_s: f64,
    /// Everything.
    pub total_s: f64,
}

const WHAT: &str = "a row of the relay's output";

fn is_zero(x: &f64) -> bool {
    *x == 0.0
}

/// Loads the graph, runs the relay in this process and writes every output
/// into `opts.out` atomically.
pub fn relay_to_dir(
    config: &RelayConfig,
    opts: &OutputOptions,
) -> Result<(RelaySummary, RelayTimings)> {
    run_here(Relay(config), opts)
}

/// [`relay_to_dir`] on an executor. In one process the owners run in
/// chunks on its threads; over a cluster the protocol runs as the round
/// exchange ([`RelayPlan::run_on`]): peer 0 writes the outputs, byte for
/// byte those of a local run (`timings.json` apart), the other peers compute
/// their parts, write nothing and return `None`.
pub fn relay_to_dir_on(
    config: &RelayConfig,
    opts: &OutputOptions,
    exec: &impl RoundExecutor,
) -> Result<Option<(RelaySummary, RelayTimings)>> {
    run_to_dir(Relay(config), opts, exec)
}

/// `relay` as a [`Job`].
struct Relay<'c>(&'c RelayConfig);

/// What a relay run merged: the counts, and the seconds of the diffusion
/// and of `responses.csv` (streamed right after it, where the outputs are
/// written).
struct Relayed {
    stats: RunStats,
    relay_s: f64,
    responses_s: f64,
}

impl<E: RoundExecutor> Job<E> for Relay<'_> {
    type Summary = RelaySummary;
    type Timings = RelayTimings;
    type Ground<'g> = Distances<'g>;
    type Plan<'g>
        = RelayPlan<'g>
    where
        Self: 'g;
    type Ran = Relayed;
    const RUNNING: &'static str = "relaying";

    fn prepare(&mut self) -> Result<()> {
        self.0.check()
    }

    fn load(&mut self) -> Result<Graph> {
        load_sim_graph(&self.0.sim)
    }

    fn ground<'g>(&self, graph: &'g Graph) -> Result<Distances<'g>> {
        let sim = &self.0.sim;
        Distances::new(graph, sim.distance, &sim.distance_options)
    }

    fn plan<'p, 'g: 'p>(
        &'p self,
        graph: &'g Graph,
        ground: &'p Distances<'g>,
    ) -> Result<RelayPlan<'p>> {
        RelayPlan::new(self.0, graph, ground)
    }

    fn run(&self, plan: &mut RelayPlan<'_>, at: At<'_, E>) -> Result<Option<Relayed>> {
        let At {
            exec, dir, control, ..
        } = at;
        let t = Instant::now();
        let Some(stats) = plan.run_on(exec, RelayEngine::Auto, control)? else {
            return Ok(None);
        };
        let relay_s = t.elapsed().as_secs_f64();
        let mut responses_s = 0.0;
        if let Some(dir) = dir.filter(|_| self.0.sim.responses) {
            // Every recipient's read-out, in simulate's rows and writer
            // (issue 33 item 13): computed here, where the outputs are written.
            let t = Instant::now();
            let n = self.0.sim.dim;
            let mut rows = CsvSink::<ResponseRow>::create(dir, "responses.csv", WHAT, n, &[])?;
            plan.responses_into(&mut rows, control)?;
            rows.finish()?;
            responses_s = t.elapsed().as_secs_f64();
        }
        Ok(Some(Relayed {
            stats,
            relay_s,
            responses_s,
        }))
    }

    fn files<'a>(&'a self, plan: &'a RelayPlan<'_>, ran: &'a Relayed) -> Result<Vec<RunFile<'a>>> {
        let (tables, _) = relay_tables(plan, &ran.stats)?;
        Ok(tables
            .into_iter()
            .map(|(name, bytes)| RunFile::bytes(name, bytes))
            .collect())
    }

    fn summary(&self, plan: &RelayPlan<'_>, ran: &Relayed) -> Result<RelaySummary> {
        Ok(summarize(plan, &ran.stats))
    }

    fn draw(&self, plan: &RelayPlan<'_>, ran: &Relayed, dir: &Path) -> Result<()> {
        #[cfg(feature = "plots")]
        {
            let rows = bucket_rows(&ran.stats, plan.buckets(), plan.fractions());
            super::plot::relay::draw(dir, &rows)?;
        }
        #[cfg(not(feature = "plots"))]
        let _ = (plan, ran, dir);
        Ok(())
    }

    fn timings(&self, t: Phases, _: &RelayPlan<'_>, ran: &Relayed) -> RelayTimings {
        RelayTimings {
            threads: t.threads,
            load_s: t.load_s,
            plan_s: t.distances_s + t.plan_s,
            relay_s: ran.relay_s,
            responses_s: ran.responses_s,
            plots_s: t.plots_s,
            total_s: t.total_s,
        }
    }
}

/// A file of a run directory in memory: its name and its bytes.
pub type NamedFile = (&'static str, Vec<u8>);

/// The files of a finished run, formatted in memory as `relay --out`
/// writes them: `relay.csv`, `relay_by_distance.csv` and `summary.json`
/// (the Python package returns these bytes); also the by-distance rows, for
/// the figure.
pub fn relay_files(
    plan: &RelayPlan<'_>,
    stats: &RunStats,
) -> Result<(Vec<NamedFile>, Vec<RelayByDistanceRow>)> {
    let (mut files, by_distance) = relay_tables(plan, stats)?;
    let summary = json_bytes("summary.json", &summarize(plan, stats))?;
    files.push(("summary.json", summary));
    Ok((files, by_distance))
}

/// `relay.csv` and `relay_by_distance.csv` of a finished run, and the
/// by-distance rows.
fn relay_tables(
    plan: &RelayPlan<'_>,
    stats: &RunStats,
) -> Result<(Vec<NamedFile>, Vec<RelayByDistanceRow>)> {
    let labels: Vec<String> = plan
        .owners()
        .iter()
        .map(|&o| plan.graph().ids().label(o).to_string())
        .collect();
    let rows = owner_rows(stats, &labels, plan.fractions());
    let by_distance = bucket_rows(stats, plan.buckets(), plan.fractions());
    let files = vec![
        ("relay.csv", csv_bytes("relay.csv", 0, &rows)?),
        (
            "relay_by_distance.csv",
            csv_bytes("relay_by_distance.csv", 0, &by_distance)?,
        ),
    ];
    Ok((files, by_distance))
}

/// `responses.csv` of a relay run in memory (the Python package's
/// `responses=True`): the rows of [`RelayPlan::responses_into`], formatted
/// as `relay --responses` and `simulate --responses` write them.
pub fn relay_responses_csv(plan: &RelayPlan<'_>, control: &Control) -> Result<NamedFile> {
    let mut rows: Vec<ResponseRow> = Vec::new();
    plan.responses_into(&mut rows, control)?;
    let n = plan.config().sim.dim;
    Ok(("responses.csv", csv_bytes("responses.csv", n, &rows)?))
}

/// The header of `R` (vectors of `n` columns) and its rows, as the run's
/// CSV writers format them.
fn csv_bytes<R: CsvRow>(name: &str, n: usize, rows: &[R]) -> Result<Vec<u8>> {
    let fail = |e: std::io::Error| {
        if e.kind() == std::io::ErrorKind::InvalidData {
            Error::Numerical(format!("{name}: {e} ({WHAT} is not a finite number)"))
        } else {
            Error::Numerical(format!("{name}: {e}"))
        }
    };
    let mut w =
        table::Writer::with_header(Vec::new(), table::columns::<R>(n, &[])).map_err(fail)?;
    for r in rows {
        w.row(r).map_err(fail)?;
    }
    w.into_inner().map_err(fail)
}

/// Reads the `config` object of a relay `summary.json` (or, without a `sim`
/// member, a `simulate` summary's configuration with the default fractions).
pub fn relay_config_from_summary(path: &Path) -> Result<RelayConfig> {
    let config = config_object(path)?;
    if config.get("sim").is_some() {
        return config_as(path, config);
    }
    Ok(RelayConfig {
        sim: config_as(path, config)?,
        ..RelayConfig::default()
    })
}

/// The default output directory: `runs/<graph stem>-relay` (the view
/// appended as for `simulate`, before `-relay`).
pub fn relay_default_out_dir(config: &RelayConfig) -> PathBuf {
    super::simulate::sim_default_out_dir_of(&config.sim, "relay")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn default_out_dir_is_the_graph_stem_and_relay() {
        let c = RelayConfig::default();
        assert_eq!(
            relay_default_out_dir(&c),
            PathBuf::from("runs/geometric150-relay")
        );
    }
}
