//! Pooling per-owner collusion results into the rows of `coalition.csv` and
//! `audit.csv` and the pooled estimates of `summary.json`.

use super::rows::{AuditRow, CoalitionRow};
use super::run::{CoalitionResult, CollusionOptions};
use crate::error::{Error, Result};
use crate::sim::Plan;
use crate::util::average::{mean, median};
use serde::Serialize;

/// Pooled over owners: one coalition × mechanism × estimator.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PooledEstimator {
    /// Coalition spec.
    pub coalition: String,
    /// Mechanism.
    pub mechanism: String,
    /// Estimator.
    pub estimator: String,
    /// Owners whose coalition was non-empty (the rest are not pooled).
    pub owners: usize,
    /// Mean coalition size over those owners.
    pub mean_size: f64,
    /// Mean gain MSE(best)/MSE(estimator) over owners.
    pub mean_gain: f64,
    /// Median gain over owners (the statistic of the coalition figure and of
    /// the sweep's `gain_median`). Not in `summary.json`, whose fields stay
    /// those of earlier runs.
    #[serde(skip_serializing)]
    pub median_gain: f64,
    /// Smallest and largest per-owner gain.
    pub min_gain: f64,
    /// Largest per-owner gain.
    pub max_gain: f64,
    /// Owners whose 95% gain interval lies entirely above 1.
    pub owners_gain_above_1: usize,
    /// Mean per-owner MSE of the estimator.
    pub mean_mse: f64,
    /// Mean per-owner win rate.
    pub mean_win_rate: f64,
}

/// Pooled over owners: one coalition × mechanism audit.
#[derive(Clone, Debug, Serialize, PartialEq)]
pub struct PooledAudit {
    /// Coalition spec.
    pub coalition: String,
    /// Mechanism.
    pub mechanism: String,
    /// Owners whose coalition was non-empty.
    pub owners: usize,
    /// Mean accounted ε (see `audit.csv`'s `eps_bound`).
    pub mean_eps_bound: f64,
    /// Independent mechanism: mean advanced-composition ε at `composition_delta`.
    pub mean_eps_advanced: Option<f64>,
    /// Mean of the per-owner mean losses.
    pub mean_loss: f64,
    /// Largest loss over all views.
    pub max_loss: f64,
    /// Largest per-owner `loss_max / eps_bound`.
    pub max_loss_over_bound: f64,
    /// Views whose loss exceeded the accounted ε (see `AuditResult::bound_exceeded`).
    pub bound_exceeded: u64,
    /// Mean and largest distinguishing-attack lower bound on ε.
    pub mean_eps_lower_bound: f64,
    /// Largest per-owner lower bound.
    pub max_eps_lower_bound: f64,
    /// Correlated, n = 1 or ℓ1: largest disagreement of the two loss computations.
    pub chain_disagreement: Option<f64>,
}

/// The rows of `coalition.csv`: owner × coalition × mechanism × estimator,
/// in the order of `results`. Refuses an undefined gain (0/0: every answer
/// equal to u because the noise vanished against the values).
pub fn coalition_rows(plan: &Plan<'_>, results: &[CoalitionResult]) -> Result<Vec<CoalitionRow>> {
    let mut rows = Vec::new();
    for r in results {
        let owner = plan.graph().ids().label(r.owner).to_string();
        let empty = r.size == 0;
        for m in &r.mechanisms {
            for (e, g) in &m.estimators {
                if !empty && g.mse == 0.0 && g.mse_best == 0.0 {
                    // 0/0: the noise vanished against the values.
                    return Err(Error::Numerical(format!(
                        "owner {owner}, coalition '{}', {} noise: every answer equals u \
                         exactly (the noise is below the precision of the values), so the \
                         gain is undefined",
                        r.label, m.mechanism
                    )));
                }
                rows.push(CoalitionRow {
                    owner: owner.clone(),
                    coalition: r.label.clone(),
                    size: r.size as u64,
                    eps_max: if empty {
                        f64::NAN
                    } else {
                        r.accounting.eps_max
                    },
                    eps_sum: if empty {
                        f64::NAN
                    } else {
                        r.accounting.eps_sum
                    },
                    mechanism: m.mechanism.name().into(),
                    estimator: e.name().into(),
                    mse: g.mse,
                    gain: g.gain,
                    gain_lo: g.gain_lo,
                    gain_hi: g.gain_hi,
                    win_rate: g.win_rate,
                });
            }
        }
    }
    Ok(rows)
}

/// The rows of `audit.csv`: owner × coalition × mechanism, in the order of
/// `results` (NaN where a mechanism has no audit).
pub fn audit_rows(plan: &Plan<'_>, results: &[CoalitionResult]) -> Vec<AuditRow> {
    let mut rows = Vec::new();
    for r in results {
        let owner = plan.graph().ids().label(r.owner).to_string();
        for m in &r.mechanisms {
            let [eps_bound, loss_mean, loss_q99, loss_max, eps_lower_bound] = match &m.audit {
                Some(a) => [
                    a.eps_bound,
                    a.loss.mean,
                    a.loss.q99,
                    a.loss.max,
                    a.distinguishing.eps_lower_bound,
                ],
                None => [f64::NAN; 5],
            };
            rows.push(AuditRow {
                owner: owner.clone(),
                coalition: r.label.clone(),
                mechanism: m.mechanism.name().into(),
                eps_bound,
                loss_mean,
                loss_q99,
                loss_max,
                eps_lower_bound,
            });
        }
    }
    rows
}

/// Pools the per-owner results (owners with an empty coalition are left out).
pub fn pool(
    plan: &Plan<'_>,
    opts: &CollusionOptions,
    results: &[CoalitionResult],
) -> (Vec<PooledEstimator>, Vec<PooledAudit>) {
    let mut pooled = Vec::new();
    let mut audits = Vec::new();
    for (c, spec) in opts.coalitions.iter().enumerate() {
        let rows: Vec<&CoalitionResult> = results
            .iter()
            .filter(|r| r.coalition == c && r.size > 0)
            .collect();
        let mean_size = mean(rows.iter().map(|r| r.size as f64));
        for (mi, &mech) in plan.mechanisms().iter().enumerate() {
            for (ei, &est) in opts.estimators.iter().enumerate() {
                let g = || rows.iter().map(move |r| r.mechanisms[mi].estimators[ei].1);
                pooled.push(PooledEstimator {
                    coalition: spec.label().to_string(),
                    mechanism: mech.name().into(),
                    estimator: est.name().into(),
                    owners: rows.len(),
                    mean_size,
                    mean_gain: mean(g().map(|s| s.gain)),
                    median_gain: median(g().map(|s| s.gain).collect()),
                    min_gain: g().map(|s| s.gain).fold(f64::NAN, f64::min),
                    max_gain: g().map(|s| s.gain).fold(f64::NAN, f64::max),
                    owners_gain_above_1: g().filter(|s| s.gain_lo > 1.0).count(),
                    mean_mse: mean(g().map(|s| s.mse)),
                    mean_win_rate: mean(g().map(|s| s.win_rate)),
                });
            }
            let a: Vec<_> = rows.iter().filter_map(|r| r.mechanisms[mi].audit).collect();
            let chain = a
                .iter()
                .filter_map(|x| x.chain_disagreement)
                .reduce(f64::max);
            audits.push(PooledAudit {
                coalition: spec.label().to_string(),
                mechanism: mech.name().into(),
                owners: rows.len(),
                mean_eps_bound: mean(a.iter().map(|x| x.eps_bound)),
                mean_eps_advanced: a
                    .first()
                    .and_then(|x| x.eps_advanced)
                    .map(|_| mean(a.iter().filter_map(|x| x.eps_advanced))),
                mean_loss: mean(a.iter().map(|x| x.loss.mean)),
                max_loss: a.iter().map(|x| x.loss.max).fold(f64::NAN, f64::max),
                max_loss_over_bound: a
                    .iter()
                    .map(|x| x.loss.max / x.eps_bound)
                    .fold(f64::NAN, f64::max),
                bound_exceeded: a.iter().map(|x| x.bound_exceeded).sum(),
                mean_eps_lower_bound: mean(a.iter().map(|x| x.distinguishing.eps_lower_bound)),
                max_eps_lower_bound: a
                    .iter()
                    .map(|x| x.distinguishing.eps_lower_bound)
                    .fold(f64::NAN, f64::max),
                chain_disagreement: chain,
            });
        }
    }
    (pooled, audits)
}
