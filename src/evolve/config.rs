//! [`EvolveConfig`]: the options of an evolving release as one serde value,
//! the way [`SimConfig`](crate::SimConfig) is for `simulate` — what the
//! Python package's door fills from keyword arguments (issue 24 item 6), so
//! that no option is listed twice.

use super::Evolve;
use crate::distance::DistanceKind;
use crate::epsilon::EpsilonMap;
use crate::graph::HeaderMode;
use crate::process::Norm;
use crate::process::discrete::{Grid, NoiseKind, NoiseOptions, RngSource};
use crate::sim::Owners;
use crate::values::ValueSpec;
use serde::{Deserialize, Serialize};
use std::path::PathBuf;

/// Every option of [`Evolve`] (the names of `privdiffuse evolve`'s flags,
/// `-` as `_`); defaults are [`Evolve::new`]'s, and `graph`, `events` and
/// `store` have none (empty paths, refused when the run opens them).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct EvolveConfig {
    /// START edge list.
    pub graph: PathBuf,
    /// Node ids that exist from the start.
    pub nodes: Option<PathBuf>,
    /// Whether START's first data line is a header (see [`HeaderMode`];
    /// absent while `auto`).
    #[serde(skip_serializing_if = "HeaderMode::is_auto")]
    pub header: HeaderMode,
    /// The events file.
    pub events: PathBuf,
    /// The release store (SQLite).
    pub store: PathBuf,
    /// Distance kind.
    pub distance: DistanceKind,
    /// Privacy map (a `range:` map is resolved once on START).
    pub eps: EpsilonMap,
    /// The clamp, and the paths' top.
    pub eps_max: Option<f64>,
    /// Dimension n of the values.
    pub dim: usize,
    /// Norm of the noise.
    pub norm: Norm,
    /// Private values.
    pub values: ValueSpec,
    /// Owners.
    pub owners: Owners,
    /// Master seed.
    pub seed: u64,
    /// Events per batch.
    pub batch: usize,
    /// Continue the store from its last committed batch.
    pub resume: bool,
    /// Noise of the paths: `laplace` (f64) or `discrete` (exact integers).
    pub noise: NoiseKind,
    /// Grid γ of the discrete noise.
    pub granularity: Grid,
    /// Levels per doubling of the discrete ladder.
    pub levels_per_doubling: u32,
    /// Entropy of the discrete paths: `seeded` or `os`.
    pub rng: RngSource,
}

impl Default for EvolveConfig {
    fn default() -> Self {
        EvolveConfig::of(&Evolve::new("", "", ""))
    }
}

impl EvolveConfig {
    /// The options of `e`.
    fn of(e: &Evolve) -> EvolveConfig {
        EvolveConfig {
            graph: e.graph.clone(),
            nodes: e.nodes.clone(),
            header: e.header,
            events: e.events.clone(),
            store: e.store.clone(),
            distance: e.distance,
            eps: e.eps.clone(),
            eps_max: e.eps_max,
            dim: e.dim,
            norm: e.norm,
            values: e.values.clone(),
            owners: e.owners.clone(),
            seed: e.seed,
            batch: e.batch,
            resume: e.resume,
            noise: e.noise.noise,
            granularity: e.noise.granularity,
            levels_per_doubling: e.noise.levels_per_doubling,
            rng: e.noise.rng,
        }
    }

    /// The run these options describe (add [`Evolve::on_batch`] or
    /// [`Evolve::control`] before [`Evolve::run`]).
    pub fn evolve(&self) -> Evolve {
        let mut e = Evolve::new(&self.graph, &self.events, &self.store)
            .header(self.header)
            .eps(self.eps.clone())
            .eps_max(self.eps_max)
            .distance(self.distance)
            .dim(self.dim)
            .norm(self.norm)
            .values(self.values.clone())
            .owners(self.owners.clone())
            .seed(self.seed)
            .batch(self.batch)
            .resume(self.resume)
            .noise(NoiseOptions {
                noise: self.noise,
                granularity: self.granularity,
                levels_per_doubling: self.levels_per_doubling,
                rng: self.rng,
            });
        if let Some(n) = &self.nodes {
            e = e.nodes(n);
        }
        e
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_round_trips_and_fills_defaults() {
        let c: EvolveConfig = serde_json::from_str(
            r#"{"graph": "s.edges", "events": "s.events.csv", "store": "s.db",
                "eps": "exp:a=3,b=1", "dim": 1, "norm": "l1", "distance": "resistance",
                "eps_max": 4.0}"#,
        )
        .unwrap();
        assert_eq!(c.dim, 1);
        assert_eq!(c.batch, 100);
        assert_eq!(c.distance, DistanceKind::Resistance);
        assert_eq!(c.eps_max, Some(4.0));
        let back: EvolveConfig = serde_json::from_value(serde_json::to_value(&c).unwrap()).unwrap();
        assert_eq!(back, c);
        assert_eq!(EvolveConfig::of(&c.evolve()), c);
        let e = serde_json::from_str::<EvolveConfig>(r#"{"batches": 3}"#).unwrap_err();
        assert!(e.to_string().contains("unknown field `batches`"), "{e}");
    }
}
