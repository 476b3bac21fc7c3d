//! The integration tests, compiled as one binary (as ripgrep does): one link
//! of the library and its dependencies instead of one per file, which is most
//! of the time of `cargo test` after a change. A test's module path is its
//! theme: `cargo test cli::`, `cargo test process::`, `cargo test plot::`.
//!
//! Tests that cannot exercise their case here (data absent, a race lost) say
//! so with a visible `SKIPPED:` line; see [`skip`].
//!
//! A new test file goes into its theme's folder with a `mod` line below; a file
//! put directly in `tests/` would be linked as a binary of its own again.
//!
//! Files go only into a [`support::scratch`] folder, which is removed when its
//! guard drops, also when the test fails: `cargo test` leaves nothing in the
//! temporary directory (`.ci/run` checks). To look at a failed test's files,
//! run it with `PRIVDIFFUSE_KEEP_SCRATCH=1`: its folder is kept and its path
//! printed on stderr.

/// What the tests share: the scratch folders.
mod support {
    pub(crate) mod scratch;
    mod scratch_tests;
}

/// The command-line program run as a user runs it: files, exit codes, messages.
mod cli {
    mod bounds;
    mod collude;
    mod discrete_runs;
    mod distances;
    mod finite;
    mod graph;
    mod ids;
    mod interrupt;
    mod limits;
    mod messages;
    mod noise_words;
    mod numeric;
    mod outputs;
    mod path;
    mod path_discrete;
    mod relax;
    mod relax_discrete;
    mod relay;
    mod relay_discrete;
    mod simulate;
    mod sweep;
    mod utility;
    mod views;
}

/// `gossip` (issue 36): private gossip averaging beside diffusion.
mod gossip {
    mod cli;
    mod facebook;
}

/// Hardening: "never panics" properties over every parser (the fuzz
/// targets' entry points, `fuzz/README.md`).
mod hardening {
    mod props;
}

/// Coalitions, pooled estimators, the trial runner and the privacy-loss audit.
mod collusion {
    mod audit;
    mod coalition;
    mod estimators;
    mod runner;
    mod support;
}

/// Hop, weighted and resistance distances: golden files and properties.
mod distance {
    mod golden;
    mod props;
}

/// The library as a user's program calls it: builders, typed values, errors.
mod library {
    mod api;
    mod errors;
}

/// Edge-list loading and the synthetic generators.
mod graph {
    mod generate;
    mod load;
    mod view;
}

/// Figures: rendering, bad inputs, and the statistics behind the jump figure.
mod plot {
    mod bounds;
    pub(crate) mod common;
    mod figures;
    mod inputs;
    mod jump_stats;
    mod layout;
    mod readable;
    mod redraw;
    mod replicates;
}

/// The lazy process and gradual release against their laws (memo §7).
mod process {
    mod release;
    mod stats;
}

/// The simulation runner end to end through the library.
mod sim {
    mod end_to_end;
    mod replicates;
}

/// Sweep grids and sweep runs.
mod sweep {
    mod grid;
    mod run;
}

/// The release store and `evolve`: the joint law over seeds, crashes and
/// resumption, refusals.
mod store {
    mod cli;
    mod crash;
    mod discrete;
    mod law;
    mod resume;
}

/// Trust pass 2 (issue 33): the store refuses what is not its own, the
/// loader never guesses silently, nothing is left behind. Each test fails
/// on 683415f (run them against another build with `PRIVDIFFUSE_TEST_BIN`).
/// `rules`: the rules every command keeps, one table (issue 32 item 5).
mod trust {
    mod common;
    mod evolve;
    mod header;
    mod messages;
    mod relay;
    mod rules;
    mod state;
    mod store;
}

/// `SKIPPED:` notices. A folder (`skip/mod.rs`), not `skip.rs`: Cargo builds
/// every top-level `tests/*.rs` as a test binary of its own.
mod skip;
