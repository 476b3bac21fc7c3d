#!/usr/bin/env python3
"""privdiffuse next to its NumPy peer, interleaved, in one run (issue 37).

For each workload, runs PAIRS interleaved pairs (ours, then the peer) of whole
processes on the same edge list and prints each pair's wall times and ratio,
the medians, the spread (min–max) and the NumPy/BLAS set-up:

  simulate    `simulate --mechanism both --eps exp:a=3,b=1 --dim 1 --norm l1
              --no-plots`, all owners   vs  numpy_pipeline.py --a 3 --b 1
  resistance  `simulate --distance resistance --owners 4 --eps recip:c=2
              --no-plots`               vs  numpy_resistance.py (inv(L + J/n))

Uses (and on first use creates) the virtual environment of peers.py.
With `--old PATH` (a previous build), each pair also runs that build first
(old, ours, peer in turn) and prints new/old per pair and its median.

usage: python3 benches/peers/side_by_side.py [EDGES] [--bin PATH] [--old PATH] [--pairs 9]
                                              [--workload simulate|resistance|all]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from peers import default_edges, ensure_venv  # noqa: E402


def wall(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def workloads(bin_, edges, out):
    py = sys.executable
    ours = [bin_, "simulate", "--graph", edges, "--no-plots", "--out", out, "--force", "-q"]
    return {
        "simulate": (
            ours + ["--mechanism", "both", "--eps", "exp:a=3,b=1", "--dim", "1", "--norm", "l1"],
            [py, str(HERE / "numpy_pipeline.py"), edges, "--a", "3", "--b", "1"],
        ),
        "resistance": (
            ours + ["--distance", "resistance", "--owners", "4", "--eps", "recip:c=2"],
            [py, str(HERE / "numpy_resistance.py"), edges],
        ),
    }


def main():
    ensure_venv(__file__)
    import numpy as np

    p = argparse.ArgumentParser()
    p.add_argument("edges", nargs="?", default=default_edges())
    p.add_argument("--bin", default=str(HERE.parent.parent / "target/release/privdiffuse"))
    p.add_argument("--old", help="a previous build, run first in every pair")
    p.add_argument("--pairs", type=int, default=9)
    p.add_argument("--workload", default="all", choices=["simulate", "resistance", "all"])
    a = p.parse_args()
    threads = {k: os.environ.get(k, "unset") for k in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS")}
    print(f"numpy {np.__version__}; BLAS threads {threads} (unset: one per core, {os.cpu_count()} cores); "
          f"privdiffuse {a.bin} (--threads default: every core)")
    try:
        from numpy.__config__ import CONFIG
        blas = CONFIG.get("Build Dependencies", {}).get("blas", {})
        print(f"BLAS: {blas.get('name')} {blas.get('version')}")
    except Exception:  # older numpy: no CONFIG dict
        pass
    with tempfile.TemporaryDirectory() as tmp:
        out = os.path.join(tmp, "out")
        olds = workloads(a.old, a.edges, out) if a.old else {}
        for name, (ours, peer) in workloads(a.bin, a.edges, out).items():
            if a.workload not in ("all", name):
                continue
            t_ours, t_peer, t_old = [], [], []
            for i in range(a.pairs):
                if name in olds:
                    t_old.append(wall(olds[name][0]))
                t_ours.append(wall(ours))
                t_peer.append(wall(peer))
                print(f"{name} pair {i + 1}: privdiffuse {t_ours[-1]:.3f} s, peer {t_peer[-1]:.3f} s, "
                      f"{t_peer[-1] / t_ours[-1]:.1f}x"
                      + (f"; old {t_old[-1]:.3f} s, new/old {t_ours[-1] / t_old[-1]:.2f}" if t_old else ""),
                      flush=True)
            ratios = [p_ / o for o, p_ in zip(t_ours, t_peer)]
            print(f"{name}: privdiffuse median {statistics.median(t_ours):.3f} s "
                  f"({min(t_ours):.3f}–{max(t_ours):.3f}), peer median {statistics.median(t_peer):.3f} s "
                  f"({min(t_peer):.3f}–{max(t_peer):.3f}); ratio median {statistics.median(ratios):.1f}x "
                  f"({min(ratios):.1f}–{max(ratios):.1f}) over {a.pairs} pairs")
            if t_old:
                per = [o / p_ for o, p_ in zip(t_ours, t_old)]
                print(f"{name}: old build median {statistics.median(t_old):.3f} s "
                      f"({min(t_old):.3f}–{max(t_old):.3f}); new/old per pair median "
                      f"{statistics.median(per):.2f} ({min(per):.2f}–{max(per):.2f})")


if __name__ == "__main__":
    main()
