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
    // Rebuild when HEAD moves. In a linked worktree `.git` is a file, so ask
    // git where HEAD (per worktree) and the refs (shared) really live.
    let git_path = |arg: &str| {
        Command::new("git")
            .args(["rev-parse", arg])
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    let git_dir = git_path("--git-dir").unwrap_or_else(|| ".git".into());
    let common_dir = git_path("--git-common-dir").unwrap_or_else(|| git_dir.clone());
    let watched = [
        Path::new(&git_dir).join("HEAD"),
        Path::new(&common_dir).join("refs/heads"),
        Path::new(&common_dir).join("packed-refs"),
    ];
    for p in watched {
        if p.exists() {
            println!("cargo:rerun-if-changed={}", p.display());
        }
    }
    println!("cargo:rerun-if-changed=build.rs");
}
