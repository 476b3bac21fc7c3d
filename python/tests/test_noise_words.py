"""One word per concept (issue 32): `noise` names the noise (laplace |
gaussian | discrete) and `mechanism` the coupling, as on the command line
(tests/cli/noise_words.rs). `noise="gaussian"` is the older
`mechanism="gaussian"`, byte for byte; a contradiction is refused."""

from __future__ import annotations

from pathlib import Path

import pytest

import privdiffuse as pdf

KARATE = str(Path(__file__).resolve().parents[2] / "data" / "karate.edges")
OPTS = dict(eps="exp:a=3,b=1", dim=1, seed=4)


@pytest.mark.parametrize(
    "run,extra",
    [
        (pdf.simulate, dict(owners="3")),
        (pdf.simulate, dict(owners="3", delta=1e-6, mechanism="correlated")),
        (pdf.collude, dict(owners="2", coalitions="far:min-d=2", trials=50)),
    ],
)
def test_noise_gaussian_is_mechanism_gaussian(run, extra):
    extra = dict(extra)
    new = run(KARATE, noise="gaussian", **OPTS, **extra)
    extra.pop("mechanism", None)
    old = run(KARATE, mechanism="gaussian", **OPTS, **extra)
    assert new.files == old.files
    for name in new.files:
        if name.endswith(".csv"):
            assert new.csv(name) == old.csv(name), name
    assert new.summary["config"]["mechanism"] == "gaussian"


@pytest.mark.parametrize(
    "run,options,words",
    [
        (pdf.simulate, dict(noise="gaussian", mechanism="both"), ["mechanism", "correlated", "gaussian"]),
        (pdf.simulate, dict(noise="gaussian", mechanism="independent"), ["no independent Gaussian"]),
        (pdf.simulate, dict(noise="laplace", mechanism="gaussian"), ["older spelling"]),
        (pdf.collude, dict(coalitions="far:min-d=2", noise="gaussian", mechanism="both"), ["mechanism"]),
        (pdf.relay, dict(noise="gaussian"), ["gaussian", "relay", "simulate or collude"]),
        (pdf.utility, dict(noise="gaussian"), ["gaussian", "utility", "simulate or collude"]),
        (pdf.simulate, dict(noise="gausian"), ["did you mean `gaussian`"]),
    ],
)
def test_contradictions_are_refused(run, options, words):
    with pytest.raises(ValueError) as e:
        run(KARATE, **OPTS, **options)
    text = str(e.value)
    assert "\n" not in text
    for w in words:
        assert w in text, text
