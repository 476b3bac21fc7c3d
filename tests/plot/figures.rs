//! Every figure kind renders to a PNG that decodes, has the requested size and
//! is not blank, and to an SVG whose axis titles are `<text>` elements; the
//! CLI and `draw_default_figures` write where they promise.

use super::common::{png_size, png_stats, scratch, svg_texts, write_run};
use privdiffuse::io::plot::{self, Kind, PlotOptions};
use std::path::Path;

fn opts(w: u32, h: u32) -> PlotOptions {
    PlotOptions {
        width: w,
        height: h,
        ..PlotOptions::default()
    }
}

/// Renders `kind` from `input` to PNG at `w`×`h` and to SVG, checks both,
/// and returns the SVG's texts.
fn check_kind(dir: &Path, input: &Path, kind: Kind, w: u32, h: u32, titles: &[&str]) {
    let png = dir.join(format!("t_{kind}.png"));
    plot::draw(kind, input, &png, &opts(w, h)).unwrap();
    let (pw, ph, var, ink) = png_stats(&png);
    assert_eq!((pw, ph), (w, h), "{kind}: size");
    // A blank (white) canvas has variance 0; a chart with axes, text and
    // series has thousands. Threshold well above rounding noise.
    assert!(var > 200.0, "{kind}: luma variance {var} too low (blank?)");
    assert!(ink > 0.02, "{kind}: only {ink} of the pixels are drawn");

    let svg_path = dir.join(format!("t_{kind}.svg"));
    plot::draw(kind, input, &svg_path, &opts(w, h)).unwrap();
    let svg = std::fs::read_to_string(&svg_path).unwrap();
    assert!(svg.starts_with("<svg"), "{kind}: not an SVG");
    assert!(
        svg.contains(&format!(r#"width="{w}""#)),
        "{kind}: SVG width"
    );
    let texts = svg_texts(&svg);
    for t in titles {
        assert!(
            texts.iter().any(|x| x == t),
            "{kind}: axis title {t:?} not among the SVG <text> elements: {texts:?}"
        );
    }
    // No temporaries left behind.
    let leftovers: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-"))
        .collect();
    assert!(leftovers.is_empty(), "temporary files left: {leftovers:?}");
}

#[test]
fn every_kind_renders_png_and_svg() {
    let dir = scratch("kinds");
    write_run(&dir);
    let hops = "distance d from the owner (hops)";
    // The jumps figure at the default size (the size users get); the others
    // smaller to keep the test fast.
    check_kind(
        &dir,
        &dir,
        Kind::Jumps,
        1200,
        800,
        &[hops, "jumps per bin", "answer error ‖y − u‖₂ (n = 2)"],
    );
    check_kind(
        &dir,
        &dir,
        Kind::Ego,
        720,
        480,
        &[hops, "error ‖raw − u‖", "(before any post-processing)"],
    );
    check_kind(
        &dir,
        &dir,
        Kind::Error,
        640,
        420,
        &[hops, "RMSE √E‖y − u‖² (log scale)"],
    );
    check_kind(
        &dir,
        &dir,
        Kind::Coalition,
        800,
        450,
        &[
            "coalition, ordered by size (m: members)",
            "gain = MSE(best member) / MSE(estimator), log scale",
        ],
    );
    check_kind(
        &dir,
        &dir.join("samples.csv"),
        Kind::Path,
        640,
        420,
        &["privacy level ε (log scale)", "arctan(V_ε)"],
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn jumps_for_one_owner_and_ego_owner_checks() {
    let dir = scratch("owner");
    write_run(&dir);
    let out = dir.join("one.svg");
    let mut o = opts(500, 400);
    o.owner = Some("107".into());
    plot::draw(Kind::Jumps, &dir, &out, &o).unwrap();
    let texts = svg_texts(&std::fs::read_to_string(&out).unwrap());
    assert!(
        texts.iter().any(|t| t.starts_with("owner 107 (")),
        "{texts:?}"
    );
    assert!(!texts.iter().any(|t| t.starts_with("owner 100 (")));
    // An owner without a path is a usage error naming the owners that have one.
    o.owner = Some("999".into());
    let e = plot::draw(Kind::Jumps, &dir, &out, &o).unwrap_err();
    assert!(e.is_usage() && e.to_string().contains("100"), "{e}");
    // ego.csv describes the first owner of owners.csv (142 in the fixture).
    o.owner = Some("100".into());
    let e = plot::draw(Kind::Ego, &dir, &out, &o).unwrap_err();
    assert!(e.to_string().contains("142"), "{e}");
    o.owner = Some("142".into());
    plot::draw(Kind::Ego, &dir, &out, &o).unwrap();
    let texts = svg_texts(&std::fs::read_to_string(&out).unwrap());
    assert!(texts.iter().any(|t| t == "owner 142"), "{texts:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn default_figures_skip_absent_inputs() {
    let dir = scratch("defaults");
    write_run(&dir);
    std::fs::remove_file(dir.join("paths.csv")).unwrap();
    // A header without rows counts as absent (e.g. no jumps in an
    // independent-only run).
    std::fs::write(dir.join("coalition.csv"), "owner,coalition\n").unwrap();
    let written = plot::draw_default_figures(&dir, &Kind::ALL).unwrap();
    let names: Vec<String> = written
        .iter()
        .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
        .collect();
    // jumps and path need paths.csv, coalition needs coalition.csv.
    assert_eq!(names, ["ego.png", "ego.svg", "error.png", "error.svg"]);
    for p in &written {
        assert!(p.is_file());
    }
    let bytes = std::fs::read(dir.join("error.png")).unwrap();
    assert_eq!(png_size(&bytes), plot::DEFAULT_SIZE);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn cli_default_output_names_and_usage_errors() {
    let dir = scratch("cli");
    write_run(&dir);
    let bin = env!("CARGO_BIN_EXE_privdiffuse");
    let run = |args: &[&str]| {
        std::process::Command::new(bin)
            .args(args)
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap()
    };
    let d = dir.to_str().unwrap();
    let out = run(&[
        "plot", "--input", d, "--kind", "error", "--width", "400", "--height", "300",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert_eq!(
        png_size(&std::fs::read(dir.join("error.png")).unwrap()),
        (400, 300)
    );
    let samples = dir.join("samples.csv");
    let out = run(&[
        "plot",
        "--input",
        samples.to_str().unwrap(),
        "--kind",
        "path",
        "--width",
        "300",
        "--height",
        "200",
    ]);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(dir.join("samples_path.png").is_file());
    // Unknown extension: usage error (exit 2) naming the flag and the file.
    let bad = dir.join("x.pdf");
    let out = run(&[
        "plot",
        "--input",
        d,
        "--kind",
        "error",
        "--out",
        bad.to_str().unwrap(),
    ]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("--out") && err.contains("x.pdf"), "{err}");
    // Missing input directory: exit 1, names the path.
    let out = run(&["plot", "--input", "/nonexistent/run", "--kind", "jumps"]);
    assert_eq!(out.status.code(), Some(1));
    assert!(String::from_utf8_lossy(&out.stderr).contains("/nonexistent/run"));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn jumps_axis_turns_asinh_when_errors_span_decades() {
    let dir = scratch("asinh");
    write_run(&dir);
    // Blow up the bottom (farthest) value of every path by 1000.
    let p = dir.join("paths.csv");
    let text = std::fs::read_to_string(&p).unwrap();
    let mut seen = std::collections::HashSet::new();
    let rows: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let f: Vec<&str> = l.split(',').collect();
            if i > 0 && seen.insert(f[0].to_string()) {
                let v: Vec<String> = f[2..]
                    .iter()
                    .map(|x| (x.parse::<f64>().unwrap() * 1000.0).to_string())
                    .collect();
                format!("{},{},{}", f[0], f[1], v.join(","))
            } else {
                l.to_string()
            }
        })
        .collect();
    std::fs::write(&p, rows.join("\n") + "\n").unwrap();
    let out = dir.join("wide.svg");
    plot::draw(Kind::Jumps, &dir, &out, &opts(600, 400)).unwrap();
    let texts = svg_texts(&std::fs::read_to_string(&out).unwrap());
    assert!(
        texts
            .iter()
            .any(|t| t == "answer error ‖y − u‖₂, n = 2 (asinh scale)"),
        "{texts:?}"
    );
    // Decade ticks, not a crowd of linear ones.
    assert!(texts.iter().any(|t| t == "1000"), "{texts:?}");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// Fig. 7 pieces on a real run: replicate rings, wrong bits, friendship
/// edges from the recorded graph and view, recorded owners, colour-bar labels
/// that never repeat a value.
#[test]
fn ego_figure_with_replicates_bits_edges_and_owners() {
    let dir = scratch("ego-fig7");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "simulate",
            "--graph",
            "data/karate.edges",
            "--ego",
            "0:2",
            "--distance",
            "resistance",
            "--eps",
            "exp:a=2,b=1.5",
            "--values",
            "bits:0.5",
            "--post",
            "bit",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--replicates",
            "2",
            "--ego-owners",
            "0,33",
            "--seed",
            "3",
            "--no-plots",
            "-q",
            "--out",
        ])
        .arg(dir.join("run"))
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = dir.join("run");
    let f = plot::ego::load(&run, Some("33"), true).unwrap();
    assert_eq!(f.owner, "33");
    assert_eq!(f.rings.iter().map(|r| r.0).collect::<Vec<_>>(), vec![0, 1]);
    // One dot per member of the view but the owner (first replicate only).
    let g = privdiffuse::Graph::load(privdiffuse_repo("data/karate.edges")).unwrap();
    let view = g.ego("0", 2).unwrap();
    assert_eq!(f.points.len(), view.n() - 1);
    assert!(f.points.iter().all(|p| p.correct.is_some()));
    // Every edge of the view is drawn (owner 33 is in it, members all placed).
    assert_eq!(f.edges.len() as u64, view.m());
    let none = plot::ego::load(&run, Some("33"), false).unwrap();
    assert!(none.edges.is_empty());
    // An owner that was not recorded names those that were.
    let e = plot::ego::load(&run, Some("5"), false)
        .unwrap_err()
        .to_string();
    assert!(e.contains("0, 33") && e.contains("ego_owners"), "{e}");
    // Colour-bar labels: no value twice.
    let out = dir.join("ego.svg");
    plot::draw(
        Kind::Ego,
        &run,
        &out,
        &PlotOptions {
            owner: Some("33".into()),
            edges: true,
            ..PlotOptions::default()
        },
    )
    .unwrap();
    let texts = svg_texts(&std::fs::read_to_string(&out).unwrap());
    let bar: Vec<&str> = texts
        .iter()
        .filter(|t| t.contains(" (q"))
        .map(|t| t.split(" (q").next().unwrap())
        .collect();
    assert!(bar.len() >= 2, "{texts:?}");
    let distinct: std::collections::HashSet<_> = bar.iter().collect();
    assert_eq!(distinct.len(), bar.len(), "{bar:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("jump distances, replicate 1"))
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

fn privdiffuse_repo(p: &str) -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(p)
}
