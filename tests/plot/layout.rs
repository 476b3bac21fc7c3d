//! Every figure kind checked on its own geometry (issue 34 item 2): the
//! layout each drawing returns says where its legends, marks and ticks
//! landed, so the tests assert that no plotted point or line lies under a
//! legend box, that every series has a legend entry, that axes counting
//! whole things (hops, batches, members, degrees) have whole ticks, and
//! that no axis prints a label twice — on the committed runs the issue
//! found wanting (`results/`) and on small tables built here.

use crate::support::scratch::Scratch;
use privdiffuse::io::PlotSpec;
use privdiffuse::io::plot::layout::Layout;
use privdiffuse::io::plot::{self, Kind, PlotOptions, style};
use std::path::{Path, PathBuf};

fn results(p: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("results")
        .join(p)
}

/// The layout of `kind` drawn from `input` at `size`, checked for every
/// problem [`Layout::problems`] knows.
fn checked(kind: Kind, input: &Path, opts: &PlotOptions) -> Layout {
    let fig = plot::load(kind, input, opts).unwrap();
    let (_, layout) = style::svg(&fig, fig.size(opts), Path::new("x.svg")).unwrap();
    let p = layout.problems();
    assert!(p.is_empty(), "{kind}: {p:#?}");
    assert!(!layout.legends.is_empty(), "{kind}: no legend");
    for panel in &layout.panels {
        assert!(
            !panel.marks.is_empty(),
            "{kind}: {} draws nothing",
            panel.name
        );
    }
    layout
}

fn at(size: (u32, u32)) -> PlotOptions {
    PlotOptions {
        width: size.0,
        height: size.1,
        ..PlotOptions::default()
    }
}

/// Every legend's entries, in order.
fn entries(l: &Layout) -> Vec<&str> {
    l.legends
        .iter()
        .flat_map(|g| g.entries.iter().map(String::as_str))
        .collect()
}

#[test]
fn jumps_legends_cover_no_path_and_hops_are_whole() {
    // runs/fb/jumps.png: (a)'s legend covered the data.
    for size in [(1200, 800), (800, 600)] {
        let l = checked(Kind::Jumps, &results("geometric150"), &at(size));
        assert_eq!((l.panels.len(), l.legends.len()), (2, 2));
        for p in &l.panels {
            assert!(p.x.integer, "{}: hop distances", p.name);
        }
        // (b) counts jumps: whole ticks.
        assert!(l.panels[1].y.integer);
        let e = entries(&l);
        for t in ["owner 0 (11 jumps)", "observed jumps"] {
            assert!(e.contains(&t), "{e:?}");
        }
    }
}

#[test]
fn ego_key_names_every_mark() {
    let l = checked(Kind::Ego, &results("geometric150"), &at((1200, 800)));
    assert!(l.panels[0].x.integer);
    assert!(entries(&l).contains(&"owner 0"));
}

#[test]
fn error_legend_off_the_intervals() {
    for size in [(1200, 800), (640, 420)] {
        let l = checked(Kind::Error, &results("geometric150"), &at(size));
        assert!(l.panels[0].x.integer);
    }
}

#[test]
fn path_legend_names_the_asymptotes() {
    let l = checked(Kind::Path, &results("geometric150"), &at((1200, 800)));
    assert!(entries(&l).contains(&"±π/2: V = ±∞"));
}

#[test]
fn coalition_one_legend_no_lines_between_kinds_a_tick_at_one() {
    // coalition.png joined unordered coalition kinds with lines; its tick
    // labels were tiny.
    let l = checked(
        Kind::Coalition,
        &results("geometric150-collude"),
        &at((1200, 800)),
    );
    assert_eq!((l.panels.len(), l.legends.len()), (2, 1));
    for p in &l.panels {
        assert!(p.x.integer);
        assert!(p.y.values.contains(&1.0), "{:?}", p.y.values);
        assert_eq!(p.x.labels[0], "nearest:m=5");
        // A marker and its whisker per coalition, no polyline through them.
        for m in p.marks.iter().filter(|m| m.label == "mean") {
            for s in &m.shapes {
                if let plot::layout::Shape::Line(pts) = s {
                    assert_eq!(pts.len(), 2, "{}: a whisker, not a line", m.label);
                    assert_eq!(pts[0].0, pts[1].0);
                }
            }
        }
    }
}

fn sweep(x: &str, metrics: &[&str], at: &[f64], log_x: bool) -> PlotOptions {
    PlotOptions {
        sweep: PlotSpec {
            x: x.into(),
            metrics: metrics.iter().map(|m| m.to_string()).collect(),
            at: at.to_vec(),
            log_x,
            ..PlotSpec::default()
        },
        ..PlotOptions::default()
    }
}

#[test]
fn sweep_a_legend_per_panel_when_colours_differ() {
    // decay.png: one legend for two panels where one colour meant two
    // things; 1.00e6 beside 10000; `gain_mean` as a title.
    let opts = sweep("eps", &["mse", "gain_mean"], &[1.0, 3.0, 6.0], false);
    let l = checked(Kind::Sweep, &results("sweeps/decay.csv"), &opts);
    assert_eq!((l.panels.len(), l.legends.len()), (2, 2));
    let mse = &l.panels[0].y.labels;
    assert!(mse.iter().all(|t| t.starts_with("10")), "{mse:?}");
    assert_eq!(
        l.panels[1].name,
        "mean gain of the coalition, estimator ivw"
    );
    assert!(l.panels[1].y.values.contains(&1.0));
}

#[test]
fn sweep_coalition_size_has_a_tick_at_one_and_one_title() {
    let opts = sweep("m", &["gain_median"], &[], true);
    let input = results("thesis/coalition_size_geometric.csv");
    let l = checked(Kind::Sweep, &input, &opts);
    assert!(
        l.panels[0].y.values.contains(&1.0),
        "{:?}",
        l.panels[0].y.values
    );
    // One panel: the title names the metric once (no panel caption
    // repeating it); the estimator remark goes to the note.
    let fig = plot::load(Kind::Sweep, &input, &opts).unwrap();
    let (svg, _) = style::svg(&fig, fig.size(&opts), Path::new("x.svg")).unwrap();
    let texts = super::common::svg_texts(&svg);
    let title = "Median gain of the coalition against the coalition size m";
    assert_eq!(texts.iter().filter(|t| *t == title).count(), 1, "{texts:?}");
    let caption = "median gain of the coalition, one line per estimator";
    assert!(!texts.iter().any(|t| t == caption), "{texts:?}");
    assert!(
        texts
            .iter()
            .any(|t| t.starts_with("one line per estimator; lines: mean over 5 seeds")),
        "{texts:?}"
    );
}

#[test]
fn utility_theory_lines_have_an_entry() {
    // utility.png: the legend covered the theory line, which had no entry.
    let l = checked(
        Kind::Utility,
        &results("geometric150-utility"),
        &at((1200, 800)),
    );
    assert!(entries(&l).contains(&"theory (dashed, the scheme's colour)"));
    assert!(l.panels[0].x.integer, "degrees");
}

/// A run directory holding only `name` with `text`.
fn table(name: &str, file: &str, text: &str) -> Scratch {
    let d = super::common::scratch(name);
    std::fs::write(d.join(file), text).unwrap();
    d
}

#[test]
fn relay_hops_have_whole_ticks() {
    // relay plots put 1.5 and 2.5 on whole hops.
    let mut csv = String::from(
        "untrimmed,distance_lo,distance_hi,recipients,eps_learned_ratio_mean,eps_learned_ratio_max\n",
    );
    for f in ["0", "0.2"] {
        for d in 1..=3 {
            let r = if f == "0" { 1.0 } else { 1.0 + 0.4 * d as f64 };
            csv.push_str(&format!("{f},{d},{d},10,{r},{}\n", 2.0 * r));
        }
    }
    let d = table("layout-relay", "relay_by_distance.csv", &csv);
    let l = checked(Kind::Relay, &d, &at((1200, 800)));
    let x = &l.panels[0].x;
    assert!(x.integer);
    assert_eq!(x.values, [1.0, 2.0, 3.0]);
    std::fs::remove_dir_all(&d).unwrap();
}

#[test]
fn timeline_batches_have_whole_ticks() {
    // evolve's timeline put 1.5 and 2.5 on whole batches.
    let mut csv = String::from(
        "batch,time,events,pairs_closer,pairs_farther,answers,pairs,mse,mse_theory,eps_spent,\
         resample_mse,resample_eps_spent,frozen_mse,frozen_eps_spent\n",
    );
    for b in 0..=3 {
        let g = 1.0 + 0.1 * b as f64;
        csv.push_str(&format!(
            "{b},,{},{},0,{},{},{},{},{},{},{},{},{}\n",
            3 * b,
            2 * b,
            40 + b,
            100,
            0.2 / g,
            0.21 / g,
            4.0 * g,
            0.18 / g,
            4.0 * g * g,
            0.2,
            4.0
        ));
    }
    let d = table("layout-timeline", "timeline.csv", &csv);
    let l = checked(Kind::Timeline, &d, &at((1200, 800)));
    assert_eq!((l.panels.len(), l.legends.len()), (2, 2));
    for p in &l.panels {
        assert!(p.x.integer);
        assert_eq!(p.x.values, [0.0, 1.0, 2.0, 3.0]);
    }
    std::fs::remove_dir_all(&d).unwrap();
}
