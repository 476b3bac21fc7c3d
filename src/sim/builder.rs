//! [`Simulation`]: a simulation described by typed values and run in memory,
//! the library's face of `privdiffuse simulate` (example on [`Simulation`]).
//!
//! Setters only record; [`Simulation::run`] validates the whole description
//! (through [`Plan::new`]) and fails with an [`Error`](crate::error::Error) naming
//! the parameter. Nothing is written to disk. The owners run in parallel on
//! the caller's rayon pool (`pool.install(|| sim.run())` to choose the
//! threads); results do not depend on it. The numbers are those of
//! `privdiffuse simulate` with the same options, bit for bit.

use super::chunk::Counts;
use super::config::SimConfig;
use super::plan::Plan;
use super::rows::{ByDistanceRow, EgoRow, JumpRow, OwnerRow, PathRow, ResponseRow};
use super::run::{MechanismTotal, SimResult, Sinks};
use crate::control::Control;
use crate::epsilon::EpsilonMap;
use crate::error::Result;
use crate::graph::Graph;
use crate::sink::RecordSink;
use crate::values::ValueSpec;
use std::path::Path;

/// The per-row outputs a run can keep in memory (by default none is built;
/// see [`Simulation::keep`]), one per CSV file of `simulate`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Rows {
    /// Every jump of every correlated path (`jumps.csv`).
    Jumps,
    /// One row per owner (`owners.csv`).
    Owners,
    /// The first owners' full paths (`paths.csv`; see `path_owners`).
    Paths,
    /// The first owner's recipients and errors (`ego.csv`).
    Ego,
    /// One row per answer (`responses.csv`): large.
    Responses,
}

impl Rows {
    /// Every kind, in file order.
    pub const ALL: [Rows; 5] = [
        Rows::Jumps,
        Rows::Owners,
        Rows::Paths,
        Rows::Ego,
        Rows::Responses,
    ];

    /// The file `simulate` writes these rows to.
    pub fn file_name(self) -> &'static str {
        match self {
            Rows::Jumps => "jumps.csv",
            Rows::Owners => "owners.csv",
            Rows::Paths => "paths.csv",
            Rows::Ego => "ego.csv",
            Rows::Responses => "responses.csv",
        }
    }
}

/// The rows a run kept in memory ([`Simulation::keep`]), one list per
/// output (`None`: not kept).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct KeptRows {
    /// `jumps.csv`.
    pub jumps: Option<Vec<JumpRow>>,
    /// `owners.csv`.
    pub owners: Option<Vec<OwnerRow>>,
    /// `paths.csv`.
    pub paths: Option<Vec<PathRow>>,
    /// `ego.csv`.
    pub ego: Option<Vec<EgoRow>>,
    /// `responses.csv`.
    pub responses: Option<Vec<ResponseRow>>,
}

/// A kept list as the sink of its rows.
fn as_sink<R: Send>(rows: &mut Option<Vec<R>>) -> Option<&mut dyn RecordSink<R>> {
    rows.as_mut().map(|v| v as &mut dyn RecordSink<R>)
}

/// A row type [`Simulation::keep`] can keep: the row of one [`Rows`] output,
/// read from a [`SimOutput`] with [`SimOutput::rows`].
pub trait KeptRow: Sized {
    /// The output these rows belong to.
    const KIND: Rows;
    /// These rows among the kept ones, if kept.
    fn kept(rows: &KeptRows) -> Option<&[Self]>;
}

macro_rules! kept_row {
    ($t:ty, $kind:ident, $field:ident) => {
        impl KeptRow for $t {
            const KIND: Rows = Rows::$kind;
            fn kept(rows: &KeptRows) -> Option<&[Self]> {
                rows.$field.as_deref()
            }
        }
    };
}

kept_row!(JumpRow, Jumps, jumps);
kept_row!(OwnerRow, Owners, owners);
kept_row!(PathRow, Paths, paths);
kept_row!(EgoRow, Ego, ego);
kept_row!(ResponseRow, Responses, responses);

/// The setters shared by [`Simulation`] and
/// [`Collusion`](crate::collusion::Collusion): each records one option of the
/// [`SimConfig`] reached through the given field path.
macro_rules! sim_setters {
    ($($field:ident).+) => {
        /// The privacy map ε(d), with its clamps if it has any (replacing
        /// earlier ones). Default `range:0.5..15`.
        pub fn eps(mut self, map: $crate::epsilon::EpsilonMap) -> Self {
            let c = &mut self.$($field).+;
            c.eps_min = map.eps_min();
            c.eps_max = map.eps_max();
            c.eps = map;
            self
        }

        /// Clamps of ε (parameters `eps_min`, `eps_max`): every level is bounded
        /// to `[eps_min, eps_max]`; `eps_min` is also the level of unreachable
        /// members under [`Unreachable::Floor`](crate::sim::Unreachable::Floor).
        pub fn eps_clamp(mut self, eps_min: Option<f64>, eps_max: Option<f64>) -> Self {
            let c = &mut self.$($field).+;
            c.eps_min = eps_min;
            c.eps_max = eps_max;
            self
        }

        /// How distances are measured (default hop).
        pub fn distance(mut self, kind: $crate::distance::DistanceKind) -> Self {
            self.$($field).+.distance = kind;
            self
        }

        /// Options of the resistance routes (cap, sketch size, tolerance, seed).
        pub fn distance_options(mut self, options: $crate::distance::DistanceOptions) -> Self {
            self.$($field).+.distance_options = options;
            self
        }

        /// Buckets of the by-distance rows for continuous distances (default 20).
        pub fn bins(mut self, bins: usize) -> Self {
            self.$($field).+.bins = bins;
            self
        }

        /// Dimension n of the private values (default 2).
        pub fn dim(mut self, dim: usize) -> Self {
            self.$($field).+.dim = dim;
            self
        }

        /// Norm of the Laplace noise (default ℓ2).
        pub fn norm(mut self, norm: $crate::process::Norm) -> Self {
            self.$($field).+.norm = norm;
            self
        }

        /// Mechanism(s) compared (default correlated and independent).
        pub fn mechanism(mut self, mechanism: $crate::mechanism::MechanismChoice) -> Self {
            self.$($field).+.mechanism = mechanism;
            self
        }

        /// δ of the Gaussian mechanism (default 1e-5).
        pub fn delta(mut self, delta: f64) -> Self {
            self.$($field).+.delta = delta;
            self
        }

        /// The owners' private values (default `auto`: the coordinates beside
        /// the graph file when n = 2, else uniform on [0, 1)).
        pub fn values(mut self, values: $crate::values::ValueSpec) -> Self {
            self.$($field).+.values = values;
            self
        }

        /// Sensitivity Δ: noise at level ε has scale Δ/ε (default 1).
        pub fn sensitivity(mut self, sensitivity: f64) -> Self {
            self.$($field).+.sensitivity = sensitivity;
            self
        }

        /// Post-processing of the answers (default none).
        pub fn post(mut self, post: $crate::post::Post) -> Self {
            self.$($field).+.post = post;
            self
        }

        /// Which owners share their values.
        pub fn owners(mut self, owners: $crate::sim::Owners) -> Self {
            self.$($field).+.owners = owners;
            self
        }

        /// Members the owner cannot reach: skipped (default) or answered at
        /// `eps_min`.
        pub fn unreachable(mut self, unreachable: $crate::sim::Unreachable) -> Self {
            self.$($field).+.unreachable = unreachable;
            self
        }

        /// Master seed (default 1): every (seed, owner, trial, purpose) has its
        /// own generator ([`rng_for`](crate::rng_for)).
        pub fn seed(mut self, seed: u64) -> Self {
            self.$($field).+.seed = seed;
            self
        }

        /// Cancellation token and progress callback, checked and told between
        /// batches of owners.
        pub fn control(mut self, control: $crate::control::Control) -> Self {
            self.control = control;
            self
        }
    };
}

pub(crate) use sim_setters;

/// A simulation over a loaded graph, described by typed values (defaults:
/// those of `privdiffuse simulate`).
///
/// ```
/// use privdiffuse::{EpsilonMap, Graph, MechanismChoice, Norm, Owners, Simulation};
/// # fn main() -> Result<(), privdiffuse::Error> {
/// let g = Graph::load("data/geometric150.edges")?;
/// let out = Simulation::new(&g)
///     .eps(EpsilonMap::exp(3.0, 1.0)?)
///     .dim(1)
///     .norm(Norm::L1)
///     .mechanism(MechanismChoice::Both)
///     .owners(Owners::Count(20))
///     .seed(5)
///     .run()?;
/// for row in out.by_distance() {
///     println!("{} {} {} {}", row.mechanism, row.distance_lo, row.mse, row.mse_theory);
/// }
/// // The two mechanisms answer the same recipients at the same levels:
/// // each single answer is equally accurate (only coalitions tell them apart).
/// let (cor, ind): (Vec<_>, Vec<_>) =
///     out.by_distance().iter().partition(|r| r.mechanism == "correlated");
/// assert_eq!(cor.len(), ind.len());
/// for (c, i) in cor.iter().zip(&ind) {
///     assert_eq!((c.distance_lo, c.count, c.mse_theory), (i.distance_lo, i.count, i.mse_theory));
/// }
/// // The paths' jumps are Poisson: count within 6 standard deviations of the mean.
/// let c = out.counts();
/// assert!((c.jumps as f64 - c.jumps_expected).abs() < 6.0 * c.jumps_expected.sqrt());
/// # Ok(()) }
/// ```
#[derive(Clone)]
pub struct Simulation<'g> {
    graph: &'g Graph,
    config: SimConfig,
    control: Control,
    keep: Vec<Rows>,
}

impl<'g> Simulation<'g> {
    /// A simulation of `graph` with the default options; the graph's
    /// [`source`](Graph::source) is where `values = auto` looks for
    /// coordinates.
    pub fn new(graph: &'g Graph) -> Self {
        let config = SimConfig {
            graph: graph.source().map(Path::to_path_buf).unwrap_or_default(),
            directed: graph.is_directed(),
            ..SimConfig::default()
        };
        Simulation::with_config(graph, config)
    }

    /// A simulation of `graph` described by `config` (its `graph`, `nodes`
    /// and `directed` are not read again: the graph is given; `graph` still
    /// locates the coordinates of `values = auto`).
    pub fn with_config(graph: &'g Graph, config: SimConfig) -> Self {
        Simulation {
            graph,
            config,
            control: Control::default(),
            keep: Vec::new(),
        }
    }

    sim_setters!(config);

    /// How many owners' full paths [`Rows::Paths`] holds (default 4).
    pub fn path_owners(mut self, owners: usize) -> Self {
        self.config.path_owners = owners;
        self
    }

    /// Runs `k` independent replicates of the whole mechanism (paths and
    /// answers) on the same distances: replicates `0..k` (default 1).
    pub fn replicates(mut self, k: u32) -> Self {
        self.config.first_replicate = 0;
        self.config.replicates = k;
        self
    }

    /// Runs replicates `range` only, each with exactly the numbers it has in
    /// a run of replicates `0..k` for any `k ≥ range.end` (an empty range is
    /// refused by [`Simulation::run`]).
    pub fn replicate_range(mut self, range: std::ops::Range<u32>) -> Self {
        self.config.first_replicate = range.start;
        self.config.replicates = range.end.saturating_sub(range.start);
        self
    }

    /// Owners whose answers [`Rows::Ego`] records (default: the first owner).
    pub fn ego_owners<S: Into<String>>(mut self, ids: impl IntoIterator<Item = S>) -> Self {
        self.config.ego_owners = Some(ids.into_iter().map(Into::into).collect());
        self
    }

    /// Keeps these per-row outputs in memory, as typed rows
    /// ([`SimOutput::rows`], [`SimOutput::jumps`], …).
    pub fn keep(mut self, rows: impl IntoIterator<Item = Rows>) -> Self {
        for r in rows {
            if !self.keep.contains(&r) {
                self.keep.push(r);
            }
        }
        self.config.responses = self.keep.contains(&Rows::Responses);
        self
    }

    /// The configuration as recorded so far (what `summary.json` would echo).
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// Validates the description (`delta` without the Gaussian mechanism
    /// and `bins` on hops refused), prepares the distances and runs every
    /// owner. Nothing is written to disk.
    pub fn run(&self) -> Result<SimOutput> {
        self.config.refuse_unused()?;
        let distances = super::distances_for(&self.config, self.graph)?;
        let plan = Plan::new(&self.config, self.graph, &distances)?;
        let keeps = |r: Rows| self.keep.contains(&r);
        let mut kept = KeptRows {
            jumps: keeps(Rows::Jumps).then(Vec::new),
            owners: keeps(Rows::Owners).then(Vec::new),
            paths: keeps(Rows::Paths).then(Vec::new),
            ego: keeps(Rows::Ego).then(Vec::new),
            responses: keeps(Rows::Responses).then(Vec::new),
        };
        let result = {
            let mut sinks = Sinks {
                jumps: as_sink(&mut kept.jumps),
                owners: as_sink(&mut kept.owners),
                paths: as_sink(&mut kept.paths),
                ego: as_sink(&mut kept.ego),
                responses: as_sink(&mut kept.responses),
            };
            plan.run(&mut sinks, &self.control)?
        };
        let observed = plan.observed();
        Ok(SimOutput {
            result,
            map: plan.map().clone(),
            values: plan.values().spec().clone(),
            observed: observed.0.is_finite().then_some(observed),
            kept,
            config: self.config.clone(),
        })
    }
}

/// What a [`Simulation`] produced.
#[derive(Clone, Debug)]
pub struct SimOutput {
    result: SimResult,
    map: EpsilonMap,
    values: ValueSpec,
    observed: Option<(f64, f64)>,
    kept: KeptRows,
    config: SimConfig,
}

impl SimOutput {
    /// Accuracy per mechanism and distance bucket: the rows of
    /// `by_distance.csv`, in its order.
    pub fn by_distance(&self) -> &[ByDistanceRow] {
        &self.result.rows
    }

    /// Overall empirical and theoretical MSE per mechanism.
    pub fn totals(&self) -> &[MechanismTotal] {
        &self.result.totals
    }

    /// Owners, answers, skipped members, jumps (observed and expected).
    pub fn counts(&self) -> &Counts {
        &self.result.counts
    }

    /// The privacy map used, clamped (a `range` map resolved).
    pub fn map(&self) -> &EpsilonMap {
        &self.map
    }

    /// The private values used (`auto` resolved).
    pub fn values(&self) -> &ValueSpec {
        &self.values
    }

    /// Smallest and largest owner-to-member distance, when the run needed
    /// them (a `range` map or continuous distances).
    pub fn observed_distances(&self) -> Option<(f64, f64)> {
        self.observed
    }

    /// Every kept row list ([`Simulation::keep`]).
    pub fn kept(&self) -> &KeptRows {
        &self.kept
    }

    /// Kept rows as typed values, in file order: [`JumpRow`], [`OwnerRow`],
    /// [`PathRow`], [`EgoRow`] or [`ResponseRow`] — the rows `simulate`
    /// writes to [`Rows::file_name`], the same values (no text in between).
    ///
    /// Errors: [`Error::Parameter`](crate::error::Error::Parameter) naming `keep`
    /// when `T`'s rows were not kept.
    ///
    /// ```
    /// use privdiffuse::sim::{JumpRow, OwnerRow, Rows};
    /// use privdiffuse::{EpsilonMap, Graph, Owners, Simulation};
    /// # fn main() -> Result<(), privdiffuse::Error> {
    /// let g = Graph::load("data/karate.edges")?;
    /// let out = Simulation::new(&g)
    ///     .eps(EpsilonMap::exp(3.0, 1.0)?)
    ///     .owners(Owners::Count(5))
    ///     .keep([Rows::Jumps, Rows::Owners])
    ///     .run()?;
    /// let owners: &[OwnerRow] = out.rows()?;
    /// let jumps: &[JumpRow] = out.rows()?;
    /// // Every jump belongs to an owner's path, and owners.csv counts them.
    /// assert_eq!(owners.len(), 5);
    /// assert_eq!(jumps.len() as u64, owners.iter().map(|o| o.jumps).sum::<u64>());
    /// assert_eq!(jumps.len() as u64, out.counts().jumps);
    /// // Each jump lies inside its owner's range of levels.
    /// for j in jumps {
    ///     let o = owners.iter().find(|o| o.owner == j.owner).unwrap();
    ///     let r = o.range().unwrap();
    ///     assert!(r.eps_lo <= j.eps && j.eps <= r.eps_hi);
    /// }
    /// assert!(out.rows::<privdiffuse::sim::EgoRow>().is_err()); // not kept
    /// # Ok(()) }
    /// ```
    pub fn rows<T: KeptRow>(&self) -> Result<&[T]> {
        T::kept(&self.kept).ok_or_else(|| {
            let kind = T::KIND;
            crate::error::Error::param(
                "keep",
                format!("{kind:?}"),
                format!(
                    "a list with Rows::{kind:?} to read the rows of {}",
                    kind.file_name()
                ),
            )
        })
    }

    /// Every jump of every correlated path ([`Rows::Jumps`] kept).
    pub fn jumps(&self) -> Result<&[JumpRow]> {
        self.rows()
    }

    /// One row per owner ([`Rows::Owners`] kept).
    pub fn owners(&self) -> Result<&[OwnerRow]> {
        self.rows()
    }

    /// The first owners' paths, breakpoint by breakpoint ([`Rows::Paths`] kept).
    pub fn paths(&self) -> Result<&[PathRow]> {
        self.rows()
    }

    /// The recorded owners' recipients ([`Rows::Ego`] kept).
    pub fn ego(&self) -> Result<&[EgoRow]> {
        self.rows()
    }

    /// Every answer ([`Rows::Responses`] kept): as many rows as answers.
    pub fn responses(&self) -> Result<&[ResponseRow]> {
        self.rows()
    }

    /// The configuration that was run.
    pub fn config(&self) -> &SimConfig {
        &self.config
    }

    /// The rows, totals and counts by value.
    pub fn into_result(self) -> SimResult {
        self.result
    }
}
