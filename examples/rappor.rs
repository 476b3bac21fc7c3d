//! A RAPPOR-style randomized bit as a thresholded Laplace mechanism, relaxed
//! in steps (seed paper 000 §4.1).
//!
//! Each user holds a bit b and reports r = 1{b + V_ε ≥ 1/2}: an ε-DP
//! randomized response with keep probability p = 1 − e^{−ε/2}/2. With one
//! lazy Laplace path per user the server can later ask for the same bit at a
//! looser ε: each user's reports together are only max-ε private, and the
//! estimate of the population frequency f improves at every step. Unbiased
//! estimate: f̂ = (mean r − (1 − p)) / (2p − 1).
//! Run: `cargo run --release --example rappor`

use privdiffuse::process::ReleaseNoise;
use privdiffuse::{GradualRelease, Norm};
use privdiffuse::{Purpose, rng_for};
use rand::RngExt;

fn main() -> privdiffuse::Result<()> {
    let (users, f_true, seed) = (50_000u64, 0.3, 7);
    let levels = [0.1, 0.25, 0.5, 1.0, 2.0, 4.0];
    let mech = ReleaseNoise::Laplace { norm: Norm::L1 };
    let mut ones = [0u64; 6];
    let mut flips = [0u64; 6];
    let mut pop = rng_for(seed, 0, 0, Purpose::Values);
    for user in 0..users {
        let bit = if pop.random::<f64>() < f_true {
            1.0
        } else {
            0.0
        };
        let mut secret = GradualRelease::new(vec![bit], mech, 1.0, seed)?.with_stream(user);
        let mut last = None;
        for (i, &eps) in levels.iter().enumerate() {
            let report = secret.release(eps)?[0] >= 0.5;
            ones[i] += report as u64;
            flips[i] += (last.is_some_and(|l| l != report)) as u64;
            last = Some(report);
        }
    }
    let true_f = {
        let mut pop = rng_for(seed, 0, 0, Purpose::Values);
        (0..users).filter(|_| pop.random::<f64>() < f_true).count() as f64 / users as f64
    };
    println!("{users} users, true frequency {true_f:.4}");
    println!("   eps  keep p   estimate  |error|  s.e.    reports changed");
    for (i, &eps) in levels.iter().enumerate() {
        let p = 1.0 - 0.5 * f64::exp(-eps / 2.0);
        let m = ones[i] as f64 / users as f64;
        let est = (m - (1.0 - p)) / (2.0 * p - 1.0);
        let se = (m * (1.0 - m) / users as f64).sqrt() / (2.0 * p - 1.0);
        let changed = match i {
            0 => "-".to_string(),
            _ => format!("{:.2}%", 100.0 * flips[i] as f64 / users as f64),
        };
        let err = (est - true_f).abs();
        println!("{eps:6} {p:7.4} {est:10.4} {err:8.4} {se:7.4} {changed:>9}");
    }
    Ok(())
}
