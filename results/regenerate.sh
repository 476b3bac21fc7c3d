#!/usr/bin/env bash
# The only writer of results/: regenerates every committed result from the
# repository root with the release binary (the commands of results/README.md).
# Same seed → same files, whatever the thread count. Timings are measurements
# of this machine, not results: they are removed (and ignored by git).
# Runs that need SNAP's facebook_combined.txt run only when data/ has it.
#
#   results/regenerate.sh            everything
#   results/regenerate.sh utility    only the utility figures: each sweep figure
#                                    redrawn from its committed CSV (no sweep rerun,
#                                    the CSVs untouched) and the utility runs
#                                    (geometric150-utility; facebook-utility when
#                                    data/ has SNAP's file), whose figure is drawn
#                                    by the run itself
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
case $part in
  all | utility) ;;
  *) echo "usage: results/regenerate.sh [all|utility] (got '$part')" >&2; exit 2 ;;
esac
bin=${PRIVDIFFUSE:-target/release/privdiffuse}
[ -x "$bin" ] || { cargo build --release --quiet; bin=target/release/privdiffuse; }
r=results
# The utility study (issue 27): value models × schemes × ε decay; one figure per value model
# (MSE over all recipients against the decay b, one line per scheme, whiskers ± 1.96 SE over
# the replicates).
utility_figures() {  # NAME: draw each value model of $r/thesis/NAME.csv
  rm -f $r/thesis/$1_*.png
  for m in bits infection sir smooth; do
    v=$(grep -o "\"$m:[^\"]*\"" examples/sweeps/$1.toml | tr -d '"') || continue
    $bin plot --kind sweep --input $r/thesis/$1.csv --x b --metric utility_mse_all --only "values=$v" --out $r/thesis/$1_$m.png > /dev/null
  done
}
utility_study() {  # NAME: sweep examples/sweeps/NAME.toml, then draw each value model
  rm -f $r/thesis/$1.csv $r/thesis/$1.summary.csv $r/thesis/$1.timings.csv $r/thesis/$1_*.png
  $bin sweep --config examples/sweeps/$1.toml --out $r/thesis/$1.csv -q
  utility_figures "$1"
}
if [ "$part" = utility ]; then
  for s in utility_values utility_bits utility_values_facebook utility_bits_facebook; do
    if [ -f $r/thesis/$s.csv ]; then utility_figures $s; fi
  done
  $bin utility --out $r/geometric150-utility --force -q
  if [ -f data/facebook_combined.txt ]; then
    $bin utility --graph data/facebook_combined.txt --eps exp:a=3,b=1 --dim 1 --norm l1 \
      --out $r/facebook-utility --force -q
  fi
  find $r -name 'timings.json' -delete
  exit 0
fi
# Figures 4/5: the default run (the thesis' synthetic experiment).
$bin simulate --out $r/geometric150 --force -q
$bin collude --coalition far:min-d=4 --coalition nearest:m=5 --coalition random:m=20 \
  --coalition sybil:m=20,d=6 --trials 1000 --out $r/geometric150-collude --force -q
$bin utility --out $r/geometric150-utility --force -q
rm -f $r/sweeps/decay.* $r/sweeps/dimension.*
$bin sweep --config examples/sweeps/decay.toml --out $r/sweeps/decay.csv \
  --plots --x eps --metric mse,gain_mean --at-distance 1,3,6 -q
$bin sweep --config examples/sweeps/dimension.toml --out $r/sweeps/dimension.csv \
  --plots --x dim --metric jumps_per_path,mse_all --only mechanism=correlated -q
# The coalition-size study on the bundled graph.
rm -f $r/thesis/coalition_size_geometric.*
$bin sweep --config examples/sweeps/coalition_size_geometric.toml \
  --out $r/thesis/coalition_size_geometric.csv --plots --x m --log-x --metric gain_median -q
# The utility study (functions above).
utility_study utility_values
utility_study utility_bits
# Fig. 6: two sample paths of one owner's lazy Laplace process over [0.5, 15].
$bin path --dim 1 --norm l1 --eps-lo 0.5 --eps-hi 15 --samples 2 --seed 1 \
  --out $r/thesis/fig6_paths.csv --force
$bin plot --input $r/thesis/fig6_paths.csv --kind path --out $r/thesis/fig6_paths.png --force
# Fig. 7: the ego network of node 0 of facebook_combined (data/facebook_ego0.edges),
# resistance distance, eps = exp(4 - 3.3 d), one private bit per member, two
# replicates of owner 0's path (one set of jump circles each).
$bin simulate --graph data/facebook_ego0.edges --distance resistance \
  --eps exp:a=4,b=3.3 --values bits:0.5 --post bit --dim 1 --norm l1 \
  --replicates 2 --owner 0 --seed 3 --out $r/thesis/fig7 --no-plots --force -q
$bin plot --input $r/thesis/fig7 --kind ego --edges --out $r/thesis/fig7_ego.png --force
if [ -f data/facebook_combined.txt ]; then
  utility_study utility_values_facebook
  utility_study utility_bits_facebook
  $bin utility --graph data/facebook_combined.txt --eps exp:a=3,b=1 --dim 1 --norm l1 \
    --out $r/facebook-utility --force -q
  rm -f $r/thesis/coalition_size.*
  $bin sweep --config examples/sweeps/coalition_size.toml --out $r/thesis/coalition_size.csv \
    --plots --x m --log-x --metric gain_median -q
fi
find $r -name 'timings.json' -delete
find $r -name '*.timings.csv' -delete
