//! The `privdiffuse` command: the library's command line (`privdiffuse::cli`,
//! feature `cli`) with this binary's allocator and version.

use std::process::ExitCode;

/// Out of memory is an error line and exit 1, not an abort (`cli/oom.rs`).
#[global_allocator]
static ALLOCATOR: privdiffuse::cli::ExitOnOom = privdiffuse::cli::ExitOnOom;

/// Crate version plus the git commit when built from a checkout (build.rs).
const VERSION: &str = env!("PRIVDIFFUSE_VERSION");

fn main() -> ExitCode {
    privdiffuse::cli::main(VERSION)
}
