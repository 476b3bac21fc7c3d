//! Coalitions against the correlated and the independent mechanism, through
//! the library: a distant crowd and a sybil attack on the karate club. Under
//! correlated noise no estimator beats the best member (gain ≤ 1); under
//! independent noise pooling wins.
//!
//! cargo run --release --no-default-features --example collude

use privdiffuse::{Coalition, Collusion, EpsilonMap, Estimator, Graph, Norm, Owners};

fn main() -> privdiffuse::Result<()> {
    let g = Graph::load("data/karate.edges")?;
    let out = Collusion::new(&g)
        .eps(EpsilonMap::exp(3.0, 1.0)?)
        .dim(1)
        .norm(Norm::L1)
        .owners(Owners::Count(8))
        .coalition(Coalition::far(3.0)?)
        .coalition(Coalition::sybil(20, 4.0)?)
        .estimators([Estimator::Best, Estimator::Ivw, Estimator::Pitman])
        .trials(300)
        .run()?;
    println!(
        "{:<14} {:<12} {:<7} {:>9} {:>7}",
        "coalition", "mechanism", "pooled", "mean gain", "owners"
    );
    for p in out.pooled() {
        println!(
            "{:<14} {:<12} {:<7} {:>9.3} {:>7}",
            p.coalition, p.mechanism, p.estimator, p.mean_gain, p.owners
        );
    }
    Ok(())
}
