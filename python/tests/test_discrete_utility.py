"""`utility(noise="discrete", ...)` through the door (issue 25): the run is the
command line's `utility --noise discrete` byte for byte (raw values and
projected bits), and its summary records the discrete noise."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

import privdiffuse as pdf

REPO = Path(__file__).resolve().parents[2]
KARATE = REPO / "data" / "karate.edges"
OPTS = dict(eps="exp:a=3,b=1", dim=1, norm="l1", seed=5, replicates=3, access_radius=2)
FLAGS = ["--eps", "exp:a=3,b=1", "--dim", "1", "--norm", "l1", "--seed", "5",
         "--replicates", "3", "--access-radius", "2"]
NAMES = ["utility.csv", "recipients.csv", "summary.json"]


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


@pytest.mark.parametrize("extra", [{}, {"values": "bits:0.3", "post": "bit"}])
def test_discrete_utility_equals_the_cli(tmp_path, extra):
    cli = _cli()
    if cli is None:
        pytest.skip(f"no privdiffuse binary under {REPO / 'target'} (cargo build first)")
    flags = [f for k, v in extra.items() for f in (f"--{k}", v)]
    out = tmp_path / "cli"
    subprocess.run(
        [str(cli), "utility", "--graph", str(KARATE), *FLAGS, *flags, "--noise", "discrete",
         "--granularity", "2^-6", "--levels-per-doubling", "16", "--recipients",
         "--no-plots", "-q", "--out", str(out)],
        check=True, cwd=REPO,
    )
    res = pdf.utility(str(KARATE), noise="discrete", granularity="2^-6", levels_per_doubling=16,
                      recipients=True, **OPTS, **extra)
    res.save(tmp_path / "py", plots=False)
    for name in NAMES:
        assert (tmp_path / "py" / name).read_bytes() == (out / name).read_bytes(), name
    d = res.summary["discrete"]
    assert (d["noise"], d["granularity"], d["levels_per_doubling"], d["delta_z"], d["rng"]) == \
        ("discrete", "2^-6", 16, 64, "seeded")
    eps = d["eps_by_hop"]
    assert eps and all(a >= b for a, b in zip(eps, eps[1:]))
    # Laplace (the default) is another run.
    lap = pdf.utility(str(KARATE), **OPTS, **extra)
    assert lap.csv("utility.csv") != res.csv("utility.csv")
    assert "discrete" not in lap.summary


def test_discrete_utility_refusals():
    with pytest.raises(ValueError, match="norm"):
        pdf.utility(str(KARATE), noise="discrete", **{**OPTS, "dim": 2, "norm": "l2"})
    with pytest.raises(ValueError, match="granularity"):
        pdf.utility(str(KARATE), granularity="2^-3", **OPTS)
