"""Python face of the regression harness: runs the package's calls with fixed
seeds and records every table they return as text, one file per table, under
OUT/python/. Compare two recordings with tests/regression/compare.sh.

    python tests/regression/python_record.py OUT     (from the repository root,
                                                       with privdiffuse installed)
"""

import json
import os
import sys

import numpy as np

import privdiffuse as pdf

out = os.path.join(sys.argv[1], "python")
os.makedirs(out, exist_ok=False)


def put(name: str, text: str) -> None:
    with open(os.path.join(out, name), "w", encoding="utf-8") as f:
        f.write(text)


def record(prefix: str, res) -> None:
    for name in res.files:
        if name == "summary.json":
            s = dict(res.summary)
            s.pop("timings", None)
            put(f"{prefix}.{name}", json.dumps(s, sort_keys=True, indent=1))
        elif name.endswith(".csv"):
            put(f"{prefix}.{name}", res.csv(name))


def array(name: str, a) -> None:
    a = np.asarray(a, dtype=float)
    put(name, "\n".join(",".join(repr(float(x)) for x in np.atleast_1d(r)) for r in np.atleast_2d(a)) + "\n")


g = pdf.Graph.load("data/karate.edges")
array("karate.hop", g.distances([0, 33], kind="hop"))
array("karate.resistance", g.distances([0, 5], kind="resistance"))
eps = pdf.EpsilonMap.exp(3, 1)
array("eps", eps(np.array([0.5, 1.0, 2.0, 7.0])))

record("sim", pdf.simulate(g, eps=eps, dim=1, norm="l1", owners=10, seed=5, replicates=2, responses=True))
record("sim_discrete", pdf.simulate(g, eps=eps, dim=1, norm="l1", owners=6, seed=2, noise="discrete", responses=True))
values = np.linspace(0.0, 1.0, g.n_nodes)
record("sim_given", pdf.simulate(g, eps="exp:a=2,b=0.5", dim=1, norm="l1", owners=5, seed=3, values=values))
record("collude", pdf.collude(g, eps=eps, dim=1, norm="l1", owners=3, trials=60, seed=4, coalitions=["nearest:m=3", "far:min-d=2"]))
record("utility", pdf.utility(g, eps=eps, dim=1, norm="l1", replicates=2, seed=6))
record("utility_discrete", pdf.utility(g, eps=eps, dim=1, norm="l1", seed=6, noise="discrete", recipients=True))
record("relay", pdf.relay(g, eps=eps, dim=1, norm="l1", owners=5, seed=7))
sw = pdf.sweep(base={"graph": "data/karate.edges", "owners": 5}, grid={"eps": ["exp:a=3,b=1", "exp:a=3,b=2"], "dim": [1, 2]})
put("sweep.csv", sw.csv("sweep.csv") if "sweep.csv" in getattr(sw, "files", ["sweep.csv"]) else "")

paths = pdf.sample_paths(3, dim=2, norm="l2", eps_lo=0.5, eps_hi=8.0, seed=9)
for i, p in enumerate(paths):
    array(f"path{i}.levels", p.levels)
    array(f"path{i}.values", p.values)

r = pdf.GradualRelease([0.3], seed=11)
array("release", [r.release(e) for e in (1.0, 0.5, 4.0)])
rd = pdf.GradualRelease([0.3], mechanism="discrete", seed=12)
array("release_discrete", [rd.release(e) for e in (2.0, 0.5, 1.0)])
print("recorded", len(os.listdir(out)), "files in", out)
