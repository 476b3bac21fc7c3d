//! `--cluster` (feature `distributed`): processes over loopback, a test
//! target of its own (`cargo test --features distributed --test cluster`).

mod run;
