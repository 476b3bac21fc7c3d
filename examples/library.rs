//! privdiffuse as a library: a simulation described by typed values, run in
//! memory. The numbers are those of
//! `privdiffuse simulate --eps exp:a=3,b=1 --dim 1 --norm l1 --mechanism both --owners 20 --seed 5`
//! (its `by_distance.csv`), without the command line or any file written.
//!
//! cargo run --no-default-features --example library

use privdiffuse::{EpsilonMap, Graph, MechanismChoice, Norm, Owners, Simulation};

fn main() -> Result<(), privdiffuse::Error> {
    let g = Graph::load("data/geometric150.edges")?; // same loader as --graph
    let eps = EpsilonMap::exp(3.0, 1.0)?;
    let out = Simulation::new(&g) // hop distance by default
        .eps(eps)
        .dim(1)
        .norm(Norm::L1)
        .mechanism(MechanismChoice::Both)
        .owners(Owners::Count(20))
        .seed(5)
        .run()?; // no files written
    for row in out.by_distance() {
        println!(
            "{} {} {} {}",
            row.mechanism, row.distance_lo, row.mse, row.mse_theory
        );
    }
    Ok(())
}
