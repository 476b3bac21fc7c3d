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
# The utility study (issue 27): value models × schemes × ε decay; one figure per value model
# (MSE over all recipients against the decay b, one line per scheme).
utility_study() {  # NAME: sweep examples/sweeps/NAME.toml, then draw each value model
  rm -f results/thesis/$1.csv results/thesis/$1.summary.csv results/thesis/$1.timings.csv results/thesis/$1_*.png
  $bin sweep --config examples/sweeps/$1.toml --out results/thesis/$1.csv -q
  for m in bits infection sir smooth; do
    v=$(grep -o "\"$m:[^\"]*\"" examples/sweeps/$1.toml | tr -d '"') || continue
    $bin plot --kind sweep --input results/thesis/$1.csv --x b --metric utility_mse_all --only "values=$v" --out results/thesis/$1_$m.png > /dev/null
  done
}
utility_study utility_values
utility_study utility_bits
if [ -f data/facebook_combined.txt ]; then
  utility_study utility_values_facebook
  utility_study utility_bits_facebook
  $bin utility --graph data/facebook_combined.txt --eps exp:a=3,b=1 --dim 1 --norm l1 --out results/facebook-utility --force -q
  rm -f results/thesis/coalition_size.csv results/thesis/coalition_size.summary.csv results/thesis/coalition_size.timings.csv results/thesis/coalition_size.png results/thesis/coalition_size.svg
  $bin sweep --config examples/sweeps/coalition_size.toml --out results/thesis/coalition_size.csv --plots --x m --log-x --metric gain_median -q
fi
