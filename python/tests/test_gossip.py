"""gossip(): the command line's run in memory (issue 36), file for file;
its tables; a refused secret named by its owner, never its value; the
closed-form checks of the memo on the path a-b-c."""

from __future__ import annotations

import math
import os
import subprocess
from pathlib import Path

import pytest

import privdiffuse as pdf

REPO = Path(__file__).resolve().parents[2]
KARATE = REPO / "data" / "karate.edges"


def _cli() -> Path:
    env = os.environ.get("PRIVDIFFUSE_CLI")
    if env:
        return Path(env)
    for profile in ("release", "debug"):
        p = REPO / "target" / profile / "privdiffuse"
        if p.is_file() and os.access(p, os.X_OK):
            return p
    pytest.skip(f"no privdiffuse binary under {REPO / 'target'} (cargo build first, or set PRIVDIFFUSE_CLI)")


def test_gossip_equals_the_cli_file_for_file(tmp_path):
    args = ["--graph", str(KARATE), "--sigma", "1.5", "--owners", "0,33", "--observers", "0,5",
            "--coalition", "nearest:m=3", "--replicates", "3", "--seed", "4"]
    subprocess.run([str(_cli()), "gossip", *args, "--no-plots", "-q", "--out", str(tmp_path / "cli")],
                   check=True, capture_output=True, cwd=REPO)
    res = pdf.gossip(str(KARATE), sigma=1.5, owners="0,33", observers="0,5",
                     coalitions=["nearest:m=3"], replicates=3, seed=4)
    res.save(tmp_path / "py", plots=False)
    names = ["privacy.csv", "privacy_by_distance.csv", "utility.csv", "coalition.csv", "two_schools.csv"]
    for name in names:
        assert (tmp_path / "py" / name).read_bytes() == (tmp_path / "cli" / name).read_bytes(), name
        assert res.csv(name) == (tmp_path / "cli" / name).read_text(), name


def test_sigma_has_no_default():
    # The command line requires --sigma and a sweep's gossip point `sigma`:
    # Python used to run with a silent sigma = 1.
    with pytest.raises(TypeError, match="sigma"):
        pdf.gossip(str(KARATE), owners="0,")


def test_gossip_tables_hold_the_contract_columns():
    res = pdf.gossip(str(KARATE), sigma=1.0, owners="0,", replicates=2)
    p = res.privacy
    assert {"source", "observer", "distance", "rdp_paper", "rdp_exact", "eps_paper", "eps_exact"} <= set(p.keys())
    # Source 0 to every other member of karate (33 pairs of the accounting),
    # and every source to observer 0 (33 pairs of the exact loss).
    src = [str(s) for s in p["source"]]
    obs = [str(o) for o in p["observer"]]
    assert src.count("0") == 33 and obs.count("0") == 33 and len(src) == 66
    # The accounting (8) is capped at the local level (9): 2/sigma^2 * alpha/2... never above the cap.
    paper = [float(x) for x in p["rdp_paper"] if x is not None and str(x) != ""]
    paper = [x for x in paper if not math.isnan(x)]
    assert len(paper) == 33 and 0 < max(paper) <= 1.0 + 1e-12


def test_a_secret_outside_its_range_names_the_owner_never_the_value():
    values = {v: 0.5 for v in range(34)}
    values[7] = 123456789.25
    with pytest.raises(Exception) as e:
        pdf.gossip(str(KARATE), sigma=1.0, owners="0,", values=values, sensitivity=1.0)
    msg = str(e.value)
    assert "7" in msg and "123456789" not in msg


def test_path_a_b_c_exact_loss_is_the_local_level_and_the_accounting_a_third(tmp_path):
    """Memo: on a-b-c with T = 2 and observer c, (8) = 1/3 and (11) = 1 in units of the local level."""
    g = tmp_path / "abc.edges"
    g.write_text("a b\nb c\n")
    res = pdf.gossip(str(g), sigma=1.0, steps=2, gossip="simple", owners="a,", observers="c,", replicates=1)
    p = res.privacy
    rows = [i for i, (s, o) in enumerate(zip(p["source"], p["observer"])) if str(s) == "a" and str(o) == "c"]
    assert len(rows) == 1
    i = rows[0]
    paper, exact = float(p["rdp_paper"][i]), float(p["rdp_exact"][i])
    assert math.isclose(paper / exact, 1.0 / 3.0, rel_tol=1e-9), (paper, exact)
