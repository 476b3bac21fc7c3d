//! `evolve` as a [`Job`] of the one driver ([`run_to_dir`](super::driver::run_to_dir)):
//! its directory is live ([`Place::Live`]), `timeline.csv` rewritten from
//! the store after every committed batch (a killed run leaves a readable
//! timeline; a resumed run, same store, continues into its own `--out`),
//! then `summary.json`, the figure `timeline.png/.svg` and `timings.json`
//! at the end.

use super::driver::{At, Job, OutputOptions, Phases, Place, RunFile, run_here};
use crate::error::{Error, Result};
use crate::evolve::{Evolve, EvolveConfig, EvolveOutput, Timings};
use crate::exec::Local;
use crate::graph::Graph;
use crate::store::TimelineRow;
use crate::util::table::{Columns, RowSink, Writer, columns};
use std::io::Write;
use std::path::{Path, PathBuf};

/// The default output directory of a run on `store`: the store's path
/// without `.db`, plus `-evolve`.
pub fn default_out(store: &Path) -> PathBuf {
    let stem = store
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_else(|| "store".into());
    store.with_file_name(format!("{stem}-evolve"))
}

/// Runs (or with `resume`, continues) the evolving release `config` and
/// writes its directory `opts.out` (the rule of every face: one run at a
/// time into OUT, claimed before the store is opened; a directory that
/// holds files refused unless `force` or the store exists). With
/// `full_recompute`, every owner is recomputed at every batch (a
/// measurement: the same results).
pub fn evolve_to_dir(
    config: &EvolveConfig,
    full_recompute: bool,
    opts: &OutputOptions,
) -> Result<EvolveOutput> {
    let job = EvolveJob {
        config,
        full_recompute,
    };
    Ok(run_here(job, opts)?.0.run)
}

/// `evolve` as a [`Job`]: one process; the engine loads its events, opens
/// the store and times its own phases.
struct EvolveJob<'c> {
    config: &'c EvolveConfig,
    full_recompute: bool,
}

impl EvolveJob<'_> {
    fn evolve(&self) -> Evolve {
        self.config.evolve().full_recompute(self.full_recompute)
    }
}

/// What [`evolve_to_dir`]'s driver returns: the run, and `summary.json`
/// (what it serialises to).
struct EvolveSummary {
    run: EvolveOutput,
    json: serde_json::Value,
}

impl serde::Serialize for EvolveSummary {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        self.json.serialize(s)
    }
}

impl Job<Local> for EvolveJob<'_> {
    type Summary = EvolveSummary;
    type Timings = Timings;
    type Ground<'g> = ();
    type Plan<'g>
        = &'g Graph
    where
        Self: 'g;
    type Ran = EvolveOutput;
    const RUNNING: &'static str = "evolving";

    fn place(&self) -> Place {
        // A resumed run (its store exists) continues its own timeline; a
        // run into an existing store without `resume` is refused by the
        // store before anything is written, in its own words.
        Place::Live {
            continues: self.config.store.symlink_metadata().is_ok(),
        }
    }

    fn prepare(&mut self) -> Result<()> {
        self.evolve().check()
    }

    fn load(&mut self) -> Result<Graph> {
        self.evolve().load_start()
    }

    fn ground(&self, _: &Graph) -> Result<()> {
        Ok(())
    }

    fn plan<'p, 'g: 'p>(&'p self, start: &'g Graph, _: &'p ()) -> Result<&'p Graph> {
        Ok(start)
    }

    fn run(&self, start: &mut &Graph, at: At<'_, Local>) -> Result<Option<EvolveOutput>> {
        let mut ev = self.evolve().control(at.control.clone());
        if let Some(dir) = at.live {
            // The committed timeline after every batch.
            let sink = dir.sink();
            ev = ev
                .on_batch(move |rows| sink.replace("timeline.csv", |w| write_timeline_to(w, rows)));
        }
        ev.run_on(start).map(Some)
    }

    fn files<'a>(&'a self, _: &'a &Graph, ran: &'a EvolveOutput) -> Result<Vec<RunFile<'a>>> {
        Ok(vec![RunFile::new("timeline.csv", |w| {
            write_timeline_to(w, &ran.timeline)
        })])
    }

    fn summary(&self, _: &&Graph, ran: &EvolveOutput) -> Result<EvolveSummary> {
        Ok(EvolveSummary {
            run: ran.clone(),
            json: summary_json(ran)?,
        })
    }

    fn draw(&self, _: &&Graph, ran: &EvolveOutput, dir: &Path) -> Result<()> {
        #[cfg(feature = "plots")]
        super::plot::timeline::draw(dir, &ran.timeline)?;
        #[cfg(not(feature = "plots"))]
        let _ = (ran, dir);
        Ok(())
    }

    fn timings(&self, _: Phases, _: &&Graph, ran: &EvolveOutput) -> Timings {
        ran.seconds
    }

    fn timings_json(&self, timings: &Timings) -> Result<Vec<u8>> {
        // evolve's `timings.json` has always been written without a newline.
        serde_json::to_vec_pretty(timings)
            .map_err(|e| Error::Numerical(format!("timings.json: {e}")))
    }
}

/// The text of `timeline.csv` for `rows` (the Python package's tables).
pub fn timeline_csv(rows: &[TimelineRow]) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    write_timeline_to(&mut out, rows).map_err(|e| Error::io("timeline.csv", e))?;
    Ok(out)
}

/// The columns of `timeline.csv` for `rows`: the rows and header of its text.
pub fn timeline_columns(rows: &[TimelineRow]) -> Result<Columns> {
    timeline_into(rows, |h| Ok(Columns::new(h))).map_err(|e| Error::io("timeline.csv", e))
}

fn write_timeline_to(out: &mut dyn Write, rows: &[TimelineRow]) -> std::io::Result<()> {
    timeline_into(rows, |h| Writer::with_header(out, h))?.into_inner()?;
    Ok(())
}

/// The rows of `timeline.csv` in the sink `new` makes of its header.
fn timeline_into<S: RowSink>(
    rows: &[TimelineRow],
    new: impl FnOnce(Vec<String>) -> std::io::Result<S>,
) -> std::io::Result<S> {
    // `pairs_skipped` only once a batch skipped a pair (0 in the rows
    // before it): the timeline of a run that skips none keeps its bytes.
    let skipped = rows.iter().any(|r| r.pairs_skipped.is_some());
    let leave_out: &[&str] = if skipped { &[] } else { &["pairs_skipped"] };
    let mut w = new(columns::<TimelineRow>(0, leave_out))?;
    for r in rows {
        if skipped && r.pairs_skipped.is_none() {
            w.row(&TimelineRow {
                pairs_skipped: Some(0),
                ..r.clone()
            })?;
        } else {
            w.row(r)?;
        }
    }
    Ok(w)
}

/// `summary.json`: configuration, counts, the last batch's three policies,
/// the store's size (and its skipped pairs, its discrete record).
fn summary_json(out: &EvolveOutput) -> Result<serde_json::Value> {
    let last = out.timeline.last();
    let policy = |mse: Option<f64>, spent: Option<f64>| serde_json::json!({ "mse": mse, "eps_spent": spent });
    let mut summary = serde_json::json!({
        "version": env!("CARGO_PKG_VERSION"),
        "config": out.config,
        "batches": out.batches,
        "committed": out.timeline.len().saturating_sub(1),
        "answers": { "implied_batch0": out.implied, "explicit": out.explicit },
        "pairs": last.map(|r| r.pairs),
        "last_batch": {
            "correlated": last.map(|r| policy(r.mse, r.eps_spent)),
            "mse_theory": last.and_then(|r| r.mse_theory),
            "resample": last.map(|r| policy(r.resample_mse, r.resample_eps_spent)),
            "frozen": last.map(|r| policy(r.frozen_mse, r.frozen_eps_spent)),
        },
        "store_bytes": out.store_bytes,
    });
    // Pairs out of range (issue 33 item 5): recorded only when there are.
    if let Some(n) = last.and_then(|r| r.pairs_skipped)
        && let Some(m) = summary.as_object_mut()
    {
        m.insert("pairs_skipped".into(), n.into());
    }
    // A discrete store's record: γ, m, Δ_Z and the entropy (issue 25).
    if let Ok(crate::store::Family::Discrete { noise, rng, .. }) = out.config.family()
        && let Some(m) = summary.as_object_mut()
    {
        let record = crate::process::discrete::DiscreteSummary::of(&noise, rng);
        m.insert(
            "discrete".into(),
            serde_json::to_value(record)
                .map_err(|e| Error::Numerical(format!("summary.json: {e}")))?,
        );
    }
    Ok(summary)
}
