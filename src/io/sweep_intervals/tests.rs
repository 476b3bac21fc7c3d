//! The figure data path of utility sweeps: which points, whiskers, bands,
//! colours and markers a small sweep CSV gives.

use super::*;
use crate::io::sweep_figure::{PlotSpec, SweepFigure, load};
use std::path::PathBuf;

const HEADER: &str =
    "values,b,seed,mechanism,estimator,coalition,metric,distance_lo,distance_hi,value";

/// Writes `rows` (after the header) to a CSV in a fresh directory.
fn csv(rows: &[String]) -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("u.csv");
    let mut text = format!("{HEADER}\n");
    for r in rows {
        text.push_str(r);
        text.push('\n');
    }
    std::fs::write(&p, text).unwrap();
    (dir, p)
}

fn row(b: f64, seed: u64, scheme: &str, metric: &str, value: &str) -> String {
    format!("bits:0.3,{b},{seed},{scheme},,,{metric},,,{value}")
}

fn spec(metric: &str) -> PlotSpec {
    PlotSpec {
        x: "b".into(),
        metrics: vec![metric.into()],
        ..PlotSpec::default()
    }
}

/// Mean and se of (b, scheme), distinct for every pair.
fn mean_se(b: f64, k: usize) -> (f64, f64) {
    (0.01 * (k + 1) as f64 * b, 0.001 * (k + 1) as f64 * b)
}

fn one_seed_rows(schemes: &[&str]) -> Vec<String> {
    let mut rows = Vec::new();
    for b in [0.5, 1.0, 2.0] {
        for (k, s) in schemes.iter().enumerate() {
            let (m, se) = mean_se(b, k);
            rows.push(row(b, 1, s, "utility_mse_all", &m.to_string()));
            rows.push(row(b, 1, s, "utility_mse_all_se", &se.to_string()));
            rows.push(row(
                b,
                1,
                s,
                "utility_mse_all_theory",
                &(m * 0.9).to_string(),
            ));
        }
    }
    rows
}

fn series<'a>(fig: &'a SweepFigure, label_start: &str) -> &'a crate::io::sweep_figure::Series {
    fig.panels[0]
        .series
        .iter()
        .find(|s| s.label.starts_with(label_start))
        .unwrap_or_else(|| panic!("no line {label_start}"))
}

#[test]
fn one_seed_draws_the_replicate_mean_with_whiskers_of_1_96_se() {
    let schemes = ["correlated", "access", "correlated-shrinkage"];
    let (_d, p) = csv(&one_seed_rows(&schemes));
    let fig = load(&p, &spec("utility_mse_all")).unwrap();
    assert_eq!(fig.panels[0].series.len(), 3);
    for (k, name) in schemes.iter().enumerate() {
        let s = series(&fig, &format!("{name}:"));
        let want: Vec<(f64, f64)> = [0.5, 1.0, 2.0]
            .iter()
            .map(|&b| (b, mean_se(b, k).0))
            .collect();
        assert_eq!(s.points, want, "{name}");
        assert!(s.band.is_empty(), "one seed: no band over seeds");
        assert_eq!(s.whiskers.len(), 3);
        for (&(x, lo, hi), &b) in s.whiskers.iter().zip(&[0.5, 1.0, 2.0]) {
            let (m, se) = mean_se(b, k);
            assert_eq!(x, b);
            assert!((lo - (m - 1.96 * se)).abs() < 1e-15 && (hi - (m + 1.96 * se)).abs() < 1e-15);
        }
        assert_eq!(s.theory.len(), 3, "theory dashed as before");
    }
    assert!(
        fig.note.contains("whiskers: ± 1.96 SE over the replicates"),
        "{}",
        fig.note
    );
}

#[test]
fn a_missing_se_draws_the_point_without_whisker_and_other_metrics_get_none() {
    let mut rows = one_seed_rows(&["correlated"]);
    // b = 1: the se row says NaN (no standard error), b = 2: no se row.
    rows.retain(|r| !(r.starts_with("bits:0.3,2,") && r.contains("_se,")));
    for r in rows.iter_mut() {
        if r.starts_with("bits:0.3,1,") && r.contains("utility_mse_all_se") {
            *r = row(1.0, 1, "correlated", "utility_mse_all_se", "NaN");
        }
    }
    // A simulate metric with an se companion: no replicate whiskers.
    rows.push(row(1.0, 1, "correlated", "mse_all", "0.5"));
    rows.push(row(2.0, 1, "correlated", "mse_all", "0.6"));
    rows.push(row(1.0, 1, "correlated", "mse_all_se", "0.1"));
    let (_d, p) = csv(&rows);
    let fig = load(&p, &spec("utility_mse_all")).unwrap();
    let s = series(&fig, "MSE of every recipient");
    assert_eq!(s.points.len(), 3);
    assert_eq!(s.whiskers.len(), 1);
    assert_eq!(s.whiskers[0].0, 0.5);
    let fig = load(&p, &spec("mse_all")).unwrap();
    assert!(fig.panels[0].series.iter().all(|s| s.whiskers.is_empty()));
    assert!(fig.note.is_empty(), "{}", fig.note);
}

#[test]
fn pooled_seeds_give_the_band_over_seeds_and_say_so() {
    let mut rows = Vec::new();
    for seed in [1, 2, 3] {
        for b in [0.5, 1.0] {
            let m = 0.1 * b + 0.01 * seed as f64;
            rows.push(row(
                b,
                seed,
                "independent",
                "utility_mse_all",
                &m.to_string(),
            ));
            rows.push(row(b, seed, "independent", "utility_mse_all_se", "0.001"));
        }
    }
    let (_d, p) = csv(&rows);
    let fig = load(&p, &spec("utility_mse_all")).unwrap();
    let s = series(&fig, "MSE of every recipient");
    assert!(
        s.whiskers.is_empty(),
        "seeds pooled: the interval is over seeds"
    );
    assert_eq!(s.band.len(), 2);
    // Mean 0.1·b + 0.02, sd over seeds 0.01: half-width t(0.975, 2)·0.01/√3.
    let h = crate::io::sweep_summary::t975(2) * 0.01 / 3f64.sqrt();
    for &(x, lo, hi) in &s.band {
        let m = 0.1 * x + 0.02;
        assert!((lo - (m - h)).abs() < 1e-12 && (hi - (m + h)).abs() < 1e-12);
    }
    assert!(
        fig.note
            .contains("mean over 3 seeds (each a mean over its replicates)")
    );
    assert!(
        fig.note.contains("95% interval over the seeds"),
        "{}",
        fig.note
    );
}

#[test]
fn every_scheme_has_its_own_colour_marker_and_estimator_whatever_the_order() {
    let names: Vec<&str> = SCHEMES.iter().map(|s| s.name).collect();
    let mut colors: Vec<usize> = SCHEMES.iter().map(|s| s.color).collect();
    let mut markers: Vec<usize> = SCHEMES.iter().map(|s| s.marker).collect();
    colors.sort();
    colors.dedup();
    markers.sort();
    markers.dedup();
    assert_eq!((colors.len(), markers.len()), (7, 7));
    assert!(
        colors.iter().all(|&c| c < 7),
        "never the yellow of the palette"
    );
    let mut reversed = names.clone();
    reversed.reverse();
    for order in [names.clone(), reversed] {
        let (_d, p) = csv(&one_seed_rows(&order));
        let fig = load(&p, &spec("utility_mse_all")).unwrap();
        assert_eq!(fig.panels[0].series.len(), 7);
        for st in &SCHEMES {
            let s = series(&fig, &format!("{}:", st.name));
            assert_eq!(s.label, format!("{}: {}", st.name, st.estimator));
            assert_eq!((s.color, s.shade, s.marker), (st.color, None, st.marker));
        }
    }
    // Not utility rows: the mechanisms keep the colours of other figures.
    let mut rows = Vec::new();
    for b in [0.5, 1.0] {
        rows.push(row(b, 1, "independent", "mse_all", "0.2"));
        rows.push(row(b, 1, "correlated", "mse_all", "0.1"));
    }
    let (_d, p) = csv(&rows);
    let fig = load(&p, &spec("mse_all")).unwrap();
    assert_eq!(fig.labels(0), ["independent", "correlated"]);
    assert_eq!(series(&fig, "independent").color, 1);
}

#[test]
fn non_finite_or_negative_standard_errors_are_refused_with_file_and_line() {
    for (bad, line_word) in [("inf", "value"), ("-0.5", "standard error ≥ 0")] {
        let mut rows = one_seed_rows(&["correlated"]);
        rows[4] = row(1.0, 1, "correlated", "utility_mse_all_se", bad);
        let (_d, p) = csv(&rows);
        let e = load(&p, &spec("utility_mse_all")).unwrap_err().to_string();
        // rows[4] is the CSV's line 6 (after the header).
        assert!(e.contains("u.csv:6: "), "{e}");
        assert!(e.contains(line_word), "{e}");
        assert_eq!(e.lines().count(), 1, "{e}");
    }
}
