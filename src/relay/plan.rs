//! [`RelayPlan`]: a validated relay run over a loaded graph, and the pieces
//! every engine shares — the owner's path (the one `simulate` samples), the
//! signal a message carries, its accounted size and a recipient's read-out.

use super::config::{RelayConfig, UntrimmedOrder};
use crate::distance::{DistanceKind, Distances};
use crate::epsilon::EpsilonMap;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::limits;
use crate::mechanism::NoiseModel;
use crate::sim::{Buckets, Plan};

/// Header bytes of a message: the reference to the owner's path (owner id)
/// and the trim level.
pub const MESSAGE_HEADER_BYTES: u64 = 8;

/// A relay run resolved against its graph: the simulation plan it mirrors
/// (owners, values, the resolved and clamped map, the noise model, the
/// distance buckets), the fractions and the seeded untrimmed order.
pub struct RelayPlan<'a> {
    config: RelayConfig,
    sim: Plan<'a>,
    order: UntrimmedOrder,
    replicate: u32,
}

impl<'a> RelayPlan<'a> {
    /// Validates `config` (see [`RelayConfig::check`]) and resolves it on
    /// `graph` with `distances` (of the configured kind) through the
    /// simulation's own [`Plan`], so owners, values and a `range:` map come
    /// out exactly as in `simulate` (its pre-pass also keeping the owners'
    /// out-degree sums per hop).
    pub fn new(
        config: &RelayConfig,
        graph: &'a Graph,
        distances: &'a Distances<'a>,
    ) -> Result<RelayPlan<'a>> {
        config.check()?;
        if distances.kind() != config.sim.distance {
            return Err(Error::param(
                "distance",
                distances.kind(),
                format!("the configured kind ({})", config.sim.distance),
            ));
        }
        let sim_config = config.sim_config();
        // The pre-pass of a `range:` map on hop distances keeps the degree
        // sums the 64-owner batch reads (no second search).
        let sim = Plan::with_level_degrees(&sim_config, graph, distances)?;
        Ok(RelayPlan {
            config: config.clone(),
            order: UntrimmedOrder::new(graph, sim_config.seed),
            replicate: sim.replicates().start,
            sim,
        })
    }

    /// The configuration.
    pub fn config(&self) -> &RelayConfig {
        &self.config
    }

    /// The simulation plan the relay mirrors.
    pub fn sim(&self) -> &Plan<'a> {
        &self.sim
    }

    /// The graph.
    pub fn graph(&self) -> &'a Graph {
        self.sim.graph()
    }

    /// Owners (node indices) in output order.
    pub fn owners(&self) -> &[u32] {
        self.sim.owners()
    }

    /// The untrimmed fractions, in output order.
    pub fn fractions(&self) -> &[f64] {
        &self.config.untrimmed
    }

    /// The seeded order deciding who stops trimming.
    pub fn order(&self) -> &UntrimmedOrder {
        &self.order
    }

    /// The privacy map (clamped; a `range:` map resolved).
    pub fn map(&self) -> &EpsilonMap {
        self.sim.map()
    }

    /// The noise law.
    pub fn model(&self) -> &NoiseModel {
        self.sim.model()
    }

    /// Distance buckets of `relay_by_distance.csv` (those of `simulate`).
    pub fn buckets(&self) -> Buckets {
        self.sim.buckets()
    }

    /// Whether distances are hop counts.
    pub fn is_hop(&self) -> bool {
        self.sim.distances().kind() == DistanceKind::Hop
    }

    /// The replicate whose path the relay diffuses (the configuration's
    /// first: `simulate`'s default run is replicate 0).
    pub fn replicate(&self) -> u32 {
        self.replicate
    }

    /// The length of arc `arc` in the plan's distance (1 for hop, whatever
    /// the graph's weights).
    #[inline]
    pub fn arc_length(&self, arc: usize) -> f64 {
        if self.is_hop() {
            1.0
        } else {
            self.graph().arc_weight(arc)
        }
    }

    /// ε at distance `d`, as `simulate` evaluates it.
    #[inline]
    pub fn eps(&self, d: f64) -> f64 {
        self.sim.map().eps(d)
    }

    /// Refuses a recipient's level outside the range where sums stay
    /// finite, with `simulate`'s message (limits: "The range of privacy
    /// levels").
    pub(crate) fn check_level(&self, eps: f64, d: f64) -> Result<()> {
        let delta = self.model().sensitivity;
        if limits::level_in_range(eps, delta) {
            return Ok(());
        }
        let at = format!("distance {}", limits::fmt_num(d));
        match limits::level_error(&self.map().spec(), eps, &at, delta) {
            Some(e) => Err(e),
            None => Ok(()),
        }
    }
}

/// The set of relays that forward untrimmed, for one owner.
#[derive(Clone, Copy, Debug)]
pub enum Relays<'s> {
    /// The first nodes of the seeded order (rank below the bound).
    Order(&'s UntrimmedOrder, u32),
    /// An explicit set: `flags[v]` for node v (the owner never counts).
    Nodes(&'s [bool]),
}

impl Relays<'_> {
    /// Whether `v` forwards untrimmed when `owner` diffuses.
    #[inline]
    pub fn untrimmed(&self, v: u32, owner: u32) -> bool {
        match *self {
            Relays::Order(o, bound) => o.untrimmed(v, owner, bound),
            Relays::Nodes(flags) => v != owner && flags[v as usize],
        }
    }

    /// Whether no relay is untrimmed for `owner` (the common case, whose
    /// sweep skips the per-round bookkeeping of untrimmed relays).
    pub fn is_empty(&self) -> bool {
        match *self {
            Relays::Order(_, bound) => bound == 0,
            Relays::Nodes(flags) => !flags.iter().any(|&f| f),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::signal::{Signal, message_bytes};
    use crate::process::family::{Discrete, Laplace};
    use crate::process::{NoisePath, Norm};

    fn signal(delta: f64) -> (Signal<Laplace>, Laplace) {
        let p = NoisePath::from_parts(1, vec![0.5, 1.0, 2.0], vec![3.0, 2.0, 1.0], 4.0).unwrap();
        let fam = Laplace::new(1, Norm::L1, delta).unwrap();
        (Signal::of(&fam, &[0.25], p, "0").unwrap(), fam)
    }

    #[test]
    fn a_signal_carries_the_breakpoints_up_to_its_trim() {
        let (s, m) = signal(1.0);
        assert_eq!(s.carried(&m, 0.4), 0);
        assert_eq!(s.carried(&m, 1.0), 2); // a breakpoint at the trim level is carried
        assert_eq!(s.carried(&m, 1.5), 2);
        assert_eq!(s.carried(&m, 4.0), 3);
        assert_eq!(s.carried(&m, f64::NAN), 0);
        assert_eq!(message_bytes::<Laplace>(1, 0), 8);
        assert_eq!(message_bytes::<Laplace>(3, 2), 8 + 2 * 32);
        assert_eq!(message_bytes::<Discrete>(3, 2), 8 + 2 * 28);
        // Read-outs: from the carried breakpoints only, never above the trim.
        assert_eq!(s.read_out(&m, 1.5, 1.2), Some(&[2.0][..]));
        assert_eq!(s.read_out(&m, 1.5, 1.6), None);
        assert_eq!(s.read_out(&m, 3.0, 0.7), Some(&[3.0][..]));
        assert_eq!(s.answer(&m, 3.0, 0.7), Some(vec![3.25]));
        let mut y = Vec::new();
        for eps in [0.5, 0.9, 1.0, 1.9, 2.0, 3.9] {
            let full = s.read_out(&m, 4.0, eps);
            assert!(full.is_some());
            assert_eq!(s.read_out(&m, eps, eps), full, "at {eps}");
            assert!(s.identical(&m, eps, eps, &mut y), "at {eps}");
        }
        // Trimmed below its level, a recipient reads an older breakpoint.
        assert!(s.identical(&m, 1.5, 1.2, &mut y));
        // A signal that does not reach the recipient's level answers nothing.
        assert!(!s.identical(&m, 0.9, 1.2, &mut y));
        // Δ = 2: the path runs at ε/2.
        let (s2, m2) = signal(2.0);
        assert_eq!(s2.carried(&m2, 2.0), 2);
    }
}
