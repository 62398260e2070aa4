"""Kernels for im2col/col2im, pooling, softmax and normalisation (see ``kernels()``)."""

from __future__ import annotations

from typing import Any


def kernels() -> dict[str, Any]:
    return {}
