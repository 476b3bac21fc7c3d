#!/usr/bin/env python3
"""Time the peers of `benches/distance.rs` on the same edge list, in one run.

Measures, on one `u v` edge list (default: facebook_combined):
  * NetworKit single-source BFS (mean over sampled sources)
  * NetworKit APSP (all pairs, --threads threads)
  * igraph all-pairs distances
  * networkx all_pairs_shortest_path_length      (skip with --skip-slow)
  * numpy resistance route inv(L + J/n)          (and R_ij from it)
  * scipy pinvh(L), numpy pinv(L)                 (skip with --skip-slow)
  * NetworKit CommuteTimeDistance, tol 0.1 (--with-commute): time and
    median / max relative error against the numpy route on 2,000 pairs

The script creates its own virtual environment in `benches/peers/.venv`
(gitignored) on first use, pip-installs igraph, networkit, networkx, numpy
and scipy there, and re-runs itself inside it.

usage: python3 benches/peers/peers.py [EDGES] [--threads 2] [--skip-slow] [--with-commute] [--json OUT]
"""
import argparse
import json
import os
import subprocess
import sys
import time
import venv
from pathlib import Path

HERE = Path(__file__).resolve().parent
VENV = HERE / ".venv"
PACKAGES = ["numpy", "scipy", "networkx", "igraph", "networkit"]


def ensure_venv(script=__file__):
    """Re-exec `script` inside benches/peers/.venv, creating it first if needed."""
    if Path(sys.prefix).resolve() == VENV.resolve():
        return
    py = VENV / "bin" / "python"
    if not py.exists():
        print(f"creating {VENV} and installing {' '.join(PACKAGES)} ...", file=sys.stderr)
        venv.create(VENV, with_pip=True)
        subprocess.check_call([str(py), "-m", "pip", "install", "--quiet", "--upgrade", "pip"])
        subprocess.check_call([str(py), "-m", "pip", "install", "--quiet", *PACKAGES])
    os.execv(str(py), [str(py), script, *sys.argv[1:]])


def default_edges():
    # Where the README says to put SNAP's file (ignored by git).
    return str(HERE.parent.parent / "data" / "facebook_combined.txt")


def timed(fn, repeat=1):
    """Best wall time of `repeat` runs and the last result."""
    best, out = float("inf"), None
    for _ in range(repeat):
        t = time.perf_counter()
        out = fn()
        best = min(best, time.perf_counter() - t)
    return best, out


def main():
    ensure_venv()
    import numpy as np

    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("edges", nargs="?", default=default_edges())
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--sources", type=int, default=200, help="sources for single-source BFS")
    p.add_argument("--skip-slow", action="store_true", help="skip networkx APSP, pinvh, pinv")
    p.add_argument("--with-commute", action="store_true",
                   help="also time NetworKit CommuteTimeDistance (slow here: > 2 min under load)")
    p.add_argument("--json", help="also write the results as JSON here")
    a = p.parse_args()
    if not os.path.exists(a.edges):
        sys.exit(f"{a.edges}: not found (pass an edge list)")

    e = np.loadtxt(a.edges, dtype=np.int64, comments=["#", "%"])[:, :2]
    ids, inv = np.unique(e.ravel(), return_inverse=True)
    n = len(ids)
    e = inv.reshape(-1, 2)
    e = e[e[:, 0] != e[:, 1]]
    e = np.unique(np.sort(e, axis=1), axis=0)
    m = len(e)
    print(f"{a.edges}: {n} nodes, {m} edges; {a.threads} threads")
    res = {"file": a.edges, "nodes": n, "edges": m, "threads": a.threads}

    def report(key, secs, extra=""):
        res[key] = secs
        print(f"  {key:<38} {secs:12.6f} s {extra}")

    rng = np.random.default_rng(1)
    sources = rng.integers(0, n, size=min(a.sources, n))

    import networkit as nk
    nk.setNumberOfThreads(a.threads)
    gk = nk.Graph(n, weighted=False, directed=False)
    for u, v in e:
        gk.addEdge(int(u), int(v))

    def nk_bfs():
        for s in sources:
            nk.distance.BFS(gk, int(s), storePaths=False).run()
    t, _ = timed(nk_bfs, 3)
    report("networkit_bfs_single_source", t / len(sources), "(per source)")
    t, _ = timed(lambda: nk.distance.APSP(gk).run(), 3)
    report("networkit_apsp", t)

    import igraph as ig
    ig_g = ig.Graph(n=n, edges=e.tolist(), directed=False)
    t, _ = timed(lambda: ig_g.distances(), 2)
    report("igraph_all_pairs", t)
    t, _ = timed(lambda: [ig_g.distances(source=int(s)) for s in sources], 1)
    report("igraph_bfs_single_source", t / len(sources), "(per source)")

    if not a.skip_slow:
        import networkx as nx
        gx = nx.Graph()
        gx.add_nodes_from(range(n))
        gx.add_edges_from(e.tolist())
        t, _ = timed(lambda: dict(nx.all_pairs_shortest_path_length(gx)), 1)
        report("networkx_all_pairs", t)

    # Resistance: dense Laplacian routes.
    L = np.zeros((n, n))
    L[e[:, 0], e[:, 1]] = -1.0
    L[e[:, 1], e[:, 0]] = -1.0
    L[np.arange(n), np.arange(n)] = -L.sum(axis=1)

    def inv_route():
        G = np.linalg.inv(L + 1.0 / n)
        d = np.diag(G)
        return d[:, None] + d[None, :] - 2 * G
    t, R = timed(inv_route, 1)
    report("numpy_inv_resistance", t)
    if not a.skip_slow:
        import scipy.linalg as sl
        t, _ = timed(lambda: sl.pinvh(L), 1)
        report("scipy_pinvh", t)
        t, _ = timed(lambda: np.linalg.pinv(L), 1)
        report("numpy_pinv", t)

    if a.with_commute:
        # NetworKit's JL-based CommuteTimeDistance (tol 0.1); commute time = 2m·R.
        iu = np.triu_indices(n, 1)
        exact = R[iu]

        def run_ctd():
            c = nk.distance.CommuteTimeDistance(gk, 0.1)
            c.run()
            return c
        t, c = timed(run_ctd, 1)
        pick = rng.choice(len(exact), size=min(2000, len(exact)), replace=False)
        rel = np.sort(np.array([
            abs(c.distance(int(iu[0][k]), int(iu[1][k])) / (2 * m) - exact[k]) / exact[k]
            for k in pick
        ]))
        report("networkit_commute_time_tol0.1", t,
               f"(median rel err {np.median(rel):.4f}, max {rel[-1]:.4f} over {len(rel)} pairs)")
        res["networkit_commute_time_median_rel_err"] = float(np.median(rel))
        res["networkit_commute_time_max_rel_err"] = float(rel[-1])

    if a.json:
        with open(a.json, "w") as f:
            json.dump(res, f, indent=2)


if __name__ == "__main__":
    main()
