//! The one place where the library's words become this program's: errors
//! name parameters as the API does (`eps_min`, in backticks when a message
//! refers to another parameter), and here they are rewritten into the flags of
//! the subcommand that ran (`--eps-min`). A name is rewritten only where the
//! subcommand has that flag, so `sweep` keeps its keys (`eps_min=…`) and a
//! flag a command lacks is never suggested.

use crate::Error;
use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// The (parameter, flag) pairs of `command` and of its own subcommands (as
/// `generate er`): each argument's id, which is the library's parameter name
/// (the field's name, or `id = …` where the field is named otherwise), with
/// its long flag. One description of each flag — clap's — so the table cannot
/// drift from the flags a command has.
fn pairs_of(command: &clap::Command) -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for c in std::iter::once(command).chain(command.get_subcommands()) {
        for a in c.get_arguments() {
            if let Some(long) = a.get_long() {
                let pair = (a.get_id().to_string(), format!("--{long}"));
                if !out.contains(&pair) {
                    out.push(pair);
                }
            }
        }
    }
    out
}

/// The command line, built, so that global flags (--memory-budget) are on
/// every subcommand (a version, as main gives, for the build's consistency
/// checks).
fn built_cli() -> clap::Command {
    let mut cmd = super::Cli::command().version(env!("CARGO_PKG_VERSION"));
    cmd.build();
    cmd
}

/// The (parameter, flag) pairs of `subcommand` ([`pairs_of`]).
fn pairs(subcommand: &str) -> Vec<(String, String)> {
    built_cli()
        .find_subcommand(subcommand)
        .map(pairs_of)
        .unwrap_or_default()
}

/// The (parameter, flag) pairs of every command, the first command's where two differ.
fn all_pairs() -> Vec<(String, String)> {
    let mut out: Vec<(String, String)> = Vec::new();
    for (p, f) in built_cli().get_subcommands().flat_map(pairs_of) {
        if !out.iter().any(|(q, _)| *q == p) {
            out.push((p, f));
        }
    }
    out
}

/// `` `eps_min` = 0.5 `` → `--eps-min 0.5`, `` `eps_min` `` → `--eps-min`;
/// a parameter of another command, written `` `ego_owners` of simulate ``,
/// becomes that command's flag (`--ego-owners of simulate`) whatever the
/// running command.
fn rewrite(text: &str, pairs: &[(String, String)]) -> String {
    let mut s = text.to_string();
    for (param, flag) in pairs {
        s = s.replace(&format!("`{param}` = "), &format!("{flag} "));
        s = s.replace(&format!("`{param}`"), flag);
    }
    if !s.contains("` of ") {
        return s;
    }
    for (param, flag) in all_pairs() {
        s = s.replace(&format!("`{param}` of "), &format!("{flag} of "));
    }
    s
}

/// A library error in the words of `subcommand`'s command line.
pub fn in_cli_words(subcommand: &str, e: Error) -> Error {
    let pairs = pairs(subcommand);
    let flag = |name: &str| {
        pairs
            .iter()
            .find(|(p, _)| *p == name)
            .map_or_else(|| name.to_string(), |(_, f)| f.to_string())
    };
    match e {
        Error::Parameter {
            name,
            value,
            expected,
        } => Error::Parameter {
            name: flag(&name),
            value,
            expected: rewrite(&expected, &pairs),
        },
        // A file's content is worded in the file's own keys (a state's
        // `mechanism`, a `--config` summary's `eps`), never as flags.
        e @ Error::Input { .. } => e,
        Error::Budget {
            name,
            value,
            need,
            budget,
            origin,
            hint,
        } => Error::Budget {
            name: flag(&name),
            value,
            need,
            budget,
            origin: rewrite(&origin, &pairs),
            hint: rewrite(&hint, &pairs),
        },
        Error::OutputExists {
            path,
            message,
            another_run,
        } => Error::OutputExists {
            path,
            message: rewrite(&message, &pairs),
            another_run,
        },
        Error::Unsupported(m) => Error::Unsupported(rewrite(&m, &pairs)),
        Error::Numerical(m) => Error::Numerical(rewrite(&m, &pairs)),
        Error::NothingToDraw { file, reason } => Error::NothingToDraw {
            file,
            reason: rewrite(&reason, &pairs),
        },
        other => other,
    }
}

/// Warnings of the library ([`crate::util::notes`]) on standard error, in
/// the words of `subcommand`'s command line.
pub fn warn_in_cli_words(subcommand: &'static str) {
    crate::util::notes::set_sink(Some(Box::new(move |m| {
        let text = rewrite(m, &pairs(subcommand));
        eprintln!("warning: {}", crate::util::lines::one_line(&text));
    })));
}

/// An error of a command run, library errors in the command line's words.
pub fn anyhow_in_cli_words(subcommand: &str, e: anyhow::Error) -> anyhow::Error {
    match e.downcast::<Error>() {
        Ok(e) => anyhow::Error::new(in_cli_words(subcommand, e)),
        Err(e) => e,
    }
}

/// A flag value refused by its type's parser (`--eps exp:a=1`), printed as the
/// library error it is, named by the flag: `error: invalid --eps 'exp:a=1':
/// expected a value for 'b'`. Returns the line and the exit code (2 for a
/// usage error, 1 for e.g. an unreadable `--coalition file:PATH`); `None` for
/// clap's own errors.
pub fn value_error(e: &clap::Error) -> Option<(String, u8)> {
    if e.kind() != ErrorKind::ValueValidation {
        return None;
    }
    let source = std::error::Error::source(e)?.downcast_ref::<Error>()?;
    let flag = match e.get(ContextKind::InvalidArg) {
        Some(ContextValue::String(s)) => s.split_whitespace().next().unwrap_or(s).to_string(),
        _ => return None,
    };
    let subcommand = std::env::args()
        .skip(1)
        .find(|a| super::Cli::command().find_subcommand(a).is_some())
        .unwrap_or_default();
    let pairs = pairs(&subcommand);
    let line = match source {
        Error::Parameter {
            value, expected, ..
        } => format!(
            "error: invalid {flag} '{value}': expected {}",
            rewrite(expected, &pairs)
        ),
        other => format!("error: {}", rewrite(&other.to_string(), &pairs)),
    };
    Some((line, if source.is_usage() { 2 } else { 1 }))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parameters_become_flags_the_command_has() {
        let e = Error::param(
            "unreachable",
            "floor",
            "`eps_min` too (unreachable members are answered at `eps_min`)",
        );
        assert_eq!(
            in_cli_words("simulate", e).to_string(),
            "invalid --unreachable 'floor': expected --eps-min too (unreachable members are answered at --eps-min)"
        );
        // `simulate` has no --approx-tol: the parameter stays as it is.
        let e = Error::Numerical("try a larger `approx_tol`".into());
        assert!(
            in_cli_words("simulate", e)
                .to_string()
                .contains("`approx_tol`")
        );
        let e = Error::Numerical("try a larger `approx_tol`".into());
        assert_eq!(
            in_cli_words("distances", e).to_string(),
            "numerical failure: try a larger --approx-tol"
        );
        // Another command's parameter, named with its command.
        let e = Error::param(
            "owner",
            "5",
            "an owner (record more with `ego_owners` of simulate)",
        );
        assert_eq!(
            in_cli_words("plot", e).to_string(),
            "invalid --owner '5': expected an owner (record more with --ego-owners of simulate)"
        );
        // `sweep` keeps its keys, names its own flags.
        let e = Error::param("eps_min", "abc", "a number");
        assert_eq!(
            in_cli_words("sweep", e).to_string(),
            "invalid eps_min 'abc': expected a number"
        );
        let e = Error::param("metrics", "msee", "one of mse");
        assert!(
            in_cli_words("sweep", e)
                .to_string()
                .starts_with("invalid --metric")
        );
        // A value stated as `name` = V reads as a command line.
        let e = Error::param("values", "coords", "`dim` = 2 (2-D), got `dim` = 3");
        assert_eq!(
            in_cli_words("simulate", e).to_string(),
            "invalid --values 'coords': expected --dim 2 (2-D), got --dim 3"
        );
    }

    #[test]
    fn a_field_named_otherwise_carries_the_parameter_as_its_id() {
        // Parameters whose flag is not their name in kebab case, or whose
        // field is named otherwise: the id is the library's name.
        for (command, param, flag) in [
            ("simulate", "header", "--header"),
            ("collude", "coalition", "--coalition"),
            ("sweep", "metrics", "--metric"),
            ("sweep", "at", "--at-distance"),
            ("plot", "metrics", "--metric"),
            ("plot", "at", "--at-distance"),
            ("path", "at", "--at"),
            ("simulate", "eps_min", "--eps-min"),
        ] {
            assert!(
                pairs(command).contains(&(param.to_string(), flag.to_string())),
                "{command}: {param} → {flag}"
            );
        }
        #[cfg(feature = "distributed")]
        assert!(pairs("simulate").contains(&("rank".to_string(), "--process".to_string())));
        // Every parameter has one flag in a command.
        for sub in built_cli().get_subcommands() {
            let p = pairs_of(sub);
            for (i, (a, _)) in p.iter().enumerate() {
                assert!(
                    p[..i].iter().all(|(b, _)| b != a),
                    "{}: {a} twice",
                    sub.get_name()
                );
            }
        }
    }
}
