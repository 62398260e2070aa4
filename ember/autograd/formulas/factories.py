"""Default formulas for the factories that read a tensor: ``*_like`` (not differentiable).

``zeros_like(x)`` reads only ``x``'s shape, dtype and device, so, as in PyTorch, its
output never requires grad (``None``). With an entry the kernel also runs the
factory below Autograd in one step instead of passing through its decomposition.
"""

from __future__ import annotations

from typing import Any

__all__ = ["FORMULAS"]

FORMULAS: dict[str, Any] = {
    f"aten::{name}": None
    for name in ("empty_like", "zeros_like", "ones_like", "full_like", "rand_like", "randn_like")
}
