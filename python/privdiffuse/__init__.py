"""privdiffuse: coalition-free diffusion of private data over social networks.

A Rust core (lazy Laplace noise paths, graph distances, collusion audits)
with numpy in and numpy out. Results are pandas DataFrames when pandas is
installed, else dicts of numpy arrays, with the columns of the CSV files the
``privdiffuse`` command line writes.

Quick start::

    import privdiffuse as pd_
    g = pd_.Graph.load("data/karate.edges")
    eps = pd_.EpsilonMap.exp(3, 1)                  # eps(d) = e^(3 - d)
    res = pd_.simulate(g, eps=eps, dim=1, norm="l1", owners=10, seed=5)
    res.by_distance                                 # accuracy per mechanism and hop
    pd_.plot(res, kind="error", out="error.png")

Heavy calls release the GIL and stop on Ctrl-C (KeyboardInterrupt).
Errors are ValueError / FileNotFoundError / TypeError with the library's
message.
"""

from __future__ import annotations

import json
import os
import tempfile
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from . import _privdiffuse as _n
from ._privdiffuse import EpsilonMap, GradualRelease, NoisePath

__all__ = [
    "Graph",
    "EpsilonMap",
    "NoisePath",
    "GradualRelease",
    "SimulationResult",
    "CollusionResult",
    "sample_path",
    "sample_paths",
    "simulate",
    "collude",
    "plot",
    "__version__",
]

__version__: str = _n.__version__

#: Defaults of the resistance routes (the command line's).
_RESISTANCE_CAP = 20_000
_APPROX_K = 0  # 0: the library's default sketch size
_APPROX_TOL = 0.0  # 0: the library's default tolerance


def _frame(cols: Mapping[str, Any] | None):
    """A pandas DataFrame of the columns when pandas is importable, else the dict."""
    if cols is None:
        return None
    try:
        import pandas
    except ImportError:
        return dict(cols)
    return pandas.DataFrame(dict(cols))


_ID_DIGITS = frozenset("0123456789")


def _as_ids(x) -> tuple[str, Any]:
    """('int', int64 array) or ('str', list of str) under the loader's id rule:
    integers (or strings of ASCII digits only) are numbers, anything else text."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        if x.dtype.kind == "u" and x.size and int(x.max()) > np.iinfo(np.int64).max:
            raise OverflowError("node ids above 2^63 - 1 are not supported from numpy arrays")
        return "int", np.ascontiguousarray(x, dtype=np.int64).reshape(-1)
    seq = list(x)
    if all(isinstance(i, (int, np.integer)) and not isinstance(i, bool) for i in seq):
        try:
            return "int", np.asarray(seq, dtype=np.int64).reshape(-1)
        except OverflowError:
            raise OverflowError("node ids must fit in a signed 64-bit integer") from None
    if all(isinstance(i, (float, np.floating)) and float(i).is_integer() for i in seq) and seq:
        return "int", np.asarray(seq, dtype=np.int64)
    toks = [str(i) for i in seq]
    if toks and all(t and set(t) <= _ID_DIGITS and len(t) < 19 for t in toks):
        return "int", np.asarray([int(t) for t in toks], dtype=np.int64)
    return "str", toks


class Graph:
    """A static graph (compressed sparse rows) with its original node ids.

    Build one with :meth:`load`, :meth:`from_edges`, :meth:`from_networkx` or
    :meth:`from_scipy`. Node ids are integers (ascending index order) or strings
    (order of first appearance), as the command line's loader numbers them.
    """

    __slots__ = ("_g",)

    def __init__(self, native: "_n.Graph"):
        """Wraps a native graph; use the constructors above instead."""
        if not isinstance(native, _n.Graph):
            raise TypeError("use Graph.load, Graph.from_edges, Graph.from_networkx or Graph.from_scipy")
        self._g = native

    # ------------------------------------------------------------ builders
    @classmethod
    def load(cls, path: str | os.PathLike, directed: bool = False, nodes: str | os.PathLike | None = None) -> "Graph":
        """Reads an edge list with the command line's loader (``--graph``).

        Whitespace- or comma-separated ``u v [weight]`` lines, ``#``/``%``
        comments, ``.gz``, any ids. ``nodes`` names a file of extra node ids
        (isolated nodes). Raises FileNotFoundError, or ValueError naming the
        file and line.
        """
        return cls(_n.Graph.load(os.fspath(path), directed, None if nodes is None else os.fspath(nodes)))

    @classmethod
    def from_edges(cls, u, v, weights=None, directed: bool = False, nodes=None) -> "Graph":
        """A graph from two sequences of endpoint ids (numpy arrays or lists).

        ``weights`` (one finite length > 0 per edge) makes it weighted;
        ``nodes`` adds ids that may have no edge. Integer ids (or ids made only
        of ASCII digits) are numbers, numbered in ascending order; other ids are
        strings numbered in order of first appearance. Self-loops and repeated
        edges are dropped, as the loader does.
        """
        ku, au = _as_ids(u)
        kv, av = _as_ids(v)
        kn, an = _as_ids(nodes) if nodes is not None else (ku, None)
        w = None if weights is None else np.ascontiguousarray(weights, dtype=np.float64).reshape(-1)
        if ku == kv == kn == "int":
            return cls(_n.Graph._from_int_edges(au, av, w, bool(directed), an))
        su = [str(x) for x in (au.tolist() if ku == "int" else au)]
        sv = [str(x) for x in (av.tolist() if kv == "int" else av)]
        sn = None if an is None else [str(x) for x in (an.tolist() if kn == "int" else an)]
        return cls(_n.Graph._from_str_edges(su, sv, w, bool(directed), sn))

    @classmethod
    def from_networkx(cls, G, weight: str | None = None) -> "Graph":
        """A graph from a networkx (Di)Graph: every node (isolated ones too),
        every edge, edge attribute ``weight`` as the length when given (missing
        attributes count 1). Integer node labels stay integers; other labels
        become their ``str``."""
        import itertools

        directed = bool(G.is_directed())
        m = G.number_of_edges()
        nodes = list(G.nodes)
        ints = all(isinstance(x, (int, np.integer)) and not isinstance(x, bool) and x >= 0 for x in nodes)
        if ints:
            try:
                flat = np.fromiter(itertools.chain.from_iterable(G.edges()), dtype=np.int64, count=2 * m)
                u, v = flat[0::2], flat[1::2]
                nodes_arr = np.fromiter(nodes, dtype=np.int64, count=len(nodes))
            except OverflowError:
                ints = False
        if not ints:
            label = str
            u = [label(a) for a, _ in G.edges()]
            v = [label(b) for _, b in G.edges()]
            nodes_arr = [label(x) for x in nodes]
        w = None
        if weight is not None:
            w = np.fromiter((d for _, _, d in G.edges(data=weight, default=1.0)), dtype=np.float64, count=m)
        if ints:
            return cls(_n.Graph._from_int_edges(np.ascontiguousarray(u), np.ascontiguousarray(v), w, directed, nodes_arr))
        return cls(_n.Graph._from_str_edges(u, v, w, directed, nodes_arr))

    @classmethod
    def from_scipy(cls, matrix, directed: bool = False, weighted: bool | None = None, ids=None) -> "Graph":
        """A graph from a square (sparse) adjacency matrix: node i has id
        ``ids[i]`` (default i); every nonzero (i, j), i ≠ j, is an edge (both
        (i, j) and (j, i) name one edge when undirected). ``weighted`` (default:
        any stored value ≠ 1) takes the values as lengths."""
        import scipy.sparse as sp

        coo = sp.coo_matrix(matrix)
        n, m = coo.shape
        if n != m:
            raise ValueError(f"invalid matrix '{n}x{m}': expected a square adjacency matrix")
        row = coo.row.astype(np.int64)
        col = coo.col.astype(np.int64)
        data = np.asarray(coo.data, dtype=np.float64)
        keep = data != 0
        row, col, data = row[keep], col[keep], data[keep]
        if not directed:
            upper = row <= col
            row, col = np.where(upper, row, col), np.where(upper, col, row)
        if weighted is None:
            weighted = bool(np.any(data != 1.0))
        w = data if weighted else None
        if ids is None:
            return cls(_n.Graph._from_int_edges(row, col, w, bool(directed), np.arange(n, dtype=np.int64)))
        ids = list(ids)
        if len(ids) != n:
            raise ValueError(f"invalid ids '{len(ids)} ids': expected one id per row ({n})")
        kind, arr = _as_ids(ids)
        if kind == "int":
            return cls(_n.Graph._from_int_edges(arr[row], arr[col], w, bool(directed), arr))
        return cls(_n.Graph._from_str_edges([arr[i] for i in row], [arr[i] for i in col], w, bool(directed), arr))

    # ---------------------------------------------------------- properties
    @property
    def n_nodes(self) -> int:
        """Number of nodes."""
        return self._g.n_nodes

    @property
    def n_edges(self) -> int:
        """Number of edges (an undirected edge counted once)."""
        return self._g.n_edges

    @property
    def directed(self) -> bool:
        """Whether arcs are one-way."""
        return self._g.directed

    @property
    def weighted(self) -> bool:
        """Whether edges carry lengths."""
        return self._g.weighted

    @property
    def ids(self):
        """Original node ids in index order: a uint64 numpy array (integer ids) or a list of str."""
        return self._g.ids

    def edges(self):
        """``(u, v, length)``: each edge once as original ids (numpy arrays or
        lists) and its length (1.0 unweighted)."""
        iu, iv, w = self._g.edges()
        ids = self.ids
        if isinstance(ids, np.ndarray):
            return ids[iu], ids[iv], w
        return [ids[i] for i in iu], [ids[i] for i in iv], w

    def index_of(self, ids: Iterable) -> np.ndarray:
        """Node indices (uint32) of original ids; ValueError for an unknown id."""
        return self._g.index_of(list(ids))

    def ego(self, node, radius: int = 1) -> "Graph":
        """The subgraph induced by every node within ``radius`` hops of
        ``node`` (itself included), original ids and lengths kept."""
        return Graph(self._g.ego(node, radius))

    def subgraph(self, nodes: Iterable) -> "Graph":
        """The subgraph induced by these node ids, original ids and lengths kept."""
        return Graph(self._g.subgraph(list(nodes)))

    def save(self, path: str | os.PathLike, force: bool = False) -> None:
        """Writes the graph as an edge list (``u v`` or ``u v length`` per
        line, original ids) that :meth:`load` and ``--graph`` read back as
        the same graph; atomically. FileExistsError when ``path`` exists,
        unless ``force``."""
        self._g.save(os.fspath(path), force)

    def to_networkx(self):
        """This graph as a networkx Graph/DiGraph (edge attribute ``weight`` when weighted)."""
        import networkx as nx

        G = nx.DiGraph() if self.directed else nx.Graph()
        ids = self.ids
        G.add_nodes_from(ids.tolist() if isinstance(ids, np.ndarray) else ids)
        u, v, w = self.edges()
        u = u.tolist() if isinstance(u, np.ndarray) else u
        v = v.tolist() if isinstance(v, np.ndarray) else v
        if self.weighted:
            G.add_weighted_edges_from(zip(u, v, w.tolist()))
        else:
            G.add_edges_from(zip(u, v))
        return G

    # ----------------------------------------------------------- distances
    def distances(
        self,
        owners: Iterable | None = None,
        kind: str = "hop",
        *,
        resistance_cap: int = _RESISTANCE_CAP,
        approx_k: int | None = None,
        approx_tol: float | None = None,
        seed: int = 0,
        threads: int | None = None,
    ) -> np.ndarray:
        """Distances from each owner (original ids; default every node, in
        index order) to every node: float64 array of shape
        (len(owners), n_nodes), ``inf`` where unreachable; column j is node
        ``ids[j]``.

        ``kind`` is ``hop``, ``weighted`` (shortest path by length),
        ``resistance`` (exact effective resistance; components up to
        ``resistance_cap`` nodes) or ``resistance-approx`` (a sketch of
        ``approx_k`` projections solved to ``approx_tol``, seeded by ``seed``).
        """
        if owners is None:
            idx = np.arange(self.n_nodes, dtype=np.uint32)
        else:
            idx = self._g.index_of(list(owners))
        k, tol = _approx_defaults(approx_k, approx_tol)
        return self._g._distances(idx, kind, resistance_cap, k, tol, seed, threads)

    def __repr__(self) -> str:
        return repr(self._g)

    def __len__(self) -> int:
        return self.n_nodes


def _approx_defaults(k, tol):
    d = _DEFAULT_OPTS
    return (d[0] if k is None else k), (d[1] if tol is None else tol)


def _probe_defaults():
    # The library's defaults of the sketch, read from a tiny graph's options.
    return _n._distance_defaults()


_DEFAULT_OPTS = _probe_defaults()


# ------------------------------------------------------------------ noise
def sample_path(dim: int = 1, norm: str = "l1", eps_lo: float = 0.1, eps_hi: float = 10.0, seed: int = 0) -> NoisePath:
    """One lazy Laplace noise path on [eps_lo, eps_hi]: for every ε in the
    range, ``path.at(eps)`` is optimal Laplace noise at level ε (ℓ1: i.i.d.
    Laplace(1/ε) coordinates; ℓ2: density ∝ e^(−ε‖v‖)), and the path changes
    value only at ``path.levels``. Drawn from the generator of owner 0 for
    ``seed`` (the path a simulation with this seed gives its first owner)."""
    return _n._sample_paths(1, dim, norm, eps_lo, eps_hi, seed, 0, None)[0]


def sample_paths(
    k: int,
    dim: int = 1,
    norm: str = "l1",
    eps_lo: float = 0.1,
    eps_hi: float = 10.0,
    seed: int = 0,
    threads: int | None = None,
) -> list[NoisePath]:
    """``k`` independent paths as :func:`sample_path` (path i from the
    generator of owner i), sampled in parallel."""
    return _n._sample_paths(k, dim, norm, eps_lo, eps_hi, seed, 0, threads)


# ------------------------------------------------------------- simulation
_SIM_DEFAULTS = dict(
    eps="range:0.5..15",
    eps_min=None,
    eps_max=None,
    distance="hop",
    resistance_cap=_RESISTANCE_CAP,
    approx_k=None,
    approx_tol=None,
    distance_seed=0,
    bins=20,
    dim=2,
    norm="l2",
    mechanism="both",
    delta=1e-5,
    values=None,
    sensitivity=1.0,
    post="none",
    owners=None,
    unreachable="skip",
    seed=1,
)


def _sim_options(graph, options: dict[str, Any], extra: Iterable[str] = ()) -> dict[str, Any]:
    if not isinstance(graph, Graph):
        raise TypeError(f"graph: expected a privdiffuse.Graph, found {type(graph).__name__}")
    unknown = set(options) - set(_SIM_DEFAULTS) - set(extra)
    if unknown:
        raise TypeError(f"unexpected keyword argument(s): {', '.join(sorted(unknown))}")
    o = dict(_SIM_DEFAULTS)
    o.update(options)
    if isinstance(o["values"], os.PathLike):
        o["values"] = "file:" + os.fspath(o["values"])
    o["approx_k"], o["approx_tol"] = _approx_defaults(o["approx_k"], o["approx_tol"])
    return o


class SimulationResult:
    """What :func:`simulate` returns. Tables are pandas DataFrames when pandas
    is installed, else dicts of numpy arrays, with the columns of the CSV files
    ``privdiffuse simulate`` writes."""

    def __init__(self, native: "_n.SimOutput"):
        """Wraps the native output (built by :func:`simulate`)."""
        self._n = native
        self._cache: dict[str, Any] = {}

    def _table(self, name: str):
        if name not in self._cache:
            self._cache[name] = _frame(self._n._table(name))
        return self._cache[name]

    @property
    def by_distance(self):
        """Accuracy per mechanism and distance bucket (``by_distance.csv``)."""
        return self._table("by_distance")

    @property
    def jumps(self):
        """Every jump of every correlated path (``jumps.csv``)."""
        return self._table("jumps")

    @property
    def owners(self):
        """One row per owner: the range of levels its path covers (``owners.csv``)."""
        return self._table("owners")

    @property
    def paths(self):
        """The first owners' paths, breakpoint by breakpoint (``paths.csv``)."""
        return self._table("paths")

    @property
    def ego(self):
        """The first owner's recipients and their errors (``ego.csv``)."""
        return self._table("ego")

    @property
    def responses(self):
        """Every answer (``responses.csv``) as a dict of numpy arrays, or None
        unless ``simulate(..., responses=True)``."""
        if "responses!" not in self._cache:
            self._cache["responses!"] = self._n._table("responses")
        return self._cache["responses!"]

    @property
    def summary(self) -> dict:
        """The content of ``summary.json``: configuration, map, graph, counts, totals."""
        if "summary" not in self._cache:
            self._cache["summary"] = json.loads(self._n._summary_json())
        return self._cache["summary"]

    @property
    def seconds(self) -> float:
        """Seconds the run took (distances, plan and simulation)."""
        return self._n.seconds

    def csv(self, name: str) -> str | None:
        """The CSV text of ``name`` (``by_distance``, ``jumps``, …) as the command line writes it."""
        return self._n._csv(name)

    def save(self, dir: str | os.PathLike, force: bool = False, plots: bool = True) -> None:
        """Writes the command line's files into the new directory ``dir``
        (``by_distance.csv``, ``jumps.csv``, ``owners.csv``, ``paths.csv``,
        ``ego.csv``, ``responses.csv`` when kept, ``summary.json``,
        ``timings.json`` and, with ``plots``, the figures) atomically.
        FileExistsError if ``dir`` exists, unless ``force``."""
        self._n._save(os.fspath(dir), force, plots)

    def __repr__(self) -> str:
        c = self.summary["counts"]
        return f"SimulationResult(owners={c['owners']}, responses={c['responses']})"


def simulate(
    graph: Graph,
    eps: "EpsilonMap | str" = "range:0.5..15",
    dim: int = 2,
    norm: str = "l2",
    mechanism: str = "both",
    values: str | os.PathLike | None = None,
    owners: "int | str | Sequence | None" = None,
    seed: int = 1,
    threads: int | None = None,
    responses: bool = False,
    path_owners: int = 4,
    **options: Any,
) -> SimulationResult:
    """Every owner shares its value with every reachable member through one
    lazy noise path (``correlated``) and/or fresh noise per member
    (``independent``); ``mechanism`` is ``correlated``, ``independent``,
    ``both``, ``gaussian`` or ``all``.

    ``eps``: an :class:`EpsilonMap` or spec string; ``values``: a spec
    (``auto``, ``bits:0.5``, ``uniform:0,1``, ``normal:0,1``,
    ``const:1``, ``coords``, ``file:PATH``); ``owners``: None (all), a count
    (a seeded sample), or a list of node ids. Further options, as the command
    line's: ``eps_min``, ``eps_max``, ``distance`` (``hop``, ``weighted``,
    ``resistance``, ``resistance-approx``), ``resistance_cap``, ``approx_k``,
    ``approx_tol``, ``distance_seed``, ``bins``, ``delta``, ``sensitivity``,
    ``post``, ``unreachable``. Same seed, same numbers as ``privdiffuse
    simulate``. Runs on ``threads`` threads (default: all cores)."""
    o = _sim_options(graph, dict(options, eps=eps, dim=dim, norm=norm, mechanism=mechanism, values=values, owners=owners, seed=seed))
    native = _n._simulate(
        graph._g, o["eps"], o["eps_min"], o["eps_max"], o["distance"], o["resistance_cap"], o["approx_k"],
        o["approx_tol"], o["distance_seed"], o["bins"], o["dim"], o["norm"], o["mechanism"], o["delta"],
        o["values"], o["sensitivity"], o["post"], o["owners"], o["unreachable"], o["seed"], bool(responses),
        path_owners, threads,
    )
    return SimulationResult(native)


class CollusionResult:
    """What :func:`collude` returns: ``coalition`` (``coalition.csv``) and
    ``audit`` (``audit.csv``) tables."""

    def __init__(self, native: "_n.CollusionOutput"):
        """Wraps the native output (built by :func:`collude`)."""
        self._n = native
        self._cache: dict[str, Any] = {}

    @property
    def coalition(self):
        """Estimator gains per owner, coalition, estimator and mechanism (``coalition.csv``)."""
        if "coalition" not in self._cache:
            self._cache["coalition"] = _frame(self._n._table("coalition"))
        return self._cache["coalition"]

    @property
    def audit(self):
        """Privacy loss and the distinguishing attack per owner and coalition (``audit.csv``)."""
        if "audit" not in self._cache:
            self._cache["audit"] = _frame(self._n._table("audit"))
        return self._cache["audit"]

    def csv(self, name: str) -> str:
        """The CSV text of ``coalition`` or ``audit``."""
        return self._n._csv(name)

    @property
    def summary(self) -> dict:
        """``summary.json`` of the command line: configuration, ε map, graph,
        gains and audits pooled over owners."""
        if "summary" not in self._cache:
            import json

            self._cache["summary"] = json.loads(self._n._summary_json())
        return self._cache["summary"]

    def save(self, dir: str | os.PathLike, force: bool = False) -> None:
        """Writes the command line's ``coalition.csv``, ``audit.csv`` and
        ``summary.json`` into the new directory ``dir``, all or nothing
        (FileExistsError when it exists, unless ``force``)."""
        self._n._save(os.fspath(dir), force)


def collude(
    graph: Graph,
    coalitions: Sequence[str] = (),
    estimators: Sequence[str] | None = None,
    trials: int = 1000,
    composition_delta: float = 1e-6,
    threads: int | None = None,
    **options: Any,
) -> CollusionResult:
    """Coalitions pool the answers they received from each owner:
    estimator gains, exact privacy loss and a distinguishing attack.

    ``coalitions``: specs as ``--coalition`` (``far:min-d=2``, ``band:d=2``,
    ``random:m=4``, ``nearest:m=3``, ``sybil:m=3,d=2``, ``file:PATH``;
    default the command line's);
    ``estimators``: names (default every one); other options as
    :func:`simulate` (default owners: the command line's sample)."""
    o = _sim_options(graph, options)
    native = _n._collude(
        graph._g, [str(c) for c in coalitions], None if estimators is None else [str(e) for e in estimators],
        trials, composition_delta, o["eps"], o["eps_min"], o["eps_max"], o["distance"], o["resistance_cap"],
        o["approx_k"], o["approx_tol"], o["distance_seed"], o["bins"], o["dim"], o["norm"], o["mechanism"],
        o["delta"], o["values"], o["sensitivity"], o["post"], o["owners"], o["unreachable"], o["seed"], threads,
    )
    return CollusionResult(native)


# ------------------------------------------------------------------ plots
def plot(
    result_or_dir: "SimulationResult | CollusionResult | str | os.PathLike",
    kind: str = "jumps",
    out: str | os.PathLike = "fig.png",
    width: int = 1200,
    height: int = 800,
    owner: str | int | None = None,
    edges: bool = False,
) -> str:
    """Draws the command line's figure ``kind`` (``jumps``, ``ego``,
    ``error``, ``coalition``, ``path``) of a result or a run directory
    (or file) into ``out`` (``.png`` or ``.svg``); returns ``out``.

    ``edges`` (``ego``): draws the friendships among the members faintly,
    as ``plot --edges``; for a run directory they come from the graph its
    ``summary.json`` names, for a result from the graph it ran on (in-memory
    graphs included)."""
    out = os.fspath(out)
    own = None if owner is None else str(owner)
    if isinstance(result_or_dir, (SimulationResult, CollusionResult)):
        with tempfile.TemporaryDirectory(prefix="privdiffuse-plot-") as tmp:
            run = os.path.join(tmp, "run")
            if isinstance(result_or_dir, SimulationResult):
                result_or_dir.save(run, plots=False)
                if edges:
                    _point_summary_at_saved_graph(result_or_dir, run, os.path.join(tmp, "graph.edges"))
            else:
                result_or_dir.save(run)
            _n._plot(run, kind, out, width, height, own, bool(edges))
    else:
        _n._plot(os.fspath(result_or_dir), kind, out, width, height, own, bool(edges))
    return out


def _point_summary_at_saved_graph(result: "SimulationResult", run: str, path: str) -> None:
    # The figure reads the run's graph from summary.json's config; a result
    # may come from an in-memory graph (config.graph is empty) or a view, so
    # write the graph it ran on and name that file instead.
    import json

    result._n._graph.save(path, True)
    file = os.path.join(run, "summary.json")
    with open(file, encoding="utf-8") as f:
        summary = json.load(f)
    config = summary.get("config", {})
    config.update(graph=path, nodes=None)
    config.pop("view", None)
    with open(file, "w", encoding="utf-8") as f:
        json.dump(summary, f)
