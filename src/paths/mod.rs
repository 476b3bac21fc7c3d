//! [`PathSamples`]: many independent sample paths of a lazy process, as
//! rows — the library's face of `privdiffuse path`.
//!
//! Sample `k` is the path of the run's noise family drawn from the stream
//! (seed, k, 0, `Purpose::Path`): for the f64 Laplace process the path
//! [`PathSampler::sample`] draws from `rng_for(seed, k, 0, Purpose::Path)`
//! ([`PathSamples::sample`]); for the exact integer chain (`noise` =
//! discrete, issue 25; sensitivity 1, so Δ_Z = ⌈1/γ⌉ + n − 1) the walk from
//! the rung of `eps_hi` down through every rung to the rung of `eps_lo`
//! (memo `discrete.md` §4; [`PathSamples::discrete_sample`]). Any sample can
//! be reproduced alone. Each becomes [`PathSampleRow`]s: one per breakpoint
//! in ascending ε (the first at `eps_lo`, or its rung; a row's value holds
//! up to the next row's level), or one per requested level in the order
//! given ([`PathSamples::at`]; under the chain, at its rung, the level
//! recorded being the rung's). Values are the noise in value units (the
//! chain's X·γ: grid multiples, exact in f64). Chunks of samples are drawn
//! in parallel on the caller's rayon pool and reach the sink in sample
//! order, so the rows never depend on the thread count.

use crate::error::{Error, Result};
use crate::limits::{self, bytes_of};
use crate::process::discrete::{DiscreteNoise, DiscretePath, DiscreteSummary, NoiseOptions};
use crate::process::family::{Discrete, Laplace, Noise, NoiseFamily, StreamKey, Visit};
use crate::process::{NoisePath, PathSampler};
use crate::rng::{Purpose, rng_for};
use crate::sink::RecordSink;
use crate::util::table::CsvRow;
use rayon::prelude::*;
use serde::{Deserialize, Serialize};

/// Most samples of one run (2³¹ − 1, the cap of `trials` elsewhere): at a
/// few rows each, already hundreds of gigabytes of CSV.
pub const MAX_SAMPLES: u64 = (1 << 31) - 1;

/// Chunks drawn per parallel wave. Sample k depends only on (seed, k), and
/// chunks reach the sink in index order, so the rows never depend on the
/// chunk size or on scheduling.
const WAVE: u64 = 32;

/// One row of `privdiffuse path`'s CSV `sample,eps,v1..vn`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct PathSampleRow {
    /// Sample index k.
    pub sample: u64,
    /// Level ε: a breakpoint, or a requested level.
    pub eps: f64,
    /// The path's value at ε, columns `v1..vn`.
    pub v: Vec<f64>,
}

impl CsvRow for PathSampleRow {
    const VECTOR: Option<&'static str> = Some("v");
}

/// Independent sample paths of one [`PathSampler`]. See the module
/// documentation.
///
/// ```
/// use privdiffuse::paths::PathSamples;
/// use privdiffuse::{Norm, PathSampler};
/// # fn main() -> Result<(), privdiffuse::Error> {
/// let sampler = PathSampler::new(1, Norm::L1, 0.5, 15.0)?;
/// let run = PathSamples::new(sampler).samples(4000).at(vec![1.0, 2.0]).seed(3);
/// let rows = run.rows()?;
/// assert_eq!(rows.len(), 2 * 4000);
/// // The path at ε = 2 is Laplace noise: E V² = 2/ε² (sd of V² √20/ε²).
/// let at2: Vec<f64> = rows.iter().filter(|r| r.eps == 2.0).map(|r| r.v[0]).collect();
/// let msq = at2.iter().map(|v| v * v).sum::<f64>() / 4000.0;
/// assert!((msq - 0.5).abs() < 6.0 * 20f64.sqrt() / 4.0 / 4000f64.sqrt());
/// // Sample 7 alone is the same path.
/// assert_eq!(run.sample(7).value_at(1.0), &rows[14].v[..]);
/// # Ok(()) }
/// ```
#[derive(Clone, Debug)]
pub struct PathSamples {
    sampler: PathSampler,
    samples: u64,
    at: Option<Vec<f64>>,
    seed: u64,
    /// The family the paths are drawn from.
    noise: Noise,
}

impl PathSamples {
    /// One sample of `sampler`'s paths, listed by breakpoints, seed 1.
    pub fn new(sampler: PathSampler) -> Self {
        PathSamples {
            noise: Noise::Laplace(Laplace::of_sampler(&sampler)),
            sampler,
            samples: 1,
            at: None,
            seed: 1,
        }
    }

    /// The noise (issue 25): `laplace` (the default, the f64 sampler) or
    /// `discrete` (the exact integer chain, sensitivity 1, walked from the
    /// rung of `eps_hi` down to the rung of `eps_lo`; rows at rungs, values
    /// on the grid). Fails on options the sampler's norm, dimension or range
    /// refuse.
    pub fn noise(mut self, options: &NoiseOptions) -> Result<Self> {
        let s = &self.sampler;
        let (lo, hi) = s.range();
        self.noise = match options.discrete(1.0, s.dim(), s.norm())? {
            Some(noise) => {
                let d = Discrete::new(noise, s.norm(), options.rng);
                d.level(hi)?;
                d.level(lo)?;
                Noise::Discrete(d)
            }
            None => Noise::Laplace(Laplace::of_sampler(s)),
        };
        Ok(self)
    }

    /// The discrete chain (`None` under `laplace`).
    pub fn discrete_noise(&self) -> Option<&DiscreteNoise> {
        self.noise.discrete().map(Discrete::noise)
    }

    /// What `summary.json`-like records keep of the discrete noise (`None`
    /// under `laplace`).
    pub fn discrete_summary(&self) -> Option<DiscreteSummary> {
        let d = self.noise.discrete()?;
        Some(DiscreteSummary::of(d.noise(), d.rng()))
    }

    /// Sample `k` of a discrete run (`None` under `laplace`): the path of
    /// grid integers drawn from (seed, k) under the run's entropy source.
    pub fn discrete_sample(&self, k: u64) -> Option<Result<DiscretePath>> {
        let d = self.noise.discrete()?;
        Some(self.levels_of(d).and_then(|l| self.sample_of(d, &l, k)))
    }

    /// Number of paths (1 ..= `MAX_SAMPLES`).
    pub fn samples(mut self, samples: u64) -> Self {
        self.samples = samples;
        self
    }

    /// Lists each path at these levels (each in the sampler's range), in
    /// this order, instead of by breakpoints.
    pub fn at(mut self, levels: Vec<f64>) -> Self {
        self.at = Some(levels);
        self
    }

    /// Seed of the generators.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }

    /// The sampler.
    pub fn sampler(&self) -> &PathSampler {
        &self.sampler
    }

    /// The number of paths.
    pub fn sample_count(&self) -> u64 {
        self.samples
    }

    /// The requested levels (`None`: breakpoints).
    pub fn levels(&self) -> Option<&[f64]> {
        self.at.as_deref()
    }

    /// The seed.
    pub fn seed_value(&self) -> u64 {
        self.seed
    }

    /// Sample `k`: the path drawn from `rng_for(seed, k, 0, Purpose::Path)`.
    pub fn sample(&self, k: u64) -> NoisePath {
        self.sampler
            .sample(&mut rng_for(self.seed, k, 0, Purpose::Path))
    }

    /// Expected rows per sample: the requested levels, or the breakpoints
    /// (1 + the expected number of jumps).
    pub fn expected_rows_per_sample(&self) -> f64 {
        match &self.at {
            Some(levels) => levels.len() as f64,
            None => self.sampler.expected_jumps() + 1.0,
        }
    }

    /// Checks `samples`, the levels, and the memory of the samples in flight
    /// against the budget (`limits`): the rows and their CSV text of
    /// `WAVE` chunks (each about 1 MiB of text, or one sample's when that
    /// is larger) and one path per worker thread.
    pub fn validate(&self) -> Result<()> {
        if self.samples == 0 || self.samples > MAX_SAMPLES {
            return Err(Error::param(
                "samples",
                self.samples,
                format!("an integer from 1 to {MAX_SAMPLES}"),
            ));
        }
        let (lo, hi) = self.sampler.range();
        if let Some(levels) = &self.at {
            if levels.is_empty() {
                return Err(Error::param("at", "(none)", "at least one level"));
            }
            if let Some(x) = levels.iter().find(|&&x| !(lo..=hi).contains(&x)) {
                return Err(Error::param(
                    "at",
                    x,
                    format!("a level in [`eps_lo`, `eps_hi`] = [{lo}, {hi}]"),
                ));
            }
        }
        let s = &self.sampler;
        let breakpoints = limits::path_breakpoints(s.norm().jump_rate(s.dim()), lo, hi);
        let rows = match &self.at {
            Some(levels) => levels.len() as u64,
            None => breakpoints,
        };
        let sample_text = bytes_of(&[rows, s.dim() as u64 + 2, 24]);
        let chunk_text = sample_text.max(1 << 20);
        // Rows (8 bytes a number, with their headers) are smaller than
        // their text (24 bytes a number): rows + text + the text in flight.
        let need = bytes_of(&[WAVE, chunk_text, 3]).saturating_add(bytes_of(&[
            limits::path_bytes(breakpoints, s.dim()),
            limits::pool_threads(),
        ]));
        limits::check_memory(
            "dim",
            format!(
                "{} (paths from ε = {} to {})",
                s.dim(),
                limits::fmt_num(lo),
                limits::fmt_num(hi)
            ),
            need,
        )
    }

    /// Draws every sample and hands its rows to `rows`, one wave of chunks
    /// at a time, in sample order (the noise family chosen here, once).
    pub fn run_into(&self, rows: &mut dyn RecordSink<PathSampleRow>) -> Result<()> {
        self.validate()?;
        struct Run<'r, 'w> {
            run: &'r PathSamples,
            rows: &'w mut dyn RecordSink<PathSampleRow>,
        }
        impl Visit for Run<'_, '_> {
            type Out = Result<()>;
            fn run<F: NoiseFamily>(self, fam: &F) -> Result<()> {
                self.run.run_with(fam, self.rows)
            }
        }
        self.noise.visit(Run { run: self, rows })
    }

    fn run_with<F: NoiseFamily>(
        &self,
        fam: &F,
        rows: &mut dyn RecordSink<PathSampleRow>,
    ) -> Result<()> {
        let levels = self.levels_of(fam)?;
        let at = match &self.at {
            Some(l) => Some(
                l.iter()
                    .map(|&e| Ok((e, fam.level(e)?)))
                    .collect::<Result<Vec<_>>>()?,
            ),
            None => None,
        };
        let chunk = self.chunk_size();
        let n_chunks = self.samples.div_ceil(chunk);
        let mut first = 0u64;
        while first < n_chunks {
            let last = (first + WAVE).min(n_chunks);
            let parts: Vec<Vec<PathSampleRow>> = (first..last)
                .into_par_iter()
                .map(|c| {
                    let (from, to) = (c * chunk, ((c + 1) * chunk).min(self.samples));
                    self.chunk_rows(fam, &levels, at.as_deref(), from, to)
                })
                .collect::<Result<_>>()?;
            rows.record_all(parts.into_iter().flatten().collect())?;
            first = last;
        }
        Ok(())
    }

    /// Draws every sample and keeps the rows in memory.
    pub fn rows(&self) -> Result<Vec<PathSampleRow>> {
        let mut rows = Vec::new();
        self.run_into(&mut rows)?;
        Ok(rows)
    }

    /// Samples per chunk: about 1 MiB of CSV text (24 bytes a number), so a
    /// wave holds ≈ 32 MiB even for long high-dimensional paths; at most 4096.
    fn chunk_size(&self) -> u64 {
        let per_sample = self.expected_rows_per_sample() * (self.sampler.dim() as f64 + 2.0) * 24.0;
        ((1u64 << 20) as f64 / per_sample).clamp(1.0, 4096.0) as u64
    }

    /// The levels of the range's ends: `[eps_hi, eps_lo]`'s.
    fn levels_of<F: NoiseFamily>(&self, fam: &F) -> Result<[F::Level; 2]> {
        let (lo, hi) = self.sampler.range();
        Ok([fam.level(hi)?, fam.level(lo)?])
    }

    /// Sample `k`: the path over `levels` drawn from the stream (seed, k, 0,
    /// `Purpose::Path`) of the family's source.
    fn sample_of<F: NoiseFamily>(&self, fam: &F, levels: &[F::Level], k: u64) -> Result<F::Path> {
        let mut path = F::Path::default();
        self.sample_into(fam, levels, k, &mut path)?;
        Ok(path)
    }

    fn sample_into<F: NoiseFamily>(
        &self,
        fam: &F,
        levels: &[F::Level],
        k: u64,
        path: &mut F::Path,
    ) -> Result<()> {
        let mut rng = fam.generator(StreamKey::new(self.seed, k, 0, Purpose::Path))?;
        fam.sample_path(levels, &mut rng, path)
    }

    /// The rows of samples `[from, to)`: each path's breakpoints in
    /// ascending order, or its values at the levels of `at` (each with the
    /// level asked).
    fn chunk_rows<F: NoiseFamily>(
        &self,
        fam: &F,
        levels: &[F::Level],
        at: Option<&[(f64, F::Level)]>,
        from: u64,
        to: u64,
    ) -> Result<Vec<PathSampleRow>> {
        // A hint only: capped so that an extreme range cannot ask for absurd memory.
        let hint = ((to - from) as f64 * self.expected_rows_per_sample()).min((1u64 << 20) as f64);
        let mut out = Vec::with_capacity(hint as usize);
        let mut path = F::Path::default();
        let row = |sample: u64, eps: f64, x: &[F::Coord]| -> Result<PathSampleRow> {
            let mut v = vec![0.0; x.len()];
            fam.noise_value(x, &mut v)?;
            Ok(PathSampleRow { sample, eps, v })
        };
        for k in from..to {
            self.sample_into(fam, levels, k, &mut path)?;
            match at {
                Some(at) => {
                    for &(e, l) in at {
                        out.push(row(k, fam.eps_used(e, l), fam.read(&path, 0, l))?);
                    }
                }
                None => {
                    let mut failed = Ok(());
                    fam.steps(&path, &mut |_, e, x| match row(k, e, x) {
                        Ok(r) => out.push(r),
                        Err(err) => failed = Err(err),
                    })?;
                    failed?;
                }
            }
        }
        Ok(out)
    }
}

#[cfg(test)]
mod discrete_tests;
#[cfg(test)]
mod tests;
