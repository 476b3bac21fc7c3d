"""privdiffuse: coalition-free diffusion of private data over social networks.

A Rust core (lazy Laplace noise paths, graph distances, collusion audits)
with numpy in and numpy out. Tables are pandas DataFrames when pandas is
importable (``pip install "./python[pandas]"``), else dicts of numpy arrays
(lists of str for text columns), with the columns of the CSV files the
``privdiffuse`` command line writes.

Quick start::

    import privdiffuse as pdf
    g = pdf.Graph.load("data/karate.edges")
    res = pdf.simulate(g, eps=pdf.EpsilonMap.exp(3, 1), dim=1, norm="l1", owners=10, seed=5)
    res.by_distance                                 # accuracy per mechanism and hop
    res.save("/tmp/karate-run")                     # the command line's files

The runs (:func:`simulate`, :func:`collude`, :func:`utility`) take every
option of their configuration under its ``summary.json`` name, as keyword
arguments or as a dict (``simulate(g, res.summary["config"])`` repeats a
run); :func:`sweep` takes the ``[base]`` and ``[grid]`` keys of a sweep file.
:func:`option_names` lists them. Heavy calls release the GIL and stop on
Ctrl-C (KeyboardInterrupt). Errors are ValueError / FileNotFoundError /
TypeError (an unknown option) with the library's message.
"""

from __future__ import annotations

import json
import os
import re
import tempfile
from typing import Any, Iterable, Mapping, Sequence

import numpy as np

from . import _privdiffuse as _n
from ._privdiffuse import EpsilonMap, GradualRelease, NoisePath
from ._evolve import EvolveResult, Store, evolve

__all__ = [
    "Graph",
    "EpsilonMap",
    "NoisePath",
    "GradualRelease",
    "SimulationResult",
    "CollusionResult",
    "UtilityResult",
    "GossipResult",
    "RelayResult",
    "SweepResult",
    "sample_path",
    "sample_paths",
    "simulate",
    "collude",
    "utility",
    "gossip",
    "relay",
    "sweep",
    "option_names",
    "Store",
    "EvolveResult",
    "evolve",
    "plot",
    "__version__",
]

__version__: str = _n.__version__

#: Default largest component of the exact resistance route (the command line's).
_RESISTANCE_CAP = 20_000


def _frame(cols: Mapping[str, Any] | None):
    """A pandas DataFrame of the columns when pandas is importable, else the dict."""
    if cols is None:
        return None
    try:
        import pandas
    except ImportError:
        return dict(cols)
    return pandas.DataFrame(dict(cols))


# ------------------------------------------------------------------ ids
_NUMBER = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")


def _id_of(x):
    """A node id as an int (ints, integral floats) or a str (anything else,
    as ``str(x)``); a non-integral float is refused."""
    if isinstance(x, (bool, np.bool_)):
        return str(x)
    if isinstance(x, (int, np.integer)):
        return int(x)
    if isinstance(x, (float, np.floating)):
        f = float(x)
        if not f.is_integer():
            raise ValueError(f"invalid node id {x!r}: expected an integer (a float names a node only when integral)")
        return int(f)
    return str(x)


def _check_texts(originals: Iterable) -> None:
    """Refuses distinct ids whose text collides (``1`` and ``'1'``) or whose
    texts name one number (``'1.0'`` and ``'1'``, ``'01'`` and ``1``),
    naming both."""
    by_text: dict[str, Any] = {}
    by_number: dict[float, Any] = {}
    for x in originals:
        t = str(_id_of(x))
        if t in by_text:
            other = by_text[t]
            if not (type(other) is type(x) and other == x):
                raise ValueError(f"invalid node ids {other!r} and {x!r}: expected distinct ids to have distinct texts (both read '{t}')")
            continue
        by_text[t] = x
        if _NUMBER.match(t):
            v = float(t)
            if v in by_number:
                raise ValueError(f"invalid node ids {by_number[v]!r} and {x!r}: expected one spelling per number (both name {t})")
            by_number[v] = x


def _as_ids(x) -> tuple[str, Any]:
    """('int', int64 array) or ('str', list of str) under the loader's id rule:
    integers (integral floats, strings of ASCII digits) are numbers, anything
    else text. Refuses non-integral floats and ids that would name one
    number twice."""
    if isinstance(x, np.ndarray) and x.dtype.kind in "iu":
        if x.dtype.kind == "u" and x.size and int(x.max()) > np.iinfo(np.int64).max:
            raise OverflowError("node ids above 2^63 - 1 are not supported from numpy arrays")
        return "int", np.ascontiguousarray(x, dtype=np.int64).reshape(-1)
    if isinstance(x, np.ndarray) and x.dtype.kind == "f":
        flat = x.reshape(-1)
        bad = flat[~(np.isfinite(flat) & (np.mod(flat, 1) == 0))]
        if bad.size:
            raise ValueError(f"invalid node ids {bad[:5].tolist()}: expected integers (a float names a node only when integral)")
        return "int", flat.astype(np.int64)
    seq = list(x)
    ids = [_id_of(i) for i in seq]
    if all(isinstance(i, int) for i in ids):
        try:
            return "int", np.asarray(ids, dtype=np.int64).reshape(-1)
        except OverflowError:
            raise OverflowError("node ids must fit in a signed 64-bit integer") from None
    _check_texts(dict.fromkeys(seq, None) if _hashable(seq) else seq)
    toks = [str(i) for i in ids]
    if toks and all(t and t.isascii() and t.isdigit() and len(t) < 19 for t in toks):
        return "int", np.asarray([int(t) for t in toks], dtype=np.int64)
    return "str", toks


def _hashable(seq) -> bool:
    try:
        dict.fromkeys(seq)
        return True
    except TypeError:
        return False


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
    def load(cls, path: str | os.PathLike, directed: bool = False, nodes: str | os.PathLike | None = None, header: str = "auto") -> "Graph":
        """Reads an edge list with the command line's loader (``--graph``).

        Whitespace- or comma-separated ``u v [weight]`` lines, ``#``/``%``
        comments, ``.gz``, any ids. ``nodes`` names a file of extra node ids
        (isolated nodes). ``header`` (``"auto"``, ``"yes"`` or ``"no"``, as
        ``--header``) says whether the first data line is a header; a line
        skipped as one is reported as a ``UserWarning``. Raises
        FileNotFoundError, or ValueError naming the file and line.
        """
        return cls(_n.Graph.load(os.fspath(path), directed, None if nodes is None else os.fspath(nodes), header))

    @classmethod
    def from_edges(cls, u, v, weights=None, directed: bool = False, nodes=None) -> "Graph":
        """A graph from two sequences of endpoint ids (numpy arrays or lists).

        ``weights`` (one finite length > 0 per edge) makes it weighted;
        ``nodes`` adds ids that may have no edge. Integer ids (or ids made only
        of ASCII digits) are numbers, numbered in ascending order; other ids are
        strings numbered in order of first appearance. Self-loops and repeated
        edges are dropped, as the loader does.
        """
        u_list = u if isinstance(u, np.ndarray) else list(u)
        v_list = v if isinstance(v, np.ndarray) else list(v)
        n_list = None if nodes is None else (nodes if isinstance(nodes, np.ndarray) else list(nodes))
        if not all(isinstance(a, np.ndarray) and a.dtype.kind in "iuf" for a in (u_list, v_list) + ((n_list,) if n_list is not None else ())):
            # One id space: a text in u must not name a number of v.
            everything = [*_plain(u_list), *_plain(v_list), *(_plain(n_list) if n_list is not None else [])]
            _as_ids(everything)
        ku, au = _as_ids(u_list)
        kv, av = _as_ids(v_list)
        kn, an = _as_ids(n_list) if n_list is not None else (ku, None)
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
        if not ints:
            _check_texts(nodes)
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
        ids = list(ids.tolist() if isinstance(ids, np.ndarray) else ids)
        if len(ids) != n:
            raise ValueError(f"invalid ids '{len(ids)} ids': expected one id per row ({n})")
        texts = [str(_id_of(i)) for i in ids]
        if len(set(texts)) != n:
            seen: dict[str, Any] = {}
            dupes = []
            for i, t in zip(ids, texts):
                if t in seen:
                    dupes.append((seen[t], i))
                seen[t] = i
            shown = ", ".join(f"{a!r} and {b!r}" for a, b in dupes[:5])
            raise ValueError(f"invalid ids: expected one distinct id per row, found duplicates {shown}")
        _check_texts(ids)
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

    @property
    def nodes(self):
        """The node ids in index order (as :attr:`ids`): the order of a
        ``values=`` array's rows."""
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
        k0, tol0 = _n._distance_defaults()
        k = k0 if approx_k is None else approx_k
        tol = tol0 if approx_tol is None else approx_tol
        return self._g._distances(idx, kind, (resistance_cap, k, tol, seed), threads)

    def __repr__(self) -> str:
        return repr(self._g)

    def __len__(self) -> int:
        return self.n_nodes


def _plain(a):
    return a.tolist() if isinstance(a, np.ndarray) else a


# ------------------------------------------------------------------ noise
def sample_path(dim: int = 1, norm: str = "l1", eps_lo: float = 0.1, eps_hi: float = 10.0, seed: int = 0) -> NoisePath:
    """One lazy Laplace noise path on [eps_lo, eps_hi]: for every ε in the
    range, ``path.at(eps)`` is optimal Laplace noise at level ε (ℓ1: i.i.d.
    Laplace(1/ε) coordinates; ℓ2: density ∝ e^(−ε‖v‖)), and the path changes
    value only at ``path.levels``. Drawn from the generator of owner 0 for
    ``seed`` (the path a simulation with this seed gives its first owner)."""
    return _n._sample_paths(1, dim, norm, (eps_lo, eps_hi), seed, None)[0]


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
    return _n._sample_paths(k, dim, norm, (eps_lo, eps_hi), seed, threads)


# ------------------------------------------------------------------ runs
def option_names(command: str) -> list[str]:
    """The options of ``simulate``, ``collude``, ``utility``, ``gossip``, ``relay`` or ``evolve``: the keys of
    its configuration (``summary.json``'s ``config``), each a keyword
    argument of the function of that name."""
    return list(_n._option_names(command))


def _run_options(graph, options, kwargs: dict) -> tuple[Any, dict]:
    """(native graph or None, the options dict): ``graph`` is a Graph, a path
    (the ``graph`` option) or None (the ``graph`` option, or the default)."""
    if options is None:
        opts: dict = {}
    elif isinstance(options, Mapping):
        opts = dict(options)
    else:
        raise TypeError(f"options: expected a dict of options, found {type(options).__name__}")
    opts.update(kwargs)
    if isinstance(graph, Graph):
        return graph._g, opts
    if graph is None:
        return None, opts
    if isinstance(graph, (str, os.PathLike)):
        if "graph" in opts:
            raise TypeError("graph given twice: as the first argument and as the `graph` option")
        opts["graph"] = os.fspath(graph)
        return None, opts
    raise TypeError(f"graph: expected a privdiffuse.Graph or a path, found {type(graph).__name__}")


class _TableProperty(property):
    """A result's property giving its table ``file`` (None when the run did
    not write that file)."""

    def __init__(self, file: str, doc: str):
        super().__init__(lambda self: self._table(file), doc=doc)
        self.file = file


class _Result:
    """A run's files in memory: :meth:`csv` gives one file's text, the
    properties its table, :meth:`save` writes them as the command line does."""

    _tables: tuple[str, ...] = ()

    def __init__(self, native):
        """Wraps the native output (built by the run functions)."""
        self._n = native
        self._cache: dict[str, Any] = {}

    @property
    def files(self) -> list[str]:
        """The names of the files this result holds (see :meth:`csv`)."""
        return list(self._n._names())

    def _table(self, name: str):
        if name not in self._n._names():
            return None
        if name not in self._cache:
            self._cache[name] = _frame(self._n._table(name))
        return self._cache[name]

    def csv(self, name: str) -> str:
        """The text of file ``name`` (``'by_distance.csv'``, …: see
        :attr:`files`) as the command line writes it, byte for byte; a
        ValueError names the valid names."""
        return self._n._bytes(name).decode("utf-8")

    @property
    def summary(self) -> dict:
        """The content of ``summary.json`` (its ``config`` repeats the run)."""
        if "summary.json" not in self._cache:
            self._cache["summary.json"] = json.loads(self._n._bytes("summary.json"))
        return self._cache["summary.json"]

    @property
    def seconds(self) -> float:
        """Seconds the run took."""
        return self._n.seconds

    def save(self, dir: str | os.PathLike, force: bool = False, plots: bool = True) -> None:
        """Writes the command line's files (and, with ``plots``, its figures,
        and ``timings.json``) into the new directory ``dir``, all or nothing.
        FileExistsError if ``dir`` exists, unless ``force``."""
        self._n._save(os.fspath(dir), force, plots)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(files={self.files})"


class SimulationResult(_Result):
    """What :func:`simulate` returns: the tables of ``by_distance.csv``,
    ``jumps.csv``, ``owners.csv``, ``paths.csv``, ``ego.csv`` and (with
    ``responses=True``) ``responses.csv``."""

    by_distance = _TableProperty("by_distance.csv", """Accuracy per mechanism and distance bucket (``by_distance.csv``).""")

    jumps = _TableProperty("jumps.csv", """Every jump of every correlated path (``jumps.csv``).""")

    owners = _TableProperty("owners.csv", """One row per owner (and replicate): the range of levels its path covers (``owners.csv``).""")

    paths = _TableProperty("paths.csv", """The first owners' paths, breakpoint by breakpoint (``paths.csv``).""")

    ego = _TableProperty("ego.csv", """The recorded owners' recipients and their errors (``ego.csv``).""")

    responses = _TableProperty("responses.csv", """Every answer (``responses.csv``), or None unless ``responses=True``.""")


class CollusionResult(_Result):
    """What :func:`collude` returns: the ``coalition.csv`` and ``audit.csv`` tables."""

    coalition = _TableProperty("coalition.csv", """Estimator gains per owner, coalition, estimator and mechanism (``coalition.csv``).""")

    audit = _TableProperty("audit.csv", """Privacy loss and the distinguishing attack per owner and coalition (``audit.csv``).""")


class UtilityResult(_Result):
    """What :func:`utility` returns: the ``utility.csv`` table and, with
    ``recipients=True``, ``recipients.csv``."""

    utility = _TableProperty("utility.csv", """MSE per scheme and recipient-degree bucket, then over all recipients (``utility.csv``).""")

    recipients = _TableProperty("recipients.csv", """One row per recipient, first replicate (``recipients.csv``), or None unless ``recipients=True``.""")


class GossipResult(_Result):
    """What :func:`gossip` returns: ``privacy.csv``, ``privacy_by_distance.csv``,
    ``utility.csv``, ``coalition.csv`` (with coalitions), ``two_schools.csv``."""

    privacy = _TableProperty("privacy.csv", """Per ordered pair (source, observer): hop distance, the code's accounting (capped) and the exact loss, in RDP at ``alpha`` and ε at ``delta`` (``privacy.csv``).""")

    privacy_by_distance = _TableProperty("privacy_by_distance.csv", """Per hop: pairs and the mean, median and maximum of each column (``privacy_by_distance.csv``).""")

    utility = _TableProperty("utility.csv", """MSE of every member's estimate of the network mean per degree bucket and overall, with theory (``utility.csv``, the columns of :func:`utility`).""")

    coalitions = _TableProperty("coalition.csv", """Per owner and coalition: the exact loss of the pooled views and the largest member's own (``coalition.csv``), or None without coalitions.""")

    two_schools = _TableProperty("two_schools.csv", """Diffusion matched to gossip's exact loss per hop (median and worst pair), and the MSE of each (``two_schools.csv``).""")


class RelayResult(_Result):
    """What :func:`relay` returns: ``relay.csv`` (one row per owner and
    untrimmed fraction), ``relay_by_distance.csv`` and, with
    ``responses=True``, ``responses.csv``."""

    relay = _TableProperty("relay.csv", """Per owner and untrimmed fraction: rounds, messages, bytes, recipients, identical answers, largest learned ε relative to one's own (``relay.csv``).""")

    relay_by_distance = _TableProperty("relay_by_distance.csv", """Per fraction and distance bucket: recipients and the mean and largest ``eps_learned / eps(d)`` (``relay_by_distance.csv``).""")

    responses = _TableProperty("responses.csv", """With ``responses=True``: every recipient's answer as read from the signal it holds, the table of ``simulate(..., mechanism="correlated", responses=True)`` byte for byte (``responses.csv``); else None.""")


class SweepResult(_Result):
    """What :func:`sweep` returns: ``sweep.csv`` (long format: the grid keys,
    then mechanism, estimator, coalition, metric, distance bucket, value),
    ``sweep.summary.csv`` and ``sweep.timings.csv``."""

    table = _TableProperty("sweep.csv", """The sweep's rows (``sweep.csv``).""")

    summary = _TableProperty("sweep.summary.csv", """Means and confidence intervals over the pooled keys (``sweep.summary.csv``).""")

    @property
    def points(self) -> int:
        """Points in the grid."""
        return self._n.points

    def save(self, path: str | os.PathLike, force: bool = False) -> None:  # type: ignore[override]
        """Writes the CSV to ``path`` and ``STEM.summary.csv``,
        ``STEM.timings.csv`` beside it, as ``privdiffuse sweep --out PATH``
        does. FileExistsError if any exists, unless ``force``."""
        self._n._save(os.fspath(path), force)

    def __repr__(self) -> str:
        return f"SweepResult(points={self.points})"


def simulate(graph: "Graph | str | os.PathLike | None" = None, options: Mapping[str, Any] | None = None, /, *, threads: int | None = None, **kwargs: Any) -> SimulationResult:
    """Every owner shares its value with every reachable member through one
    lazy noise path (``mechanism="correlated"``) and/or fresh noise per
    member (``"independent"``; ``"both"``, the default): ``privdiffuse
    simulate`` in memory. ``noise`` names the noise as ``--noise`` does:
    ``"laplace"`` (default), ``"gaussian"`` (one Brownian path per owner,
    (ε, δ)-DP; ``mechanism="gaussian"`` is its older spelling) or
    ``"discrete"``.

    ``graph``: a :class:`Graph`, or the path of an edge list (default: the
    ``graph`` option, the bundled ``data/geometric150.edges``). Options: the
    keys of ``summary.json``'s ``config`` (:func:`option_names`), as keyword
    arguments or a dict (``simulate(g, res.summary["config"])``): ``eps``
    (an :class:`EpsilonMap` or spec), ``dim``, ``norm``, ``noise``, ``mechanism``,
    ``owners`` (a count, a list of ids or a spec), ``seed``,
    ``replicates``, ``responses``, ``distance_options`` (a dict), …;
    ``values`` also takes a numpy array aligned with ``graph.nodes`` (1-D
    for dim 1, (N, dim) otherwise) or a dict id → value, kept in memory.
    An unknown option is a TypeError listing the valid ones. Same seed, same
    numbers as the command line, on ``threads`` threads (default: all)."""
    g, opts = _run_options(graph, options, kwargs)
    return SimulationResult(_n._simulate(g, opts, threads))


def collude(graph: "Graph | str | os.PathLike | None" = None, options: Mapping[str, Any] | None = None, /, *, threads: int | None = None, **kwargs: Any) -> CollusionResult:
    """Coalitions pool the answers they received from each owner: estimator
    gains, exact privacy loss and a distinguishing attack (``privdiffuse
    collude`` in memory). Options: :func:`simulate`'s (default owners: 20
    sampled) plus ``coalitions`` (specs: ``far:min-d=2``, ``band:d=2``,
    ``random:m=4``, ``nearest:m=3``, ``sybil:m=3,d=2``, ``file:PATH``),
    ``estimators`` (names or ``"best,mean"``), ``trials``,
    ``composition_delta``."""
    g, opts = _run_options(graph, options, kwargs)
    return CollusionResult(_n._collude(g, opts, threads))


def utility(graph: "Graph | str | os.PathLike | None" = None, options: Mapping[str, Any] | None = None, /, *, recipients: bool = False, threads: int | None = None, **kwargs: Any) -> UtilityResult:
    """Network-wide utility: every recipient estimates the mean of the
    values it can reach, under the correlated, independent and access
    schemes (``privdiffuse utility`` in memory). Options: the simulation's
    (flat, or nested as ``sim={...}`` as ``summary.json`` records them) plus
    ``access_radius`` and ``replicates``; ``recipients=True`` also gives
    ``recipients.csv``."""
    g, opts = _run_options(graph, options, kwargs)
    return UtilityResult(_n._utility(g, opts, bool(recipients), threads))


def gossip(graph: "Graph | str | os.PathLike | None" = None, options: Mapping[str, Any] | None = None, /, *, threads: int | None = None, **kwargs: Any) -> GossipResult:
    """Private gossip averaging (Muffliato) beside diffusion (``privdiffuse
    gossip`` in memory): every node adds N(0, ``sigma``²) once and gossips
    with the Metropolis–Hastings matrix for ``steps`` (default: the mixing
    rule) ``gossip`` ("accelerated" or "simple") steps. Options: ``sigma``
    (required: it sets the privacy), ``steps``, ``gossip``, ``alpha`` (default 2), ``delta`` (1e-6),
    ``owners`` (sources of the code's accounting), ``observers`` (of the
    exact loss; default the owners), ``coalitions``, ``values`` (a spec, or
    in memory as for :func:`simulate`), ``sensitivity``, ``replicates``,
    ``seed``, ``view``. Same seed, same numbers as the command line."""
    g, opts = _run_options(graph, options, kwargs)
    return GossipResult(_n._gossip(g, opts, threads))


def relay(graph: "Graph | str | os.PathLike | None" = None, options: Mapping[str, Any] | None = None, /, *, threads: int | None = None, **kwargs: Any) -> RelayResult:
    """The decentralised protocol (``privdiffuse relay`` in memory): each
    owner's path — the one :func:`simulate` samples with the same seed —
    passed on between friends in synchronous rounds, each relay trimming it
    to what its neighbour may learn. Options: the simulation's (flat, or
    nested as ``sim={...}`` as ``summary.json`` records them; distance
    ``hop`` or ``weighted``) plus ``untrimmed``, a list of fractions of the
    nodes that forward the richest signal they hold instead (default
    ``[0]``)."""
    g, opts = _run_options(graph, options, kwargs)
    return RelayResult(_n._relay(g, opts, threads))


def sweep(base: Mapping[str, Any] | None = None, grid: Mapping[str, Any] | None = None, *, threads: int | None = None) -> SweepResult:
    """A parameter sweep (``privdiffuse sweep``): ``base`` holds fixed
    options and ``grid`` lists of values (first key outermost), the keys of
    a sweep file's ``[base]`` and ``[grid]`` tables (``graph`` may be a
    :class:`Graph`: it is written to a temporary edge list for the run)."""
    base = dict(base or {})
    with tempfile.TemporaryDirectory(prefix="privdiffuse-sweep-") as tmp:
        if isinstance(base.get("graph"), Graph):
            path = os.path.join(tmp, "graph.edges")
            base["graph"].save(path)
            base["graph"] = path
        return SweepResult(_n._sweep(base, None if grid is None else dict(grid), threads))


# ------------------------------------------------------------------ plots
_PLOT_KINDS = ("jumps", "ego", "error", "path", "coalition", "sweep", "utility", "relay", "timeline", "gossip")


def _default_kind(result) -> str:
    """The figure a result's command draws first."""
    if isinstance(result, CollusionResult):
        return "coalition"
    if isinstance(result, UtilityResult):
        return "utility"
    if isinstance(result, RelayResult):
        return "relay"
    if isinstance(result, SweepResult):
        return "sweep"
    if isinstance(result, EvolveResult):
        return "timeline"
    if isinstance(result, GossipResult):
        return "gossip"
    return "jumps"


def plot(
    result_or_dir: "SimulationResult | CollusionResult | UtilityResult | RelayResult | SweepResult | EvolveResult | str | os.PathLike",
    kind: str | None = None,
    out: str | os.PathLike = "fig.png",
    width: int = 1200,
    height: int = 800,
    owner: str | int | None = None,
    edges: bool = False,
    *,
    x: str | None = None,
    metric: "str | Sequence[str] | None" = None,
    only: "Mapping[str, Any] | Sequence[str] | None" = None,
    at_distance: "float | Sequence[float] | None" = None,
    log_x: bool = False,
    per_seed: bool = False,
) -> str:
    """Draws the command line's figure ``kind`` of a result or of a run
    directory (or file) into ``out`` (``.png`` or ``.svg``), the same bytes
    as ``privdiffuse plot --kind KIND`` draws from the saved files; returns
    ``out``. Kinds: ``jumps``, ``ego``, ``error``, ``path`` (a
    :func:`simulate` result or run), ``coalition`` (:func:`collude`),
    ``sweep`` (:func:`sweep`, or a sweep CSV), ``utility``
    (:func:`utility`), ``relay`` (:func:`relay`), ``timeline``
    (:func:`evolve`), ``gossip`` (:func:`gossip`: privacy against hop); the default is the first figure of the result's
    command (``jumps`` for a directory).

    ``edges`` (``ego``): draws the friendships among the members faintly,
    as ``plot --edges``; for a run directory they come from the graph its
    ``summary.json`` names, for a result from the graph it ran on (in-memory
    graphs included). ``sweep`` only: ``x`` (the key column on the x axis),
    ``metric`` (one or several, a panel each; default ``gain_median`` for a
    sweep with coalitions, else ``mse``), ``only`` (``{column: value}`` or
    ``["column=value"]``), ``at_distance``, ``log_x``, ``per_seed``, as the
    command line's flags."""
    kind = _default_kind(result_or_dir) if kind is None else str(kind)
    if kind not in _PLOT_KINDS:
        raise ValueError(f"kind: expected one of {', '.join(_PLOT_KINDS)}, found {kind!r}")
    out = os.fspath(out)
    own = None if owner is None else str(owner)
    size = (int(width), int(height))
    metrics = [] if metric is None else [metric] if isinstance(metric, str) else list(metric)
    metrics = [m.strip() for ms in metrics for m in str(ms).split(",") if m.strip()]
    if only is None:
        pairs = []
    elif isinstance(only, Mapping):
        pairs = [(str(k), str(v)) for k, v in only.items()]
    else:
        pairs = []
        for o in [only] if isinstance(only, str) else only:
            if "=" not in str(o):
                raise ValueError(f"only: expected COLUMN=VALUE, found {o!r}")
            c, v = str(o).split("=", 1)
            pairs.append((c.strip(), v.strip()))
    if at_distance is None:
        at = []
    elif isinstance(at_distance, (int, float)):
        at = [float(at_distance)]
    else:
        at = [float(d) for d in at_distance]
    options = dict(
        size=size,
        owner=own,
        edges=bool(edges),
        x=x,
        metrics=metrics,
        only=pairs,
        at=at,
        log_x=bool(log_x),
        per_seed=bool(per_seed),
    )

    def draw(path: str) -> None:
        _n._plot(path, kind, out, options)

    if isinstance(result_or_dir, (_Result, EvolveResult)):
        with tempfile.TemporaryDirectory(prefix="privdiffuse-plot-") as tmp:
            run = os.path.join(tmp, "run")
            if isinstance(result_or_dir, SweepResult):
                run = os.path.join(tmp, "sweep.csv")
                result_or_dir.save(run)
            elif isinstance(result_or_dir, EvolveResult):
                os.makedirs(run)
                with open(os.path.join(run, "timeline.csv"), "w", encoding="utf-8", newline="") as f:
                    f.write(result_or_dir.csv())
            else:
                result_or_dir.save(run, plots=False)
            if edges and isinstance(result_or_dir, SimulationResult):
                _point_summary_at_saved_graph(result_or_dir, run, os.path.join(tmp, "graph.edges"))
            draw(run)
    else:
        draw(os.fspath(result_or_dir))
    return out


def _point_summary_at_saved_graph(result: "SimulationResult", run: str, path: str) -> None:
    # The figure reads the run's graph from summary.json's config; a result
    # may come from an in-memory graph (config.graph is empty) or a view, so
    # write the graph it ran on and name that file instead.
    result._n._graph.save(path, True)
    file = os.path.join(run, "summary.json")
    with open(file, encoding="utf-8") as f:
        summary = json.load(f)
    config = summary.get("config", {})
    config.update(graph=path, nodes=None)
    config.pop("view", None)
    with open(file, "w", encoding="utf-8") as f:
        json.dump(summary, f)
