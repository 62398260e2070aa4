"""The documentation site builds with ``mkdocs build --strict`` and documents the live API.

``--strict`` turns every warning into a failure: a link to a missing page or anchor, a page
missing from the navigation, a reference to a name that does not exist, a docstring griffe
cannot parse. The reference pages are read from the sources and completed from the imported
package (``docs/_hooks/griffe_runtime.py``), so a docstring attached at import time (the
operator table) must appear on them. The build takes about 20 s of CPU; the snippets of the
Get started and Tutorials pages are run by ``tests/test_docs_snippets.py``.
"""

from __future__ import annotations

import html
import inspect
import os
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml  # mkdocs's own dependency; mkdocs-material and mkdocstrings are test extras

import ember

ROOT = Path(__file__).resolve().parents[1]
DOCS = ROOT / "docs"
BUILD_TIMEOUT = 300


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    env = {**os.environ, "NO_MKDOCS_2_WARNING": "1", "OMP_NUM_THREADS": "1"}
    start = time.perf_counter()
    proc = subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=BUILD_TIMEOUT,
    )
    elapsed = time.perf_counter() - start
    warnings = [line for line in proc.stderr.splitlines() if "WARNING" in line]
    assert proc.returncode == 0, "mkdocs build --strict failed:\n" + "\n".join(
        warnings or proc.stderr.splitlines()[-40:]
    )
    print(f"mkdocs build --strict: {elapsed:.1f} s")
    return out


def _text(page: Path) -> str:
    """A built page's visible text, tags removed and whitespace collapsed."""
    raw = re.sub(r"<[^>]+>", "", page.read_text())
    return " ".join(html.unescape(raw).split())


def _summary(obj: Any) -> str:
    """The first line of ``obj``'s docstring as the page shows it (no inline-code marks)."""
    doc = inspect.getdoc(obj)
    assert doc, f"{obj!r} has no docstring"
    return " ".join(doc.splitlines()[0].replace("``", "").replace("`", "").split())


def _pages(node: Any) -> Iterator[str]:
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for item in node:
            yield from _pages(item)
    elif isinstance(node, dict):
        for value in node.values():
            yield from _pages(value)


def _doc_files() -> set[str]:
    return {
        str(p.relative_to(DOCS))
        for p in DOCS.rglob("*.md")
        if not any(part.startswith("_") for part in p.relative_to(DOCS).parts)
    }


def test_every_page_is_in_the_navigation_and_the_readme() -> None:
    config = yaml.safe_load((ROOT / "mkdocs.yml").read_text())
    in_nav = set(_pages(config["nav"]))
    assert in_nav == _doc_files(), "docs pages and mkdocs.yml's nav differ"
    readme = (ROOT / "README.md").read_text()
    missing = sorted(p for p in _doc_files() if f"(docs/{p})" not in readme)
    assert not missing, f"README.md's Documentation section does not link {missing}"


def test_reference_pages_are_built(site: Path) -> None:
    for page in (DOCS / "reference").glob("*.md"):
        built = site / "reference" / page.with_suffix(".html").name
        assert built.is_file(), f"{built.name} was not built"
        assert 'class="doc doc-heading"' in built.read_text(), f"{built.name} documents nothing"


@pytest.mark.parametrize(
    ("page", "anchor", "obj"),
    [
        # an operator: the function and its docstring exist only once ember is imported
        ("ember.html", "ember.add", lambda: ember.add),
        ("tensor.html", "ember.core.tensor.Tensor.add", lambda: ember.Tensor.add),
        ("tensor.html", "ember.core.tensor.Tensor.shape", lambda: ember.Tensor.shape),
        ("nn.html", "ember.nn.Linear", lambda: ember.nn.Linear),
        ("library.html", "ember.library.define", lambda: ember.library.define),
    ],
)
def test_reference_shows_the_live_docstring(site: Path, page: str, anchor: str, obj: Any) -> None:
    built = site / "reference" / page
    assert f'id="{anchor}"' in built.read_text(), f"{page} has no entry {anchor}"
    assert _summary(obj()) in _text(built), f"{page} does not show {anchor}'s docstring"


def test_builtin_types_are_not_linked_to_dtypes(site: Path) -> None:
    # ``bias (bool)`` means Python's bool, not the ``ember.bool`` dtype griffe finds first
    page = (site / "reference" / "nn.html").read_text()
    assert not re.search(r'href="[^"]*#ember\.(bool|int|float)"', page)


def test_the_site_loads_nothing_from_other_sites(site: Path) -> None:
    remote = re.compile(r"<(?:script|link|img|iframe)\b[^>]*(?:src|href)=\"(?:https?:)?//", re.I)
    for page in site.rglob("*.html"):
        for m in remote.finditer(page.read_text()):
            tag = page.read_text()[m.start() : m.start() + 160]
            assert 'rel="canonical"' in tag, f"{page.relative_to(site)} loads {tag!r}"
