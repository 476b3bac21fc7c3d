//! What a gossip run produces: typed rows of `privacy.csv`,
//! `privacy_by_distance.csv`, `coalition.csv` and `two_schools.csv` (the
//! `utility.csv` rows are `utility`'s own [`UtilityRow`](crate::utility::UtilityRow)).

use crate::util::table::CsvRow;
use serde::{Deserialize, Serialize};

/// One ordered pair (source u, observer v) of `privacy.csv`: the loss of u's
/// value to v in Rényi DP at α and in ε at δ (tight Gaussian curve, memo
/// (12)). `*_paper`: the reference code's accounting (8), t₀ = 0, capped at
/// the local level (9), present where u is an owner; `*_exact`: memo (11),
/// present where v is an observer.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrivacyRow {
    /// The source's node id.
    pub source: String,
    /// The observer's node id.
    pub observer: String,
    /// Hop distance from source to observer.
    pub distance: u32,
    /// Capped (8) at α.
    pub rdp_paper: Option<f64>,
    /// (11) at α.
    pub rdp_exact: Option<f64>,
    /// Capped (8) as ε at δ.
    pub eps_paper: Option<f64>,
    /// (11) as ε at δ.
    pub eps_exact: Option<f64>,
}

/// Mean, median and maximum of one column over the pairs of a hop
/// (`None` when the column is empty there).
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
pub struct Stats {
    /// Mean.
    pub mean: Option<f64>,
    /// Median (mean of the middle two for an even count).
    pub median: Option<f64>,
    /// Maximum.
    pub max: Option<f64>,
}

impl Stats {
    /// The statistics of `xs` (sorted in place).
    pub fn of(xs: &mut [f64]) -> Stats {
        if xs.is_empty() {
            return Stats {
                mean: None,
                median: None,
                max: None,
            };
        }
        xs.sort_by(f64::total_cmp);
        let k = xs.len();
        let median = if k % 2 == 1 {
            xs[k / 2]
        } else {
            0.5 * (xs[k / 2 - 1] + xs[k / 2])
        };
        Stats {
            mean: Some(xs.iter().sum::<f64>() / k as f64),
            median: Some(median),
            max: Some(xs[k - 1]),
        }
    }
}

/// One hop of `privacy_by_distance.csv`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PrivacyByDistanceRow {
    /// Hop distance.
    pub distance: u32,
    /// Pairs of `privacy.csv` at this distance.
    pub pairs: u64,
    /// Of which with the accounting (8).
    pub pairs_paper: u64,
    /// Of which with the exact loss (11).
    pub pairs_exact: u64,
    /// `rdp_paper` over the pairs.
    pub rdp_paper: Stats,
    /// `rdp_exact`.
    pub rdp_exact: Stats,
    /// `eps_paper`.
    pub eps_paper: Stats,
    /// `eps_exact`.
    pub eps_exact: Stats,
}

/// One (source, coalition) of `coalition.csv`: the exact loss to the
/// coalition pooling its members' views (the union of their rows, every
/// member's own column removed), next to the largest single member's exact
/// loss — diffusion's coalition bound at the same per-member privacy (a
/// coalition-free mechanism leaks to a coalition what its closest member
/// gets).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CoalitionLossRow {
    /// The source's node id.
    pub source: String,
    /// The coalition spec.
    pub coalition: String,
    /// Members (never the source).
    pub members: u64,
    /// Rank of the pooled view.
    pub rank: u64,
    /// (11) of the coalition at α (`None`: no member).
    pub rdp_coalition: Option<f64>,
    /// As ε at δ.
    pub eps_coalition: Option<f64>,
    /// max over members of each one's own (11) at α.
    pub rdp_max_member: Option<f64>,
    /// As ε at δ.
    pub eps_max_member: Option<f64>,
}

/// One hop and statistic of `two_schools.csv`: gossip's exact loss at that
/// hop (the median or the worst pair), the diffusion mechanisms matched to
/// it, and the MSE of the network mean of each.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct TwoSchoolsRow {
    /// Hop distance (`None`: the MSE row over all members).
    pub distance: Option<u32>,
    /// `median` or `worst` pair of each hop.
    pub statistic: String,
    /// Exact pairs the statistic is taken over.
    pub pairs: u64,
    /// Gossip's exact loss at α (`rdp_exact`).
    pub rdp_gossip: Option<f64>,
    /// Its μ (GDP).
    pub mu: Option<f64>,
    /// Its ε at δ.
    pub eps_gossip: Option<f64>,
    /// Diffusion's Gaussian mechanism at the same μ: σ = Δ/μ.
    pub sigma_diffusion: Option<f64>,
    /// Diffusion's Laplace: the largest ε whose privacy profile lies below
    /// the Gaussian's at every ε′ ≥ 0.
    pub eps_laplace: Option<f64>,
    /// MSE of the network mean, gossip (simulated; the all-members row).
    pub mse_gossip: Option<f64>,
    /// Its closed form (14).
    pub mse_gossip_theory: Option<f64>,
    /// Closed-form MSE of diffusion's Gaussian mechanism at these levels.
    pub mse_diffusion_gaussian: Option<f64>,
    /// Closed-form MSE of diffusion's Laplace mechanism at these levels.
    pub mse_diffusion_laplace: Option<f64>,
    /// Closed-form MSE of Laplace matched at δ instead (ε_L = gossip's ε at
    /// δ; for reference: it favours Laplace).
    pub mse_diffusion_laplace_at_delta: Option<f64>,
}

/// Rank decisions of one observer set (`summary.json`).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct RankRow {
    /// The observer's node id.
    pub observer: String,
    /// Its degree.
    pub degree: u64,
    /// `rank B` = Σ_u Π_uu.
    pub rank: u64,
    /// Smallest norm of a kept candidate direction.
    pub smallest_kept: f64,
    /// Largest norm of a dropped one.
    pub largest_dropped: f64,
}

impl CsvRow for PrivacyRow {}
/// Its [`Stats`] are written flat, under the names of
/// `privacy_by_distance.csv`'s header (`rdp_paper_mean`, …).
impl CsvRow for PrivacyByDistanceRow {}
impl CsvRow for CoalitionLossRow {}
impl CsvRow for TwoSchoolsRow {}
