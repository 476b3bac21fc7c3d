//! One driver for every run directory (issue 32 item 2): a command is a
//! [`Job`] — what it checks before the graph, how it loads the graph, sets
//! up its distances and plans, how it runs on an executor, its files, its
//! summary, its figures and its `timings.json` — and [`run_to_dir`] owns the
//! order every command keeps: checks, `--out` claimed once (a second run
//! into the same new directory fails at once), each phase timed, the files
//! written into a staging directory, `summary.json`, the figures,
//! `timings.json`, then the directory committed; on any error nothing is
//! left behind. A job whose directory is live ([`Place::Live`]: `evolve`)
//! keeps the same order in `--out` itself, claimed by `OUT.lock`: what it
//! writes while running stays readable after a crash, and nothing needs a
//! commit. On a cluster's process that does not merge, the same graph,
//! distances and plan are built, its share computed and sent, nothing is
//! written and the result is `None`.

use super::live_dir::LiveDir;
use super::run_dir::{StagedDir, at_destination, claim_out_dir, json_bytes, write_with};
use crate::control::Control;
use crate::error::{Error, Result};
use crate::exec::{Executor, Local};
use crate::graph::Graph;
use crate::util::AtomicDir;
use serde::Serialize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::time::Instant;

/// How and where a run is written (options that do not change the numbers).
#[derive(Clone, Debug)]
pub struct OutputOptions {
    /// Output directory.
    pub out: PathBuf,
    /// The directory was given explicitly: it must not exist yet (unless
    /// `force`); a new one is claimed at once. A default one is replaced.
    pub explicit_out: bool,
    /// Replace an existing output directory.
    pub force: bool,
    /// Draw the figures.
    pub plots: bool,
    /// Cancellation and progress reports.
    pub control: Control,
}

/// The seconds of a run's phases, measured by [`run_to_dir`]; each job
/// lays them out as its own `timings.json` ([`Job::timings`]).
#[derive(Clone, Copy, Debug, Default)]
pub struct Phases {
    /// Worker threads.
    pub threads: usize,
    /// Loading the graph (and the checks against it).
    pub load_s: f64,
    /// Setting up the distance route.
    pub distances_s: f64,
    /// Planning: owners, values and the map.
    pub plan_s: f64,
    /// Running on the executor.
    pub run_s: f64,
    /// Writing the files and `summary.json`.
    pub write_s: f64,
    /// Drawing the figures (0 without them).
    pub plots_s: f64,
    /// Everything, from the claim of `--out` to `timings.json`.
    pub total_s: f64,
}

/// A writer of one file's bytes (a table over typed rows, or bytes already
/// formatted).
pub type FileWriter<'a> = Box<dyn FnOnce(&mut dyn Write) -> std::io::Result<()> + 'a>;

/// One file of a run directory: its name and its writer.
pub struct RunFile<'a> {
    /// The file's name in the run directory.
    pub name: &'static str,
    /// Writes its bytes.
    pub write: FileWriter<'a>,
}

impl<'a> RunFile<'a> {
    /// The file `name` written by `write`.
    pub fn new(
        name: &'static str,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<()> + 'a,
    ) -> Self {
        RunFile {
            name,
            write: Box::new(write),
        }
    }

    /// The file `name` of bytes already formatted.
    pub fn bytes(name: &'static str, bytes: Vec<u8>) -> Self {
        RunFile::new(name, move |w| w.write_all(&bytes))
    }

    /// The file's bytes, in memory.
    pub fn into_bytes(self) -> std::io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        (self.write)(&mut bytes)?;
        Ok(bytes)
    }
}

/// Where a job's run directory is written.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Place {
    /// In a staging directory that replaces `--out` when complete (an
    /// explicit `--out` must be new unless `force`).
    Staged,
    /// In `--out` itself ([`LiveDir`]): a directory that holds files is
    /// refused unless `force` or the run `continues` the one that wrote
    /// them (a resumed `evolve`).
    Live {
        /// The run continues the one whose files `--out` holds.
        continues: bool,
    },
}

/// Where a job runs: its executor, its directory for the files it writes
/// while running (`None` on a process that writes nothing) and the run's
/// control.
pub struct At<'a, E> {
    /// The executor.
    pub exec: &'a E,
    /// The staging directory, where this process writes ([`Place::Staged`]).
    pub dir: Option<&'a AtomicDir>,
    /// The live directory ([`Place::Live`]).
    pub live: Option<&'a LiveDir>,
    /// Cancellation and progress.
    pub control: &'a Control,
}

/// A command as [`run_to_dir`] runs it, on executors of type `E`.
pub trait Job<E: Executor> {
    /// What `summary.json` holds (also returned).
    type Summary: Serialize;
    /// What `timings.json` holds (also returned).
    type Timings: Serialize;
    /// What the job needs between the graph and its plan (the distances).
    type Ground<'g>;
    /// The plan, borrowing the graph and the ground.
    type Plan<'g>
    where
        Self: 'g;
    /// What a run merged where the executor merges.
    type Ran;

    /// The progress phase while running (`"simulating"`).
    const RUNNING: &'static str;

    /// Where the run directory is written (staged unless the job says).
    fn place(&self) -> Place {
        Place::Staged
    }

    /// Everything that needs no graph, on every process, before `--out` is
    /// claimed.
    fn prepare(&mut self) -> Result<()>;

    /// The graph, and what the job checks or fits against it.
    fn load(&mut self) -> Result<Graph>;

    /// The distance route on `graph`.
    fn ground<'g>(&self, graph: &'g Graph) -> Result<Self::Ground<'g>>;

    /// The plan.
    fn plan<'p, 'g: 'p>(
        &'p self,
        graph: &'g Graph,
        ground: &'p Self::Ground<'g>,
    ) -> Result<Self::Plan<'p>>;

    /// Runs the plan on `at.exec`: the merged result where it merges,
    /// `None` elsewhere.
    fn run(&self, plan: &mut Self::Plan<'_>, at: At<'_, E>) -> Result<Option<Self::Ran>>;

    /// The files written after the run, in order (before `summary.json`).
    fn files<'a>(
        &'a self,
        plan: &'a Self::Plan<'_>,
        ran: &'a Self::Ran,
    ) -> Result<Vec<RunFile<'a>>>;

    /// `summary.json`.
    fn summary(&self, plan: &Self::Plan<'_>, ran: &Self::Ran) -> Result<Self::Summary>;

    /// Draws the figures into `dir` (the staging directory).
    fn draw(&self, plan: &Self::Plan<'_>, ran: &Self::Ran, dir: &Path) -> Result<()>;

    /// `timings.json` from the phases measured.
    fn timings(&self, phases: Phases, plan: &Self::Plan<'_>, ran: &Self::Ran) -> Self::Timings;

    /// The bytes of `timings.json` (pretty JSON ended by a newline).
    fn timings_json(&self, timings: &Self::Timings) -> Result<Vec<u8>> {
        json_bytes("timings.json", timings)
    }
}

/// Runs `job` on `exec` and writes its run directory `opts.out` (see the
/// module's documentation). Returns the summary and timings where the
/// executor merges, `None` elsewhere.
pub fn run_to_dir<E: Executor, J: Job<E>>(
    mut job: J,
    opts: &OutputOptions,
    exec: &E,
) -> Result<Option<(J::Summary, J::Timings)>> {
    // Everything that needs no graph, before the graph is read.
    job.prepare()?;
    if !exec.merges_here() {
        // The same graph, distances and plan (deterministic, so the same
        // chunks); this process's share computed and sent.
        let graph = job.load()?;
        let ground = job.ground(&graph)?;
        let mut plan = job.plan(&graph, &ground)?;
        let control = &opts.control;
        job.run(
            &mut plan,
            At {
                exec,
                dir: None,
                live: None,
                control,
            },
        )?;
        return Ok(None);
    }
    if opts.plots {
        super::check_plots_available()?;
    }
    let dir = OutDir::claim(job.place(), opts)?;
    let t0 = Instant::now();
    let mut phases = Phases {
        threads: rayon::current_num_threads(),
        ..Phases::default()
    };
    let mut clock = Clock::new(&opts.control, "loading the graph");
    let graph = job.load()?;
    phases.load_s = clock.next("preparing distances");
    let ground = job.ground(&graph)?;
    phases.distances_s = clock.next("planning");
    let mut plan = job.plan(&graph, &ground)?;
    phases.plan_s = clock.next(J::RUNNING);
    let control = &opts.control;
    let ran = job
        .run(
            &mut plan,
            At {
                exec,
                dir: dir.staged(),
                live: dir.live(),
                control,
            },
        )?
        .ok_or_else(|| Error::Unsupported("process 0 and local runs merge".into()))?;
    phases.run_s = clock.next("writing outputs");
    for file in job.files(&plan, &ran)? {
        dir.write(file.name, file.write)?;
    }
    let summary = job.summary(&plan, &ran)?;
    let bytes = json_bytes("summary.json", &summary)?;
    dir.write("summary.json", |w| w.write_all(&bytes))?;
    phases.write_s = clock.seconds();
    if opts.plots {
        clock.next("drawing figures");
        dir.draw(|at| job.draw(&plan, &ran, at))?;
        phases.plots_s = clock.seconds();
    }
    phases.total_s = t0.elapsed().as_secs_f64();
    let timings = job.timings(phases, &plan, &ran);
    let bytes = job.timings_json(&timings)?;
    dir.write("timings.json", |w| w.write_all(&bytes))?;
    dir.commit()?;
    Ok(Some((summary, timings)))
}

/// The run directory being written, staged or live ([`Place`]).
enum OutDir {
    Staged(StagedDir),
    Live(LiveDir),
}

impl OutDir {
    /// Claims `opts.out` the way `place` says.
    fn claim(place: Place, opts: &OutputOptions) -> Result<OutDir> {
        Ok(match place {
            Place::Staged => {
                OutDir::Staged(claim_out_dir(&opts.out, opts.explicit_out, opts.force)?)
            }
            Place::Live { continues } => {
                OutDir::Live(LiveDir::claim(&opts.out, opts.force, continues)?)
            }
        })
    }

    fn staged(&self) -> Option<&AtomicDir> {
        match self {
            OutDir::Staged(dir) => Some(&**dir),
            OutDir::Live(_) => None,
        }
    }

    fn live(&self) -> Option<&LiveDir> {
        match self {
            OutDir::Staged(_) => None,
            OutDir::Live(dir) => Some(dir),
        }
    }

    /// Writes file `name` with `write`.
    fn write(
        &self,
        name: &str,
        write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<()> {
        match self {
            OutDir::Staged(dir) => write_with(dir, name, write),
            OutDir::Live(dir) => dir.sink().replace(name, write),
        }
    }

    /// Draws the figures with `draw` into the directory being written
    /// (paths in its errors shown at the destination).
    fn draw(&self, draw: impl FnOnce(&Path) -> Result<()>) -> Result<()> {
        match self {
            OutDir::Staged(dir) => draw(dir.staging()).map_err(|e| at_destination(dir, e)),
            OutDir::Live(dir) => draw(dir.path()),
        }
    }

    /// Puts a staged directory in place (a live one is already there; its
    /// claim is released).
    fn commit(self) -> Result<()> {
        match self {
            OutDir::Staged(dir) => Ok(dir.commit()?),
            OutDir::Live(_) => Ok(()),
        }
    }
}

/// [`run_to_dir`] in this process (which always merges).
pub fn run_here<J: Job<Local>>(job: J, opts: &OutputOptions) -> Result<(J::Summary, J::Timings)> {
    run_to_dir(job, opts, &Local)?
        .ok_or_else(|| Error::Unsupported("a local run merges and writes".into()))
}

/// The seconds of the phase under way, each announced to the control.
struct Clock<'c> {
    control: &'c Control,
    since: Instant,
}

impl<'c> Clock<'c> {
    fn new(control: &'c Control, first: &'static str) -> Self {
        control.phase(first);
        Clock {
            control,
            since: Instant::now(),
        }
    }

    /// Seconds of the phase under way.
    fn seconds(&self) -> f64 {
        self.since.elapsed().as_secs_f64()
    }

    /// Ends the phase under way (its seconds returned) and starts `what`.
    fn next(&mut self, what: &'static str) -> f64 {
        let seconds = self.seconds();
        self.control.phase(what);
        self.since = Instant::now();
        seconds
    }
}

/// The graph of a run configured by `sim`: refused in one line when it is
/// the default graph and that is not here (run from elsewhere than the
/// repository's root), else loaded with its view.
pub(crate) fn load_sim_graph(sim: &crate::sim::SimConfig) -> Result<Graph> {
    if sim.graph == Path::new(crate::sim::DEFAULT_GRAPH) && !sim.graph.exists() {
        return Err(Error::Unsupported(format!(
            "the default graph {} is not here: run from the privdiffuse repository root, or pass `graph` = PATH",
            sim.graph.display()
        )));
    }
    sim.load_graph()
}
