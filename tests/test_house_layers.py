"""The house's layers (docs/architecture.md): the import-linter contracts hold, no two
packages import each other, and every registration point is filled by ``import ember``."""

import ast
import shutil
import subprocess
from collections import defaultdict
from pathlib import Path

import pytest

import ember
from ember.core import providers

ROOT = Path(__file__).resolve().parents[1]


def test_import_linter_contracts_are_kept():
    # import-linter is a test dependency (pyproject's [test] extra): missing is a failure
    assert shutil.which("lint-imports"), "install the test extras: pip install -e '.[test]'"
    r = subprocess.run(["lint-imports"], capture_output=True, text=True, cwd=ROOT, timeout=300)
    assert r.returncode == 0, r.stdout[-4000:] + r.stderr[-2000:]
    assert "0 broken" in r.stdout


def _imports(path: Path, module: str) -> set[str]:
    """Every ember module ``module`` imports, at any depth, except under TYPE_CHECKING."""
    is_pkg = path.name == "__init__.py"
    out: set[str] = set()

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and getattr(child.test, "id", "") == "TYPE_CHECKING":
                continue
            if isinstance(child, ast.Import):
                out.update(a.name for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    parts = module.split(".")[: len(module.split(".")) - child.level + is_pkg]
                    base = ".".join(parts + ([child.module] if child.module else []))
                out.add(base)
                out.update(f"{base}.{a.name}" for a in child.names)
            visit(child)

    visit(ast.parse(path.read_text(encoding="utf-8")))
    return {m for m in out if m.startswith("ember.")}


def _package(module: str) -> str:
    return ".".join(module.split(".")[:2])


def _package_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = defaultdict(set)
    for path in (ROOT / "ember").rglob("*.py"):
        rel = path.relative_to(ROOT).with_suffix("")
        module = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        if module == "ember":
            continue  # the facade re-exports every layer
        for target in _imports(path, module):
            if _package(target) != _package(module):
                graph[_package(module)].add(_package(target))
    return graph


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one package (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    found: list[list[str]] = []

    def connect(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                connect(w)
                low[v] = min(low[v], low[w])
            elif w in stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                found.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            connect(v)
    return found


def test_no_import_circle_between_packages():
    graph = _package_graph()
    assert graph["ember.operators"] >= {"ember.core", "ember.dispatcher"}  # the graph is real
    assert _cycles(graph) == []


def test_cycle_finder_finds_a_circle():
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_core_imports_nothing_above_it():
    assert _package_graph()["ember.core"] == set()


def test_every_registration_point_is_filled():
    assert ember.Tensor is not None
    empty = [n for n in providers.__all__ if isinstance(getattr(providers, n), providers._Missing)]
    assert empty == []


def test_an_empty_registration_point_names_its_provider():
    slot = providers._slot("getitem", "ember.operators.views")
    with pytest.raises(RuntimeError, match=r"'getitem', which ember\.operators\.views provides"):
        slot(1, 2)
