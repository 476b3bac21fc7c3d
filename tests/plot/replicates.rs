//! Every replicate is drawn: the thesis' Fig. 7 recipe (two replicates of
//! owner 0 on the Facebook ego net) shows one set of jump circles per
//! replicate, each matching `jumps.csv`, in two colours of the decoded PNG;
//! the jump and path figures draw each (owner, replicate) path; beyond 8
//! replicates the figures say how many they leave out.

use super::common::{scratch, svg_texts};
use privdiffuse::io::plot::{self, Kind, PlotOptions, data, ego, jumps, path};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

fn simulate(dir: &Path, args: &[&str]) -> PathBuf {
    let out = dir.join("run");
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .current_dir(env!("CARGO_MANIFEST_DIR"))
        .arg("simulate")
        .args(args)
        .args(["--no-plots", "-q", "--out"])
        .arg(&out)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    out
}

/// The jump distances of `jumps.csv`, per (owner, replicate), ascending.
fn jumps_by_path(run: &Path) -> BTreeMap<(String, u32), Vec<f64>> {
    let mut m: BTreeMap<(String, u32), Vec<f64>> = BTreeMap::new();
    for j in data::read_jumps(&run.join("jumps.csv")).unwrap() {
        m.entry((j.owner, j.replicate))
            .or_default()
            .push(j.distance);
    }
    for v in m.values_mut() {
        v.sort_by(f64::total_cmp);
    }
    m
}

/// Pixels of exactly the colour `rgb` in a PNG.
fn pixels_of(png: &Path, rgb: [u8; 3]) -> usize {
    let (_, _, px) = super::common::decode_rgb(&std::fs::read(png).unwrap());
    px.iter().filter(|p| **p == rgb).count()
}

const BLUE: [u8; 3] = [0x00, 0x72, 0xB2];
const VERMILLION: [u8; 3] = [0xD5, 0x5E, 0x00];

#[test]
fn fig7_draws_the_jump_circles_of_both_replicates() {
    let dir = scratch("fig7");
    let run = simulate(
        &dir,
        &[
            "--graph",
            "data/facebook_ego0.edges",
            "--distance",
            "resistance",
            "--eps",
            "exp:a=4,b=3.3",
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
            "--owner",
            "0",
            "--seed",
            "3",
        ],
    );
    let want = jumps_by_path(&run);
    assert_eq!(
        want.keys().cloned().collect::<Vec<_>>(),
        [("0".to_string(), 0), ("0".to_string(), 1)],
        "the recipe's jumps.csv holds both replicates"
    );

    // The ego figure's model: one set of circles per replicate, each
    // exactly that replicate's jumps within the plotted radius.
    let f = ego::load(&run, None, true).unwrap();
    assert_eq!(f.rings.len(), 2);
    for (rep, circles) in &f.rings {
        let of_rep: Vec<f64> = want[&("0".to_string(), *rep)]
            .iter()
            .copied()
            .filter(|d| *d > 0.0 && *d <= f.radius)
            .collect();
        assert_eq!(circles, &of_rep, "replicate {rep}");
        assert!(!circles.is_empty(), "replicate {rep} has circles to draw");
    }
    assert_eq!(f.rings_left_out, 0);
    assert_eq!(f.measure, ego::Measure::BeforeBit);

    // The PNG: replicate 0's circles in blue, replicate 1's in vermillion.
    // Without replicate 1's rows in jumps.csv its colour is left to the
    // owner's cross and the key's line: the difference is its circles.
    let opts = PlotOptions {
        edges: true,
        ..PlotOptions::default()
    };
    let png = dir.join("ego.png");
    plot::draw(Kind::Ego, &run, &png, &opts).unwrap();
    let (blue, red) = (pixels_of(&png, BLUE), pixels_of(&png, VERMILLION));
    let only0 = dir.join("only0");
    std::fs::create_dir_all(&only0).unwrap();
    for e in std::fs::read_dir(&run).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, only0.join(p.file_name().unwrap())).unwrap();
    }
    let text = std::fs::read_to_string(run.join("jumps.csv")).unwrap();
    let kept: Vec<&str> = text
        .lines()
        .filter(|l| l.split(',').nth(1) != Some("1"))
        .collect();
    std::fs::write(only0.join("jumps.csv"), kept.join("\n") + "\n").unwrap();
    let png0 = dir.join("ego0.png");
    plot::draw(Kind::Ego, &only0, &png0, &opts).unwrap();
    let (blue0, red0) = (pixels_of(&png0, BLUE), pixels_of(&png0, VERMILLION));
    // A dashed circle of radius ≥ 20 px inks at least ~60 px; replicate 1
    // has several inside the radius.
    let rings1 = f.rings[1].1.len();
    assert!(
        red >= red0 + 60 * rings1,
        "replicate 1's circles: {red} vermillion pixels with, {red0} without ({rings1} circles)"
    );
    assert!(
        blue0 > 200 && blue > 200,
        "replicate 0's circles: {blue0}, {blue}"
    );

    // The jump figure: both paths of owner 0, each with its own jumps.
    let jf = jumps::load(&run, None).unwrap();
    assert_eq!(
        jf.traces
            .iter()
            .map(|t| (t.owner.as_str(), t.replicate))
            .collect::<Vec<_>>(),
        [("0", 0), ("0", 1)]
    );
    for t in &jf.traces {
        let mut xs: Vec<f64> = t.jumps.iter().map(|p| p.0).collect();
        xs.sort_by(f64::total_cmp);
        assert_eq!(xs, want[&(t.owner.clone(), t.replicate)], "{}", t.label);
    }
    let total: usize = want.values().map(Vec::len).sum();
    assert_eq!(jf.hist.counts.iter().sum::<f64>() as usize, total);
    assert_eq!((jf.replicates, jf.left_out), (2, 0));

    // The path figure: "2 paths", not "1 paths".
    let pf = path::load(&run).unwrap();
    assert_eq!(pf.total, 2);
    assert_eq!(
        pf.traces
            .iter()
            .map(|t| t.label.as_str())
            .collect::<Vec<_>>(),
        ["owner 0 · replicate 0", "owner 0 · replicate 1"]
    );
    let svg = dir.join("path.svg");
    plot::draw(Kind::Path, &run, &svg, &PlotOptions::default()).unwrap();
    let texts = svg_texts(&std::fs::read_to_string(&svg).unwrap());
    assert!(
        texts
            .iter()
            .any(|t| t == "Sample paths of the lazy Laplace process (2 paths)"),
        "{texts:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn beyond_eight_replicates_the_figures_say_what_they_leave_out() {
    let dir = scratch("replicates10");
    let run = simulate(
        &dir,
        &[
            "--graph",
            "data/karate.edges",
            "--owners",
            "2",
            "--replicates",
            "10",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--mechanism",
            "correlated",
        ],
    );
    // ego: 8 replicates' circles, 2 left out, said in the key.
    let f = ego::load(&run, None, false).unwrap();
    assert_eq!(
        f.rings.iter().map(|r| r.0).collect::<Vec<_>>(),
        (0..8).collect::<Vec<u32>>()
    );
    assert_eq!(f.rings_left_out, 2);
    let want = jumps_by_path(&run);
    for (rep, circles) in &f.rings {
        let n = want.get(&(f.owner.clone(), *rep)).map_or(0, |v| {
            v.iter().filter(|d| **d > 0.0 && **d <= f.radius).count()
        });
        assert_eq!(circles.len(), n, "replicate {rep}");
    }
    let texts = |kind: Kind| {
        let out = dir.join(format!("{kind}.svg"));
        plot::draw(kind, &run, &out, &PlotOptions::default()).unwrap();
        svg_texts(&std::fs::read_to_string(&out).unwrap())
    };
    let t = texts(Kind::Ego);
    assert!(
        t.iter()
            .any(|x| x == "+ 2 more replicates not drawn (at most 8)"),
        "{t:?}"
    );
    assert!(t.iter().any(|x| x == "jump distances, replicate 7"));
    assert!(!t.iter().any(|x| x == "jump distances, replicate 8"));

    // paths.csv: 2 owners × 10 replicates = 20 paths; 8 drawn.
    let pf = path::load(&run).unwrap();
    assert_eq!((pf.total, pf.traces.len()), (20, 8));
    let t = texts(Kind::Path);
    assert!(
        t.iter()
            .any(|x| x == "+ 12 more paths not drawn (at most 8)"),
        "{t:?}"
    );
    // jumps: one owner's first 8 replicates; the histogram pools all 20.
    let jf = jumps::load(&run, None).unwrap();
    let first = jf.traces[0].owner.clone();
    assert_eq!(
        jf.traces
            .iter()
            .map(|t| (t.owner.clone(), t.replicate))
            .collect::<Vec<_>>(),
        (0..8).map(|r| (first.clone(), r)).collect::<Vec<_>>()
    );
    assert_eq!(jf.left_out, 12);
    let total: usize = want.values().map(Vec::len).sum();
    assert_eq!(jf.hist.counts.iter().sum::<f64>() as usize, total);
    assert_eq!(jf.replicates, 10);
    let t = texts(Kind::Jumps);
    assert!(
        t.iter()
            .any(|x| x == "+ 12 paths of paths.csv not drawn (at most 8)"),
        "{t:?}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
