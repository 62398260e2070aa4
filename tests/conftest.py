"""Shared test fixtures."""

import textwrap
from collections.abc import Callable
from pathlib import Path

import pytest


def _make_dist(
    root: Path, dist: str, module: str, source: str, entry_points: str, version: str = "1.2.3"
) -> None:
    """Lay out an installed distribution (a module plus its ``*.dist-info`` with real
    entry-point metadata) under ``root``, exactly what ``pip install`` would leave."""
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-{version}.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: {version}\n")
    (info / "entry_points.txt").write_text(textwrap.dedent(entry_points))
    (info / "top_level.txt").write_text(module + "\n")
    (info / "RECORD").write_text(f"{module}.py,,\n")


@pytest.fixture
def fake_dist() -> Callable[..., None]:
    return _make_dist
