#!/usr/bin/env bash
# CI for the `distributed` feature: builds with timely-dataflow and runs the
# cluster tests (2 processes over 127.0.0.1 on ports free at run time,
# compared byte for byte with the single-process run; processes that differ
# in seed, eps, owners, responses, command or graph content both stop with
# exit 1 and the same line naming the difference; a killed, a silent, a
# missing and a failing peer each end the others with exit 1 naming it).
# Every child process is waited for with a deadline, so the step stops by
# itself.
set -euo pipefail
cd "$(dirname "$0")/../.."
unset RUST_BACKTRACE
# Both test binaries built in one cargo call, so the library with the feature
# and its unit-test harness compile side by side; then the cluster tests, then
# the unit tests of src/cluster (encoding, host file, agreement),
# src/fingerprint and the CLI's cluster flags.
timeout 900 cargo test --locked --features distributed --test cluster --lib --no-run
timeout 900 cargo test --locked --features distributed --test cluster
timeout 600 cargo test --locked --features distributed --lib -- cluster:: fingerprint:: fingerprint_tests::
