//! The rows one sweep point contributes to the CSV.
//!
//! | metric | mechanism | estimator | coalition | distance | value |
//! |---|---|---|---|---|---|
//! | `mse`, `mse_se`, `mse_theory` | ✓ | | | bucket | per-bucket empirical MSE, its standard error (owners as clusters), theory (as `by_distance.csv`) |
//! | `mse_all`, `mse_all_theory` | ✓ | | | | over all answers (as `summary.json`) |
//! | `jumps_per_path`, `jumps_per_path_theory` | correlated | | | | mean jumps per owner's path; theory = mean of rate·ln(ε_hi/ε_lo) ((n+1)·ln(ε_max/ε_min) under ℓ2) |
//! | `gain_mean`, `gain_median`, `coalition_mse` | ✓ | ✓ | ✓ | | collusion: the mean and the median over owners of the per-owner gain MSE(best member)/MSE(estimator) (`coalition.csv`'s `gain`), and the mean of the estimator's MSE |
//! | `eps_max`, `eps_sum`, `coalition_size` | | | ✓ | | collusion: mean over owners of max ε_j (the correlated view's ε), Σ ε_j (independent, basic composition), members |
//!
//! | `utility_mse`, `utility_mse_se`, `utility_mse_theory` | scheme | | | degree bucket `[lo, hi]` | `command = utility`: `utility.csv`'s row of the bucket |
//! | `utility_mse_all`, `utility_mse_all_se`, `utility_mse_all_theory` | scheme | | | | `command = utility`: its row over all recipients |
//! | `gossip_eps_paper_median`, `gossip_eps_exact_median`, `gossip_eps_exact_max` | `gossip-accelerated` / `gossip-simple` | | | hop `[d, d]` | `command = gossip`: `privacy_by_distance.csv`'s ε at δ |
//! | `two_schools_mse` | `gossip`, `diffusion-gaussian`, `diffusion-laplace` | `median` / `worst` | | | `command = gossip`: MSE of the network mean, diffusion matched per hop (`two_schools.csv`) |
//!
//! The collusion rows come from [`collude_rows`], the one function that
//! connects the sweep to the collusion runner; the utility rows from
//! [`utility_rows`] (a standard error or theory that does not exist gives no
//! row).

use super::grid::{ColludePoint, GossipPoint, UtilityPoint};
use super::rows::SweepRow;
use crate::collusion::run::collude;
use crate::error::Result;
use crate::mechanism::Mechanism;
use crate::sim::{Plan, simulate};
use crate::util::average::{mean, median};
use crate::utility::UtilityPlan;

/// Every metric name a sweep writes (the table above), for checking
/// `--metric` before a sweep runs.
pub const METRICS: [&str; 23] = [
    "mse",
    "mse_se",
    "mse_theory",
    "mse_all",
    "mse_all_theory",
    "jumps_per_path",
    "jumps_per_path_theory",
    "gain_mean",
    "gain_median",
    "coalition_mse",
    "eps_max",
    "eps_sum",
    "coalition_size",
    "utility_mse",
    "utility_mse_se",
    "utility_mse_theory",
    "utility_mse_all",
    "utility_mse_all_se",
    "utility_mse_all_theory",
    "gossip_eps_paper_median",
    "gossip_eps_exact_median",
    "gossip_eps_exact_max",
    "two_schools_mse",
];

/// The metrics only rows with a coalition carry (a figure of them needs a
/// `coalition` key in the grid): `gain_mean` … `coalition_size` of
/// [`METRICS`], read from it.
pub const COLLUSION_METRICS: &[&str] = METRICS.split_at(7).1.split_at(6).0;

impl SweepRow {
    fn new(mechanism: &str, metric: &str, value: f64) -> SweepRow {
        SweepRow {
            mechanism: mechanism.to_string(),
            estimator: String::new(),
            coalition: String::new(),
            metric: metric.to_string(),
            distance_lo: None,
            distance_hi: None,
            value,
        }
    }
}

/// Runs one point: the simulation's rows, then (with a coalition) the
/// collusion rows.
pub fn point_rows(plan: &Plan<'_>, collude: Option<&ColludePoint>) -> Result<Vec<SweepRow>> {
    let res = simulate(plan)?;
    let mut rows = Vec::new();
    for r in &res.rows {
        for (metric, value) in [
            ("mse", r.mse),
            ("mse_se", r.mse_se),
            ("mse_theory", r.mse_theory),
        ] {
            rows.push(SweepRow {
                distance_lo: Some(r.distance_lo),
                distance_hi: Some(r.distance_hi),
                ..SweepRow::new(&r.mechanism, metric, value)
            });
        }
    }
    for t in &res.totals {
        rows.push(SweepRow::new(&t.mechanism, "mse_all", t.mse));
        rows.push(SweepRow::new(&t.mechanism, "mse_all_theory", t.mse_theory));
    }
    if plan.mechanisms().contains(&Mechanism::Correlated) {
        let c = &res.counts;
        let paths = (c.owners - c.owners_without_recipients).max(1) as f64;
        let name = Mechanism::Correlated.name();
        rows.push(SweepRow::new(
            name,
            "jumps_per_path",
            c.jumps as f64 / paths,
        ));
        rows.push(SweepRow::new(
            name,
            "jumps_per_path_theory",
            c.jumps_expected / paths,
        ));
    }
    if let Some(cp) = collude {
        rows.extend(collude_rows(plan, cp)?);
    }
    Ok(rows)
}

/// The rows of a utility point (`command = utility`): every `utility.csv`
/// row as up to three metrics (see the module table).
pub fn utility_rows(
    graph: &crate::graph::Graph,
    distances: &crate::distance::Distances<'_>,
    up: &UtilityPoint,
    control: &crate::control::Control,
) -> Result<Vec<SweepRow>> {
    let mut plan = UtilityPlan::new(&up.config, graph, distances)?;
    let res = plan.run(control)?;
    Ok(utility_table_rows(&res.rows))
}

/// `utility.csv` rows as sweep rows (up to three metrics each).
fn utility_table_rows(table: &[crate::utility::UtilityRow]) -> Vec<SweepRow> {
    let mut rows = Vec::new();
    for r in table {
        let all = r.degree_lo.is_none();
        let names: [&str; 3] = if all {
            [
                "utility_mse_all",
                "utility_mse_all_se",
                "utility_mse_all_theory",
            ]
        } else {
            ["utility_mse", "utility_mse_se", "utility_mse_theory"]
        };
        for (metric, value) in names.into_iter().zip([Some(r.mse), r.mse_se, r.mse_theory]) {
            if let Some(value) = value {
                rows.push(SweepRow {
                    distance_lo: r.degree_lo.map(|d| d as f64),
                    distance_hi: r.degree_hi.map(|d| d as f64),
                    ..SweepRow::new(&r.scheme, metric, value)
                });
            }
        }
    }
    rows
}

/// The rows of a gossip point (`command = gossip`): its utility rows as a
/// utility point's, then the privacy and side-by-side metrics of the
/// module table.
pub fn gossip_rows(
    graph: &crate::graph::Graph,
    gp: &GossipPoint,
    control: &crate::control::Control,
) -> Result<Vec<SweepRow>> {
    let out = crate::gossip::run_gossip(graph, &gp.config, control)?;
    let mut rows = utility_table_rows(&out.utility);
    let scheme = format!("gossip-{}", gp.config.gossip);
    for r in &out.by_distance {
        let d = Some(r.distance as f64);
        for (metric, value) in [
            ("gossip_eps_paper_median", r.eps_paper.median),
            ("gossip_eps_exact_median", r.eps_exact.median),
            ("gossip_eps_exact_max", r.eps_exact.max),
        ] {
            if let Some(value) = value {
                rows.push(SweepRow {
                    distance_lo: d,
                    distance_hi: d,
                    ..SweepRow::new(&scheme, metric, value)
                });
            }
        }
    }
    for r in out.two_schools.iter().filter(|r| r.distance.is_none()) {
        for (mech, value) in [
            ("gossip", r.mse_gossip),
            ("diffusion-gaussian", r.mse_diffusion_gaussian),
            ("diffusion-laplace", r.mse_diffusion_laplace),
        ] {
            if let Some(value) = value {
                rows.push(SweepRow {
                    estimator: r.statistic.clone(),
                    ..SweepRow::new(mech, "two_schools_mse", value)
                });
            }
        }
    }
    Ok(rows)
}

/// `gain`, the name before the mean and the median were told apart, is
/// `gain_mean`; every other name is itself.
pub fn canonical_metric(m: &str) -> &str {
    match m {
        "gain" => "gain_mean",
        other => other,
    }
}

/// The collusion metrics of one point: the collusion runner on the point's
/// plan, pooled over owners (owners whose coalition is empty are left out).
pub fn collude_rows(plan: &Plan<'_>, cp: &ColludePoint) -> Result<Vec<SweepRow>> {
    let opts = &cp.options;
    let res = collude(plan, opts, &crate::control::Control::default())?;
    let mut rows = Vec::new();
    for (c, spec) in opts.coalitions.iter().enumerate() {
        let label = spec.label().to_string();
        let with = || {
            res.results
                .iter()
                .filter(move |r| r.coalition == c && r.size > 0)
        };
        for (metric, value) in [
            ("coalition_size", mean(with().map(|r| r.size as f64))),
            ("eps_max", mean(with().map(|r| r.accounting.eps_max))),
            ("eps_sum", mean(with().map(|r| r.accounting.eps_sum))),
        ] {
            rows.push(SweepRow {
                coalition: label.clone(),
                ..SweepRow::new("", metric, value)
            });
        }
        for (mi, mech) in plan.mechanisms().iter().enumerate() {
            for (ei, est) in opts.estimators.iter().enumerate() {
                let stats = || with().map(move |r| r.mechanisms[mi].estimators[ei].1);
                let gains: Vec<f64> = stats().map(|s| s.gain).collect();
                for (metric, value) in [
                    ("gain_mean", mean(gains.iter().copied())),
                    ("gain_median", median(gains.clone())),
                    ("coalition_mse", mean(stats().map(|s| s.mse))),
                ] {
                    rows.push(SweepRow {
                        estimator: est.name().to_string(),
                        coalition: label.clone(),
                        ..SweepRow::new(mech.name(), metric, value)
                    });
                }
            }
        }
    }
    Ok(rows)
}

#[cfg(test)]
mod tests {
    /// The coalition metrics are the range of `METRICS` they are read from
    /// (a reordering of `METRICS` must not change them).
    #[test]
    fn collusion_metrics_are_the_coalition_columns() {
        assert_eq!(
            super::COLLUSION_METRICS,
            [
                "gain_mean",
                "gain_median",
                "coalition_mse",
                "eps_max",
                "eps_sum",
                "coalition_size"
            ]
        );
    }
}
