"""The rules every face keeps, one table (issue 32 item 5), as
``tests/trust/rules.rs`` holds them for the command line: RULES × the faces
each concerns (FACES) × every noise the face runs. A rule is a refusal — one
line naming the keyword as written (or the file, line and column; an array's
row and column), no secret, nothing written — and a failing cell is a bug in
the library's one check every face calls.

The table cannot fall behind the package: a public name of ``privdiffuse``
that is neither a face here nor in NOT_CONCERNED fails
``test_the_table_lists_every_public_name``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pytest

import privdiffuse as pdf

KARATE = str(Path(__file__).resolve().parents[2] / "data" / "karate.edges")
# Beyond ±2^42, the default grid's range: refused under noise="discrete".
SECRET = 314159265358979
NOISES = ("laplace", "gaussian", "discrete")


def _events(d: Path) -> dict:
    """evolve's inputs in folder `d`: karate as START, one edge added then
    removed."""
    e = d / "events.csv"
    e.write_text("time,u,v,op\n1,0,9,add\n2,0,9,remove\n")
    return {"graph": KARATE, "events": str(e)}


def _noise(noise: str) -> dict:
    """The keywords of `noise` (`gossip` runs its own, and takes none)."""
    if noise == "gossip":
        return {}
    return {"noise": noise, **({"delta": 1e-5} if noise == "gaussian" else {})}


def _run(name: str, tmp: Path, noise: str, kw: dict) -> Any:
    """One call of face `name` under `noise` with the keywords `kw`, writing
    (if it writes) into `tmp` (its inputs beside it)."""
    n = _noise(noise)
    if name == "GradualRelease":
        # delta belongs to the release; the rule's `value`/`eps`/`granularity`
        value, eps = kw.pop("value", 1.0), kw.pop("eps", 1.0)
        return pdf.GradualRelease(value, **n, **kw).release(eps)
    if name == "sample_path":
        return pdf.sample_path(dim=1, norm="l1", eps_hi=2.0, **kw)
    n.pop("delta", None)
    common = {"dim": 1, "norm": "l1", **n, **kw}
    if name == "evolve":
        return pdf.evolve(store=str(tmp / "s.db"), plots=False, **_events(tmp.parent), **common)
    if name == "Store.create":
        return pdf.Store.create(str(tmp / "s.db"), **_events(tmp.parent), **common)
    if name == "sweep":
        return pdf.sweep({"graph": KARATE, "owners": 2, **common})
    if name == "gossip":
        return pdf.gossip(KARATE, sigma=1, sensitivity=1, owners=2, **n, **kw)
    extra = {"coalitions": ["random:m=3"], "trials": 20} if name == "collude" else {}
    return getattr(pdf, name)(KARATE, **common, **extra)


# Each face: the noises it runs, and what it reads that a rule concerns
# ("values" a file or spec; "array" values given in memory; "value" a
# release's one secret; "eps" a map; "level" a number; "granularity").
FACES: dict[str, tuple[tuple[str, ...], dict[str, str]]] = {
    "simulate": (NOISES, {"values": "values", "array": "values", "eps": "eps", "granularity": "granularity"}),
    "collude": (NOISES, {"values": "values", "array": "values", "eps": "eps", "granularity": "granularity"}),
    "utility": (("laplace", "discrete"), {"values": "values", "array": "values", "eps": "eps", "granularity": "granularity"}),
    "relay": (("laplace", "discrete"), {"values": "values", "array": "values", "eps": "eps", "granularity": "granularity"}),
    "gossip": (("gossip",), {"values": "values", "array": "values"}),
    "evolve": (("laplace", "discrete"), {"values": "values", "eps": "eps", "granularity": "granularity"}),
    "Store.create": (("laplace", "discrete"), {"values": "values", "eps": "eps", "granularity": "granularity"}),
    "sweep": (NOISES, {"values": "values", "eps": "eps", "granularity": "granularity"}),
    "GradualRelease": (NOISES, {"value": "value", "level": "eps", "granularity": "granularity"}),
    "sample_path": (("laplace",), {"level": "eps_lo"}),
}

# Public names no rule concerns (readers, result tables, figures: `plot`
# replaces its file, as the figures of a run are meant to be redrawn).
NOT_CONCERNED = {
    "Graph", "EpsilonMap", "NoisePath", "SimulationResult", "CollusionResult", "UtilityResult",
    "GossipResult", "RelayResult", "SweepResult", "EvolveResult", "Store", "sample_paths",
    "option_names", "plot",
}  # fmt: skip


def _array(cell: float, row: int = 0) -> np.ndarray:
    a = np.full(34, 0.5)
    a[row] = cell
    return a


# (what the rule says, input, the offending value (a callable of the
# fixture folder), noises it holds under (None: all), what the message holds;
# `{k}` is the keyword).
RULES: list[tuple[str, str, Callable[[Path], Any], tuple[str, ...] | None, list[str]]] = [
    ("a values file with a cell too many", "values", lambda d: f"file:{d / 'cols.csv'}", None,
     ["cols.csv:2: column 3: expected 2 columns"]),
    ("a values file's cell that does not parse", "values", lambda d: f"file:{d / 'cell.csv'}", None,
     ["cell.csv:2: column 2 (v1)", "(the cell is not shown)"]),
    ("a values file's cell that overflows", "values", lambda d: f"file:{d / 'over.csv'}", None,
     ["over.csv:2: column 2 (v1)", "(the cell is not shown)"]),
    ("an array's cell that is not finite", "array", lambda d: _array(np.nan, 5), None,
     ["invalid {k} '(row 5, column 0: not shown)'"]),
    ("an array's cell that overflows", "array", lambda d: _array(np.inf, 7), None,
     ["invalid {k} '(row 7, column 0: not shown)'"]),
    ("an array's secret beyond the grid or the public range", "array", lambda d: np.full(34, float(SECRET)),
     ("discrete", "gossip"), ["invalid {k} '(owner ", ": not shown)'"]),
    ("a values file's secret beyond the grid or the public range", "values", lambda d: f"file:{d / 'big.csv'}",
     ("discrete", "gossip"), ["invalid {k} '(owner ", ": not shown)'"]),
    ("a value beyond the grid", "value", lambda d: float(SECRET), ("discrete",),
     ["invalid {k} '(not shown)'", "granularity"]),
    ("an array's secret the f64 noise cannot hide", "array", lambda d: np.full(34, float(SECRET)),
     ("laplace", "gaussian"), ["invalid {k} '(owner ", ": not shown)'", "2^42 noise standard deviations"]),
    ("a values file's secret the f64 noise cannot hide", "values", lambda d: f"file:{d / 'big.csv'}",
     ("laplace", "gaussian"), ["invalid {k} '(owner ", ": not shown)'", "2^42 noise standard deviations"]),
    ("a value the f64 noise cannot hide", "value", lambda d: float(SECRET), ("laplace", "gaussian"),
     ["invalid {k} '(not shown)'", "2^42 noise standard deviations"]),
    ("const:X is every owner's secret", "values", lambda d: f"const:{SECRET}x", None,
     ["invalid {k} 'const:(not shown)'"]),
    ("a value that is not finite", "value", lambda d: [float(SECRET), np.inf], None,
     ["invalid {k} '(coordinate 1: not shown)'"]),
    ("values whose range overflows", "values", lambda d: "uniform:-1e308,1e308", None,
     ["invalid {k} 'uniform:-1e308,1e308'", "finite width"]),
    ("a map whose ε underflows at the top", "eps", lambda d: "exp:a=-800,b=1", None,
     ["invalid {k} 'exp:a=-800,b=1'", "got ε = 0 at distance 1"]),
    ("a map whose ε underflows further down", "eps", lambda d: "power:c=1,p=1e308", None,
     ["invalid {k} 'power:c=1,p=1e308'", "got ε = 0 at distance 2"]),
    ("a level below the range", "level", lambda d: 1e-320, None, ["invalid {k} '1e-320'"]),
    ("a grid without the discrete noise, as typed", "granularity", lambda d: "2^-3", ("laplace", "gaussian"),
     ["invalid {k} '2^-3'", "its default unless `noise` = discrete"]),
    ("one grid limit", "granularity", lambda d: "2^401", ("discrete",),
     ["invalid {k} '2^401'", "at most 2^400"]),
]  # fmt: skip


def _fixtures(d: Path) -> None:
    (d / "cols.csv").write_text(f"1,0.5\n0,{SECRET},27\n")
    (d / "cell.csv").write_text(f"1,0.5\n0,{SECRET}x\n")
    (d / "over.csv").write_text(f"1,0.5\n0,{SECRET}e999\n")
    (d / "big.csv").write_text("".join(f"{i},{SECRET}\n" for i in range(34)))


def _cases():
    for says, what, value, noises, parts in RULES:
        for face, (runs, reads) in FACES.items():
            if what not in reads:
                continue
            for noise in runs:
                if noises is None or noise in noises:
                    yield pytest.param(face, noise, reads[what], value, parts, id=f"{says} [{face} {noise}]")


@pytest.mark.parametrize("face,noise,keyword,value,parts", list(_cases()))
def test_every_rule_holds_for_every_face_and_noise(face, noise, keyword, value, parts, tmp_path):
    fx, run = tmp_path / "fx", tmp_path / "run"
    fx.mkdir()
    run.mkdir()
    _fixtures(fx)
    with pytest.raises(ValueError) as e:
        _run(face, run, noise, {keyword: value(fx)})
    text = str(e.value)
    assert "\n" not in text, text
    for p in parts:
        assert p.replace("{k}", keyword) in text, text
    assert str(SECRET) not in text and "3.14159" not in text, text
    assert os.listdir(run) == [], f"wrote {os.listdir(run)}"


@pytest.mark.parametrize("face", [f for f, (runs, _) in FACES.items() if "gaussian" not in runs and f not in ("gossip", "sample_path")])
def test_a_noise_a_face_does_not_run_is_refused_naming_noise(face, tmp_path):
    # relay(noise="gaussian") named `mechanism 'gaussian'` (the keyword was
    # folded into mechanism before relay's check).
    run = tmp_path / "run"
    run.mkdir()
    with pytest.raises(ValueError) as e:
        _run(face, run, "gaussian", {})
    text = str(e.value)
    # (evolve's configuration was read by serde: "noise: unknown variant
    # `gaussian`, …"; now in the words of `evolve --noise gaussian`.)
    assert text.startswith("invalid noise 'gaussian': expected laplace or discrete"), text
    assert "\n" not in text and "mechanism 'gaussian'" not in text, text
    assert os.listdir(run) == [], f"wrote {os.listdir(run)}"


def _plant_claim(d: Path, name: str, is_dir: bool) -> Path:
    """What a live run into the new output `name` leaves on disk while it
    runs: the empty destination it claimed and its staging beside it, named
    with a live process's PID (this one's parent: the claim of this process
    itself is not another run's)."""
    dest = d / name
    staging = d / f".{name}.tmp-{os.getppid()}-AbC123"
    for p in (dest, staging):
        p.mkdir() if is_dir else p.write_text("")
    return dest


_KARATE_RUN = {"dim": 1, "norm": "l1", "owners": 2}

# Every face that writes an output, as (name, is_dir, writer of that path).
WRITERS: list[tuple[str, bool, Callable[[Path], Any]]] = [
    ("simulate.save", True, lambda p: pdf.simulate(KARATE, **_KARATE_RUN).save(p, plots=False)),
    ("collude.save", True, lambda p: pdf.collude(KARATE, coalitions=["random:m=3"], trials=20, **_KARATE_RUN).save(p, plots=False)),
    ("utility.save", True, lambda p: pdf.utility(KARATE, **_KARATE_RUN).save(p, plots=False)),
    ("relay.save", True, lambda p: pdf.relay(KARATE, **_KARATE_RUN).save(p, plots=False)),
    ("gossip.save", True, lambda p: pdf.gossip(KARATE, sigma=1, owners=2).save(p, plots=False)),
    ("evolve", True, lambda p: pdf.evolve(store=str(p.parent / "s.db"), out=str(p), plots=False, **_events(p.parent.parent), **_KARATE_RUN)),
    ("sweep.save", False, lambda p: pdf.sweep({"graph": KARATE, **_KARATE_RUN}).save(p)),
    ("GradualRelease.save", False, lambda p: pdf.GradualRelease(1.0).save(p)),
    ("Graph.save", False, lambda p: pdf.Graph.load(KARATE).save(p)),
]  # fmt: skip


@pytest.mark.parametrize("name,is_dir,write", WRITERS, ids=[w[0] for w in WRITERS])
def test_an_output_a_live_run_claimed_is_refused_at_once(name, is_dir, write, tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    dest = _plant_claim(d, "o" if is_dir else "o.out", is_dir)
    before = sorted(os.listdir(d))
    with pytest.raises(FileExistsError, match="was created by another run"):
        write(dest)
    assert sorted(os.listdir(d)) == before
    assert (dest.is_dir() and not any(dest.iterdir())) or dest.read_bytes() == b""


@pytest.mark.parametrize("name,shared", [(w[0], shared) for w in WRITERS if w[1] for shared in (False, True) if not shared or w[0] == "evolve"])
def test_an_output_another_run_holds_is_refused_at_once(name, shared, tmp_path):
    # `o.lock` held alone, as a live `evolve` holds it (every run into `o` is
    # refused), or shared, as a staged run holds it (`evolve` is refused).
    import fcntl

    d = tmp_path / "run"
    d.mkdir()
    write = dict((w[0], w[2]) for w in WRITERS)[name]
    with open(d / "o.lock", "w") as held:
        fcntl.flock(held, (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        before = sorted(os.listdir(d))
        with pytest.raises(BlockingIOError, match=r"^\S*o is in use by another run$"):
            write(d / "o")
        assert sorted(os.listdir(d)) == before


def test_the_table_lists_every_public_name():
    faces = {f.split(".")[0] for f in FACES} | {w[0].split(".")[0] for w in WRITERS}
    public = {
        n
        for n in dir(pdf)
        if not n.startswith("_") and getattr(getattr(pdf, n), "__module__", "").startswith("privdiffuse")
    }
    assert {"simulate", "GradualRelease", "evolve"} <= public, public
    missing = public - faces - NOT_CONCERNED
    assert not missing, f"public names in no rule's table and not in NOT_CONCERNED: {missing}"
