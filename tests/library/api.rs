//! The library's builders against the command line: the same description
//! gives the same numbers, value for value, with nothing written to disk.

use crate::support::scratch::scratch;
use privdiffuse::io::write_by_distance;
use privdiffuse::sim::Rows;
use privdiffuse::{
    Coalition, Collusion, EpsilonMap, Error, Estimator, Graph, MechanismChoice, Norm, Owners,
    Simulation,
};
use std::path::Path;
use std::process::Command;

fn cli(args: &[&str]) {
    let o = Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .env_remove("RUST_BACKTRACE")
        .args(args)
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// Bit-equal, NaN equal to NaN.
fn same(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// The contract program of `examples/library.rs`.
fn contract() -> privdiffuse::SimOutput {
    let g = Graph::load("data/geometric150.edges").unwrap();
    let eps = EpsilonMap::exp(3.0, 1.0).unwrap();
    Simulation::new(&g)
        .eps(eps)
        .dim(1)
        .norm(Norm::L1)
        .mechanism(MechanismChoice::Both)
        .owners(Owners::Count(20))
        .seed(5)
        .run()
        .unwrap()
}

#[test]
fn builder_by_distance_equals_the_cli_csv_value_for_value() {
    let out = contract();
    let d = scratch("contract");
    let dir = d.join("run");
    cli(&[
        "simulate",
        "--eps",
        "exp:a=3,b=1",
        "--dim",
        "1",
        "--norm",
        "l1",
        "--mechanism",
        "both",
        "--owners",
        "20",
        "--seed",
        "5",
        "--out",
        dir.to_str().unwrap(),
        "--no-plots",
        "-q",
    ]);
    let csv = std::fs::read_to_string(dir.join("by_distance.csv")).unwrap();
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("mechanism,distance_lo,distance_hi,count,mean_eps,mse,mse_se,mse_theory")
    );
    let rows = out.by_distance();
    let file: Vec<&str> = lines.collect();
    assert_eq!(rows.len(), file.len());
    assert!(rows.len() > 5);
    for (row, line) in rows.iter().zip(&file) {
        let f: Vec<&str> = line.split(',').collect();
        let num = |i: usize| f[i].parse::<f64>().unwrap();
        // The mechanism prints as in the file.
        assert_eq!(row.mechanism.to_string(), f[0]);
        assert!(same(row.distance_lo, num(1)), "{line}");
        assert!(same(row.distance_hi, num(2)), "{line}");
        assert_eq!(row.count, f[3].parse::<u64>().unwrap(), "{line}");
        for (x, i) in [
            (row.mean_eps, 4),
            (row.mse, 5),
            (row.mse_se, 6),
            (row.mse_theory, 7),
        ] {
            assert!(same(x, num(i)), "column {i}: {x} vs {line}");
        }
    }
    assert_eq!(rows[0].mechanism.to_string(), "correlated");
    // And the file the library would write is the file the CLI wrote.
    let mut text = Vec::new();
    write_by_distance(&mut text, rows).unwrap();
    assert_eq!(String::from_utf8(text).unwrap(), csv);
    // Totals and counts are those of summary.json.
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    assert_eq!(summary["counts"]["owners"], out.counts().owners);
    assert_eq!(summary["counts"]["jumps"], out.counts().jumps);
    for (t, s) in out.totals().iter().zip(summary["mse"].as_array().unwrap()) {
        assert_eq!(s["mechanism"], t.mechanism.as_str());
        assert!(same(s["mse"].as_f64().unwrap(), t.mse));
    }
    // The configuration echoes the specs as the command line wrote them.
    assert_eq!(summary["config"]["eps"], out.config().eps.to_string());
    assert_eq!(summary["config"]["owners"], "20");
    std::fs::remove_dir_all(&d).unwrap();
}

/// The rows of a CSV file, read as the figures read it.
fn file_rows<T: privdiffuse::util::table::CsvRow>(path: &Path) -> Vec<T> {
    privdiffuse::util::table::Reader::open(path)
        .unwrap()
        .collect()
        .unwrap()
}

/// Row lists equal value for value (NaN equal to NaN: `Debug` prints floats
/// in shortest round-trip form).
fn same_rows<T: std::fmt::Debug>(a: &[T], b: &[T], what: &str) {
    assert_eq!(a.len(), b.len(), "{what}");
    assert!(!a.is_empty(), "{what}: no rows");
    for (x, y) in a.iter().zip(b) {
        assert_eq!(format!("{x:?}"), format!("{y:?}"), "{what}");
    }
}

#[test]
fn typed_rows_are_the_rows_of_the_files() {
    let g = Graph::load("data/karate.edges").unwrap();
    let out = Simulation::new(&g)
        .eps("exp:a=3,b=1".parse().unwrap())
        .dim(2)
        .owners(Owners::Ids(vec!["0".into(), "33".into()]))
        .keep(Rows::ALL)
        .run()
        .unwrap();
    let d = scratch("typed");
    let dir = d.join("run");
    cli(&[
        "simulate",
        "--graph",
        "data/karate.edges",
        "--eps",
        "exp:a=3,b=1",
        "--dim",
        "2",
        "--owners",
        "0,33",
        "--responses",
        "--out",
        dir.to_str().unwrap(),
        "--no-plots",
        "-q",
    ]);
    let f = |r: Rows| dir.join(r.file_name());
    same_rows(out.jumps().unwrap(), &file_rows(&f(Rows::Jumps)), "jumps");
    same_rows(
        out.owners().unwrap(),
        &file_rows(&f(Rows::Owners)),
        "owners",
    );
    same_rows(out.paths().unwrap(), &file_rows(&f(Rows::Paths)), "paths");
    same_rows(out.ego().unwrap(), &file_rows(&f(Rows::Ego)), "ego");
    let responses = out.responses().unwrap();
    same_rows(responses, &file_rows(&f(Rows::Responses)), "responses");
    assert_eq!(responses[0].y().len(), 2);
    assert_eq!(responses[0].u().len(), 2);
    // 2 owners × 33 recipients × 2 mechanisms.
    assert_eq!(responses.len(), 132);
    std::fs::remove_dir_all(&d).unwrap();

    // Rows that were not kept are an error naming `keep`, not an empty list.
    let out = Simulation::new(&g).owners(Owners::Count(1)).run().unwrap();
    match out.jumps() {
        Err(Error::Parameter { name, .. }) => assert_eq!(name, "keep"),
        other => panic!("{other:?}"),
    }
}

#[test]
fn collusion_builder_equals_collude() {
    let g = Graph::load("data/karate.edges").unwrap();
    let out = Collusion::new(&g)
        .eps(EpsilonMap::exp(2.0, 1.0).unwrap())
        .dim(1)
        .norm(Norm::L1)
        .owners(Owners::Count(3))
        .coalition(Coalition::nearest(3).unwrap())
        .coalition(Coalition::sybil(4, 3.0).unwrap())
        .estimators([Estimator::Best, Estimator::Ivw, Estimator::Pitman])
        .trials(40)
        .seed(3)
        .run()
        .unwrap();
    let d = scratch("collude");
    let dir = d.join("run");
    cli(&[
        "collude",
        "--graph",
        "data/karate.edges",
        "--eps",
        "exp:a=2,b=1",
        "--dim",
        "1",
        "--norm",
        "l1",
        "--owners",
        "3",
        "--coalition",
        "nearest:m=3",
        "--coalition",
        "sybil:m=4,d=3",
        "--estimators",
        "best,ivw,pitman",
        "--trials",
        "40",
        "--seed",
        "3",
        "--out",
        dir.to_str().unwrap(),
        "--no-plots",
        "-q",
    ]);
    let summary: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let pooled = summary["pooled"].as_array().unwrap();
    assert_eq!(pooled.len(), out.pooled().len());
    for (p, s) in out.pooled().iter().zip(pooled) {
        assert_eq!(s["coalition"], p.coalition.as_str());
        assert_eq!(s["estimator"], p.estimator.as_str());
        assert!(same(s["mean_gain"].as_f64().unwrap(), p.mean_gain), "{s}");
        assert!(same(s["mean_mse"].as_f64().unwrap(), p.mean_mse), "{s}");
    }
    assert_eq!(
        summary["config"],
        serde_json::to_value(out.config()).unwrap()
    );
    assert_eq!(out.results().len(), 3 * 2);
    // Typed rows are the rows of the files.
    same_rows(
        out.coalition_rows(),
        &file_rows(&dir.join("coalition.csv")),
        "coalition",
    );
    same_rows(
        out.audit_rows(),
        &file_rows(&dir.join("audit.csv")),
        "audit",
    );
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn a_range_map_is_resolved_by_the_run_and_values_auto_by_the_graph_path() {
    let g = Graph::load("data/geometric150.edges").unwrap();
    assert_eq!(g.source(), Some(Path::new("data/geometric150.edges")));
    let range = EpsilonMap::range(0.5, 15.0).unwrap();
    assert!(range.needs_resolution());
    let out = Simulation::new(&g)
        .eps(range)
        .owners(Owners::Count(5))
        .run()
        .unwrap();
    let (lo, hi) = out.observed_distances().unwrap();
    assert_eq!(out.map().eps(lo), 15.0);
    assert_eq!(out.map().eps(hi), 0.5);
    // dim 2 next to data/geometric150.coords.csv: the coordinates.
    assert_eq!(out.values().to_string(), "coords");
    // A graph built in memory has no file beside it: uniform values.
    let h = Graph::from_index_edges(3, &[(0, 1), (1, 2)], None, false).unwrap();
    let out = Simulation::new(&h).run().unwrap();
    assert_eq!(out.values().to_string(), "uniform:0,1");
}

#[test]
fn invalid_descriptions_fail_at_run_naming_the_parameter() {
    let g = Graph::load("data/karate.edges").unwrap();
    let name = |r: Result<privdiffuse::SimOutput, Error>| match r {
        Err(Error::Parameter { name, .. }) => name,
        Err(e) => panic!("not a parameter error: {e}"),
        Ok(_) => panic!("accepted"),
    };
    let s = || Simulation::new(&g);
    assert_eq!(name(s().owners(Owners::Count(0)).run()), "owners");
    assert_eq!(name(s().owners(Owners::Count(35)).run()), "owners");
    assert_eq!(
        name(s().owners(Owners::Ids(vec!["nobody".into()])).run()),
        "owners"
    );
    assert_eq!(name(s().bins(0).run()), "bins");
    assert_eq!(name(s().dim(0).run()), "dim");
    assert_eq!(name(s().sensitivity(-1.0).run()), "sensitivity");
    assert_eq!(name(s().delta(2.0).run()), "delta");
    assert_eq!(name(s().eps_clamp(Some(2.0), Some(1.0)).run()), "eps_min");
    assert_eq!(
        name(s().unreachable(privdiffuse::sim::Unreachable::Floor).run()),
        "unreachable"
    );
    assert_eq!(
        name(s().eps(EpsilonMap::exp(800.0, 1.0).unwrap()).run()),
        "eps"
    );
    let e = Collusion::new(&g).run().unwrap_err();
    assert!(
        matches!(&e, Error::Parameter { name, .. } if name == "coalition"),
        "{e}"
    );
}

#[test]
fn control_cancels_a_run() {
    let g = Graph::load("data/karate.edges").unwrap();
    let control = privdiffuse::Control::new();
    control.token().cancel();
    let e = Simulation::new(&g).control(control).run().unwrap_err();
    assert!(matches!(e, Error::Cancelled), "{e}");
}

#[test]
fn summarize_output_is_the_summary_json_simulate_writes() {
    // A range map (resolved by the run, observed distances echoed) and the
    // default dim-2 coordinates: every field of summary.json is exercised.
    let g = Graph::load("data/geometric150.edges").unwrap();
    let out = Simulation::new(&g)
        .eps(EpsilonMap::range(0.5, 15.0).unwrap())
        .owners(Owners::Count(7))
        .seed(11)
        .run()
        .unwrap();
    let d = scratch("summary");
    let dir = d.join("run");
    cli(&[
        "simulate",
        "--eps",
        "range:0.5..15",
        "--owners",
        "7",
        "--seed",
        "11",
        "--out",
        dir.to_str().unwrap(),
        "--no-plots",
        "-q",
    ]);
    let file: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("summary.json")).unwrap()).unwrap();
    let ours = serde_json::to_value(privdiffuse::sim::summarize_output(&out, &g)).unwrap();
    assert!(file["eps_map"]["observed_distance_max"].is_number());
    assert_eq!(ours, file);
    std::fs::remove_dir_all(&d).unwrap();
}
