//! `evolve`: releases over a network that changes, from one stored path per
//! owner (issue 24 item 3; thesis §3.1.1, §3.2.2, the gradual-release
//! chapter).
//!
//! Batch 0 releases `u + V_ε(d)` to every reachable pair of START. Then, per
//! batch of `batch` events: the events are applied, the distances of the
//! owners they can affect are recomputed, and every pair whose level
//! `ε = min(map(d), top)` rose above the largest it was ever released gets a
//! new answer read from the *same* path; a pair that becomes reachable gets
//! its first. Nothing is revoked. Each batch is one transaction of the
//! [`Store`](crate::store::Store); a killed run continues from the last
//! committed batch with [`Evolve::resume`], and the answers and the timeline
//! are those of an uninterrupted run, whatever the thread count.
//!
//! The timeline also measures, in the same run, two other policies on the
//! same trigger: `resample` (a fresh independent answer at each new ε, from
//! a stream keyed by (seed, owner, recipient, batch); privacy spent = Σ ε,
//! accuracy of the inverse-variance pooling of all answers) and `frozen` (a
//! pair's first answer only).
//!
//! With `noise = discrete` (issue 25) each owner's path is the integer
//! chain anchored at the rung of the top ([`crate::store::OwnerPath`]),
//! levels are the rungs at or below `min(map(d), top)` (a pair is answered
//! again only when its rung rises), answers are `(û + X)·γ`, and `mse_theory`
//! is the discrete law's variance at the rung plus the owner's rounding.
//! The `resample` policy draws fresh discrete answers at the same rungs and
//! pools them with weights 1/variance; it and `frozen` read seeded streams
//! whatever the paths' entropy.
//!
//! Which owners a batch can affect: for hop and weighted distances, owner o
//! is recomputed when a removed edge (u, v, w) was tight (`d(o,u) + w =
//! d(o,v)`, either way) or an added one shortens a distance (`d(o,u) + w <
//! d(o,v)`), tested on o's current distances — exact for Dijkstra's and
//! BFS's fixed point, so the result equals full recomputation (tested); for
//! resistance distances every owner is recomputed.

mod config;
mod engine;
mod events;
mod graph;
mod holdout;
mod pairs;
mod relax;
mod resume;

pub use config::EvolveConfig;
pub use events::read_events;
pub use holdout::{HeldOut, hold_out};

use crate::control::Control;
use crate::distance::DistanceKind;
use crate::epsilon::EpsilonMap;
use crate::error::Result;
use crate::graph::{Graph, HeaderMode};
use crate::process::Norm;
use crate::process::discrete::NoiseOptions;
use crate::sim::Owners;
use crate::store::{StoreConfig, TimelineRow};
use crate::values::ValueSpec;
use std::path::{Path, PathBuf};

/// An evolving release, described by typed values (defaults: those of
/// `privdiffuse evolve`), run by [`Evolve::run`].
///
/// ```no_run
/// use privdiffuse::evolve::Evolve;
/// use privdiffuse::EpsilonMap;
/// # fn main() -> Result<(), privdiffuse::Error> {
/// let out = Evolve::new("start.edges", "start.events.csv", "release.db")
///     .eps(EpsilonMap::exp(3.0, 1.0)?)
///     .dim(1)
///     .batch(100)
///     .seed(1)
///     .run()?;
/// let last = out.timeline.last().unwrap();
/// println!("privacy spent {:?}, resample {:?}", last.eps_spent, last.resample_eps_spent);
/// # Ok(()) }
/// ```
pub struct Evolve {
    pub(crate) graph: PathBuf,
    pub(crate) nodes: Option<PathBuf>,
    pub(crate) header: HeaderMode,
    pub(crate) events: PathBuf,
    pub(crate) store: PathBuf,
    pub(crate) eps: EpsilonMap,
    pub(crate) eps_max: Option<f64>,
    pub(crate) distance: DistanceKind,
    pub(crate) dim: usize,
    pub(crate) norm: Norm,
    pub(crate) values: ValueSpec,
    pub(crate) owners: Owners,
    pub(crate) seed: u64,
    pub(crate) batch: usize,
    pub(crate) resume: bool,
    pub(crate) noise: NoiseOptions,
    pub(crate) on_batch: Option<OnBatch>,
    pub(crate) control: Control,
    pub(crate) full_recompute: bool,
    pub(crate) stop_after: Option<u64>,
}

/// What [`Evolve::on_batch`] calls with the committed timeline.
pub type OnBatch = Box<dyn FnMut(&[TimelineRow]) -> Result<()> + Send>;

/// What [`Evolve::run`] produced.
#[derive(Clone, Debug)]
pub struct EvolveOutput {
    /// The timeline, batch 0 first (every committed batch).
    pub timeline: Vec<TimelineRow>,
    /// The store's configuration.
    pub config: StoreConfig,
    /// Batches in the events file (K; the timeline has K + 1 rows when done).
    pub batches: u64,
    /// The batch this run started from (0 for a new store; after a resume,
    /// the first batch it computed).
    pub started_at: u64,
    /// Pairs released at batch 0 (implied answers).
    pub implied: u64,
    /// Explicit releases in the store.
    pub explicit: u64,
    /// The store's size in bytes at the end.
    pub store_bytes: u64,
    /// Seconds: batch 0 (or the replay of a resumed store), the batches
    /// after it, the store's share of them (transactions).
    pub seconds: Timings,
}

/// Wall-clock seconds of a run.
#[derive(Clone, Copy, Debug, Default, serde::Serialize)]
pub struct Timings {
    /// Batch 0, or rebuilding the state of a resumed store.
    pub batch0: f64,
    /// The batches after it.
    pub batches: f64,
    /// Committing them to the store, on the writer thread: it overlaps
    /// the next batch's computation, so `store + distances` may exceed
    /// `batches`.
    pub store: f64,
    /// Of `batches`, updating distances (graph rebuilt, searches or
    /// relaxations, releases).
    pub distances: f64,
    /// Owners recomputed over all batches after 0.
    pub owners_recomputed: u64,
    /// Of which lowered by relaxation from the added edges (hop distances,
    /// no tight edge removed) instead of a new search.
    pub owners_relaxed: u64,
    /// Whether a resume rebuilt the state by replaying batch 0 (a store
    /// without stored sums for its last batch); a cheap resume does not.
    pub full_replay: bool,
}

impl Evolve {
    /// An evolving release of the START edge list `graph` under the events
    /// file `events`, kept in the store file `store`.
    pub fn new(
        graph: impl AsRef<Path>,
        events: impl AsRef<Path>,
        store: impl AsRef<Path>,
    ) -> Evolve {
        Evolve {
            graph: graph.as_ref().to_path_buf(),
            nodes: None,
            header: HeaderMode::Auto,
            events: events.as_ref().to_path_buf(),
            store: store.as_ref().to_path_buf(),
            eps: EpsilonMap::range(0.5, 15.0).expect("the default map is valid"),
            eps_max: None,
            distance: DistanceKind::Hop,
            dim: 2,
            norm: Norm::L2,
            values: ValueSpec::Auto,
            owners: Owners::All,
            seed: 1,
            batch: 100,
            resume: false,
            noise: NoiseOptions::default(),
            on_batch: None,
            control: Control::default(),
            full_recompute: false,
            stop_after: None,
        }
    }

    /// A file of node ids that exist from the start (nodes that appear only
    /// on later events).
    pub fn nodes(mut self, nodes: impl AsRef<Path>) -> Self {
        self.nodes = Some(nodes.as_ref().to_path_buf());
        self
    }

    /// Whether START's first data line is a header (default `auto`: see
    /// [`HeaderMode`]).
    pub fn header(mut self, header: HeaderMode) -> Self {
        self.header = header;
        self
    }

    /// The privacy map (a `range:` map is resolved once on START). Default `range:0.5..15`.
    pub fn eps(mut self, map: EpsilonMap) -> Self {
        self.eps = map;
        self
    }

    /// The clamp `eps_max`, which is also the paths' top: required for
    /// weighted and resistance distances; default ε(1) for hop.
    pub fn eps_max(mut self, eps_max: Option<f64>) -> Self {
        self.eps_max = eps_max;
        self
    }

    /// Distance kind: hop (default), weighted or resistance.
    pub fn distance(mut self, kind: DistanceKind) -> Self {
        self.distance = kind;
        self
    }

    /// Dimension n of the values (default 2).
    pub fn dim(mut self, dim: usize) -> Self {
        self.dim = dim;
        self
    }

    /// Norm of the noise (default ℓ2).
    pub fn norm(mut self, norm: Norm) -> Self {
        self.norm = norm;
        self
    }

    /// The private values, drawn once on START ∪ `nodes` (default `auto`).
    pub fn values(mut self, values: ValueSpec) -> Self {
        self.values = values;
        self
    }

    /// Which nodes own a value and a path (default all).
    pub fn owners(mut self, owners: Owners) -> Self {
        self.owners = owners;
        self
    }

    /// Master seed (default 1).
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// Events per batch (default 100).
    pub fn batch(mut self, batch: usize) -> Self {
        self.batch = batch;
        self
    }

    /// Continue the store from its last committed batch (a store with no
    /// committed batch, or no store, starts afresh).
    pub fn resume(mut self, resume: bool) -> Self {
        self.resume = resume;
        self
    }

    /// The noise of the paths (default `laplace`): with `discrete`, each
    /// owner's path is the exact integer chain anchored at the rung of the
    /// top, levels are rungs and answers grid multiples (issue 25); its
    /// entropy is seeded (reproducible) or the operating system's (`os`: a
    /// real release, not reproducible; a resume continues the stored paths
    /// and never draws them again). The `resample` policy, a measurement,
    /// stays on its seeded streams.
    pub fn noise(mut self, noise: NoiseOptions) -> Self {
        self.noise = noise;
        self
    }

    /// Called with the committed timeline after batch 0 and after every
    /// batch (the run directory's `timeline.csv` is rewritten from it, see
    /// `crate::io::evolve`).
    pub fn on_batch(
        mut self,
        f: impl FnMut(&[TimelineRow]) -> Result<()> + Send + 'static,
    ) -> Self {
        self.on_batch = Some(Box::new(f));
        self
    }

    /// Cancellation, checked between batches.
    pub fn control(mut self, control: Control) -> Self {
        self.control = control;
        self
    }

    /// Recompute every owner's distances at every batch instead of those
    /// the events can affect (for measurement and tests: the results are
    /// the same).
    pub fn full_recompute(mut self, full: bool) -> Self {
        self.full_recompute = full;
        self
    }

    /// Stop after committing this batch (tests of resumption).
    #[doc(hidden)]
    pub fn stop_after(mut self, batch: Option<u64>) -> Self {
        self.stop_after = batch;
        self
    }

    /// Runs (or continues) the evolving release.
    pub fn run(mut self) -> Result<EvolveOutput> {
        self.check()?;
        self.control.phase("loading the graph and events");
        let start = self.load_start()?;
        self.run_on(&start)
    }

    /// Refuses, before anything is read, what cannot run (the checks of
    /// [`Evolve::run`]).
    pub(crate) fn check(&self) -> Result<()> {
        engine::check(self)
    }

    /// START (with `nodes`), as [`Evolve::run`] loads it.
    pub(crate) fn load_start(&self) -> Result<Graph> {
        engine::load_start(self)
    }

    /// [`Evolve::run`] after its checks, on START loaded by
    /// [`Evolve::load_start`] (the run directory's driver loads it).
    pub(crate) fn run_on(&mut self, start: &Graph) -> Result<EvolveOutput> {
        engine::run(self, start)
    }
}
