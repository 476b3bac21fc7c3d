//! [`Discrete`]: the exact integer chain on a grid (memo `discrete.md`). A
//! request at ε is answered at its rung (the largest ladder level ≤ ε, never
//! more private than asked nor less); the secret is rounded half up to the
//! grid (û); an answer is (û + X)·γ, exact in f64; a path is drawn from the
//! owner's largest needed rung down through every rung to the smallest.

use super::laplace::{seeded, unstarted};
use super::{BitFlips, Lazies, NoiseFamily, OnStep, StreamKey, ViewLoss, ViewRef, Whose};
use crate::error::{Error, Result};
use crate::limits;
use crate::process::Norm;
use crate::process::discrete::{
    DiscreteNoise, DiscretePath, DiscreteWalk, MAX_GRID_VALUE, MemberView, NoiseRng, OsRng,
    PrivacyLoss, RngSource, Rung, theory,
};
use crate::process::mechanism::Mechanism;
use crate::rng::rng_for_stream;
use serde::{Deserialize, Serialize};

/// ChaCha stream number of a released walk's generator: distinct from
/// stream 0, which the f64 families' release requests read.
const WALK_STREAM: u64 = 1;

/// The discrete family: the validated noise (grid, ladder, Δ_Z, dimension),
/// the norm errors are measured in, the entropy source, the expected
/// number of changes of a path per rung, and for a release its fixed top.
#[derive(Clone, Debug, PartialEq)]
pub struct Discrete {
    noise: DiscreteNoise,
    norm: Norm,
    rng: RngSource,
    /// A release's fixed top: requests above its rung are answered there.
    top: Option<Rung>,
    /// `changes[k − min_rung]`: Σ over the steps from rung min_rung + 1 up to
    /// k of P(the value changes at that step) = 1 − atom(t_j, t_{j−1})ⁿ.
    changes: Vec<f64>,
    zeros: Vec<i64>,
}

impl Discrete {
    /// The family of `noise`, drawing from `rng`.
    pub fn new(noise: DiscreteNoise, norm: Norm, rng: RngSource) -> Discrete {
        let (lo, hi) = (noise.min_rung().0, noise.max_rung().0);
        let n = noise.dim() as i32;
        let mut changes = Vec::with_capacity((hi - lo + 1) as usize);
        let mut acc = 0.0;
        changes.push(acc);
        for k in lo + 1..=hi {
            let (t1, t2) = (noise.rate_f64(Rung(k)), noise.rate_f64(Rung(k - 1)));
            acc += 1.0 - theory::atom(t1, t2).powi(n);
            changes.push(acc);
        }
        let zeros = vec![0; noise.dim()];
        Discrete {
            noise,
            norm,
            rng,
            top: None,
            changes,
            zeros,
        }
    }

    /// The same family with a release's fixed top (memo §4): a release at
    /// ε above the top's level is answered at the top, and its walk starts
    /// there.
    pub fn with_top(self, top: Rung) -> Discrete {
        Discrete {
            top: Some(top),
            ..self
        }
    }

    /// The validated noise.
    pub fn noise(&self) -> &DiscreteNoise {
        &self.noise
    }

    /// The entropy source.
    pub fn rng(&self) -> RngSource {
        self.rng
    }

    /// Expected number of changes of a path from `top` down to `bottom`.
    pub fn expected_changes_between(&self, top: Rung, bottom: Rung) -> f64 {
        let lo = self.noise.min_rung().0;
        let at = |k: Rung| self.changes[(k.0 - lo) as usize];
        at(top) - at(bottom)
    }
}

/// The largest |u| the grid of `noise` holds: 2⁵²·γ.
pub fn grid_limit(noise: &DiscreteNoise) -> f64 {
    MAX_GRID_VALUE as f64 * noise.grid().value()
}

/// Rounds a secret to the grid (û = ⌊u/γ + ½⌋) into `out`; a value beyond
/// the grid's range is refused naming whose it is (an owner of `values` by
/// its node id or index, or a release's `value`) and the limit, never the
/// value, which is the secret.
pub fn round_secret(
    noise: &DiscreteNoise,
    u: &[f64],
    out: &mut [i64],
    whose: Whose<'_>,
) -> Result<()> {
    let (param, shown) = whose.shown();
    noise.round_into(u, out).map_err(|e| match e {
        Error::Parameter { ref name, .. } if name == "value" => Error::param(
            param,
            shown,
            format!(
                "finite values within ±{} (2^52 steps of the grid {}) with `noise` = discrete; \
                 use a coarser `granularity`",
                grid_limit(noise),
                noise.grid()
            ),
        ),
        other => other,
    })
}

impl NoiseFamily for Discrete {
    type Level = Rung;
    type Coord = i64;
    type Path = DiscretePath;
    type Rng = NoiseRng;

    fn dim(&self) -> usize {
        self.noise.dim()
    }

    fn path_mechanism(&self) -> Mechanism {
        Mechanism::Correlated
    }

    fn level(&self, eps: f64) -> Result<Rung> {
        self.noise.rung_of(eps)
    }

    /// The rung of `eps`; a refusal names the privacy map `spec` as typed
    /// and where the level is used, as the Laplace family's (it named the
    /// computed ε alone, `invalid --eps '0.000000000758…'`).
    fn checked_level(&self, eps: f64, spec: &str, at: &str) -> Result<Rung> {
        self.level(eps).map_err(|e| match e {
            Error::Parameter { expected, .. } => Error::param(
                "eps",
                limits::readable(spec),
                format!(
                    "{expected} at every distance of the run, got ε = {} at {at}",
                    limits::fmt_num(eps)
                ),
            ),
            e => e,
        })
    }

    fn eps_used(&self, _eps: f64, level: Rung) -> f64 {
        self.noise.eps_of(level)
    }

    fn reach(&self, eps: f64) -> Option<Rung> {
        let top = self.noise.max_rung();
        if eps >= self.noise.eps_of(top) {
            return Some(top);
        }
        self.noise.rung_of(eps).ok()
    }

    fn mse(&self, level: Rung) -> f64 {
        self.noise.mse(level)
    }

    /// On grid γ = 2^e (issue 33 item 8): an answer's squared error is at
    /// most about (2^53·γ)² = 2^(106+2e), a rounding-only one about u² (u of
    /// order 1), and their co-moments are summed over up to 2^31 trials.
    /// Divided by 2^(2e−374) the largest is at most 2^480, so its square
    /// times 2^31 stays below 2^991, while u² becomes 2^(374−2e) ≥ 2^−426 (e ≤
    /// 400), whose square is still a normal number. Grids up to 2^187 need no
    /// unit (1: the exact bits of every grid the command took before).
    fn error_scale(&self) -> f64 {
        let e = self.noise.grid().exponent();
        if e > 187 { 2f64.powi(2 * e - 374) } else { 1.0 }
    }

    fn correct_prob(&self, level: Rung, u: &[f64]) -> Result<f64> {
        let [f0, f1] = self.noise.bit_flip_probabilities(level)?;
        Ok(u.iter()
            .map(|&b| 1.0 - if b == 1.0 { f1 } else { f0 })
            .product())
    }

    fn generator(&self, key: StreamKey) -> Result<NoiseRng> {
        Ok(match self.rng {
            RngSource::Seeded => NoiseRng::Seeded(seeded(key)),
            RngSource::Os => NoiseRng::Os(OsRng::new()?),
        })
    }

    fn prepare(&self, u: &[f64], secret: &mut Vec<i64>, whose: Whose<'_>) -> Result<f64> {
        secret.resize(u.len(), 0);
        round_secret(&self.noise, u, secret, whose)?;
        let g = self.noise.grid().value();
        Ok(secret
            .iter()
            .zip(u)
            .map(|(&h, &u)| (h as f64 * g - u).powi(2))
            .sum())
    }

    fn sample_path(
        &self,
        levels: &[Rung],
        rng: &mut NoiseRng,
        path: &mut DiscretePath,
    ) -> Result<()> {
        let top = levels.iter().copied().max().unwrap_or_default();
        let bottom = levels.iter().copied().min().unwrap_or_default();
        // One dispatch on the generator per path, not one per word drawn.
        match rng {
            NoiseRng::Seeded(r) => self.noise.sample_path_into(top, bottom, r, path),
            NoiseRng::Os(r) => self.noise.sample_path_into(top, bottom, r, path),
        }
    }

    fn read<'a>(&'a self, path: &'a DiscretePath, _k: usize, level: Rung) -> &'a [i64] {
        path.value_at(level).unwrap_or(&self.zeros)
    }

    fn sample_fresh(&self, level: Rung, rng: &mut NoiseRng, out: &mut [i64]) -> Result<()> {
        // One dispatch on the generator per draw, not one per word drawn.
        match rng {
            NoiseRng::Seeded(r) => self.noise.sample_fresh_into(level, r, out),
            NoiseRng::Os(r) => self.noise.sample_fresh_into(level, r, out),
        }
    }

    fn fresh_square_sums(
        &self,
        u: &[f64],
        secret: &[i64],
        levels: &[Rung],
        units: impl IntoIterator<Item = u32>,
        rng: &mut NoiseRng,
        sums: &mut [f64],
    ) -> Result<()> {
        match rng {
            NoiseRng::Seeded(r) => self
                .noise
                .fresh_square_sums(u, secret, levels, units, r, sums),
            NoiseRng::Os(r) => self
                .noise
                .fresh_square_sums(u, secret, levels, units, r, sums),
        }
    }

    fn answer(&self, u: &[f64], secret: &[i64], noise: &[i64], y: &mut [f64]) -> Result<f64> {
        self.noise.answer_into(secret, noise, y)?;
        Ok(y.iter().zip(u).map(|(a, b)| (a - b) * (a - b)).sum())
    }

    fn error_norm(&self, u: &[f64], y: &[f64], _noise: &[i64]) -> f64 {
        let err: Vec<f64> = y.iter().zip(u).map(|(y, u)| y - u).collect();
        self.norm.norm_of(&err)
    }

    fn steps(&self, path: &DiscretePath, f: &mut OnStep<'_, Rung, i64>) -> Result<()> {
        for (k, x) in path.breakpoints() {
            f(k, self.noise.eps_of(k), x);
        }
        Ok(())
    }

    fn noise_value(&self, noise: &[i64], out: &mut [f64]) -> Result<()> {
        let g = self.noise.grid();
        for (o, &x) in out.iter_mut().zip(noise) {
            *o = g.value_of(i128::from(x))?;
        }
        Ok(())
    }

    fn changes(&self, path: &DiscretePath) -> u64 {
        path.num_changes() as u64
    }

    fn expected_changes(&self, lo: (f64, Rung), hi: (f64, Rung)) -> f64 {
        self.expected_changes_between(hi.1, lo.1)
    }

    /// The noise X·γ at every breakpoint, ascending.
    fn breakpoints(
        &self,
        path: &DiscretePath,
        _levels: &[Rung],
        _eps: &[f64],
        f: &mut dyn FnMut(f64, &[f64]),
    ) {
        let g = self.noise.grid().value();
        let mut v = Vec::with_capacity(self.dim());
        for (k, x) in path.breakpoints() {
            v.clear();
            v.extend(x.iter().map(|&x| x as f64 * g));
            f(self.noise.eps_of(k), &v);
        }
    }

    /// Each change, at the lowest rung where the upper value holds.
    fn jumps(&self, path: &DiscretePath, f: &mut dyn FnMut(f64, f64)) {
        let g = self.noise.grid().value();
        let mut prev: Option<&[i64]> = None;
        let mut diff = Vec::with_capacity(self.dim());
        for (k, v) in path.breakpoints() {
            if let Some(p) = prev {
                diff.clear();
                diff.extend(v.iter().zip(p).map(|(a, b)| (a - b) as f64 * g));
                f(self.noise.eps_of(k), self.norm.norm_of(&diff));
            }
            prev = Some(v);
        }
    }

    type Bound = PrivacyLoss;

    /// The attacker's Laplace rate in value units: t_j/γ = ε_j/(Δ_Z·γ).
    fn member_param(&self, eps: f64, _level: Rung) -> f64 {
        eps / (self.noise.delta_z() as f64 * self.noise.grid().value())
    }

    /// û + Δ_Z·e₁: a shift of Δ_Z·γ ≥ Δ in value units.
    fn neighbour(&self, u: &[f64], secret: &[i64], u1: &mut Vec<f64>, secret1: &mut Vec<i64>) {
        u1.clear();
        u1.extend_from_slice(u);
        secret1.clear();
        secret1.extend_from_slice(secret);
        secret1[0] = secret1[0].saturating_add(self.noise.delta_z() as i64);
    }

    /// The loss of the view whose every answer is û: ε* (correlated) or
    /// Σ ε_j exactly (each term then reaches t_j·Δ_Z).
    fn loss_bound(&self, mech: Mechanism, secret: &[i64], levels: &[Rung]) -> Result<PrivacyLoss> {
        let at: Vec<MemberView<'_>> = levels
            .iter()
            .map(|&rung| MemberView {
                rung,
                answer: secret,
            })
            .collect();
        self.loss_of(mech, secret, &at)
    }

    /// Exact: |L| against the bound, no slack.
    fn view_loss(
        &self,
        mech: Mechanism,
        v: &ViewRef<'_, Self>,
        _eps_bound: f64,
        bound: &PrivacyLoss,
        _order: &mut Vec<usize>,
    ) -> Result<ViewLoss> {
        let n = self.dim();
        let answers: Vec<i64> = v
            .noise
            .chunks_exact(n)
            .flat_map(|x| x.iter().zip(v.secret).map(|(a, b)| b.saturating_add(*a)))
            .collect();
        let members: Vec<MemberView<'_>> = v
            .levels
            .iter()
            .zip(answers.chunks_exact(n))
            .map(|(&rung, answer)| MemberView { rung, answer })
            .collect();
        let loss = self.loss_of(mech, v.secret, &members)?;
        Ok(ViewLoss {
            loss: loss.to_f64(),
            over: exceeds(&loss, bound),
            chain: None,
        })
    }

    fn attack_origin(&self, _u: &[f64], secret: &[i64]) -> (f64, f64) {
        let g = self.noise.grid().value();
        (secret[0] as f64 * g, self.noise.delta_z() as f64 * g)
    }

    type Lazy = DiscreteState;

    /// The largest rung ≤ ε, or the fixed top above it (memo §4).
    fn release_level(&self, eps: f64) -> Result<Rung> {
        let top = self.release_top();
        if eps.is_finite() && eps >= self.noise.eps_of(top) {
            return Ok(top);
        }
        self.noise.rung_of(eps)
    }

    /// One walk from the fixed top down through every rung, never
    /// resampled nor walked up, reading ONE stream continued from its word
    /// position: the answers depend on the set of levels requested, not on
    /// their order, and a saved walk continues exactly. With `rng` = os each
    /// extension draws from a fresh generator (the chain is Markov).
    fn lazy_noise(
        &self,
        lazy: &mut Option<DiscreteState>,
        level: Rung,
        key: StreamKey,
        eps: f64,
    ) -> Result<Vec<i64>> {
        let top = self.release_top();
        let n = self.dim();
        let bottom = lazy.as_ref().map_or(top, |d| d.walk.bottom());
        if level < bottom {
            // At worst one breakpoint of n values per rung walked.
            let steps = u64::try_from(bottom.0 - level.0).unwrap_or(u64::MAX);
            limits::memory_budget().check_with(
                "eps",
                format!(
                    "{} (the discrete walk extended {steps} rungs down to ε = {}, n = {n})",
                    limits::fmt_num(eps),
                    self.noise.eps_of(level)
                ),
                limits::path_bytes(steps.saturating_add(1), n).saturating_mul(2),
                "request higher levels, lower the dimension, or raise `memory_budget`",
            )?;
        }
        let state = match lazy {
            Some(d) => {
                if level < d.walk.bottom() {
                    let mut rng = self.walk_generator(key, d.word_pos.unwrap_or(0))?;
                    d.walk.extend_to(level, &mut rng)?;
                    d.word_pos = rng.word_pos()?;
                }
                d
            }
            None => {
                let mut rng = self.walk_generator(key, 0)?;
                let mut walk = DiscreteWalk::start(&self.noise, top, &mut rng)?;
                walk.extend_to(level, &mut rng)?;
                let word_pos = rng.word_pos()?;
                lazy.insert(DiscreteState { walk, word_pos })
            }
        };
        let x = self.lazy_read(state, level);
        x.map(<[i64]>::to_vec)
            .ok_or_else(|| Error::param("rung", level, "a rung the walk reached"))
    }

    fn lazy_read<'a>(&self, lazy: &'a DiscreteState, level: Rung) -> Option<&'a [i64]> {
        lazy.walk.path().value_at(level)
    }

    /// The walk's configuration is the release's (γ, m, Δ, n and Δ_Z), its
    /// top the rung of `eps_max`, with a word position exactly when seeded.
    fn check_lazy(&self, d: &DiscreteState) -> std::result::Result<(), (&'static str, String)> {
        let (w, noise) = (d.walk.noise(), &self.noise);
        let err = |m: String| Err(("discrete", m));
        if w != noise || w.delta_z() != noise.delta_z() {
            return err(format!(
                "the walk's configuration (granularity {}, levels_per_doubling {}, sensitivity \
                 {}, dim {}) does not match the release's ({}, {}, {}, {})",
                w.grid(),
                w.levels_per_doubling(),
                w.sensitivity(),
                w.dim(),
                noise.grid(),
                noise.levels_per_doubling(),
                noise.sensitivity(),
                noise.dim()
            ));
        }
        let top = self.release_top();
        if d.walk.top() != top {
            return err(format!(
                "the walk's top rung {} is not the rung of eps_max ({top})",
                d.walk.top()
            ));
        }
        match (self.rng, d.word_pos) {
            (RngSource::Seeded, Some(_)) | (RngSource::Os, None) => Ok(()),
            (RngSource::Seeded, None) => {
                err("word_pos missing: a seeded walk keeps its stream position".into())
            }
            (RngSource::Os, Some(_)) => {
                err("word_pos given for rng = os (no stream to continue)".into())
            }
        }
    }

    /// A seeded walk replays exactly; a walk of `rng` = os has no stream
    /// to replay (its state keeps a checksum instead, `ReleaseState::sha256`).
    fn check_replay(
        &self,
        d: &DiscreteState,
        key: StreamKey,
        levels: &[Rung],
    ) -> std::result::Result<(), (&'static str, String)> {
        if self.rng != RngSource::Seeded {
            return Ok(());
        }
        let err = |m: String| Err(("discrete", m));
        let Some(&lowest) = levels.iter().min() else {
            return err("a discrete walk without any answer released from it".into());
        };
        let replayed = || -> Result<(DiscreteWalk, Option<u64>)> {
            let mut rng = self.walk_generator(key, 0)?;
            // Replayed with the sampler the state records (1 when absent).
            let mut w = DiscreteWalk::start_with(
                &self.noise,
                self.release_top(),
                d.walk.sampler(),
                &mut rng,
            )?;
            w.extend_to(lowest, &mut rng)?;
            Ok((w, rng.word_pos()?))
        };
        let (w, pos) = match replayed() {
            Ok(r) => r,
            Err(e) => return err(e.to_string()),
        };
        if w != d.walk {
            return err(format!(
                "the walk is not the one seed {} and stream {} draw down to the history's \
                 lowest rung: a seeded state replays exactly (was its seed, stream or walk \
                 edited?)",
                key.seed, key.owner
            ));
        }
        if pos != d.word_pos {
            let show = |p: Option<u64>| p.map_or_else(|| "none".into(), |p| p.to_string());
            return err(format!(
                "word_pos {}: expected {} (the seeded stream replayed from seed {} and the \
                 history)",
                show(d.word_pos),
                show(pos),
                key.seed
            ));
        }
        Ok(())
    }

    fn lazy_points(&self, lazy: &DiscreteState) -> u64 {
        lazy.walk.path().num_changes() as u64 + 1
    }

    fn lazy_slot(lazies: &mut Lazies) -> &mut Option<DiscreteState> {
        &mut lazies.discrete
    }

    fn lazy_ref(lazies: &Lazies) -> Option<&DiscreteState> {
        lazies.discrete.as_ref()
    }

    type Walk = Option<DiscreteWalk>;

    /// The chain from `first` (the owner's largest needed rung) down.
    fn start_walk(
        &self,
        _top: Rung,
        first: Rung,
        rng: &mut NoiseRng,
        walk: &mut Option<DiscreteWalk>,
    ) -> Result<()> {
        *walk = Some(DiscreteWalk::start(&self.noise, first, rng)?);
        Ok(())
    }

    fn walk_to<'w>(
        &self,
        walk: &'w mut Option<DiscreteWalk>,
        level: Rung,
        rng: &mut NoiseRng,
    ) -> Result<&'w [i64]> {
        walk.as_mut().ok_or_else(unstarted)?.value_at(level, rng)
    }

    fn walk_changes(&self, walk: &Option<DiscreteWalk>) -> u64 {
        walk.as_ref().map_or(0, |w| w.path().num_changes() as u64)
    }

    /// 2a/(1 − a)²·γ² at the rung.
    fn coord_variance(&self, level: Rung) -> f64 {
        let g = self.noise.grid().value();
        self.noise.variance(level) * g * g
    }

    /// The discrete law's flips of the bits rounded to the grid
    /// ([`bit_flip_probabilities`](DiscreteNoise::bit_flip_probabilities)),
    /// keep = 1 − f₀ − f₁.
    fn bit_flips(&self, level: Rung) -> Result<BitFlips> {
        let [f0, f1] = self.noise.bit_flip_probabilities(level)?;
        Ok(BitFlips {
            flip: [f0, f1],
            keep: 1.0 - f0 - f1,
        })
    }

    fn grid(&self) -> Option<f64> {
        Some(self.noise.grid().value())
    }
}

/// The stored noise of a discrete release (its state's `discrete` key): the
/// walk (its configuration, with Δ_Z, and the path from the top down to the
/// lowest rung released) and, for a seeded generator, its word position.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct DiscreteState {
    /// The walk drawn so far.
    pub walk: DiscreteWalk,
    /// Words of the seeded stream read so far (`None` with `rng` = os).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub word_pos: Option<u64>,
}

impl Discrete {
    /// The top a release walks down from: its fixed top, else the largest
    /// rung.
    fn release_top(&self) -> Rung {
        self.top.unwrap_or(self.noise.max_rung())
    }

    /// The walk's generator: the seeded stream of (seed, owner) on
    /// [`WALK_STREAM`], continued at word `pos`, or the OS's.
    fn walk_generator(&self, key: StreamKey, pos: u64) -> Result<NoiseRng> {
        NoiseRng::continued(
            self.rng,
            || rng_for_stream(key.seed, key.owner, 0, key.purpose, WALK_STREAM),
            pos,
        )
    }

    fn loss_of(
        &self,
        mech: Mechanism,
        secret: &[i64],
        view: &[MemberView<'_>],
    ) -> Result<PrivacyLoss> {
        if mech == Mechanism::Correlated {
            self.noise.correlated_loss(secret, view)
        } else {
            self.noise.independent_loss(secret, view)
        }
    }
}

/// |loss| > bound, exactly (cross-multiplied big integers).
fn exceeds(loss: &PrivacyLoss, bound: &PrivacyLoss) -> bool {
    let scale = |a: &PrivacyLoss, b: &PrivacyLoss| a.numer().magnitude() * b.denom();
    scale(loss, bound) > scale(bound, loss)
}
