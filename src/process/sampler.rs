//! Exact samplers of the lazy process over a requested range (memo §1a, §2).
//!
//! The path is drawn at the top of the range from its marginal and then walked
//! down in ε: jump locations form a Poisson process in ln ε (rate 2 per
//! coordinate for ℓ1, n + 1 for ℓ2), and a jump at level e adds fresh noise at
//! the jump's own (new, lower) level e — never the previous upper level (memo
//! §8.9). No discretisation, no Bessel inverse.

use super::laplace::{exp1, laplace, std_normal};
use super::path::{NoisePath, Norm};
use crate::error::{Error, Result};
use rand::{Rng, RngExt};
use rand_distr::{Distribution, Gamma};

fn check_level(name: &str, x: f64) -> Result<()> {
    use crate::limits::{LEVEL_MAX, LEVEL_MIN};
    if !(x.is_finite() && x > 0.0) {
        Err(Error::param(name, x, "a finite number > 0"))
    } else if !(LEVEL_MIN..=LEVEL_MAX).contains(&x) {
        Err(Error::param(
            name,
            x,
            format!(
                "a level within [{LEVEL_MIN:e}, {LEVEL_MAX:e}] (beyond, the noise or its square \
                 overflows or vanishes)"
            ),
        ))
    } else {
        Ok(())
    }
}

/// Draws `V_eps` from its marginal into `out` (`out.len()` = n): ℓ1 —
/// independent `Lap(1/ε)` coordinates; ℓ2 — radius `Gamma(n, 1/ε)` times a
/// uniform direction (memo §2). `eps` must be finite and > 0 (as validated by
/// [`PathSampler::new`]); an empty `out` is left alone.
pub fn sample_marginal<R: Rng + ?Sized>(norm: Norm, eps: f64, out: &mut [f64], rng: &mut R) {
    if out.is_empty() {
        // (The direction loop below would never find a non-zero vector.)
        return;
    }
    match norm {
        Norm::L1 => {
            for x in out.iter_mut() {
                *x = laplace(rng, 1.0 / eps);
            }
        }
        Norm::L2 => {
            let n = out.len();
            // Gamma(n, 1/ε): the shape is an integer ≥ 1, so the constructor
            // cannot fail for a validated ε.
            let radius = match Gamma::new(n as f64, 1.0 / eps) {
                Ok(g) => g.sample(rng),
                Err(_) => f64::NAN,
            };
            uniform_direction(out, rng);
            for x in out.iter_mut() {
                *x *= radius;
            }
        }
    }
}

/// Fills `out` with a uniformly distributed unit vector (normalised Gaussian).
fn uniform_direction<R: Rng + ?Sized>(out: &mut [f64], rng: &mut R) {
    loop {
        let mut ss = 0.0;
        for x in out.iter_mut() {
            *x = std_normal(rng);
            ss += *x * *x;
        }
        if ss > 0.0 {
            let r = ss.sqrt();
            for x in out.iter_mut() {
                *x /= r;
            }
            return;
        }
    }
}

/// Adds one jump at level `e` to `v` (in place): ℓ1 — `Lap(1/e)` on one
/// uniformly chosen coordinate (superposition of n rate-2 processes); ℓ2 —
/// `sqrt(W)·N(0, 2/e² I)`, W ~ Exp(1) (memo §2).
#[inline]
pub fn add_jump<R: Rng + ?Sized>(norm: Norm, e: f64, v: &mut [f64], rng: &mut R) {
    let positive = norm == Norm::L1 && rng.random::<bool>();
    add_jump_signed(norm, e, v, rng, positive);
}

/// [`add_jump`] with the sign of an ℓ1 jump supplied by the caller (a fair,
/// independent bit; ignored for ℓ2), so the walk can reuse a spare bit of its
/// gap draw instead of drawing one more word.
#[inline]
fn add_jump_signed<R: Rng + ?Sized>(
    norm: Norm,
    e: f64,
    v: &mut [f64],
    rng: &mut R,
    positive: bool,
) {
    if v.is_empty() {
        return;
    }
    match norm {
        Norm::L1 => {
            let i = if v.len() == 1 {
                0
            } else {
                rng.random_range(0..v.len())
            };
            let m = exp1(rng) / e;
            v[i] += if positive { m } else { -m };
        }
        Norm::L2 => {
            let s = (2.0 * exp1(rng)).sqrt() / e;
            for x in v.iter_mut() {
                *x += s * std_normal(rng);
            }
        }
    }
}

/// Factor by which the level falls between consecutive jumps, from one random
/// word: u = (top 53 bits + 1)/2⁵³ ∈ (0, 1], so −ln u ~ Exp(1) (truncated at
/// 53 ln 2 ≈ 36.7, an event of probability 2⁻⁵³) and the gap in ln ε is
/// −ln(u)/rate, i.e. the factor is u^{1/rate}: √u for rate 2 (n = 1, the
/// common case) and ⁴√u for rate 4, with no transcendental call. Bit 0 of the
/// word is left for the caller.
#[inline]
fn gap_factor(bits: u64, rate: f64) -> f64 {
    const TWO_POW_53: f64 = 9_007_199_254_740_992.0;
    let u = ((bits >> 11) + 1) as f64 / TWO_POW_53;
    if rate == 2.0 {
        u.sqrt()
    } else if rate == 4.0 {
        u.sqrt().sqrt()
    } else {
        (u.ln() / rate).exp()
    }
}

/// Continues the backward walk from level `e_start`, where the path has value
/// `v`, down to `e_stop` (exclusive; needs `0 < e_stop` and a finite `e_start`,
/// else no jump is drawn). For each jump at level `e` it updates `v` and calls
/// `on_jump(e, v)` with the value that holds just below `e`; the levels passed
/// are strictly decreasing.
/// Backward increments are independent of the value at `e_start` (memo §1a),
/// so this extends any exact path below its bottom.
pub fn walk_down<R: Rng + ?Sized>(
    norm: Norm,
    e_start: f64,
    e_stop: f64,
    v: &mut [f64],
    rng: &mut R,
    mut on_jump: impl FnMut(f64, &[f64]),
) {
    // The process jumps infinitely often near ε = 0, so a bound ≤ 0 (or NaN,
    // or a non-finite start) cannot be walked to: do nothing.
    if v.is_empty() || e_stop.is_nan() || e_stop <= 0.0 || !e_start.is_finite() {
        return;
    }
    let rate = norm.jump_rate(v.len());
    let mut e = e_start;
    loop {
        // Gap in ln ε ~ Exp(rate); bit 0 of the same word signs an ℓ1 jump.
        let bits = rng.next_u64();
        let next = e * gap_factor(bits, rate);
        if next <= e_stop {
            return;
        }
        // A gap below half an ulp (probability ~1e−16 per jump) would repeat
        // the level and break the strictly ascending breakpoint list: place
        // the jump one ulp lower instead (next > e_stop > 0, so e is positive
        // and finite and the bit decrement is the next float down).
        e = if next < e {
            next
        } else {
            f64::from_bits(e.to_bits() - 1)
        };
        if e <= e_stop {
            return;
        }
        add_jump_signed(norm, e, v, rng, bits & 1 == 1);
        on_jump(e, v);
    }
}

/// The backward walk of [`PathSampler::sample_into`], resumable: started at
/// the top level with the marginal, then lowered level by level with
/// [`DownWalk::descend_to`], for callers that learn the levels they need from
/// the top down and never know the bottom in advance (the utility's
/// bit-parallel search meets an owner's recipients nearest first).
///
/// It draws the same words in the same order as [`walk_down`]: the gap drawn
/// last, whose level lies below the current stop, is kept for the next call
/// instead of being thrown away. So after `start(top)` and descents to
/// `l₁ > l₂ > … > lo`, the value held equals, at every `lᵢ`, what
/// `PathSampler::new(n, norm, lo, top)?.sample_into` with the same generator
/// holds there ([`NoisePath::value_at`]) — up to a jump landing exactly on
/// an `lᵢ` (probability zero: `value_at` counts it, this walk does not yet).
#[derive(Clone, Copy, Debug)]
pub struct DownWalk {
    norm: Norm,
    rate: f64,
    /// Level of the value held (the last jump, or the top).
    e: f64,
    /// A drawn gap not taken yet: the candidate level and its random word.
    pending: Option<(f64, u64)>,
    jumps: u64,
}

impl DownWalk {
    /// Draws `V_top` from its marginal into `v` (`v.len()` = n; `top` finite
    /// and > 0, as [`PathSampler::new`] validates).
    pub fn start<R: Rng + ?Sized>(norm: Norm, top: f64, v: &mut [f64], rng: &mut R) -> DownWalk {
        sample_marginal(norm, top, v, rng);
        DownWalk {
            norm,
            rate: norm.jump_rate(v.len()),
            e: top,
            pending: None,
            jumps: 0,
        }
    }

    /// Applies every jump at a level above `stop` (`0 < stop`; stops are
    /// non-increasing from call to call), so that `v` holds `V_stop`.
    pub fn descend_to<R: Rng + ?Sized>(&mut self, stop: f64, v: &mut [f64], rng: &mut R) {
        self.descend_to_with(stop, v, rng, |_, _| {});
    }

    /// [`DownWalk::descend_to`], calling `on_jump(e, v)` after each jump with
    /// its level and the value that holds just below it (levels strictly
    /// decreasing), for callers that keep the breakpoints.
    pub fn descend_to_with<R: Rng + ?Sized>(
        &mut self,
        stop: f64,
        v: &mut [f64],
        rng: &mut R,
        mut on_jump: impl FnMut(f64, &[f64]),
    ) {
        if v.is_empty() || stop.is_nan() || stop <= 0.0 || !self.e.is_finite() {
            return;
        }
        loop {
            let (next, bits) = match self.pending.take() {
                Some(p) => p,
                None => {
                    let bits = rng.next_u64();
                    (self.e * gap_factor(bits, self.rate), bits)
                }
            };
            // As in `walk_down`: a gap below half an ulp moves one ulp down.
            let e = if next < self.e {
                next
            } else {
                f64::from_bits(self.e.to_bits() - 1)
            };
            if next <= stop || e <= stop {
                self.pending = Some((next, bits));
                return;
            }
            add_jump_signed(self.norm, e, v, rng, bits & 1 == 1);
            self.e = e;
            self.jumps += 1;
            on_jump(e, v);
        }
    }

    /// Jumps applied so far.
    pub fn jumps(&self) -> u64 {
        self.jumps
    }

    /// The walk's state as plain numbers, to persist it (the release store)
    /// and continue it later with [`DownWalk::resume`].
    pub fn state(&self) -> DownWalkState {
        DownWalkState {
            level: self.e,
            pending: self.pending,
            jumps: self.jumps,
        }
    }

    /// A walk continued from a saved [`DownWalk::state`] of a walk of
    /// dimension `dim` in `norm` (the value held is the caller's). Refuses a
    /// state no walk can be in: a level not finite and > 0, a pending gap not
    /// below it (or not > 0).
    pub fn resume(norm: Norm, dim: usize, state: DownWalkState) -> Result<DownWalk> {
        let ok = state.level.is_finite()
            && state.level > 0.0
            && state
                .pending
                .is_none_or(|(next, _)| next > 0.0 && next <= state.level);
        if !ok || dim == 0 {
            return Err(Error::param(
                "walk state",
                format!("{:?}", state),
                "a level > 0 and a pending gap at or below it",
            ));
        }
        Ok(DownWalk {
            norm,
            rate: norm.jump_rate(dim),
            e: state.level,
            pending: state.pending,
            jumps: state.jumps,
        })
    }
}

/// The state of a [`DownWalk`] ([`DownWalk::state`]): the level of the value
/// held, the gap drawn but not taken (its candidate level and random word),
/// the jumps applied.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct DownWalkState {
    /// Level of the value held (the last jump, or the top).
    pub level: f64,
    /// A drawn gap not taken yet: the candidate level and its random word.
    pub pending: Option<(f64, u64)>,
    /// Jumps applied so far.
    pub jumps: u64,
}

/// Samples exact paths of the lazy process of dimension n in norm ℓ1 or ℓ2
/// over `[eps_lo, eps_hi]`. A small value built once from validated parameters;
/// sampling takes the caller's generator.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PathSampler {
    dim: usize,
    norm: Norm,
    eps_lo: f64,
    eps_hi: f64,
}

impl PathSampler {
    /// Validates: n ≥ 1; levels within [`LEVEL_MIN`,
    /// `LEVEL_MAX`]; `eps_lo ≤ eps_hi`.
    pub fn new(dim: usize, norm: Norm, eps_lo: f64, eps_hi: f64) -> Result<Self> {
        super::check_dim("dim", dim)?;
        check_level("eps_lo", eps_lo)?;
        check_level("eps_hi", eps_hi)?;
        if eps_lo > eps_hi {
            return Err(Error::param(
                "eps_lo",
                eps_lo,
                format!("a level ≤ `eps_hi` ({eps_hi})"),
            ));
        }
        Ok(PathSampler {
            dim,
            norm,
            eps_lo,
            eps_hi,
        })
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Norm.
    pub fn norm(&self) -> Norm {
        self.norm
    }

    /// Range `(eps_lo, eps_hi)`.
    pub fn range(&self) -> (f64, f64) {
        (self.eps_lo, self.eps_hi)
    }

    /// Expected number of jumps: rate · ln(eps_hi / eps_lo).
    pub fn expected_jumps(&self) -> f64 {
        // ln hi − ln lo: the ratio itself can overflow (1e-200 .. 1e200).
        self.norm.jump_rate(self.dim) * (self.eps_hi.ln() - self.eps_lo.ln())
    }

    /// A fresh path.
    pub fn sample<R: Rng + ?Sized>(&self, rng: &mut R) -> NoisePath {
        let mut p = NoisePath::empty(self.dim);
        self.sample_into(rng, &mut p);
        p
    }

    /// Samples into `path`, reusing its allocations.
    pub fn sample_into<R: Rng + ?Sized>(&self, rng: &mut R, path: &mut NoisePath) {
        path.reset(self.dim, self.eps_hi);
        // Stack buffer for the running value in the common small dimensions.
        let mut small = [0.0f64; 8];
        let mut big;
        let v: &mut [f64] = if self.dim <= small.len() {
            &mut small[..self.dim]
        } else {
            big = vec![0.0; self.dim];
            &mut big
        };
        sample_marginal(self.norm, self.eps_hi, v, rng);
        path.push(f64::NAN, v);
        walk_down(self.norm, self.eps_hi, self.eps_lo, v, rng, |e, v| {
            // The row above this jump holds on [e, previous level).
            path.set_last_level(e);
            path.push(f64::NAN, v);
        });
        path.set_last_level(self.eps_lo);
        path.reverse();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::{Purpose, rng_for};

    #[test]
    fn rejects_invalid_ranges() {
        for (lo, hi) in [
            (0.0, 1.0),
            (-1.0, 1.0),
            (f64::NAN, 1.0),
            (1.0, f64::INFINITY),
            (2.0, 1.0),
        ] {
            assert!(PathSampler::new(1, Norm::L1, lo, hi).is_err(), "{lo} {hi}");
        }
        assert!(PathSampler::new(0, Norm::L2, 1.0, 2.0).is_err());
        assert!(PathSampler::new(1, Norm::L2, 1.0, 1.0).is_ok());
    }

    #[test]
    fn gap_factor_is_u_to_the_one_over_rate() {
        for bits in [0u64, 1, 12345 << 11, u64::MAX - 7, 1 << 63] {
            let u = ((bits >> 11) + 1) as f64 / 9_007_199_254_740_992.0;
            assert!(u > 0.0 && u <= 1.0);
            for rate in [2.0, 3.0, 4.0, 6.0, 11.0] {
                let want = u.powf(1.0 / rate);
                let got = gap_factor(bits, rate);
                // exp(ln u / rate) loses ~|ln u|·ulp; the law is unaffected.
                assert!((got - want).abs() <= 1e-13 * want, "{bits} {rate}");
            }
        }
    }

    /// A generator whose first word is all ones (gap factor exactly 1), then ChaCha.
    struct FirstWordMax {
        first: bool,
        inner: crate::rng::PrivRng,
    }

    impl rand::TryRng for FirstWordMax {
        type Error = std::convert::Infallible;
        fn try_next_u32(&mut self) -> Result<u32, Self::Error> {
            Ok(self.inner.next_u32())
        }
        fn try_next_u64(&mut self) -> Result<u64, Self::Error> {
            if std::mem::take(&mut self.first) {
                Ok(u64::MAX)
            } else {
                Ok(self.inner.next_u64())
            }
        }
        fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Self::Error> {
            self.inner.fill_bytes(dst);
            Ok(())
        }
    }

    #[test]
    fn walk_down_levels_strictly_decrease_even_for_a_zero_gap() {
        let mut rng = FirstWordMax {
            first: true,
            inner: rng_for(9, 0, 0, Purpose::Path),
        };
        let mut levels = Vec::new();
        let mut v = [0.0];
        walk_down(Norm::L1, 2.0, 1.0, &mut v, &mut rng, |e, _| levels.push(e));
        assert_eq!(levels[0], f64::from_bits(2.0f64.to_bits() - 1));
        assert!(levels.windows(2).all(|w| w[0] > w[1]));
        assert!(levels.iter().all(|&e| e > 1.0 && e < 2.0));
    }

    /// The resumable walk holds, at every level it stops at, the value of
    /// the path `sample_into` draws from the same generator over the whole
    /// range, in both norms and several dimensions.
    #[test]
    fn down_walk_matches_the_sampled_path_level_by_level() {
        let stops = [7.0, 5.5, 3.0, 2.9, 1.0, 0.4, 0.05];
        for (norm, dim) in [(Norm::L1, 1), (Norm::L1, 3), (Norm::L2, 1), (Norm::L2, 4)] {
            for owner in 0..200 {
                let (top, lo) = (9.0, *stops.last().unwrap());
                let path = PathSampler::new(dim, norm, lo, top)
                    .unwrap()
                    .sample(&mut rng_for(4, owner, 0, Purpose::Path));
                let mut rng = rng_for(4, owner, 0, Purpose::Path);
                let mut v = vec![0.0; dim];
                let mut w = DownWalk::start(norm, top, &mut v, &mut rng);
                assert_eq!(v, path.value_at(top));
                for &s in &stops {
                    w.descend_to(s, &mut v, &mut rng);
                    assert_eq!(v, path.value_at(s), "{norm:?} {dim} owner {owner} at {s}");
                }
                assert_eq!(w.jumps() as usize, path.num_jumps());
            }
        }
    }

    #[test]
    fn empty_vectors_are_left_alone() {
        let mut rng = rng_for(9, 2, 0, Purpose::Path);
        for norm in [Norm::L1, Norm::L2] {
            sample_marginal(norm, 1.0, &mut [], &mut rng);
            add_jump(norm, 1.0, &mut [], &mut rng);
        }
    }

    #[test]
    fn walk_down_ignores_invalid_bounds() {
        let mut rng = rng_for(9, 1, 0, Purpose::Path);
        for (start, stop) in [(2.0, f64::NAN), (2.0, 0.0), (2.0, -1.0), (f64::NAN, 1.0)] {
            let mut v = [1.5, 2.5];
            let mut calls = 0;
            walk_down(Norm::L2, start, stop, &mut v, &mut rng, |_, _| calls += 1);
            assert_eq!((calls, v), (0, [1.5, 2.5]), "{start} {stop}");
        }
    }

    #[test]
    fn path_structure() {
        let s = PathSampler::new(3, Norm::L1, 0.5, 15.0).unwrap();
        let mut rng = rng_for(3, 0, 0, Purpose::Path);
        for _ in 0..200 {
            let p = s.sample(&mut rng);
            assert_eq!(p.eps_lo(), 0.5);
            assert_eq!(p.eps_hi(), 15.0);
            assert!(p.levels().windows(2).all(|w| w[0] < w[1]));
            assert!(*p.levels().last().unwrap() <= 15.0);
            // ℓ1: each jump changes exactly one coordinate.
            for j in p.jumps() {
                let changed = j.below.iter().zip(j.above).filter(|(a, b)| a != b).count();
                assert_eq!(changed, 1);
            }
        }
    }
}

#[cfg(test)]
mod quick_law {
    use super::*;
    use crate::rng::{Purpose, rng_for};

    /// A fast smoke check of the joint law (the full §7 battery lives in
    /// tests/process/stats.rs): P(V_1 = V_2) = 1/4, E V_1² = 2 for 1-D.
    /// N = 40k: s.e. of the atom ≈ sqrt(.25·.75/N) = 0.0022, of E V² ≈ sqrt(20)/√N = 0.022.
    #[test]
    fn atom_and_second_moment_1d() {
        let s = PathSampler::new(1, Norm::L1, 1.0, 2.0).unwrap();
        let mut rng = rng_for(5, 0, 0, Purpose::Path);
        let n = 40_000;
        let (mut eq, mut m2) = (0usize, 0.0);
        let mut p = NoisePath::empty(1);
        for _ in 0..n {
            s.sample_into(&mut rng, &mut p);
            let (a, b) = (p.value_at(1.0)[0], p.value_at(2.0)[0]);
            eq += (a == b) as usize;
            m2 += a * a;
        }
        let nf = n as f64;
        assert!(
            (eq as f64 / nf - 0.25).abs() < 6.0 * 0.0022,
            "{}",
            eq as f64 / nf
        );
        assert!((m2 / nf - 2.0).abs() < 6.0 * 0.022, "{}", m2 / nf);
    }
}
