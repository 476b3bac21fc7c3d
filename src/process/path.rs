//! [`NoisePath`]: one sampled path of the lazy process, stored as its breakpoints.

use serde::{Deserialize, Serialize};

/// Norm of the privacy metric: ℓ1 (independent coordinates, rate 2 per
/// coordinate) or ℓ2 (density ∝ e^{−ε‖v‖₂}, rate n + 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "lowercase")]
pub enum Norm {
    /// ℓ1: n independent one-dimensional Laplace processes.
    #[default]
    L1,
    /// ℓ2: the n-dimensional process of thesis Def. 7.
    L2,
}

impl Norm {
    /// Jump rate per unit of ln ε for dimension `dim`: 2n (ℓ1, all coordinates
    /// merged) or n + 1 (ℓ2). Memo §1a, §2.
    pub fn jump_rate(self, dim: usize) -> f64 {
        match self {
            Norm::L1 => 2.0 * dim as f64,
            Norm::L2 => dim as f64 + 1.0,
        }
    }

    /// E‖V_ε‖² · ε²: 2n (ℓ1) or n(n + 1) (ℓ2). The optimal single-release MSE
    /// at level ε is this divided by ε².
    pub fn mse_factor(self, dim: usize) -> f64 {
        let n = dim as f64;
        match self {
            Norm::L1 => 2.0 * n,
            Norm::L2 => n * (n + 1.0),
        }
    }

    /// The norm of `v` in this metric.
    pub fn norm_of(self, v: &[f64]) -> f64 {
        match self {
            Norm::L1 => v.iter().map(|x| x.abs()).sum(),
            Norm::L2 => v.iter().map(|x| x * x).sum::<f64>().sqrt(),
        }
    }
}

impl std::str::FromStr for Norm {
    type Err = crate::error::Error;
    fn from_str(s: &str) -> crate::error::Result<Norm> {
        match s.trim().to_ascii_lowercase().as_str() {
            "l1" => Ok(Norm::L1),
            "l2" => Ok(Norm::L2),
            _ => Err(crate::error::Error::param(
                "norm",
                s,
                format!(
                    "l1 or l2{}",
                    crate::util::suggest::did_you_mean(s, &["l1", "l2"])
                ),
            )),
        }
    }
}

impl std::fmt::Display for Norm {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Norm::L1 => "l1",
            Norm::L2 => "l2",
        })
    }
}

/// A sampled path `ε ↦ V_ε ∈ Rⁿ` over `[eps_lo, eps_hi]`, piecewise constant.
///
/// Breakpoints are stored in ascending ε: breakpoint `i` at `eps[i]` carries the
/// value that holds on `[eps[i], eps[i+1])` (the last one up to and including
/// `eps_hi`). Breakpoint 0 sits at `eps_lo`; every later breakpoint is a jump.
/// At a jump's exact level the upper value applies (a measure-zero convention).
/// Values are stored once and copied, never recomputed, so "no jump between two
/// levels" is bitwise equality of the looked-up values.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "NoisePathParts")]
pub struct NoisePath {
    dim: usize,
    eps_hi: f64,
    eps: Vec<f64>,
    values: Vec<f64>,
}

/// The serialised form of a [`NoisePath`], checked by
/// [`NoisePath::from_parts`] on the way in so that a stored path cannot break
/// the ordering invariants `value_at` relies on. An unsampled path (no
/// breakpoints; `eps_hi` NaN, which JSON writes as `null`) is accepted as such.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct NoisePathParts {
    dim: usize,
    eps_hi: Option<f64>,
    eps: Vec<f64>,
    values: Vec<f64>,
}

impl TryFrom<NoisePathParts> for NoisePath {
    type Error = crate::error::Error;

    fn try_from(p: NoisePathParts) -> crate::error::Result<Self> {
        if p.eps.is_empty() && p.values.is_empty() && p.dim > 0 {
            return Ok(NoisePath::empty(p.dim));
        }
        NoisePath::from_parts(p.dim, p.eps, p.values, p.eps_hi.unwrap_or(f64::NAN))
    }
}

/// One jump of a path: at level `eps`, the value changes from `below` (levels
/// just under `eps`) to `above` (levels from `eps` up).
#[derive(Clone, Copy, Debug)]
pub struct Jump<'a> {
    /// Level of the jump.
    pub eps: f64,
    /// Value just below the jump.
    pub below: &'a [f64],
    /// Value from the jump up.
    pub above: &'a [f64],
}

impl Jump<'_> {
    /// Size of the jump in `norm`.
    pub fn size(&self, norm: Norm) -> f64 {
        match norm {
            Norm::L1 => self
                .below
                .iter()
                .zip(self.above)
                .map(|(a, b)| (a - b).abs())
                .sum(),
            Norm::L2 => self
                .below
                .iter()
                .zip(self.above)
                .map(|(a, b)| (a - b) * (a - b))
                .sum::<f64>()
                .sqrt(),
        }
    }
}

impl NoisePath {
    /// An empty path of dimension `dim` (filled by a sampler).
    pub fn empty(dim: usize) -> Self {
        NoisePath {
            dim,
            eps_hi: f64::NAN,
            eps: Vec::new(),
            values: Vec::new(),
        }
    }

    /// Builds a path from ascending breakpoints and their values (row-major,
    /// `eps.len() × dim`). Checks shapes and ordering.
    pub fn from_parts(
        dim: usize,
        eps: Vec<f64>,
        values: Vec<f64>,
        eps_hi: f64,
    ) -> crate::error::Result<Self> {
        let ok = dim > 0
            && !eps.is_empty()
            && values.len() == eps.len() * dim
            && eps.windows(2).all(|w| w[0] < w[1])
            && eps[0] > 0.0
            && eps_hi.is_finite()
            && *eps.last().unwrap_or(&f64::INFINITY) <= eps_hi;
        if !ok {
            return Err(crate::error::Error::param(
                "path breakpoints",
                format!("{} levels, {} values, dim {dim}", eps.len(), values.len()),
                "ascending positive levels up to eps_hi with dim values each",
            ));
        }
        Ok(NoisePath {
            dim,
            eps_hi,
            eps,
            values,
        })
    }

    /// Dimension n.
    #[inline]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Number of breakpoints (jumps + 1).
    #[inline]
    pub fn len(&self) -> usize {
        self.eps.len()
    }

    /// Whether the path has no breakpoint (never sampled).
    #[inline]
    pub fn is_empty(&self) -> bool {
        self.eps.is_empty()
    }

    /// Number of jumps inside `(eps_lo, eps_hi]`.
    #[inline]
    pub fn num_jumps(&self) -> usize {
        self.eps.len().saturating_sub(1)
    }

    /// Lowest level covered (NaN for a path never sampled).
    #[inline]
    pub fn eps_lo(&self) -> f64 {
        self.eps.first().copied().unwrap_or(f64::NAN)
    }

    /// Highest level covered.
    #[inline]
    pub fn eps_hi(&self) -> f64 {
        self.eps_hi
    }

    /// Breakpoint levels, ascending.
    #[inline]
    pub fn levels(&self) -> &[f64] {
        &self.eps
    }

    /// All values, row-major (`len() × dim()`).
    #[inline]
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// Value of breakpoint `i`.
    #[inline]
    pub fn value(&self, i: usize) -> &[f64] {
        &self.values[i * self.dim..(i + 1) * self.dim]
    }

    /// Whether `eps` lies in `[eps_lo, eps_hi]`.
    #[inline]
    pub fn contains(&self, eps: f64) -> bool {
        !self.eps.is_empty() && eps >= self.eps[0] && eps <= self.eps_hi
    }

    /// Index of the breakpoint whose value holds at `eps` (O(log k)). Levels
    /// below `eps_lo` map to breakpoint 0 and levels above `eps_hi` to the
    /// last: callers sample the range they need, see [`NoisePath::contains`].
    #[inline]
    pub fn index_at(&self, eps: f64) -> usize {
        // First breakpoint strictly above eps, minus one.
        self.eps.partition_point(|&e| e <= eps).saturating_sub(1)
    }

    /// `V_eps` (O(log k)); see [`NoisePath::index_at`] for out-of-range levels.
    /// Panics on a path that was never sampled ([`NoisePath::is_empty`]).
    #[inline]
    pub fn value_at(&self, eps: f64) -> &[f64] {
        self.value(self.index_at(eps))
    }

    /// Breakpoints as `(level, value)`, ascending.
    pub fn breakpoints(&self) -> impl ExactSizeIterator<Item = (f64, &[f64])> + '_ {
        self.eps
            .iter()
            .zip(self.values.chunks_exact(self.dim.max(1)))
            .map(|(&e, v)| (e, v))
    }

    /// Jumps, ascending in ε.
    pub fn jumps(&self) -> impl ExactSizeIterator<Item = Jump<'_>> + '_ {
        (1..self.eps.len()).map(move |i| Jump {
            eps: self.eps[i],
            below: self.value(i - 1),
            above: self.value(i),
        })
    }

    /// Resets to an empty path of dimension `dim`, keeping allocations.
    pub(crate) fn reset(&mut self, dim: usize, eps_hi: f64) {
        self.dim = dim;
        self.eps_hi = eps_hi;
        self.eps.clear();
        self.values.clear();
    }

    /// Appends a breakpoint (used by samplers that build in descending order
    /// and then call [`NoisePath::reverse`]).
    #[inline]
    pub(crate) fn push(&mut self, eps: f64, value: &[f64]) {
        self.eps.push(eps);
        self.values.extend_from_slice(value);
    }

    /// Reverses breakpoint order (descending construction → ascending).
    pub(crate) fn reverse(&mut self) {
        self.eps.reverse();
        let d = self.dim;
        let k = self.eps.len();
        for i in 0..k / 2 {
            let j = k - 1 - i;
            let (a, b) = self.values.split_at_mut(j * d);
            a[i * d..(i + 1) * d].swap_with_slice(&mut b[..d]);
        }
    }

    /// Sets the level of the last pushed breakpoint. Samplers build in
    /// descending ε: a row's level is the lower end of the interval where its
    /// value holds, known only when the next jump below is drawn.
    #[inline]
    pub(crate) fn set_last_level(&mut self, eps: f64) {
        if let Some(e) = self.eps.last_mut() {
            *e = eps;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn lookup_follows_half_open_convention() {
        let p = NoisePath::from_parts(1, vec![0.5, 1.0, 2.0], vec![3.0, 2.0, 1.0], 4.0).unwrap();
        assert_eq!(p.value_at(0.5), &[3.0]);
        assert_eq!(p.value_at(0.99), &[3.0]);
        assert_eq!(p.value_at(1.0), &[2.0]); // upper value at the jump level
        assert_eq!(p.value_at(3.0), &[1.0]);
        assert_eq!(p.value_at(4.0), &[1.0]);
        assert_eq!(p.num_jumps(), 2);
        let j: Vec<_> = p.jumps().map(|j| (j.eps, j.below[0], j.above[0])).collect();
        assert_eq!(j, vec![(1.0, 3.0, 2.0), (2.0, 2.0, 1.0)]);
    }

    #[test]
    fn reverse_swaps_rows() {
        let mut p = NoisePath::empty(2);
        p.reset(2, 9.0);
        p.push(3.0, &[1.0, 2.0]);
        p.push(2.0, &[3.0, 4.0]);
        p.push(1.0, &[5.0, 6.0]);
        p.reverse();
        assert_eq!(p.levels(), &[1.0, 2.0, 3.0]);
        assert_eq!(p.values(), &[5.0, 6.0, 3.0, 4.0, 1.0, 2.0]);
    }

    #[test]
    fn from_parts_validates() {
        assert!(NoisePath::from_parts(1, vec![1.0, 1.0], vec![0.0, 0.0], 2.0).is_err());
        assert!(NoisePath::from_parts(1, vec![1.0], vec![0.0, 0.0], 2.0).is_err());
        assert!(NoisePath::from_parts(1, vec![1.0], vec![0.0], 0.5).is_err());
        assert!(NoisePath::from_parts(0, vec![1.0], vec![], 2.0).is_err());
    }

    #[test]
    fn serde_round_trips_and_validates() {
        let p = NoisePath::from_parts(1, vec![0.5, 1.0], vec![3.0, 2.0], 4.0).unwrap();
        let json = serde_json::to_string(&p).unwrap();
        assert_eq!(serde_json::from_str::<NoisePath>(&json).unwrap(), p);
        let empty = serde_json::to_string(&NoisePath::empty(2)).unwrap();
        let back: NoisePath = serde_json::from_str(&empty).unwrap();
        assert!(back.is_empty() && back.dim() == 2);
        // Descending levels would break the binary search of `value_at`.
        let bad = json.replace("[0.5,1.0]", "[1.0,0.5]");
        assert_ne!(bad, json);
        let err = serde_json::from_str::<NoisePath>(&bad).unwrap_err();
        assert!(err.to_string().contains("ascending"), "{err}");
    }
}
