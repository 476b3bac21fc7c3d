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
#   results/regenerate.sh two_schools
#                                    only results/two-schools/ (issue 36; needs
#                                    data/facebook_combined.txt)
set -euo pipefail
cd "$(dirname "$0")/.."
part=${1:-all}
case $part in
  all | utility | two_schools) ;;
  *) echo "usage: results/regenerate.sh [all|utility|two_schools] (got '$part')" >&2; exit 2 ;;
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
# Two schools on one graph (issue 36): Muffliato's private gossip averaging beside diffusion.
# Ego 1912 of facebook_combined as the Muffliato experiment has it (the neighbours of 1912
# without 1912, induced, largest component: 744 nodes), rebuilt with `subgraph`; then gossip
# at the experiment's σ = √3.75 with every pair exact (and nearest-m coalitions of 64 sampled
# owners), the full graph with 64 sampled owners and observers, and σ swept on ego 1912 for the MSE-against-privacy figure.
two_schools() {
  local fb=data/facebook_combined.txt d=$r/two-schools tmp
  tmp=$(mktemp -d)
  rm -rf $d $r/two-schools-sigma.*
  mkdir -p $d
  $bin distances --graph $fb --distance hop --owner 1912 --out $tmp/d1912.csv
  awk -F, 'NR > 1 && $3 == 1 { print $2 }' $tmp/d1912.csv > $tmp/nb.txt
  $bin subgraph --graph $fb --subgraph $tmp/nb.txt --out $tmp/nb.edges
  # The largest component: what the node of largest degree reaches (awk's first maximum).
  top=$(awk '!/^#/ { d[$1]++; d[$2]++ } END { for (v in d) if (d[v] > m) { m = d[v]; t = v } print t }' $tmp/nb.edges)
  $bin distances --graph $tmp/nb.edges --distance hop --owner "$top" --out $tmp/reach.csv
  { echo "$top"; awk -F, 'NR > 1 { print $2 }' $tmp/reach.csv; } > $tmp/lcc.txt
  $bin subgraph --graph $tmp/nb.edges --subgraph $tmp/lcc.txt --out $d/ego1912.edges
  rm -rf "$tmp"
  $bin gossip --graph $d/ego1912.edges --sigma 1.9364916731037085 --owners all \
    --replicates 20 --out $d/ego1912 --force -q
  $bin gossip --graph $d/ego1912.edges --sigma 1.9364916731037085 --owners 64 \
    --coalition nearest:m=2 --coalition nearest:m=5 --coalition nearest:m=10 \
    --replicates 20 --out $d/ego1912-coalitions --force -q
  # The full graph: 64 sources and observers (coalitions are ego 1912's: on facebook one
  # nearest-5 coalition's exact loss takes tens of seconds, docs/gossip.md).
  $bin gossip --graph $fb --sigma 1.9364916731037085 --owners 64 \
    --replicates 20 --out $d/facebook --force -q
  $bin sweep --config examples/sweeps/two_schools_sigma.toml --out $d/sigma.csv \
    --plots --x sigma --log-x --metric two_schools_mse --only estimator=median -q
  # The per-pair tables (47 MB for ego 1912's 552,792 pairs) are not kept: every number
  # quoted comes from privacy_by_distance.csv, two_schools.csv, coalition.csv, summary.json.
  rm -f $d/*/privacy.csv
}
if [ "$part" = two_schools ]; then
  [ -f data/facebook_combined.txt ] || {
    echo "results/regenerate.sh two_schools: needs data/facebook_combined.txt (SNAP ego-Facebook; link or copy it there, it is not committed)" >&2
    exit 2
  }
  two_schools
  find $r/two-schools -name 'timings.json' -delete
  find $r/two-schools -name '*.timings.csv' -delete
  exit 0
fi
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
  two_schools
fi
find $r -name 'timings.json' -delete
find $r -name '*.timings.csv' -delete
