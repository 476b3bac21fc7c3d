//! Statistical and exact tests of the discrete chain (memo §5). Every test
//! uses a fixed seed; tolerances are 6 standard errors computed from the
//! sample size (proportions: sqrt(p(1 − p)/N); means: the sample standard
//! deviation over √N), and distribution checks a χ² p-value > 1e−6 over bins
//! with expected counts ≥ 5 (|x| ≤ 6σ, the rest pooled in a tail bin). Each
//! family also shows that its statistic rejects a wrong law.

mod chain_law;
mod coins;
mod posterior;
mod release;

use crate::rng::{PrivRng, Purpose, rng_for};
use std::collections::VecDeque;
use std::convert::Infallible;

const SEED: u64 = 20_261_125;

fn rng(test_id: u64) -> PrivRng {
    rng_for(SEED, test_id, 0, Purpose::Path)
}

/// |estimate − expected| ≤ 6·se.
#[track_caller]
fn assert_within(what: &str, estimate: f64, expected: f64, se: f64) {
    assert!(
        (estimate - expected).abs() <= 6.0 * se,
        "{what}: estimate {estimate}, expected {expected}, 6 s.e. = {}",
        6.0 * se
    );
}

/// A proportion hits/n against p.
#[track_caller]
fn assert_prop(what: &str, hits: u64, n: u64, p: f64) {
    assert_within(
        what,
        hits as f64 / n as f64,
        p,
        (p * (1.0 - p) / n as f64).sqrt(),
    );
}

/// s.e. of a proportion p over n draws.
fn prop_se(p: f64, n: u64) -> f64 {
    (p * (1.0 - p) / n as f64).sqrt()
}

/// χ² p-value of integer draws against a pmf on ℤ: bins x ∈ [−K, K] with
/// K = min(⌈6σ⌉, the largest |x| whose expected count is ≥ 5) and one bin
/// for the rest.
fn chi2_pvalue(draws: &[i64], pmf: impl Fn(i64) -> f64, sigma: f64) -> f64 {
    let n = draws.len() as f64;
    let mut k = (6.0 * sigma).ceil() as i64;
    while k > 0 && n * pmf(k) < 5.0 {
        k -= 1;
    }
    let width = (2 * k + 1) as usize;
    let mut counts = vec![0u64; width + 1];
    for &x in draws {
        if x.abs() <= k {
            counts[(x + k) as usize] += 1;
        } else {
            counts[width] += 1;
        }
    }
    let mut probs: Vec<f64> = (-k..=k).map(&pmf).collect();
    let inside: f64 = probs.iter().sum();
    probs.push((1.0 - inside).max(0.0));
    pvalue(&counts, &probs)
}

/// χ² p-value of counts against probabilities (the last bin may be small:
/// it is merged into its neighbour when its expected count is below 5).
fn pvalue(counts: &[u64], probs: &[f64]) -> f64 {
    let n: u64 = counts.iter().sum();
    let (mut c, mut p) = (counts.to_vec(), probs.to_vec());
    if let (Some(&last), true) = (p.last(), p.len() > 1)
        && last * (n as f64) < 5.0
    {
        let (lc, lp) = (c.pop().unwrap_or(0), p.pop().unwrap_or(0.0));
        *c.last_mut().unwrap() += lc;
        *p.last_mut().unwrap() += lp;
    }
    let stat: f64 = c
        .iter()
        .zip(&p)
        .map(|(&o, &q)| {
            let e = q * n as f64;
            (o as f64 - e).powi(2) / e
        })
        .sum();
    crate::special::gamma_q((c.len() - 1) as f64 / 2.0, stat / 2.0)
}

/// z-tests of P(+x) = P(−x) for 1 ≤ x ≤ 3σ with at least 20 draws at ±x:
/// the count at +x among them is Binomial(·, ½).
#[track_caller]
fn assert_symmetric(what: &str, draws: &[i64], sigma: f64) {
    let kmax = (3.0 * sigma).ceil().max(1.0) as i64;
    let mut counts = vec![[0u64; 2]; kmax as usize + 1];
    for &d in draws {
        if d != 0 && d.abs() <= kmax {
            counts[d.unsigned_abs() as usize][usize::from(d > 0)] += 1;
        }
    }
    for (x, [neg, pos]) in counts.into_iter().enumerate().skip(1) {
        if pos + neg >= 20 {
            assert_prop(&format!("{what}: P(+{x}) = P(−{x})"), pos, pos + neg, 0.5);
        }
    }
}

/// A generator that returns scripted words and fails the test when it runs
/// out: fixes every decision of a sampler.
struct Script {
    words: VecDeque<u64>,
}

impl Script {
    fn new(words: Vec<u64>) -> Self {
        Script {
            words: words.into(),
        }
    }

    fn exhausted(&self) -> bool {
        self.words.is_empty()
    }
}

impl rand::TryRng for Script {
    type Error = Infallible;
    fn try_next_u32(&mut self) -> Result<u32, Infallible> {
        panic!("the samplers draw 64-bit words only")
    }
    fn try_next_u64(&mut self) -> Result<u64, Infallible> {
        Ok(self.words.pop_front().expect("script ran out of words"))
    }
    fn try_fill_bytes(&mut self, _: &mut [u8]) -> Result<(), Infallible> {
        panic!("the samplers draw 64-bit words only")
    }
}

/// The words that make `Nat::uniform_below(n)` return `v < n` at once.
fn words_for(v: u128, n: u128) -> Vec<u64> {
    assert!(v < n);
    if n <= 1 {
        vec![]
    } else if n < 1 << 64 {
        // Lemire: x = ⌊((v + 1)·2^64 − 1)/n⌋ has high product word v and low
        // word ≥ 2^64 − n ≥ 2^64 mod n, so it is accepted.
        vec![((((v + 1) << 64) - 1) / n) as u64]
    } else if n == 1 << 64 {
        vec![v as u64]
    } else {
        vec![v as u64, (v >> 64) as u64]
    }
}
