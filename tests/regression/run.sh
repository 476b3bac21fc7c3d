#!/usr/bin/env bash
# Runs every command of tests/regression/commands.txt with BIN and records its
# outputs (files, stdout, stderr, exit code) under OUT/NAME/. Run from the
# repository root; compare two recordings with tests/regression/compare.sh.
#
#   cargo build --release && tests/regression/run.sh target/release/privdiffuse /tmp/before
set -uo pipefail
bin=$(realpath "$1"); out=$2
[ -e "$out" ] && { echo "$out exists" >&2; exit 2; }
mkdir -p "$out"; out=$(realpath "$out")
unset RUST_BACKTRACE
fail=0
while read -r name args; do
  case "$name" in ""|\#*) continue ;; esac
  O="$out/$name"; mkdir -p "$O"
  expanded=${args//\$O/$O}
  # Word-split on spaces only: `|` and `*` in specs stay literal.
  set -f; read -r -a argv <<< "$expanded"; set +f
  "$bin" "${argv[@]}" > "$O/stdout.txt" 2> "$O/stderr.txt"
  rc=$?; echo "$rc" > "$O/exit_code"
  [ "$rc" -ne 0 ] && { echo "FAIL $name (exit $rc): $(head -c 300 "$O/stderr.txt")"; fail=1; }
done < "$(dirname "$0")/commands.txt"
exit $fail
