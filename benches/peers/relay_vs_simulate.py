#!/usr/bin/env python3
"""`relay` next to `simulate --mechanism correlated`, interleaved, in one run
(issue 37: relay on facebook, all owners, within 1.5x of simulate).

Each repetition runs, one after the other, `relay` (and, with --old, a second
binary's `relay`) and `simulate --mechanism correlated` with the same options
(`--dim 1 --norm l1 --eps exp:a=3,b=1 --seed 1 --no-plots`, all owners), and
prints per command the wall time of the whole process and the phase time of its
`timings.json` (`relay_s`, `simulate_s`): medians and spread (min-max), and the
median and spread of relay / simulate per repetition. `--options "..."`
replaces those options, e.g. `--options "--seed 1 --no-plots"` for the
commands' defaults (`--dim 2 --norm l2 --eps range:0.5..15`, whose pre-pass
resolves the map); keep `--no-plots` (simulate draws five figures, relay one:
with figures on the two runs would not do like work). No Python package needed.

usage: python3 benches/peers/relay_vs_simulate.py [EDGES] [--bin PATH] [--old PATH]
                                                  [--reps 15] [--threads N] [--options STR]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from peers import default_edges  # noqa: E402

OPTIONS = ["--dim", "1", "--norm", "l1", "--eps", "exp:a=3,b=1", "--seed", "1", "--no-plots"]


def run(cmd, out):
    t = time.perf_counter()
    subprocess.run(cmd + ["--out", out, "--force", "-q"], check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - t
    with open(os.path.join(out, "timings.json")) as f:
        j = json.load(f)
    return wall, j.get("relay_s", j.get("simulate_s"))


def spread(xs, unit=1e3, fmt="{:.1f}"):
    m, lo, hi = (fmt.format(x * unit) for x in (statistics.median(xs), min(xs), max(xs)))
    return f"median {m} ({lo}-{hi})"


def main():
    p = argparse.ArgumentParser()
    p.add_argument("edges", nargs="?", default=default_edges())
    p.add_argument("--bin", default=str(HERE.parent.parent / "target/release/privdiffuse"))
    p.add_argument("--old", help="a second binary whose relay runs in the same repetitions")
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--threads", type=int, help="--threads of every command (default: every core)")
    p.add_argument("--options", help="the commands' options instead of: " + " ".join(OPTIONS))
    a = p.parse_args()
    common = ["--graph", a.edges] + (a.options.split() if a.options else OPTIONS)
    if a.threads:
        common += ["--threads", str(a.threads)]
    cmds = {"relay": [a.bin, "relay"] + common}
    if a.old:
        cmds["relay (old)"] = [a.old, "relay"] + common
    cmds["simulate"] = [a.bin, "simulate", "--mechanism", "correlated"] + common
    walls = {k: [] for k in cmds}
    phases = {k: [] for k in cmds}
    with tempfile.TemporaryDirectory() as tmp:
        for _ in range(a.reps):
            for i, (k, cmd) in enumerate(cmds.items()):
                w, ph = run(cmd, os.path.join(tmp, f"out{i}"))
                walls[k].append(w)
                phases[k].append(ph)
    print(f"{a.reps} interleaved repetitions on {a.edges}; load average {os.getloadavg()}")
    print("options: " + " ".join(common[2:]))
    for k in cmds:
        print(f"{k:12s} wall ms {spread(walls[k])}, phase ms {spread(phases[k])}")
    for k in cmds:
        if k.startswith("relay"):
            r = [x / y for x, y in zip(walls[k], walls["simulate"])]
            print(f"{k} / simulate, wall: {spread(r, 1, '{:.2f}')}")


if __name__ == "__main__":
    main()
