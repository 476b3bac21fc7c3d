#!/usr/bin/env python3
"""Checks that every CSV of recording NEW keeps the columns of recording BASE
with identical cells (same rows, same text), allowing only new columns, and
that summary.json files differ at most by the top-level "replicates" key.

    tests/regression/old_columns.py BASE NEW
"""
import csv, json, os, re, sys

NEW_COLS = re.compile(r"^(replicate|owner|correct|correct_rate|correct_theory|u\d+|raw\d+|y\d+)$")
base, new = sys.argv[1], sys.argv[2]
bad = 0
checked = 0
for root, _, files in os.walk(base):
    for f in files:
        b = os.path.join(root, f)
        n = os.path.join(new, os.path.relpath(b, base))
        if not os.path.exists(n):
            continue
        if "timings" in f:
            continue
        if f.endswith(".csv"):
            rb = list(csv.reader(open(b)))
            rn = list(csv.reader(open(n)))
            if not rb:
                continue
            hb, hn = rb[0], rn[0]
            extra = [c for c in hn if c not in hb]
            missing = [c for c in hb if c not in hn]
            if missing or any(not NEW_COLS.match(c) for c in extra) or len(rb) != len(rn):
                print(f"BAD {n}: missing {missing} extra {extra} rows {len(rb)} vs {len(rn)}")
                bad += 1
                continue
            idx = [hn.index(c) for c in hb]
            for i, (x, y) in enumerate(zip(rb[1:], rn[1:])):
                if x != [y[k] for k in idx]:
                    print(f"BAD {n}:{i + 2}: {x} vs {[y[k] for k in idx]}")
                    bad += 1
                    break
            checked += 1
        elif f == "summary.json":
            jb, jn = json.load(open(b)), json.load(open(n))
            jn.pop("replicates", None)
            if jb != jn:
                print(f"BAD {n}: differs beyond 'replicates'")
                bad += 1
            checked += 1
print(f"{checked} files checked, {bad} bad")
sys.exit(1 if bad else 0)
