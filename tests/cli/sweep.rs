//! `privdiffuse sweep` from the command line: exit codes and messages.

use std::process::Command;

fn sweep(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_privdiffuse"))
        .arg("sweep")
        .args(args)
        .output()
        .unwrap()
}

#[test]
fn malformed_grid_exits_2_naming_key_and_value() {
    let dir = std::env::temp_dir().join(format!("privdiffuse-sweep-cli-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("s.csv");
    let out = out.to_str().unwrap();
    for (args, needles) in [
        (vec!["--set", "colour=red"], vec!["colour"]),
        (vec!["--set", "dim=1,x"], vec!["dim", "x"]),
        (vec!["--set", "seed=3..1"], vec!["seed", "3..1"]),
        (vec!["--set", "eps=exp:a=1"], vec!["eps", "exp:a=1"]),
    ] {
        let mut a = args.clone();
        a.extend(["--out", out, "--quiet"]);
        let o = sweep(&a);
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{args:?}: {err}");
        for n in needles {
            assert!(err.contains(n), "{args:?}: '{err}' should name '{n}'");
        }
        assert!(
            !std::path::Path::new(out).exists(),
            "nothing runs before validation"
        );
    }
    let o = sweep(&[
        "--set",
        "graph=data/karate.edges",
        "--set",
        "values=uniform:0,1|",
        "--set",
        "dim=1,2",
        "--out",
        out,
        "--quiet",
        "--threads",
        "2",
    ]);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
    let text = std::fs::read_to_string(out).unwrap();
    assert!(text.starts_with("graph,values,dim,mechanism,"));
    assert!(text.contains("\n\"data/karate.edges\"") || text.contains("\ndata/karate.edges,"));
}
