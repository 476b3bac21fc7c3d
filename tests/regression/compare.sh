#!/usr/bin/env bash
# Compares two recordings of tests/regression/run.sh byte for byte, ignoring
# what is allowed to differ: timings (timings.json, *.timings.csv), stderr
# (summary lines print seconds) and the recording folder's own path where a
# file echoes its command line (generated edge lists). Release stores
# (*.db and SQLite's side files, lock files) are binary and carry write times:
# their content is compared through the `answers` listings recorded beside them.
#
#   tests/regression/compare.sh /tmp/before /tmp/after
set -uo pipefail
a=$(realpath "$1"); b=$(realpath "$2")
rc=0
while IFS= read -r line; do
  if [[ $line =~ ^Files\ (.*)\ and\ (.*)\ differ$ ]]; then
    x=${BASH_REMATCH[1]}; y=${BASH_REMATCH[2]}
    if ! cmp -s <(sed "s#$a#OUT#g" "$x") <(sed "s#$b#OUT#g" "$y"); then
      echo "DIFFERS ${x#$a/}"; rc=1
    fi
  else
    echo "$line"; rc=1
  fi
done < <(diff -rq -x timings.json -x '*.timings.csv' -x stderr.txt -x '*.db' -x '*.db-*' -x '*.lock' "$a" "$b")
[ $rc -eq 0 ] && echo "identical: $(find "$a" -type f ! -name stderr.txt ! -name timings.json ! -name '*.timings.csv' ! -name '*.db' ! -name '*.db-*' ! -name '*.lock' | wc -l) files"
exit $rc
