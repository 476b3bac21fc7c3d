//! `--noise discrete` across commands (issue 25): collude's `summary.json`
//! records the discrete noise as simulate's does (and a Laplace summary has
//! no such record); the sweep keys `noise`, `granularity` and
//! `levels_per_doubling`, in [base] and in [grid], give the numbers of the
//! single `simulate` and `collude` runs.

use crate::support::scratch::scratch as tmpdir;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    let o = Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    assert!(
        o.status.success(),
        "{args:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    o
}

fn karate() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/karate.edges")
        .display()
        .to_string()
}

fn json(p: &Path) -> serde_json::Value {
    serde_json::from_str(&std::fs::read_to_string(p).unwrap()).unwrap()
}

const BASE: [&str; 8] = [
    "--values",
    "uniform:0,1",
    "--dim",
    "1",
    "--norm",
    "l1",
    "--eps",
    "exp:a=2,b=0.7",
];

/// The [base] of a sweep file: BASE's options and `extra` lines.
fn sweep_file(dir: &Path, name: &str, extra: &str, grid: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(
        &p,
        format!(
            "[base]\ngraph = \"{}\"\nvalues = \"uniform:0,1\"\ndim = 1\nnorm = \"l1\"\n\
             eps = \"exp:a=2,b=0.7\"\n{extra}\n[grid]\n{grid}\n",
            karate()
        ),
    )
    .unwrap();
    p
}

/// collude's summary: the discrete record with `--noise discrete` (the
/// fields of simulate's), none under Laplace.
#[test]
fn collude_summary_records_the_discrete_noise() {
    let dir = tmpdir("collude");
    let g = karate();
    let common = [
        "--graph",
        &g,
        "--coalition",
        "nearest:m=3",
        "--trials",
        "30",
        "--owners",
        "4",
        "--estimators",
        "best,ivw",
        "--no-plots",
        "--seed",
        "1",
    ];
    let (d, l, s) = (dir.join("d"), dir.join("l"), dir.join("s"));
    run(&[
        &["collude"][..],
        &BASE,
        &common,
        &["--noise", "discrete", "--granularity", "2^-6"],
        &["--out", d.to_str().unwrap()],
    ]
    .concat());
    run(&[
        &["collude"][..],
        &BASE,
        &common,
        &["--out", l.to_str().unwrap()],
    ]
    .concat());
    run(&[
        &["simulate"][..],
        &BASE,
        &["--graph", &g, "--no-plots", "--seed", "1"],
        &[
            "--noise",
            "discrete",
            "--granularity",
            "2^-6",
            "--out",
            s.to_str().unwrap(),
        ],
    ]
    .concat());
    let (dj, lj, sj) = (
        json(&d.join("summary.json")),
        json(&l.join("summary.json")),
        json(&s.join("summary.json")),
    );
    let rec = &dj["discrete"];
    assert_eq!(rec["noise"], "discrete");
    assert_eq!(rec["granularity"], "2^-6");
    assert_eq!(rec["granularity_value"], 0.015625);
    assert_eq!(rec["levels_per_doubling"], 32);
    assert_eq!(rec["delta_z"], 64);
    assert_eq!(rec["rng"], "seeded");
    assert_eq!(rec, &sj["discrete"], "the same record as simulate's");
    assert!(lj.get("discrete").is_none(), "{lj}");
    let text = std::fs::read_to_string(l.join("summary.json")).unwrap();
    // (The scratch directory's name holds "discrete": look for the keys.)
    assert!(
        !text.contains("\"discrete\"") && !text.contains("delta_z"),
        "{text}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

/// A sweep with `noise = "discrete"` in [base] (and `granularity`,
/// `levels_per_doubling` on its grid) gives simulate's by_distance numbers
/// for each point; with `noise` on the grid, a collusion point gives
/// collude's pooled gains.
#[test]
fn sweep_noise_keys_equal_single_runs() {
    let dir = tmpdir("sweep");
    let g = karate();
    let f = sweep_file(
        &dir,
        "a.toml",
        "noise = \"discrete\"",
        "levels_per_doubling = [8, 32]\ngranularity = [\"2^-10\", \"2^-6\"]\nseed = [1, 2]",
    );
    let out = dir.join("a.csv");
    run(&[
        "sweep",
        "--config",
        f.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    assert!(
        text.starts_with("levels_per_doubling,granularity,seed,mechanism,"),
        "{text}"
    );
    let mut compared = 0;
    for (m, gr, seed) in [
        ("8", "2^-10", "1"),
        ("32", "2^-6", "2"),
        ("32", "2^-10", "1"),
    ] {
        let s = dir.join(format!("s{m}{seed}{}", gr.len()));
        run(&[
            &["simulate"][..],
            &BASE,
            &["--graph", &g, "--no-plots", "--seed", seed],
            &[
                "--noise",
                "discrete",
                "--granularity",
                gr,
                "--levels-per-doubling",
                m,
            ],
            &["--out", s.to_str().unwrap()],
        ]
        .concat());
        let by = std::fs::read_to_string(s.join("by_distance.csv")).unwrap();
        for row in by.lines().skip(1) {
            // mechanism,distance_lo,distance_hi,count,mean_eps,mse,mse_se,mse_theory
            let c: Vec<&str> = row.split(',').collect();
            for (metric, v) in [("mse", c[5]), ("mse_se", c[6]), ("mse_theory", c[7])] {
                let line = format!("{m},{gr},{seed},{},,,{metric},{},{},{v}", c[0], c[1], c[2]);
                assert!(text.lines().any(|l| l == line), "missing {line}");
                compared += 1;
            }
        }
    }
    assert!(compared >= 3 * 2 * 3 * 3, "{compared}");
    // noise on the grid, with a coalition: collude's numbers.
    let f = sweep_file(
        &dir,
        "b.toml",
        "coalition = \"nearest:m=3\"\ntrials = 30\nowners = 4\nestimators = \"best,ivw\"\nseed = 1",
        "noise = [\"laplace\", \"discrete\"]",
    );
    let out = dir.join("b.csv");
    run(&[
        "sweep",
        "--config",
        f.to_str().unwrap(),
        "--out",
        out.to_str().unwrap(),
    ]);
    let text = std::fs::read_to_string(&out).unwrap();
    for noise in ["laplace", "discrete"] {
        let c = dir.join(format!("c-{noise}"));
        run(&[
            &["collude"][..],
            &BASE,
            &[
                "--graph",
                &g,
                "--coalition",
                "nearest:m=3",
                "--trials",
                "30",
                "--owners",
                "4",
            ],
            &[
                "--estimators",
                "best,ivw",
                "--no-plots",
                "--seed",
                "1",
                "--noise",
                noise,
            ],
            &["--out", c.to_str().unwrap()],
        ]
        .concat());
        let sj = json(&c.join("summary.json"));
        for p in sj["pooled"].as_array().unwrap() {
            let (mech, est) = (
                p["mechanism"].as_str().unwrap(),
                p["estimator"].as_str().unwrap(),
            );
            let gain = p["mean_gain"].as_f64().unwrap();
            let line = format!("{noise},{mech},{est},nearest:m=3,gain_mean,,,");
            let got: Vec<f64> = text
                .lines()
                .filter_map(|l| l.strip_prefix(&line))
                .map(|v| v.parse().unwrap())
                .collect();
            assert_eq!(got, vec![gain], "{line}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The public bound comes first: a value model whose range exceeds the
/// grid's 2^52 steps is refused before anything runs (naming the model and
/// `--granularity`); nothing is left behind. (A `file:` secret beyond it is
/// refused naming its owner, never the value: a rule of `trust::rules`.)
#[test]
fn the_public_bound_is_checked_before_the_secrets() {
    let dir = tmpdir("bound");
    let g = karate();
    let out = dir.join("run");
    let o = Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .args([
            "simulate",
            "--graph",
            &g,
            "--dim",
            "1",
            "--norm",
            "l1",
            "--no-plots",
        ])
        .args(["--noise", "discrete", "--values", "uniform:0,1e13", "--out"])
        .arg(&out)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap();
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert!(e.contains("--values") && e.contains("--granularity"), "{e}");
    assert_eq!(e.lines().count(), 1, "{e}");
    assert!(!out.exists());
    // A coarser grid holds the same model.
    run(&[
        "simulate",
        "--graph",
        &g,
        "--dim",
        "1",
        "--norm",
        "l1",
        "--no-plots",
        "--noise",
        "discrete",
        "--values",
        "uniform:0,1e13",
        "--granularity",
        "2^0",
        "--out",
        out.to_str().unwrap(),
    ]);
    let _ = std::fs::remove_dir_all(&dir);
}
