//! What `plot` reads is bounded and checked: a file of more than
//! `MAX_ROWS` rows is refused at the first row beyond (and skipped, not
//! fatal, among a run's own figures), and the sweep figure refuses
//! non-finite numbers and numbers beyond ±1e300 as every other kind does,
//! naming the file, the line and the column.

use super::common::{scratch, write_run};
use privdiffuse::io::plot::{self, Kind, PlotOptions, data::MAX_ROWS};
use std::fmt::Write as _;
use std::path::Path;

#[test]
fn a_file_beyond_the_row_cap_is_refused_at_its_first_row_beyond() {
    let dir = scratch("row-cap");
    write_run(&dir);
    // MAX_ROWS + 1 short rows of a real owner (≈ 42 MB).
    let mut text = String::with_capacity(12 * (MAX_ROWS + 2));
    text.push_str("owner,replicate,eps,distance,jump_norm\n");
    for _ in 0..=MAX_ROWS {
        text.push_str("100,0,1,1,1\n");
    }
    std::fs::write(dir.join("jumps.csv"), &text).unwrap();
    drop(text);
    let out = dir.join("j.png");
    let opts = PlotOptions {
        width: 300,
        height: 200,
        ..PlotOptions::default()
    };
    let e = plot::draw(Kind::Jumps, &dir, &out, &opts)
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        format!(
            "{}:{}: more than {MAX_ROWS} rows: a figure reads at most this many rows of a \
             file (draw a smaller run, or a part of the file)",
            dir.join("jumps.csv").display(),
            MAX_ROWS + 2
        )
    );
    assert!(!out.exists());
    // A run's own figures skip it and draw the rest.
    let written = plot::draw_default_figures(&dir, &[Kind::Jumps, Kind::Error]).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    assert_eq!(names, ["error.png", "error.svg"]);
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `decay.csv` with the last cell (`value`) or the 7th (`distance_lo`) of
/// data line 2 replaced by `value`.
fn tampered(into: &Path, column: usize, value: &str) {
    let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("results/sweeps/decay.csv");
    let text = std::fs::read_to_string(src).unwrap();
    let mut out = String::new();
    for (i, l) in text.lines().enumerate() {
        if i == 1 {
            // The key cell `"exp:a=3,b=0.25"` is quoted: split the tail.
            let (keys, tail) = l.split_at(l.find("\",").unwrap() + 2);
            let mut cells: Vec<&str> = tail.split(',').collect();
            let k = if column == usize::MAX {
                cells.len() - 1
            } else {
                column
            };
            cells[k] = value;
            let _ = writeln!(out, "{keys}{}", cells.join(","));
        } else {
            let _ = writeln!(out, "{l}");
        }
    }
    std::fs::write(into, out).unwrap();
}

#[test]
fn sweep_figures_refuse_numbers_they_cannot_draw() {
    let dir = scratch("sweep-finite");
    let csv = dir.join("t.csv");
    let png = dir.join("o.png");
    let bin = env!("CARGO_BIN_EXE_privdiffuse");
    let plot = |metric: bool| {
        let mut c = std::process::Command::new(bin);
        c.args(["plot", "--kind", "sweep", "--input"])
            .arg(&csv)
            .args(["--x", "eps", "--at-distance", "1,3,6"])
            .args(["--width", "600", "--height", "300", "--out"])
            .arg(&png)
            .env_remove("RUST_BACKTRACE");
        if metric {
            c.args(["--metric", "mse"]);
        }
        c.output().unwrap()
    };
    // Cells after the quoted key:
    // eps.b, mechanism, estimator, coalition, metric, distance_lo (5),
    // distance_hi, value (last).
    let last = usize::MAX;
    for (column, name, value, expected) in [
        (
            last,
            "value",
            "inf",
            "expected a finite number, found 'inf'",
        ),
        (
            last,
            "value",
            "-inf",
            "expected a finite number, found '-inf'",
        ),
        (
            last,
            "value",
            "1e308",
            "expected a number within ±1e300 (the cell is not shown)",
        ),
        (
            5,
            "distance_lo",
            "-inf",
            "expected a finite number, found '-inf'",
        ),
        (
            5,
            "distance_lo",
            "-1e301",
            "expected a number within ±1e300 (the cell is not shown)",
        ),
    ] {
        tampered(&csv, column, value);
        for metric in [true, false] {
            let o = plot(metric);
            let e = String::from_utf8_lossy(&o.stderr);
            assert_eq!(o.status.code(), Some(1), "{name} {value}: {e}");
            assert_eq!(
                e.trim_end(),
                format!("error: {}:2: column '{name}': {expected}", csv.display())
            );
            assert!(!png.exists());
        }
    }
    // NaN is a metric undefined at its point (documented), inf a bucket's
    // edge: drawn, those points left out.
    for (column, value) in [(last, "NaN"), (5, "inf")] {
        tampered(&csv, column, value);
        let o = plot(true);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        std::fs::remove_file(&png).unwrap();
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
