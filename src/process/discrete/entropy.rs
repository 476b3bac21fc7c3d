//! Entropy for the exact samplers: the seeded ChaCha8 streams of
//! [`rng_for`] (simulations: reproducible) or the operating system's
//! generator (releases: not reproducible), behind one [`RngSource`] choice.

use crate::error::{Error, Result};
use crate::rng::{PrivRng, Purpose, rng_for};
use rand::rngs::{ChaCha20Rng, SysRng};
use rand::{SeedableRng, TryCryptoRng, TryRng};
use serde::{Deserialize, Serialize};
use std::convert::Infallible;

/// A generator keyed by the operating system (`getrandom`, rand's `SysRng`):
/// 256 bits from the kernel key a ChaCha20 stream. The kernel's own generator
/// is a ChaCha20 DRBG, so expanding one key in user space has the same
/// security without a system call per word (one per generator). Creating it
/// can fail (no entropy available): that is an [`Error`], never a panic;
/// once created it cannot fail. Create one per owner or per worker thread.
pub struct OsRng {
    inner: ChaCha20Rng,
}

impl OsRng {
    /// A generator keyed by the operating system.
    pub fn new() -> Result<OsRng> {
        ChaCha20Rng::try_from_rng(&mut SysRng)
            .map(|inner| OsRng { inner })
            .map_err(|e| {
                Error::io(
                    "the operating system's random generator",
                    std::io::Error::other(e.to_string()),
                )
            })
    }
}

impl std::fmt::Debug for OsRng {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // Never print the key.
        f.write_str("OsRng")
    }
}

impl TryRng for OsRng {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        self.inner.try_next_u32()
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        self.inner.try_next_u64()
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        self.inner.try_fill_bytes(dst)
    }
}

impl TryCryptoRng for OsRng {}

/// Where the noise's randomness comes from: `seeded` (the default:
/// [`rng_for`] streams, reproducible, for simulations) or `os` (the
/// operating system, for real releases; not reproducible).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum RngSource {
    /// `rng_for(seed, owner, trial, purpose)`.
    #[default]
    Seeded,
    /// [`OsRng`].
    Os,
}

impl RngSource {
    /// The generator of one (seed, owner, trial, purpose) under this source
    /// (the tuple is ignored by `os`).
    pub fn generator(
        self,
        seed: u64,
        owner: u64,
        trial: u64,
        purpose: Purpose,
    ) -> Result<NoiseRng> {
        Ok(match self {
            RngSource::Seeded => NoiseRng::Seeded(rng_for(seed, owner, trial, purpose)),
            RngSource::Os => NoiseRng::Os(OsRng::new()?),
        })
    }
}

impl std::str::FromStr for RngSource {
    type Err = Error;
    fn from_str(s: &str) -> Result<Self> {
        match s.trim().to_ascii_lowercase().as_str() {
            "seeded" => Ok(RngSource::Seeded),
            "os" => Ok(RngSource::Os),
            _ => Err(Error::param("rng", s, "seeded or os")),
        }
    }
}

impl std::fmt::Display for RngSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            RngSource::Seeded => "seeded",
            RngSource::Os => "os",
        })
    }
}

/// The generator of an [`RngSource`]: one type for engines that choose the
/// source at run time.
#[derive(Debug)]
pub enum NoiseRng {
    /// A seeded stream.
    Seeded(PrivRng),
    /// The operating system's.
    Os(OsRng),
}

impl TryRng for NoiseRng {
    type Error = Infallible;
    #[inline]
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        match self {
            NoiseRng::Seeded(r) => r.try_next_u32(),
            NoiseRng::Os(r) => r.try_next_u32(),
        }
    }
    #[inline]
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        match self {
            NoiseRng::Seeded(r) => r.try_next_u64(),
            NoiseRng::Os(r) => r.try_next_u64(),
        }
    }
    fn try_fill_bytes(&mut self, dst: &mut [u8]) -> Result<(), Infallible> {
        match self {
            NoiseRng::Seeded(r) => r.try_fill_bytes(dst),
            NoiseRng::Os(r) => r.try_fill_bytes(dst),
        }
    }
}

impl NoiseRng {
    /// A generator that continues a stored walk: under `rng` = seeded, the
    /// stream `seeded()` at word `pos`; under `os`, a fresh OS generator (a
    /// Markov chain needs nothing else to continue).
    pub fn continued(
        rng: RngSource,
        seeded: impl FnOnce() -> PrivRng,
        pos: u64,
    ) -> Result<NoiseRng> {
        Ok(match rng {
            RngSource::Seeded => {
                let mut r = seeded();
                if pos != 0 {
                    r.set_word_pos(u128::from(pos));
                }
                NoiseRng::Seeded(r)
            }
            RngSource::Os => NoiseRng::Os(OsRng::new()?),
        })
    }

    /// The stream position to store after drawing (`None` for the OS's).
    pub fn word_pos(&self) -> Result<Option<u64>> {
        match self {
            NoiseRng::Seeded(r) => u64::try_from(r.get_word_pos())
                .map(Some)
                .map_err(|_| Error::Numerical("a walk's random stream is exhausted".into())),
            NoiseRng::Os(_) => Ok(None),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn sources_parse_and_generate() {
        assert_eq!("os".parse::<RngSource>().unwrap(), RngSource::Os);
        assert_eq!(" Seeded".parse::<RngSource>().unwrap(), RngSource::Seeded);
        assert!(
            "urandom"
                .parse::<RngSource>()
                .unwrap_err()
                .to_string()
                .contains("seeded or os")
        );
        assert_eq!(RngSource::Os.to_string(), "os");
        let mut a = RngSource::Seeded.generator(1, 2, 3, Purpose::Path).unwrap();
        let mut b = rng_for(1, 2, 3, Purpose::Path);
        assert_eq!(a.next_u64(), b.next_u64());
        // Two OS generators differ (probability 2^-64 of a false failure).
        let mut x = RngSource::Os.generator(0, 0, 0, Purpose::Path).unwrap();
        let mut y = OsRng::new().unwrap();
        assert_ne!(x.next_u64(), y.next_u64());
        assert_eq!(format!("{y:?}"), "OsRng");
    }

    /// The samplers run on the OS generator: a path and 20,000 fresh draws
    /// at t = 1/4 (not reproducible: the mean is within 6 s.e., a false
    /// failure has probability 2e−9).
    #[test]
    fn samplers_run_on_the_os_generator() {
        use crate::process::discrete::{DiscreteNoise, Grid};
        let noise = DiscreteNoise::new(Grid::from_exponent(-2).unwrap(), 32, 1.0, 1).unwrap();
        let mut os = RngSource::Os.generator(0, 0, 0, Purpose::Path).unwrap();
        let (top, bottom) = (noise.rung_of(4.0).unwrap(), noise.rung_of(1.0).unwrap());
        let path = noise.sample_path(top, bottom, &mut os).unwrap();
        assert_eq!(path.bottom(), Some(bottom));
        let k = noise.rung_of(1.0).unwrap();
        let n = 20_000;
        let mut x = [0i64];
        let mut sum = 0.0;
        for _ in 0..n {
            noise.sample_fresh_into(k, &mut os, &mut x).unwrap();
            sum += x[0] as f64;
        }
        let se = (noise.variance(k) / n as f64).sqrt();
        assert!((sum / n as f64).abs() <= 6.0 * se, "{}", sum / n as f64);
    }
}
