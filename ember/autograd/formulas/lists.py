"""Default formulas for the operators over lists of tensors: cat, stack, split, chunk, unbind.

Each gradient is one data movement, linear in the size of the tensors: ``cat``'s is a
split of the incoming gradient into views, ``stack``'s an ``unbind``, and the
gradient of ``split``/``chunk``/``unbind`` is one ``cat``/``stack`` of the pieces'
gradients (zeros where a piece got none). A recurrent model that stacks or unbinds T
steps therefore does O(T) work in backward, where per-piece view formulas would do
O(T^2). ``cat``/``stack`` read a ``Tensor[]``: the rule returns one gradient per
element. The others return a ``Tensor[]`` of views: their rule receives the list of
the outputs' gradients (Note [Formula parameters] in ``ember/autograd/kernel.py``).
"""

from __future__ import annotations

from typing import Any

from ember.autograd.formulas._helpers import aten

__all__ = ["FORMULAS"]


def _wrap(dim: int, ndim: int) -> int:
    return dim + ndim if dim < 0 else dim


def _skipped(shape: tuple[int, ...]) -> bool:
    """``cat`` ignores 1-D empty tensors whatever the other shapes are (PyTorch's legacy)."""
    return len(shape) == 1 and shape[0] == 0


def _cat_back(grad: Any, tensors_shape: Any, dim: int) -> list[Any]:
    shapes = [tuple(s) for s in tensors_shape]
    kept = [s for s in shapes if not _skipped(s)]
    if not kept:
        return [grad.new_zeros(s) for s in shapes]
    d = _wrap(dim, len(kept[0]))
    pieces = iter(grad.split_with_sizes([s[d] for s in kept], d))
    return [grad.new_zeros(s) if _skipped(s) else next(pieces) for s in shapes]


def _stack_back(grad: Any, dim: int) -> list[Any]:
    return list(grad.unbind(_wrap(dim, grad.ndim)))


def _join(grads: list[Any], self_shape: tuple[int, ...], sizes: list[int], dim: int) -> Any:
    """One ``cat`` of the pieces' gradients along ``dim`` (zeros for the missing ones)."""
    d = _wrap(dim, len(self_shape))
    ref = next(g for g in grads if g is not None)
    parts = []
    for g, n in zip(grads, sizes):
        if g is None:
            shape = self_shape[:d] + (n,) + self_shape[d + 1 :]
            g = aten().zeros.default(shape, dtype=ref.dtype, device=ref.device)
        parts.append(g)
    return aten().cat.default(parts, d)


def _split_sizes(size: int, split_size: int, count: int) -> list[int]:
    return [max(0, min(split_size, size - i * split_size)) for i in range(count)]


def _split_back(grads: list[Any], self_shape: Any, split_size: Any, dim: int) -> Any:
    if isinstance(split_size, (list, tuple)):  # ``x.split([2, 3])`` reaches split.Tensor too
        return _join(grads, tuple(self_shape), list(split_size), dim)
    n = self_shape[_wrap(dim, len(self_shape))]
    return _join(grads, tuple(self_shape), _split_sizes(n, split_size, len(grads)), dim)


def _chunk_back(grads: list[Any], self_shape: Any, chunks: int, dim: int) -> Any:
    n = self_shape[_wrap(dim, len(self_shape))]
    step = -(-n // chunks)
    return _join(grads, tuple(self_shape), _split_sizes(n, step, len(grads)), dim)


def _unbind_back(grads: list[Any], self_shape: Any, dim: int) -> Any:
    d = _wrap(dim, len(self_shape))
    ref = next(g for g in grads if g is not None)
    piece = tuple(self_shape[:d]) + tuple(self_shape[d + 1 :])
    parts = [
        g if g is not None else aten().zeros.default(piece, dtype=ref.dtype, device=ref.device)
        for g in grads
    ]
    return aten().stack.default(parts, d)


FORMULAS: dict[str, Any] = {
    "aten::cat": (_cat_back,),
    "aten::stack": (_stack_back,),
    "aten::split.Tensor": (_split_back,),
    "aten::split_with_sizes": (
        lambda grads, self_shape, split_sizes, dim: _join(
            grads, tuple(self_shape), list(split_sizes), dim
        ),
    ),
    "aten::chunk": (_chunk_back,),
    "aten::unbind.int": (_unbind_back,),
}
