//! [`AnchoredPath`]: one owner's path of the lazy process, anchored at a top
//! level fixed when it is created and only ever extended *downward* (issue 24
//! item 2; memo §1a, §3 case (ii)).
//!
//! The path is the backward jump walk of [`DownWalk`]: `V_top` from its
//! marginal, then jumps at the points of a Poisson process in ln ε. A request
//! at a level inside the part walked so far is a lookup; a request below it
//! continues the walk, keeping the gap drawn last but not taken (the pending
//! jump) and the generator's position, so the path read at any set of levels
//! is the same whatever the order of the requests — bit for bit the path one
//! walk straight down to the lowest level would give. Nothing is ever
//! resampled or rescaled: segments are only appended.
//!
//! Randomness: the walk draws from `rng_for(seed, owner, 0, Purpose::Anchored)`
//! and the path remembers the generator's word position, so a path restored
//! from its stored parts ([`AnchoredPath::restore`]) continues exactly as the
//! live one would have.
//!
//! Levels are process levels (ε/Δ; the store runs Δ = 1). A level above the
//! top is the caller's to clamp (the store answers it at the top).

use super::path::Norm;
use super::sampler::{DownWalk, DownWalkState};
use crate::error::{Error, Result};
use crate::rng::{PrivRng, Purpose, rng_for};

/// One owner's anchored path: segments from the top down, the walk's state
/// and the generator's position. See the module documentation.
#[derive(Clone, Debug)]
pub struct AnchoredPath {
    norm: Norm,
    dim: usize,
    seed: u64,
    owner: u64,
    /// Lowest level walked to so far (every jump above it is drawn).
    bottom: f64,
    /// Upper end of each segment: `his[0]` is the top, `his[k]` the level of
    /// jump k (strictly decreasing).
    his: Vec<f64>,
    /// Segment values, `dim` per segment: segment k holds on
    /// `[his[k + 1], his[k])` (segment 0 up to and including the top; at a
    /// jump's exact level the upper value applies).
    values: Vec<f64>,
    walk: DownWalk,
    word_pos: u128,
}

/// An anchored path's segments as the store keeps them (the Laplace path's
/// and the discrete chain's alike): the upper level of each segment,
/// strictly decreasing from the first (the Laplace path's top; the discrete
/// chain's ceiling, the level of the rung above its top), their values,
/// `dim` per segment in order, and the lowest level walked to.
#[derive(Clone, Debug, PartialEq)]
pub struct StoredSegments<V> {
    /// Upper level of each segment.
    pub his: Vec<f64>,
    /// Segment values, `dim` per segment.
    pub values: Vec<V>,
    /// Lowest level walked to.
    pub bottom: f64,
}

/// The generator of an owner's anchored path, at word position `pos`.
fn generator(seed: u64, owner: u64, pos: u128) -> PrivRng {
    let mut rng = rng_for(seed, owner, 0, Purpose::Anchored);
    if pos != 0 {
        rng.set_word_pos(pos);
    }
    rng
}

fn check_top(top: f64) -> Result<()> {
    use crate::limits::{LEVEL_MAX, LEVEL_MIN};
    if top.is_finite() && (LEVEL_MIN..=LEVEL_MAX).contains(&top) {
        Ok(())
    } else {
        Err(Error::param(
            "eps_max",
            top,
            format!("a path top within [{LEVEL_MIN:e}, {LEVEL_MAX:e}]"),
        ))
    }
}

impl AnchoredPath {
    /// A new path of `owner` anchored at `top`: `V_top` drawn from its
    /// marginal, nothing below it yet.
    pub fn new(norm: Norm, dim: usize, top: f64, seed: u64, owner: u64) -> Result<AnchoredPath> {
        super::check_dim("dim", dim)?;
        check_top(top)?;
        let mut rng = generator(seed, owner, 0);
        let mut values = vec![0.0; dim];
        let walk = DownWalk::start(norm, top, &mut values, &mut rng);
        Ok(AnchoredPath {
            norm,
            dim,
            seed,
            owner,
            bottom: top,
            his: vec![top],
            values,
            walk,
            word_pos: rng.get_word_pos(),
        })
    }

    /// Rebuilds a path from its stored parts (as read back from the store),
    /// checking every invariant a lookup or an extension relies on.
    pub fn restore(
        norm: Norm,
        dim: usize,
        seed: u64,
        owner: u64,
        segments: StoredSegments<f64>,
        walk: DownWalkState,
        word_pos: u128,
    ) -> Result<AnchoredPath> {
        let StoredSegments {
            his,
            values,
            bottom,
        } = segments;
        super::check_dim("dim", dim)?;
        let top = *his.first().unwrap_or(&f64::NAN);
        check_top(top)?;
        let last = *his.last().unwrap_or(&f64::NAN);
        let ok = values.len() == his.len() * dim
            && his.windows(2).all(|w| w[1] < w[0] && w[1] > 0.0)
            && bottom > 0.0
            && bottom <= last
            && walk.level == last
            && walk.jumps + 1 == his.len() as u64
            && walk.pending.is_none_or(|(next, _)| next <= bottom)
            && values.iter().all(|x| x.is_finite());
        if !ok {
            return Err(Error::param(
                "stored path",
                format!("owner {owner}: {} segments, bottom {bottom}", his.len()),
                "segments strictly decreasing from the top, a bottom at or below the last, \
                 the walk at the last segment",
            ));
        }
        let walk = DownWalk::resume(norm, dim, walk)?;
        Ok(AnchoredPath {
            norm,
            dim,
            seed,
            owner,
            bottom,
            his,
            values,
            walk,
            word_pos,
        })
    }

    /// Extends the path down to `level` if it does not reach it yet
    /// (`0 < level`; a level at or above the bottom changes nothing).
    /// Returns the number of segments added.
    pub fn extend_to(&mut self, level: f64) -> Result<usize> {
        if level >= self.bottom {
            return Ok(0);
        }
        if level.is_nan() || level < crate::limits::LEVEL_MIN {
            return Err(Error::param(
                "eps",
                level,
                format!("a level ≥ {:e}", crate::limits::LEVEL_MIN),
            ));
        }
        let before = self.his.len();
        let mut rng = generator(self.seed, self.owner, self.word_pos);
        let d = self.dim;
        let mut v = self.values[(before - 1) * d..before * d].to_vec();
        let (his, values) = (&mut self.his, &mut self.values);
        self.walk.descend_to_with(level, &mut v, &mut rng, |e, v| {
            his.push(e);
            values.extend_from_slice(v);
        });
        self.bottom = level;
        self.word_pos = rng.get_word_pos();
        Ok(self.his.len() - before)
    }

    /// The value at `level` (between the bottom and the top, both included),
    /// or `None` outside: below the bottom extend first, above the top clamp.
    pub fn value_at(&self, level: f64) -> Option<&[f64]> {
        if !(level >= self.bottom && level <= self.his[0]) {
            return None;
        }
        let k = self.his[1..].partition_point(|&h| h > level);
        Some(&self.values[k * self.dim..(k + 1) * self.dim])
    }

    /// [`AnchoredPath::extend_to`] then [`AnchoredPath::value_at`]: the value
    /// at `level` (`0 < level ≤ top`).
    pub fn read(&mut self, level: f64) -> Result<&[f64]> {
        self.extend_to(level)?;
        let top = self.top();
        self.value_at(level).ok_or_else(|| {
            Error::param(
                "eps",
                level,
                format!("a level in (0, {top}] (the path's top)"),
            )
        })
    }

    /// The top level, fixed at creation.
    pub fn top(&self) -> f64 {
        self.his[0]
    }

    /// The lowest level walked to so far.
    pub fn bottom(&self) -> f64 {
        self.bottom
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Norm.
    pub fn norm(&self) -> Norm {
        self.norm
    }

    /// Number of segments (jumps + 1).
    pub fn segments(&self) -> usize {
        self.his.len()
    }

    /// Segment `k`: its upper end (the top for k = 0, else the level of jump
    /// k) and its value.
    pub fn segment(&self, k: usize) -> (f64, &[f64]) {
        (self.his[k], &self.values[k * self.dim..(k + 1) * self.dim])
    }

    /// The walk's state (what [`AnchoredPath::restore`] needs besides the segments).
    pub fn walk_state(&self) -> DownWalkState {
        self.walk.state()
    }

    /// The generator's word position after the last draw.
    pub fn word_pos(&self) -> u128 {
        self.word_pos
    }

    /// The stream key: (seed, owner).
    pub fn key(&self) -> (u64, u64) {
        (self.seed, self.owner)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::PathSampler;

    fn restore_copy(p: &AnchoredPath) -> AnchoredPath {
        let d = p.dim();
        let his: Vec<f64> = (0..p.segments()).map(|k| p.segment(k).0).collect();
        let values: Vec<f64> = (0..p.segments())
            .flat_map(|k| p.segment(k).1.to_vec())
            .collect();
        assert_eq!(values.len(), his.len() * d);
        AnchoredPath::restore(
            p.norm(),
            d,
            p.key().0,
            p.key().1,
            StoredSegments {
                his,
                values,
                bottom: p.bottom(),
            },
            p.walk_state(),
            p.word_pos(),
        )
        .unwrap()
    }

    /// Requests in any order, with a save and restore between them, read
    /// the same values bit for bit as one walk straight to the lowest level.
    #[test]
    fn any_order_of_requests_equals_one_walk_to_the_bottom() {
        let levels = [9.0, 0.3, 4.0, 1.0, 0.05, 2.5, 0.3, 0.01, 7.5];
        for (norm, dim) in [(Norm::L1, 1), (Norm::L1, 3), (Norm::L2, 2)] {
            for owner in 0..300u64 {
                let mut once = AnchoredPath::new(norm, dim, 10.0, 3, owner).unwrap();
                once.extend_to(0.01).unwrap();
                let mut stepwise = AnchoredPath::new(norm, dim, 10.0, 3, owner).unwrap();
                let mut order = levels.to_vec();
                order.rotate_left((owner % levels.len() as u64) as usize);
                if owner % 2 == 1 {
                    order.reverse();
                }
                for (i, &l) in order.iter().enumerate() {
                    let got = stepwise.read(l).unwrap().to_vec();
                    assert_eq!(got, once.value_at(l).unwrap(), "{norm} {dim} {owner} {l}");
                    if i % 3 == 2 {
                        stepwise = restore_copy(&stepwise);
                    }
                }
                assert_eq!(stepwise.segments(), once.segments());
                for k in 0..once.segments() {
                    assert_eq!(stepwise.segment(k).0, once.segment(k).0);
                    assert_eq!(stepwise.segment(k).1, once.segment(k).1);
                }
            }
        }
    }

    /// The anchored path is the path `PathSampler` draws from the same
    /// generator over [bottom, top]: same values at every level.
    #[test]
    fn it_is_the_sampled_path_of_the_same_stream() {
        for owner in 0..200u64 {
            let mut a = AnchoredPath::new(Norm::L1, 2, 6.0, 9, owner).unwrap();
            a.extend_to(0.2).unwrap();
            let p = PathSampler::new(2, Norm::L1, 0.2, 6.0)
                .unwrap()
                .sample(&mut rng_for(9, owner, 0, Purpose::Anchored));
            for l in [6.0, 5.0, 3.3, 1.0, 0.5, 0.21] {
                assert_eq!(a.value_at(l).unwrap(), p.value_at(l), "{owner} {l}");
            }
        }
    }

    #[test]
    fn outside_the_walked_range_there_is_no_value() {
        let mut a = AnchoredPath::new(Norm::L1, 1, 2.0, 1, 1).unwrap();
        assert!(a.value_at(2.5).is_none());
        assert!(a.value_at(1.0).is_none());
        assert!(a.value_at(2.0).is_some());
        assert!(a.read(3.0).is_err());
        assert!(a.read(0.0).is_err());
        assert!(AnchoredPath::new(Norm::L1, 1, f64::NAN, 1, 1).is_err());
        assert!(AnchoredPath::new(Norm::L1, 0, 1.0, 1, 1).is_err());
    }

    #[test]
    fn restore_refuses_broken_parts() {
        let mut a = AnchoredPath::new(Norm::L1, 1, 5.0, 2, 7).unwrap();
        a.extend_to(0.1).unwrap();
        let his: Vec<f64> = (0..a.segments()).map(|k| a.segment(k).0).collect();
        let vals: Vec<f64> = (0..a.segments()).map(|k| a.segment(k).1[0]).collect();
        let mk = |his: Vec<f64>, vals: Vec<f64>, bottom: f64| {
            AnchoredPath::restore(
                Norm::L1,
                1,
                2,
                7,
                StoredSegments {
                    his,
                    values: vals,
                    bottom,
                },
                a.walk_state(),
                a.word_pos(),
            )
        };
        assert!(mk(his.clone(), vals.clone(), 0.1).is_ok());
        assert!(mk(his.clone(), vals.clone(), 7.0).is_err());
        let mut rev = his.clone();
        rev.reverse();
        assert!(mk(rev, vals.clone(), 0.1).is_err());
        assert!(mk(his.clone(), vals[1..].to_vec(), 0.1).is_err());
    }

    /// Joint law at two levels (1-D): P(V_a = V_b) = (a/b)², E V_a² = 2/a².
    /// N = 20,000 paths; tolerances 6 standard errors from N.
    #[test]
    fn two_level_law() {
        let (a, b, n) = (1.0, 2.0, 20_000u64);
        let (mut eq, mut m2) = (0u64, 0.0);
        for owner in 0..n {
            let mut p = AnchoredPath::new(Norm::L1, 1, 4.0, 11, owner).unwrap();
            let vb = p.read(b).unwrap()[0];
            let va = p.read(a).unwrap()[0];
            eq += (va == vb) as u64;
            m2 += va * va;
        }
        let nf = n as f64;
        let q = (a / b) * (a / b);
        let p = eq as f64 / nf;
        assert!((p - q).abs() < 6.0 * (q * (1.0 - q) / nf).sqrt(), "{p}");
        // sd of V² at level a is √20/a².
        assert!(
            (m2 / nf - 2.0).abs() < 6.0 * 20f64.sqrt() / nf.sqrt(),
            "{}",
            m2 / nf
        );
    }
}
