//! Missing or malformed inputs give errors that name the file (and the line
//! and column for a bad row); nothing is written and nothing panics.

use super::common::{scratch, write_run};
use privdiffuse::Error;
use privdiffuse::io::plot::{self, Kind, PlotOptions};
use std::path::Path;

fn small() -> PlotOptions {
    PlotOptions {
        width: 300,
        height: 200,
        ..PlotOptions::default()
    }
}

fn draw_err(kind: Kind, input: &Path, out: &Path) -> Error {
    let e = plot::draw(kind, input, out, &small()).unwrap_err();
    assert!(!out.exists(), "{kind}: output written despite {e}");
    e
}

/// Replaces line `n` (1-based) of `file` with `text`.
fn set_line(file: &Path, n: usize, text: &str) {
    let s = std::fs::read_to_string(file).unwrap();
    let mut lines: Vec<String> = s.lines().map(String::from).collect();
    lines[n - 1] = text.to_string();
    std::fs::write(file, lines.join("\n") + "\n").unwrap();
}

#[test]
fn missing_files_are_named() {
    let dir = scratch("missing");
    write_run(&dir);
    let out = dir.join("x.png");
    for (kind, file) in [
        (Kind::Jumps, "jumps.csv"),
        (Kind::Jumps, "owners.csv"),
        (Kind::Jumps, "paths.csv"),
        (Kind::Ego, "ego.csv"),
        (Kind::Error, "by_distance.csv"),
        (Kind::Coalition, "coalition.csv"),
    ] {
        let p = dir.join(file);
        let saved = std::fs::read(&p).unwrap();
        std::fs::remove_file(&p).unwrap();
        let e = draw_err(kind, &dir, &out);
        assert!(matches!(e, Error::Io { .. }), "{kind}/{file}: {e:?}");
        assert!(e.to_string().contains(file), "{kind}/{file}: {e}");
        std::fs::write(&p, saved).unwrap();
    }
    let e = draw_err(Kind::Error, &dir.join("nope"), &out);
    assert!(e.to_string().contains("nope"), "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn malformed_rows_name_file_line_and_column() {
    let dir = scratch("malformed");
    write_run(&dir);
    let out = dir.join("x.svg");
    let bd = dir.join("by_distance.csv");
    set_line(&bd, 4, "correlated,3,3,120,0.5,abc,0.1,1");
    let e = draw_err(Kind::Error, &dir, &out);
    let msg = e.to_string();
    assert!(matches!(e, Error::Input { line: 4, .. }), "{e:?}");
    assert!(
        // The column, never the cell (a number column may hold a secret).
        msg.contains("by_distance.csv:4")
            && msg.contains("'mse'")
            && msg.contains("the cell is not shown")
            && !msg.contains("abc"),
        "{msg}"
    );

    // Too few fields.
    set_line(&bd, 4, "correlated,3,3");
    let msg = draw_err(Kind::Error, &dir, &out).to_string();
    assert!(
        msg.contains("by_distance.csv:4") && msg.contains("fields"),
        "{msg}"
    );

    // A header without a needed column.
    set_line(&dir.join("jumps.csv"), 1, "owner,eps,dist,jump_norm");
    let msg = draw_err(Kind::Jumps, &dir, &out).to_string();
    assert!(
        msg.contains("jumps.csv:1") && msg.contains("'distance'"),
        "{msg}"
    );

    // Levels that do not ascend within a path.
    let paths = dir.join("paths.csv");
    let text = std::fs::read_to_string(&paths).unwrap();
    let lines: Vec<&str> = text.lines().collect();
    // Rows 2 and 3 belong to the first owner (it has ≥ 1 jump); swap them.
    let swapped = format!(
        "{}\n{}\n{}\n{}\n",
        lines[0],
        lines[2],
        lines[1],
        lines[3..].join("\n")
    );
    std::fs::write(&paths, swapped).unwrap();
    let msg = draw_err(Kind::Path, &dir, &out).to_string();
    assert!(
        msg.contains("paths.csv:3") && msg.contains("ascend"),
        "{msg}"
    );

    // Negative count.
    let co = dir.join("coalition.csv");
    set_line(&co, 2, "3,nearest:m=5,-5,2.5,1,correlated,best,1,1,1,1,0.5");
    let msg = draw_err(Kind::Coalition, &dir, &out).to_string();
    assert!(
        msg.contains("coalition.csv:2") && msg.contains("'size'"),
        "{msg}"
    );

    // Broken JSON.
    write_run(&dir);
    std::fs::write(dir.join("summary.json"), "{\"eps_map\": ").unwrap();
    let msg = draw_err(Kind::Jumps, &dir, &out).to_string();
    assert!(
        msg.contains("summary.json") && msg.contains("JSON"),
        "{msg}"
    );
    // A spec the map grammar rejects.
    std::fs::write(
        dir.join("summary.json"),
        r#"{"eps_map":{"spec":"exp:a=1"},"config":{"dim":2,"norm":"l2"}}"#,
    )
    .unwrap();
    let msg = draw_err(Kind::Jumps, &dir, &out).to_string();
    assert!(
        msg.contains("summary.json") && msg.contains("eps_map.spec"),
        "{msg}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn empty_inputs_and_bad_requests() {
    let dir = scratch("empty");
    write_run(&dir);
    let out = dir.join("x.png");
    std::fs::write(dir.join("ego.csv"), "recipient,distance,eps,error_norm\n").unwrap();
    let msg = draw_err(Kind::Ego, &dir, &out).to_string();
    assert!(
        msg.contains("ego.csv") && msg.contains("no recipients"),
        "{msg}"
    );
    std::fs::write(dir.join("by_distance.csv"), "").unwrap();
    let msg = draw_err(Kind::Error, &dir, &out).to_string();
    assert!(
        msg.contains("by_distance.csv") && msg.contains("missing column"),
        "{msg}"
    );

    // Usage errors: a file where a directory is needed, a bad extension, a
    // silly size.
    let e = draw_err(Kind::Jumps, &dir.join("jumps.csv"), &out);
    assert!(e.is_usage() && e.to_string().contains("directory"), "{e}");
    let e = draw_err(Kind::Coalition, &dir, &dir.join("x.jpg"));
    assert!(
        e.is_usage() && e.to_string().contains(".png or .svg"),
        "{e}"
    );
    // A figure into a directory that does not exist: the directory is made,
    // as for every command's output file (PNG and SVG alike: one writer).
    let missing = dir.join("no-such-dir").join("x.png");
    plot::draw(Kind::Coalition, &dir, &missing, &small()).unwrap();
    assert!(missing.is_file());
    // Under a file, where no directory can be: an I/O error naming the
    // figure, not an encoder's debug dump.
    let under_file = dir.join("coalition.csv").join("x.png");
    let e = draw_err(Kind::Coalition, &dir, &under_file);
    let msg = e.to_string();
    assert!(matches!(e, Error::Io { .. }), "{e:?}");
    assert!(msg.contains("coalition.csv/x.png"), "{msg}");
    let mut o = small();
    o.width = 5;
    let e = plot::draw(Kind::Coalition, &dir, &out, &o).unwrap_err();
    assert!(
        e.is_usage() && e.to_string().contains("width") && !e.to_string().contains("--"),
        "{e}"
    );
    assert!(!out.exists());
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn non_finite_values_never_panic() {
    let dir = scratch("nonfinite");
    write_run(&dir);
    let out = dir.join("x.png");
    set_line(
        &dir.join("by_distance.csv"),
        2,
        "correlated,1,1,40,NaN,inf,NaN,0",
    );
    set_line(
        &dir.join("by_distance.csv"),
        3,
        "correlated,2,2,40,1,-1,inf,NaN",
    );
    set_line(
        &dir.join("coalition.csv"),
        2,
        "3,nearest:m=5,5,2.5,1,correlated,best,1,inf,-1,NaN,0.5",
    );
    set_line(
        &dir.join("coalition.csv"),
        3,
        "3,nearest:m=5,5,2.5,1,correlated,mean,1,0.5,-1,inf,0.5",
    );
    set_line(&dir.join("jumps.csv"), 2, "100,1.5,inf,NaN");
    let owners = std::fs::read_to_string(dir.join("owners.csv")).unwrap();
    let second = owners.lines().nth(2).unwrap().to_string();
    let mut f: Vec<&str> = second.split(',').collect();
    f[3] = "inf";
    set_line(&dir.join("owners.csv"), 3, &f.join(","));
    set_line(&dir.join("ego.csv"), 2, "1010,1,NaN,NaN");
    set_line(&dir.join("samples.csv"), 2, "0,0.05,inf");
    for kind in Kind::ALL {
        let input = if kind == Kind::Path {
            dir.join("samples.csv")
        } else {
            dir.to_path_buf()
        };
        // Either a figure or an error: never a panic.
        let r = plot::draw(kind, &input, &out, &small());
        eprintln!("{kind}: {:?}", r.map(|_| "drawn"));
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
