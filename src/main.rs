//! The `privdiffuse` command: parse, dispatch to the library, map errors to exit
//! codes (0 ok, 1 runtime or input error, 2 usage error).

use clap::{CommandFactory, FromArgMatches};
use privdiffuse::cli::Cli;
use std::process::ExitCode;

/// Crate version plus the git commit when built from a checkout (build.rs).
const VERSION: &str = env!("PRIVDIFFUSE_VERSION");

fn main() -> ExitCode {
    let matches = match Cli::command().version(VERSION).try_get_matches() {
        Ok(m) => m,
        Err(e) => {
            let _ = e.print();
            return if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            };
        }
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => {
            let _ = e.print();
            return ExitCode::from(2);
        }
    };
    match privdiffuse::cli::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if is_broken_pipe(&e) {
                // `privdiffuse path ... | head`: the reader left; not an error.
                return ExitCode::SUCCESS;
            }
            // `{:#}` prints the context chain on one line and never the
            // backtrace (RUST_BACKTRACE may be set in the environment).
            eprintln!("error: {e:#}");
            let usage = e
                .downcast_ref::<privdiffuse::Error>()
                .is_some_and(|e| e.is_usage());
            ExitCode::from(if usage { 2 } else { 1 })
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || matches!(c.downcast_ref::<privdiffuse::Error>(),
                Some(privdiffuse::Error::Io { error, .. }) if error.kind() == std::io::ErrorKind::BrokenPipe)
    })
}
