//! Test-only view samplers for the collusion tests (memo §1a, §5).
#![allow(dead_code)]

use privdiffuse::process::laplace::{exp1, laplace};
use privdiffuse::rng::PrivRng;

/// 1-D correlated views: the backward jump sampler of memo §1a. From the top
/// level V = Lap(1/λ_top); walking down, gaps in ln λ are Exp(rate 2) and a jump
/// at level e adds Lap(1/e); the value at level q is the value at the last
/// breakpoint ≥ q. Members at equal levels get bitwise-equal answers.
pub struct CorrelatedSampler {
    rates: Vec<f64>,
    /// Members by rate, descending.
    order: Vec<usize>,
}

impl CorrelatedSampler {
    pub fn new(rates: &[f64]) -> Self {
        let mut order: Vec<usize> = (0..rates.len()).collect();
        order.sort_by(|&a, &b| rates[b].total_cmp(&rates[a]));
        CorrelatedSampler {
            rates: rates.to_vec(),
            order,
        }
    }

    /// Writes u + V_{λ_j} for every member into `out`.
    pub fn sample(&self, rng: &mut PrivRng, u: f64, out: &mut [f64]) {
        let m = self.order.len();
        let mut e = self.rates[self.order[0]];
        let mut v = laplace(rng, 1.0 / e);
        let mut k = 0;
        loop {
            let next = e * (-0.5 * exp1(rng)).exp();
            while k < m && self.rates[self.order[k]] > next {
                out[self.order[k]] = u + v;
                k += 1;
            }
            if k == m {
                break;
            }
            v += laplace(rng, 1.0 / next);
            e = next;
        }
    }
}

/// Independent views: y_j = u + Lap(1/λ_j).
pub fn independent(rng: &mut PrivRng, rates: &[f64], u: f64, out: &mut [f64]) {
    for (o, &r) in out.iter_mut().zip(rates) {
        *o = u + laplace(rng, 1.0 / r);
    }
}

/// Var(Z²) for Z = Σ c_j X_j, X_j ~ Lap(1/λ_j) independent: cumulants
/// κ2 = Σ c_j² 2/λ_j², κ4 = Σ c_j⁴ 12/λ_j⁴, Var Z² = κ4 + 2κ2².
pub fn var_sq_linear(c: &[f64], rates: &[f64]) -> f64 {
    let k2: f64 = c
        .iter()
        .zip(rates)
        .map(|(c, r)| c * c * 2.0 / (r * r))
        .sum();
    let k4: f64 = c
        .iter()
        .zip(rates)
        .map(|(c, r)| c.powi(4) * 12.0 / r.powi(4))
        .sum();
    k4 + 2.0 * k2 * k2
}
