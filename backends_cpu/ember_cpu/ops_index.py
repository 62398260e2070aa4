"""Kernels for indexing, scatter, nonzero and sort; ``kernels()`` maps operator overloads to them."""

from __future__ import annotations

from typing import Any


def kernels() -> dict[str, Any]:
    return {}
