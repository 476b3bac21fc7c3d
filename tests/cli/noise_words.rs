//! One word per concept on every face (issue 32): `noise` names the noise
//! (laplace | gaussian | discrete) and `mechanism` the coupling. `noise =
//! gaussian` and the older `mechanism = gaussian` give the same bytes on
//! every command and face that has a Gaussian form; where it contradicts
//! the coupling, or the command has none, it is refused in one line and
//! nothing is written. Python's face: `python/tests/test_noise_words.py`.

use crate::support::scratch::scratch;
use std::path::Path;
use std::process::{Command, Output};

fn run(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .args(args)
        .current_dir(dir)
        .env_remove("RUST_BACKTRACE")
        .output()
        .unwrap()
}

/// Runs `sweep` on the grid `toml` (written beside `out`) into `out`.
fn sweep_run(dir: &Path, toml: &str, out: &Path) -> Output {
    let file = out.with_extension("toml");
    std::fs::write(&file, toml).unwrap();
    let (file, out) = (file.to_str().unwrap(), out.to_str().unwrap());
    run(dir, &["sweep", "--config", file, "--out", out, "-q"])
}

fn karate() -> String {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("data/karate.edges")
        .display()
        .to_string()
}

/// Every file of `dir` but `timings.json` (seconds differ between runs).
fn files(dir: &Path) -> Vec<(String, Vec<u8>)> {
    let mut v: Vec<_> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.file_name().unwrap() != "timings.json")
        .map(|p| {
            (
                p.file_name().unwrap().to_string_lossy().into_owned(),
                std::fs::read(&p).unwrap(),
            )
        })
        .collect();
    v.sort();
    v
}

/// (command, its own flags, the new spelling, the older one)
type Row<'a> = (&'a str, &'a [&'a str], &'a [&'a str], &'a [&'a str]);

#[test]
fn noise_gaussian_is_the_older_mechanism_gaussian_on_every_face() {
    let dir = scratch("noise-words");
    let g = karate();
    let common = [
        "--graph",
        g.as_str(),
        "--dim",
        "1",
        "--eps",
        "exp:a=3,b=1",
        "-q",
        "--no-plots",
    ];
    // (command, its own flags, the two spellings)
    let rows: &[Row] = &[
        (
            "simulate",
            &["--owners", "3"],
            &["--noise", "gaussian"],
            &["--mechanism", "gaussian"],
        ),
        (
            "simulate",
            &["--owners", "3", "--delta", "1e-6"],
            &["--noise", "gaussian", "--mechanism", "correlated"],
            &["--mechanism", "gaussian"],
        ),
        (
            "collude",
            &[
                "--owners",
                "2",
                "--coalition",
                "far:min-d=2",
                "--trials",
                "50",
            ],
            &["--noise", "gaussian"],
            &["--mechanism", "gaussian"],
        ),
    ];
    for (i, (cmd, own, new, old)) in rows.iter().enumerate() {
        let mut outs = Vec::new();
        for (j, spelling) in [new, old].iter().enumerate() {
            let out = dir.join(format!("{i}-{j}"));
            let mut args = vec![*cmd, "--out", out.to_str().unwrap()];
            args.extend(common);
            args.extend(own.iter());
            args.extend(spelling.iter());
            let o = run(&dir, &args);
            assert!(
                o.status.success(),
                "{args:?}: {}",
                String::from_utf8_lossy(&o.stderr)
            );
            outs.push(files(&out));
        }
        assert_eq!(outs[0], outs[1], "{cmd} {new:?} against {old:?}");
        assert!(
            String::from_utf8_lossy(&outs[0].iter().find(|(n, _)| n == "summary.json").unwrap().1)
                .contains("\"mechanism\": \"gaussian\"")
        );
    }
    // relax: the release (the CSV of a seeded run) is the same.
    let mut csvs = Vec::new();
    for spelling in [["--noise", "gaussian"], ["--mechanism", "gaussian"]] {
        let out = dir.join(format!("relax-{}.csv", spelling[0].trim_start_matches('-')));
        let mut args = vec![
            "relax", "--value", "0.25", "--eps", "0.5,2,1", "--delta", "1e-6",
        ];
        args.extend(spelling);
        args.extend(["--out", out.to_str().unwrap()]);
        let o = run(&dir, &args);
        assert!(
            o.status.success(),
            "{args:?}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        csvs.push(std::fs::read(&out).unwrap());
    }
    assert_eq!(csvs[0], csvs[1], "relax");
    // sweep: a grid over `noise` gives the rows a grid over `mechanism` gives.
    let sweep = |key: &str, words: &str| {
        let out = dir.join(format!("{key}.csv"));
        let o = sweep_run(
            &dir,
            &format!(
                "[base]\ngraph = \"{g}\"\nowners = \"3\"\ndim = 1\n[grid]\n{key} = [{words}]\nseed = \"1..2\"\n"
            ),
            &out,
        );
        assert!(
            o.status.success(),
            "sweep {key}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
        let text = std::fs::read_to_string(out).unwrap();
        let gaussian: Vec<String> = text
            .lines()
            .filter(|l| l.starts_with("gaussian,"))
            .map(|l| l["gaussian,".len()..].to_string())
            .collect();
        assert!(gaussian.len() > 10, "{text}");
        gaussian
    };
    assert_eq!(
        sweep("noise", "\"gaussian\""),
        sweep("mechanism", "\"gaussian\"")
    );
}

#[test]
fn contradictions_and_commands_without_a_gaussian_form_are_refused() {
    let dir = scratch("noise-words-refused");
    let g = karate();
    let out = dir.join("o");
    let o_s = out.to_str().unwrap();
    // (args, words the one-line message holds)
    let rows: &[(&[&str], &[&str])] = &[
        (
            &["simulate", "--noise", "gaussian", "--mechanism", "both"],
            &["--mechanism 'both'", "correlated with --noise gaussian"],
        ),
        (
            &[
                "simulate",
                "--noise",
                "gaussian",
                "--mechanism",
                "independent",
            ],
            &["--mechanism 'independent'", "no independent Gaussian"],
        ),
        (
            &[
                "collude",
                "--noise",
                "gaussian",
                "--mechanism",
                "both",
                "--coalition",
                "random:m=2",
            ],
            &["--mechanism 'both'"],
        ),
        (
            &["simulate", "--noise", "laplace", "--mechanism", "gaussian"],
            &[
                "--mechanism 'gaussian'",
                "older spelling of --noise gaussian",
            ],
        ),
        (
            &["relay", "--noise", "gaussian"],
            &["--noise 'gaussian'", "relay has no Gaussian form"],
        ),
        (
            &["utility", "--noise", "gaussian"],
            &["--noise 'gaussian'", "utility has no Gaussian form"],
        ),
        (
            &["evolve", "--noise", "gaussian"],
            &["--noise", "laplace or discrete"],
        ),
        (
            &["path", "--noise", "gaussian"],
            &["--noise", "laplace or discrete"],
        ),
        (
            &["simulate", "--noise", "gausian"],
            &["did you mean `gaussian`"],
        ),
        (
            &[
                "relax",
                "--value",
                "0",
                "--eps",
                "1",
                "--noise",
                "gaussian",
                "--mechanism",
                "laplace",
            ],
            &["--mechanism 'laplace'", "correlated with --noise gaussian"],
        ),
        (
            &[
                "relax", "--value", "0", "--eps", "1", "--noise", "laplace", "--delta", "1e-6",
            ],
            &["--delta"],
        ),
    ];
    for (args, parts) in rows {
        let mut a: Vec<&str> = args.to_vec();
        if a[0] != "relax" && a[0] != "path" {
            a.extend(["--graph", g.as_str()]);
        }
        a.extend(["--out", o_s, "-q"]);
        if a[0] == "relax" || a[0] == "path" {
            a.retain(|x| *x != "-q");
        }
        let o = run(&dir, &a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{a:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{a:?}: {err}");
        for p in *parts {
            assert!(err.contains(p), "{a:?}: {p:?} not in {err}");
        }
        assert!(!out.exists(), "{a:?}: nothing written");
    }
    // A sweep point that contradicts itself stops the sweep before any point runs.
    let o = sweep_run(
        &dir,
        &format!(
            "[base]\ngraph = \"{g}\"\nnoise = \"gaussian\"\n[grid]\nmechanism = [\"correlated\", \"both\"]\n"
        ),
        &out,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(
        err.contains("mechanism=both") && err.contains("correlated with `noise` = gaussian"),
        "{err}"
    );
    assert!(!out.exists());
}
