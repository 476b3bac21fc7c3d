//! The one place where the library's words become this program's: errors
//! name parameters as the API does (`eps_min`, in backticks when a message
//! refers to another parameter), and here they are rewritten into the flags of
//! the subcommand that ran (`--eps-min`). A name is rewritten only where the
//! subcommand has that flag, so `sweep` keeps its keys (`eps_min=…`) and a
//! flag a command lacks is never suggested.

use crate::Error;
use clap::CommandFactory;
use clap::error::{ContextKind, ContextValue, ErrorKind};

/// Library parameter → flag.
const FLAGS: &[(&str, &str)] = &[
    ("graph", "--graph"),
    ("nodes", "--nodes"),
    ("ego", "--ego"),
    ("subgraph", "--subgraph"),
    ("directed", "--directed"),
    ("header", "--header"),
    ("distance", "--distance"),
    ("bins", "--bins"),
    ("eps", "--eps"),
    ("eps_min", "--eps-min"),
    ("eps_max", "--eps-max"),
    ("unreachable", "--unreachable"),
    ("dim", "--dim"),
    ("norm", "--norm"),
    ("mechanism", "--mechanism"),
    ("delta", "--delta"),
    ("values", "--values"),
    ("sensitivity", "--sensitivity"),
    ("seed", "--seed"),
    // --noise discrete (issue 25)
    ("noise", "--noise"),
    ("granularity", "--granularity"),
    ("levels_per_doubling", "--levels-per-doubling"),
    ("rng", "--rng"),
    ("resistance_cap", "--resistance-cap"),
    ("approx_k", "--approx-k"),
    ("approx_tol", "--approx-tol"),
    ("post", "--post"),
    ("owners", "--owners"),
    ("ego_owners", "--ego-owners"),
    ("replicates", "--replicates"),
    ("replicate", "--replicate"),
    ("out", "--out"),
    ("force", "--force"),
    ("coalition", "--coalition"),
    ("estimators", "--estimators"),
    ("trials", "--trials"),
    ("composition_delta", "--composition-delta"),
    ("threads", "--threads"),
    // utility
    ("access_radius", "--access-radius"),
    ("replicates", "--replicates"),
    // relay
    ("untrimmed", "--untrimmed"),
    // gossip
    ("sigma", "--sigma"),
    ("steps", "--steps"),
    ("gossip", "--gossip"),
    ("alpha", "--alpha"),
    ("observers", "--observers"),
    // cluster
    ("rank", "--process"),
    ("workers", "--workers"),
    ("cluster_timeout", "--cluster-timeout"),
    ("memory_budget", "--memory-budget"),
    // path, relax
    ("eps_lo", "--eps-lo"),
    ("eps_hi", "--eps-hi"),
    ("value", "--value"),
    ("samples", "--samples"),
    ("at", "--at"),
    // plot
    ("owner", "--owner"),
    ("kind", "--kind"),
    ("input", "--input"),
    ("width", "--width"),
    ("height", "--height"),
    // generate
    ("n", "--n"),
    ("m", "--m"),
    ("k", "--k"),
    ("p", "--p"),
    ("edges", "--edges"),
    ("radius", "--radius"),
    // sweep
    ("set", "--set"),
    ("resume", "--resume"),
    ("x", "--x"),
    ("metrics", "--metric"),
    ("at", "--at-distance"),
    ("only", "--only"),
    // evolve, answers, generate events
    ("batch", "--batch"),
    ("store", "--store"),
    ("events", "--events"),
    ("recipient", "--recipient"),
    ("hold_out", "--hold-out"),
    ("remove", "--remove"),
];

/// The (parameter, flag) pairs of `subcommand`: those of [`FLAGS`] whose flag
/// it has (itself or one of its own subcommands, as `generate er`).
fn pairs(subcommand: &str) -> Vec<(&'static str, &'static str)> {
    // Built, so that global flags (--memory-budget) are on every subcommand
    // (a version, as main gives, for the build's consistency checks).
    let mut cmd = super::Cli::command().version(env!("CARGO_PKG_VERSION"));
    cmd.build();
    let Some(sub) = cmd.find_subcommand(subcommand) else {
        return Vec::new();
    };
    let has = |c: &clap::Command, long: &str| {
        c.get_arguments()
            .any(|a| a.get_long().is_some_and(|l| l == long))
    };
    FLAGS
        .iter()
        .copied()
        .filter(|(_, flag)| {
            let long = flag.trim_start_matches('-');
            has(sub, long) || sub.get_subcommands().any(|c| has(c, long))
        })
        .collect()
}

/// `` `eps_min` = 0.5 `` → `--eps-min 0.5`, `` `eps_min` `` → `--eps-min`;
/// a parameter of another command, written `` `ego_owners` of simulate ``,
/// becomes that command's flag (`--ego-owners of simulate`) whatever the
/// running command.
fn rewrite(text: &str, pairs: &[(&str, &str)]) -> String {
    let mut s = text.to_string();
    for (param, flag) in pairs {
        s = s.replace(&format!("`{param}` = "), &format!("{flag} "));
        s = s.replace(&format!("`{param}`"), flag);
    }
    for (param, flag) in FLAGS {
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
    fn every_flag_of_the_table_exists_somewhere() {
        let mut cmd = super::super::Cli::command().version("test");
        cmd.build();
        // The cluster's flags exist only in a `distributed` build.
        let cluster = ["--cluster", "--process", "--workers", "--cluster-timeout"];
        for (_, flag) in FLAGS {
            if !cfg!(feature = "distributed") && cluster.contains(flag) {
                continue;
            }
            let long = flag.trim_start_matches('-');
            assert!(
                cmd.get_subcommands()
                    .flat_map(|s| std::iter::once(s).chain(s.get_subcommands()))
                    .any(|s| s.get_arguments().any(|a| a.get_long() == Some(long))),
                "{flag}"
            );
        }
    }
}
