"""The one door: every option under its summary.json name, the same numbers
as the command line per command (simulate, collude, utility, sweep),
replicates, in-memory values, tables with and without pandas, and the id
checks of the graph builders."""

from __future__ import annotations

import io
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import privdiffuse as pdf

REPO = Path(__file__).resolve().parents[2]
KARATE = REPO / "data" / "karate.edges"
GEO = REPO / "data" / "geometric150.edges"
COMMON = ["--eps", "exp:a=3,b=1", "--dim", "1", "--norm", "l1", "--seed", "5"]
OPTS = dict(eps="exp:a=3,b=1", dim=1, norm="l1", seed=5)


def _cli() -> Path:
    env = os.environ.get("PRIVDIFFUSE_CLI")
    if env:
        return Path(env)
    for profile in ("release", "debug"):
        p = REPO / "target" / profile / "privdiffuse"
        if p.is_file() and os.access(p, os.X_OK):
            return p
    pytest.skip(f"no privdiffuse binary under {REPO / 'target'} (cargo build first, or set PRIVDIFFUSE_CLI)")


def _run(*args: str) -> None:
    subprocess.run([str(_cli()), *args], check=True, capture_output=True, cwd=REPO)


def _same_files(cli_dir: Path, py_dir: Path, names) -> None:
    for name in names:
        assert (py_dir / name).read_bytes() == (cli_dir / name).read_bytes(), name


# ------------------------------------------------------------ CLI parity
def test_simulate_equals_the_cli_file_for_file_with_replicates(tmp_path):
    _run("simulate", "--graph", str(KARATE), *COMMON, "--owners", "6", "--replicates", "2",
         "--responses", "--no-plots", "-q", "--out", str(tmp_path / "cli"))
    res = pdf.simulate(str(KARATE), owners=6, replicates=2, responses=True, **OPTS)
    res.save(tmp_path / "py", plots=False)
    names = ["by_distance.csv", "jumps.csv", "owners.csv", "paths.csv", "ego.csv", "responses.csv", "summary.json"]
    _same_files(tmp_path / "cli", tmp_path / "py", names)
    assert sorted(res.files) == sorted(names)
    # Two replicates of 6 owners' paths: owners.csv has 12 rows.
    assert len(res.owners["owner"]) == 12 and res.summary["replicates"] == 2
    for name in names[:-1]:
        assert res.csv(name) == (tmp_path / "cli" / name).read_text(), name


def test_collude_equals_the_cli(tmp_path):
    _run("collude", "--graph", str(KARATE), *COMMON, "--owners", "3", "--trials", "40",
         "--coalition", "nearest:m=3", "--coalition", "far:min-d=2", "--estimators", "best,mean",
         "--no-plots", "-q", "--out", str(tmp_path / "cli"))
    res = pdf.collude(pdf.Graph.load(str(KARATE)), owners=3, trials=40, coalitions=["nearest:m=3", "far:min-d=2"],
                      estimators=["best", "mean"], **OPTS)
    res.save(tmp_path / "py", plots=False)
    _same_files(tmp_path / "cli", tmp_path / "py", ["coalition.csv", "audit.csv", "summary.json"])


def test_utility_equals_the_cli(tmp_path):
    _run("utility", "--graph", str(KARATE), *COMMON, "--values", "bits:0.3", "--post", "bit",
         "--replicates", "3", "--access-radius", "2", "--recipients", "--no-plots", "-q", "--out", str(tmp_path / "cli"))
    res = pdf.utility(str(KARATE), values="bits:0.3", post="bit", replicates=3, access_radius=2, recipients=True, **OPTS)
    res.save(tmp_path / "py", plots=False)
    _same_files(tmp_path / "cli", tmp_path / "py", ["utility.csv", "recipients.csv", "summary.json"])
    assert res.summary["config"]["replicates"] == 3 and res.summary["config"]["sim"]["post"] == "bit"
    # The nested form summary.json records is the same option.
    again = pdf.utility(str(KARATE), {"sim": {**OPTS, "values": "bits:0.3", "post": "bit"}, "replicates": 3, "access_radius": 2})
    assert again.csv("utility.csv") == res.csv("utility.csv")


def test_relay_equals_the_cli(tmp_path):
    _run("relay", "--graph", str(KARATE), *COMMON, "--untrimmed", "0,0.05,0.2", "--no-plots", "-q",
         "--out", str(tmp_path / "cli"))
    res = pdf.relay(str(KARATE), untrimmed=[0, 0.05, 0.2], **OPTS)
    res.save(tmp_path / "py", plots=False)
    names = ["relay.csv", "relay_by_distance.csv", "summary.json"]
    _same_files(tmp_path / "cli", tmp_path / "py", names)
    assert sorted(res.files) == sorted(names)
    for name in names[:-1]:
        assert res.csv(name) == (tmp_path / "cli" / name).read_text(), name
    # The tables are the files' columns: 34 owners x 3 fractions, every
    # answer simulate's, messages 2|E| = 156 per owner.
    rows = res.relay
    assert len(rows["owner"]) == 34 * 3
    assert list(rows["identical"]) == list(rows["recipients"])
    assert set(rows["messages"]) == {156}
    by = res.relay_by_distance
    assert set(by["untrimmed"]) == {0, 0.05, 0.2}
    assert res.summary["config"]["untrimmed"] == [0, 0.05, 0.2]
    # The nested form summary.json records is the same option.
    again = pdf.relay(str(KARATE), res.summary["config"])
    assert again.csv("relay.csv") == res.csv("relay.csv")
    with pytest.raises(ValueError, match="not path metrics"):
        pdf.relay(str(KARATE), distance="resistance")
    with pytest.raises(TypeError, match="untrimmed"):
        pdf.relay(str(KARATE), untrimed=[0.1])


def test_sweep_equals_the_cli(tmp_path):
    toml = tmp_path / "s.toml"
    toml.write_text(
        f'[base]\ngraph = "{KARATE}"\nowners = 4\nnorm = "l1"\neps = "exp:a=3,b=1"\n'
        '[grid]\ndim = [1, 2]\nseed = [1, 2]\n'
    )
    _run("sweep", "--config", str(toml), "--out", str(tmp_path / "cli.csv"), "-q")
    res = pdf.sweep(base=dict(graph=str(KARATE), owners=4, norm="l1", eps=pdf.EpsilonMap.exp(3, 1)),
                    grid=dict(dim=[1, 2], seed=[1, 2]))
    assert res.points == 4
    res.save(tmp_path / "py.csv")
    for a, b in (("cli.csv", "py.csv"), ("cli.summary.csv", "py.summary.csv")):
        assert (tmp_path / b).read_bytes() == (tmp_path / a).read_bytes(), a
    assert res.csv("sweep.csv") == (tmp_path / "cli.csv").read_text()
    assert set(res.table["dim"]) == {1, 2}
    with pytest.raises(FileExistsError):
        res.save(tmp_path / "py.csv")


# ------------------------------------------------------------ every option
def _option_values(tmp_path) -> dict:
    nodes = tmp_path / "nodes.txt"
    nodes.write_text("1000\n")
    sub = tmp_path / "sub.txt"
    sub.write_text("\n".join(str(i) for i in range(20)) + "\n")
    return {
        "graph": (str(KARATE), str(KARATE)),
        "nodes": (str(nodes), str(nodes)),
        "view": (f"subgraph:{sub}", f"subgraph:{sub}"),
        "directed": (True, True),
        "header": ("no", "no"),
        "distance": ("resistance", "resistance"),
        "distance_options": ({"approx_k": 50}, {"resistance_cap": 20000, "approx_k": 50, "approx_tol": 1e-4, "seed": 0}),
        "bins": (5, 5),
        "eps": (pdf.EpsilonMap.exp(2, 1), "exp:a=2,b=1"),
        "eps_min": (0.05, 0.05),
        "eps_max": (5.0, 5.0),
        "unreachable": ("floor", "floor"),
        "dim": (1, 1),
        "norm": ("l1", "l1"),
        "mechanism": ("correlated", "correlated"),
        "delta": (1e-4, 1e-4),
        "values": ("const:0.5", "const:0.5"),
        "sensitivity": (2.0, 2.0),
        "post": ("round", "round"),
        "owners": ([0, 33], "0,33"),
        "seed": (7, 7),
        "responses": (True, True),
        "path_owners": (1, 1),
        "replicates": (2, 2),
        "first_replicate": (1, 1),
        "ego_owners": ([33], ["33"]),
        "noise": ("discrete", "discrete"),
        "granularity": ("2^-6", "2^-6"),
        "levels_per_doubling": (16, 16),
        "rng": ("os", "os"),
    }


def test_every_simulate_option_is_reachable_by_its_summary_name(tmp_path):
    values = _option_values(tmp_path)
    keys = pdf.option_names("simulate")
    assert sorted(keys) == sorted(values), "a new option: add a value to _option_values"
    discrete = {"noise": "discrete", "norm": "l1"}
    needs = {"unreachable": {"eps_min": 0.05}, "ego_owners": {"owners": [0, 33]}, "nodes": {"graph": str(KARATE)},
             "noise": {"norm": "l1"}, "granularity": discrete, "levels_per_doubling": discrete, "rng": discrete,
             # Used only there (refused elsewhere, no longer ignored).
             "bins": {"distance": "resistance"}, "delta": {"mechanism": "gaussian"},
             "distance_options": {"distance": "resistance-approx"}}
    for key in keys:
        given, echoed = values[key]
        extra = needs.get(key, {})
        opts = {"owners": 2, "dim": 1, **extra, key: given}
        if key in ("directed", "header"):
            res = pdf.simulate(str(KARATE), **opts)
        else:
            res = pdf.simulate(pdf.Graph.load(str(KARATE)) if key not in ("graph", "nodes") else None, **opts)
        config = res.summary["config"]
        got = config[key]
        assert got == echoed, (key, got, echoed)
    # A dict is the same door: summary["config"] repeats the run.
    res = pdf.simulate(str(KARATE), owners=3, **OPTS)
    again = pdf.simulate(None, res.summary["config"])
    assert again.csv("by_distance.csv") == res.csv("by_distance.csv")


def test_collude_and_utility_options_are_reachable(tmp_path):
    keys = pdf.option_names("collude")
    assert set(keys) >= set(pdf.option_names("simulate")) | {"coalitions", "estimators", "trials", "composition_delta"}
    g = pdf.Graph.load(str(KARATE))
    r = pdf.collude(g, owners=2, trials=5, coalitions="sybil:m=3,d=2", estimators="best,median",
                    composition_delta=1e-3, replicates=1, **OPTS)
    c = r.summary["config"]
    assert (c["coalitions"], c["estimators"], c["trials"], c["composition_delta"]) == (["sybil:m=3,d=2"], "best,median", 5, 1e-3)
    ukeys = pdf.option_names("utility")
    assert set(ukeys) == set(pdf.option_names("simulate")) | {"access_radius", "replicates"}
    values = _option_values(tmp_path)
    for key in pdf.option_names("simulate"):
        given, echoed = values[key]
        try:
            extra = {"eps_min": 0.05} if key == "unreachable" else {"graph": str(KARATE)} if key == "nodes" else {}
            graph = None if key in ("graph", "nodes") else str(KARATE) if key == "directed" else g
            res = pdf.utility(graph, **{"owners": 2, "dim": 1, **extra, key: given})
        except ValueError as e:  # refused by the utility itself, naming the option
            assert key in str(e), (key, str(e))
            continue
        config = res.summary["config"]
        # `replicates` is the utility's own option (flat); the simulation's is under `sim`.
        assert (config if key == "replicates" else config["sim"])[key] == echoed, key


def test_unknown_and_bad_options_name_the_key():
    g = pdf.Graph.load(str(KARATE))
    with pytest.raises(TypeError, match=r"unknown field `bogus`.*`eps`.*`replicates`"):
        pdf.simulate(g, bogus=1)
    with pytest.raises(TypeError, match=r"unknown field `bogus`.*`coalitions`"):
        pdf.collude(g, bogus=1)
    with pytest.raises(TypeError, match=r"unknown field `bogus`.*`access_radius`"):
        pdf.utility(g, bogus=1)
    with pytest.raises(TypeError, match=r"unknown field `approx`"):
        pdf.simulate(g, distance_options={"approx": 3})
    with pytest.raises(ValueError, match="sweep key"):
        pdf.sweep(base={"bogus": 1})
    with pytest.raises(ValueError, match="owners"):
        pdf.simulate(g, owners=-3)
    with pytest.raises(ValueError, match="replicates"):
        pdf.simulate(g, replicates=0)
    with pytest.raises(TypeError, match="graph given twice"):
        pdf.simulate(str(KARATE), graph=str(KARATE))
    with pytest.raises(ValueError, match="directed"):
        pdf.simulate(g, directed=True)


# ------------------------------------------------------------ values in memory
def test_numpy_and_dict_values_equal_a_values_file_on_the_cli(tmp_path):
    g = pdf.Graph.load(str(KARATE))
    rng = np.random.default_rng(3)
    v = rng.normal(size=g.n_nodes)
    f = tmp_path / "values.csv"
    f.write_text("".join(f"{i},{x!r}\n" for i, x in zip(g.nodes.tolist(), v.tolist())))
    _run("simulate", "--graph", str(KARATE), *COMMON, "--owners", "5", "--values", f"file:{f}",
         "--no-plots", "-q", "--out", str(tmp_path / "cli"))
    a = pdf.simulate(g, values=v, owners=5, **OPTS)
    b = pdf.simulate(g, values=dict(zip(g.nodes.tolist(), v.tolist())), owners=5, **OPTS)
    for res in (a, b):
        for name in ("by_distance.csv", "jumps.csv", "owners.csv", "ego.csv"):
            assert res.csv(name) == (tmp_path / "cli" / name).read_text(), name
        assert res.summary["values"] == "given:34x1"
    # dim 2: an (N, 2) array; a wrong shape or a missing node is refused.
    two = pdf.simulate(g, values=np.c_[v, -v], dim=2, owners=2, seed=1)
    assert two.summary["config"]["dim"] == 2
    with pytest.raises(ValueError, match="values"):
        pdf.simulate(g, values=v[:-1], dim=1)
    with pytest.raises(ValueError, match="values"):
        pdf.simulate(g, values=v, dim=2)
    with pytest.raises(ValueError, match="without a value"):
        pdf.simulate(g, values={0: 1.0}, dim=1)
    with pytest.raises(ValueError, match="values"):
        pdf.simulate(g, values=np.full(g.n_nodes, np.nan), dim=1)
    # An ego view keeps its members' rows.
    e = pdf.simulate(g, values=v, view="ego:0", owners="0,", **OPTS)
    ego = pdf.simulate(g.ego(0), values=v[np.isin(g.nodes, g.ego(0).nodes)], owners="0,", **OPTS)
    assert e.csv("by_distance.csv") == ego.csv("by_distance.csv")
    # summary.json of in-memory values cannot be replayed silently.
    with pytest.raises(ValueError, match="given"):
        pdf.simulate(g, a.summary["config"])


# ------------------------------------------------------------ tables
def test_tables_are_dataframes_with_pandas_and_dicts_without(monkeypatch):
    res = pdf.simulate(str(KARATE), owners=3, **OPTS)
    pd = pytest.importorskip("pandas")
    assert isinstance(res.by_distance, pd.DataFrame)
    assert list(res.by_distance.columns) == res.csv("by_distance.csv").splitlines()[0].split(",")
    monkeypatch.setitem(sys.modules, "pandas", None)  # import pandas → ImportError
    fresh = pdf.simulate(str(KARATE), owners=3, **OPTS)
    bd = fresh.by_distance
    assert isinstance(bd, dict) and isinstance(bd["mse"], np.ndarray) and isinstance(bd["mechanism"], list)
    assert bd["count"].dtype == np.int64 and len(bd["mse"]) == len(res.by_distance)


def _results(tmp_path) -> list:
    """One result of every class with every table it can hold (responses,
    recipients, coalitions, a sweep with coalitions and a bool key), then
    evolve's timeline and a store's answers and timeline (with a privdiffuse
    binary to make the events) as (label, table, file text)."""
    g = str(KARATE)
    common = dict(OPTS, owners=3)
    results = [
        pdf.simulate(g, responses=True, **common),
        pdf.simulate(g, mechanism="independent", **common),
        pdf.collude(g, coalitions=["nearest:m=3"], trials=20, **common),
        pdf.utility(g, recipients=True, **dict(common, dim=2, norm="l2")),
        pdf.gossip(g, sigma=1.0, owners="0,33", coalitions=["nearest:m=3"], replicates=2),
        pdf.gossip(g, sigma=1.0, owners="0,", replicates=2),
        pdf.relay(g, untrimmed=[0, 0.2], responses=True, **common),
        pdf.sweep({"graph": g, "coalition": "random:m=2", "trials": 10, **OPTS},
                  {"owners": [2, 3], "responses": [True, False]}),
    ]
    tables = []
    for res in results:
        props = [(a, p) for a, p in vars(type(res)).items() if isinstance(p, pdf._TableProperty)]
        assert props, type(res)
        for attr, prop in props:
            if prop.file in res.files:
                tables.append((f"{type(res).__name__}.{attr}", getattr(res, attr), res.csv(prop.file)))
            else:
                assert getattr(res, attr) is None
        # Every table file the run holds has its property.
        held = {f for f in res.files if f.endswith(".csv") and not f.endswith("timings.csv")}
        assert held <= {p.file for _, p in props}, held
        # The sweep's timings have no property: their columns all the same.
        for f in (f for f in res.files if f.endswith("timings.csv")):
            tables.append((f"{type(res).__name__} {f}", pdf._frame(res._n._table(f)), res.csv(f)))
    from test_evolve import _cli, _split  # evolve needs events: the CLI makes them

    cli = _cli()
    if cli is None:
        return tables
    files = _split(cli, tmp_path)
    ev = pdf.evolve(dict(OPTS, dim=2, norm="l2", batch=4), store=tmp_path / "e.db", plots=False, **files)
    tables.append(("EvolveResult.timeline", ev.timeline, ev.csv()))
    with pdf.Store(tmp_path / "e.db") as st:
        tables.append(("Store.answers", st.answers(), st.answers_csv()))
        tables.append(("Store.answers(owner)", st.answers(owner=0), st.answers_csv(owner=0)))
        tables.append(("Store.timeline", st.timeline, st.timeline_csv()))
    return tables


def test_every_table_is_pandas_read_csv_of_its_file(tmp_path):
    """Every table property of every result class (and evolve's, the
    store's) has the columns, dtypes and values, to the last bit, that
    pandas.read_csv gives its file's bytes."""
    pd = pytest.importorskip("pandas")
    for label, got, text in _results(tmp_path):
        want = pd.read_csv(io.BytesIO(text.encode("utf-8")))
        assert list(got.columns) == list(want.columns), label
        assert len(got) == len(want), label
        for c in want.columns:
            g, w = got[c], want[c]
            assert g.dtype == w.dtype, (label, c, g.dtype, w.dtype)
            if w.dtype.kind == "f":
                # Same bits where a number, NaN where NaN: not merely close.
                a, b = g.to_numpy(), w.to_numpy()
                assert (np.isnan(a) == np.isnan(b)).all(), (label, c)
                assert (a[~np.isnan(a)].view(np.int64) == b[~np.isnan(b)].view(np.int64)).all(), (label, c)
            else:
                assert g.isna().tolist() == w.isna().tolist(), (label, c)
                assert g[~g.isna()].tolist() == w[~w.isna()].tolist(), (label, c)


def test_a_file_without_rows_is_not_a_table():
    res = pdf.utility(str(KARATE), owners=3, **OPTS)
    with pytest.raises(ValueError, match=r"summary\.json.*a table"):
        res._n._table("summary.json")
    assert len(res._n._table("utility.csv")["scheme"]) > 0


def test_csv_accepts_file_names_or_names_the_valid_ones():
    res = pdf.simulate(str(KARATE), owners=3, **OPTS)
    assert res.csv("by_distance.csv").startswith("mechanism,")
    with pytest.raises(ValueError, match=r"by_distance.*one of .*by_distance\.csv"):
        res.csv("by_distance")
    with pytest.raises(ValueError, match="responses.csv|one of"):
        res.csv("responses.csv")  # not kept


# ------------------------------------------------------------ ids
def test_from_edges_refuses_non_integral_floats_and_two_spellings_of_a_number():
    with pytest.raises(ValueError, match=r"2\.5"):
        pdf.Graph.from_edges(np.array([1.0, 2.5]), np.array([2.0, 1.0]))
    g = pdf.Graph.from_edges(np.array([1.0, 2.0]), np.array([2.0, 3.0]))
    assert g.ids.tolist() == [1, 2, 3]
    with pytest.raises(ValueError, match=r"'1\.0'.*'1'|'1'.*'1\.0'"):
        pdf.Graph.from_edges(["1.0", "a"], ["1", "b"])
    with pytest.raises(ValueError, match=r"'01'.*'1'|'1'.*'01'"):
        pdf.Graph.from_edges(["01", "2"], ["1", "2"])


def test_from_networkx_refuses_colliding_id_texts():
    nx = pytest.importorskip("networkx")
    with pytest.raises(ValueError, match=r"1 and '1'|'1' and 1"):
        pdf.Graph.from_networkx(nx.Graph([(1, "a"), ("1", "b")]))
    ok = pdf.Graph.from_networkx(nx.Graph([(1, "a"), (2, "b")]))
    assert ok.n_nodes == 4


def test_from_scipy_refuses_duplicate_ids():
    sp = pytest.importorskip("scipy.sparse")
    m = sp.coo_matrix((np.ones(2), ([0, 1], [1, 2])), shape=(3, 3))
    with pytest.raises(ValueError, match=r"5 and 5"):
        pdf.Graph.from_scipy(m, ids=[5, 5, 7])
    with pytest.raises(ValueError, match=r"5 and '5'|'5' and 5"):
        pdf.Graph.from_scipy(m, ids=[5, "5", 7])
    assert pdf.Graph.from_scipy(m, ids=[5, 6, 7]).ids.tolist() == [5, 6, 7]


def test_value_models_as_strings(tmp_path):
    # Issue 27: the value models' specs reach the library through the door
    # as strings, and give the command line's numbers.
    spec = "infection:seeds=3,frac=0.3"
    _run("utility", "--graph", str(KARATE), *COMMON, "--values", spec, "--post", "bit",
         "--replicates", "2", "--no-plots", "-q", "--out", str(tmp_path / "cli"))
    res = pdf.utility(str(KARATE), values=spec, post="bit", replicates=2, **OPTS)
    res.save(tmp_path / "py", plots=False)
    _same_files(tmp_path / "cli", tmp_path / "py", ["utility.csv", "summary.json"])
    assert res.summary["config"]["sim"]["values"] == spec
    schemes = {line.split(",")[0] for line in res.csv("utility.csv").splitlines()[1:]}
    assert {"correlated-shrinkage", "independent-shrinkage", "access"} <= schemes
    for s in ("sir:seeds=2,beta=0.3,gamma=0.5", "smooth:sd=1,steps=2"):
        pdf.simulate(str(KARATE), values=s, owners=3, **OPTS)
    with pytest.raises(ValueError, match="dim"):
        pdf.simulate(str(KARATE), values=spec, dim=2, owners=2, seed=1)


@pytest.mark.parametrize("run", [pdf.relay, pdf.utility])
def test_a_bad_simulation_option_is_named_by_its_key_not_by_sim(run):
    # relay and utility nest the simulation's options under `sim`: the
    # message named `sim` instead of the key the caller wrote.
    with pytest.raises(ValueError) as e:
        run(str(KARATE), dim="x")
    assert str(e.value).startswith("dim: "), str(e.value)
