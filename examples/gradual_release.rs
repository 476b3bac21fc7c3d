//! Relax one secret 0.5 → 1 → 2 → 4 and compare with the composition baseline.
//!
//! Lazy release: each answer is as accurate as a single release at its ε and
//! the four answers together are only 4-private. Composition: fresh noise
//! with budget ε_i − ε_(i−1) at step i, combined by inverse-variance weights,
//! reaches the same total ε = 4 with a larger error.
//! Run: `cargo run --release --example gradual_release`

use privdiffuse::process::ReleaseNoise;
use privdiffuse::{GradualRelease, Norm};
use privdiffuse::{Purpose, rng_for};

fn main() -> privdiffuse::Result<()> {
    let (u, levels, trials) = (3.0, [0.5, 1.0, 2.0, 4.0], 20_000u64);
    let mech = ReleaseNoise::Laplace { norm: Norm::L1 };
    let (mut lazy, mut comp) = ([0.0; 4], [0.0; 4]);
    for t in 0..trials {
        let mut secret = GradualRelease::new(vec![u], mech, 1.0, 42)?.with_stream(t);
        let (mut num, mut den, mut prev) = (0.0, 0.0, 0.0);
        for (i, &eps) in levels.iter().enumerate() {
            let y = secret.release(eps)?[0];
            lazy[i] += (y - u).powi(2);
            // Composition baseline: fresh noise with the budget increment.
            let budget = eps - prev;
            prev = eps;
            let mut z = [0.0];
            let mut rng = rng_for(42, t, i as u64, Purpose::Independent);
            mech.fresh_noise(budget, 1.0, &mut z, &mut rng)?;
            let w = 1.0 / mech.single_release_mse(budget, 1, 1.0)?;
            num += w * (u + z[0]);
            den += w;
            comp[i] += (num / den - u).powi(2);
        }
        assert_eq!(secret.privacy_level(), Some(4.0));
    }
    println!("  eps   lazy MSE   optimum 2/ε²   composition MSE");
    for (i, &eps) in levels.iter().enumerate() {
        println!(
            "{eps:5} {:10.4} {:14.4} {:17.4}",
            lazy[i] / trials as f64,
            mech.single_release_mse(eps, 1, 1.0)?,
            comp[i] / trials as f64
        );
    }
    Ok(())
}
