"""The package's public surface is described where a Python user looks: every
name of ``__all__`` in the ``.pyi`` stub (with every public attribute of its
classes and the parameters of its functions), and in python/README.md's API
table. Run from anywhere: `pytest python/tests`."""

from __future__ import annotations

import ast
import inspect
import re
from pathlib import Path

import pytest

import privdiffuse as pdf

REPO = Path(__file__).resolve().parents[2]
STUB = REPO / "python" / "privdiffuse" / "__init__.pyi"
README = REPO / "python" / "README.md"


def _stub():
    """(top-level names, {class: (bases, {member: parameter names or None})},
    {function: parameter names}) of the stub file in the repository."""
    tree = ast.parse(STUB.read_text(encoding="utf-8"))
    names: set[str] = set()
    classes: dict[str, tuple[list[str], dict[str, list[str] | None]]] = {}
    functions: dict[str, list[str]] = {}

    def params(f: ast.FunctionDef) -> list[str]:
        a = f.args
        return [x.arg for x in a.posonlyargs + a.args + a.kwonlyargs]

    for node in tree.body:
        if isinstance(node, ast.ClassDef):
            names.add(node.name)
            members: dict[str, list[str] | None] = {}
            for m in node.body:
                if isinstance(m, ast.FunctionDef):
                    members[m.name] = params(m)
                elif isinstance(m, ast.AnnAssign) and isinstance(m.target, ast.Name):
                    members[m.target.id] = None
            classes[node.name] = ([b.id for b in node.bases if isinstance(b, ast.Name)], members)
        elif isinstance(node, ast.FunctionDef):
            names.add(node.name)
            functions[node.name] = params(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, ast.Assign):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
    return names, classes, functions


def _stub_members(classes, name: str) -> dict:
    """A stub class's members, its stub bases' included."""
    bases, members = classes[name]
    out = {}
    for b in bases:
        if b in classes:
            out.update(_stub_members(classes, b))
    out.update(members)
    return out


def _public_members(cls) -> set[str]:
    """Public attributes the class defines or inherits from the package (not from object)."""
    out = set()
    for k in cls.__mro__:
        if k is object:
            continue
        out.update(n for n in vars(k) if not n.startswith("_"))
    return out


def test_every_name_of_all_is_in_the_stub():
    names, _, _ = _stub()
    missing = [n for n in pdf.__all__ if n not in names]
    assert not missing, f"{STUB.name} lacks {missing}"


@pytest.mark.parametrize("name", [n for n in pdf.__all__ if inspect.isclass(getattr(pdf, n))])
def test_every_public_member_of_a_class_is_in_the_stub(name):
    _, classes, _ = _stub()
    stub = _stub_members(classes, name)
    missing = sorted(_public_members(getattr(pdf, name)) - set(stub))
    assert not missing, f"{STUB.name}: class {name} lacks {missing}"


@pytest.mark.parametrize(
    "name", [n for n in pdf.__all__ if inspect.isfunction(getattr(pdf, n))]
)
def test_every_function_has_its_parameters_in_the_stub(name):
    _, _, functions = _stub()
    want = [
        p.name
        for p in inspect.signature(getattr(pdf, name)).parameters.values()
        if p.kind not in (p.VAR_KEYWORD, p.VAR_POSITIONAL)
    ]
    got = functions[name]
    assert got == want, f"{STUB.name}: {name}({', '.join(got)}) where the package has {name}({', '.join(want)})"


def test_readme_api_table_names_every_public_name():
    text = README.read_text(encoding="utf-8")
    api = text[text.index("## API") :]
    api = api[: api.index("\n## ", 1)]
    missing = [n for n in pdf.__all__ if n != "__version__" and not re.search(rf"`(pdf\.)?{re.escape(n)}\b", api)]
    assert not missing, f"python/README.md's API table lacks {missing}"
