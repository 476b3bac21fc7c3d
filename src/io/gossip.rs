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
    CoalitionLossRow, GossipConfig, GossipOutput, GossipSummary, GossipTimings,
    PrivacyByDistanceRow, PrivacyRow, Stats, TwoSchoolsRow, run_gossip,
};
use crate::graph::{Graph, LoadOptions, load_graph};
use crate::io::driver::OutputOptions;
use crate::io::driver::{At, Job, Phases, RunFile, run_here};
use crate::io::run_dir::json_bytes;
use crate::io::summary::{config_as, config_object};
use crate::io::utility::num;
use std::io::Write;
use std::path::Path;

/// The header of `privacy.csv`.
pub const PRIVACY_HEADER: &str = "source,observer,distance,rdp_paper,rdp_exact,eps_paper,eps_exact";

fn opt(x: Option<f64>) -> std::io::Result<String> {
    Ok(x.map(num).transpose()?.unwrap_or_default())
}

fn field(s: &str) -> String {
    let mut out = String::new();
    crate::util::table::push_field(&mut out, s);
    out
}

/// Writes `privacy.csv`.
pub fn write_privacy_csv(w: &mut impl Write, rows: &[PrivacyRow]) -> std::io::Result<()> {
    writeln!(w, "{PRIVACY_HEADER}")?;
    for r in rows {
        writeln!(
            w,
            "{},{},{},{},{},{},{}",
            field(&r.source),
            field(&r.observer),
            r.distance,
            opt(r.rdp_paper)?,
            opt(r.rdp_exact)?,
            opt(r.eps_paper)?,
            opt(r.eps_exact)?,
        )?;
    }
    Ok(())
}

/// Writes `privacy_by_distance.csv`: per hop, the pairs and the mean,
/// median and maximum of each column of `privacy.csv`.
pub fn write_privacy_by_distance_csv(
    w: &mut impl Write,
    rows: &[PrivacyByDistanceRow],
) -> std::io::Result<()> {
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
    writeln!(w, "{}", head.join(","))?;
    for r in rows {
        let mut line = format!(
            "{},{},{},{}",
            r.distance, r.pairs, r.pairs_paper, r.pairs_exact
        );
        for s in [&r.rdp_paper, &r.rdp_exact, &r.eps_paper, &r.eps_exact] {
            let Stats { mean, median, max } = *s;
            for x in [mean, median, max] {
                line.push(',');
                line.push_str(&opt(x)?);
            }
        }
        writeln!(w, "{line}")?;
    }
    Ok(())
}

/// Writes `coalition.csv`.
pub fn write_coalition_csv(w: &mut impl Write, rows: &[CoalitionLossRow]) -> std::io::Result<()> {
    writeln!(
        w,
        "source,coalition,members,rank,rdp_coalition,eps_coalition,rdp_max_member,eps_max_member"
    )?;
    for r in rows {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{}",
            field(&r.source),
            field(&r.coalition),
            r.members,
            r.rank,
            opt(r.rdp_coalition)?,
            opt(r.eps_coalition)?,
            opt(r.rdp_max_member)?,
            opt(r.eps_max_member)?,
        )?;
    }
    Ok(())
}

/// Writes `two_schools.csv`.
pub fn write_two_schools_csv(w: &mut impl Write, rows: &[TwoSchoolsRow]) -> std::io::Result<()> {
    writeln!(
        w,
        "distance,statistic,pairs,rdp_gossip,mu,eps_gossip,sigma_diffusion,eps_laplace,\
         mse_gossip,mse_gossip_theory,mse_diffusion_gaussian,mse_diffusion_laplace,\
         mse_diffusion_laplace_at_delta"
    )?;
    for r in rows {
        writeln!(
            w,
            "{},{},{},{},{},{},{},{},{},{},{},{},{}",
            r.distance.map(|d| d.to_string()).unwrap_or_default(),
            r.statistic,
            r.pairs,
            opt(r.rdp_gossip)?,
            opt(r.mu)?,
            opt(r.eps_gossip)?,
            opt(r.sigma_diffusion)?,
            opt(r.eps_laplace)?,
            opt(r.mse_gossip)?,
            opt(r.mse_gossip_theory)?,
            opt(r.mse_diffusion_gaussian)?,
            opt(r.mse_diffusion_laplace)?,
            opt(r.mse_diffusion_laplace_at_delta)?,
        )?;
    }
    Ok(())
}

/// Every file of a gossip run, formatted in memory (name, bytes), in the
/// order they are written.
pub fn gossip_files(out: &GossipOutput) -> Result<Vec<HeldFile>> {
    let mut files: Vec<HeldFile> = gossip_tables(out)?
        .into_iter()
        .map(|(name, bytes)| HeldFile::bytes(name, bytes))
        .collect();
    let summary = json_bytes("summary.json", &out.summary)?;
    files.push(HeldFile::bytes("summary.json", summary));
    Ok(files)
}

/// The CSV files of a gossip run, formatted in memory, in order.
fn gossip_tables(out: &GossipOutput) -> Result<Vec<(&'static str, Vec<u8>)>> {
    let fail = |name: &str, e: std::io::Error| {
        Error::Numerical(format!("{name} could not be formatted: {e}"))
    };
    let mut files = Vec::new();
    let mut w = Vec::new();
    write_privacy_csv(&mut w, &out.privacy).map_err(|e| fail("privacy.csv", e))?;
    files.push(("privacy.csv", w));
    let mut w = Vec::new();
    write_privacy_by_distance_csv(&mut w, &out.by_distance)
        .map_err(|e| fail("privacy_by_distance.csv", e))?;
    files.push(("privacy_by_distance.csv", w));
    let mut w = Vec::new();
    crate::io::utility::write_utility_csv(&mut w, &out.utility)
        .map_err(|e| fail("utility.csv", e))?;
    files.push(("utility.csv", w));
    if !out.coalitions.is_empty() {
        let mut w = Vec::new();
        write_coalition_csv(&mut w, &out.coalitions).map_err(|e| fail("coalition.csv", e))?;
        files.push(("coalition.csv", w));
    }
    let mut w = Vec::new();
    write_two_schools_csv(&mut w, &out.two_schools).map_err(|e| fail("two_schools.csv", e))?;
    files.push(("two_schools.csv", w));
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
            .map(|(name, bytes)| RunFile::bytes(name, bytes))
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
