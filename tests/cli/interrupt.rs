//! An interrupted run (Ctrl-C, SIGTERM) leaves neither its output directory
//! nor its staging directory behind.
#![cfg(unix)]

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

fn staging_entries(parent: &Path) -> Vec<String> {
    std::fs::read_dir(parent)
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.starts_with(".run.tmp-"))
        .collect()
}

#[test]
fn interrupted_simulate_removes_its_staging_directory() {
    let bin = env!("CARGO_BIN_EXE_privdiffuse");
    let dir = std::env::temp_dir().join(format!("privdiffuse-interrupt-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let graph = dir.join("g.edges");
    let made = Command::new(bin)
        .args([
            "generate", "er", "--n", "20000", "--m", "100000", "--seed", "1", "--out",
        ])
        .arg(&graph)
        .output()
        .unwrap();
    assert!(made.status.success());
    let out = dir.join("run");
    for signal in ["-INT", "-TERM"] {
        // All 20,000 owners: far longer than it takes to interrupt.
        let mut child = Command::new(bin)
            .args([
                "simulate",
                "--owners",
                "all",
                "--values",
                "uniform:0,1",
                "--dim",
                "1",
            ])
            .args(["--no-plots", "--quiet", "--graph"])
            .arg(&graph)
            .arg("--out")
            .arg(&out)
            .stderr(Stdio::null())
            .spawn()
            .unwrap();
        let t0 = Instant::now();
        while staging_entries(&dir).is_empty() && t0.elapsed() < Duration::from_secs(60) {
            if child.try_wait().unwrap().is_some() {
                break;
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        let pid = child.id().to_string();
        let killed = Command::new("kill").args([signal, &pid]).status();
        let status = child.wait().unwrap();
        if status.success() || killed.map_or(true, |s| !s.success()) {
            crate::skip::skipped(&format!(
                "{signal}: the run ended before it could be interrupted"
            ));
            let _ = std::fs::remove_dir_all(&out);
            continue;
        }
        assert_eq!(status.code(), Some(130), "{signal}");
        assert!(!out.exists(), "{signal}: a partial output directory");
        assert!(
            staging_entries(&dir).is_empty(),
            "{signal}: staging left behind: {:?}",
            staging_entries(&dir)
        );
    }
    std::fs::remove_dir_all(&dir).unwrap();
}
