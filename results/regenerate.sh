#!/usr/bin/env bash
# Regenerates every committed result from the repository root with the release
# binary (the commands of results/README.md). Same seed → same files.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo build --release --quiet
bin=target/release/privdiffuse
$bin simulate --force -q
$bin collude --coalition far:min-d=4 --coalition nearest:m=5 --coalition random:m=20 --coalition sybil:m=20,d=6 --trials 1000 --force -q
$bin utility --force -q
rm -f results/sweeps/decay.* results/sweeps/dimension.*
$bin sweep --config examples/sweeps/decay.toml --out results/sweeps/decay.csv --plots --x eps --metric mse,gain_mean --at-distance 1,3,6 -q
$bin sweep --config examples/sweeps/dimension.toml --out results/sweeps/dimension.csv --plots --x dim --metric jumps_per_path,mse_all --only mechanism=correlated -q
# The coalition-size study: on the bundled graph always, on Facebook when data/ has it.
rm -f results/thesis/coalition_size_geometric.*
$bin sweep --config examples/sweeps/coalition_size_geometric.toml --out results/thesis/coalition_size_geometric.csv --plots --x m --log-x --metric gain_median -q
if [ -f data/facebook_combined.txt ]; then
  $bin utility --graph data/facebook_combined.txt --eps exp:a=3,b=1 --dim 1 --norm l1 --out results/facebook-utility --force -q
  rm -f results/thesis/coalition_size.csv results/thesis/coalition_size.summary.csv results/thesis/coalition_size.timings.csv results/thesis/coalition_size.png results/thesis/coalition_size.svg
  $bin sweep --config examples/sweeps/coalition_size.toml --out results/thesis/coalition_size.csv --plots --x m --log-x --metric gain_median -q
fi
