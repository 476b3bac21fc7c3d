//! Running sweeps: determinism across thread counts, resume after an
//! interruption, the shared distance cache, jumps per path against theory.

use crate::support::scratch::{Scratch, scratch};
use privdiffuse::DistanceKind;
use privdiffuse::io::{SweepOptions, run_sweep, side_file};
use privdiffuse::sweep::Grid;
use std::path::{Path, PathBuf};

/// `sweep.csv` in a fresh scratch folder, and the folder's guard: keep it
/// for as long as the file is used.
fn tmp(name: &str) -> (Scratch, PathBuf) {
    let d = scratch(name);
    let csv = d.join("sweep.csv");
    (d, csv)
}

fn karate(sets: &[&str]) -> Grid {
    let mut g = Grid::new();
    for (k, v) in [
        ("graph", "data/karate.edges"),
        ("values", "uniform:0,1"),
        ("dim", "1"),
        ("norm", "l1"),
        ("eps", "exp:a=2,b=0.7"),
    ] {
        if !sets.iter().any(|s| s.starts_with(&format!("{k}="))) {
            g.add_base(k, v).unwrap();
        }
    }
    for s in sets {
        g.add_set(s).unwrap();
    }
    g
}

fn run_with(threads: usize, grid: &Grid, opts: &SweepOptions) -> privdiffuse::io::SweepReport {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .unwrap()
        .install(|| run_sweep(grid, opts))
        .unwrap()
}

fn read(p: &Path) -> String {
    std::fs::read_to_string(p).unwrap()
}

#[test]
fn same_seeds_same_csv_whatever_the_thread_count() {
    let g = karate(&["mechanism=both,correlated", "seed=1..3", "norm=l1,l2"]);
    let ((_da, a), (_db, b)) = (tmp("det1"), tmp("det2"));
    let ra = run_with(1, &g, &SweepOptions::new(&a));
    let rb = run_with(2, &g, &SweepOptions::new(&b));
    assert!(ra.complete && rb.complete);
    assert_eq!(ra.points, 12);
    assert_eq!(read(&a), read(&b));
    // Grid order: the header, then point 0's rows first.
    let text = read(&a);
    let mut lines = text.lines();
    assert_eq!(
        lines.next().unwrap(),
        "mechanism_spec,seed,norm,mechanism,estimator,coalition,metric,distance_lo,distance_hi,value"
    );
    assert!(
        lines
            .next()
            .unwrap()
            .starts_with("both,1,l1,correlated,,,mse,1,1,")
    );
    assert!(!side_file(&a, "progress").exists());
    let timings = read(&side_file(&a, "timings.csv"));
    assert_eq!(timings.lines().count(), 13);
    // A different seed changes the numbers (the test can fail).
    let (_d_c, c) = tmp("det3");
    run_with(
        1,
        &karate(&["mechanism=both,correlated", "seed=2..4", "norm=l1,l2"]),
        &SweepOptions::new(&c),
    );
    assert_ne!(
        read(&a).replace(",1,l", ",X,l"),
        read(&c).replace(",2,l", ",X,l")
    );
}

#[test]
fn resume_after_interruption_gives_the_uninterrupted_csv() {
    let g = karate(&["seed=1..4", "dim=1,2"]);
    let (_d, full) = tmp("full");
    run_with(2, &g, &SweepOptions::new(&full));
    let expected = read(&full);

    let (_d, out) = tmp("resume");
    let mut opts = SweepOptions::new(&out);
    opts.stop_after = Some(3);
    let r = run_with(1, &g, &opts);
    assert!(!r.complete);
    assert_eq!(r.computed, 3);
    // Nothing that looks complete: no CSV, only the progress file, which
    // holds the header and three points' rows, each followed by its entry.
    assert!(!out.exists(), "an incomplete sweep wrote its CSV");
    let prog = side_file(&out, "progress");
    let partial = read(&prog);
    assert_eq!(
        partial.lines().filter(|l| l.starts_with("# done,")).count(),
        3
    );
    assert_eq!(
        partial.lines().nth(1),
        expected.lines().next(),
        "the header"
    );
    // Cut the last point off mid-row, as a crash while writing would.
    let last = partial.rfind("# done,").unwrap();
    std::fs::write(&prog, &partial[..last - 40]).unwrap();

    let mut opts = SweepOptions::new(&out);
    opts.resume = true;
    let r = run_with(2, &g, &opts);
    assert!(r.complete);
    assert_eq!(r.reused, 2, "the point cut off is recomputed");
    assert_eq!(r.computed, 6);
    assert_eq!(read(&out), expected);
    assert!(!prog.exists());

    // Rows written without their progress entry (a crash between the two)
    // are dropped too.
    let (_d_out2, out2) = tmp("resume2");
    let mut opts = SweepOptions::new(&out2);
    opts.stop_after = Some(2);
    run_with(1, &g, &opts);
    let prog = side_file(&out2, "progress");
    let p = read(&prog);
    let last = p.rfind("# done,").unwrap();
    std::fs::write(&prog, &p[..last]).unwrap();
    let mut opts = SweepOptions::new(&out2);
    opts.resume = true;
    let r = run_with(1, &g, &opts);
    assert_eq!((r.reused, r.computed), (1, 7));
    assert_eq!(read(&out2), expected);
}

#[test]
fn resume_recomputes_a_point_whose_rows_do_not_read_and_holds_the_files_it_wrote() {
    let g = karate(&["seed=1..3"]);
    let (_d, full) = tmp("held_full");
    let (report, files) =
        privdiffuse::io::sweep::run_sweep_held(&g, &SweepOptions::new(&full)).unwrap();
    assert!(report.complete);
    // The files held are the files written, byte for byte.
    let names: Vec<&str> = files.iter().map(|f| f.name).collect();
    assert_eq!(names, privdiffuse::io::sweep::SWEEP_FILES);
    for (f, side) in files.iter().zip(["", "summary.csv", "timings.csv"]) {
        let path = if side.is_empty() {
            full.clone()
        } else {
            side_file(&full, side)
        };
        assert_eq!(std::fs::read(&path).unwrap(), f.bytes, "{}", f.name);
        assert_eq!(
            f.columns().unwrap().unwrap().len() + 1,
            read(&path).lines().count()
        );
    }

    // Point 0's complete block with a value that does not read: recomputed.
    let (_d, out) = tmp("held_resume");
    let mut opts = SweepOptions::new(&out);
    opts.stop_after = Some(2);
    run_with(1, &g, &opts);
    let prog = side_file(&out, "progress");
    let p = read(&prog);
    let first = p.lines().nth(2).unwrap();
    let cut = first.rfind(',').unwrap();
    std::fs::write(&prog, p.replacen(first, &format!("{},x", &first[..cut]), 1)).unwrap();
    let mut opts = SweepOptions::new(&out);
    opts.resume = true;
    let r = run_with(1, &g, &opts);
    assert_eq!((r.reused, r.computed), (1, 2));
    assert_eq!(read(&out), read(&full));
}

#[test]
fn resistance_is_prepared_once_per_sweep() {
    let g = karate(&["distance=resistance", "seed=1..4", "bins=5,10"]);
    let (_d, out) = tmp("cache");
    let r = run_with(2, &g, &SweepOptions::new(&out));
    assert_eq!(r.points, 8);
    assert_eq!(r.prepared(DistanceKind::Resistance), 1);
    assert_eq!(r.graphs_loaded, 1);
    let g = karate(&["distance=hop,resistance", "seed=1..2"]);
    let r = run_with(2, &g, &SweepOptions::new(&out));
    assert_eq!(r.prepared(DistanceKind::Resistance), 1);
    assert_eq!(r.prepared(DistanceKind::Hop), 1);
}

#[test]
fn dimension_sweep_jumps_per_path_match_theory() {
    let grid = Grid::from_toml(Path::new("examples/sweeps/dimension.toml")).unwrap();
    let (_d, out) = tmp("dim");
    let r = run_with(2, &grid, &SweepOptions::new(&out));
    assert_eq!(r.points, 4);
    let text = read(&out);
    let value = |dim: &str, metric: &str| -> f64 {
        text.lines()
            .find(|l| l.starts_with(&format!("{dim},correlated,,,{metric},")))
            .and_then(|l| l.rsplit(',').next())
            .unwrap()
            .parse()
            .unwrap()
    };
    for dim in ["1", "2", "5", "20"] {
        let (emp, th) = (
            value(dim, "jumps_per_path"),
            value(dim, "jumps_per_path_theory"),
        );
        // Jumps of one path are Poisson with mean μ ≈ th, over 150 owners:
        // s.e. of the mean ≈ √(th/150); allow 6 s.e.
        let se = (th / 150.0).sqrt();
        assert!(
            (emp - th).abs() < 6.0 * se,
            "dim {dim}: {emp} vs {th} (se {se})"
        );
    }
    // And the theory is (n+1)·ln(ε_max/ε_min) with ε from 15 down to 0.5 at
    // the farthest owner: n = 20 needs more jumps than n = 1.
    assert!(value("20", "jumps_per_path_theory") > 5.0 * value("1", "jumps_per_path_theory"));
}

#[test]
fn plots_are_drawn_beside_the_csv() {
    let g = karate(&["dim=1,2", "norm=l1,l2"]);
    let (_d, out) = tmp("plot");
    let mut opts = SweepOptions::new(&out);
    opts.plot = Some(privdiffuse::io::PlotSpec {
        x: "dim".into(),
        metrics: vec!["mse".into(), "jumps_per_path".into()],
        at: vec![1.0, 2.0],
        only: vec![],
        ..Default::default()
    });
    let r = run_with(2, &g, &opts);
    assert_eq!(r.figures.len(), 2);
    for f in &r.figures {
        assert!(
            std::fs::metadata(f).unwrap().len() > 1000,
            "{}",
            f.display()
        );
    }
    // An --x that is not a grid key is refused before anything runs.
    let (_d, out) = tmp("plot2");
    let mut opts = SweepOptions::new(out);
    opts.plot = Some(privdiffuse::io::PlotSpec {
        x: "delta".into(),
        metrics: vec!["mse".into()],
        at: vec![],
        only: vec![],
        ..Default::default()
    });
    let e = run_sweep(&g, &opts).unwrap_err();
    assert!(e.to_string().contains("delta"), "{e}");
    // So are an unknown metric and a collusion metric without a coalition.
    for (metric, needle) in [("msee", "one of mse"), ("gain", "need a coalition")] {
        let (_d, out) = tmp("plot3");
        let mut opts = SweepOptions::new(&out);
        opts.plot = Some(privdiffuse::io::PlotSpec {
            x: "dim".into(),
            metrics: vec![metric.into()],
            at: vec![],
            only: vec![],
            ..Default::default()
        });
        let e = run_sweep(&g, &opts).unwrap_err();
        assert!(e.to_string().contains(needle), "{e}");
        assert!(!out.exists(), "{metric}: nothing may run before the check");
    }
}

#[test]
fn coalition_axis_adds_gain_and_accounting_rows() {
    let mut g = karate(&["coalition=nearest:m=3|random:m=8"]);
    g.add_base("estimators", "best,ivw").unwrap();
    g.add_base("trials", "30").unwrap();
    g.add_base("owners", "4").unwrap();
    let (_d, out) = tmp("collude");
    let r = run_with(2, &g, &SweepOptions::new(&out));
    assert!(r.complete);
    let text = read(&out);
    // Collusion trials are as deterministic as the simulation.
    let (_d_one, one) = tmp("collude1");
    run_with(1, &g, &SweepOptions::new(&one));
    assert_eq!(read(&one), text);
    // The two specs' m (3 and 8) differ: a numeric coalition.m column.
    assert!(text.starts_with("coalition_spec,coalition.m,mechanism,estimator,coalition,metric,"));
    let get = |prefix: &str| -> Vec<f64> {
        text.lines()
            .filter(|l| l.starts_with(prefix))
            .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
            .collect()
    };
    for (spec, m) in [("nearest:m=3", 3), ("random:m=8", 8)] {
        let spec_m = format!("{spec},{m}");
        let max = get(&format!("{spec_m},,,{spec},eps_max,"));
        let sum = get(&format!("{spec_m},,,{spec},eps_sum,"));
        assert_eq!((max.len(), sum.len()), (1, 1), "{spec}");
        assert!(max[0] > 0.0 && sum[0] >= max[0], "{spec}: {max:?} {sum:?}");
        // The best member against itself: gain exactly 1 under both mechanisms.
        for mech in ["correlated", "independent"] {
            for metric in ["gain_mean", "gain_median"] {
                let best = get(&format!("{spec_m},{mech},best,{spec},{metric},"));
                assert_eq!(best.len(), 1);
                assert!((best[0] - 1.0).abs() < 1e-12, "{spec} {mech}: {best:?}");
                assert_eq!(
                    get(&format!("{spec_m},{mech},ivw,{spec},{metric},")).len(),
                    1
                );
            }
        }
    }
}

/// The rows of one point, key columns included, keyed by the text after the
/// first `skip` cells (the keys that differ between the grids compared).
fn rows_of(text: &str, starts: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.starts_with(starts))
        .map(String::from)
        .collect()
}

/// A sweep point's numbers do not depend on the other points of the grid:
/// m = 5 alone, or between m = 2 and m = 10 (its coalition drawn by its own
/// spec's stream, its owners by its own seed), gives the same rows.
#[test]
fn a_points_numbers_do_not_depend_on_the_grid() {
    let grid = |ms: &str| {
        let mut g = karate(&[&format!("m={ms}"), "seed=1,2"]);
        g.add_base("coalition", "random:m={m},min-d=2;nearest:m=3")
            .unwrap();
        g.add_base("trials", "40").unwrap();
        g.add_base("estimators", "best,ivw,pitman").unwrap();
        g
    };
    let ((_da, a), (_db, b)) = (tmp("alone"), tmp("among"));
    run_with(2, &grid("5"), &SweepOptions::new(&a));
    run_with(2, &grid("2,5,10"), &SweepOptions::new(&b));
    let (a, b) = (read(&a), read(&b));
    for seed in ["1", "2"] {
        let prefix = format!("5,{seed},");
        let alone = rows_of(&a, &prefix);
        assert!(alone.len() > 20, "{}", alone.len());
        assert_eq!(alone, rows_of(&b, &prefix), "seed {seed}");
    }
}

/// `dry_run` validates and estimates, and runs nothing: no CSV, no side
/// file, no progress file.
#[test]
fn dry_run_runs_nothing() {
    let mut g = karate(&["m=2,4", "seed=1..3"]);
    g.add_base("coalition", "random:m={m}").unwrap();
    g.add_base("trials", "50").unwrap();
    let (_d, out) = tmp("dry");
    let mut opts = SweepOptions::new(&out);
    opts.dry_run = true;
    opts.plot = Some(privdiffuse::io::PlotSpec {
        x: "m".into(),
        metrics: vec!["gain_median".into()],
        ..Default::default()
    });
    let r = run_with(2, &g, &opts);
    let e = r.estimate.expect("an estimate");
    assert_eq!(e.points.len(), 6);
    // collude's default: 20 owners; 2 mechanisms × 1 coalition × 50 trials.
    assert!(
        e.points
            .iter()
            .all(|p| p.owners == 20 && p.trials == 20 * 2 * 50)
    );
    assert!(e.seconds > 0.0 && e.seconds.is_finite());
    assert_eq!(r.computed, 0);
    let dir = out.parent().unwrap();
    let left: Vec<_> = std::fs::read_dir(dir).unwrap().collect();
    assert!(left.is_empty(), "a dry run wrote {left:?}");
}

/// STEM.summary.csv: per point without its seed, the mean, standard error
/// and count over the seeds, computed here from the raw CSV.
#[test]
fn summary_pools_the_seeds() {
    let g = karate(&["dim=1,2", "seed=1..4"]);
    let (_d, out) = tmp("summary");
    run_with(2, &g, &SweepOptions::new(&out));
    let raw = read(&out);
    let summary = read(&side_file(&out, "summary.csv"));
    let mut lines = summary.lines();
    assert_eq!(
        lines.next().unwrap(),
        "dim,mechanism,estimator,coalition,metric,distance_lo,distance_hi,mean,se,n"
    );
    for dim in ["1", "2"] {
        let xs: Vec<f64> = raw
            .lines()
            .filter(|l| l.starts_with(&format!("{dim},")) && l.contains(",jumps_per_path,"))
            .map(|l| l.rsplit(',').next().unwrap().parse().unwrap())
            .collect();
        assert_eq!(xs.len(), 4);
        let mean = xs.iter().sum::<f64>() / 4.0;
        let sd = (xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / 3.0).sqrt();
        let row = summary
            .lines()
            .find(|l| l.starts_with(&format!("{dim},correlated,,,jumps_per_path,")))
            .unwrap();
        let f: Vec<f64> = row
            .rsplit(',')
            .take(3)
            .map(|c| c.parse().unwrap())
            .collect();
        let (n, se, m) = (f[0], f[1], f[2]);
        assert_eq!(n, 4.0);
        assert!((m - mean).abs() < 1e-12 * mean.abs().max(1.0), "{m} {mean}");
        assert!((se - sd / 2.0).abs() < 1e-12 * sd.max(1.0), "{se} {sd}");
    }
}
