#!/usr/bin/env python3
"""Executes a notebook top to bottom (nbclient, a fresh kernel, the working
directory given) and checks its outputs: no cell may raise, and no output
may be an error or a standard-error stream that reports one (a traceback, an
`Error`/`Exception`). Prints the run time. The notebook file is not written.

Usage: run_notebook.py NOTEBOOK [--cwd DIR] [--timeout SECONDS] [--figures N] [--tables N]
(--figures, --tables: at least N PNG images and N HTML tables, e.g.
DataFrames, among the outputs).
"""

import re
import sys
import time

import nbformat
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

BAD_STDERR = re.compile(r"Traceback|\b\w*(Error|Exception)\b")


def problems(nb) -> list[str]:
    """The error outputs of an executed notebook, one line each."""
    out = []
    for i, cell in enumerate(nb.cells):
        for o in cell.get("outputs", []):
            if o.get("output_type") == "error":
                out.append(f"cell {i}: {o.get('ename')}: {o.get('evalue')}")
            elif o.get("output_type") == "stream" and o.get("name") == "stderr":
                text = "".join(o.get("text", ""))
                if BAD_STDERR.search(text):
                    out.append(f"cell {i}: on stderr: {text.strip()[:500]}")
    return out


def main(argv: list[str]) -> int:
    if not argv or argv[0].startswith("-"):
        print(__doc__, file=sys.stderr)
        return 2
    path = argv[0]
    cwd = argv[argv.index("--cwd") + 1] if "--cwd" in argv else "."
    timeout = int(argv[argv.index("--timeout") + 1]) if "--timeout" in argv else 600
    want_figures = int(argv[argv.index("--figures") + 1]) if "--figures" in argv else 0
    want_tables = int(argv[argv.index("--tables") + 1]) if "--tables" in argv else 0
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(nb, timeout=timeout, kernel_name="python3", resources={"metadata": {"path": cwd}})
    t0 = time.monotonic()
    try:
        client.execute()
    except CellExecutionError as e:
        print(f"{path}: a cell raised:\n{e}", file=sys.stderr)
        return 1
    seconds = time.monotonic() - t0
    bad = problems(nb)
    cells = sum(1 for c in nb.cells if c.cell_type == "code")
    outputs = [o for c in nb.cells for o in c.get("outputs", [])]
    images = sum(1 for o in outputs if "image/png" in o.get("data", {}))
    tables = sum(1 for o in outputs if "<table" in "".join(o.get("data", {}).get("text/html", "")))
    if images < want_figures:
        bad.append(f"{images} figures among the outputs, expected at least {want_figures}")
    if tables < want_tables:
        bad.append(f"{tables} tables among the outputs, expected at least {want_tables}")
    for b in bad:
        print(f"{path}: {b}", file=sys.stderr)
    print(
        f"   {path}: {cells} code cells executed in {seconds:.1f} s, {images} figures, "
        f"{tables} tables, {len(bad)} errors"
    )
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
