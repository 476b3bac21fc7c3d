//! `--cluster` (feature `distributed`): processes over loopback, a test
//! target of its own (`cargo test --features distributed --test cluster`).

/// The integration tests' scratch folders (`tests/support/scratch.rs`);
/// the tmpfs variant serves the store's tests, not these.
#[path = "../support/scratch.rs"]
#[allow(dead_code)]
mod scratch;

mod run;
