//! Options shared by `simulate` and `collude`: the graph, distances, ε map,
//! values, mechanisms and seed, each parsed into its library type by clap (a
//! bad spec is refused before anything runs). Both commands `#[command(flatten)]` this
//! struct; every flag carries an explicit `display_order` (multiples of 10, in
//! `simulate`'s historical order) so each command can slot its own flags in
//! between without changing `simulate --help`.

use crate::distance::DistanceKind;
use crate::mechanism::{MechanismChoice, NoiseName, resolve_noise};
use crate::process::Norm;
use crate::process::discrete::{Grid, RngSource};
use crate::sim::{SimConfig, Unreachable};
use crate::{EpsilonMap, ValueSpec};
use std::path::PathBuf;

/// Graph, distance, ε, value, mechanism and seed flags (see `simulate --help`).
#[derive(Debug, clap::Args)]
pub struct SimOptions {
    /// Edge list (`u v [w]` per line; .gz read transparently) [default: data/geometric150.edges]
    #[arg(long, value_name = "PATH", display_order = 0)]
    pub graph: Option<PathBuf>,
    /// File of node ids (one per line) adding nodes that appear on no edge line
    #[arg(long, value_name = "FILE", display_order = 10)]
    pub nodes: Option<PathBuf>,
    #[command(flatten)]
    pub view: super::common::ViewArgs,
    /// Arcs are one-way (distances follow out-edges)
    #[arg(long, display_order = 20)]
    pub directed: bool,
    /// Distance: hop | weighted | resistance | resistance-approx [default: hop]
    #[arg(long, value_name = "KIND", display_order = 30)]
    pub distance: Option<DistanceKind>,
    /// Buckets of by_distance.csv for continuous distances [default: 20]
    #[arg(long, value_name = "K", display_order = 40)]
    pub bins: Option<usize>,
    /// Privacy map ε(d): exp:a=A,b=B | recip:c=C | power:c=C,p=P |
    /// table:1=15,2=5,*=0.5 | range:LO..HI [default: range:0.5..15]
    #[arg(long, value_name = "SPEC", display_order = 50)]
    pub eps: Option<EpsilonMap>,
    /// Lower clamp of ε (also the level of unreachable members with --unreachable floor)
    #[arg(long, value_name = "E", display_order = 60)]
    pub eps_min: Option<f64>,
    /// Upper clamp of ε
    #[arg(long, value_name = "E", display_order = 70)]
    pub eps_max: Option<f64>,
    /// Unreachable members: skip (counted) or floor (answered at --eps-min) [default: skip]
    #[arg(long, value_name = "HOW", display_order = 80)]
    pub unreachable: Option<Unreachable>,
    /// Dimension n of the private values [default: 2]
    #[arg(long, value_name = "N", display_order = 90)]
    pub dim: Option<usize>,
    /// Norm of the Laplace noise: l1 (independent coordinates) | l2 [default: l2]
    #[arg(long, value_name = "NORM", display_order = 100)]
    pub norm: Option<Norm>,
    /// correlated | independent | both (correlated + independent) [default: both; correlated
    /// with --noise gaussian] (gaussian: the older spelling of --noise gaussian)
    #[arg(long, value_name = "M", display_order = 110)]
    pub mechanism: Option<MechanismChoice>,
    /// δ of the Gaussian mechanism [default: 1e-5]
    #[arg(long, value_name = "D", display_order = 120)]
    pub delta: Option<f64>,
    /// Private values: file:PATH | coords | auto | uniform:LO,HI | normal:M,SD | bits:P | const:X
    /// | infection:seeds=K,frac=P | sir:seeds=K,beta=B,gamma=G (bits, --dim 1) | smooth:sd=S,steps=T
    /// [default: auto = coords next to the graph when --dim 2, else uniform:0,1]
    #[arg(long, value_name = "SPEC", display_order = 130)]
    pub values: Option<ValueSpec>,
    /// Sensitivity Δ: noise at level ε has scale Δ/ε [default: 1]
    #[arg(long, value_name = "X", display_order = 140)]
    pub sensitivity: Option<f64>,
    /// Noise: laplace (f64; simulations) | gaussian (a Brownian path by variance, (ε, δ)-DP)
    /// | discrete (exact integers on a grid: floating-point safe, see docs/releases.md)
    /// [default: laplace]
    #[arg(long, value_name = "KIND", display_order = 141)]
    pub noise: Option<NoiseName>,
    /// Grid γ of --noise discrete, a power of two (2^-10 or 0.0009765625) [default: 2^-10]
    #[arg(long, value_name = "G", display_order = 142)]
    pub granularity: Option<Grid>,
    /// Levels per doubling of the --noise discrete ladder (1 to 1024) [default: 32]
    #[arg(long, value_name = "M", display_order = 143)]
    pub levels_per_doubling: Option<u32>,
    /// Entropy of --noise discrete: seeded (reproducible) | os (releases; not reproducible)
    /// [default: seeded]
    #[arg(long, value_name = "SRC", display_order = 144)]
    pub rng: Option<RngSource>,
    /// Master seed [default: 1]
    #[arg(long, value_name = "S", display_order = 170)]
    pub seed: Option<u64>,
    /// Largest component for exact resistance [default: 20000]
    #[arg(long, value_name = "N", display_order = 180)]
    pub resistance_cap: Option<usize>,
    /// Random projections of resistance-approx [default: see `distances --help`]
    #[arg(long, value_name = "K", display_order = 190)]
    pub approx_k: Option<usize>,
    /// Re-run the configuration recorded in a summary.json (flags given here override it)
    #[arg(long, value_name = "FILE", display_order = 210)]
    pub config: Option<PathBuf>,
}

/// The shared options a run command may refuse as unused
/// ([`SimOptions::refuse_unused`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Shared {
    /// `--mechanism`.
    Mechanism,
    /// `--bins`.
    Bins,
    /// `--delta`.
    Delta,
}

impl Shared {
    /// The parameter's name (its `--config` key; errors name it so, and
    /// the CLI words them as the flag).
    fn parameter(self) -> &'static str {
        match self {
            Shared::Mechanism => "mechanism",
            Shared::Bins => "bins",
            Shared::Delta => "delta",
        }
    }
}

impl SimOptions {
    /// Refuses, in one line, a flag of these shared options that `command`
    /// takes (clap flattens them into every run command) but does not use;
    /// each of `unused` is `(flag, why)`. Such flags used to be accepted
    /// and ignored (issue 32 item 3).
    pub fn refuse_unused(&self, command: &str, unused: &[(Shared, &str)]) -> crate::Result<()> {
        for &(flag, why) in unused {
            // A command without `mechanism` has no Gaussian noise either.
            if flag == Shared::Mechanism
                && self.noise == Some(NoiseName::Gaussian)
                && let Some(e) = crate::mechanism::no_gaussian_form(command)
            {
                return Err(e);
            }
            let given = match flag {
                Shared::Mechanism => self.mechanism.map(|m| m.to_string()),
                Shared::Bins => self.bins.map(|b| b.to_string()),
                Shared::Delta => self.delta.map(|d| d.to_string()),
            };
            if let Some(value) = given {
                let name = flag.parameter();
                return Err(crate::Error::param(
                    name,
                    value,
                    format!("no `{name}`: {command} does not use it ({why})"),
                ));
            }
        }
        Ok(())
    }

    /// Refuses, in one line, `--delta` when the configuration `c` (flags
    /// applied) runs no Gaussian mechanism and `--bins` when its distances
    /// are hops (whole levels, never bucketed): both were accepted and
    /// ignored by `simulate` and `collude`.
    pub fn refuse_unused_in(&self, command: &str, c: &SimConfig) -> crate::Result<()> {
        let mut unused = Vec::new();
        if c.mechanism != MechanismChoice::Gaussian {
            unused.push((Shared::Delta, crate::sim::config::DELTA_UNUSED));
        }
        if c.distance == DistanceKind::Hop {
            unused.push((Shared::Bins, crate::sim::config::BINS_UNUSED));
        }
        self.refuse_unused(command, &unused)
    }

    /// Overlays the flags that were given on `c` (a default or `--config`
    /// configuration); absent flags leave `c` as it is. `--noise` and
    /// `--mechanism` are read together ([`resolve_noise`]).
    pub fn apply(&self, c: &mut SimConfig) -> crate::Result<()> {
        (c.noise, c.mechanism) = resolve_noise((c.noise, c.mechanism), self.noise, self.mechanism)?;
        macro_rules! set {
            ($($f:ident),*) => { $( if let Some(v) = &self.$f { c.$f = v.clone(); } )* };
        }
        set!(
            graph,
            distance,
            bins,
            eps,
            unreachable,
            dim,
            norm,
            delta,
            values,
            sensitivity,
            seed,
            granularity,
            levels_per_doubling,
            rng
        );
        if self.nodes.is_some() {
            c.nodes = self.nodes.clone();
        }
        if self.eps_min.is_some() {
            c.eps_min = self.eps_min;
        }
        if self.eps_max.is_some() {
            c.eps_max = self.eps_max;
        }
        if let Some(k) = self.resistance_cap {
            c.distance_options.resistance_cap = k;
        }
        if let Some(k) = self.approx_k {
            c.distance_options.approx_k = k;
        }
        if self.directed {
            c.directed = true;
        }
        if let Some(v) = self.view.view() {
            c.view = Some(v);
        }
        if let Some(h) = self.view.header.mode {
            c.header = h;
        }
        Ok(())
    }
}
