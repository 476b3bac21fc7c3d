//! Utility of gossip averaging, memo §4, reported as `utility` reports it
//! (one row per log₂ degree bucket and one over all members, MSE with
//! replicate standard errors and the closed form), so the two commands'
//! tables compare row by row. Every member v estimates the network mean x̄
//! by `x^T_v`; its error is `(x^T_v − x̄)²`, whose expectation is (13)
//! `((P_T x)_v − x̄)² + σ²‖P_T e_v‖²` (bias² + noise), averaged to (14).
//! The noisy start `x + η` is never clipped (memo §6: clipping biases the
//! mean and breaks (13)).
//!
//! Replicate r draws node v's noise from `rng_for(seed, v, r,
//! Purpose::Gossip)`: the same numbers whatever the thread count or the
//! order in which replicates run.

use super::iteration::Recursion;
use super::metropolis::Metropolis;
use crate::rng::{Purpose, rng_for};
use crate::utility::{UtilityRow, bucket_range, degree_bucket};
use rand_distr::{Distribution, StandardNormal};

/// Squared errors `(x^T_v − x̄)²` of one replicate.
pub fn replicate_errors(
    w: &Metropolis,
    rec: &Recursion,
    steps: u64,
    x: &[f64],
    sigma: f64,
    seed: u64,
    replicate: u64,
) -> Vec<f64> {
    let n = x.len();
    let mean = x.iter().sum::<f64>() / n as f64;
    let mut y: Vec<f64> = x
        .iter()
        .enumerate()
        .map(|(v, xv)| {
            let mut rng = rng_for(seed, v as u64, replicate, Purpose::Gossip);
            let eta: f64 = StandardNormal.sample(&mut rng);
            xv + sigma * eta
        })
        .collect();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    rec.run(w, steps, &mut y, &mut a, &mut b);
    y.iter().map(|e| (e - mean) * (e - mean)).collect()
}

/// The expectation (13) of every member's squared error: `norms_t` is
/// `‖P_T e_v‖²` for every v.
pub fn theory(
    w: &Metropolis,
    rec: &Recursion,
    steps: u64,
    x: &[f64],
    sigma: f64,
    norms_t: &[f64],
) -> Vec<f64> {
    let n = x.len();
    let mean = x.iter().sum::<f64>() / n as f64;
    let mut px = x.to_vec();
    let (mut a, mut b) = (Vec::new(), Vec::new());
    rec.run(w, steps, &mut px, &mut a, &mut b);
    px.iter()
        .zip(norms_t)
        .map(|(p, d)| (p - mean) * (p - mean) + sigma * sigma * d)
        .collect()
}

/// `utility.csv` rows of scheme `name`: per degree bucket (non-empty ones,
/// ascending) then over all members, the mean over replicates of the
/// bucket's mean squared error, its standard error over replicates (none
/// with one replicate: sd/√R) and the bucket's mean of (13).
pub fn rows(
    name: &str,
    degrees: &[u64],
    replicates: &[Vec<f64>],
    theory: &[f64],
) -> Vec<UtilityRow> {
    let buckets = degrees.iter().map(|&d| degree_bucket(d)).max().unwrap_or(0) + 1;
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); buckets];
    for (v, &d) in degrees.iter().enumerate() {
        groups[degree_bucket(d)].push(v);
    }
    let all: Vec<usize> = (0..degrees.len()).collect();
    let row = |members: &[usize], range: Option<(u64, u64)>| {
        let k = members.len() as f64;
        let per: Vec<f64> = replicates
            .iter()
            .map(|e| members.iter().map(|&v| e[v]).sum::<f64>() / k)
            .collect();
        let r = per.len() as f64;
        let mse = per.iter().sum::<f64>() / r;
        let se = (per.len() > 1).then(|| {
            let var = per.iter().map(|m| (m - mse) * (m - mse)).sum::<f64>() / (r - 1.0);
            (var / r).sqrt()
        });
        UtilityRow {
            scheme: name.to_string(),
            degree_lo: range.map(|x| x.0),
            degree_hi: range.map(|x| x.1),
            recipients: members.len() as u64,
            mse,
            mse_se: se,
            mse_theory: Some(members.iter().map(|&v| theory[v]).sum::<f64>() / k),
        }
    };
    let mut out: Vec<UtilityRow> = groups
        .iter()
        .enumerate()
        .filter(|(_, g)| !g.is_empty())
        .map(|(b, g)| row(g, Some(bucket_range(b))))
        .collect();
    out.push(row(&all, None));
    out
}
