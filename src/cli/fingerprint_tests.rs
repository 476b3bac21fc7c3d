//! Output-only flags never reach a cluster's fingerprint: two processes may
//! differ in them (the options they do compare are tested in the library).

use crate::fingerprint::Fingerprint;
use clap::Parser;

#[derive(Parser)]
struct Simulate {
    #[command(flatten)]
    args: super::simulate::SimulateArgs,
}

#[derive(Parser)]
struct Collude {
    #[command(flatten)]
    args: super::collude::ColludeArgs,
}

const BASE: [&str; 5] = [
    "x",
    "--graph",
    "data/geometric150.edges",
    "--coalition",
    "far:min-d=3",
];

/// Every output-only flag a cluster's process may set differently.
const OUTPUT_ONLY: [&str; 13] = [
    "--out",
    "elsewhere",
    "--force",
    "--no-plots",
    "--quiet",
    "--cluster",
    "hosts",
    "--process",
    "1",
    "--workers",
    "2",
    "--cluster-timeout",
    "9",
];

fn simulate(more: &[&str]) -> Vec<(String, String)> {
    let a = Simulate::try_parse_from(BASE[..3].iter().chain(more)).unwrap();
    Fingerprint::simulate(&a.args.config().unwrap())
        .unwrap()
        .into_entries()
}

fn collude(more: &[&str]) -> Vec<(String, String)> {
    let a = Collude::try_parse_from(BASE.iter().chain(more)).unwrap();
    Fingerprint::collude(&a.args.config().unwrap())
        .unwrap()
        .into_entries()
}

#[test]
fn output_only_flags_leave_the_fingerprint_alone() {
    assert_eq!(simulate(&[]), simulate(&OUTPUT_ONLY));
    assert_eq!(simulate(&[]), simulate(&["--threads", "1", "--plots"]));
    assert_eq!(collude(&[]), collude(&OUTPUT_ONLY));
    // …and options that matter do change it.
    assert_ne!(simulate(&[]), simulate(&["--seed", "2"]));
    assert_ne!(collude(&[]), collude(&["--trials", "7"]));
}
