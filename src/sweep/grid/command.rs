//! The sweep key `command = simulate|collude|utility|gossip` (issue 27 item
//! 3, issue 36): what a point runs, the utility's own key `access_radius`
//! and gossip's `sigma`, `steps`, `gossip`, `alpha`, `observers`. A utility point
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
//!
//! A gossip point runs [`crate::gossip::run_gossip`] with the point's graph,
//! view, `owners`, `values`, `sensitivity` (when given), `seed`,
//! `replicates` and `delta` (when given; else gossip's 1e-6) and its own
//! keys (`sigma` required); its rows: the `utility.csv` rows as for a
//! utility point (scheme `gossip-accelerated` or `gossip-simple`), per hop
//! `gossip_eps_paper_median`, `gossip_eps_exact_median`,
//! `gossip_eps_exact_max` (distance columns = the hop), and
//! `two_schools_mse` over all members with mechanism `gossip`,
//! `diffusion-gaussian` or `diffusion-laplace` and estimator = the matched
//! statistic (`median` or `worst`). A gossip point takes no `coalition`.

use crate::error::{Error, Result};
use crate::gossip::{GossipConfig, GossipScheme};
use crate::sim::{Owners, SimConfig};
use crate::utility::{MAX_REPLICATES, UtilityConfig};

/// Sweep keys that choose and configure what a point runs.
pub const COMMAND_KEYS: [&str; 7] = [
    "command",
    "access_radius",
    "sigma",
    "steps",
    "gossip",
    "alpha",
    "observers",
];

/// The keys of gossip points only.
const GOSSIP_KEYS: [&str; 5] = ["sigma", "steps", "gossip", "alpha", "observers"];

/// What a sweep point runs.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Command {
    /// `simulate`: per-distance MSE rows.
    Simulate,
    /// `collude`: the simulation's rows, then the collusion rows.
    Collude,
    /// `utility`: network-wide utility rows per scheme and degree bucket.
    Utility,
    /// `gossip`: private gossip averaging beside diffusion (issue 36).
    Gossip,
}

impl std::str::FromStr for Command {
    type Err = Error;
    fn from_str(s: &str) -> Result<Command> {
        match s.trim() {
            "simulate" => Ok(Command::Simulate),
            "collude" => Ok(Command::Collude),
            "utility" => Ok(Command::Utility),
            "gossip" => Ok(Command::Gossip),
            _ => Err(Error::param(
                "command",
                s,
                "simulate, collude, utility or gossip",
            )),
        }
    }
}

/// A utility point's configuration.
#[derive(Clone, Debug)]
pub struct UtilityPoint {
    /// The utility run's options (the point's simulation options inside).
    pub config: UtilityConfig,
}

/// A gossip point's configuration.
#[derive(Clone, Debug)]
pub struct GossipPoint {
    /// The gossip run's options.
    pub config: GossipConfig,
}

/// What a point's command keys add to its simulation options.
#[derive(Clone, Debug, Default)]
pub struct CommandPoint {
    /// `command = utility`.
    pub utility: Option<UtilityPoint>,
    /// `command = gossip`.
    pub gossip: Option<GossipPoint>,
}

fn number(key: &str, text: &str) -> Result<f64> {
    text.trim()
        .parse::<f64>()
        .map_err(|_| Error::param(key, text, "a number"))
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
        "sigma" | "alpha" => number(key, text).map(drop),
        "steps" => whole(key, text, 1, crate::gossip::iteration::MAX_STEPS).map(drop),
        "gossip" => text.parse::<GossipScheme>().map(drop),
        "observers" => text.parse::<Owners>().map(drop),
        _ => whole(key, text, 0, u32::MAX as u64).map(drop),
    }
}

/// The gossip part of a point (`command = gossip`).
fn gossip_point(
    keys: &[(&'static str, &str)],
    sim: &SimConfig,
    sim_keys: &[&str],
) -> Result<GossipPoint> {
    let get = |k: &str| keys.iter().rev().find(|(c, _)| *c == k).map(|(_, v)| *v);
    let mut c = GossipConfig {
        graph: sim.graph.clone(),
        nodes: sim.nodes.clone(),
        view: sim.view.clone(),
        owners: sim.owners.clone(),
        values: sim.values.clone(),
        seed: sim.seed,
        replicates: sim.replicates as usize,
        ..GossipConfig::default()
    };
    if !sim_keys.contains(&"owners") {
        c.owners = GossipConfig::default().owners;
    }
    if sim_keys.contains(&"sensitivity") {
        c.sensitivity = Some(sim.sensitivity);
    }
    if sim_keys.contains(&"delta") {
        c.delta = sim.delta;
    }
    match get("sigma") {
        Some(t) => c.sigma = number("sigma", t)?,
        None => return Err(GossipConfig::sigma_missing()),
    }
    if let Some(t) = get("steps") {
        c.steps = Some(whole("steps", t, 1, crate::gossip::iteration::MAX_STEPS)?);
    }
    if let Some(t) = get("gossip") {
        c.gossip = t.parse()?;
    }
    if let Some(t) = get("alpha") {
        c.alpha = number("alpha", t)?;
    }
    if let Some(t) = get("observers") {
        c.observers = Some(t.parse()?);
    }
    c.check()?;
    Ok(GossipPoint { config: c })
}

/// The utility or gossip part of a point from its command keys (neither
/// unless `command = utility` or `gossip`), refusing combinations that
/// contradict each other; `coalition` tells whether a coalition is set,
/// `sim_keys` which simulation keys the point gives.
pub(super) fn command_point(
    keys: &[(&'static str, &str)],
    sim: &SimConfig,
    coalition: bool,
    sim_keys: &[&str],
) -> Result<CommandPoint> {
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
        Command::Simulate | Command::Utility | Command::Gossip if coalition => {
            return Err(Error::param(
                "command",
                text,
                "collude (or no command) when a `coalition` is set",
            ));
        }
        _ => {}
    }
    if command != Command::Gossip
        && let Some(k) = GOSSIP_KEYS.iter().find(|k| get(k).is_some())
    {
        return Err(Error::param(
            *k,
            get(k).unwrap_or_default(),
            "`command = gossip` (a gossip option)",
        ));
    }
    if command != Command::Utility
        && let Some(t) = get("access_radius")
    {
        return Err(Error::param(
            "access_radius",
            t,
            "`command = utility` (a utility option)",
        ));
    }
    if command == Command::Gossip {
        return Ok(CommandPoint {
            utility: None,
            gossip: Some(gossip_point(keys, sim, sim_keys)?),
        });
    }
    if command != Command::Utility {
        return Ok(CommandPoint::default());
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
    // A utility point's replicates are its own (the simulation's are not used).
    config.replicates = sim.replicates as usize;
    config.sim.replicates = 1;
    config.check()?;
    Ok(CommandPoint {
        utility: Some(UtilityPoint { config }),
        gossip: None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn command_follows_the_old_rule_when_absent_and_refuses_contradictions() {
        let sim = SimConfig::default();
        assert!(
            command_point(&[], &sim, false, &[])
                .unwrap()
                .utility
                .is_none()
        );
        assert!(
            command_point(&[], &sim, true, &[])
                .unwrap()
                .utility
                .is_none()
        );
        assert!(
            command_point(&[("command", "simulate")], &sim, false, &[])
                .unwrap()
                .utility
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
            &[],
        )
        .unwrap()
        .utility
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
            let e = command_point(&keys, &sim, coalition, &[]).unwrap_err();
            assert!(e.to_string().contains(name), "{keys:?}: {e}");
        }
        assert!(check_command_key("command", "utility").is_ok());
        assert!(check_command_key("command", "x").is_err());
        assert!(check_command_key("access_radius", "-1").is_err());
        assert!(check_command_key("access_radius", "0").is_ok());
    }

    /// `delta` and `bins` that no point uses are refused (they were
    /// ignored); a grid crossing the mechanism or the distance keeps them
    /// for the points that use them.
    #[test]
    fn keys_no_point_uses_are_refused() {
        let karate = concat!(env!("CARGO_MANIFEST_DIR"), "/data/karate.edges");
        for (rest, refused) in [
            (
                "delta = 0.001\n[grid]\nmechanism = [\"correlated\", \"both\"]",
                Some("delta"),
            ),
            (
                "[grid]\ndelta = [0.001, 0.01]\nseed = [1, 2]",
                Some("delta"),
            ),
            (
                "delta = 0.001\n[grid]\nmechanism = [\"correlated\", \"gaussian\"]",
                None,
            ),
            ("bins = 7\n[grid]\nseed = [1, 2]", Some("bins")),
            (
                "bins = 7\n[grid]\ndistance = [\"hop\", \"resistance\"]",
                None,
            ),
        ] {
            let toml = format!("[base]\ngraph = \"{karate}\"\n{rest}\n");
            let grid = crate::sweep::Grid::from_toml_str(&toml).unwrap();
            match (grid.points(), refused) {
                (Ok(_), None) => {}
                (Err(e), Some(key)) => {
                    let e = e.to_string();
                    assert!(
                        e.contains(key) && e.contains("no point uses it"),
                        "{rest}: {e}"
                    );
                }
                (got, _) => panic!("{rest}: {:?}", got.map(|p| p.len())),
            }
        }
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
