//! Exact privacy loss of a coalition's view (memo §5): the log-likelihood
//! ratio between û and û′ = û + Δ_Z·e₁ as an exact rational — each rate t is
//! ε/Δ_Z with ε dyadic, and the DL log-likelihood is −t·|y − û|, so the loss
//! is a sum of t × integer differences.

use super::DiscreteNoise;
use super::ladder::Rung;
use super::rational::{big_ratio_to_f64, dyadic_parts};
use crate::error::{Error, Result};
use num_bigint::{BigInt, BigUint, Sign};
use num_integer::Integer;
use std::cmp::Ordering;

/// One coalition member's view: the rung it was answered at and its answer
/// in grid integers (û + X, one per coordinate).
#[derive(Clone, Copy, Debug)]
pub struct MemberView<'a> {
    /// The rung of the member's answer.
    pub rung: Rung,
    /// The answer û + X in grid steps.
    pub answer: &'a [i64],
}

/// An exact privacy loss (log-likelihood ratio), reduced.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PrivacyLoss {
    numer: BigInt,
    denom: BigUint,
}

impl PrivacyLoss {
    /// Numerator (signed).
    pub fn numer(&self) -> &BigInt {
        &self.numer
    }

    /// Denominator (≥ 1).
    pub fn denom(&self) -> &BigUint {
        &self.denom
    }

    /// The loss in f64 (within about one ulp).
    pub fn to_f64(&self) -> f64 {
        let v = big_ratio_to_f64(self.numer.magnitude(), &self.denom);
        if self.numer.sign() == Sign::Minus {
            -v
        } else {
            v
        }
    }

    /// Exact comparison with a finite f64 (e.g. the coalition's largest ε).
    pub fn cmp_f64(&self, x: f64) -> Ordering {
        let (m, e) = dyadic_parts(x.abs());
        let mut rhs = BigInt::from(m) * BigInt::from(self.denom.clone());
        if x < 0.0 {
            rhs = -rhs;
        }
        let mut lhs = self.numer.clone();
        if e >= 0 {
            rhs <<= e as u32;
        } else {
            lhs <<= (-e) as u32;
        }
        lhs.cmp(&rhs)
    }
}

impl std::fmt::Display for PrivacyLoss {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}/{}", self.numer, self.denom)
    }
}

impl DiscreteNoise {
    /// Σ_j ε_j·d_j / Δ_Z exactly, for (rung, integer difference) pairs.
    fn exact_sum(&self, terms: &[(Rung, i128)]) -> PrivacyLoss {
        let parts: Vec<(u64, i32, i128)> = terms
            .iter()
            .map(|&(k, d)| {
                let (m, e) = dyadic_parts(self.eps_of(k));
                (m, e, d)
            })
            .collect();
        let low = parts.iter().map(|p| p.1).min().unwrap_or(0);
        let mut n = BigInt::default();
        for &(m, e, d) in &parts {
            n += (BigInt::from(m) * BigInt::from(d)) << (e - low) as u32;
        }
        let (n, den) = if low >= 0 {
            (n << low as u32, BigUint::from(self.delta_z()))
        } else {
            (n, BigUint::from(self.delta_z()) << (-low) as u32)
        };
        let g = n.magnitude().gcd(&den);
        let g = if g == BigUint::default() {
            BigUint::from(1u8)
        } else {
            g
        };
        PrivacyLoss {
            numer: n / BigInt::from(g.clone()),
            denom: den / g,
        }
    }

    /// |y₁ − û₁ − Δ_Z| − |y₁ − û₁|: the first coordinate's term (the others
    /// are equal under û and û′ and cancel).
    fn difference(&self, uhat: &[i64], y: &[i64]) -> i128 {
        let z = i128::from(y[0]) - i128::from(uhat[0]);
        (z - i128::from(self.delta_z())).abs() - z.abs()
    }

    fn check_view(&self, uhat: &[i64], view: &[MemberView]) -> Result<()> {
        self.check_len("uhat", uhat.len())?;
        if view.is_empty() {
            return Err(Error::param("view", "no member", "at least one member"));
        }
        for m in view {
            self.check_rung("rung", m.rung)?;
            self.check_len("answer", m.answer.len())?;
        }
        Ok(())
    }

    /// Privacy loss ln P(view | û) − ln P(view | û + Δ_Z·e₁) under the
    /// correlated chain (memo §2, §5): given the member with the largest
    /// rung (rate t*), the others' answers are that answer plus noise
    /// independent of û, so the loss is t*·(|y*₁ − û₁ − Δ_Z| − |y*₁ − û₁|) ≤
    /// t*·Δ_Z = ε*, attained when y*₁ ≤ û₁. Members at the top rung must
    /// hold the same answer (one path per owner).
    pub fn correlated_loss(&self, uhat: &[i64], view: &[MemberView]) -> Result<PrivacyLoss> {
        self.check_view(uhat, view)?;
        let best = view.iter().map(|m| m.rung).max().unwrap_or(Rung(0));
        let mut at_top = view.iter().filter(|m| m.rung == best);
        let first = at_top.next().map(|m| m.answer).unwrap_or_default();
        if at_top.any(|m| m.answer != first) {
            return Err(Error::param(
                "view",
                format!("different answers at rung {best}"),
                "one answer per rung (a correlated view reads one path)",
            ));
        }
        Ok(self.exact_sum(&[(best, self.difference(uhat, first))]))
    }

    /// Privacy loss of the same view under independent fresh DL noise at
    /// each member's rung: Σ_j t_j·(|y_j1 − û₁ − Δ_Z| − |y_j1 − û₁|), which
    /// reaches Σ_j ε_j (memo §5).
    pub fn independent_loss(&self, uhat: &[i64], view: &[MemberView]) -> Result<PrivacyLoss> {
        self.check_view(uhat, view)?;
        let terms: Vec<(Rung, i128)> = view
            .iter()
            .map(|m| (m.rung, self.difference(uhat, m.answer)))
            .collect();
        Ok(self.exact_sum(&terms))
    }
}
