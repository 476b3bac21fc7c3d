"""privdiffuse.evolve and privdiffuse.Store (issue 24 item 6): the command
line's files byte for byte, and a store's answers read from its paths."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import numpy as np
import pytest

import privdiffuse as pdf

REPO = Path(__file__).resolve().parents[2]
KARATE = REPO / "data" / "karate.edges"


def _cli() -> Path | None:
    """The privdiffuse binary: $PRIVDIFFUSE_CLI, else target/{release,debug} of this repository."""
    env = os.environ.get("PRIVDIFFUSE_CLI")
    if env:
        return Path(env)
    for profile in ("release", "debug"):
        p = REPO / "target" / profile / "privdiffuse"
        if p.is_file() and os.access(p, os.X_OK):
            return p
    return None


def _split(cli: Path, tmp: Path) -> dict:
    """karate with 20 % held out and 10 % removed: START, events, nodes."""
    start = tmp / "k.edges"
    subprocess.run(
        [str(cli), "generate", "events", "--graph", str(KARATE), "--hold-out", "0.2", "--remove", "0.1", "--seed", "3", "--out", str(start)],
        check=True,
        capture_output=True,
    )
    return {"graph": start, "events": tmp / "k.events.csv", "nodes": tmp / "k.nodes"}


OPTS = {"eps": "exp:a=3,b=1", "dim": 2, "norm": "l2", "seed": 7, "batch": 4}


def test_evolve_and_store_are_the_command_lines(tmp_path):
    """evolve(...) writes the CLI's timeline.csv byte for byte; Store.answers_csv
    is `privdiffuse answers`, whole and filtered; the tables are its columns."""
    cli = _cli()
    if cli is None:
        pytest.skip(f"no privdiffuse binary under {REPO / 'target'} (cargo build --release first)")
    files = _split(cli, tmp_path)
    args = [str(cli), "evolve", "--graph", str(files["graph"]), "--events", str(files["events"]), "--nodes", str(files["nodes"])]
    args += ["--eps", OPTS["eps"], "--dim", "2", "--norm", "l2", "--seed", "7", "--batch", "4"]
    subprocess.run(args + ["--store", str(tmp_path / "cli.db"), "--out", str(tmp_path / "cli")], check=True, capture_output=True)
    res = pdf.evolve(OPTS, store=tmp_path / "py.db", out=tmp_path / "py", threads=2, **files)
    cli_timeline = (tmp_path / "cli" / "timeline.csv").read_text()
    assert (tmp_path / "py" / "timeline.csv").read_text() == cli_timeline
    with pdf.Store(tmp_path / "py.db") as st:
        assert st.timeline_csv() == cli_timeline
        t = st.timeline
        assert len(t["batch"]) == cli_timeline.count("\n") - 1 == res.summary["batches"] + 1
        np.testing.assert_array_equal(np.asarray(t["answers"]), np.asarray(res.timeline["answers"]))
        for filt in ({}, {"owner": 0}, {"recipient": "33"}, {"owner": 33, "recipient": 0}):
            flags = [x for k, v in filt.items() for x in (f"--{k}", str(v))]
            ref = subprocess.run([str(cli), "answers", "--store", str(tmp_path / "cli.db"), *flags], check=True, capture_output=True, text=True).stdout
            assert st.answers_csv(**filt) == ref, filt
        a = st.answers(owner=0)
        ref0 = st.answers_csv(owner=0).splitlines()
        assert len(a["owner"]) == len(ref0) - 1 > 30
        assert set(np.asarray(a["owner"]).tolist()) == {0}
        assert st.config["seed"] == 7 and st.last_batch == res.summary["batches"]


def test_store_answer_is_the_held_answer_and_refuses_bad_pairs(tmp_path):
    """Store.answer gives the pair's held answer (the last listed, at its largest
    ε), releases nothing new on a finished store, refuses owner = recipient and
    unknown ids with the library's message, and a reader beside the writer works
    while a second writer is refused."""
    cli = _cli()
    if cli is None:
        pytest.skip(f"no privdiffuse binary under {REPO / 'target'} (cargo build --release first)")
    files = _split(cli, tmp_path)
    st = pdf.Store.create(tmp_path / "s.db", write=True, **files, **OPTS)
    try:
        rows = st.answers(owner=0, recipient=33)
        eps = np.asarray(rows["eps"])
        a = st.answer(0, 33)
        assert not a["released"]
        assert a["eps"] == eps.max()
        last = int(np.argmax(eps))
        np.testing.assert_array_equal(a["y"], [rows["y1"][last], rows["y2"][last]])
        with pytest.raises(ValueError, match="recipient"):
            st.answer(5, 5)
        with pytest.raises(ValueError, match="owner"):
            st.answer("no-such-node", 1)
        with pytest.raises(BlockingIOError, match="in use by another run"):
            pdf.Store(tmp_path / "s.db", write=True)
        reader = pdf.Store(tmp_path / "s.db")
        assert reader.answer(0, 33)["eps"] == a["eps"]
        reader.close()
    finally:
        st.close()
    # The lock is released on close: a writer opens again.
    pdf.Store(tmp_path / "s.db", write=True).close()
    with pytest.raises(TypeError, match="unknown field"):
        pdf.evolve(store=tmp_path / "t.db", batches=3, **files)


def test_discrete_evolve_is_the_command_line_and_on_the_grid(tmp_path):
    """evolve(noise="discrete", ...) (issue 25): the CLI's timeline and answers
    byte for byte, every answer a multiple of the grid, every ε a rung at or
    below the map's, the store's configuration and summary record the chain;
    a resume with another noise is refused."""
    cli = _cli()
    if cli is None:
        pytest.skip(f"no privdiffuse binary under {REPO / 'target'} (cargo build --release first)")
    files = _split(cli, tmp_path)
    opts = {"eps": "exp:a=3,b=1", "dim": 2, "norm": "l1", "seed": 7, "batch": 4,
            "noise": "discrete", "granularity": "2^-6", "levels_per_doubling": 8}
    args = [str(cli), "evolve", "--graph", str(files["graph"]), "--events", str(files["events"]), "--nodes", str(files["nodes"])]
    args += ["--eps", "exp:a=3,b=1", "--dim", "2", "--norm", "l1", "--seed", "7", "--batch", "4"]
    args += ["--noise", "discrete", "--granularity", "2^-6", "--levels-per-doubling", "8"]
    subprocess.run(args + ["--store", str(tmp_path / "cli.db"), "--out", str(tmp_path / "cli")], check=True, capture_output=True)
    res = pdf.evolve(opts, store=tmp_path / "py.db", out=tmp_path / "py", plots=False, **files)
    assert (tmp_path / "py" / "timeline.csv").read_text() == (tmp_path / "cli" / "timeline.csv").read_text()
    assert res.summary["config"]["noise"] == "discrete" and res.summary["config"]["rng"] == "seeded"
    with pdf.Store(tmp_path / "py.db") as st:
        ref = subprocess.run([str(cli), "answers", "--store", str(tmp_path / "cli.db")], check=True, capture_output=True, text=True).stdout
        assert st.answers_csv() == ref
        assert st.config["noise"] == "discrete" and st.config["granularity"] == "2^-6"
        rows = st.answers()
        y = np.concatenate([np.asarray(rows["y1"]), np.asarray(rows["y2"])])
        np.testing.assert_array_equal(y * 64, np.round(y * 64))
        d, eps = np.asarray(rows["distance"]), np.asarray(rows["eps"])
        assert np.all(eps <= np.exp(3 - d)) and np.all(eps > np.exp(3 - d) * 2 ** (-1 / 8))
    with pytest.raises(ValueError, match="noise"):
        pdf.evolve({**opts, "noise": "laplace", "granularity": "2^-10", "levels_per_doubling": 32},
                   store=tmp_path / "py.db", resume=True, plots=False, **files)


def test_plot_timeline_from_the_result_is_evolves_figure(tmp_path):
    """plot(EvolveResult) draws `timeline` from the result's timeline.csv:
    the bytes of the figure evolve drew into its out directory (issue 34)."""
    cli = _cli()
    if cli is None:
        pytest.skip(f"no privdiffuse binary under {REPO / 'target'} (cargo build --release first)")
    files = _split(cli, tmp_path)
    res = pdf.evolve({"eps": "exp:a=3,b=1", "dim": 1, "norm": "l1", "seed": 7, "batch": 4},
                     store=tmp_path / "t.db", out=tmp_path / "run", **files)
    assert res.csv() == (tmp_path / "run" / "timeline.csv").read_text()
    for ext in ("png", "svg"):
        out = pdf.plot(res, out=tmp_path / f"t.{ext}")
        assert Path(out).read_bytes() == (tmp_path / "run" / f"timeline.{ext}").read_bytes(), ext


def test_an_out_with_files_is_refused_unless_force_or_its_own_store(tmp_path):
    """The command line's rule for ``out``: another run's files are refused
    (FileExistsError, they were replaced) unless ``force``; ``resume`` of
    the same store continues its own directory."""
    ev = tmp_path / "e.csv"
    ev.write_text("time,u,v,op\n1,0,9,add\n")
    opts = {"graph": KARATE, "events": ev, "dim": 1, "norm": "l1", "batch": 1}
    pdf.evolve(opts, store=tmp_path / "a.db", out=tmp_path / "o", plots=False)
    summary = (tmp_path / "o" / "summary.json").read_bytes()
    with pytest.raises(FileExistsError, match="force"):
        pdf.evolve(opts, store=tmp_path / "b.db", out=tmp_path / "o", plots=False, seed=9)
    assert not (tmp_path / "b.db").exists()
    assert (tmp_path / "o" / "summary.json").read_bytes() == summary
    pdf.evolve(opts, store=tmp_path / "b.db", out=tmp_path / "o", plots=False, seed=9, force=True)
    assert (tmp_path / "o" / "summary.json").read_bytes() != summary
    pdf.evolve(opts, store=tmp_path / "a.db", out=tmp_path / "o", plots=False, resume=True)
