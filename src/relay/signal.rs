//! [`Signal`]: an owner's signal under the run's noise family — the one
//! path `simulate` draws for her (from the stream (seed, owner, replicate,
//! the family's path purpose), over the levels of her farthest and nearest
//! recipients, her value prepared as `simulate` prepares it), with its
//! breakpoints listed in ascending level.
//!
//! A *signal trimmed at t* is {V_l : l ≤ the level t reaches}
//! ([`NoiseFamily::reach`]): the breakpoints at process levels ≤ t/Δ
//! (Laplace), at rungs whose ε is ≤ t (the discrete chain, issue 25). A
//! message is a reference to the owner's path plus a trim level; it is
//! accounted 8 bytes of header plus, per breakpoint carried, its level and
//! its n coordinates at their widths ([`message_bytes`]: 8 + 8n for the f64
//! process, 4 + 8n for the chain's i32 rung and i64 integers). A recipient
//! at ε(d) reads the last carried breakpoint at or below the level of ε(d)
//! and answers as the family does (u + V, or (û + X)·γ).

use super::plan::{MESSAGE_HEADER_BYTES, RelayPlan};
use super::trace::Breakpoint;
use crate::error::Result;
use crate::process::family::{NoiseFamily, StreamKey};
use std::mem::size_of;
use std::ops::Deref;

/// Accounted bytes of a message carrying `breakpoints` breakpoints of an
/// n-dimensional path of family `F`: 8 of header (the reference to the
/// owner's path and the trim) plus, per breakpoint, its level and its n
/// coordinates at their widths (f64: 8 + 8n; the discrete chain: 4 + 8n).
#[inline]
pub fn message_bytes<F: NoiseFamily>(dim: usize, breakpoints: usize) -> u64 {
    let per = size_of::<F::Level>() as u64 + (size_of::<F::Coord>() * dim) as u64;
    MESSAGE_HEADER_BYTES + per * breakpoints as u64
}

/// One owner's value and signal (see the module documentation), reused
/// across owners.
pub struct Signal<F: NoiseFamily> {
    /// The owner's value u.
    pub(crate) u: Vec<f64>,
    /// u as answered (û on the discrete grid).
    secret: Vec<F::Coord>,
    path: F::Path,
    /// Breakpoint levels, ascending …
    levels: Vec<F::Level>,
    /// … and their noise, row-major.
    values: Vec<F::Coord>,
}

impl<F: NoiseFamily> Default for Signal<F> {
    fn default() -> Self {
        Signal {
            u: Vec::new(),
            secret: Vec::new(),
            path: F::Path::default(),
            levels: Vec::new(),
            values: Vec::new(),
        }
    }
}

impl<F: NoiseFamily> Signal<F> {
    /// The signal of `path` for the value `u` (`owner` names her in a
    /// refusal of the value, which is never shown).
    pub fn of(fam: &F, u: &[f64], path: F::Path, owner: &str) -> Result<Signal<F>> {
        let mut s = Signal {
            u: u.to_vec(),
            path,
            ..Signal::default()
        };
        fam.prepare(
            u,
            &mut s.secret,
            crate::process::family::Whose::Owner(owner),
        )?;
        s.index(fam)?;
        s.check_resolved(fam, owner)?;
        Ok(s)
    }

    /// Refuses a value the noise of the path cannot hide
    /// ([`check_resolved`](crate::process::family::check_resolved)).
    fn check_resolved(&self, fam: &F, owner: &str) -> Result<()> {
        crate::process::family::check_resolved(
            fam,
            &self.u,
            self.levels.iter().copied(),
            crate::process::family::Whose::Owner(owner),
        )
    }

    fn index(&mut self, fam: &F) -> Result<()> {
        self.levels.clear();
        self.values.clear();
        let (levels, values) = (&mut self.levels, &mut self.values);
        fam.steps(&self.path, &mut |l, _, v| {
            levels.push(l);
            values.extend_from_slice(v);
        })
    }

    /// Breakpoints of the path.
    pub fn len(&self) -> usize {
        self.levels.len()
    }

    /// Whether the path has no breakpoint.
    pub fn is_empty(&self) -> bool {
        self.levels.is_empty()
    }

    /// Breakpoints a signal trimmed at privacy level `trim` carries.
    #[inline]
    pub fn carried(&self, fam: &F, trim: f64) -> usize {
        match fam.reach(trim) {
            Some(t) => self.levels.partition_point(|&l| l <= t),
            None => 0,
        }
    }

    /// The noise a recipient at privacy level `eps` reads from a signal
    /// trimmed at `trim`: the last carried breakpoint at or below the level
    /// of `eps`; `None` when the signal does not reach `eps` (trim < eps,
    /// or NaN) or carries nothing there.
    pub fn read_out(&self, fam: &F, trim: f64, eps: f64) -> Option<&[F::Coord]> {
        if trim.partial_cmp(&eps).is_none_or(|o| o.is_lt()) {
            return None;
        }
        let c = self.carried(fam, trim);
        let l = fam.level(eps).ok()?;
        let i = self.levels[..c].partition_point(|&b| b <= l);
        let n = fam.dim();
        (i > 0).then(|| &self.values[(i - 1) * n..i * n])
    }

    /// The answer to the owner's value under `noise` into `y`; `false`
    /// where the family refuses it (a discrete answer beyond f64's exact
    /// range, which `simulate` refuses too).
    fn answer_into(&self, fam: &F, noise: &[F::Coord], y: &mut [f64]) -> bool {
        fam.answer(&self.u, &self.secret, noise, y).is_ok()
    }

    /// The answer a recipient at privacy level `eps` reads from a signal
    /// trimmed at `trim`; `None` when the signal does not reach `eps`.
    pub fn answer(&self, fam: &F, trim: f64, eps: f64) -> Option<Vec<f64>> {
        let noise = self.read_out(fam, trim, eps)?;
        let mut y = vec![0.0; fam.dim()];
        self.answer_into(fam, noise, &mut y).then_some(y)
    }

    /// Whether the read-out at `eps` from a signal trimmed at `trim` is
    /// `simulate`'s answer (the whole path read at the level of ε) bit for
    /// bit; `y` is scratch.
    pub fn identical(&self, fam: &F, trim: f64, eps: f64, y: &mut Vec<f64>) -> bool {
        let (Some(r), Ok(level)) = (self.read_out(fam, trim, eps), fam.level(eps)) else {
            return false;
        };
        let n = fam.dim();
        y.resize(2 * n, 0.0);
        let (a, b) = y.split_at_mut(n);
        self.answer_into(fam, r, a)
            && self.answer_into(fam, fam.read(&self.path, 0, level), b)
            && a.iter()
                .zip(b.iter())
                .all(|(x, z)| x.to_bits() == z.to_bits())
    }

    /// The breakpoints in privacy levels and value units, ascending.
    pub fn breakpoints(&self, fam: &F) -> Vec<Breakpoint> {
        let mut out = Vec::with_capacity(self.len());
        fam.breakpoints(&self.path, &[], &[], &mut |eps, v| {
            out.push(Breakpoint {
                eps,
                noise: v.to_vec(),
            })
        });
        out
    }
}

/// A relay run under its noise family `F`, chosen once at the top
/// ([`RelayPlan::run_on`], [`RelayPlan::trace`]): the engines are written
/// once over it.
pub(crate) struct Diffusion<'p, 'a, F> {
    pub(crate) plan: &'p RelayPlan<'a>,
    pub(crate) fam: &'p F,
}

impl<'a, F> Deref for Diffusion<'_, 'a, F> {
    type Target = RelayPlan<'a>;
    fn deref(&self) -> &RelayPlan<'a> {
        self.plan
    }
}

impl<F: NoiseFamily> Diffusion<'_, '_, F> {
    /// Samples `owner`'s path over privacy levels `[eps_lo, eps_hi]` (the
    /// smallest and largest ε of her recipients) into `s`, with her value:
    /// the generator, levels and sampler of `simulate`'s correlated
    /// mechanism, so the path is the one `simulate` draws, and her value
    /// prepared as `simulate` prepares it (a refusal names her, never the
    /// value).
    pub(crate) fn owner_path(
        &self,
        owner: u32,
        eps_lo: f64,
        eps_hi: f64,
        s: &mut Signal<F>,
    ) -> Result<()> {
        let (fam, sim) = (self.fam, self.sim());
        s.u.resize(fam.dim(), 0.0);
        sim.values().value(owner, &mut s.u);
        let levels = [fam.level(eps_hi)?, fam.level(eps_lo)?];
        let b = fam.path_breakpoints(levels[1], levels[0]);
        if b > 0 {
            sim.check_path_memory(eps_lo, eps_hi, b, false)?;
        }
        let key = StreamKey::new(
            sim.config().seed,
            u64::from(owner),
            u64::from(self.replicate()),
            fam.path_purpose(),
        );
        let mut rng = fam.generator(key)?;
        let label = self.graph().ids().label(owner).to_string();
        fam.prepare(
            &s.u,
            &mut s.secret,
            crate::process::family::Whose::Owner(&label),
        )?;
        fam.sample_path(&levels, &mut rng, &mut s.path)?;
        s.index(fam)?;
        s.check_resolved(fam, &label)
    }
}
