//! The discrete lazy chain (memo §2, §4): one path per owner, n independent
//! integer coordinates (ℓ1), drawn from DL at a top rung and walked down
//! through **every** rung below it. Each step k → k − 1 flips the jump coin B
//! per coordinate and, on a jump, adds fresh DL(a_{k−1}) noise, so the value
//! at every rung has the exact DL marginal and lower rungs only add
//! independent noise (a coalition is max-ε private). Since no rung is
//! skipped, the realised path depends only on (random stream, top rung),
//! wherever the walk stops: extending a path later gives exactly the path a
//! longer one-shot walk would have drawn.
//!
//! Two shapes read one path: [`DiscretePath`] (a one-shot path from top to
//! bottom, as breakpoints) and [`DiscreteWalk`] (a path with a fixed top that
//! is extended down as requests need it, serialisable for stores and relax
//! states).

use super::ladder::Ladder;
use super::ladder::Rung;
use super::noise::{DiscreteNoise, Level, Step, Window, Windowed};
use super::rational::Nat;
use super::samplers::{discrete_laplace, first_jump, jump};
use crate::error::{Error, Result};
use rand::Rng;
use serde::{Deserialize, Serialize};

/// i128 noise into i64, saturating: beyond ±2⁶³ the answer leaves f64's
/// exactness range and is refused anyway (probability below e^{−2²²} at the
/// smallest allowed rate 2⁻⁴⁰).
#[inline]
fn narrow(x: i128) -> i64 {
    x.clamp(i128::from(i64::MIN), i128::from(i64::MAX)) as i64
}

/// Fills `out` with independent DL draws at rung `k`.
#[inline]
fn fill_level<R: Rng + ?Sized>(noise: &DiscreteNoise, k: i32, out: &mut [i64], rng: &mut R) {
    match noise.level(k) {
        Level::Small(p, q) => out
            .iter_mut()
            .for_each(|x| *x = narrow(discrete_laplace(&p, &q, rng))),
        Level::Big(p, q) => out
            .iter_mut()
            .for_each(|x| *x = narrow(discrete_laplace(&p, &q, rng))),
    }
}

/// The algorithm that walks a path down the ladder. Both draw the same law
/// (memo §2, §4) from different words of the stream, so a stored walk (relax
/// state, store) records its sampler and is only ever continued with it: a
/// record without one was drawn by sampler 1.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(try_from = "u32", into = "u32")]
pub enum Sampler {
    /// Rung by rung (privdiffuse 683415f): the jump coin B of every
    /// coordinate at every rung.
    Rungwise = 1,
    /// Jump to jump: one draw of three integers per coordinate finds the
    /// next rung where the coordinate jumps within an octave
    /// (memo §2 telescoped); O(jumps + octaves) instead of O(rungs).
    Jumpwise = 2,
}

impl Sampler {
    /// The sampler new paths, walks, states and stores use.
    pub const CURRENT: Sampler = Sampler::Jumpwise;

    /// The number records carry.
    pub fn number(self) -> u32 {
        self as u32
    }

    /// Sampler 1, the one of records without a sampler.
    pub fn legacy() -> Sampler {
        Sampler::Rungwise
    }

    fn is_legacy(&self) -> bool {
        *self == Sampler::Rungwise
    }
}

impl TryFrom<u32> for Sampler {
    type Error = Error;
    fn try_from(n: u32) -> Result<Sampler> {
        match n {
            1 => Ok(Sampler::Rungwise),
            2 => Ok(Sampler::Jumpwise),
            _ => Err(Error::param(
                "sampler",
                n,
                "1 (rung by rung) or 2 (jump to jump): a sampler this privdiffuse knows",
            )),
        }
    }
}

impl From<Sampler> for u32 {
    fn from(s: Sampler) -> u32 {
        s.number()
    }
}

impl std::fmt::Display for Sampler {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.number().fmt(f)
    }
}

/// A coordinate's next event below the bottom of a [`Sampler::Jumpwise`]
/// path, already drawn: at `rung` the coordinate jumps (fresh DL noise at
/// that rung is added when the walk reaches it) or, with `jump` false, the
/// search window ended there without a jump and the next search starts
/// from it. `rung` = `i32::MIN`: no rung left (the lowest allowed rung).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Pending {
    pub(super) rung: i32,
    pub(super) jump: bool,
}

impl Pending {
    const NEVER: Pending = Pending {
        rung: i32::MIN,
        jump: false,
    };
}

/// Sampler 2: a coordinate's next event below rung `k` (see [`Pending`]),
/// one [`first_jump`] search in the window below `k`.
#[inline]
pub(super) fn next_event<R: Rng + ?Sized>(noise: &DiscreteNoise, k: i32, rng: &mut R) -> Pending {
    fn search<N: Nat, R: Rng + ?Sized>(w: &Window<N>, ladder: &Ladder, rng: &mut R) -> Pending {
        let p = |i: usize| N::from_u64_shl(ladder.mantissa(i), w.shift);
        match first_jump(&w.top, &w.q, p, (w.lo, w.hi), rng) {
            Some(i) => Pending {
                rung: w.base + i as i32,
                jump: true,
            },
            None => Pending {
                rung: w.base + w.lo as i32,
                jump: false,
            },
        }
    }
    match noise.window(k) {
        None => Pending::NEVER,
        Some(Windowed::Small(w)) => search(&w, noise.ladder(), rng),
        Some(Windowed::Big(w)) => search(&w, noise.ladder(), rng),
    }
}

/// A sampled path of the discrete chain from its top rung down to its
/// bottom rung, stored as breakpoints: the rungs where some coordinate
/// changed (like [`NoisePath`](crate::process::NoisePath)). Read at any rung
/// in O(log k) with [`value_at`](Self::value_at). Values are grid integers X
/// (the answer is (û + X)·γ).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(try_from = "PathParts")]
pub struct DiscretePath {
    dim: usize,
    top: Rung,
    /// Rows from the top down; `rungs[j]` is the lowest rung where row j
    /// holds (row j holds on [rungs[j], rungs[j−1]), row 0 up to the top);
    /// the last one is the bottom.
    rungs: Vec<i32>,
    /// Row-major, `rungs.len() × dim`.
    values: Vec<i64>,
    /// The algorithm that drew the path (absent in records: sampler 1).
    #[serde(
        default = "Sampler::legacy",
        skip_serializing_if = "Sampler::is_legacy"
    )]
    sampler: Sampler,
    /// Sampler 2: each coordinate's next event below the bottom (drawn,
    /// not yet reached), so that a walk extended later is the one-shot path.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pending: Vec<Pending>,
}

impl Default for Sampler {
    fn default() -> Sampler {
        Sampler::CURRENT
    }
}

/// The serialised form of a [`DiscretePath`], checked on the way in.
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PathParts {
    dim: usize,
    top: Rung,
    rungs: Vec<i32>,
    values: Vec<i64>,
    #[serde(default = "Sampler::legacy")]
    sampler: Sampler,
    #[serde(default)]
    pending: Vec<Pending>,
}

impl TryFrom<PathParts> for DiscretePath {
    type Error = Error;
    fn try_from(p: PathParts) -> Result<Self> {
        let ok = p.dim > 0
            && p.values.len() == p.rungs.len() * p.dim
            && p.rungs.first().is_none_or(|&r| r <= p.top.0)
            && p.rungs.windows(2).all(|w| w[0] > w[1]);
        // Sampler 2: one pending event per coordinate, below the bottom.
        let pending_ok = match (p.sampler, p.rungs.last()) {
            (Sampler::Rungwise, _) | (Sampler::Jumpwise, None) => p.pending.is_empty(),
            (Sampler::Jumpwise, Some(&b)) => {
                p.pending.len() == p.dim && p.pending.iter().all(|e| e.rung < b)
            }
        };
        if !pending_ok {
            return Err(Error::param(
                "discrete path",
                format!("{} pending events (sampler {})", p.pending.len(), p.sampler),
                "sampler 2: one event per coordinate below the bottom; sampler 1: none",
            ));
        }
        if !ok {
            return Err(Error::param(
                "discrete path",
                format!(
                    "{} rungs, {} values, dim {}",
                    p.rungs.len(),
                    p.values.len(),
                    p.dim
                ),
                "rungs strictly decreasing from `top` with `dim` values each",
            ));
        }
        Ok(DiscretePath {
            dim: p.dim,
            top: p.top,
            rungs: p.rungs,
            values: p.values,
            sampler: p.sampler,
            pending: p.pending,
        })
    }
}

impl DiscretePath {
    /// An empty path of dimension `dim` (filled by a sampler).
    pub fn empty(dim: usize) -> Self {
        DiscretePath {
            dim,
            ..Default::default()
        }
    }

    /// The algorithm that drew (and continues) the path.
    pub fn sampler(&self) -> Sampler {
        self.sampler
    }

    /// Dimension n.
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Whether the path was never sampled.
    pub fn is_empty(&self) -> bool {
        self.rungs.is_empty()
    }

    /// The top rung (where the path was drawn from its marginal).
    pub fn top(&self) -> Rung {
        self.top
    }

    /// The lowest rung materialised (`None` for an empty path).
    pub fn bottom(&self) -> Option<Rung> {
        self.rungs.last().map(|&r| Rung(r))
    }

    /// Number of rungs where the value changed (breakpoints − 1).
    pub fn num_changes(&self) -> usize {
        self.rungs.len().saturating_sub(1)
    }

    /// The value at `rung`: `None` below the bottom (not sampled); above the
    /// top, the top's value (memo §4: requests above the top are answered at
    /// the top).
    pub fn value_at(&self, rung: Rung) -> Option<&[i64]> {
        if self.bottom()? > rung {
            return None;
        }
        let j = self.rungs.partition_point(|&b| b > rung.0);
        Some(&self.values[j * self.dim..(j + 1) * self.dim])
    }

    /// Breakpoints in ascending order: (lowest rung where the value holds,
    /// value). The first is at the bottom; each later one is a change.
    pub fn breakpoints(&self) -> impl Iterator<Item = (Rung, &[i64])> {
        self.rungs
            .iter()
            .zip(self.values.chunks_exact(self.dim.max(1)))
            .rev()
            .map(|(&r, v)| (Rung(r), v))
    }

    /// A path from its rows (the store's segments): `rungs[j]` the lowest
    /// rung of row j, strictly decreasing from `top`, `dim` values per row.
    pub(crate) fn from_rows(
        dim: usize,
        top: Rung,
        rungs: Vec<i32>,
        values: Vec<i64>,
    ) -> Result<Self> {
        DiscretePath::try_from(PathParts {
            dim,
            top,
            rungs,
            values,
            sampler: Sampler::Rungwise,
            pending: Vec::new(),
        })
    }

    /// Number of rows (segments: the top's value, then one per change).
    pub(crate) fn rows(&self) -> usize {
        self.rungs.len()
    }

    /// Row `j`, from the top down: the rung its value holds up to,
    /// exclusive (for row 0 the rung above the top), and its values.
    pub(crate) fn row(&self, j: usize) -> (Rung, &[i64]) {
        let hi = if j == 0 {
            Rung(self.top.0 + 1)
        } else {
            Rung(self.rungs[j - 1])
        };
        (hi, &self.values[j * self.dim..(j + 1) * self.dim])
    }

    /// Starts the path at `top` with a DL draw per coordinate (then, for
    /// sampler 2, each coordinate's first event below the top, in
    /// coordinate order).
    fn restart<R: Rng + ?Sized>(
        &mut self,
        noise: &DiscreteNoise,
        top: Rung,
        sampler: Sampler,
        rng: &mut R,
    ) {
        self.dim = noise.dim();
        self.top = top;
        self.sampler = sampler;
        self.rungs.clear();
        self.rungs.push(top.0);
        self.values.clear();
        self.values.resize(self.dim, 0);
        fill_level(noise, top.0, &mut self.values, rng);
        self.pending.clear();
        if sampler == Sampler::Jumpwise {
            for _ in 0..self.dim {
                self.pending.push(next_event(noise, top.0, rng));
            }
        }
    }

    /// Walks from the bottom down to rung `to` (no-op at or above the
    /// bottom) with the path's sampler.
    fn extend<R: Rng + ?Sized>(&mut self, noise: &DiscreteNoise, to: i32, rng: &mut R) {
        match self.sampler {
            Sampler::Rungwise => self.extend_rungwise(noise, to, rng),
            Sampler::Jumpwise => self.extend_jumpwise(noise, to, rng),
        }
    }

    /// Sampler 1: through every rung (memo §4), a jump coin per coordinate
    /// at each.
    fn extend_rungwise<R: Rng + ?Sized>(&mut self, noise: &DiscreteNoise, to: i32, rng: &mut R) {
        let Some(bottom) = self.rungs.last().copied() else {
            return;
        };
        // Rung k as (octave, index), decremented without a division per step.
        let (mut o, mut i) = noise.ladder().split(bottom);
        let last = noise.levels_per_doubling() as usize - 1;
        for k in (to + 1..=bottom).rev() {
            match noise.step_at(o, i) {
                Step::Small(p1, p2, q) => self.step(&p1, &p2, &q, k - 1, rng),
                Step::Big(p1, p2, q) => self.step(&p1, &p2, &q, k - 1, rng),
            }
            if i == 0 {
                (o, i) = (o - 1, last);
            } else {
                i -= 1;
            }
        }
    }

    /// Sampler 2: the pending events at rungs ≥ `to`, highest rung first
    /// and in coordinate order within a rung; each adds its fresh DL draw
    /// (a jump) and draws the coordinate's next event. The words read depend
    /// only on the events processed, so stopping anywhere and extending
    /// later reads the stream exactly as the one-shot walk does.
    fn extend_jumpwise<R: Rng + ?Sized>(&mut self, noise: &DiscreteNoise, to: i32, rng: &mut R) {
        let Some(bottom) = self.rungs.last().copied() else {
            return;
        };
        if to >= bottom {
            return;
        }
        let dim = self.dim;
        loop {
            let r = self
                .pending
                .iter()
                .map(|e| e.rung)
                .max()
                .unwrap_or(i32::MIN);
            if r < to {
                break;
            }
            let mut changed = false;
            for c in 0..dim {
                if self.pending[c].rung != r {
                    continue;
                }
                if self.pending[c].jump {
                    let l = match noise.level(r) {
                        Level::Small(p, q) => narrow(discrete_laplace(&p, &q, rng)),
                        Level::Big(p, q) => narrow(discrete_laplace(&p, &q, rng)),
                    };
                    self.add(c, l, r, &mut changed);
                }
                self.pending[c] = next_event(noise, r, rng);
            }
        }
        if let Some(last) = self.rungs.last_mut() {
            *last = to;
        }
    }

    /// Adds a jump's noise `l` to coordinate `c` from rung `below` down: a
    /// nonzero `l` starts a new row at `below` (a copy of the last, which
    /// keeps the rung above as its lowest) unless `changed` says this rung
    /// has one already.
    #[inline]
    fn add(&mut self, c: usize, l: i64, below: i32, changed: &mut bool) {
        if l == 0 {
            return;
        }
        let dim = self.dim;
        if !*changed {
            if let Some(last) = self.rungs.last_mut() {
                *last = below + 1;
            }
            let start = self.values.len() - dim;
            self.values.extend_from_within(start..);
            self.rungs.push(below);
            *changed = true;
        }
        let i = self.values.len() - dim + c;
        self.values[i] = self.values[i].saturating_add(l);
    }

    /// One step down to rung `below`, with consecutive rates p₁/q > p₂/q.
    #[inline]
    fn step<N: Nat, R: Rng + ?Sized>(&mut self, p1: &N, p2: &N, q: &N, below: i32, rng: &mut R) {
        let dim = self.dim;
        let mut changed = false;
        for c in 0..dim {
            if jump(p1, p2, q, rng) {
                let l = narrow(discrete_laplace(p2, q, rng));
                self.add(c, l, below, &mut changed);
            }
        }
        if !changed && let Some(last) = self.rungs.last_mut() {
            *last = below;
        }
    }
}

impl DiscreteNoise {
    /// Samples a one-shot path from rung `top` down to rung `bottom` into
    /// `path`, reusing its allocations (memo §4: a one-shot run takes the
    /// owner's largest needed rung as top), with [`Sampler::CURRENT`].
    /// Mirrors [`PathSampler::sample_into`](crate::process::PathSampler::sample_into).
    pub fn sample_path_into<R: Rng + ?Sized>(
        &self,
        top: Rung,
        bottom: Rung,
        rng: &mut R,
        path: &mut DiscretePath,
    ) -> Result<()> {
        self.sample_path_with(Sampler::CURRENT, top, bottom, rng, path)
    }

    /// [`sample_path_into`](Self::sample_path_into) with a given sampler.
    pub fn sample_path_with<R: Rng + ?Sized>(
        &self,
        sampler: Sampler,
        top: Rung,
        bottom: Rung,
        rng: &mut R,
        path: &mut DiscretePath,
    ) -> Result<()> {
        self.check_rung("top", top)?;
        self.check_rung("bottom", bottom)?;
        if bottom > top {
            return Err(Error::param(
                "bottom",
                bottom,
                format!("a rung ≤ `top` ({top})"),
            ));
        }
        path.restart(self, top, sampler, rng);
        path.extend(self, bottom.0, rng);
        Ok(())
    }

    /// A fresh one-shot path (see [`sample_path_into`](Self::sample_path_into)).
    pub fn sample_path<R: Rng + ?Sized>(
        &self,
        top: Rung,
        bottom: Rung,
        rng: &mut R,
    ) -> Result<DiscretePath> {
        let mut p = DiscretePath::empty(self.dim());
        self.sample_path_into(top, bottom, rng, &mut p)?;
        Ok(p)
    }

    /// Fresh independent DL noise at `rung` into `out` (`dim` coordinates):
    /// the independent baseline, one draw per recipient (memo §5).
    pub fn sample_fresh_into<R: Rng + ?Sized>(
        &self,
        rung: Rung,
        rng: &mut R,
        out: &mut [i64],
    ) -> Result<()> {
        self.check_rung("rung", rung)?;
        self.check_len("out", out.len())?;
        fill_level(self, rung.0, out, rng);
        Ok(())
    }

    /// The independent baseline's sums of squared errors: for each recipient's
    /// unit `k` of `units`, in order, fresh DL noise X at `rungs[k]` (the
    /// draws of [`sample_fresh_into`](Self::sample_fresh_into)), the answer
    /// (û + X)·γ and its squared error against `u` added to `sums[k]` — the
    /// bits of answering one by one, with each rung's rate prepared once
    /// (at its first recipient) instead of per draw.
    pub fn fresh_square_sums<R: Rng + ?Sized>(
        &self,
        u: &[f64],
        uhat: &[i64],
        rungs: &[Rung],
        units: impl IntoIterator<Item = u32>,
        rng: &mut R,
        sums: &mut [f64],
    ) -> Result<()> {
        self.check_len("uhat", uhat.len())?;
        self.check_len("u", u.len())?;
        let grid = self.grid();
        let mut levels: Vec<Option<Level>> = (0..rungs.len()).map(|_| None).collect();
        for k in units {
            let k = k as usize;
            let level = match &mut levels[k] {
                Some(level) => level,
                slot => {
                    self.check_rung("rung", rungs[k])?;
                    slot.insert(self.level(rungs[k].0))
                }
            };
            let mut sq = 0.0;
            for (&ui, &uh) in u.iter().zip(uhat) {
                let x = match level {
                    Level::Small(p, q) => narrow(discrete_laplace(p, q, rng)),
                    Level::Big(p, q) => narrow(discrete_laplace(p, q, rng)),
                };
                let y = grid.value_of(i128::from(uh) + i128::from(x))?;
                sq += (y - ui) * (y - ui);
            }
            sums[k] += sq;
        }
        Ok(())
    }
}

/// A path of the discrete chain with a top fixed at creation, materialised
/// downwards as requests need it (memo §4: relax states, stores). It never
/// goes up (no posterior, memo §3) and never skips a rung, so extending in
/// steps gives exactly the one-shot path of the same stream. The generator
/// is the caller's: to continue a stored walk, continue its stream (e.g.
/// keep a ChaCha generator's word position beside the state).
///
/// Serialises with its configuration, so a state can only be continued
/// under the noise it was drawn with.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(try_from = "WalkParts")]
pub struct DiscreteWalk {
    noise: DiscreteNoise,
    path: DiscretePath,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct WalkParts {
    noise: DiscreteNoise,
    path: DiscretePath,
}

impl TryFrom<WalkParts> for DiscreteWalk {
    type Error = Error;
    fn try_from(w: WalkParts) -> Result<Self> {
        let bottom = w
            .path
            .bottom()
            .ok_or_else(|| Error::param("walk", "an empty path", "a started walk"))?;
        w.noise.check_len("path", w.path.dim())?;
        w.noise.check_rung("top", w.path.top())?;
        w.noise.check_rung("bottom", bottom)?;
        // A pending event lies on the ladder (or is `NEVER`): one below the
        // lowest rung would silently stop the coordinate's jumps.
        for e in &w.path.pending {
            if e.rung != Pending::NEVER.rung {
                w.noise.check_rung("pending rung", Rung(e.rung))?;
            }
        }
        Ok(DiscreteWalk {
            noise: w.noise,
            path: w.path,
        })
    }
}

impl DiscreteWalk {
    /// Draws the value at `top` (DL per coordinate) and stops there, with
    /// [`Sampler::CURRENT`].
    pub fn start<R: Rng + ?Sized>(noise: &DiscreteNoise, top: Rung, rng: &mut R) -> Result<Self> {
        DiscreteWalk::start_with(noise, top, Sampler::CURRENT, rng)
    }

    /// [`start`](Self::start) with a given sampler (a record's: a stored
    /// walk is only ever continued with the sampler that drew it).
    pub fn start_with<R: Rng + ?Sized>(
        noise: &DiscreteNoise,
        top: Rung,
        sampler: Sampler,
        rng: &mut R,
    ) -> Result<Self> {
        noise.check_rung("top", top)?;
        let mut path = DiscretePath::empty(noise.dim());
        path.restart(noise, top, sampler, rng);
        Ok(DiscreteWalk {
            noise: noise.clone(),
            path,
        })
    }

    /// The algorithm the walk is drawn (and continued) with.
    pub fn sampler(&self) -> Sampler {
        self.path.sampler()
    }

    /// A walk from a stored path, checked as a deserialised one is.
    pub(crate) fn from_parts(noise: DiscreteNoise, path: DiscretePath) -> Result<Self> {
        DiscreteWalk::try_from(WalkParts { noise, path })
    }

    /// Walks down to `rung` through every rung below the current bottom; a
    /// rung at or above the bottom draws nothing.
    pub fn extend_to<R: Rng + ?Sized>(&mut self, rung: Rung, rng: &mut R) -> Result<()> {
        self.noise.check_rung("rung", rung)?;
        self.path.extend(&self.noise, rung.0, rng);
        Ok(())
    }

    /// The value at `rung`, extending the walk first if `rung` is below its
    /// bottom; above the top, the top's value (memo §4).
    pub fn value_at<R: Rng + ?Sized>(&mut self, rung: Rung, rng: &mut R) -> Result<&[i64]> {
        self.extend_to(rung, rng)?;
        self.path
            .value_at(rung)
            .ok_or_else(|| Error::param("rung", rung, "a rung of the walk"))
    }

    /// The path materialised so far.
    pub fn path(&self) -> &DiscretePath {
        &self.path
    }

    /// The configuration the walk was drawn under.
    pub fn noise(&self) -> &DiscreteNoise {
        &self.noise
    }

    /// The fixed top rung.
    pub fn top(&self) -> Rung {
        self.path.top()
    }

    /// The current (lowest materialised) rung.
    pub fn bottom(&self) -> Rung {
        // A walk is started at creation, so its path has a bottom.
        self.path.bottom().unwrap_or(self.path.top())
    }
}
