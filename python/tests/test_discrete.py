"""`noise="discrete"` through the door (issue 25): the four noise options
reach simulate and collude as the command line's flags do, and a discrete
simulate is the CLI's run byte for byte."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import privdiffuse as pdf

REPO = Path(__file__).resolve().parents[2]
GEO = REPO / "data" / "geometric150.edges"


def _cli() -> Path | None:
    """$PRIVDIFFUSE_CLI, else target/{release,debug}/privdiffuse of this repository."""
    env = os.environ.get("PRIVDIFFUSE_CLI")
    if env:
        return Path(env)
    for profile in ("release", "debug"):
        p = REPO / "target" / profile / "privdiffuse"
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


OPTS = dict(eps="exp:a=3,b=1", dim=1, norm="l1", mechanism="both", owners=20, seed=5)
FLAGS = ["--eps", "exp:a=3,b=1", "--dim", "1", "--norm", "l1", "--mechanism", "both",
         "--owners", "20", "--seed", "5"]


def test_discrete_simulate_equals_the_cli(tmp_path):
    cli = _cli()
    if cli is None:
        pytest.skip(f"no privdiffuse binary under {REPO / 'target'} (cargo build first)")
    out = tmp_path / "run"
    subprocess.run(
        [str(cli), "simulate", "--graph", str(GEO), *FLAGS, "--noise", "discrete",
         "--granularity", "2^-6", "--levels-per-doubling", "16", "--out", str(out),
         "--no-plots", "-q"],
        check=True, cwd=REPO,
    )
    g = pdf.Graph.load(GEO)
    # The grid as text or as a float: the same run.
    for gran in ("2^-6", 0.015625):
        res = pdf.simulate(g, noise="discrete", granularity=gran, levels_per_doubling=16,
                           rng="seeded", **OPTS)
        assert res.csv("by_distance.csv") == (out / "by_distance.csv").read_text()
        d = res.summary["discrete"]
        assert (d["granularity"], d["levels_per_doubling"], d["delta_z"], d["rng"]) == \
            ("2^-6", 16, 64, "seeded")
    # Laplace (the default) is another run.
    lap = pdf.simulate(g, **OPTS)
    assert lap.csv("by_distance.csv") != (out / "by_distance.csv").read_text()


def test_discrete_options_reach_collude_and_are_checked():
    g = pdf.Graph.load(GEO)
    res = pdf.collude(g, eps="exp:a=3,b=1", dim=1, norm="l1", owners=3,
                      coalitions=["far:min-d=2"], trials=50, seed=2, noise="discrete",
                      granularity=0.0625)
    c = res.summary["config"]
    assert (c["noise"], c["granularity"]) == ("discrete", "2^-4")
    with pytest.raises(ValueError, match="granularity"):
        pdf.simulate(g, noise="discrete", granularity=0.3, **OPTS)
    with pytest.raises(ValueError, match="granularity"):
        pdf.simulate(g, granularity="2^-3", **OPTS)
    with pytest.raises(ValueError, match="rng"):
        pdf.simulate(g, noise="discrete", rng="urandom", **OPTS)
    with pytest.raises(ValueError, match="norm"):
        pdf.simulate(g, **{**OPTS, "dim": 2, "norm": "l2"}, noise="discrete")


def test_discrete_relay_equals_the_cli(tmp_path):
    """relay(noise="discrete"): the CLI's relay.csv byte for byte, every
    answer identical to simulate's, the noise recorded; rng="os" refused."""
    cli = _cli()
    if cli is None:
        pytest.skip(f"no privdiffuse binary under {REPO / 'target'} (cargo build first)")
    karate = REPO / "data" / "karate.edges"
    out = tmp_path / "relay"
    subprocess.run(
        [str(cli), "relay", "--graph", str(karate), "--eps", "exp:a=3,b=1", "--dim", "1",
         "--norm", "l1", "--seed", "5", "--noise", "discrete", "--granularity", "2^-6",
         "--levels-per-doubling", "16", "--untrimmed", "0,0.2", "--out", str(out),
         "--no-plots", "-q"],
        check=True, cwd=REPO,
    )
    g = pdf.Graph.load(karate)
    opts = dict(eps="exp:a=3,b=1", dim=1, norm="l1", seed=5, noise="discrete",
                granularity="2^-6", levels_per_doubling=16, untrimmed=[0, 0.2])
    res = pdf.relay(g, **opts)
    assert res.csv("relay.csv") == (out / "relay.csv").read_text()
    d = res.summary["discrete"]
    assert (d["granularity"], d["levels_per_doubling"], d["delta_z"], d["rng"]) == \
        ("2^-6", 16, 64, "seeded")
    for t in res.summary["totals"]:
        assert t["identical"] == t["recipients"] == 34 * 33
    with pytest.raises(ValueError, match="rng"):
        pdf.relay(g, **{**opts, "rng": "os"})
def test_gradual_release_discrete_rungs_order_and_state(tmp_path):
    """GradualRelease(mechanism="discrete") as `relax --noise discrete`: levels
    recorded at their rungs, answers on the grid, the same answers whatever the
    order of requests, a saved state continues, bad options refused."""
    a = pdf.GradualRelease([0.3], mechanism="discrete", seed=4)
    ya = {e: float(a.release(e)[0]) for e in (1.0, 0.5, 300.0, 2.0)}
    assert a.levels == [1.0, 0.5, 256.0, 2.0]
    assert a.privacy_level == 256.0
    for y in ya.values():
        assert (y * 1024).is_integer()
    b = pdf.GradualRelease([0.3], mechanism="discrete", seed=4)
    for e in (2.0, 300.0):
        b.release(e)
    b.save(tmp_path / "s.json")
    c = pdf.GradualRelease.load(tmp_path / "s.json")
    yb = {e: float(c.release(e)[0]) for e in (0.5, 1.0)}
    assert yb[0.5] == ya[0.5] and yb[1.0] == ya[1.0]
    g = pdf.GradualRelease([0.3], mechanism="discrete", granularity=0.015625, eps_max=64.0)
    assert g.release(100.0)[0] * 64 == round(g.release(100.0)[0] * 64)
    assert g.levels == [64.0, 64.0]
    with pytest.raises(ValueError, match="eps_max"):
        pdf.GradualRelease([0.3], eps_max=8.0)
    with pytest.raises(ValueError, match="granularity"):
        pdf.GradualRelease([0.3], mechanism="discrete", granularity=0.3)
