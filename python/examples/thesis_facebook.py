"""The thesis' Facebook experiment from Python, the example a researcher runs first.

Ego network of Facebook node 0 (SNAP ego-Facebook), effective-resistance
distances, privacy map eps(d) = e^(4 - 3.3 d), one private bit per owner
released with l1 Laplace noise and projected back onto {0, 1}, two sample
paths drawn -> the ego-network figure (the thesis' Fig. 6, fig6_ego.png) and
the jumps of the two paths against distance (Fig. 7, fig7_jumps.png).

    python python/examples/thesis_facebook.py [--out DIR]

Without ../shared/data/facebook_combined.txt (as in CI) it runs the same
pipeline on the 2-hop ego network of node 0 of the bundled
data/geometric150.edges.
"""

from __future__ import annotations

import argparse
import time
from pathlib import Path

import numpy as np

import privdiffuse as pdf

REPO = Path(__file__).resolve().parents[2]
FACEBOOK = REPO.parent / "shared" / "data" / "facebook_combined.txt"
BUNDLED = REPO / "data" / "geometric150.edges"


def main() -> None:
    """Runs the experiment and writes the two figures into --out."""
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="thesis_figures", help="directory for the PNGs (default: %(default)s)")
    args = ap.parse_args()
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)

    t0 = time.perf_counter()
    if FACEBOOK.exists():
        g = pdf.Graph.load(FACEBOOK).ego(0)  # node 0 and its 347 friends
        source = f"{FACEBOOK.name}, ego network of node 0"
    else:
        g = pdf.Graph.load(BUNDLED).ego(0, radius=2)
        source = f"{BUNDLED.name} (bundled; ../shared absent), 2-hop ego network of node 0"
    print(f"graph: {source}: {g.n_nodes} nodes, {g.n_edges} edges")

    # Resistance distances from the ego (node 0) to everyone.
    d = g.distances([0], kind="resistance")[0]
    eps = pdf.EpsilonMap.exp(4.0, 3.3)  # eps(d) = e^(4 - 3.3 d)
    print(f"resistance distance from 0: median {np.median(d[d > 0]):.3f}, max {d.max():.3f}; "
          f"eps from {eps(d[d > 0].min()):.3g} down to {eps(d.max()):.3g}")

    res = pdf.simulate(
        g,
        eps=eps,
        distance="resistance",
        dim=1,
        norm="l1",
        values="bits:0.5",  # one private bit per owner
        post="bit",  # answers projected back onto {0, 1}
        owners=None,  # every member of the ego network owns a bit
        path_owners=2,  # two sample paths for Fig. 7
        seed=6,
    )
    bd = res.by_distance
    print(f"simulated {res.summary['counts']['responses']} answers in {res.seconds:.3f} s")
    print(bd if not isinstance(bd, dict) else {k: np.asarray(v)[:6] for k, v in bd.items()})

    pdf.plot(res, kind="ego", out=out / "fig6_ego.png")
    pdf.plot(res, kind="jumps", out=out / "fig7_jumps.png")
    print(f"wrote {out / 'fig6_ego.png'} and {out / 'fig7_jumps.png'} in {time.perf_counter() - t0:.2f} s")


if __name__ == "__main__":
    main()
