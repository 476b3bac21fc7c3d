#!/usr/bin/env bash
# Figures 6 and 7 of the thesis, one command each (plus one plot command),
# from the repository root. Figures 4/5 are the default run in
# results/geometric150 (see results/regenerate.sh). Same seed → same files.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin=${PRIVDIFFUSE:-target/release/privdiffuse}
[ -x "$bin" ] || { cargo build --release --quiet; bin=target/release/privdiffuse; }
out=results/thesis
# Fig. 6: two sample paths of one owner's lazy Laplace process over [0.5, 15].
$bin path --dim 1 --norm l1 --eps-lo 0.5 --eps-hi 15 --samples 2 --seed 1 \
  --out $out/fig6_paths.csv --force
$bin plot --input $out/fig6_paths.csv --kind path --out $out/fig6_paths.png --force
# Fig. 7: the ego network of node 0 of facebook_combined (data/facebook_ego0.edges),
# resistance distance, eps = exp(4 - 3.3 d), one private bit per member,
# two replicates of owner 0's path.
$bin simulate --graph data/facebook_ego0.edges --distance resistance \
  --eps exp:a=4,b=3.3 --values bits:0.5 --post bit --dim 1 --norm l1 \
  --replicates 2 --owner 0 --seed 3 --out $out/fig7 --no-plots --force -q
$bin plot --input $out/fig7 --kind ego --edges --out $out/fig7_ego.png --force
