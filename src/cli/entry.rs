//! The command's entry: parse, dispatch to the library, map errors to exit
//! codes (0 ok, 1 runtime or input error, 2 usage error).

use super::Cli;
use crate::util::lines::one_line;
use clap::error::{ContextKind, ContextValue};
use clap::{CommandFactory, FromArgMatches};
use std::process::ExitCode;

/// The command: `version` is what `--version` prints (the binary embeds
/// the git commit, see build.rs).
pub fn main(version: &'static str) -> ExitCode {
    // Before any thread allocates: one allocator arena under `ulimit -v`.
    crate::limits::fit_address_space_limit();
    // Ctrl-C or SIGTERM: remove staged outputs (no destructor runs on a
    // signal), then exit as a shell expects of an interrupted command.
    let _ = ctrlc::set_handler(|| {
        crate::util::atomic::remove_staged();
        std::process::exit(130);
    });
    let matches = match Cli::command().version(version).try_get_matches() {
        Ok(m) => m,
        Err(e) if !e.use_stderr() => {
            // --help, --version: printed as clap lays them out; a reader that
            // left (`| head`) is no error, a full or broken stdout is.
            use std::io::Write as _;
            return match e.print().and_then(|()| std::io::stdout().flush()) {
                Ok(()) => ExitCode::SUCCESS,
                Err(w) if w.kind() == std::io::ErrorKind::BrokenPipe => ExitCode::SUCCESS,
                Err(w) => {
                    eprintln!("error: <stdout>: {w}");
                    ExitCode::from(1)
                }
            };
        }
        Err(e) => return usage_error(&e),
    };
    let cli = match Cli::from_arg_matches(&matches) {
        Ok(c) => c,
        Err(e) => return usage_error(&e),
    };
    match super::run(cli) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            if is_broken_pipe(&e) {
                // `privdiffuse path ... | head`: the reader left; not an error.
                return ExitCode::SUCCESS;
            }
            // `{:#}` prints the context chain on one line and never the
            // backtrace (RUST_BACKTRACE may be set in the environment).
            // Control characters from file content or option values are
            // escaped: an error is one line.
            eprintln!("error: {}", one_line(&format!("{e:#}")));
            let usage = e
                .downcast_ref::<crate::Error>()
                .is_some_and(|e| e.is_usage());
            ExitCode::from(if usage { 2 } else { 1 })
        }
    }
}

/// Prints a command-line parsing error as one line (clap's usage block and
/// blank lines dropped, its hints kept after `;`) and returns exit code 2, so
/// every usage error reads like the tool's own: `error: … naming the argument`.
fn usage_error(e: &clap::Error) -> ExitCode {
    if e.kind() == clap::error::ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand {
        // `privdiffuse` alone: the overview is the useful answer.
        let _ = e.print();
        return ExitCode::from(2);
    }
    if let Some((line, code)) = super::flags::value_error(e) {
        // A spec refused by the library's parser: its own message, flag named.
        eprintln!("{}", one_line(&line));
        return ExitCode::from(code);
    }
    if let Some(line) = stray_value_error(e) {
        eprintln!("{line} (see --help)");
        return ExitCode::from(2);
    }
    let mut text = e.render().to_string();
    // A value holding a line break (`--trials $'1\n2'`) is quoted escaped,
    // before clap's own lines are joined.
    for kind in [ContextKind::InvalidValue, ContextKind::InvalidArg] {
        if let Some(ContextValue::String(v)) = e.get(kind)
            && one_line(v) != v.as_str()
        {
            text = text.replace(v.as_str(), &one_line(v));
        }
    }
    let mut line = String::new();
    for part in text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("Usage:"))
        .filter(|l| !l.starts_with("For more information"))
    {
        if !line.is_empty() {
            line.push_str(if line.ends_with(':') { " " } else { "; " });
        }
        line.push_str(part);
    }
    eprintln!("{} (see --help)", one_line(&line));
    ExitCode::from(2)
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
            || matches!(c.downcast_ref::<crate::Error>(),
                Some(crate::Error::Io { error, .. }) if error.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

/// A stray value (`relax --value 1 31415926535`: the second number is not
/// taken by `--value`) is never echoed: a private value is exactly what such
/// a slip puts there. (A misspelt flag, `--valeu=3`, clap already names
/// without its value.) `None` for other errors.
fn stray_value_error(e: &clap::Error) -> Option<String> {
    if e.kind() != clap::error::ErrorKind::UnknownArgument {
        return None;
    }
    match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(arg)) if !arg.starts_with('-') => Some(
            "error: unexpected argument (not shown: a value without its flag may be a secret; \
             a flag takes one value, a vector's numbers comma-separated: `--value 1,-2`)"
                .to_string(),
        ),
        _ => None,
    }
}
