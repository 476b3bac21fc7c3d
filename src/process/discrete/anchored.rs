//! [`DiscreteAnchored`]: one owner's path of the discrete chain in a release
//! store (`evolve --noise discrete`, issue 25): a [`DiscreteWalk`] whose top
//! is fixed at creation (the rung of the store's top) and which is only ever
//! walked *down*, through every rung, as the answers need it — the integer
//! counterpart of [`AnchoredPath`](crate::process::AnchoredPath).
//!
//! Levels here are rung levels (exact f64 values of the ladder); the store
//! keeps the path as rows (`segment`s): row 0 the top's value, then one row
//! per rung where some coordinate changed, each with the level it holds up
//! to, *exclusive*, as the Laplace path's segments — so row 0's is the level
//! of the rung above the top, the path's [`ceiling`](DiscreteAnchored::ceiling)
//! (a change may happen one rung below the top, where a continuous path
//! never jumps at its top).
//!
//! Randomness: a seeded path reads `rng_for(seed, owner, 0,
//! Purpose::Anchored)` and keeps its word position, so a path restored from
//! the store continues exactly as the live one would have and the path does
//! not depend on the order in which levels were asked. With `rng` = os each
//! extension keys a fresh generator from the operating system: the chain is
//! Markov, so continuing from the stored bottom needs nothing else, and
//! what is stored is never drawn again.

use super::chain::{DiscretePath, DiscreteWalk, Sampler};
use super::entropy::{NoiseRng, RngSource};
use super::ladder::Rung;
use super::noise::DiscreteNoise;
use crate::error::{Error, Result};
use crate::process::StoredSegments;
use crate::rng::{Purpose, rng_for};

/// One owner's stored discrete path (see the module documentation).
#[derive(Clone, Debug)]
pub struct DiscreteAnchored {
    walk: DiscreteWalk,
    seed: u64,
    owner: u64,
    /// Words of the seeded stream read so far; `None` with `rng` = os.
    word_pos: Option<u64>,
}

impl DiscreteAnchored {
    /// A new path of `owner`: the value at `top` drawn, nothing below.
    pub fn new(
        noise: &DiscreteNoise,
        top: Rung,
        seed: u64,
        owner: u64,
        rng: RngSource,
    ) -> Result<Self> {
        let mut g = generator(seed, owner, rng, 0)?;
        // The store's rows keep no pending events: its paths stay on the
        // sampler its records imply (1).
        let walk = DiscreteWalk::start_with(noise, top, Sampler::Rungwise, &mut g)?;
        Ok(DiscreteAnchored {
            walk,
            seed,
            owner,
            word_pos: position(&g)?,
        })
    }

    /// A path from its stored parts: the rows' upper levels `his` (the
    /// first the ceiling, the level of the rung above `top`), their values
    /// (`dim` per row), the bottom level (the three in `segments`) and the
    /// stream position (`None`: `rng` = os). Every level must be a rung of `noise`, strictly
    /// decreasing.
    pub fn restore(
        noise: &DiscreteNoise,
        top: Rung,
        seed: u64,
        owner: u64,
        segments: StoredSegments<i64>,
        word_pos: Option<u64>,
    ) -> Result<Self> {
        let StoredSegments {
            his,
            values,
            bottom,
        } = segments;
        let rung = |what: &str, level: f64| -> Result<Rung> {
            noise
                .rung_of(level)
                .ok()
                .filter(|&k| noise.eps_of(k) == level)
                .ok_or_else(|| Error::param(what, level, "a level of the ladder"))
        };
        let ceiling = ceiling_of(noise, top);
        if his.first() != Some(&ceiling) {
            return Err(Error::param(
                "segment 0",
                his.first().copied().unwrap_or(f64::NAN),
                format!("the ceiling {ceiling} (the level of the rung above the top)"),
            ));
        }
        let mut rungs = Vec::with_capacity(his.len());
        for &h in &his[1..] {
            rungs.push(rung("segment", h)?.0);
        }
        rungs.push(rung("bottom", bottom)?.0);
        let path = DiscretePath::from_rows(noise.dim(), top, rungs, values)?;
        let walk = DiscreteWalk::from_parts(noise.clone(), path)?;
        Ok(DiscreteAnchored {
            walk,
            seed,
            owner,
            word_pos,
        })
    }

    /// Walks down to the rung of `level` (a rung level at or below the
    /// top), continuing the stream; returns the rows added.
    pub fn extend_to(&mut self, level: f64) -> Result<usize> {
        let k = self.rung(level)?;
        if k >= self.walk.bottom() {
            return Ok(0);
        }
        let rows = self.walk.path().rows();
        let source = if self.word_pos.is_some() {
            RngSource::Seeded
        } else {
            RngSource::Os
        };
        let mut g = generator(self.seed, self.owner, source, self.word_pos.unwrap_or(0))?;
        self.walk.extend_to(k, &mut g)?;
        self.word_pos = position(&g)?;
        Ok(self.walk.path().rows() - rows)
    }

    /// The value at `level`, extending the walk first if needed.
    pub fn read(&mut self, level: f64) -> Result<&[i64]> {
        self.extend_to(level)?;
        self.value_at(level)
            .ok_or_else(|| Error::param("level", level, "a level the path reaches"))
    }

    /// The value at `level` if the path reaches it (a rung level at or
    /// below the top; above the top, `None`: the store clamps first).
    pub fn value_at(&self, level: f64) -> Option<&[i64]> {
        let k = self.rung(level).ok()?;
        self.walk.path().value_at(k)
    }

    /// The rung of a rung level at or below the top.
    fn rung(&self, level: f64) -> Result<Rung> {
        let noise = self.walk.noise();
        let k = noise.rung_of(level)?;
        if noise.eps_of(k) != level || k > self.walk.top() {
            return Err(Error::param(
                "level",
                level,
                format!(
                    "a level of the ladder at or below the path's top {}",
                    self.top()
                ),
            ));
        }
        Ok(k)
    }

    /// The configuration the path is drawn under.
    pub fn noise(&self) -> &DiscreteNoise {
        self.walk.noise()
    }

    /// The top's level.
    pub fn top(&self) -> f64 {
        self.walk.noise().eps_of(self.walk.top())
    }

    /// The level of the rung above the top: what row 0 holds up to,
    /// exclusive (the store's `top` column of a discrete path).
    pub fn ceiling(&self) -> f64 {
        ceiling_of(self.walk.noise(), self.walk.top())
    }

    /// The lowest level walked.
    pub fn bottom(&self) -> f64 {
        self.walk.noise().eps_of(self.walk.bottom())
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        self.walk.noise().dim()
    }

    /// Rows (segments) so far.
    pub fn segments(&self) -> usize {
        self.walk.path().rows()
    }

    /// Row `k`: the level it holds up to, exclusive (row 0: the
    /// [`ceiling`](Self::ceiling)), and its integer values.
    pub fn segment(&self, k: usize) -> (f64, &[i64]) {
        let (hi, v) = self.walk.path().row(k);
        let hi = if k == 0 {
            self.ceiling()
        } else {
            self.walk.noise().eps_of(hi)
        };
        (hi, v)
    }

    /// Rungs where the value changed.
    pub fn changes(&self) -> usize {
        self.walk.path().num_changes()
    }

    /// Words of the seeded stream read so far (`None` with `rng` = os).
    pub fn word_pos(&self) -> Option<u64> {
        self.word_pos
    }
}

/// The level of the rung above `top` (on the ladder, beyond the noise's
/// allowed range if need be).
fn ceiling_of(noise: &DiscreteNoise, top: Rung) -> f64 {
    noise
        .ladder()
        .eps_of(Rung(top.0 + 1))
        .unwrap_or(f64::INFINITY)
}

/// The path's generator: the seeded stream at word `pos`, or the OS's.
fn generator(seed: u64, owner: u64, rng: RngSource, pos: u64) -> Result<NoiseRng> {
    NoiseRng::continued(rng, || rng_for(seed, owner, 0, Purpose::Anchored), pos)
}

/// The stream position to keep (`None` for the OS's generator).
fn position(g: &NoiseRng) -> Result<Option<u64>> {
    g.word_pos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::process::discrete::Grid;

    fn noise(dim: usize) -> DiscreteNoise {
        DiscreteNoise::new(Grid::from_exponent(-6).unwrap(), 8, 1.0, dim).unwrap()
    }

    /// Extending in steps, in any order of requests, and through a store
    /// round trip gives the one-shot path of the same stream bit for bit.
    #[test]
    fn order_and_restore_do_not_change_the_path() {
        let nz = noise(2);
        let top = nz.rung_of(8.0).unwrap();
        let levels: Vec<f64> = [4.0, 0.3, 1.7, 0.05, 2.5]
            .iter()
            .map(|&e| nz.eps_of(nz.rung_of(e).unwrap()))
            .collect();
        let bottom = nz.rung_of(0.05).unwrap();
        for owner in 0..20u64 {
            // A store's paths are sampler 1's (its rows keep no pending events).
            let mut one = DiscretePath::empty(nz.dim());
            nz.sample_path_with(
                Sampler::Rungwise,
                top,
                bottom,
                &mut rng_for(3, owner, 0, Purpose::Anchored),
                &mut one,
            )
            .unwrap();
            let mut a = DiscreteAnchored::new(&nz, top, 3, owner, RngSource::Seeded).unwrap();
            for (i, &l) in levels.iter().enumerate() {
                a.read(l).unwrap();
                // Round trip through the stored parts after every request.
                let his: Vec<f64> = (0..a.segments()).map(|k| a.segment(k).0).collect();
                let vals: Vec<i64> = (0..a.segments())
                    .flat_map(|k| a.segment(k).1.to_vec())
                    .collect();
                let b = DiscreteAnchored::restore(
                    &nz,
                    top,
                    3,
                    owner,
                    StoredSegments {
                        his,
                        values: vals,
                        bottom: a.bottom(),
                    },
                    a.word_pos(),
                )
                .unwrap();
                assert_eq!(b.walk, a.walk, "owner {owner}, request {i}");
                a = b;
            }
            for &l in &levels {
                let k = nz.rung_of(l).unwrap();
                assert_eq!(a.value_at(l).unwrap(), one.value_at(k).unwrap());
            }
            assert_eq!(a.walk.path(), &one);
        }
    }

    fn segs(his: &[f64], values: Vec<i64>, bottom: f64) -> StoredSegments<i64> {
        StoredSegments {
            his: his.to_vec(),
            values,
            bottom,
        }
    }

    #[test]
    fn restore_refuses_what_is_not_a_path() {
        let nz = noise(1);
        let top = nz.rung_of(4.0).unwrap();
        let t = nz.eps_of(top);
        let c = nz.eps_of(Rung(top.0 + 1));
        let ok = DiscreteAnchored::restore(&nz, top, 1, 0, segs(&[c], vec![3], t), Some(0));
        assert!(ok.is_ok());
        // Not the ceiling; a level off the ladder; rows not decreasing.
        assert!(
            DiscreteAnchored::restore(&nz, top, 1, 0, segs(&[t], vec![3], t), Some(0)).is_err()
        );
        assert!(
            DiscreteAnchored::restore(&nz, top, 1, 0, segs(&[c, 1.01], vec![3, 4], 0.5), Some(0))
                .is_err()
        );
        let b = nz.eps_of(Rung(top.0 - 3));
        assert!(
            DiscreteAnchored::restore(&nz, top, 1, 0, segs(&[c, b], vec![3, 4], t), Some(0))
                .is_err()
        );
        // A change one rung below the top: its row holds up to the top, exclusive.
        assert!(
            DiscreteAnchored::restore(&nz, top, 1, 0, segs(&[c, t], vec![3, 4], b), Some(0))
                .is_ok()
        );
        // Above the top is not a level of this path.
        let a = DiscreteAnchored::new(&nz, top, 1, 0, RngSource::Seeded).unwrap();
        assert!(a.value_at(nz.eps_of(Rung(top.0 + 1))).is_none());
    }

    #[test]
    fn os_paths_keep_no_stream_position() {
        let nz = noise(1);
        let top = nz.rung_of(4.0).unwrap();
        let mut a = DiscreteAnchored::new(&nz, top, 1, 0, RngSource::Os).unwrap();
        assert_eq!(a.word_pos(), None);
        let l = nz.eps_of(Rung(top.0 - 20));
        let before = a.value_at(a.top()).unwrap().to_vec();
        a.read(l).unwrap();
        assert_eq!(a.word_pos(), None);
        assert_eq!(a.value_at(a.top()).unwrap(), &before[..]);
        assert_eq!(a.bottom(), l);
    }
}
