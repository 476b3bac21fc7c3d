//! [`ReleaseTrials`]: a [`GradualRelease`] answered at requested levels over
//! many independent trials, the library's face of `privdiffuse relax`.
//!
//! Each trial releases the secret at every requested level in order (memo
//! §3) on its own random stream and hands one [`ReleaseRow`] per answer to a
//! [`RecordSink`]. Over the trials the run measures each level's MSE against
//! the single-release optimum and — for strictly increasing requests — the
//! composition baseline: fresh noise with budget ε_i − ε_(i−1) at step i,
//! the fresh answers combined by inverse-variance weighting ([`AccuracyRow`]).
//! [`ReleaseOutput::accounting`] says what each trial's released set costs:
//! max ε for the lazy path, the sum of the budgets for the baseline.
//!
//! Randomness: trial t releases on stream `s + t` of the template (stream s,
//! see [`GradualRelease::with_stream`]); the baseline's fresh noise of trial t
//! at step i comes from `rng_for(seed, t, i, Purpose::Independent)`. Trials
//! run in parallel on the caller's rayon pool; rows reach the sink in trial
//! order and the sums are taken in trial order, so the output does not depend
//! on the thread count — and equals, bit for bit, what `relax` printed when
//! the loop lived in the command line.

mod rows;

pub use rows::{AccuracyRow, ReleaseRow};

use crate::error::{Error, Result};
use crate::process::{GradualRelease, ReleaseNoise};
use crate::rng::{Purpose, rng_for};
use crate::sink::RecordSink;
use rayon::prelude::*;

/// Largest number of trials: the cap of `collude`'s trials (each trial
/// writes a row per level, so 2⁶³ trials would run, and fill a disk, forever).
const MAX_TRIALS: u64 = crate::collusion::run::MAX_TRIALS as u64;

/// Trials per parallel wave: a wave's rows are held until written in order.
const WAVE_ROWS: u64 = 1 << 16;

/// A gradual release answered at `eps` over `trials` trials. See the module
/// documentation.
///
/// ```
/// use privdiffuse::release::ReleaseTrials;
/// use privdiffuse::{GradualRelease, Norm, ReleaseNoise};
/// # fn main() -> Result<(), privdiffuse::Error> {
/// let secret = GradualRelease::new(vec![0.0], ReleaseNoise::Laplace { norm: Norm::L1 }, 1.0, 1)?;
/// let run = ReleaseTrials::new(secret, vec![0.5, 1.0, 2.0, 4.0]).trials(4000);
/// let mut rows = Vec::new();
/// let out = run.run_into(&mut rows)?;
/// assert_eq!(rows.len(), 4 * 4000);
/// for a in out.accuracy() {
///     // Each level as accurate as one release at it: E(y − u)² = 2/ε²,
///     // sd of V² is √20/ε², so the ratio's standard error is √20/2/√4000.
///     assert!((a.ratio - 1.0).abs() < 6.0 * 20f64.sqrt() / 2.0 / 4000f64.sqrt());
/// }
/// // Composition's fresh noise is worse once relaxed (ratio 2.9 at ε = 4)…
/// assert!(out.accuracy()[3].comp_ratio.unwrap() > 2.0);
/// // …for the same privacy: max ε = Σ (ε_i − ε_(i−1)) = 4.
/// assert_eq!(out.accounting().eps, 4.0);
/// assert_eq!(out.accounting().composition_eps, Some(4.0));
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct ReleaseTrials {
    template: GradualRelease,
    eps: Vec<f64>,
    trials: u64,
}

/// What a run of [`ReleaseTrials`] returns besides its rows.
#[derive(Clone, Debug)]
pub struct ReleaseOutput {
    accuracy: Vec<AccuracyRow>,
    accounting: Accounting,
    last: GradualRelease,
    trials: u64,
}

/// The privacy of what one trial released ([`ReleaseOutput::accounting`]).
#[derive(Clone, Debug, PartialEq)]
pub struct Accounting {
    /// The lazy release: everything it answered (a resumed release's
    /// earlier answers included) is exactly as private as its largest ε.
    pub eps: f64,
    /// δ of the Gaussian mechanism (the one δ of every level); `None` for
    /// the Laplace process.
    pub delta: Option<f64>,
    /// The composition baseline (strictly increasing requests only): the
    /// sum of its fresh budgets ε_i − ε_(i−1), which telescopes to the last ε.
    pub composition_eps: Option<f64>,
    /// The baseline's δ: δ/m per step, m steps.
    pub composition_delta: Option<f64>,
    /// What fresh noise at every distinct level released would cost
    /// instead: the sum of those levels (basic composition).
    pub fresh_sum: f64,
    /// Distinct levels released.
    pub levels: usize,
}

/// The refusal of a requested level that is not a finite number > 0,
/// showing it as `shown` (the command line passes the text as typed:
/// `1e-400` parses to 0).
pub fn level_refusal(shown: impl std::fmt::Display) -> Error {
    Error::param("eps", shown, "finite numbers > 0, e.g. 0.5,1,2")
}

impl ReleaseTrials {
    /// Answers `template` (new, or resumed with its history) at the levels
    /// `eps`, in order; one trial until [`ReleaseTrials::trials`] says more.
    pub fn new(template: GradualRelease, eps: Vec<f64>) -> Self {
        ReleaseTrials {
            template,
            eps,
            trials: 1,
        }
    }

    /// Independent repetitions (1 ..= 2³¹ − 1; only 1 for a release that has
    /// answered before: it continues its one stream).
    pub fn trials(mut self, trials: u64) -> Self {
        self.trials = trials;
        self
    }

    /// The release every trial starts from.
    pub fn template(&self) -> &GradualRelease {
        &self.template
    }

    /// The requested levels, in order.
    pub fn levels(&self) -> &[f64] {
        &self.eps
    }

    /// Checks the levels and the trial count, and that every level can be
    /// released (one throw-away release of each, so a refused level or
    /// memory budget fails before any row exists).
    pub fn validate(&self) -> Result<()> {
        self.probe().map(drop)
    }

    /// [`ReleaseTrials::validate`], returning the throw-away release.
    fn probe(&self) -> Result<GradualRelease> {
        if self.eps.is_empty() {
            return Err(Error::param("eps", "(none)", "at least one level"));
        }
        for &e in &self.eps {
            if !(e.is_finite() && e > 0.0) {
                return Err(level_refusal(e));
            }
        }
        let t = self.trials;
        if t == 0 || t > MAX_TRIALS {
            return Err(Error::param(
                "trials",
                t,
                format!("an integer from 1 to {MAX_TRIALS}"),
            ));
        }
        if t > 1 && !self.template.history().is_empty() {
            return Err(Error::param(
                "trials",
                t,
                "1 for a release that has answered before (it continues its one stream)",
            ));
        }
        let mut probe = self.template.clone();
        for &e in &self.eps {
            probe.release(e)?;
        }
        self.composition_mse()?;
        Ok(probe)
    }

    /// Runs every trial, handing the answers to `rows` in trial order.
    pub fn run_into(&self, rows: &mut dyn RecordSink<ReleaseRow>) -> Result<ReleaseOutput> {
        let probe = self.probe()?;
        let m = self.eps.len();
        let n = self.template.dim() as u64;
        let comp_mse = self.composition_mse()?;
        let mut lazy = vec![0.0; m];
        let mut comp = vec![0.0; m];
        // A wave holds its rows and, while it runs, one noise path per
        // trial: about WAVE_ROWS rows, and at most 64 MiB of paths.
        let path_bytes = 8 * (n + 1) * probe.noise_points().max(1);
        let per_wave = (WAVE_ROWS / (m as u64 * (n + 4)))
            .clamp(1, 4096)
            .saturating_mul(8)
            .min(((64u64 << 20) / path_bytes).max(1));
        let mut last = None;
        let mut first = 0;
        while first < self.trials {
            let end = (first + per_wave).min(self.trials);
            let done: Vec<Result<Trial>> = (first..end)
                .into_par_iter()
                .map(|t| self.trial(t, comp_mse.as_deref()))
                .collect();
            let mut wave = Vec::with_capacity(((end - first) as usize).saturating_mul(m));
            for trial in done {
                let trial = trial?;
                // Summed in trial order: the same floating-point sums
                // whatever the thread count.
                for i in 0..m {
                    lazy[i] += trial.lazy[i];
                    comp[i] += trial.comp[i];
                }
                wave.extend(trial.rows);
                if trial.release.is_some() {
                    last = trial.release;
                }
            }
            rows.record_all(wave)?;
            first = end;
        }
        let last = last.ok_or_else(|| Error::Numerical("no trial ran".into()))?;
        Ok(ReleaseOutput {
            accuracy: self.accuracy(&lazy, &comp, comp_mse.as_deref())?,
            accounting: self.accounting(&last, comp_mse.is_some()),
            last,
            trials: self.trials,
        })
    }

    /// Runs every trial and keeps the answers in memory.
    pub fn run(&self) -> Result<(Vec<ReleaseRow>, ReleaseOutput)> {
        let mut rows = Vec::new();
        let out = self.run_into(&mut rows)?;
        Ok((rows, out))
    }

    /// The composition baseline's per-step MSEs (fresh noise with budget
    /// ε_i − ε_(i−1), δ/m each), when the requests strictly increase from a
    /// new release; `None` otherwise.
    fn composition_mse(&self) -> Result<Option<Vec<f64>>> {
        let increasing = self.eps.windows(2).all(|w| w[0] < w[1]);
        // Not for the discrete chain: its budgets ε_i − ε_(i−1) would fall
        // between rungs (the accounting line still gives Σ ε of fresh noise).
        let discrete = matches!(self.template.mechanism(), ReleaseNoise::Discrete { .. });
        if !increasing || discrete || !self.template.history().is_empty() {
            return Ok(None);
        }
        let mech = self.composition_mechanism();
        let (n, sens) = (self.template.dim(), self.template.sensitivity());
        let mut prev = 0.0;
        let mut mse = Vec::with_capacity(self.eps.len());
        for &e in &self.eps {
            mse.push(mech.single_release_mse(e - prev, n, sens)?);
            prev = e;
        }
        Ok(Some(mse))
    }

    /// The baseline's mechanism: δ split evenly over the steps.
    fn composition_mechanism(&self) -> ReleaseNoise {
        match self.template.mechanism() {
            ReleaseNoise::Gaussian { delta, calibration } => ReleaseNoise::Gaussian {
                delta: delta / self.eps.len() as f64,
                calibration,
            },
            other => other,
        }
    }

    /// Trial `t`: its answers, per-level squared errors of the lazy release
    /// and of the baseline's combined estimate, and the release itself.
    fn trial(&self, t: u64, comp_mse: Option<&[f64]>) -> Result<Trial> {
        let g0 = &self.template;
        let mut g = g0.clone().with_stream(g0.stream().wrapping_add(t));
        let (u, n, m) = (g0.value(), g0.dim(), self.eps.len());
        let first_step = g0.history().len() as u64;
        let comp_mech = self.composition_mechanism();
        let mut out = Trial {
            rows: Vec::with_capacity(m),
            lazy: vec![0.0; m],
            comp: vec![0.0; m],
            release: None,
        };
        let (mut fresh, mut comb) = (vec![0.0; n], vec![0.0; n]);
        let mut wsum = 0.0;
        for (i, &e) in self.eps.iter().enumerate() {
            let y = g.release(e)?;
            out.lazy[i] = y.iter().zip(u).map(|(a, b)| (a - b) * (a - b)).sum::<f64>();
            if let Some(comp_mse) = comp_mse {
                // Fresh noise with budget ε_i − ε_(i−1), inverse-variance weights.
                let budget = e - if i == 0 { 0.0 } else { self.eps[i - 1] };
                let mut rng = rng_for(g0.seed(), t, i as u64, Purpose::Independent);
                comp_mech.fresh_noise(budget, g0.sensitivity(), &mut fresh, &mut rng)?;
                let w = 1.0 / comp_mse[i];
                wsum += w;
                for (c, z) in comb.iter_mut().zip(&fresh) {
                    *c += w * z;
                }
                out.comp[i] = comb.iter().map(|c| (c / wsum) * (c / wsum)).sum::<f64>();
            }
            out.rows.push(ReleaseRow {
                trial: t,
                step: first_step + i as u64,
                // The level answered: the request, or its rung (discrete).
                eps: g.history().last().map_or(e, |r| r.eps),
                y,
            });
        }
        if t + 1 == self.trials {
            out.release = Some(g);
        }
        Ok(out)
    }

    fn accuracy(
        &self,
        lazy: &[f64],
        comp: &[f64],
        comp_mse: Option<&[f64]>,
    ) -> Result<Vec<AccuracyRow>> {
        let g = &self.template;
        let tf = self.trials as f64;
        let first_step = g.history().len() as u64;
        let mut inv_sum = 0.0;
        let mut rows = Vec::with_capacity(self.eps.len());
        for (i, &e) in self.eps.iter().enumerate() {
            // The level answered (a rung under the discrete chain) and its
            // optimum (there: the discrete law plus the rounding of u).
            let (e, opt) = g.expected_mse(e)?;
            let mse = lazy[i] / tf;
            let (comp_mse_i, comp_theory, comp_ratio) = match comp_mse {
                Some(c) => {
                    inv_sum += 1.0 / c[i];
                    let cm = comp[i] / tf;
                    (Some(cm), Some(1.0 / inv_sum), Some(cm / opt))
                }
                None => (None, None, None),
            };
            rows.push(AccuracyRow {
                step: first_step + i as u64,
                eps: e,
                mse,
                optimum: opt,
                ratio: mse / opt,
                comp_mse: comp_mse_i,
                comp_theory,
                comp_ratio,
            });
        }
        Ok(rows)
    }

    fn accounting(&self, last: &GradualRelease, composition: bool) -> Accounting {
        let delta = match last.mechanism() {
            ReleaseNoise::Gaussian { delta, .. } => Some(delta),
            ReleaseNoise::Laplace { .. } | ReleaseNoise::Discrete { .. } => None,
        };
        let mut distinct: Vec<f64> = last.history().iter().map(|r| r.eps).collect();
        distinct.sort_by(f64::total_cmp);
        distinct.dedup();
        let last_eps = self.eps.last().copied().unwrap_or(0.0);
        Accounting {
            eps: last.privacy_level().unwrap_or(0.0),
            delta,
            composition_eps: composition.then_some(last_eps),
            composition_delta: if composition { delta } else { None },
            fresh_sum: distinct.iter().sum(),
            levels: distinct.len(),
        }
    }
}

/// One trial's results.
struct Trial {
    rows: Vec<ReleaseRow>,
    lazy: Vec<f64>,
    comp: Vec<f64>,
    /// The last trial's release (the others are not kept).
    release: Option<GradualRelease>,
}

impl ReleaseOutput {
    /// One row per requested level, in request order.
    pub fn accuracy(&self) -> &[AccuracyRow] {
        &self.accuracy
    }

    /// The privacy of one trial's released set.
    pub fn accounting(&self) -> &Accounting {
        &self.accounting
    }

    /// The last trial's release with every answer it gave: the state to
    /// save (`relax --state` runs one trial).
    pub fn release(&self) -> &GradualRelease {
        &self.last
    }

    /// Trials run.
    pub fn trials(&self) -> u64 {
        self.trials
    }

    /// Whether the composition baseline ran (strictly increasing requests
    /// from a new release).
    pub fn has_composition(&self) -> bool {
        self.accounting.composition_eps.is_some()
    }
}

#[cfg(test)]
mod tests;
