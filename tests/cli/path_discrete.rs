//! `privdiffuse path --noise discrete` end to end (issue 25): rows at rungs
//! (the first at the rung of --eps-lo), values on the grid, the sidecar's
//! record of the noise, refusals in the command line's words, and the
//! default (laplace) output unchanged by the new flags' absence.

use crate::support::scratch::scratch;
use privdiffuse::process::discrete::{DiscreteNoise, Grid};
use std::process::{Command, Output};

fn run(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .args(args)
        .env_remove("RUST_BACKTRACE")
        .output()
        .expect("run privdiffuse")
}

const BASE: [&str; 9] = [
    "path", "--dim", "2", "--norm", "l1", "--eps-lo", "0.5", "--eps-hi", "15",
];

fn with(extra: &[&str]) -> Vec<String> {
    BASE.iter().chain(extra).map(|s| s.to_string()).collect()
}

fn ok(args: &[String]) -> String {
    let a: Vec<&str> = args.iter().map(String::as_str).collect();
    let o = run(&a);
    assert!(
        o.status.success(),
        "{a:?}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    String::from_utf8(o.stdout).expect("UTF-8")
}

#[test]
fn discrete_rows_sit_on_rungs_and_the_grid() {
    let csv = ok(&with(&[
        "--samples",
        "40",
        "--noise",
        "discrete",
        "--granularity",
        "2^-6",
        "--seed",
        "3",
    ]));
    let noise = DiscreteNoise::new(Grid::from_exponent(-6).unwrap(), 32, 1.0, 2).unwrap();
    let first = noise.eps_of(noise.rung_of(0.5).unwrap());
    let mut last_sample = None;
    let mut rows = 0;
    for line in csv.lines().skip(1) {
        let f: Vec<&str> = line.split(',').collect();
        assert_eq!(f.len(), 4, "{line}");
        let eps: f64 = f[1].parse().unwrap();
        assert_eq!(noise.eps_of(noise.rung_of(eps).unwrap()), eps, "{line}");
        if last_sample != Some(f[0]) {
            assert_eq!(eps, first, "{line}");
            last_sample = Some(f[0]);
        }
        for v in &f[2..] {
            let v: f64 = v.parse().unwrap();
            assert_eq!((v * 64.0).fract(), 0.0, "{line}");
        }
        rows += 1;
    }
    assert!(rows > 40 * 5, "{rows}");
    // Seeded: the same text again; another seed, another text.
    let again = ok(&with(&[
        "--samples",
        "40",
        "--noise",
        "discrete",
        "--granularity",
        "0.015625",
        "--seed",
        "3",
    ]));
    assert_eq!(csv, again);
    let other = ok(&with(&[
        "--samples",
        "40",
        "--noise",
        "discrete",
        "--granularity",
        "2^-6",
    ]));
    assert_ne!(csv, other);
    // Laplace: explicit or by default, the same bytes.
    assert_eq!(
        ok(&with(&["--samples", "3"])),
        ok(&with(&["--samples", "3", "--noise", "laplace"]))
    );
}

#[test]
fn discrete_sidecar_records_the_noise_and_refusals_name_flags() {
    let dir = scratch("sidecar");
    let out = dir.join("p.csv");
    let out_s = out.to_str().unwrap().to_string();
    ok(&with(&[
        "--noise",
        "discrete",
        "--rng",
        "os",
        "--levels-per-doubling",
        "8",
        "--out",
        &out_s,
    ]));
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("p.json")).unwrap()).unwrap();
    let d = &meta["discrete"];
    assert_eq!(d["noise"], "discrete");
    assert_eq!(d["rng"], "os");
    assert_eq!(d["granularity"], "2^-10");
    assert_eq!(d["levels_per_doubling"], 8);
    assert_eq!(d["delta_z"], 1025);
    // Laplace sidecars have no such key.
    ok(&with(&["--out", &out_s, "--force"]));
    let meta: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("p.json")).unwrap()).unwrap();
    assert!(meta.get("discrete").is_none());
    std::fs::remove_dir_all(&dir).unwrap();

    for (extra, want) in [
        (&["--granularity", "2^-3"][..], "--granularity"),
        (&["--rng", "os"][..], "--noise discrete"),
        (
            &["--noise", "discrete", "--granularity", "3"][..],
            "--granularity",
        ),
        (
            &["--noise", "discrete", "--levels-per-doubling", "0"][..],
            "--levels-per-doubling",
        ),
        (&["--noise", "gaussian"][..], "--noise"),
    ] {
        let a = with(extra);
        let a: Vec<&str> = a.iter().map(String::as_str).collect();
        let o = run(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert!(!o.status.success() && o.stdout.is_empty(), "{extra:?}");
        assert_eq!(err.lines().count(), 1, "{extra:?}: {err}");
        assert!(err.contains(want), "{extra:?}: {err}");
    }
    // ℓ2 in 2-D has no discrete form: the fix is named.
    let o = run(&[
        "path", "--dim", "2", "--norm", "l2", "--eps-lo", "1", "--eps-hi", "2", "--noise",
        "discrete",
    ]);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("--norm l1"), "{err}");
}
