//! The side-by-side of issue 36 item 5 (`two_schools.csv`): at every hop,
//! gossip's exact loss (11) of the median and of the worst pair, matched by
//! the diffusion mechanisms of this crate — the Gaussian mechanism at the
//! same μ (GDP: equal privacy at every δ) and Laplace at the largest ε whose
//! privacy profile lies below that Gaussian profile ([`matched_laplace_eps`])
//! — and the MSE of the network mean of each. Diffusion's answers are
//! independent across owners, so its MSE is a closed form: member j
//! averages its own value and one answer of every other owner i, with noise
//! variance v(d_ij) at their hop distance, `MSE = (1/n³) Σ_d N_d v(d)` over
//! the `N_d` ordered pairs at hop d (the `correlated` scheme of `utility`,
//! whose simulation matches this theory).

use super::conversion::{gaussian_eps, matched_laplace_eps, mu_of};
use super::rows::TwoSchoolsRow;

/// Inputs of the comparison.
pub struct Matching<'a> {
    /// Per hop d (index d): exact `Π_uu` of every pair with (11), units of
    /// the local level.
    pub exact_by_hop: &'a [Vec<f64>],
    /// Ordered pairs of the graph at each hop (index d).
    pub pairs_by_hop: &'a [u64],
    /// Nodes.
    pub n: usize,
    /// Δ.
    pub sensitivity: f64,
    /// σ of gossip.
    pub sigma: f64,
    /// α.
    pub alpha: f64,
    /// δ.
    pub delta: f64,
    /// Gossip's simulated MSE over all members and its theory (14).
    pub mse_gossip: (f64, f64),
}

/// The rows: per statistic, one per hop, then one over all members.
pub fn two_schools(m: &Matching<'_>) -> Vec<TwoSchoolsRow> {
    let local = super::conversion::local_level(m.alpha, m.sensitivity, m.sigma);
    let mut out = Vec::new();
    for stat in ["median", "worst"] {
        let mut var_g = 0.0;
        let mut var_l = 0.0;
        let mut var_ld = 0.0;
        let mut complete = true;
        for (d, xs) in m.exact_by_hop.iter().enumerate().skip(1) {
            let count = m.pairs_by_hop.get(d).copied().unwrap_or(0);
            if xs.is_empty() {
                if count > 0 {
                    complete = false;
                }
                continue;
            }
            let mut v = xs.clone();
            let stats = super::rows::Stats::of(&mut v);
            let pi = if stat == "median" {
                stats.median
            } else {
                stats.max
            }
            .unwrap_or(0.0);
            let mu = mu_of(pi, m.sensitivity, m.sigma);
            let eps = gaussian_eps(mu, m.delta);
            let sigma_d = m.sensitivity / mu;
            let eps_l = matched_laplace_eps(mu);
            let c = count as f64;
            var_g += c * sigma_d * sigma_d;
            var_l += c * 2.0 * (m.sensitivity / eps_l).powi(2);
            var_ld += c * 2.0 * (m.sensitivity / eps).powi(2);
            out.push(TwoSchoolsRow {
                distance: Some(d as u32),
                statistic: stat.into(),
                pairs: xs.len() as u64,
                rdp_gossip: Some(pi * local),
                mu: Some(mu),
                eps_gossip: Some(eps),
                sigma_diffusion: sigma_d.is_finite().then_some(sigma_d),
                eps_laplace: Some(eps_l),
                mse_gossip: None,
                mse_gossip_theory: None,
                mse_diffusion_gaussian: None,
                mse_diffusion_laplace: None,
                mse_diffusion_laplace_at_delta: None,
            });
        }
        let n3 = (m.n as f64).powi(3);
        let fin = |x: f64| (complete && x.is_finite()).then_some(x / n3);
        out.push(TwoSchoolsRow {
            distance: None,
            statistic: stat.into(),
            pairs: m.exact_by_hop.iter().map(|x| x.len() as u64).sum(),
            rdp_gossip: None,
            mu: None,
            eps_gossip: None,
            sigma_diffusion: None,
            eps_laplace: None,
            mse_gossip: Some(m.mse_gossip.0),
            mse_gossip_theory: Some(m.mse_gossip.1),
            mse_diffusion_gaussian: fin(var_g),
            mse_diffusion_laplace: fin(var_l),
            mse_diffusion_laplace_at_delta: fin(var_ld),
        });
    }
    out
}
