//! `privdiffuse path`: sample paths of the lazy Laplace process and print them
//! as CSV (`sample,eps,v1..vn`), either as breakpoint lists or at given levels.
//!
//! Sample `k` is drawn from `rng_for(seed, k, 0, Purpose::Path)`, so any sample
//! can be reproduced alone and the output does not depend on the thread count:
//! chunks of samples are formatted in parallel and written in order.

use privdiffuse::Error;
use privdiffuse::process::{NoisePath, Norm, PathSampler};
use privdiffuse::rng::{Purpose, rng_for};
use privdiffuse::util::write_f64;
use rayon::prelude::*;
use std::fmt::Write as _;
use std::io::Write as _;
use std::path::PathBuf;

/// Sample paths of the lazy Laplace process {V_ε} (CSV to stdout or --out).
///
/// V_ε has the optimal noise at every privacy level ε (Laplace with scale 1/ε,
/// or density ∝ e^{−ε‖v‖} in n dimensions) and changes only at the random
/// levels where it jumps, so the noise at a lower ε is the noise at a higher ε
/// plus independent extra noise. Each sample is one exact path on
/// [eps-lo, eps-hi], drawn from the top level downwards with no discretisation.
///
/// Output: `sample,eps,v1,...,vn`. Without --at, one row per breakpoint in
/// ascending ε (the first at eps-lo); a row's value holds from its ε up to the
/// next row's ε (the last row's up to eps-hi). With --at, one row per sample and
/// requested level, in the order given; levels between which the path did not
/// jump give bit-identical values.
#[derive(Debug, clap::Args)]
#[command(
    after_help = "Example (three 1-D paths, each read at ε = 0.5, 1 and 15):\n  \
    privdiffuse path --dim 1 --norm l1 --eps-lo 0.5 --eps-hi 15 --samples 3 --at 0.5,1,15"
)]
pub struct PathArgs {
    /// Dimension n of the noise vector (integer ≥ 1).
    #[arg(long, value_name = "N", allow_negative_numbers = true)]
    pub dim: String,

    /// Norm of the privacy metric: `l1` (n independent 1-D processes) or `l2`
    /// (density ∝ e^{−ε‖v‖₂}).
    #[arg(long, value_name = "l1|l2")]
    pub norm: String,

    /// Lowest privacy level of the path (finite, > 0).
    #[arg(long = "eps-lo", value_name = "A", allow_negative_numbers = true)]
    pub eps_lo: String,

    /// Highest privacy level of the path (finite, ≥ eps-lo).
    #[arg(long = "eps-hi", value_name = "B", allow_negative_numbers = true)]
    pub eps_hi: String,

    /// Number of independent paths (integer ≥ 1); sample k uses generator
    /// (seed, owner = k).
    #[arg(
        long,
        value_name = "K",
        default_value = "1",
        allow_negative_numbers = true
    )]
    pub samples: String,

    /// Comma-separated levels to print instead of the breakpoints, each in
    /// [eps-lo, eps-hi], e.g. `0.5,1,15`.
    #[arg(long, value_name = "E1,E2,...", allow_hyphen_values = true)]
    pub at: Option<String>,

    /// Seed of the random generators (unsigned 64-bit integer).
    #[arg(
        long,
        value_name = "S",
        default_value = "1",
        allow_negative_numbers = true
    )]
    pub seed: String,

    /// Output CSV file (written atomically; an existing FILE is refused
    /// without --force); default or `-`: standard output.
    #[arg(long, value_name = "FILE")]
    pub out: Option<PathBuf>,

    /// Replace --out if it exists.
    #[arg(long)]
    pub force: bool,
}

/// The validated request.
#[derive(Clone, Debug, PartialEq)]
struct PathConfig {
    sampler: PathSampler,
    samples: u64,
    at: Option<Vec<f64>>,
    seed: u64,
}

fn parse_level(name: &str, text: &str) -> privdiffuse::Result<f64> {
    use privdiffuse::limits::{LEVEL_MAX, LEVEL_MIN};
    match text.trim().parse::<f64>() {
        Ok(x) if (LEVEL_MIN..=LEVEL_MAX).contains(&x) => Ok(x),
        Ok(x) if x.is_finite() && x > 0.0 => Err(Error::param(
            name,
            text,
            format!(
                "a level within [{LEVEL_MIN:e}, {LEVEL_MAX:e}] (beyond, the noise overflows or \
                 vanishes)"
            ),
        )),
        _ => Err(Error::param(name, text, "a finite number > 0")),
    }
}

fn parse_count(name: &str, text: &str) -> privdiffuse::Result<u64> {
    match text.trim().parse::<u64>() {
        Ok(k) if k >= 1 => Ok(k),
        _ => Err(Error::param(name, text, "an integer ≥ 1")),
    }
}

impl PathConfig {
    /// Checks every argument, naming the flag in the error.
    fn from_args(a: &PathArgs) -> privdiffuse::Result<PathConfig> {
        let dim = parse_count("--dim", &a.dim)?;
        let dim =
            usize::try_from(dim).map_err(|_| Error::param("--dim", &a.dim, "a smaller integer"))?;
        privdiffuse::process::check_dim("--dim", dim)?;
        let norm: Norm = a
            .norm
            .parse()
            .map_err(|_| Error::param("--norm", &a.norm, "l1 or l2"))?;
        let eps_lo = parse_level("--eps-lo", &a.eps_lo)?;
        let eps_hi = parse_level("--eps-hi", &a.eps_hi)?;
        if eps_lo > eps_hi {
            return Err(Error::param(
                "--eps-lo",
                &a.eps_lo,
                format!("a level ≤ --eps-hi ({})", a.eps_hi.trim()),
            ));
        }
        let samples = parse_count("--samples", &a.samples)?;
        let seed = a
            .seed
            .trim()
            .parse::<u64>()
            .map_err(|_| Error::param("--seed", &a.seed, "an unsigned 64-bit integer"))?;
        let at = match &a.at {
            None => None,
            Some(list) => {
                let mut levels = Vec::new();
                for item in list.split(',') {
                    let x = parse_level("--at", item).map_err(|_| {
                        Error::param(
                            "--at",
                            list,
                            format!(
                                "comma-separated finite levels in [{eps_lo}, {eps_hi}] \
                                 (bad item '{}')",
                                item.trim()
                            ),
                        )
                    })?;
                    if x < eps_lo || x > eps_hi {
                        return Err(Error::param(
                            "--at",
                            item,
                            format!("a level in [--eps-lo, --eps-hi] = [{eps_lo}, {eps_hi}]"),
                        ));
                    }
                    levels.push(x);
                }
                Some(levels)
            }
        };
        let sampler = PathSampler::new(dim, norm, eps_lo, eps_hi)?;
        let cfg = PathConfig {
            sampler,
            samples,
            at,
            seed,
        };
        cfg.check_memory()?;
        Ok(cfg)
    }

    /// Refuses a request whose samples in flight need more than the memory
    /// budget: the CSV text of [`WAVE`] chunks (each about 1 MiB, or one
    /// sample's text when that is larger) and one path per worker thread.
    fn check_memory(&self) -> privdiffuse::Result<()> {
        use privdiffuse::limits::{self, bytes_of};
        let s = &self.sampler;
        let (lo, hi) = s.range();
        let breakpoints = limits::path_breakpoints(s.norm().jump_rate(s.dim()), lo, hi);
        let rows = match &self.at {
            Some(levels) => levels.len() as u64,
            None => breakpoints,
        };
        let sample_text = bytes_of(&[rows, s.dim() as u64 + 2, 24]);
        let chunk_text = sample_text.max(1 << 20);
        let need = bytes_of(&[WAVE, chunk_text, 2]).saturating_add(bytes_of(&[
            limits::path_bytes(breakpoints, s.dim()),
            limits::pool_threads(),
        ]));
        limits::check_memory(
            "--dim",
            format!(
                "{} (paths from --eps-lo {} to --eps-hi {})",
                s.dim(),
                limits::fmt_num(lo),
                limits::fmt_num(hi)
            ),
            need,
        )
    }
}

/// Chunks formatted per parallel wave. Sample k depends only on (seed, k), and
/// chunks are written in index order, so the output never depends on the
/// chunk size or on scheduling.
const WAVE: u64 = 32;

/// Expected CSV bytes per sample (≈ 24 bytes per field).
fn bytes_per_sample(cfg: &PathConfig) -> f64 {
    let rows = match &cfg.at {
        Some(levels) => levels.len() as f64,
        None => cfg.sampler.expected_jumps() + 1.0,
    };
    rows * (cfg.sampler.dim() as f64 + 2.0) * 24.0
}

/// Samples per chunk: about 1 MB of CSV (so a wave buffers ≈ 32 MB even for
/// long high-dimensional paths), at most 4096.
fn chunk_size(cfg: &PathConfig) -> u64 {
    ((1u64 << 20) as f64 / bytes_per_sample(cfg)).clamp(1.0, 4096.0) as u64
}

/// Appends the non-negative integer `k` (faster than `write!` in the hot loop).
#[inline]
fn push_u64(out: &mut String, mut k: u64) {
    let mut buf = [0u8; 20];
    let mut i = buf.len();
    loop {
        i -= 1;
        buf[i] = b'0' + (k % 10) as u8;
        k /= 10;
        if k == 0 {
            break;
        }
    }
    // Only ASCII digits were written.
    out.push_str(std::str::from_utf8(&buf[i..]).unwrap_or("0"));
}

#[inline]
fn push_values(out: &mut String, v: &[f64]) {
    for &x in v {
        out.push(',');
        write_f64(out, x);
    }
    out.push('\n');
}

/// Formats samples `[from, to)` into one CSV fragment.
fn format_chunk(cfg: &PathConfig, at_text: &[String], from: u64, to: u64) -> String {
    let s = &cfg.sampler;
    // A hint only: capped so that an extreme range cannot ask for absurd memory.
    let hint = ((to - from) as f64 * bytes_per_sample(cfg)).min((1u64 << 26) as f64);
    let mut out = String::with_capacity(hint as usize);
    let mut path = NoisePath::empty(s.dim());
    for k in from..to {
        let mut rng = rng_for(cfg.seed, k, 0, Purpose::Path);
        s.sample_into(&mut rng, &mut path);
        match &cfg.at {
            Some(levels) => {
                for (&e, text) in levels.iter().zip(at_text) {
                    push_u64(&mut out, k);
                    out.push_str(text);
                    push_values(&mut out, path.value_at(e));
                }
            }
            None => {
                for (e, v) in path.breakpoints() {
                    push_u64(&mut out, k);
                    out.push(',');
                    write_f64(&mut out, e);
                    push_values(&mut out, v);
                }
            }
        }
    }
    out
}

/// Runs `privdiffuse path`.
pub fn run(args: PathArgs) -> anyhow::Result<()> {
    let cfg = PathConfig::from_args(&args)?;
    let dest = args.out.clone();
    let out_name = dest
        .as_ref()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "<stdout>".into());
    let mut out = super::Output::open(dest.as_deref(), args.force)?;
    // The sidecar `FILE.json` (eps_lo, eps_hi, …) of a file output, claimed
    // with it: `plot --kind path` draws every path up to eps_hi from it.
    // Only beside a regular file: `--out /dev/null` or a FIFO gets none.
    let regular = |p: &&std::path::Path| match std::fs::metadata(p) {
        Ok(m) => m.is_file(),
        Err(_) => true,
    };
    let mut sidecar = match dest
        .as_deref()
        .filter(|p| p.as_os_str() != "-")
        .filter(regular)
    {
        Some(p) => {
            let json = privdiffuse::io::plot::path::sidecar_path(p);
            let f = privdiffuse::util::AtomicFile::create_with(
                &json,
                privdiffuse::util::Existing::for_out(true, args.force),
            )
            .map_err(Error::from)?;
            Some((json, f))
        }
        None => None,
    };

    let mut header = String::from("sample,eps");
    for i in 1..=cfg.sampler.dim() {
        let _ = write!(header, ",v{i}");
    }
    header.push('\n');
    out.write_all(header.as_bytes())
        .map_err(|e| Error::io(&out_name, e))?;

    // ",eps" text of each requested level, formatted once.
    let at_text: Vec<String> = cfg
        .at
        .iter()
        .flatten()
        .map(|&e| {
            let mut t = String::from(",");
            write_f64(&mut t, e);
            t
        })
        .collect();

    let chunk = chunk_size(&cfg);
    let n_chunks = cfg.samples.div_ceil(chunk);
    let mut first = 0u64;
    while first < n_chunks {
        let last = (first + WAVE).min(n_chunks);
        let parts: Vec<String> = (first..last)
            .into_par_iter()
            .map(|c| {
                let from = c * chunk;
                let to = (from + chunk).min(cfg.samples);
                format_chunk(&cfg, &at_text, from, to)
            })
            .collect();
        for p in &parts {
            out.write_all(p.as_bytes())
                .map_err(|e| Error::io(&out_name, e))?;
        }
        first = last;
    }
    if let Some((json, f)) = sidecar.as_mut() {
        let meta = serde_json::json!({
            "tool": "privdiffuse path",
            "version": env!("CARGO_PKG_VERSION"),
            "eps_lo": parse_level("--eps-lo", &args.eps_lo)?,
            "eps_hi": parse_level("--eps-hi", &args.eps_hi)?,
            "dim": cfg.sampler.dim(),
            "norm": args.norm.trim(),
            "samples": cfg.samples,
            "at": cfg.at,
            "seed": cfg.seed,
        });
        let text = serde_json::to_string_pretty(&meta).map_err(|e| Error::io(&*json, e.into()))?;
        writeln!(f, "{text}").map_err(|e| Error::io(&*json, e))?;
    }
    out.finish()?;
    if let Some((_, f)) = sidecar {
        f.commit().map_err(Error::from)?;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(dim: &str, norm: &str, lo: &str, hi: &str, at: Option<&str>) -> PathArgs {
        PathArgs {
            dim: dim.into(),
            norm: norm.into(),
            eps_lo: lo.into(),
            eps_hi: hi.into(),
            samples: "2".into(),
            at: at.map(Into::into),
            seed: "1".into(),
            out: None,
            force: false,
        }
    }

    fn err_name(a: PathArgs) -> String {
        match PathConfig::from_args(&a) {
            Err(Error::Parameter { name, .. }) => name,
            other => panic!("expected a parameter error, got {other:?}"),
        }
    }

    #[test]
    fn validation_names_the_flag() {
        assert_eq!(err_name(args("0", "l1", "1", "2", None)), "--dim");
        assert_eq!(err_name(args("x", "l1", "1", "2", None)), "--dim");
        assert_eq!(err_name(args("1", "l3", "1", "2", None)), "--norm");
        assert_eq!(err_name(args("1", "l1", "0", "2", None)), "--eps-lo");
        assert_eq!(err_name(args("1", "l1", "NaN", "2", None)), "--eps-lo");
        assert_eq!(err_name(args("1", "l1", "1", "inf", None)), "--eps-hi");
        assert_eq!(err_name(args("1", "l1", "3", "2", None)), "--eps-lo");
        assert_eq!(err_name(args("1", "l1", "1", "2", Some("1,,2"))), "--at");
        assert_eq!(err_name(args("1", "l1", "1", "2", Some("3"))), "--at");
        let ok = PathConfig::from_args(&args("2", "L2", "0.5", "15", Some("15,0.5"))).unwrap();
        assert_eq!(ok.at, Some(vec![15.0, 0.5]));
    }

    #[test]
    fn integers_print_like_display() {
        for k in [0u64, 7, 10, 4096, u64::MAX] {
            let mut s = String::new();
            push_u64(&mut s, k);
            assert_eq!(s, k.to_string());
        }
    }
}
