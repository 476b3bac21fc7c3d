"""Trust pass 2 (issue 33) in Python: `Graph.load(..., header=...)` and the
run functions' `header` option, skipped header lines as warnings, and a
`Store` that refuses a FIFO at once."""

from __future__ import annotations

import os
import threading
import warnings
from pathlib import Path

import numpy as np
import pytest

import privdiffuse as pdf


def _musae(tmp_path: Path) -> Path:
    m = tmp_path / "m.csv"
    m.write_text("id_1,id_2\n0,1\n1,2\n")
    return m


def test_a_musae_header_is_a_warning_and_header_chooses(tmp_path):
    m = _musae(tmp_path)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        g = pdf.Graph.load(m)
    assert len(g) == 3
    texts = [str(w.message) for w in caught]
    assert any("skipped 'id_1,id_2' as a header" in t for t in texts), texts
    assert len(pdf.Graph.load(m, header="no")) == 5
    assert len(pdf.Graph.load(m, header="yes")) == 3
    with pytest.raises(ValueError, match="header"):
        pdf.Graph.load(m, header="maybe")


def test_the_run_functions_take_header(tmp_path):
    m = _musae(tmp_path)
    for header, nodes in (("auto", 3), ("no", 5)):
        out = pdf.simulate(graph=str(m), header=header, dim=1, values="const:0")
        assert out.summary["graph"]["nodes"] == nodes, header


def test_a_fifo_store_is_refused_at_once(tmp_path):
    f = tmp_path / "f.db"
    os.mkfifo(f)
    result = {}

    def read():
        try:
            pdf.Store(f).answers()
        except Exception as e:  # noqa: BLE001 - the refusal is the result
            result["error"] = str(e)

    t = threading.Thread(target=read, daemon=True)
    t.start()
    t.join(10)
    assert not t.is_alive(), "Store(FIFO).answers() blocked"
    assert "not a regular file" in result.get("error", ""), result


def test_relay_responses_are_simulates(tmp_path):
    karate = str(Path(__file__).resolve().parents[2] / "data" / "karate.edges")
    opts = dict(eps="exp:a=3,b=1", dim=1, norm="l1", seed=3)
    r = pdf.relay(karate, responses=True, **opts)
    s = pdf.simulate(karate, mechanism="correlated", responses=True, **opts)
    assert r.csv("responses.csv") == s.csv("responses.csv")
    assert "responses.csv" not in pdf.relay(karate, **opts).files


# One rule per row, every run function it concerns (issue 32 item 3; the
# rules of item 5 are test_rules.py's table): the library refuses, so Python
# says what the CLI says.
@pytest.mark.parametrize(
    "run,options,words",
    [
        (pdf.relay, {"mechanism": "gaussian"}, ["mechanism", "relay", "simulate or collude"]),
        (pdf.utility, {"mechanism": "gaussian"}, ["mechanism", "utility", "simulate or collude"]),
        # Parameters of the simulation a command does not use: refused, not ignored.
        (pdf.relay, {"mechanism": "independent"}, ["mechanism", "relay does not use it"]),
        (pdf.relay, {"post": "bit"}, ["post", "relay does not use it"]),
        (pdf.relay, {"replicates": 3}, ["replicates", "relay does not use it"]),
        (pdf.relay, {"delta": 0.5}, ["delta", "relay does not use it"]),
        (pdf.utility, {"bins": 7}, ["bins", "utility does not use it"]),
        (pdf.utility, {"mechanism": "independent"}, ["mechanism", "utility does not use it"]),
        (pdf.utility, {"ego_owners": ["0"]}, ["ego_owners", "utility does not use it"]),
        (pdf.utility, {"responses": True}, ["responses", "utility does not use it"]),
        (pdf.simulate, {"mechanism": "gaussian", "norm": "l1", "dim": 2}, ["norm", "l2 for the Gaussian"]),
        (pdf.simulate, {"replicates": 100001}, ["replicates", "100000"]),
        # delta only with the Gaussian mechanism, bins only on continuous
        # distances, collude without simulate's own keys (all were ignored).
        (pdf.simulate, {"delta": 0.5}, ["delta", "Gaussian mechanism"]),
        (pdf.simulate, {"bins": 7}, ["bins", "hop distances"]),
        (pdf.collude, {"coalitions": "far:min-d=2", "delta": 0.5}, ["delta", "Gaussian mechanism"]),
        (pdf.collude, {"coalitions": "far:min-d=2", "bins": 7}, ["bins", "hop distances"]),
        (pdf.collude, {"coalitions": "far:min-d=2", "replicates": 3}, ["replicates", "collude does not use it"]),
        (pdf.collude, {"coalitions": "far:min-d=2", "post": "bit"}, ["post", "collude does not use it"]),
        (pdf.collude, {"coalitions": "far:min-d=2", "ego_owners": ["0"]}, ["ego_owners", "collude does not use it"]),
        (pdf.collude, {"coalitions": "far:min-d=2", "responses": True}, ["responses", "collude does not use it"]),
    ],
)
def test_one_rule_for_every_run_function(run, options, words):
    g = pdf.Graph.load(Path(__file__).resolve().parents[2] / "data" / "karate.edges")
    with pytest.raises(ValueError) as e:
        run(g, **options)
    text = str(e.value)
    assert "\n" not in text, text
    for w in words:
        assert w in text, text


@pytest.mark.parametrize("run", [pdf.simulate, pdf.relay, pdf.utility])
def test_a_values_dict_with_keys_and_values_swapped_never_shows_them(run):
    # Swapped, the keys are the secrets: how many, never which.
    g = pdf.Graph.load(Path(__file__).resolve().parents[2] / "data" / "karate.edges")
    secret = 31415926535
    with pytest.raises(ValueError) as e:
        run(g, values={secret + i: float(i) for i in range(34)}, dim=1, norm="l1")
    assert str(secret)[:6] not in str(e.value) and "34 unknown" in str(e.value), str(e.value)
    with pytest.raises(TypeError) as e:
        run(g, values={float(secret): 0.0}, dim=1, norm="l1")
    assert str(secret)[:6] not in str(e.value), str(e.value)
    # NumPy integers are ids (the elements of an id array).
    vals = {np.int64(i): 0.5 for i in range(34)}
    run(g, values=vals, dim=1, norm="l1")
