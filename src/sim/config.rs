//! The simulation's configuration: every option that changes the results, with
//! the defaults of the thesis' synthetic experiment. `summary.json` echoes it so
//! that a run can be repeated with `--config summary.json`.

use crate::distance::{DistanceKind, DistanceOptions};
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::graph::{Graph, GraphView, HeaderMode, LoadOptions, load_graph};
use crate::mechanism::{MechanismChoice, NoiseModel};
use crate::post::Post;
use crate::process::Norm;
use crate::process::discrete::options::refuse_gaussian;
use crate::process::discrete::{
    DiscreteNoise, DiscreteSummary, Grid, NoiseKind, NoiseOptions, RngSource, options,
};
use crate::process::family::{Discrete, Gaussian, Laplace, Noise};
use crate::values::ValueSpec;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// The bundled default network (the thesis' 150-node random geometric graph).
pub const DEFAULT_GRAPH: &str = "data/geometric150.edges";

/// What to do with members the owner cannot reach.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Unreachable {
    /// Not answered; counted in `summary.json`.
    #[default]
    Skip,
    /// Answered at `eps_min`.
    Floor,
}

impl std::str::FromStr for Unreachable {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim() {
            "skip" => Ok(Unreachable::Skip),
            "floor" => Ok(Unreachable::Floor),
            _ => Err(Error::param(
                "unreachable",
                s,
                format!(
                    "skip or floor{}",
                    crate::util::suggest::did_you_mean(s, &["skip", "floor"])
                ),
            )),
        }
    }
}

impl std::fmt::Display for Unreachable {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Unreachable::Skip => "skip",
            Unreachable::Floor => "floor",
        })
    }
}

/// Which owners share their values (spec `all`, `N` or `ID,ID,...`; one id
/// is written `17,`).
#[derive(Clone, Debug, PartialEq, Eq, Default)]
pub enum Owners {
    /// Every node, in index order.
    #[default]
    All,
    /// A seeded random sample of this many distinct nodes (≥ 1, at most the
    /// number of nodes), in index order.
    Count(usize),
    /// These original ids, in this order (each once).
    Ids(Vec<String>),
}

const OWNERS_EXPECTED: &str =
    "all, a count N ≥ 1, or a comma-separated list of node ids (one id: `17,`)";
/// `owners = 0`: zero owners, or the one owner with id 0? Refused on every
/// face; the command line adds its `--owner` flag where a command has one
/// (`cli::common::owners_or_owner`).
pub const OWNERS_ZERO: &str = "a count N ≥ 1 (the one owner with id 0 is the list `0,`)";

impl Owners {
    /// Checks what needs no graph: a count ≥ 1, a non-empty list of ids that
    /// can be written back as a spec.
    pub fn check(&self) -> Result<()> {
        match self {
            Owners::All => Ok(()),
            Owners::Count(0) => Err(Error::param("owners", 0, OWNERS_ZERO)),
            Owners::Count(_) => Ok(()),
            Owners::Ids(ids) if ids.is_empty() => {
                Err(Error::param("owners", "", "at least one node id"))
            }
            Owners::Ids(ids) => match ids
                .iter()
                .find(|id| id.trim().is_empty() || id.trim() != *id || id.contains(','))
            {
                Some(id) => Err(Error::param(
                    "owners",
                    id,
                    "node ids without commas or surrounding blanks",
                )),
                None => Ok(()),
            },
        }
    }
}

impl std::str::FromStr for Owners {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        let t = s.trim();
        if t == "all" {
            return Ok(Owners::All);
        }
        if !t.contains(',') {
            return match t.parse::<usize>() {
                Ok(0) => Err(Error::param("owners", s, OWNERS_ZERO)),
                Err(_) => Err(Error::param("owners", s, OWNERS_EXPECTED)),
                Ok(n) => Ok(Owners::Count(n)),
            };
        }
        let ids: Vec<String> = t
            .split(',')
            .map(str::trim)
            .filter(|x| !x.is_empty())
            .map(String::from)
            .collect();
        if ids.is_empty() {
            return Err(Error::param("owners", s, "at least one node id"));
        }
        Ok(Owners::Ids(ids))
    }
}

impl std::fmt::Display for Owners {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Owners::All => f.write_str("all"),
            Owners::Count(n) => write!(f, "{n}"),
            // One id keeps its comma so that it reads back as a list.
            Owners::Ids(ids) if ids.len() == 1 => write!(f, "{},", ids[0]),
            Owners::Ids(ids) => f.write_str(&ids.join(",")),
        }
    }
}

impl Serialize for Owners {
    fn serialize<S: serde::Serializer>(&self, s: S) -> std::result::Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}

/// Reads the spec string (as `summary.json` records it), and also what a
/// binding or a hand-written JSON gives naturally: a count (`20`) or a list
/// of ids (`[0, "a"]`, integers read as their decimal text).
impl<'de> Deserialize<'de> for Owners {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        let owners = d.deserialize_any(OwnersVisitor)?;
        owners.check().map_err(serde::de::Error::custom)?;
        Ok(owners)
    }
}

struct OwnersVisitor;

impl<'de> serde::de::Visitor<'de> for OwnersVisitor {
    type Value = Owners;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("an owners spec (all, N or ID,ID,...), a count N ≥ 1 or a list of node ids")
    }

    fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<Owners, E> {
        s.parse().map_err(E::custom)
    }

    fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<Owners, E> {
        usize::try_from(n)
            .map(Owners::Count)
            .map_err(|_| E::custom(Error::param("owners", n, OWNERS_EXPECTED)))
    }

    fn visit_i64<E: serde::de::Error>(self, n: i64) -> std::result::Result<Owners, E> {
        match u64::try_from(n) {
            Ok(n) => self.visit_u64(n),
            Err(_) => Err(E::custom(Error::param("owners", n, OWNERS_EXPECTED))),
        }
    }

    fn visit_seq<A: serde::de::SeqAccess<'de>>(
        self,
        mut seq: A,
    ) -> std::result::Result<Owners, A::Error> {
        let mut ids = Vec::new();
        while let Some(NodeId(id)) = seq.next_element()? {
            ids.push(id);
        }
        Ok(Owners::Ids(ids))
    }
}

/// A node id given as text or as an integer (read as its decimal text).
struct NodeId(String);

impl<'de> Deserialize<'de> for NodeId {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> std::result::Result<Self, D::Error> {
        struct V;
        impl serde::de::Visitor<'_> for V {
            type Value = NodeId;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a node id (text or an integer ≥ 0)")
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> std::result::Result<NodeId, E> {
                Ok(NodeId(s.to_string()))
            }
            fn visit_u64<E: serde::de::Error>(self, n: u64) -> std::result::Result<NodeId, E> {
                Ok(NodeId(n.to_string()))
            }
        }
        d.deserialize_any(V)
    }
}

/// `ego_owners`: null or a list of ids (text or integers).
fn ids_as_text<'de, D: serde::Deserializer<'de>>(
    d: D,
) -> std::result::Result<Option<Vec<String>>, D::Error> {
    let ids = Option::<Vec<NodeId>>::deserialize(d)?;
    Ok(ids.map(|v| v.into_iter().map(|NodeId(id)| id).collect()))
}

/// Every option that influences the simulated numbers, typed: each spec is
/// parsed when the configuration is built (from the command line, a sweep
/// point or a `summary.json`), so the engine never sees spec text.
/// `summary.json` echoes it, each spec as its canonical string, so that a run
/// can be repeated with `--config summary.json`.
///
/// The fields are plain values; what depends on several of them is checked by
/// [`SimConfig::check`] (and, with the graph, by `Plan::new`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct SimConfig {
    /// Edge list.
    pub graph: PathBuf,
    /// Optional list of node ids (adds isolated nodes).
    pub nodes: Option<PathBuf>,
    /// Simulate on a view of the graph (`--ego ID[:R]`, `--subgraph FILE`):
    /// distances, owners and recipients are those of the induced subgraph.
    /// Absent from `summary.json` when there is none.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<GraphView>,
    /// Arcs are one-way.
    pub directed: bool,
    /// Whether the edge list's first data line is a header (default `auto`,
    /// absent from `summary.json`: see [`HeaderMode`]).
    #[serde(skip_serializing_if = "HeaderMode::is_auto")]
    pub header: HeaderMode,
    /// Distance kind.
    pub distance: DistanceKind,
    /// Options of the distance routes (resistance cap, sketch size, seed).
    pub distance_options: DistanceOptions,
    /// Buckets for continuous distances (≥ 1).
    pub bins: usize,
    /// Privacy map (clamps excluded: see `eps_min`, `eps_max`).
    pub eps: EpsilonMap,
    /// Lower clamp of ε.
    pub eps_min: Option<f64>,
    /// Upper clamp of ε.
    pub eps_max: Option<f64>,
    /// Unreachable members: skip or answer at `eps_min`.
    pub unreachable: Unreachable,
    /// Dimension of the private values.
    pub dim: usize,
    /// Norm of the Laplace mechanisms.
    pub norm: Norm,
    /// Mechanism(s).
    pub mechanism: MechanismChoice,
    /// δ of the Gaussian mechanism.
    pub delta: f64,
    /// Private values.
    pub values: ValueSpec,
    /// Sensitivity Δ.
    pub sensitivity: f64,
    /// Post-processing of the answers.
    pub post: Post,
    /// Owners.
    pub owners: Owners,
    /// Master seed.
    pub seed: u64,
    /// Write `responses.csv`.
    pub responses: bool,
    /// How many owners' full paths go to `paths.csv`.
    pub path_owners: usize,
    /// Independent realisations of the whole mechanism (paths and answers)
    /// run on the same distances (≥ 1; `summary.json` lists it at its top
    /// level, and in `config` when not 1).
    #[serde(skip_serializing_if = "is_one")]
    pub replicates: u32,
    /// The first replicate run: replicates `first_replicate ..
    /// first_replicate + replicates` are run, each with exactly the numbers
    /// it has in any longer run (replicate r draws from the `trial`
    /// coordinate r of the random streams).
    #[serde(skip_serializing_if = "is_zero")]
    pub first_replicate: u32,
    /// Owners whose answers go to `ego.csv` (ids; `None`: the first owner).
    #[serde(
        skip_serializing_if = "Option::is_none",
        deserialize_with = "ids_as_text"
    )]
    pub ego_owners: Option<Vec<String>>,
    /// Noise: `laplace` (f64, the default) or `discrete` (exact integers on
    /// a grid, issue 25). The three options below apply to `discrete` only;
    /// all four are left out of `summary.json`'s config at their defaults.
    #[serde(skip_serializing_if = "NoiseKind::is_laplace")]
    pub noise: NoiseKind,
    /// Grid γ of the discrete noise (a power of two).
    #[serde(skip_serializing_if = "options::is_default_grid")]
    pub granularity: Grid,
    /// Levels per doubling of the discrete ladder.
    #[serde(skip_serializing_if = "options::is_default_levels")]
    pub levels_per_doubling: u32,
    /// Entropy of the discrete noise: `seeded` or `os` (releases).
    #[serde(skip_serializing_if = "options::is_seeded")]
    pub rng: RngSource,
}

fn is_zero(x: &u32) -> bool {
    *x == 0
}

fn is_one(x: &u32) -> bool {
    *x == 1
}

impl Default for SimConfig {
    /// The thesis' synthetic experiment on the bundled geometric graph.
    fn default() -> Self {
        SimConfig {
            graph: PathBuf::from(DEFAULT_GRAPH),
            nodes: None,
            view: None,
            directed: false,
            header: HeaderMode::Auto,
            distance: DistanceKind::Hop,
            distance_options: DistanceOptions::default(),
            bins: 20,
            eps: EpsilonMap::range(0.5, 15.0).expect("the default map is valid"),
            eps_min: None,
            eps_max: None,
            unreachable: Unreachable::Skip,
            dim: 2,
            norm: Norm::L2,
            mechanism: MechanismChoice::Both,
            delta: 1e-5,
            values: ValueSpec::Auto,
            sensitivity: 1.0,
            post: Post::None,
            owners: Owners::All,
            seed: 1,
            responses: false,
            path_owners: 4,
            replicates: 1,
            first_replicate: 0,
            ego_owners: None,
            noise: NoiseKind::Laplace,
            granularity: Grid::default(),
            levels_per_doubling: options::default_levels(),
            rng: RngSource::Seeded,
        }
    }
}

/// A parameter of the simulation's options that a command built on them
/// does not use ([`SimConfig::refuse_ignored`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Ignored {
    /// `mechanism = independent` (a command of the correlated path only;
    /// `both`, the simulation's default, is its correlated half).
    Independent,
    /// `mechanism` other than its default (a command that runs its own
    /// schemes).
    Mechanism,
    /// `post`.
    Post,
    /// `replicates`.
    Replicates,
    /// `first_replicate`.
    FirstReplicate,
    /// `ego_owners`.
    EgoOwners,
    /// `path_owners`.
    PathOwners,
    /// `responses`.
    Responses,
    /// `bins`.
    Bins,
    /// `delta`.
    Delta,
    /// `resistance_cap`.
    ResistanceCap,
    /// `approx_k`.
    ApproxK,
    /// `approx_tol`.
    ApproxTol,
}

/// Why `delta` is unused by a run without the Gaussian mechanism.
pub(crate) const DELTA_UNUSED: &str = "δ belongs to the Gaussian mechanism";
/// Why `bins` is unused by a run on hop distances.
pub(crate) const BINS_UNUSED: &str =
    "bins bucket continuous distances; hop distances are their own levels";

impl SimConfig {
    /// Refuses `delta` set (away from its default) when no Gaussian
    /// mechanism runs and `bins` when the distances are hops: both were
    /// accepted and ignored by `simulate` and `collude` from Python
    /// keywords and `--config` files (the command line refuses the flags:
    /// [`crate::cli`]'s `refuse_unused_in`).
    pub(crate) fn refuse_unused(&self) -> Result<()> {
        let mut unused = Vec::new();
        if self.mechanism != MechanismChoice::Gaussian {
            unused.push(Ignored::Delta);
        }
        if self.distance == DistanceKind::Hop {
            unused.push(Ignored::Bins);
        }
        if self.distance != DistanceKind::Resistance {
            unused.push(Ignored::ResistanceCap);
        }
        if self.distance != DistanceKind::ResistanceApprox {
            unused.extend([Ignored::ApproxK, Ignored::ApproxTol]);
        }
        self.refuse_set(None, &unused)
    }

    /// Refuses, in one line, a parameter of `ignored` set away from its
    /// default: `command` builds on the simulation's options but does not
    /// use it, and used to accept and ignore it from Python keywords,
    /// `--config` files and sweep keys (its command line has no such flag,
    /// or refuses it: [`crate::cli`]'s `refuse_unused`).
    pub(crate) fn refuse_ignored(&self, command: &str, ignored: &[Ignored]) -> Result<()> {
        self.refuse_set(Some(command), ignored)
    }

    /// The first parameter of `ignored` set away from its default, refused:
    /// `command` does not use it, or (`None`) this run's noise or distance
    /// has no use for it.
    fn refuse_set(&self, command: Option<&str>, ignored: &[Ignored]) -> Result<()> {
        let d = SimConfig::default();
        for &p in ignored {
            let (name, set, value) = match p {
                Ignored::Independent => (
                    "mechanism",
                    self.mechanism == MechanismChoice::Independent,
                    self.mechanism.to_string(),
                ),
                Ignored::Mechanism => (
                    "mechanism",
                    self.mechanism != d.mechanism,
                    self.mechanism.to_string(),
                ),
                Ignored::Post => ("post", self.post != d.post, self.post.to_string()),
                Ignored::Replicates => (
                    "replicates",
                    self.replicates != d.replicates,
                    self.replicates.to_string(),
                ),
                Ignored::FirstReplicate => (
                    "first_replicate",
                    self.first_replicate != d.first_replicate,
                    self.first_replicate.to_string(),
                ),
                Ignored::EgoOwners => (
                    "ego_owners",
                    self.ego_owners.is_some(),
                    self.ego_owners.clone().unwrap_or_default().join(","),
                ),
                Ignored::PathOwners => (
                    "path_owners",
                    self.path_owners != d.path_owners,
                    self.path_owners.to_string(),
                ),
                Ignored::Responses => ("responses", self.responses, "true".to_string()),
                Ignored::Bins => ("bins", self.bins != d.bins, self.bins.to_string()),
                Ignored::Delta => (
                    "delta",
                    self.delta.to_bits() != d.delta.to_bits(),
                    crate::util::fmt_f64(self.delta),
                ),
                Ignored::ResistanceCap => {
                    let (o, d) = (&self.distance_options, &d.distance_options);
                    let v = o.resistance_cap;
                    ("resistance_cap", v != d.resistance_cap, v.to_string())
                }
                Ignored::ApproxK => {
                    let (o, d) = (&self.distance_options, &d.distance_options);
                    ("approx_k", o.approx_k != d.approx_k, o.approx_k.to_string())
                }
                Ignored::ApproxTol => {
                    let (o, d) = (&self.distance_options, &d.distance_options);
                    let set = o.approx_tol.to_bits() != d.approx_tol.to_bits();
                    ("approx_tol", set, crate::util::fmt_f64(o.approx_tol))
                }
            };
            if set {
                let expected = match (p, command) {
                    (Ignored::Delta, None) => format!("no `{name}` here: {DELTA_UNUSED}"),
                    (Ignored::Bins, None) => format!("no `{name}` here: {BINS_UNUSED}"),
                    (Ignored::ResistanceCap, None) => format!(
                        "no `{name}` with `distance` = {}: it caps `distance` = resistance",
                        self.distance
                    ),
                    (Ignored::ApproxK | Ignored::ApproxTol, None) => format!(
                        "no `{name}` with `distance` = {}: it tunes `distance` = \
                         resistance-approx",
                        self.distance
                    ),
                    (_, command) => format!(
                        "no `{name}`: {} does not use it",
                        command.unwrap_or("this run")
                    ),
                };
                return Err(Error::param(name, value, expected));
            }
        }
        Ok(())
    }

    /// Refuses `mechanism = gaussian` in a command that runs only the
    /// Laplace (or discrete) path and would otherwise ignore it: `relay`
    /// and `utility` take `mechanism` from the simulation's options, and
    /// used to run Laplace noise under a Gaussian request (issue 32 item 3).
    pub(crate) fn refuse_gaussian_mechanism(&self, command: &str) -> Result<()> {
        if self.mechanism == MechanismChoice::Gaussian {
            return Err(Error::param(
                "mechanism",
                "gaussian",
                format!(
                    "correlated, independent or both: {command} runs the Laplace or discrete \
                     path only (Gaussian noise: simulate or collude)"
                ),
            ));
        }
        Ok(())
    }

    /// The checks that need no graph: the noise model (`dim`, `sensitivity`,
    /// `delta`), the clamps of the map, `unreachable` against `eps_min`,
    /// `bins` (against the memory budget for continuous distances), `owners`,
    /// and the numbers of `values` and `post` (their
    /// variants can be built directly).
    pub fn check(&self) -> Result<()> {
        NoiseModel::new(self.dim, self.norm, self.sensitivity, self.delta)?;
        self.discrete_noise()?;
        self.values.check()?;
        self.post.check()?;
        self.clamped_map()?;
        if self.unreachable == Unreachable::Floor && self.eps_min.is_none() {
            return Err(Error::param(
                "unreachable",
                "floor",
                "`eps_min` too (unreachable members are answered at `eps_min`)",
            ));
        }
        if self.bins == 0 {
            return Err(Error::param("bins", 0, "an integer ≥ 1"));
        }
        if self.distance != DistanceKind::Hop {
            // Continuous distances keep dense bucket sums per chunk in
            // flight: refuse before any grows (or the graph is even read).
            crate::limits::check_memory(
                "bins",
                self.bins,
                crate::limits::bins_bytes(
                    self.bins,
                    self.mechanism.mechanisms().len(),
                    crate::limits::pool_threads(),
                ),
            )?;
        }
        if self.replicates == 0 {
            return Err(Error::param("replicates", 0, "an integer ≥ 1"));
        }
        let most = crate::limits::MAX_REPLICATES;
        if self.replicates as usize > most {
            return Err(Error::param(
                "replicates",
                self.replicates,
                format!("an integer in 1..={most}"),
            ));
        }
        // Replicate r is the one a longer run has; no run has more than
        // `most`, so no replicate lies beyond them.
        if self.first_replicate as usize + self.replicates as usize > most {
            return Err(Error::param(
                "replicate",
                self.first_replicate,
                format!(
                    "a replicate below {} (a run has at most {most} replicates)",
                    most + 1 - self.replicates as usize
                ),
            ));
        }
        if let Some(ids) = &self.ego_owners
            && ids.is_empty()
        {
            return Err(Error::param("ego_owners", "", "at least one owner id"));
        }
        self.owners.check()
    }

    /// Reads the graph as configured: the edge list (`graph`, `nodes`,
    /// `directed`), then the `view` if any.
    pub fn load_graph(&self) -> Result<Graph> {
        let g = load_graph(
            &self.graph,
            &LoadOptions {
                directed: self.directed,
                nodes_file: self.nodes.clone(),
                header: self.header,
                ..LoadOptions::default()
            },
        )?;
        match &self.view {
            Some(v) => v.apply(&g),
            None => Ok(g),
        }
    }

    /// The replicates run, `first_replicate .. first_replicate + replicates`.
    pub fn replicate_range(&self) -> std::ops::Range<u32> {
        self.first_replicate..self.first_replicate.saturating_add(self.replicates)
    }

    /// The privacy map with the configured clamps.
    pub fn clamped_map(&self) -> Result<EpsilonMap> {
        self.eps.clone().with_clamp(self.eps_min, self.eps_max)
    }
}

impl SimConfig {
    /// The noise options of this configuration.
    pub fn noise_options(&self) -> NoiseOptions {
        NoiseOptions {
            noise: self.noise,
            granularity: self.granularity,
            levels_per_doubling: self.levels_per_doubling,
            rng: self.rng,
        }
    }

    /// The discrete noise of this configuration (`None` for `laplace`), with
    /// the refusals of issue 25: ℓ2 in n ≥ 2, the Gaussian mechanism.
    pub fn discrete_noise(&self) -> Result<Option<DiscreteNoise>> {
        let noise = self
            .noise_options()
            .discrete(self.sensitivity, self.dim, self.norm)?;
        if let Some(n) = &noise {
            // The public range first: no refusal may depend on a secret.
            super::discrete_bound::check_public_range(&self.values, n)?;
        }
        if noise.is_some() && self.mechanism == MechanismChoice::Gaussian {
            return Err(refuse_gaussian(
                "mechanism",
                "gaussian",
                "correlated, independent or both",
            ));
        }
        Ok(noise)
    }

    /// What `summary.json` records of the discrete noise (`None` for `laplace`).
    pub fn discrete_summary(&self) -> Option<DiscreteSummary> {
        let noise = self.discrete_noise().ok()??;
        Some(DiscreteSummary::of(&noise, self.rng))
    }
}

impl SimConfig {
    /// The noise family of this configuration: Gaussian for `mechanism =
    /// gaussian`, the discrete chain for `noise = discrete`, else Laplace.
    pub(crate) fn family(&self) -> Result<Noise> {
        if let Some(noise) = self.discrete_noise()? {
            return Ok(Noise::Discrete(Discrete::new(noise, self.norm, self.rng)));
        }
        Ok(if self.mechanism == MechanismChoice::Gaussian {
            Noise::Gaussian(Gaussian::new(
                self.dim,
                self.norm,
                self.sensitivity,
                self.delta,
            )?)
        } else {
            Noise::Laplace(Laplace::new(self.dim, self.norm, self.sensitivity)?)
        })
    }
}

/// `noise` and `mechanism` among the keys a face was given (`given`: JSON
/// as serde reads a [`SimConfig`]), read together over `base` (the object
/// they overlay) by [`resolve_noise`](crate::mechanism::resolve_noise):
/// `noise = "gaussian"` becomes the configuration's `mechanism =
/// "gaussian"`. Python's keywords and a sweep's keys go through it, the
/// command line's flags through `resolve_noise` itself. Without `noise`
/// in `given`, or without `mechanism` in `base` (a configuration that has
/// no such choice, left to serde to refuse), `given` is left as it is.
/// `noise = "gaussian"` in a `command` without a Gaussian form is refused
/// naming `noise` ([`no_gaussian_form`](crate::mechanism::no_gaussian_form)):
/// folded into `mechanism`, it was refused naming `mechanism`.
pub fn resolve_noise_keys(
    base: &serde_json::Map<String, serde_json::Value>,
    given: &mut serde_json::Map<String, serde_json::Value>,
    command: &str,
) -> Result<()> {
    use crate::mechanism::{NoiseName, resolve_noise};
    use crate::process::discrete::NoiseKind;
    let Some(noise) = given.get("noise").and_then(|v| v.as_str()) else {
        return Ok(());
    };
    if !base.contains_key("mechanism") {
        // A configuration whose `noise` is the noise kind alone (`evolve`):
        // refused in its words (as `evolve --noise`), not serde's.
        if base.contains_key("noise") {
            noise.parse::<NoiseKind>()?;
        }
        return Ok(());
    }
    let noise: NoiseName = noise.parse()?;
    if noise == NoiseName::Gaussian
        && let Some(e) = crate::mechanism::no_gaussian_form(command)
    {
        return Err(e);
    }
    let mechanism = match given.get("mechanism").and_then(|v| v.as_str()) {
        Some(m) => Some(m.parse::<MechanismChoice>()?),
        None => None,
    };
    let word = |k: &str| base.get(k).and_then(|v| v.as_str());
    let base_kind: NoiseKind = word("noise").map_or(Ok(NoiseKind::Laplace), str::parse)?;
    let base_mechanism: MechanismChoice =
        word("mechanism").map_or(Ok(MechanismChoice::default()), str::parse)?;
    let (kind, mechanism) = resolve_noise((base_kind, base_mechanism), Some(noise), mechanism)?;
    given.insert("noise".into(), kind.to_string().into());
    given.insert("mechanism".into(), mechanism.to_string().into());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn owner_specs() {
        assert_eq!("all".parse::<Owners>().unwrap(), Owners::All);
        assert_eq!("20".parse::<Owners>().unwrap(), Owners::Count(20));
        assert_eq!(
            "17,".parse::<Owners>().unwrap(),
            Owners::Ids(vec!["17".into()])
        );
        assert_eq!(
            "a, b".parse::<Owners>().unwrap(),
            Owners::Ids(vec!["a".into(), "b".into()])
        );
        assert!("0".parse::<Owners>().is_err());
        assert!("x".parse::<Owners>().is_err());
        assert!(",".parse::<Owners>().is_err());
        for s in ["all", "20", "17,", "a,b"] {
            assert_eq!(s.parse::<Owners>().unwrap().to_string(), s);
        }
        assert!(Owners::Count(0).check().is_err());
        assert!(Owners::Ids(vec![]).check().is_err());
    }

    #[test]
    fn owners_read_as_spec_count_or_id_list() {
        let read = |j: &str| serde_json::from_str::<Owners>(j);
        assert_eq!(read(r#""20""#).unwrap(), Owners::Count(20));
        assert_eq!(read("20").unwrap(), Owners::Count(20));
        assert_eq!(
            read(r#"[0, "a"]"#).unwrap(),
            Owners::Ids(vec!["0".into(), "a".into()])
        );
        // One id in a list stays one id (its spec keeps the comma).
        let one = read("[17]").unwrap();
        assert_eq!(one, Owners::Ids(vec!["17".into()]));
        assert_eq!(serde_json::to_string(&one).unwrap(), r#""17,""#);
        for bad in ["0", "-3", "2.5", "[]", "[1.5]", "null"] {
            assert!(read(bad).is_err(), "{bad}");
        }
        let c: SimConfig = serde_json::from_str(r#"{"ego_owners": [3, "b"]}"#).unwrap();
        assert_eq!(c.ego_owners, Some(vec!["3".into(), "b".into()]));
        assert!(serde_json::from_str::<SimConfig>(r#"{"distance_options": {"k": 1}}"#).is_err());
    }

    #[test]
    fn config_round_trips_through_json() {
        let c = SimConfig::default();
        let s = serde_json::to_string(&c).unwrap();
        assert_eq!(serde_json::from_str::<SimConfig>(&s).unwrap(), c);
        // Specs travel as their strings, as they always did.
        let v = serde_json::to_value(&c).unwrap();
        assert_eq!(v["eps"], "range:0.5..15");
        assert_eq!(v["values"], "auto");
        assert_eq!(v["post"], "none");
        assert_eq!(v["owners"], "all");
    }
}
