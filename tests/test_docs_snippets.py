"""The code of the Get started and Tutorials pages, and of the plugin and vendor guides,
runs as written.

Each page's ```python blocks run in order, as one program, in a fresh interpreter whose working
directory is a temporary folder (pages write checkpoints and plots). The program keeps the
page's line numbers (every line outside a block is blank), so a traceback names the line of
the Markdown file. A block preceded by ``<!-- skip -->`` is not run: the pages use it only for
code that needs another machine (a second process group, a device that is not installed).
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = sorted(
    [
        *ROOT.glob("docs/get-started/*.md"),
        *ROOT.glob("docs/tutorials/*.md"),
        ROOT / "docs" / "plugins.md",
        ROOT / "docs" / "vendors.md",
    ],
)
SKIP = "<!-- skip -->"
#: a page's whole program, ember's import included, must finish within this (seconds)
TIMEOUT = 120

_FENCE = re.compile(r"^```(\S*)\s*$")


def python_blocks(text: str) -> list[tuple[int, list[str]]]:
    """``(first line number, lines)`` of each runnable ```python block, in page order."""
    lines = text.splitlines()
    blocks: list[tuple[int, list[str]]] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        end = i + 1
        while end < len(lines) and lines[end].rstrip() != "```":
            end += 1
        previous = next((s.strip() for s in reversed(lines[:i]) if s.strip()), "")
        if m.group(1) == "python" and previous != SKIP:
            blocks.append((i + 2, lines[i + 1 : end]))
        i = end + 1
    return blocks


def program(text: str) -> str:
    """The page's runnable blocks at their own line numbers, blank lines elsewhere."""
    out = [""] * (len(text.splitlines()) + 1)
    for first, block in python_blocks(text):
        out[first - 1 : first - 1 + len(block)] = block
    return "\n".join(out) + "\n"


def test_python_blocks_keep_lines_and_skip() -> None:
    text = "# t\n\n```python\na = 1\n```\n\n<!-- skip -->\n```python\nb = 2\n```\n```bash\nx\n```\n"
    assert python_blocks(text) == [(4, ["a = 1"])]
    assert program(text).splitlines()[3] == "a = 1"


@pytest.mark.parametrize("page", PAGES, ids=[str(p.relative_to(ROOT / "docs")) for p in PAGES])
def test_page_code_runs(page: Path, tmp_path: Path) -> None:
    text = page.read_text()
    blocks = python_blocks(text)
    assert blocks, f"{page.name} has no runnable ```python block"
    script = tmp_path / page.name.replace(".md", "_md.py")
    script.write_text(program(text))
    # one OpenMP thread: the suite runs tests side by side on few cores, where a second
    # spinning thread per process makes small kernels many times slower
    env = {**os.environ, "MPLBACKEND": "Agg", "OMP_NUM_THREADS": "1"}
    try:
        proc = subprocess.run(
            [sys.executable, str(script)],
            cwd=tmp_path,
            env=env,
            capture_output=True,
            text=True,
            timeout=TIMEOUT,
        )
    except subprocess.TimeoutExpired as e:
        pytest.fail(f"docs/{page.relative_to(ROOT / 'docs')} ran past {TIMEOUT} s: {e.stdout}")
    assert proc.returncode == 0, (
        f"a block of docs/{page.relative_to(ROOT / 'docs')} failed (line numbers are the "
        f"page's):\n{proc.stderr[-4000:]}"
    )
