//! `gossip --out DIR`: `privacy.csv`, `privacy_by_distance.csv`,
//! `utility.csv` (`utility`'s columns), `coalition.csv` (with coalitions),
//! `two_schools.csv`, `summary.json`, `timings.json` and the figures
//! (`utility.png`, `privacy.png` and their SVGs),
//! in a staging directory that replaces DIR only when complete (the rules of
//! every run: an explicit DIR must be new unless `force`).

use super::memory::HeldFile;
use crate::error::{Error, Result};
use crate::exec::Local;
use crate::gossip::{
    CoalitionLossRow, GossipConfig, GossipOutput, GossipSummary, GossipTimings, PrivacyRow,
    TwoSchoolsRow, run_gossip,
};
use crate::graph::{Graph, LoadOptions, load_graph};
use crate::io::driver::OutputOptions;
use crate::io::driver::{At, Job, Phases, RunFile, run_here};
use crate::io::run_dir::json_bytes;
use crate::io::summary::{config_as, config_object};
use crate::util::table::{CsvRow, columns};
use crate::utility::UtilityRow;
use std::path::Path;

/// The header of `privacy_by_distance.csv`: per hop, the pairs, then the
/// mean, median and maximum of each column of `privacy.csv`.
fn privacy_by_distance_header() -> Vec<String> {
    let mut head = vec![
        "distance".to_string(),
        "pairs".into(),
        "pairs_paper".into(),
        "pairs_exact".into(),
    ];
    for c in ["rdp_paper", "rdp_exact", "eps_paper", "eps_exact"] {
        for s in ["mean", "median", "max"] {
            head.push(format!("{c}_{s}"));
        }
    }
    head
}

/// Every file of a gossip run, formatted in memory, in the order they are
/// written (the tables with their typed rows, then `summary.json`).
pub fn gossip_files(out: &GossipOutput) -> Result<Vec<HeldFile>> {
    let mut files = gossip_tables(out)?;
    let summary = json_bytes("summary.json", &out.summary)?;
    files.push(HeldFile::bytes("summary.json", summary));
    Ok(files)
}

/// The CSV files of a gossip run, formatted in memory, in order.
fn gossip_tables(out: &GossipOutput) -> Result<Vec<HeldFile>> {
    fn table<R: CsvRow + Clone + Send + Sync + 'static>(
        name: &'static str,
        header: Vec<String>,
        rows: &[R],
    ) -> Result<HeldFile> {
        HeldFile::table(name, header, rows.to_vec(), |e| {
            Error::Numerical(format!("{name} could not be formatted: {e}"))
        })
    }
    let mut files = vec![
        table("privacy.csv", columns::<PrivacyRow>(0, &[]), &out.privacy)?,
        table(
            "privacy_by_distance.csv",
            privacy_by_distance_header(),
            &out.by_distance,
        )?,
        table("utility.csv", columns::<UtilityRow>(0, &[]), &out.utility)?,
    ];
    if !out.coalitions.is_empty() {
        let header = columns::<CoalitionLossRow>(0, &[]);
        files.push(table("coalition.csv", header, &out.coalitions)?);
    }
    let header = columns::<TwoSchoolsRow>(0, &[]);
    files.push(table("two_schools.csv", header, &out.two_schools)?);
    Ok(files)
}

/// The graph of a gossip run (edge list, then the view).
pub fn load_gossip_graph(config: &GossipConfig) -> Result<Graph> {
    let g = load_graph(
        &config.graph,
        &LoadOptions {
            nodes_file: config.nodes.clone(),
            ..LoadOptions::default()
        },
    )?;
    match &config.view {
        Some(v) => v.apply(&g),
        None => Ok(g),
    }
}

/// Loads the graph, runs gossip and writes every output into `opts.out`
/// atomically.
pub fn gossip_to_dir(
    config: &GossipConfig,
    opts: &OutputOptions,
) -> Result<(GossipSummary, GossipTimings)> {
    run_here(Gossip(config), opts)
}

/// `gossip` as a [`Job`]: one process, no distance route (the engine
/// times its own phases).
struct Gossip<'c>(&'c GossipConfig);

impl Job<Local> for Gossip<'_> {
    type Summary = GossipSummary;
    type Timings = GossipTimings;
    type Ground<'g> = ();
    type Plan<'g>
        = &'g Graph
    where
        Self: 'g;
    type Ran = GossipOutput;
    const RUNNING: &'static str = "gossiping";

    fn prepare(&mut self) -> Result<()> {
        self.0.check()
    }

    fn load(&mut self) -> Result<Graph> {
        load_gossip_graph(self.0)
    }

    fn ground(&self, _: &Graph) -> Result<()> {
        Ok(())
    }

    fn plan<'p, 'g: 'p>(&'p self, graph: &'g Graph, _: &'p ()) -> Result<&'p Graph> {
        Ok(graph)
    }

    fn run(&self, graph: &mut &Graph, at: At<'_, Local>) -> Result<Option<GossipOutput>> {
        run_gossip(graph, self.0, at.control).map(Some)
    }

    fn files<'a>(&'a self, _: &'a &Graph, ran: &'a GossipOutput) -> Result<Vec<RunFile<'a>>> {
        let files = gossip_tables(ran)?;
        Ok(files
            .into_iter()
            .map(|f| RunFile::bytes(f.name, f.bytes))
            .collect())
    }

    fn summary(&self, _: &&Graph, ran: &GossipOutput) -> Result<GossipSummary> {
        Ok(ran.summary.clone())
    }

    fn draw(&self, _: &&Graph, ran: &GossipOutput, dir: &Path) -> Result<()> {
        #[cfg(feature = "plots")]
        {
            crate::io::plot::utility::draw(dir, &ran.utility)?;
            crate::io::plot::gossip::draw(dir, &ran.by_distance, &ran.two_schools)?;
        }
        #[cfg(not(feature = "plots"))]
        let _ = (ran, dir);
        Ok(())
    }

    fn timings(&self, t: Phases, _: &&Graph, ran: &GossipOutput) -> GossipTimings {
        GossipTimings {
            load_s: t.load_s,
            plots_s: t.plots_s,
            total_s: t.total_s,
            ..ran.timings.clone()
        }
    }
}

/// Reads the `config` object of a `summary.json` written by `gossip`.
pub fn gossip_config_from_summary(path: &Path) -> Result<GossipConfig> {
    config_as(path, config_object(path)?)
}
