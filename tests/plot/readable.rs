//! Figures a researcher can read (issue 23 E): a log-ε axis labelled near
//! both ends of a short range, interval ends off the axis marked, legends
//! and colour bars that say what they show without overlapping, sweep
//! figures naming their estimator and colouring the mechanisms apart, and a
//! committed run's graph found from anywhere.

use super::common::{SvgText, scratch, svg_legend_strokes, svg_text_items, svg_texts, write_run};
use privdiffuse::io::PlotSpec;
use privdiffuse::io::plot::{self, Kind, PlotOptions, data};
use std::path::{Path, PathBuf};

fn svg(kind: Kind, input: &Path, out: &Path, w: u32, h: u32) -> String {
    let opts = PlotOptions {
        width: w,
        height: h,
        ..PlotOptions::default()
    };
    plot::draw(kind, input, out, &opts).unwrap();
    std::fs::read_to_string(out).unwrap()
}

#[test]
fn a_short_eps_range_is_labelled_near_both_ends() {
    // ε over 1.2–15 (the default run's paths): ticks 1.5 … 10, 15, where
    // they stopped at 2 and 10 before.
    let dir = scratch("ticks");
    let csv = dir.join("p.csv");
    std::fs::write(
        &csv,
        "sample,eps,v1\n0,1.2,0.5\n0,3,0.1\n1,1.2,-0.3\n1,7,0.2\n",
    )
    .unwrap();
    std::fs::write(dir.join("p.json"), r#"{"eps_lo":1.2,"eps_hi":15}"#).unwrap();
    let items = svg_text_items(&svg(Kind::Path, &csv, &dir.join("p.svg"), 900, 600));
    // The x tick labels share the row of the label "10".
    let row = items
        .iter()
        .find(|t| t.text == "10")
        .expect("a tick at 10")
        .y;
    let mut ticks: Vec<(f64, &str)> = items
        .iter()
        .filter(|t| t.y == row)
        .map(|t| (t.x, t.text.as_str()))
        .collect();
    ticks.sort_by(|a, b| a.0.total_cmp(&b.0));
    let ticks: Vec<&str> = ticks.into_iter().map(|t| t.1).collect();
    assert_eq!(
        ticks,
        ["1.5", "2", "3", "4", "5", "6", "7", "8", "9", "10", "15"]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn error_figure_marks_interval_ends_below_the_axis_and_names_its_lines() {
    let dir = scratch("error-ends");
    write_run(&dir);
    let count = |svg: &str| svg.matches("<polygon").count();
    let note = "95% CI reaching below the axis (lower end ≤ 0 or off scale)";
    let out = dir.join("e.svg");
    let before = svg(Kind::Error, &dir, &out, 640, 420);
    let texts = svg_texts(&before);
    assert!(!texts.iter().any(|t| t.contains("mse_theory")), "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t == "theoretical RMSE: correlated = independent"),
        "{texts:?}"
    );
    assert!(texts.iter().any(|t| t == "theoretical RMSE: gaussian"));
    assert!(!texts.iter().any(|t| t == note));
    assert_eq!(count(&before), 0);
    // Two buckets whose 95% interval covers 0 (se = mse: mse − 1.96·se < 0).
    let bd = dir.join("by_distance.csv");
    let text = std::fs::read_to_string(&bd).unwrap();
    let lines: Vec<String> = text
        .lines()
        .enumerate()
        .map(|(i, l)| {
            let mut c: Vec<String> = l.split(',').map(String::from).collect();
            if i == 8 || i == 16 {
                c[6] = c[5].clone();
            }
            c.join(",")
        })
        .collect();
    std::fs::write(&bd, lines.join("\n") + "\n").unwrap();
    let after = svg(Kind::Error, &dir, &out, 640, 420);
    // One arrowhead per such interval, one in the legend.
    assert_eq!(count(&after), 3, "arrowheads");
    assert!(svg_texts(&after).iter().any(|t| t == note));
    // With post-processing the axis says which error it shows.
    let post: Vec<String> = lines
        .iter()
        .enumerate()
        .map(|(i, l)| {
            if i == 0 {
                format!("{l},post_exact,post_mse")
            } else {
                format!("{l},0.5,1")
            }
        })
        .collect();
    std::fs::write(&bd, post.join("\n") + "\n").unwrap();
    let texts = svg_texts(&svg(Kind::Error, &dir, &out, 640, 420));
    assert!(
        texts
            .iter()
            .any(|t| t == "RMSE √E‖raw − u‖² before post-processing (log scale)"),
        "{texts:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

/// The colour bar's caption ends above its top tick label, at any size.
fn caption_clear_of_bar(items: &[SvgText], caption: &[&str]) {
    let last = items
        .iter()
        .rev()
        .find(|t| caption.contains(&t.text.as_str()))
        .expect("caption drawn");
    let top = items
        .iter()
        .filter(|t| {
            // Tick labels read `0.653 (q30)`.
            t.text.rsplit_once(" (q").is_some_and(|(_, q)| {
                q.strip_suffix(')')
                    .is_some_and(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_digit()))
            })
        })
        .min_by(|a, b| a.y.total_cmp(&b.y))
        .expect("tick labels");
    // The caption is anchored at its top, the tick label at its centre.
    assert!(
        last.y + last.size <= top.y - top.size / 2.0,
        "caption {last:?} runs into {top:?}"
    );
}

#[test]
fn ego_colour_bar_names_the_error_it_plots_and_keeps_clear_of_it() {
    let dir = scratch("ego-bar");
    // A real run with post-processing, and the fixture (no value columns).
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .args([
            "simulate",
            "--graph",
            "data/karate.edges",
            "--owners",
            "3",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--values",
            "uniform:0,1",
            "--post",
            "clamp:0,1",
            "--no-plots",
            "-q",
            "--out",
        ])
        .arg(dir.join("run"))
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let run = dir.join("run");
    assert_eq!(
        plot::ego::load(&run, None, false).unwrap().measure,
        plot::ego::Measure::BeforePost
    );
    for (w, h) in [(1200, 800), (720, 480), (500, 400)] {
        let items = svg_text_items(&svg(Kind::Ego, &run, &dir.join("e.svg"), w, h));
        let texts: Vec<&str> = items.iter().map(|t| t.text.as_str()).collect();
        assert!(texts.contains(&"error ‖raw − u‖"), "{texts:?}");
        assert!(texts.contains(&"before post-processing"), "{texts:?}");
        assert!(!texts.iter().any(|t| t.contains("‖y − u‖")), "{texts:?}");
        caption_clear_of_bar(&items, &["error ‖raw − u‖", "before post-processing"]);
    }
    let fix = dir.join("fixture");
    std::fs::create_dir_all(&fix).unwrap();
    write_run(&fix);
    let items = svg_text_items(&svg(Kind::Ego, &fix, &dir.join("f.svg"), 1200, 800));
    let caption = ["error ‖raw − u‖", "(before any post-processing)"];
    assert!(items.iter().any(|t| t.text == caption[1]));
    caption_clear_of_bar(&items, &caption);
    std::fs::remove_dir_all(&dir).unwrap();
}

fn decay() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("results/sweeps/decay.csv")
}

fn spec(metrics: &[&str], only: &[(&str, &str)]) -> PlotSpec {
    PlotSpec {
        x: "eps".into(),
        metrics: metrics.iter().map(|m| m.to_string()).collect(),
        at: vec![1.0, 3.0, 6.0],
        only: only
            .iter()
            .map(|(c, v)| (c.to_string(), v.to_string()))
            .collect(),
        log_x: false,
        per_seed: false,
    }
}

#[test]
fn sweep_figures_name_the_estimator_and_colour_mechanisms_apart() {
    let dir = scratch("sweep-look");
    let draw = |s: &PlotSpec, name: &str| {
        let out = dir.join(name);
        plot::sweep::draw_sweep_to(
            &decay(),
            s,
            &out,
            None,
            privdiffuse::util::Existing::Replace,
        )
        .unwrap();
        std::fs::read_to_string(out).unwrap()
    };
    let s = spec(&["mse", "gain_mean"], &[]);
    let text = draw(&s, "d.svg");
    let texts = svg_texts(&text);
    // Words, not column names.
    assert!(
        texts.iter().any(|t| t
            == "MSE of the answers and mean gain of the coalition against the privacy map ε \
                at distance 1, 3, 6"),
        "{texts:?}"
    );
    assert!(
        texts
            .iter()
            .any(|t| t == "mean gain of the coalition, estimator ivw")
    );
    // Within a panel every line has its own colour, so lines that differ
    // only by mechanism too.
    let fig = privdiffuse::io::sweep_figure::load(&decay(), &s).unwrap();
    let all_labels: Vec<String> = (0..2).flat_map(|i| fig.labels(i)).collect();
    let strokes = svg_legend_strokes(&text, &all_labels);
    assert_eq!(strokes.len(), all_labels.len(), "{strokes:?}");
    let colour = |label: &str| {
        strokes
            .iter()
            .find(|(l, _)| l == label)
            .map(|(_, c)| c.clone())
            .unwrap()
    };
    for i in 0..2 {
        let labels = fig.labels(i);
        let mut colours: Vec<String> = labels.iter().map(|l| colour(l)).collect();
        colours.sort();
        colours.dedup();
        assert_eq!(colours.len(), labels.len(), "panel {i}: {strokes:?}");
    }
    for (a, b) in [
        ("correlated · d=1", "independent · d=1"),
        ("nearest:m=10 · correlated", "nearest:m=10 · independent"),
        ("random:m=20 · correlated", "random:m=20 · independent"),
    ] {
        assert_ne!(colour(a), colour(b), "{a} / {b}");
    }
    // The mechanism alone splits the lines: the mechanism colours of every
    // figure (correlated blue, independent vermillion).
    let s = spec(&["gain_mean"], &[("coalition", "nearest:m=10")]);
    let text = draw(&s, "m.svg");
    let labels = vec!["correlated".to_string(), "independent".to_string()];
    assert_eq!(
        svg_legend_strokes(&text, &labels),
        [
            ("correlated".to_string(), "#0072B2".to_string()),
            ("independent".to_string(), "#D55E00".to_string())
        ]
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_recorded_relative_graph_is_found_from_the_run_directory_up() {
    let dir = scratch("resolve");
    let root = dir.join("repo");
    let deep = root.join("results/a/run");
    std::fs::create_dir_all(&deep).unwrap();
    std::fs::create_dir_all(root.join("data")).unwrap();
    std::fs::write(root.join("data/g.edges"), "0 1\n").unwrap();
    // Not there from the current directory (the package root): found above
    // the run directory; absolute and missing paths are left alone.
    let rel = Path::new("data/g.edges");
    assert!(!rel.exists());
    let got = data::resolve_recorded(rel, &deep);
    assert_eq!(
        got.canonicalize().unwrap(),
        root.join("data/g.edges").canonicalize().unwrap()
    );
    assert_eq!(
        data::resolve_recorded(Path::new("data/none.edges"), &deep),
        Path::new("data/none.edges")
    );
    let here = Path::new("data/karate.edges");
    assert_eq!(data::resolve_recorded(here, &deep), here);

    // End to end: a run made in `repo` with a relative --graph, drawn with
    // --edges from the directory above it.
    std::fs::copy(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("data/karate.edges"),
        root.join("data/karate.edges"),
    )
    .unwrap();
    let bin = env!("CARGO_BIN_EXE_privdiffuse");
    let run = |cwd: &Path, args: &[&str]| {
        std::process::Command::new(bin)
            .current_dir(cwd)
            .args(args)
            .env_remove("RUST_BACKTRACE")
            .output()
            .unwrap()
    };
    let o = run(
        &root,
        &[
            "simulate",
            "--graph",
            "data/karate.edges",
            "--owners",
            "2",
            "--no-plots",
            "-q",
            "--out",
            "results/k",
        ],
    );
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let plot_args = [
        "plot",
        "--input",
        "repo/results/k",
        "--kind",
        "ego",
        "--edges",
        "--width",
        "600",
        "--height",
        "400",
        "--force",
        "--out",
        "e.svg",
    ];
    let o = run(&dir, &plot_args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let texts = svg_texts(&std::fs::read_to_string(dir.join("e.svg")).unwrap());
    assert!(
        texts
            .iter()
            .any(|t| t == "friendship (78 edges drawn faintly)"),
        "{texts:?}"
    );
    // A file of that name that is not the run's graph is refused.
    std::fs::write(root.join("data/karate.edges"), "1 2\n2 3\n").unwrap();
    let o = run(&dir, &plot_args);
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(1), "{e}");
    assert!(
        e.contains("gives 3 nodes and 2 edges where the run had 34 and 78")
            && e.contains("not the run's graph"),
        "{e}"
    );
    assert_eq!(e.lines().count(), 1, "{e}");
    std::fs::remove_dir_all(&dir).unwrap();
}
