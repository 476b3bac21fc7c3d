#!/usr/bin/env bash
# The crash acceptance of issue 24 (closing note; not part of `cargo test`:
# it needs a release build and runs for minutes). From the repository root:
#
#   cargo build --release && tests/store/crash.sh [KILLS] [GRAPH] [WORKDIR]
#
#   KILLS   kills (default 30)
#   GRAPH   the network (default data/facebook_combined.txt, SNAP's facebook
#           network, not in the repository: download it there, or give
#           another edge list; without either, a Barabási–Albert graph of
#           facebook's size is made with `privdiffuse generate ba`)
#   WORKDIR where the runs write (default a new mktemp folder, removed at
#           the end unless KEEP=1; a given one is kept)
#   env: BIN (default target/release/privdiffuse), SEED (kill moments,
#        default 1), MAXDELAY (default 30 s), KEEP
#
# 10 % of the edges held out (`generate events --hold-out 0.1 --seed 1`),
# hop, 1-D l1, all owners, batches of 100. One uninterrupted run
# (2 threads); then the same run SIGKILLed KILLS times at random moments
# (delays uniform in (0, MAXDELAY] s after each start: loading, batch 0,
# mid-batch, mid-commit alike), each followed by `--resume` on 1 or 2
# threads. Just before each kill a reader lists the answers of a random
# owner beside the writer. Checks, at the end:
#   * `answers` (all rows) and timeline.csv byte-identical to the
#     uninterrupted run's;
#   * no pair released twice at one level or at a falling one;
#   * every row listed before a kill is in the final listing, unchanged.
# Prints the counts; exit 1 on any failure.
set -euo pipefail

KILLS=${1:-30}
GRAPH=${2:-data/facebook_combined.txt}
BIN=${BIN:-target/release/privdiffuse}
MAXDELAY=${MAXDELAY:-30}
RANDOM=${SEED:-1}
BIN=$(realpath "$BIN")
if [ -n "${3:-}" ]; then
    W=$3
    mkdir -p "$W"
else
    W=$(mktemp -d "${TMPDIR:-/tmp}/privdiffuse-crash.XXXXXX")
    if [ -z "${KEEP:-}" ]; then trap 'rm -rf "$W"' EXIT; fi
fi
if [ ! -e "$GRAPH" ] && [ -z "${2:-}" ]; then
    echo "no $GRAPH: a Barabási–Albert graph of 4,039 nodes (m = 22) instead" >&2
    GRAPH=$W/ba.edges
    "$BIN" generate ba --n 4039 --m 22 --seed 1 --out "$GRAPH" >/dev/null
fi
GRAPH=$(realpath "$GRAPH")
mkdir -p "$W/pre"
cd "$W"

last_batch() { # the store's last committed batch (-1: none yet)
    python3 - "$1" <<'EOF'
import sqlite3, sys
try:
    c = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=5)
    b = c.execute("SELECT max(batch) FROM timeline").fetchone()[0]
    print(-1 if b is None else b)
except Exception:
    print(-1)
EOF
}

"$BIN" generate events --graph "$GRAPH" --hold-out 0.1 --seed 1 --out fb.edges >/dev/null
ARGS=(evolve --graph fb.edges --nodes fb.nodes --events fb.events.csv
      --dim 1 --norm l1 --seed 1 --no-plots --quiet)

if [ ! -f ref/timeline.csv ]; then
    rm -f ref.db ref.db-wal ref.db-shm
    /usr/bin/time -f "uninterrupted: wall %e s, CPU %U+%S s" \
        "$BIN" "${ARGS[@]}" --store ref.db --out ref --threads 2
fi

rm -rf crash crash.db crash.db-wal crash.db-shm pre/*
mapfile -t NODES < fb.nodes
kills=0; in_loading=0; starts=0; listed=0
t0=$(date +%s)
while [ "$kills" -lt "$KILLS" ]; do
    threads=$(( 1 + starts % 2 ))
    before=$(last_batch crash.db)
    resume=()
    if [ "$before" -ge 0 ]; then resume=(--resume); fi
    "$BIN" "${ARGS[@]}" --store crash.db --out crash --threads "$threads" "${resume[@]}" &
    pid=$!
    starts=$((starts + 1))
    # A random moment in (0, MAXDELAY] s, to the millisecond.
    ms=$(( (RANDOM * 32768 + RANDOM) % (MAXDELAY * 1000) + 1 ))
    sleep "$(printf '%d.%03d' $((ms / 1000)) $((ms % 1000)))"
    owner=${NODES[$(( RANDOM % ${#NODES[@]} ))]}
    if [ "$before" -ge 0 ] && "$BIN" answers --store crash.db --owner "$owner" \
        --out "pre/$kills.$owner.csv" 2>/dev/null; then
        listed=$((listed + 1))
    fi
    if kill -0 "$pid" 2>/dev/null; then
        kill -KILL "$pid"
        wait "$pid" 2>/dev/null || true
        after=$(last_batch crash.db)
        if [ "$after" = "$before" ]; then in_loading=$((in_loading + 1)); fi
        kills=$((kills + 1))
        echo "kill $kills after ${ms} ms ($threads threads): batches $before -> $after"
    else
        wait "$pid" || { echo "FAIL: run exited with an error"; exit 1; }
        echo "run finished before its kill (${ms} ms): starting over is not needed"
        break
    fi
done
# Finish (resume until done).
"$BIN" "${ARGS[@]}" --store crash.db --out crash --threads 2 --resume
t1=$(date +%s)

fail=0
cmp ref/timeline.csv crash/timeline.csv || { echo "FAIL: timeline.csv differs"; fail=1; }
"$BIN" answers --store ref.db --out ref.answers.csv
"$BIN" answers --store crash.db --out crash.answers.csv
rows=$(($(wc -l < ref.answers.csv) - 1))
cmp ref.answers.csv crash.answers.csv || { echo "FAIL: answers differ"; fail=1; }
# Rows are sorted by owner, recipient, eps: a pair's levels must rise strictly.
doubles=$(awk -F, 'NR > 1 { k = $1 "," $2; if (k == p && $5 + 0 <= e + 0) n++; p = k; e = $5 } END { print n + 0 }' crash.answers.csv)
[ "$doubles" -eq 0 ] || { echo "FAIL: $doubles double releases"; fail=1; }
contradicted=0
LC_ALL=C sort crash.answers.csv > crash.sorted.csv
for f in pre/*.csv; do
    [ -e "$f" ] || continue
    # Every data row listed before a kill appears, unchanged, at the end.
    missing=$(tail -n +2 "$f" | LC_ALL=C sort | LC_ALL=C comm -23 - crash.sorted.csv | wc -l)
    contradicted=$((contradicted + missing))
done
[ "$contradicted" -eq 0 ] || { echo "FAIL: $contradicted rows listed before a kill differ after"; fail=1; }
explicit=$(awk -F, 'NR > 1 && $3 > 0' crash.answers.csv | wc -l)
echo "kills $kills (of which before any commit of their start: $in_loading), starts $starts, \
pre-kill listings $listed, rows $rows (explicit $explicit), double releases $doubles, \
pre-kill rows contradicted $contradicted, crash phase $((t1 - t0)) s, store $(stat -c %s crash.db) bytes"
exit "$fail"
