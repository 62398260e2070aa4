"""Default formulas for the indexing primitives: gather, scatter, index, index_put, sort.

Each gradient is the adjoint data movement, written in ember operators (gather's
is a scatter_add, index's an accumulating index_put, sort's a scatter of the
gradient back through the permutation), so double backward works. ``nonzero``
has integer outputs and no formula (``None``).
"""

from __future__ import annotations

from typing import Any

__all__ = ["FORMULAS"]


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _embed(g: Any, shape: tuple[int, ...]) -> Any:
    """``g`` in the leading corner of zeros of ``shape`` (index smaller than src)."""
    if tuple(g.shape) == tuple(shape):
        return g
    pads: list[int] = []
    for n, gn in zip(reversed(shape), reversed(tuple(g.shape))):
        pads += [0, n - gn]
    return _aten().constant_pad_nd(g, pads, 0)


def _counts(self: Any, dim: int, index: Any, include_self: bool) -> Any:
    base = self.new_ones(self.shape) if include_self else self.new_zeros(self.shape)
    cnt = base.scatter_add(dim, index, index.new_ones(index.shape).to(self.dtype))
    return cnt.clamp(min=1)


def _matches(self: Any, dim: int, index: Any, src: Any, result: Any, include_self: bool) -> Any:
    """Which inputs equal the amax/amin result, and how many tie for each output."""
    in_self = (self == result).to(result.dtype)
    if not include_self:
        hit = result.new_zeros(result.shape).scatter(dim, index, 1.0)
        in_self = in_self * (1 - hit)
    sub = src.narrow(dim, 0, index.shape[dim]) if src.shape != index.shape else src
    if src.shape != index.shape:
        for d in range(src.ndim):
            if d != dim and sub.shape[d] != index.shape[d]:
                sub = sub.narrow(d, 0, index.shape[d])
    in_src = (sub == result.gather(dim, index)).to(result.dtype)
    n = in_self.scatter_add(dim, index, in_src)
    return in_self, in_src, n, sub


def _scatter_self(grad: Any, dim: int, index: Any, src: Any, self: Any, result: Any,
                  reduce: str, include_self: bool) -> Any:  # fmt: skip
    if reduce == "none" or (reduce == "sum" and not include_self):
        return grad.scatter(dim, index, 0.0)
    if reduce == "sum":
        return grad
    if reduce == "mean":
        g = grad / _counts(self, dim, index, include_self)
        return g if include_self else g.scatter(dim, index, 0.0)
    if reduce in ("amax", "amin"):
        in_self, _, n, _ = _matches(self, dim, index, src, result, include_self)
        return grad * in_self / n.clamp(min=1)
    if reduce == "prod":
        g = grad * result / self
        return g if include_self else g.scatter(dim, index, 0.0)
    raise RuntimeError(f"scatter_reduce backward: unknown reduce {reduce!r}")


def _scatter_src(grad: Any, dim: int, index: Any, src: Any, self: Any, result: Any,
                 reduce: str, include_self: bool) -> Any:  # fmt: skip
    if reduce in ("none", "sum"):
        g = grad.gather(dim, index)
    elif reduce == "mean":
        g = (grad / _counts(self, dim, index, include_self)).gather(dim, index)
    elif reduce in ("amax", "amin"):
        _, in_src, n, _ = _matches(self, dim, index, src, result, include_self)
        g = (grad / n.clamp(min=1)).gather(dim, index) * in_src
    elif reduce == "prod":
        sub = _matches(self, dim, index, src, result, include_self)[3]
        g = (grad * result).gather(dim, index) / sub
    else:
        raise RuntimeError(f"scatter_reduce backward: unknown reduce {reduce!r}")
    return _embed(g, tuple(src.shape))


def _index_back(grad: Any, self_shape: Any, indices: Any) -> Any:
    return grad.new_zeros(self_shape).index_put(list(indices), grad, True)


def _sort_back(grad: Any, self_shape: Any, dim: int, result1: Any) -> Any:
    if not self_shape:
        return grad
    return grad.new_zeros(self_shape).scatter(dim, result1, grad)


def _not_implemented(name: str) -> Any:
    """A rule for an operator PyTorch does not differentiate either: its output requires
    grad (as PyTorch's does), and backward through it fails naming the operator."""

    def rule(grad: Any) -> Any:
        raise NotImplementedError(f"the derivative for '{name}' is not implemented.")

    return rule


FORMULAS: dict[str, Any] = {
    "aten::gather": (
        lambda grad, self_shape, dim, index: grad.new_zeros(self_shape).scatter_add(
            dim, index, grad
        ),
        None,
    ),
    "aten::scatter_reduce_.two": (
        _scatter_self,
        None,
        _scatter_src,
    ),
    "aten::index.Tensor": (_index_back,),
    "aten::index_put_": (
        lambda grad, indices, accumulate: (
            grad if accumulate else grad.index_put(list(indices), grad.new_zeros(()), False)
        ),
        lambda grad, indices: _aten().index.Tensor(grad, list(indices)),
    ),
    "aten::sort.stable": (_sort_back,),
    "aten::nonzero": None,
    "aten::histogram.bin_ct": (_not_implemented("histogram"), _not_implemented("histogram")),
    "aten::histogram.bins_tensor": (_not_implemented("histogram"), None, None),
}
