//! `relay --responses` (issue 33 item 13): the relay's answers, written so
//! they can be checked — byte for byte `simulate --mechanism correlated
//! --responses` with the same seed and options.

use super::common::*;

#[test]
fn relay_responses_are_simulates_byte_for_byte() {
    let dir = tmpdir("relay-responses");
    let cases: [(&str, &[&str]); 5] = [
        (
            "hop",
            &["--graph", "data/karate.edges", "--eps", "exp:a=3,b=1"],
        ),
        (
            "l2",
            &[
                "--graph",
                "data/geometric150.edges",
                "--dim",
                "2",
                "--owners",
                "20",
                "--seed",
                "5",
            ],
        ),
        (
            "weighted",
            &[
                "--graph",
                "tests/golden/karate_weighted.edges",
                "--distance",
                "weighted",
                "--eps",
                "exp:a=2,b=0.7",
                "--dim",
                "1",
                "--norm",
                "l1",
            ],
        ),
        (
            "discrete",
            &[
                "--graph",
                "data/karate.edges",
                "--noise",
                "discrete",
                "--dim",
                "1",
                "--norm",
                "l1",
            ],
        ),
        (
            "untrimmed",
            &[
                "--graph",
                "data/karate.edges",
                "--untrimmed",
                "0.3,0",
                "--seed",
                "3",
            ],
        ),
    ];
    for (name, args) in cases {
        let sim_args: Vec<&str> = args
            .iter()
            .copied()
            .filter(|a| *a != "--untrimmed" && *a != "0.3,0")
            .collect();
        let s = dir.join(format!("{name}-sim"));
        let r = dir.join(format!("{name}-relay"));
        ok(&bin()
            .arg("simulate")
            .args(&sim_args)
            .args([
                "--mechanism",
                "correlated",
                "--responses",
                "--no-plots",
                "--quiet",
                "--out",
            ])
            .arg(&s)
            .output()
            .unwrap());
        let o = bin()
            .arg("relay")
            .args(args)
            .args(["--responses", "--no-plots", "--quiet", "--out"])
            .arg(&r)
            .output()
            .unwrap();
        ok(&o);
        let want = std::fs::read(s.join("responses.csv")).unwrap();
        let got = std::fs::read(r.join("responses.csv")).expect("relay wrote no responses.csv");
        assert!(want.len() > 100, "{name}");
        assert!(
            got == want,
            "{name}: relay's responses.csv differs from simulate's"
        );
        // Recorded, so that `--config` re-runs it with the file.
        let summary = std::fs::read_to_string(r.join("summary.json")).unwrap();
        assert!(summary.contains("\"responses\": true"), "{name}: {summary}");
        if name == "hop" {
            let again = dir.join("hop-again");
            ok(&bin()
                .args(["relay", "--no-plots", "--quiet", "--config"])
                .arg(r.join("summary.json"))
                .arg("--out")
                .arg(&again)
                .output()
                .unwrap());
            assert_eq!(std::fs::read(again.join("responses.csv")).unwrap(), want);
        }
    }
    // Without the flag, no file (the outputs as before).
    let r = dir.join("plain");
    ok(&bin()
        .args([
            "relay",
            "--graph",
            "data/karate.edges",
            "--no-plots",
            "--quiet",
            "--out",
        ])
        .arg(&r)
        .output()
        .unwrap());
    assert!(!r.join("responses.csv").exists());
    let _ = std::fs::remove_dir_all(&dir);
}
