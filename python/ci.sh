#!/usr/bin/env bash
# CI for the Python package: build and install it from a clean virtual
# environment exactly as a user would (`pip install ./python`), run its tests
# (pytest's summary line is the last line of that step) and the example.
# Needs python3 (with venv) and network access to PyPI; the CLI equality test
# uses target/{release,debug}/privdiffuse when a cargo build left one (CI's
# `cargo test` does), and says why it skips otherwise.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)
unset RUST_BACKTRACE
tmp=$(mktemp -d "${TMPDIR:-/tmp}/privdiffuse-py-ci.XXXXXX")
trap 'rm -rf "$tmp"' EXIT
# What the steps put in a temporary folder goes into $tmp, removed on exit:
# pytest's base folder (pytest-of-USER, --basetemp below), and the folders
# the quick start and the notebook make with tempfile.mkdtemp().
export TMPDIR="$tmp"

echo "== python3 -m venv (fresh, in $tmp)"
python3 -m venv "$tmp/venv"
py="$tmp/venv/bin/python"

echo "== pip install ./python[pandas] pytest numpy scipy networkx matplotlib nbclient ipykernel"
t0=$(date +%s)
# pip builds in-tree with the workspace's dev profile (pyproject.toml), so the
# extension reuses the dependencies and the privdiffuse library that CI's
# `cargo test` compiled: only pyo3, numpy and the extension are new.
# PRIVDIFFUSE_PY_PROFILE=release tests the optimised build instead.
if [ -n "${PRIVDIFFUSE_PY_PROFILE:-}" ]; then
    export MATURIN_PEP517_ARGS="--profile $PRIVDIFFUSE_PY_PROFILE"
fi
"$py" -m pip install --quiet --disable-pip-version-check "./python[pandas]" pytest numpy scipy networkx \
    matplotlib nbclient nbformat ipykernel
echo "   built and installed in $(( $(date +%s) - t0 )) s"
# The installed package, not the source tree.
(cd "$tmp" && "$py" -c 'import privdiffuse, sys; print("   privdiffuse", privdiffuse.__version__, "from", privdiffuse.__file__)')

echo "== pytest python/tests"
(cd "$tmp" && "$py" -m pytest -q -rs -p no:cacheprovider --basetemp "$tmp/pytest" "$repo/python/tests")

echo "== docs/python.md's quick start (from the repository root; writes only to a temp dir)"
python3 - "$repo/docs/python.md" > "$tmp/quickstart.py" <<'PY'
import re, sys
text = open(sys.argv[1], encoding="utf-8").read()
print(re.search(r"```python\n(.*?)```", text, re.S).group(1))
PY
(cd "$repo" && "$py" "$tmp/quickstart.py")

# The notebook a newcomer opens first, executed top to bottom in a fresh
# kernel of the venv (from the repository root, as from anywhere in a clone);
# any error output fails, and it must show its DataFrames and figures.
echo "== python/examples/first_look.ipynb (nbclient, outputs checked for errors)"
"$py" "$repo/python/tests/run_notebook.py" "$repo/python/examples/first_look.ipynb" \
    --cwd "$repo" --figures 2 --tables 2

echo "== python/examples/thesis_facebook.py"
(cd "$tmp" && "$py" "$repo/python/examples/thesis_facebook.py" --out "$tmp/figures")
test -s "$tmp/figures/fig6_ego.png" && test -s "$tmp/figures/fig7_jumps.png"
echo "python CI passed"
