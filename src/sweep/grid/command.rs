//! The sweep key `command = simulate|collude|utility` (issue 27 item 3): what
//! a point runs, and the utility's own key `access_radius`. A utility point
//! runs as many replicates as the simulation key `replicates` says (the same
//! meaning: independent repetitions, pooled).
//!
//! Without `command` a point is `collude` when a `coalition` is set and
//! `simulate` otherwise (the rule before the key existed, so older sweeps
//! give the same files). A `command` that contradicts the keys given is
//! refused: `collude` without a `coalition`, a `coalition` with `simulate`
//! or `utility`, `access_radius` without `utility`.
//!
//! A utility point runs [`crate::utility::UtilityPlan`] on the point's
//! simulation options; its rows in the long format
//! ([`utility_rows`](crate::sweep::metrics::utility_rows)): `mechanism` =
//! the scheme (`correlated`, `access`, `correlated-shrinkage`, …), `metric`
//! = `utility_mse` / `utility_mse_se` / `utility_mse_theory` per degree
//! bucket with the bucket's smallest and largest degree in `distance_lo` /
//! `distance_hi`, and `utility_mse_all` / `utility_mse_all_se` /
//! `utility_mse_all_theory` over all recipients (distance columns empty); a
//! standard error (one replicate) or theory (access, shrinkage) that does
//! not exist gives no row.

use crate::error::{Error, Result};
use crate::sim::SimConfig;
use crate::utility::{MAX_REPLICATES, UtilityConfig};

/// Sweep keys that choose and configure what a point runs.
pub const COMMAND_KEYS: [&str; 2] = ["command", "access_radius"];

/// What a sweep point runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `simulate`: per-distance MSE rows.
    Simulate,
    /// `collude`: the simulation's rows, then the collusion rows.
    Collude,
    /// `utility`: network-wide utility rows per scheme and degree bucket.
    Utility,
}

impl std::str::FromStr for Command {
    type Err = Error;
    fn from_str(s: &str) -> Result<Command> {
        match s.trim() {
            "simulate" => Ok(Command::Simulate),
            "collude" => Ok(Command::Collude),
            "utility" => Ok(Command::Utility),
            _ => Err(Error::param("command", s, "simulate, collude or utility")),
        }
    }
}

/// A utility point's configuration.
#[derive(Clone, Debug)]
pub struct UtilityPoint {
    /// The utility run's options (the point's simulation options inside).
    pub config: UtilityConfig,
}

fn whole(key: &str, text: &str, lo: u64, hi: u64) -> Result<u64> {
    text.trim()
        .parse::<u64>()
        .ok()
        .filter(|x| (lo..=hi).contains(x))
        .ok_or_else(|| Error::param(key, text, format!("a whole number in {lo}..={hi}")))
}

/// Checks one command key's value alone (as the grid adds it).
pub(super) fn check_command_key(key: &str, text: &str) -> Result<()> {
    match key {
        "command" => text.parse::<Command>().map(drop),
        _ => whole(key, text, 0, u32::MAX as u64).map(drop),
    }
}

/// The utility part of a point from its command keys (`None` unless
/// `command = utility`), refusing combinations that contradict each other;
/// `coalition` tells whether a coalition is set.
pub(super) fn command_point(
    keys: &[(&'static str, &str)],
    sim: &SimConfig,
    coalition: bool,
) -> Result<Option<UtilityPoint>> {
    let get = |k: &str| keys.iter().rev().find(|(c, _)| *c == k).map(|(_, v)| *v);
    let given = get("command");
    let command = match given {
        Some(t) => t.parse::<Command>()?,
        None if coalition => Command::Collude,
        None => Command::Simulate,
    };
    let text = given.unwrap_or_default();
    match command {
        Command::Collude if !coalition => {
            return Err(Error::param(
                "command",
                text,
                "a `coalition` too (collude evaluates coalitions)",
            ));
        }
        Command::Simulate | Command::Utility if coalition => {
            return Err(Error::param(
                "command",
                text,
                "collude (or no command) when a `coalition` is set",
            ));
        }
        _ => {}
    }
    if command != Command::Utility {
        if let Some(t) = get("access_radius") {
            return Err(Error::param(
                "access_radius",
                t,
                "`command = utility` (a utility option)",
            ));
        }
        return Ok(None);
    }
    let mut config = UtilityConfig {
        sim: sim.clone(),
        ..UtilityConfig::default()
    };
    if let Some(t) = get("access_radius") {
        config.access_radius = whole("access_radius", t, 0, u32::MAX as u64)? as u32;
    }
    if sim.replicates as usize > MAX_REPLICATES {
        return Err(Error::param(
            "replicates",
            sim.replicates,
            format!("a whole number in 1..={MAX_REPLICATES} for a utility point"),
        ));
    }
    config.replicates = sim.replicates as usize;
    config.check()?;
    Ok(Some(UtilityPoint { config }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_follows_the_old_rule_when_absent_and_refuses_contradictions() {
        let sim = SimConfig::default();
        assert!(command_point(&[], &sim, false).unwrap().is_none());
        assert!(command_point(&[], &sim, true).unwrap().is_none());
        assert!(
            command_point(&[("command", "simulate")], &sim, false)
                .unwrap()
                .is_none()
        );
        let five = SimConfig {
            replicates: 5,
            ..SimConfig::default()
        };
        let u = command_point(
            &[("command", "utility"), ("access_radius", "2")],
            &five,
            false,
        )
        .unwrap()
        .unwrap();
        assert_eq!((u.config.access_radius, u.config.replicates), (2, 5));
        for (keys, coalition, name) in [
            (vec![("command", "collude")], false, "command"),
            (vec![("command", "utility")], true, "command"),
            (vec![("command", "simulate")], true, "command"),
            (vec![("access_radius", "3")], false, "access_radius"),
            (
                vec![("command", "simulate"), ("access_radius", "1")],
                false,
                "access_radius",
            ),
            (vec![("command", "run")], false, "command"),
        ] {
            let e = command_point(&keys, &sim, coalition).unwrap_err();
            assert!(e.to_string().contains(name), "{keys:?}: {e}");
        }
        assert!(check_command_key("command", "utility").is_ok());
        assert!(check_command_key("command", "x").is_err());
        assert!(check_command_key("access_radius", "-1").is_err());
        assert!(check_command_key("access_radius", "0").is_ok());
    }

    /// A utility sweep on karate: rows per scheme and degree bucket equal to
    /// the utility run's own rows (the same numbers), with the mapping of the
    /// module docs; a simulate point beside it keeps its metrics.
    #[test]
    fn utility_points_write_the_utility_rows() {
        use crate::sweep::{PointSink, SweepRow, run_points};
        use crate::utility::UtilityPlan;
        use std::sync::Mutex;
        struct Keep(Mutex<Vec<(usize, Vec<SweepRow>)>>);
        impl PointSink for Keep {
            fn point(&self, p: &super::super::Point, rows: Vec<SweepRow>, _: f64) -> Result<()> {
                self.0.lock().unwrap().push((p.index, rows));
                Ok(())
            }
        }
        let karate = concat!(env!("CARGO_MANIFEST_DIR"), "/data/karate.edges");
        let toml = format!(
            "[base]\ngraph = \"{karate}\"\ndim = 1\npost = \"bit\"\naccess_radius = 2\n\
             eps = \"exp:a=3,b=0.5\"\n\
             [grid]\ncommand = [\"utility\", \"simulate\"]\nvalues = [\"bits:0.3\", \"infection:seeds=2,frac=0.3\"]\n"
        );
        // `access_radius` belongs to utility points only: the simulate points refuse it.
        let grid = crate::sweep::Grid::from_toml_str(&toml).unwrap();
        let e = grid.points().unwrap_err().to_string();
        assert!(e.contains("access_radius"), "{e}");
        let toml = toml.replace(
            "command = [\"utility\", \"simulate\"]",
            "command = [\"utility\"]",
        );
        let grid = crate::sweep::Grid::from_toml_str(&toml).unwrap();
        let points = grid.points().unwrap();
        assert_eq!(points.len(), 2);
        let keep = Keep(Mutex::new(Vec::new()));
        let pending: Vec<&super::super::Point> = points.iter().collect();
        run_points(
            &grid,
            &pending,
            &crate::control::Control::new(),
            None,
            &keep,
        )
        .unwrap();
        let got = keep.0.into_inner().unwrap();
        assert_eq!(got.len(), 2);
        for (i, rows) in got {
            let p = &points[i];
            let up = p.utility.as_ref().unwrap();
            let g = crate::graph::Graph::load(karate).unwrap();
            let d = crate::distance::Distances::new(
                &g,
                crate::distance::DistanceKind::Hop,
                &Default::default(),
            )
            .unwrap();
            let mut plan = UtilityPlan::new(&up.config, &g, &d).unwrap();
            let res = plan.run(&crate::control::Control::new()).unwrap();
            let mut expect = 0;
            for r in &res.rows {
                let all = r.degree_lo.is_none();
                let metric = if all {
                    "utility_mse_all"
                } else {
                    "utility_mse"
                };
                let row = rows
                    .iter()
                    .find(|x| {
                        x.mechanism == r.scheme
                            && x.metric == metric
                            && x.distance_lo == r.degree_lo.map(|d| d as f64)
                            && x.distance_hi == r.degree_hi.map(|d| d as f64)
                    })
                    .unwrap();
                assert_eq!(row.value.to_bits(), r.mse.to_bits(), "{r:?}");
                expect += 1 + usize::from(r.mse_theory.is_some());
            }
            // One replicate: no standard errors; theory only where it exists.
            assert_eq!(rows.len(), expect);
            assert!(rows.iter().any(|x| x.mechanism == "correlated-shrinkage"));
            assert!(rows.iter().all(|x| super::super::OUTPUT_COLUMNS.len() == 7
                && crate::sweep::metrics::METRICS.contains(&x.metric.as_str())));
        }
    }
}
