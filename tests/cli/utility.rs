//! `privdiffuse utility` through the binary: the files and their columns,
//! byte-identical outputs on 1, 2 and 4 threads, `--force`, refusals.

use crate::support::scratch::scratch;
use std::fs;
use std::path::Path;
use std::process::{Command, Output};

fn bin() -> Command {
    let mut c = Command::new(env!("CARGO_BIN_EXE_privdiffuse"));
    c.env_remove("RUST_BACKTRACE");
    c
}

fn utility(args: &[&str]) -> Output {
    bin().arg("utility").args(args).output().unwrap()
}

fn read(p: &Path) -> String {
    fs::read_to_string(p).unwrap()
}

#[test]
fn writes_its_files_identically_on_1_2_and_4_threads() {
    let d = scratch("threads");
    let mut outs = Vec::new();
    for t in ["1", "2", "4"] {
        let out = d.join(t);
        let o = utility(&[
            "--out",
            out.to_str().unwrap(),
            "--threads",
            t,
            "--replicates",
            "3",
            "--recipients",
            "--dim",
            "1",
            "--norm",
            "l1",
            "--values",
            "bits:0.4",
            "--post",
            "bit",
            "-q",
        ]);
        assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        outs.push(out);
    }
    for f in ["utility.csv", "recipients.csv", "summary.json"] {
        let a = fs::read(outs[0].join(f)).unwrap();
        for o in &outs[1..] {
            assert_eq!(a, fs::read(o.join(f)).unwrap(), "{f}");
        }
    }
    for f in ["utility.png", "utility.svg", "timings.json"] {
        assert!(outs[0].join(f).is_file(), "{f}");
    }
    let csv = read(&outs[0].join("utility.csv"));
    let mut lines = csv.lines();
    assert_eq!(
        lines.next(),
        Some("scheme,degree_lo,degree_hi,recipients,mse,mse_se,mse_theory")
    );
    let schemes: Vec<&str> = lines
        .clone()
        .map(|l| l.split(',').next().unwrap())
        .collect();
    for s in [
        "correlated",
        "independent",
        "correlated-debiased",
        "independent-debiased",
        "access",
        "correlated-shrinkage",
        "independent-shrinkage",
    ] {
        assert!(schemes.contains(&s), "{s}");
        // One all-recipients row per scheme, with 150 recipients.
        let all: Vec<&str> = lines
            .clone()
            .filter(|l| l.starts_with(&format!("{s},,,")))
            .collect();
        assert_eq!(all.len(), 1, "{s}");
        assert!(all[0].starts_with(&format!("{s},,,150,")));
    }
    // Access and shrinkage: theory empty; other random schemes: se and
    // theory present.
    for l in csv.lines().skip(1) {
        let f: Vec<&str> = l.split(',').collect();
        assert_eq!(f.len(), 7, "{l}");
        assert!(!f[5].is_empty(), "{l}");
        assert_eq!(
            f[6].is_empty(),
            f[0] == "access" || f[0].ends_with("-shrinkage"),
            "{l}"
        );
    }
    let rec = read(&outs[0].join("recipients.csv"));
    assert!(rec.starts_with(
        "id,degree,n_values,mean,correlated,independent,correlated-debiased,independent-debiased,access,correlated-shrinkage,independent-shrinkage\n"
    ));
    assert_eq!(rec.lines().count(), 151);
}

#[test]
fn one_replicate_leaves_se_empty_and_force_replaces() {
    let d = scratch("one");
    let out = d.join("u");
    let args = ["--out", out.to_str().unwrap(), "--no-plots", "-q"];
    let o = utility(&args);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    assert!(!out.join("recipients.csv").exists());
    assert!(!out.join("utility.png").exists());
    for l in read(&out.join("utility.csv")).lines().skip(1) {
        assert_eq!(l.split(',').nth(5), Some(""), "{l}");
    }
    // Exclusive output: refused without --force, replaced with it.
    let o = utility(&args);
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(String::from_utf8_lossy(&o.stderr).contains("--force"));
    let mut forced = args.to_vec();
    forced.push("--force");
    assert!(utility(&forced).status.success());
}

#[test]
fn refusals_name_the_flag() {
    let d = scratch("bad");
    let out = d.join("u");
    let o = out.to_str().unwrap();
    for (args, flag) in [
        (vec!["--distance", "weighted"], "--distance"),
        (vec!["--post", "round"], "--post"),
        (vec!["--replicates", "0"], "--replicates"),
        (vec!["--post", "bit", "--dim", "2"], "--post"),
        (
            vec!["--values", "infection:seeds=2,frac=0.3", "--dim", "2"],
            "--values 'infection:seeds=2,frac=0.3': expected --dim 1",
        ),
        (
            vec!["--values", "sir:seeds=1,beta=0.1,gamma=0", "--dim", "1"],
            "--values",
        ),
    ] {
        let mut a = vec!["--out", o, "--no-plots", "-q"];
        a.extend(args.iter());
        let r = utility(&a);
        let err = String::from_utf8_lossy(&r.stderr);
        assert!(
            matches!(r.status.code(), Some(1) | Some(2)),
            "{args:?}: {err}"
        );
        assert!(err.contains(flag), "{args:?}: {err}");
        assert_eq!(err.trim().lines().count(), 1, "{err}");
        assert!(!out.exists());
    }
    let r = utility(&["--out", o, "--access-radius", "-1"]);
    assert_eq!(r.status.code(), Some(2));
}

/// `--ego` and `--subgraph` cut the graph as they do for `simulate` (the
/// command used to load the whole graph and record the view it ignored):
/// karate's ego of node 0 at radius 1 has 17 recipients, not 34; an id
/// outside the graph is refused.
#[test]
fn a_view_cuts_the_graph_it_runs_on() {
    let d = scratch("view");
    let karate = concat!(env!("CARGO_MANIFEST_DIR"), "/data/karate.edges");
    let run = |name: &str, extra: &[&str]| {
        let out = d.join(name);
        let mut args = vec!["--graph", karate, "--dim", "1", "--norm", "l1", "-q"];
        args.extend(["--no-plots", "--out", out.to_str().unwrap()]);
        args.extend(extra);
        (utility(&args), out)
    };
    // The all-degrees row of the correlated scheme counts the recipients.
    let recipients = |out: &Path| -> u64 {
        read(&out.join("utility.csv"))
            .lines()
            .find(|l| l.starts_with("correlated,,,"))
            .map(|l| l.split(',').nth(3).unwrap().parse::<u64>().unwrap())
            .unwrap()
    };
    let (o, whole) = run("whole", &[]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let (o, ego) = run("ego", &["--ego", "0"]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    // Node 0 and its 16 neighbours, against karate's 34 nodes.
    assert_eq!(recipients(&whole), 34);
    assert_eq!(recipients(&ego), 17);
    let (o, bad) = run("bad", &["--ego", "99"]);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("--ego '99'"));
    assert!(!bad.exists());
    fs::remove_dir_all(&d).unwrap();
}
