"""The Speed numbers of the Python package, measured side by side with the CLI.

    python python/examples/speed.py [--cli target/release/privdiffuse] [--facebook PATH]

Prints: simulate on facebook_combined (all owners, hop, exp:a=3,b=1, n = 1 l1,
both mechanisms) — the Python call's own time next to the CLI run's total_s
from timings.json; NoisePath.at on 1 M levels; sample_paths(100_000);
Graph.from_networkx on a 100k-node / 1M-edge graph; Graph.from_edges on
numpy arrays (edges/s).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

import privdiffuse as pdf

REPO = Path(__file__).resolve().parents[2]


def best(f, repeat=3):
    """Best wall time of `repeat` calls of f, and its last result."""
    t, r = float("inf"), None
    for _ in range(repeat):
        t0 = time.perf_counter()
        r = f()
        t = min(t, time.perf_counter() - t0)
    return t, r


def main() -> None:
    """Measures and prints the numbers."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--cli", default=str(REPO / "target" / "release" / "privdiffuse"))
    ap.add_argument("--facebook", default=str(REPO.parent / "shared" / "data" / "facebook_combined.txt"))
    ap.add_argument("--repeat", type=int, default=3)
    a = ap.parse_args()

    fb = Path(a.facebook)
    if fb.exists():
        g = pdf.Graph.load(fb)
        opts = dict(eps="exp:a=3,b=1", dim=1, norm="l1", mechanism="both", seed=1)
        t_py, _ = best(lambda: pdf.simulate(g, **opts), a.repeat)
        t_cli = float("inf")
        if Path(a.cli).exists():
            for _ in range(a.repeat):
                with tempfile.TemporaryDirectory() as tmp:
                    subprocess.run([a.cli, "simulate", "--graph", str(fb), "--eps", "exp:a=3,b=1", "--dim", "1",
                                    "--norm", "l1", "--mechanism", "both", "--seed", "1", "--out", f"{tmp}/run",
                                    "--no-plots", "-q"], check=True)
                    t_cli = min(t_cli, json.loads(Path(f"{tmp}/run/timings.json").read_text())["total_s"])
        print(f"simulate facebook_combined: python {t_py:.3f} s, CLI total_s {t_cli:.3f} s, ratio {t_py / t_cli:.2f}")
    else:
        print(f"simulate facebook_combined: skipped ({fb} absent)")

    p = pdf.sample_path(dim=1, norm="l1", eps_lo=0.01, eps_hi=100.0, seed=1)
    x = np.random.default_rng(0).uniform(0.01, 100.0, 1_000_000)
    t, _ = best(lambda: p.at(x), a.repeat)
    print(f"NoisePath.at on 1M levels: {t * 1e3:.1f} ms ({len(p.levels)} breakpoints)")

    t, _ = best(lambda: pdf.sample_paths(100_000, dim=1, norm="l1", eps_lo=0.1, eps_hi=10.0, seed=2), a.repeat)
    print(f"sample_paths(100_000): {t:.3f} s = {100_000 / t / 1e6:.2f} M paths/s")

    rng = np.random.default_rng(3)
    m = 10_000_000
    u = rng.integers(0, 1_000_000, m)
    v = rng.integers(0, 1_000_000, m)
    t, g = best(lambda: pdf.Graph.from_edges(u, v), a.repeat)
    print(f"Graph.from_edges, {m} edges on 1M ids: {t:.3f} s = {m / t / 1e6:.1f} M edges/s")

    try:
        import networkx as nx
    except ImportError:
        print("Graph.from_networkx: skipped (networkx absent)")
        return
    G = nx.gnm_random_graph(100_000, 1_000_000, seed=4)
    t, g = best(lambda: pdf.Graph.from_networkx(G), a.repeat)
    print(f"Graph.from_networkx, 100k nodes / 1M edges: {t:.3f} s ({g.n_nodes} nodes, {g.n_edges} edges)")


if __name__ == "__main__":
    main()
