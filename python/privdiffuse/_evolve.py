"""Releases that last (issue 24): :func:`evolve` over a changing network and
the :class:`Store` it keeps, through the native door (keyword arguments →
the serde keys of the library's ``EvolveConfig``; nothing is listed here)."""

from __future__ import annotations

import json
import os
from typing import Any, Mapping

from . import _privdiffuse as _n


def _frame(cols):
    """A pandas DataFrame of the columns when pandas is importable, else the dict."""
    try:
        import pandas
    except ImportError:
        return dict(cols)
    return pandas.DataFrame(dict(cols))


def _id(x) -> str:
    """A node id as the store writes it (ints and numpy ints as decimal text)."""
    if isinstance(x, bool):
        raise TypeError(f"expected a node id (int or str), found {x!r}")
    if isinstance(x, str):
        return x
    try:
        import numbers

        if isinstance(x, numbers.Integral):
            return str(int(x))
    except Exception:  # pragma: no cover
        pass
    raise TypeError(f"expected a node id (int or str), found {type(x).__name__}")


class EvolveResult:
    """What :func:`evolve` returns: the committed ``timeline`` (a DataFrame,
    or a dict of columns without pandas: the columns of ``timeline.csv``)
    and the run's ``summary`` (configuration as stored, counts)."""

    def __init__(self, timeline, summary: dict, csv: str = ""):
        self.timeline = _frame(timeline)
        self.summary = summary
        self._csv = csv

    def csv(self, name: str = "timeline.csv") -> str:
        """The text of ``timeline.csv`` as the command line writes it, byte
        for byte (the only file this result holds)."""
        if name != "timeline.csv":
            raise ValueError(f"file: expected timeline.csv, found {name!r}")
        return self._csv

    @property
    def store(self) -> str:
        """Path of the release store."""
        return self.summary.get("store", "")

    def __repr__(self) -> str:
        n = self.summary.get("batches")
        return f"EvolveResult(batches={n}, store={self.store!r})"


def evolve(options: Mapping[str, Any] | None = None, /, *, out: "str | os.PathLike | None" = None, plots: bool = True, threads: int | None = None, force: bool = False, **kwargs: Any) -> EvolveResult:
    """``privdiffuse evolve`` as a function: batch 0 releases to every
    reachable pair of ``graph`` (START), then per ``batch`` events of
    ``events`` a new answer, read from the SAME stored path, to every pair
    whose ε rose. Options (keyword arguments or a dict; an unknown one is a
    TypeError listing the valid ones): ``graph``, ``events``, ``store``
    (required), ``nodes``, ``distance``, ``eps``, ``eps_max``, ``dim``,
    ``norm``, ``values`` (a spec or a path), ``owners``, ``seed``,
    ``batch``, ``resume``. ``out`` also writes the command line's directory
    (``timeline.csv``, ``summary.json``, figures); one that holds files is
    refused (FileExistsError) unless ``force`` or the store exists (``resume``). Returns the timeline (a
    DataFrame; a dict of columns without pandas) with the summary: same
    seed, same numbers as the command line, whatever ``threads``.

    A run on a changed graph with :func:`simulate` would be a *new* release
    whose answers compose with the old ones; ``evolve`` keeps one path per
    owner so a recipient holding old and new answers stays max-ε private."""
    opts = dict(options or {})
    opts.update(kwargs)
    for k in ("graph", "events", "store", "nodes"):
        if opts.get(k) is not None:
            opts[k] = os.fspath(opts[k])
    cols, summary, csv = _n._evolve(opts, None if out is None else os.fspath(out), bool(plots), threads, bool(force))
    summary = json.loads(summary)
    summary["store"] = opts.get("store", "")
    return EvolveResult(cols, summary, csv)


class Store:
    """A release store made by :func:`evolve` (or ``privdiffuse evolve``).

    ``Store(path)`` opens it for reading (beside a running writer: it sees
    the last committed batch); ``Store(path, write=True)`` (or
    :meth:`open` with ``write=True``) as the writer, whose :meth:`answer`
    may release. :meth:`create` runs :func:`evolve` and opens the result.
    Use as a context manager, or :meth:`close`, to release a writer's lock."""

    def __init__(self, path: "str | os.PathLike", write: bool = False):
        self._s = _n.Store(os.fspath(path), bool(write))

    @classmethod
    def open(cls, path: "str | os.PathLike", write: bool = False) -> "Store":
        """Opens an existing store (see the class)."""
        return cls(path, write)

    @classmethod
    def create(cls, store: "str | os.PathLike", /, *, write: bool = False, threads: int | None = None, **options: Any) -> "Store":
        """Runs :func:`evolve` into the new store ``store`` (options as
        :func:`evolve`'s) and opens it."""
        evolve(store=store, threads=threads, **options)
        return cls(store, write)

    @property
    def path(self) -> str:
        """The store's file."""
        return os.fspath(self._s.path)

    @property
    def writer(self) -> bool:
        """Whether this handle is the writer."""
        return self._s.writer

    @property
    def last_batch(self) -> int | None:
        """The last committed batch (0: START)."""
        return self._s.last_batch

    @property
    def config(self) -> dict:
        """The stored configuration (seed, resolved map, top, values, …)."""
        return json.loads(self._s._config())

    def answer(self, owner, recipient) -> dict:
        """The answer ``recipient`` holds from ``owner`` at the current
        distance: a new release (recorded in the last committed batch; a
        writer's call) if its level ``min(ε(d), top)`` is above every level
        the pair was released, else the answer it already holds. A dict:
        ``batch``, ``distance``, ``eps``, ``y`` (numpy array), ``released``."""
        batch, distance, eps, y, released = self._s._answer(_id(owner), _id(recipient))
        return {"batch": batch, "distance": distance, "eps": eps, "y": y, "released": released}

    def answers(self, owner=None, recipient=None):
        """Every answer ever released (batch 0's included), optionally of
        one owner and/or to one recipient: the rows of ``privdiffuse
        answers`` (``owner,recipient,batch,distance,eps,y1..yn``) as a
        DataFrame, or a dict of columns without pandas."""
        o = None if owner is None else _id(owner)
        r = None if recipient is None else _id(recipient)
        return _frame(self._s._answers(o, r))

    def answers_csv(self, owner=None, recipient=None) -> str:
        """The text of ``privdiffuse answers`` with these filters, byte for byte."""
        o = None if owner is None else _id(owner)
        r = None if recipient is None else _id(recipient)
        return bytes(self._s._answers_csv(o, r)).decode("utf-8")

    @property
    def timeline(self):
        """The committed timeline (the columns of ``timeline.csv``)."""
        return _frame(self._s._timeline())

    def timeline_csv(self) -> str:
        """The text of ``timeline.csv`` as ``evolve`` writes it, byte for byte."""
        return bytes(self._s._timeline_csv()).decode("utf-8")

    def close(self) -> None:
        """Closes the store (a writer's lock is released); later calls raise."""
        self._s.close()

    def __enter__(self) -> "Store":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"Store({self.path!r}, write={self.writer})"
