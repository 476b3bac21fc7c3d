//! [`RelayConfig`]: what a relay run is (the simulation's options plus the
//! untrimmed fractions), and the seeded order in which relays stop trimming.

use crate::distance::DistanceKind;
use crate::error::{Error, Result};
use crate::graph::Graph;
use crate::mechanism::MechanismChoice;
use crate::post::Post;
use crate::rng::{Purpose, rng_for};
use crate::sim::{Ignored, SimConfig, Unreachable};
use serde::{Deserialize, Serialize};

/// Every option of a relay run; `summary.json` echoes it (re-run with
/// `--config`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct RelayConfig {
    /// The simulation's options: graph, distance (`hop` or `weighted`), ε
    /// map and clamps, dimension, norm, values, sensitivity, owners, seed,
    /// bins (weighted buckets). The relay is the correlated mechanism:
    /// `mechanism`, `delta`, `post`, `responses`, `path_owners`,
    /// `replicates` and `ego_owners` are not used (see
    /// [`RelayConfig::sim_config`]).
    pub sim: SimConfig,
    /// Fractions of the nodes that forward the richest signal they hold
    /// instead of trimming it (each in [0, 1], each once; default `[0]`).
    pub untrimmed: Vec<f64>,
}

impl Default for RelayConfig {
    fn default() -> Self {
        RelayConfig {
            sim: SimConfig::default(),
            untrimmed: vec![0.0],
        }
    }
}

impl RelayConfig {
    /// The checks that need no graph: the simulation's, the distance kind,
    /// `unreachable`, and the fractions.
    pub fn check(&self) -> Result<()> {
        self.sim.refuse_gaussian_mechanism("relay")?;
        self.sim.refuse_ignored(
            "relay",
            &[
                Ignored::Independent,
                Ignored::Post,
                Ignored::Replicates,
                Ignored::EgoOwners,
                Ignored::PathOwners,
                Ignored::Bins,
                Ignored::Delta,
            ],
        )?;
        let sim = self.sim_config();
        sim.check()?;
        match sim.distance {
            DistanceKind::Hop | DistanceKind::Weighted => {}
            k => {
                return Err(Error::param(
                    "distance",
                    k,
                    "hop or weighted (resistance distances are not path metrics: no local \
                     protocol passes a signal along them)",
                ));
            }
        }
        if sim.unreachable != Unreachable::Skip {
            return Err(Error::param(
                "unreachable",
                sim.unreachable,
                "skip (no message reaches a member the owner cannot reach)",
            ));
        }
        check_noise(&sim)?;
        check_fractions(&self.untrimmed)
    }

    /// The simulation configuration the relay mirrors: `self.sim` with the
    /// correlated mechanism, no post-processing, no per-answer rows and the
    /// first replicate alone (the path `simulate` samples for it).
    pub fn sim_config(&self) -> SimConfig {
        SimConfig {
            mechanism: MechanismChoice::Correlated,
            post: Post::None,
            responses: false,
            replicates: 1,
            ego_owners: None,
            ..self.sim.clone()
        }
    }
}

/// Refuses an empty list, a fraction outside [0, 1], a repeated fraction.
pub(crate) fn check_fractions(fractions: &[f64]) -> Result<()> {
    if fractions.is_empty() {
        return Err(Error::param(
            "untrimmed",
            "",
            "at least one fraction in [0, 1]",
        ));
    }
    for (i, &f) in fractions.iter().enumerate() {
        if !(0.0..=1.0).contains(&f) {
            return Err(Error::param(
                "untrimmed",
                crate::util::fmt_f64(f),
                "fractions of the nodes in [0, 1]",
            ));
        }
        if fractions[..i].contains(&f) {
            return Err(Error::param(
                "untrimmed",
                crate::util::fmt_f64(f),
                "each fraction once",
            ));
        }
    }
    Ok(())
}

/// The one seeded permutation of the nodes that decides who stops
/// trimming: for fraction F and owner o the untrimmed relays are the first
/// round(F·N) nodes of the permutation with o skipped, so the sets of a run
/// are nested (a larger fraction adds relays, never swaps them).
#[derive(Clone, Debug)]
pub struct UntrimmedOrder {
    /// `rank[v]`: position of node v in the permutation.
    rank: Vec<u32>,
}

impl UntrimmedOrder {
    /// The permutation of `graph`'s nodes drawn from `seed`
    /// ([`Purpose::Untrimmed`]; Fisher–Yates).
    pub fn new(graph: &Graph, seed: u64) -> UntrimmedOrder {
        use rand::RngExt;
        let n = graph.n();
        let mut order: Vec<u32> = (0..n as u32).collect();
        let mut rng = rng_for(seed, 0, 0, Purpose::Untrimmed);
        for i in (1..n).rev() {
            let j = rng.random_range(0..=i);
            order.swap(i, j);
        }
        let mut rank = vec![0u32; n];
        for (p, &v) in order.iter().enumerate() {
            rank[v as usize] = p as u32;
        }
        UntrimmedOrder { rank }
    }

    /// The untrimmed set of `owner` for `fraction`, as a rank bound: node v
    /// is untrimmed when `v != owner && self.rank(v) < bound`.
    pub fn bound(&self, fraction: f64, owner: u32) -> u32 {
        let n = self.rank.len();
        let k = ((fraction * n as f64).round() as usize).min(n);
        let skip = (self.rank[owner as usize] as usize) < k;
        (k + usize::from(skip)).min(n) as u32
    }

    /// Position of `v` in the permutation.
    #[inline]
    pub fn rank(&self, v: u32) -> u32 {
        self.rank[v as usize]
    }

    /// Whether `v` is untrimmed under `bound` (from [`UntrimmedOrder::bound`]
    /// for `owner`).
    #[inline]
    pub fn untrimmed(&self, v: u32, owner: u32, bound: u32) -> bool {
        v != owner && self.rank[v as usize] < bound
    }
}

/// Refuses what a discrete relay cannot run: `rng = os` (every engine and
/// every cluster process draws the owner's path again from the seed, so the
/// relay needs a reproducible stream; it releases nothing).
pub(crate) fn check_noise(sim: &SimConfig) -> Result<()> {
    if sim.discrete_noise()?.is_some() && sim.rng == crate::process::discrete::RngSource::Os {
        return Err(Error::param(
            "rng",
            "os",
            "seeded (the relay is a simulation: every engine and cluster process draws the \
             owner's path from the seed)",
        ));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fractions_are_checked() {
        assert!(check_fractions(&[0.0, 0.05, 1.0]).is_ok());
        for bad in [
            &[][..],
            &[1.5][..],
            &[-0.1][..],
            &[f64::NAN][..],
            &[0.2, 0.2][..],
        ] {
            let e = check_fractions(bad).unwrap_err().to_string();
            assert!(e.contains("untrimmed"), "{e}");
        }
        let mut c = RelayConfig::default();
        c.sim.distance = DistanceKind::Resistance;
        let e = c.check().unwrap_err().to_string();
        assert!(e.contains("not path metrics") && !e.contains('\n'), "{e}");
        c.sim.distance = DistanceKind::Weighted;
        c.sim.unreachable = Unreachable::Floor;
        c.sim.eps_min = Some(0.1);
        assert!(c.check().unwrap_err().to_string().contains("unreachable"));
    }

    /// Sets skip the owner, have round(F·N) members and are nested.
    #[test]
    fn untrimmed_sets_are_nested_and_skip_the_owner() {
        let edges: Vec<(u32, u32)> = (0..99).map(|i| (i, i + 1)).collect();
        let g = Graph::from_index_edges(100, &edges, None, false).unwrap();
        let order = UntrimmedOrder::new(&g, 3);
        let mut seen = [false; 100];
        for v in 0..100u32 {
            seen[order.rank(v) as usize] = true;
        }
        assert!(seen.iter().all(|&s| s), "a permutation");
        for owner in [0u32, 17, 99] {
            let mut prev: Vec<u32> = Vec::new();
            for f in [0.0, 0.05, 0.2, 0.5, 1.0] {
                let b = order.bound(f, owner);
                let set: Vec<u32> = (0..100).filter(|&v| order.untrimmed(v, owner, b)).collect();
                let want = ((f * 100.0_f64).round() as usize).min(99);
                assert_eq!(set.len(), want, "owner {owner}, fraction {f}");
                assert!(!set.contains(&owner));
                assert!(prev.iter().all(|v| set.contains(v)), "nested");
                prev = set;
            }
        }
        // Another seed, another order.
        let other = UntrimmedOrder::new(&g, 4);
        assert!((0..100).any(|v| other.rank(v) != order.rank(v)));
    }
}
