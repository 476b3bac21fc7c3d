//! Embeds the git commit (when built from a checkout) into `--version`.
use std::path::Path;
use std::process::Command;

fn main() {
    let hash = Command::new("git")
        .args(["rev-parse", "--short=10", "HEAD"])
        .output()
        .ok()
        .filter(|o| o.status.success())
        .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        .unwrap_or_default();
    let version = env!("CARGO_PKG_VERSION");
    let full = if hash.is_empty() {
        version.to_string()
    } else {
        format!("{version} (git {hash})")
    };
    println!("cargo:rustc-env=PRIVDIFFUSE_VERSION={full}");
    for p in [".git/HEAD", ".git/refs/heads", ".git/packed-refs"] {
        if Path::new(p).exists() {
            println!("cargo:rerun-if-changed={p}");
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
