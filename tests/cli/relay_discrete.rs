//! `privdiffuse relay --noise discrete` through the binary: every answer
//! identical to `simulate --noise discrete`'s, byte-identical files on 1 and
//! 3 threads and again from the summary, the noise recorded, integer
//! message sizes, `--rng os` refused in one line.

use crate::support::scratch::scratch;
use std::fs;
use std::process::{Command, Output};

fn relay(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .env_remove("RUST_BACKTRACE")
        .arg("relay")
        .args(args)
        .output()
        .unwrap()
}

const KARATE: &[&str] = &[
    "--graph",
    "data/karate.edges",
    "--eps",
    "exp:a=3,b=0.8",
    "--dim",
    "1",
    "--norm",
    "l1",
    "--seed",
    "9",
    "--noise",
    "discrete",
    "--granularity",
    "2^-8",
    "--levels-per-doubling",
    "16",
    "-q",
    "--no-plots",
];

#[test]
fn discrete_relay_end_to_end() {
    let d = scratch("files");
    let mut outs = Vec::new();
    for t in ["1", "3"] {
        let out = d.join(t);
        let mut args = KARATE.to_vec();
        args.extend(["--untrimmed", "0,0.2", "--threads", t]);
        args.extend(["--out", out.to_str().unwrap()]);
        let o = relay(&args);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        outs.push(out);
    }
    let again = d.join("again");
    let summary = outs[0].join("summary.json");
    let o = relay(&[
        "--config",
        summary.to_str().unwrap(),
        "-q",
        "--no-plots",
        "--out",
        again.to_str().unwrap(),
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    for f in ["relay.csv", "relay_by_distance.csv", "summary.json"] {
        let a = fs::read(outs[0].join(f)).unwrap();
        assert_eq!(a, fs::read(outs[1].join(f)).unwrap(), "{f}: threads");
        assert_eq!(a, fs::read(again.join(f)).unwrap(), "{f}: --config");
    }
    let s: serde_json::Value =
        serde_json::from_str(&fs::read_to_string(&summary).unwrap()).unwrap();
    assert_eq!(s["discrete"]["delta_z"], 256);
    assert_eq!(s["discrete"]["levels_per_doubling"], 16);
    assert_eq!(s["discrete"]["rng"], "seeded");
    assert_eq!(s["config"]["sim"]["noise"], "discrete");
    assert!(s["bytes"].as_str().unwrap().contains("4 + 8n"));
    for t in s["totals"].as_array().unwrap() {
        assert_eq!(t["identical"], t["recipients"]);
        assert_eq!(t["recipients"], 34 * 33);
    }
    // Sizes: each message 8 bytes plus 12 per integer breakpoint (n = 1).
    let csv = fs::read_to_string(outs[0].join("relay.csv")).unwrap();
    for l in csv.lines().skip(1) {
        let r: Vec<&str> = l.split(',').collect();
        let (messages, bytes): (u64, u64) = (r[3].parse().unwrap(), r[4].parse().unwrap());
        assert_eq!((bytes - 8 * messages) % 12, 0, "{l}");
        assert!(bytes > 8 * messages, "{l}");
        assert_eq!(r[5], r[6], "identical: {l}");
    }
    let _ = fs::remove_dir_all(&d);
}

#[test]
fn discrete_relay_refuses_the_os_generator_in_one_line() {
    let d = scratch("os");
    let out = d.join("r");
    let mut args = KARATE.to_vec();
    args.extend(["--rng", "os", "--out", out.to_str().unwrap()]);
    let o = relay(&args);
    let e = String::from_utf8_lossy(&o.stderr).into_owned();
    assert_eq!(o.status.code(), Some(2), "{e}");
    assert_eq!(e.trim_end().lines().count(), 1, "{e}");
    assert!(e.contains("rng") && e.contains("seeded"), "{e}");
    assert!(!out.exists(), "no half-written output");
    let _ = fs::remove_dir_all(&d);
}
