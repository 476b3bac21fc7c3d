//! [`OwnerPath`]: the owner's signal under either noise (issue 25 on
//! `relay`). With `noise = laplace` it is the f64 [`NoisePath`] of
//! `simulate`; with `noise = discrete` it is the owner's integer chain on the
//! ladder ([`DiscretePath`], memo §4): drawn from the owner's largest needed
//! rung (top) down through every rung to her smallest, from the stream
//! `simulate --noise discrete` reads (`Purpose::Path`, the plan's entropy
//! source), so every read-out equals `simulate`'s answer bit for bit.
//!
//! A discrete message carries the chain's integer breakpoints (rung index,
//! n integers) at rungs whose ε is ≤ its trim — the signal {X_k : ε_k ≤
//! trim} — and is accounted 8 bytes of header plus 4 + 8n per breakpoint
//! ([`discrete_message_bytes`]). A recipient at ε(d) reads the chain at
//! the rung of ε(d) (the largest rung ≤ ε(d)) and answers y = (û + X)·γ.

use super::plan::{RelayPlan, carried, message_bytes, read_out, same_answer, simulate_noise};
use crate::error::Result;
use crate::mechanism::NoiseModel;
use crate::process::NoisePath;
use crate::process::discrete::{DiscreteNoise, DiscretePath, Rung};
use crate::mechanism::sample_owner_path;
use crate::rng::{Purpose, rng_for};

/// Accounted bytes of a discrete message carrying `breakpoints` breakpoints
/// of an n-dimensional chain: 8 of header (the reference to the owner's
/// path and the trim) plus, per breakpoint, its rung index (4, an `i32`)
/// and its n integers (8 each, `i64`).
#[inline]
pub fn discrete_message_bytes(dim: usize, breakpoints: usize) -> u64 {
    super::plan::MESSAGE_HEADER_BYTES + (4 + 8 * dim as u64) * breakpoints as u64
}

/// The owner's discrete chain with its breakpoints in ascending order and the
/// owner's value on the grid.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct DiscreteSignal {
    path: DiscretePath,
    /// û = ⌊u/γ + ½⌋ per coordinate.
    uhat: Vec<i64>,
    /// Breakpoints ascending: the lowest rung where each value holds …
    rungs: Vec<Rung>,
    /// … its ε (exact ladder level) …
    eps: Vec<f64>,
    /// … and its n integers (row-major).
    values: Vec<i64>,
}

impl DiscreteSignal {
    /// The chain as sampled.
    pub fn path(&self) -> &DiscretePath {
        &self.path
    }

    /// The owner's value on the grid.
    pub fn uhat(&self) -> &[i64] {
        &self.uhat
    }

    fn index(&mut self, noise: &DiscreteNoise) {
        self.rungs.clear();
        self.eps.clear();
        self.values.clear();
        for (k, v) in self.path.breakpoints() {
            self.rungs.push(k);
            self.eps.push(noise.eps_of(k));
            self.values.extend_from_slice(v);
        }
    }

    /// Breakpoints carried by a signal trimmed at `trim` (rungs with ε_k ≤
    /// trim).
    fn carried(&self, trim: f64) -> usize {
        self.eps.partition_point(|&e| e <= trim)
    }

    /// The integers read at privacy level `eps` from a signal trimmed at
    /// `trim` (the last carried breakpoint at or below the rung of `eps`);
    /// `None` when the signal does not reach `eps` or carries nothing there.
    fn read_out(&self, noise: &DiscreteNoise, trim: f64, eps: f64) -> Option<&[i64]> {
        if trim.partial_cmp(&eps).is_none_or(|o| o.is_lt()) {
            return None;
        }
        let k = noise.rung_of(eps).ok()?;
        let c = self.carried(trim);
        let i = self.rungs[..c].partition_point(|&r| r <= k);
        let n = self.path.dim();
        (i > 0).then(|| &self.values[(i - 1) * n..i * n])
    }

    /// The answer (û + X)·γ from integers `x` (`None` outside f64's exact
    /// range, which `simulate` refuses too).
    fn answer(&self, noise: &DiscreteNoise, x: &[i64]) -> Option<Vec<f64>> {
        let mut y = vec![0.0; x.len()];
        noise.answer_into(&self.uhat, x, &mut y).ok().map(|_| y)
    }
}

/// The owner's signal: the f64 path (`laplace`) or the integer chain
/// (`discrete`).
#[derive(Clone, Debug, PartialEq)]
pub enum OwnerPath {
    /// `simulate`'s f64 path (process levels ε/Δ).
    Laplace(NoisePath),
    /// The integer chain on the ladder.
    Discrete(DiscreteSignal),
}

impl Default for OwnerPath {
    fn default() -> Self {
        OwnerPath::Laplace(NoisePath::default())
    }
}

impl OwnerPath {
    /// The f64 path (`None` for a discrete chain).
    pub fn laplace(&self) -> Option<&NoisePath> {
        match self {
            OwnerPath::Laplace(p) => Some(p),
            OwnerPath::Discrete(_) => None,
        }
    }

    /// The discrete signal (`None` for Laplace).
    pub fn discrete(&self) -> Option<&DiscreteSignal> {
        match self {
            OwnerPath::Discrete(d) => Some(d),
            OwnerPath::Laplace(_) => None,
        }
    }

    /// The f64 path to fill (switching the variant if needed).
    pub(crate) fn laplace_mut(&mut self) -> &mut NoisePath {
        if !matches!(self, OwnerPath::Laplace(_)) {
            *self = OwnerPath::Laplace(NoisePath::default());
        }
        match self {
            OwnerPath::Laplace(p) => p,
            OwnerPath::Discrete(_) => unreachable!("set just above"),
        }
    }

    fn discrete_mut(&mut self) -> &mut DiscreteSignal {
        if !matches!(self, OwnerPath::Discrete(_)) {
            *self = OwnerPath::Discrete(DiscreteSignal::default());
        }
        match self {
            OwnerPath::Discrete(d) => d,
            OwnerPath::Laplace(_) => unreachable!("set just above"),
        }
    }

    /// Breakpoints of the path.
    pub fn len(&self) -> usize {
        match self {
            OwnerPath::Laplace(p) => p.len(),
            OwnerPath::Discrete(d) => d.rungs.len(),
        }
    }

    /// Whether the path has no breakpoint.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Breakpoints a signal trimmed at privacy level `trim` carries.
    #[inline]
    pub fn carried(&self, model: &NoiseModel, trim: f64) -> usize {
        match self {
            OwnerPath::Laplace(p) => carried(p, model, trim),
            OwnerPath::Discrete(d) => d.carried(trim),
        }
    }

    /// Accounted bytes of a message carrying `breakpoints` breakpoints
    /// ([`message_bytes`] or [`discrete_message_bytes`]).
    #[inline]
    pub fn bytes(&self, dim: usize, breakpoints: usize) -> u64 {
        match self {
            OwnerPath::Laplace(_) => message_bytes(dim, breakpoints),
            OwnerPath::Discrete(_) => discrete_message_bytes(dim, breakpoints),
        }
    }
}

impl RelayPlan<'_> {
    /// The answer a recipient at privacy level `eps` reads from a signal
    /// trimmed at `trim`: u + V (Laplace) or (û + X)·γ (discrete); `None`
    /// when the signal does not reach `eps`.
    pub fn relay_answer(
        &self,
        path: &OwnerPath,
        u: &[f64],
        trim: f64,
        eps: f64,
    ) -> Option<Vec<f64>> {
        match path {
            OwnerPath::Laplace(p) => read_out(p, self.model(), trim, eps)
                .map(|r| u.iter().zip(r).map(|(a, b)| a + b).collect()),
            OwnerPath::Discrete(d) => {
                let noise = self.sim().discrete()?.noise();
                d.answer(noise, d.read_out(noise, trim, eps)?)
            }
        }
    }

    /// Whether the read-out at `eps` from a signal trimmed at `trim` is
    /// `simulate`'s answer (the whole path read at ε) bit for bit.
    pub fn relay_identical(&self, path: &OwnerPath, u: &[f64], trim: f64, eps: f64) -> bool {
        match path {
            OwnerPath::Laplace(p) => {
                let model = self.model();
                let sim = simulate_noise(p, model, eps);
                read_out(p, model, trim, eps).is_some_and(|r| same_answer(u, r, sim))
            }
            OwnerPath::Discrete(d) => {
                let Some(ds) = self.sim().discrete() else {
                    return false;
                };
                let noise = ds.noise();
                let (Some(r), Ok(k)) = (d.read_out(noise, trim, eps), noise.rung_of(eps)) else {
                    return false;
                };
                let (Some(a), Some(b)) = (
                    d.answer(noise, r),
                    d.path.value_at(k).and_then(|x| d.answer(noise, x)),
                ) else {
                    return false;
                };
                a.iter().zip(&b).all(|(x, y)| x.to_bits() == y.to_bits())
            }
        }
    }

    /// Samples `owner`'s discrete chain for recipients at levels
    /// `[eps_lo, eps_hi]` as `simulate --noise discrete` does: top = the rung
    /// of `eps_hi`, bottom = the rung of `eps_lo`, every rung stepped, the
    /// stream (seed, owner, replicate, `Purpose::Path`) of the plan's source.
    /// `Ok(false)` under `noise = laplace` (nothing drawn).
    pub(crate) fn discrete_owner_path(
        &self,
        owner: u32,
        eps_lo: f64,
        eps_hi: f64,
        path: &mut OwnerPath,
        u: &[f64],
    ) -> Result<bool> {
        let Some(d) = self.sim().discrete() else {
            return Ok(false);
        };
        let noise = d.noise();
        let (top, bottom) = (noise.rung_of(eps_hi)?, noise.rung_of(eps_lo)?);
        let seed = self.sim().config().seed;
        let mut rng =
            d.rng()
                .generator(seed, owner as u64, self.replicate() as u64, Purpose::Path)?;
        let s = path.discrete_mut();
        s.uhat.resize(noise.dim(), 0);
        noise.round_into(u, &mut s.uhat)?;
        noise.sample_path_into(top, bottom, &mut rng, &mut s.path)?;
        s.index(noise);
        Ok(true)
    }
}

/// Owner paths, as `simulate` draws them.
impl RelayPlan<'_> {
    /// Samples `owner`'s path over privacy levels `[eps_lo, eps_hi]` (the
    /// smallest and largest ε of its recipients) into `path`, and its value
    /// into `u`: the generator, range and sampler of `simulate`'s
    /// correlated mechanism, so the path is the one `simulate` draws (under
    /// `noise = discrete`, its integer chain).
    pub(crate) fn owner_path(
        &self,
        owner: u32,
        eps_lo: f64,
        eps_hi: f64,
        path: &mut OwnerPath,
        u: &mut [f64],
    ) -> Result<()> {
        self.sim().values().value(owner, u);
        if self.discrete_owner_path(owner, eps_lo, eps_hi, path, u)? {
            return Ok(());
        }
        let path = path.laplace_mut();
        self.sim().check_laplace_path(eps_lo, eps_hi, false)?;
        let seed = self.sim().config().seed;
        let mut rng = rng_for(seed, owner as u64, self.replicate() as u64, Purpose::Path);
        sample_owner_path(self.model(), eps_lo, eps_hi, &mut rng, path)
    }
}
