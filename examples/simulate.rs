//! The thesis' synthetic experiment through the library API: the bundled
//! 150-node geometric graph, hop distance, ε from 15 (nearest) to 0.5
//! (farthest), 2-D private positions, ℓ2 noise, correlated vs independent —
//! every default of `Simulation`, as of `privdiffuse simulate`.
//!
//! cargo run --release --example simulate

use privdiffuse::{Graph, Simulation};

fn main() -> privdiffuse::Result<()> {
    let graph = Graph::load("data/geometric150.edges")?;
    let out = Simulation::new(&graph).run()?;
    println!("privacy map: {}", out.map());
    println!(
        "{:<12} {:>4} {:>7} {:>9} {:>9} {:>9}",
        "mechanism", "hop", "mean ε", "MSE", "± s.e.", "theory"
    );
    for r in out.by_distance() {
        println!(
            "{:<12} {:>4} {:>7.3} {:>9.4} {:>9.4} {:>9.4}",
            r.mechanism, r.distance_lo, r.mean_eps, r.mse, r.mse_se, r.mse_theory
        );
    }
    let c = out.counts();
    println!(
        "{} owners, {} answers, {:.2} jumps per path (theory {:.2})",
        c.owners,
        c.responses,
        c.jumps as f64 / c.owners as f64,
        c.jumps_expected / c.owners as f64
    );
    Ok(())
}
