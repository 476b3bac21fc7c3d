#!/usr/bin/env bash
# The "done when" check of issue 15 (hardening): every command line the issue
# lists, run from the repository root under `ulimit -v 1500000` (1.5 GB of
# address space). Each must exit 1 or 2 with a one-line message within 10 s,
# or 0 with finite outputs where the input is in fact valid, and leave nothing
# behind (no `.tmp` staging file; on failure no output).
#
#   tests/hardening/issue_lines.sh target/release/privdiffuse
#
# Builds its own inputs (gzip bombs from repeated members, tampered files) and
# writes every output in a temporary directory (mktemp, removed at exit); takes about a minute with a release build (the 2 GB
# of `1 2` lines is read at the loader's usual rate). Not part of CI.
# Prints a table (status, exit, seconds, command, message) and exits 1 if any
# line fails.
set -u
BIN=$(realpath "${1:?usage: issue_lines.sh BIN}")
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
cd "$ROOT"
T=$(mktemp -d "${TMPDIR:-/tmp}/issue-lines.XXXXXX")
trap 'rm -rf "$T"' EXIT
export -n RUST_BACKTRACE RUST_LIB_BACKTRACE
unset RUST_BACKTRACE RUST_LIB_BACKTRACE
fails=0
K=data/karate.edges

# --- inputs -------------------------------------------------------------
python3 - "$T" <<'PY'
import gzip, sys, os, zlib
t = sys.argv[1]
def members(block, copies, path):
    m = gzip.compress(block, 1)
    with open(path, 'wb') as f:
        for _ in range(copies):
            f.write(m)
# 2 GB line: 2048 members of 1 MiB of 'x' without a newline.
members(b'x' * (1 << 20), 2048, f'{t}/longline.edges.gz')
# 2 GB of "1 2" lines: 2048 members of 1 MiB of them.
members(b'1 2\n' * (1 << 18), 2048, f'{t}/lines.edges.gz')
# corrupt gzip: a valid stream with bytes flipped in the middle.
g = bytearray(gzip.compress(open('data/karate.edges', 'rb').read()))
for i in range(40, 60):
    g[i] ^= 0x5a
open(f'{t}/corrupt.edges.gz', 'wb').write(bytes(g))
# weights near f64::MAX
open(f'{t}/heavy.edges', 'w').write('0 1 1e308\n1 2 1e308\n2 3 1.7e308\n')
# CR-only line endings with an error on line 3
open(f'{t}/cr.edges', 'w').write('0 1\r1 2\r2 x y z\r')
# ids 01 and 1
open(f'{t}/ids.edges', 'w').write('01 2\n1 3\n')
open(f'{t}/ids_str.edges', 'w').write('01 2\n1 3\na 1\n')
# a sweep TOML with an error on line 4
open(f'{t}/bad.toml', 'w').write('[base]\ngraph = "data/karate.edges"\n[grid]\ndim = [1, 2,\n')
PY
mkdir -p "$T/run_inf" "$T/run_ego"
cp results/geometric150/* "$T/run_inf/"
sed -i '2s/,[^,]*$/,-inf/' "$T/run_inf/by_distance.csv"
cp results/geometric150/* "$T/run_ego/"
sed -i '2s/^\([^,]*\),\([^,]*\),/\1,1e308,/' "$T/run_ego/ego.csv"
sed 's/"approx_k": *[0-9a-z]*/"approx_k": 18446744073709551615/; s/"distance": *"[a-z-]*"/"distance": "resistance-approx"/' \
    results/geometric150/summary.json > "$T/tampered.json"
grep -q '"approx_k": 18446744073709551615' "$T/tampered.json" ||
    python3 -c "import json,sys; d=json.load(open(sys.argv[1])); d['config']['approx_k']=18446744073709551615; d['config']['distance']='resistance-approx'; open(sys.argv[2],'w').write(json.dumps(d))" \
        results/geometric150/summary.json "$T/tampered.json"

# --- runner -------------------------------------------------------------
# row EXPECT OUT CMD...: EXPECT is `fail` (exit 1/2), `ok` (exit 0, finite
# CSV outputs), or `any` (either, when the line is valid input that may
# still be refused by the memory budget); OUT is the output path the line
# names (or -).
row() {
    local expect=$1 out=$2
    shift 2
    local w="$T/w$RANDOM"
    mkdir -p "$w"
    local start end secs code err status=ok
    start=$(date +%s.%N)
    (ulimit -v 1500000; cd "$ROOT" && timeout "$([ "$expect" = any ] && echo 600 || echo 60)" "$BIN" "$@") >"$w/stdout" 2>"$w/stderr"
    code=$?
    end=$(date +%s.%N)
    secs=$(echo "$end - $start" | bc)
    err=$(head -c 300 "$w/stderr" | tr '\n' '|')
    local lines
    lines=$(wc -l <"$w/stderr")
    case $code in
        0) [ "$expect" = fail ] && status=FAIL ;;
        1 | 2) [ "$expect" = ok ] && status=FAIL
           [ "$lines" -le 1 ] || status=FAIL
           [ "$out" != - ] && [ -e "$out" ] && status=FAIL ;;
        *) status=FAIL ;;
    esac
    if [ "$(echo "$secs > 10" | bc)" = 1 ] && [ "$expect" != any ]; then status=FAIL; fi
    if [ "$code" = 0 ] && [ "$out" != - ] && [ -e "$out" ]; then
        # exit 0: numbers in the outputs are finite
        if find "$out" -name '*.csv' -print0 2>/dev/null | xargs -0 -r grep -l -iE '(^|,)(-?inf|nan)(,|$)' | grep -q .; then
            status=FAIL; err="non-finite numbers in $out $err"
        fi
    fi
    if find "$T" "$ROOT/results" -maxdepth 3 -name '*.tmp*' 2>/dev/null | grep -q .; then
        status=FAIL; err="leftover .tmp $err"
    fi
    [ "$status" = FAIL ] && fails=$((fails + 1))
    printf '%-4s | %3s | %6.2f | %s | %s\n' "$status" "$code" "$secs" "$*" "$err"
    [ "$out" != - ] && rm -rf "$out"
    rm -rf "$w"
}

echo "status | exit | seconds | command | message"
# Panics
row fail - distances --graph $K --distance resistance-approx --owner 0 --approx-k 18446744073709551615
row fail "$T/s1.csv" sweep -q --set graph=$K --set distance=resistance-approx --set approx-k=18446744073709551615 --out "$T/s1.csv"
row fail "$T/o1" simulate --config "$T/tampered.json" --no-plots -q --out "$T/o1"
row fail "$T/x1" simulate --distance resistance --bins 18446744073709551615 --no-plots -q --out "$T/x1"
row fail "$T/x2" collude --coalition sybil:m=18446744073709551615,d=2 --trials 10 --no-plots -q --out "$T/x2"
# Hangs
row fail "$T/p1.png" plot --input "$T/run_inf" --kind error --out "$T/p1.png"
row fail "$T/p2.png" plot --input "$T/run_ego" --kind ego --out "$T/p2.png"
row fail "$T/o2" simulate --graph $K --threads 10000 --no-plots -q --out "$T/o2"
row fail "$T/o3" simulate --graph $K --threads 2147483648 --no-plots -q --out "$T/o3"
# Unbounded memory / allocation aborts
row fail - info --graph /dev/zero
row fail - info --graph $K --nodes /dev/zero
row fail - info --graph "$T/longline.edges.gz"
row any - info --graph "$T/lines.edges.gz"
row fail "$T/o4" simulate --distance resistance --bins 4294967296 --no-plots -q --out "$T/o4"
row fail "$T/o5" simulate --distance resistance --bins 1000000000 --no-plots -q --out "$T/o5"
row fail "$T/o6" collude --coalition sybil:m=100000000,d=3 --trials 10 --no-plots -q --out "$T/o6"
row fail "$T/g1.edges" generate er --n 1000000000 --m 10 --out "$T/g1.edges"
row fail "$T/g2.edges" generate ba --n 100000000 --m 40 --out "$T/g2.edges"
row fail "$T/g3.edges" generate geometric --n 100000 --edges 2000000000 --out "$T/g3.edges"
row fail - distances --graph $K --distance resistance-approx --owner 0 --approx-k 50000000
# NaN or inf in outputs
row fail "$T/o7" simulate --graph $K --eps exp:a=-700,b=1 --no-plots -q --out "$T/o7"
row fail "$T/o8" simulate --graph $K --eps power:c=1e-200,p=0 --no-plots -q --out "$T/o8"
row fail "$T/o9" simulate --graph $K --eps recip:c=1e308 --no-plots -q --out "$T/o9"
row fail "$T/o10" simulate --graph $K --eps 'table:1=1e-320,*=1e-320' --no-plots -q --out "$T/o10"
row fail "$T/o11" simulate --graph $K --sensitivity 1e308 --no-plots -q --out "$T/o11"
row fail "$T/o12" simulate --graph $K --sensitivity 1e-308 --no-plots -q --out "$T/o12"
row any "$T/o13" simulate --graph $K --eps 'table:1=1e-90,*=1e-90' --dim 1 --norm l1 --owners 20 --no-plots -q --out "$T/o13"
row fail "$T/p.csv" path --dim 1 --norm l1 --eps-lo 5e-324 --eps-hi 1.7e308 --out "$T/p.csv"
row fail "$T/p2.csv" path --dim 1 --norm l1 --eps-lo 1e-300 --eps-hi 1e300 --out "$T/p2.csv"
row fail "$T/d1.csv" distances --graph "$T/heavy.edges" --distance weighted --owner 0 --out "$T/d1.csv"
row fail "$T/d2.csv" distances --graph "$T/heavy.edges" --distance resistance-approx --owner 0 --out "$T/d2.csv"
# Messages
row fail - sweep --config "$T/bad.toml" --out "$T/s2.csv"
row fail - info --graph "$T/cr.edges"
row fail "$T/o14" simulate --graph $K --eps $'exp:a=1,\nb=oops' --no-plots -q --out "$T/o14"
row fail - info --graph "$T/corrupt.edges.gz"
row ok - info --graph "$T/ids.edges"
row ok - info --graph "$T/ids_str.edges"
# Outputs that are not exclusive: an existing output is refused without --force
for f in "$T/exists.csv"; do
    : >"$f"
    row fail - sweep -q --set graph=$K --set trials=10 --out "$f"
    row fail - path --dim 1 --norm l1 --eps-lo 1 --eps-hi 2 --out "$f"
    row fail - distances --graph $K --distance hop --owner 0 --out "$f"
    row fail - generate er --n 10 --m 5 --out "$f"
    : >"$T/exists.png"
    row fail - plot --input results/geometric150 --kind error --out "$T/exists.png"
    [ -s "$T/exists.png" ] && { echo "FAIL: $T/exists.png was overwritten"; fails=$((fails + 1)); }
    [ -s "$f" ] && { echo "FAIL: $f was overwritten"; fails=$((fails + 1)); }
done
# Two concurrent runs into the same new --out: exactly one succeeds.
won=0
for i in 1 2 3 4 5; do
    rm -rf "$T/race"
    "$BIN" simulate --graph $K --no-plots -q --owners 3 --out "$T/race" 2>"$T/e1" & a=$!
    "$BIN" simulate --graph $K --no-plots -q --owners 3 --out "$T/race" 2>"$T/e2" & b=$!
    wait $a; ra=$?; wait $b; rb=$?
    if [ $((ra == 0)) -ne $((rb == 0)) ]; then won=$((won + 1)); else echo "race $i: exits $ra $rb: $(cat "$T/e1" "$T/e2")"; fi
done
st=ok; [ $won = 5 ] || { st=FAIL; fails=$((fails + 1)); }
printf '%-4s | %s | concurrent simulate into one new --out: exactly one of two succeeded in %d of 5\n' $st - $won
echo "failures: $fails"
[ $fails = 0 ]
