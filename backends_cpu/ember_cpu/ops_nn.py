"""Kernels for im2col/col2im, pooling, softmax and normalisation; ``kernels()`` maps operator overloads to them."""

from __future__ import annotations

from typing import Any


def kernels() -> dict[str, Any]:
    return {}
