"""Default formulas for reductions, matrix products, views and copies.

Rules (Note [Formula parameters] in ``ember/autograd/kernel.py``):

* reductions put the reduced dims back (``expand_back``) and broadcast;
* ``matmul``/``mm``/``mv``/``dot`` are Composites whose decomposition builds raw
  broadcast views, so they get formulas of their own (in matmul itself, so double
  backward works); ``bmm`` is the primitive under them;
* views read only metadata (``self_shape``, geometries): a view never saves its
  input, so changing the input in place later does not invalidate the graph;
  strided views (select, slice, narrow, diagonal, as_strided, basic indexing) take
  the gradient back with ``restride``;
* composites without an entry (factories, ``rsub``, ``floor_divide``, ``zero_``)
  pass through and their inner operators record history.
"""

from __future__ import annotations

from typing import Any

from ember.autograd.formulas._helpers import count, expand_back, prod_backward, restride

__all__ = ["FORMULAS"]


def _amax_grad(grad: Any, self: Any, result: Any, dim: Any, keepdim: bool) -> Any:
    mask = self == expand_back(result, self.shape, dim, keepdim)
    n = expand_back(mask.sum(dim if dim else None, True), self.shape, dim, True)
    return expand_back(grad, self.shape, dim, keepdim) * mask / n


def _extreme_grad(grad: Any, self: Any, result: Any) -> Any:
    """``max()``/``min()``: the gradient shared evenly among the elements equal to the result
    (NaN ones when it is NaN), as PyTorch's ``MaxBackward1``."""
    mask = (self == result).logical_or(self.isnan().logical_and(result.isnan()))
    return grad * mask / mask.sum()


def _select_grad(grad: Any, self_shape: Any, dim: int, keepdim: bool, result1: Any) -> Any:
    """``max(dim)``/``min(dim)``: the whole gradient to the returned index (``MaxBackward0``)."""
    if not self_shape:
        return grad
    if not keepdim:
        grad, result1 = grad.unsqueeze(dim), result1.unsqueeze(dim)
    return grad.new_zeros(self_shape).scatter(dim, result1, grad)


def _mm_self(grad: Any, self: Any, other: Any) -> Any:
    if self.ndim == 1 and other.ndim == 1:
        return grad * other
    if other.ndim == 1:
        g = grad.unsqueeze(-1) * other
        return g if self.ndim > 1 else g.squeeze(-2)
    if self.ndim == 1:
        return (grad.unsqueeze(-2) @ other.mT).squeeze(-2)
    return grad @ other.mT


def _mm_other(grad: Any, self: Any, other: Any) -> Any:
    if self.ndim == 1 and other.ndim == 1:
        return grad * self
    if self.ndim == 1:
        g = self.unsqueeze(-1) * (grad if other.ndim == 1 else grad.unsqueeze(-2))
        return g if other.ndim > 1 else g.squeeze(-1)
    if other.ndim == 1:
        return (self.mT @ grad.unsqueeze(-1)).squeeze(-1)
    if other.ndim == 2:
        # One GEMM over every leading dim (not a batch of products summed afterwards), laid
        # out like ``other``: for ``x @ w.t()`` (nn.Linear) the gradient of ``w.t()`` comes
        # out transposed, so ``w``'s gradient is contiguous and the engine can hand it to
        # ``w.grad`` without a copy (Note [Stealing gradients]).
        k, n = other.shape
        s2 = self.reshape(-1, k) if self.ndim != 2 else self
        g2 = grad.reshape(-1, n) if grad.ndim != 2 else grad
        if other.stride() == (1, k) and k > 1 and n > 1:
            return (g2.mT @ s2).mT
        return s2.mT @ g2
    return self.mT @ grad


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _inverse(dims: Any) -> list[int]:
    n = len(dims)
    inv = [0] * n
    for i, d in enumerate(dims):
        inv[d % n if n else 0] = i
    return inv


def _strided(grad: Any, self_geometry: Any, result_geometry: Any) -> Any:
    g = restride(grad, result_geometry, self_geometry)
    # An expanded input (stride 0) shares each memory location among several logical
    # elements; restride gives every one of them the location's whole gradient, and
    # expand's own backward then sums the copies: keep only the first copy of each.
    shape, stride, _ = self_geometry
    for d, (n, st) in enumerate(zip(shape, stride)):
        if st == 0 and n > 1:
            first = [1] * len(shape)
            first[d] = n
            idx = _aten().arange.start_step(0, n, 1, device=g.device).reshape(first)
            g = _aten().where.self(idx == 0, g, g.new_zeros(()))
    return g


def _roll_back(grad: Any, shifts: Any, dims: Any) -> Any:
    back = -shifts if isinstance(shifts, int) else [-s for s in shifts]
    return grad.roll(back, dims)


def _cumsum_back(grad: Any, dim: int) -> Any:
    """The gradient of a cumulative sum: the reversed cumulative sum of the gradient."""
    if grad.ndim == 0:
        return grad
    return grad.flip(dim).cumsum(dim).flip(dim)


def _repeat_back(grad: Any, self_shape: Any, repeats: Any) -> Any:
    """Sum the tiles of ``repeat``: view the gradient as (r0, s0, r1, s1, ...), sum the r's."""
    reps = [int(r) for r in repeats]
    shape = (1,) * (len(reps) - len(self_shape)) + tuple(self_shape)
    split = [n for pair in zip(reps, shape) for n in pair]
    g = grad.reshape(split).sum(tuple(range(0, 2 * len(reps), 2))) if reps else grad
    return g.reshape(tuple(self_shape))


def _zeros(grad: Any) -> Any:
    return grad.new_zeros(grad.shape)


def _zeros_to(arg: str) -> Any:
    """Zeros shaped like argument ``arg`` (the output broadcasts mean and std)."""

    def rule(grad: Any, **shapes: Any) -> Any:
        return grad.new_zeros(shapes[f"{arg}_shape"])

    rule.__signature__ = _signature(arg)  # type: ignore[attr-defined]
    return rule


def _signature(arg: str) -> Any:
    import inspect

    kind = inspect.Parameter.POSITIONAL_OR_KEYWORD
    return inspect.Signature(
        [inspect.Parameter("grad", kind), inspect.Parameter(f"{arg}_shape", kind)]
    )


_RESHAPE = (lambda grad, self_shape: grad.reshape(self_shape),)
_STRIDED = (_strided,)
_SAME = (lambda grad: grad,)

FORMULAS: dict[str, Any] = {
    # -- reductions ----------------------------------------------------------------------------
    "aten::sum.dim_IntList": (
        lambda grad, self_shape, dim, keepdim: expand_back(grad, self_shape, dim, keepdim),
    ),
    "aten::mean.dim": (
        lambda grad, self_shape, dim, keepdim: expand_back(grad, self_shape, dim, keepdim).div(
            max(count(self_shape, dim), 1)
        ),
    ),
    "aten::prod.dim_IntList": (prod_backward,),  # exact zeros included
    "aten::amax": (_amax_grad,),
    "aten::amin": (_amax_grad,),
    "aten::max": (_extreme_grad,),
    "aten::min": (_extreme_grad,),
    "aten::_median_share": (_extreme_grad, None),  # median(): shared by the ties
    "aten::max.dim": (_select_grad,),
    "aten::min.dim": (_select_grad,),
    "aten::argmax": None,
    "aten::argmin": None,
    "aten::all.dims": None,
    "aten::any.dims": None,
    # -- matrix products -----------------------------------------------------------------------
    "aten::bmm": (
        lambda grad, mat2: grad.bmm(mat2.transpose(1, 2)),
        lambda grad, self: self.transpose(1, 2).bmm(grad),
    ),
    "aten::matmul": (_mm_self, _mm_other),
    "aten::mm": (lambda grad, mat2: grad @ mat2.t(), lambda grad, self: self.t() @ grad),
    "aten::mv": (lambda grad, vec: grad.unsqueeze(-1) * vec, lambda grad, self: self.t() @ grad),
    "aten::dot": (lambda grad, tensor: grad * tensor, lambda grad, self: grad * self),
    # -- views ---------------------------------------------------------------------------------
    "aten::view": _RESHAPE,
    "aten::reshape": _RESHAPE,
    "aten::squeeze": _RESHAPE,
    "aten::squeeze.dim": _RESHAPE,
    "aten::squeeze.dims": _RESHAPE,
    "aten::unsqueeze": _RESHAPE,
    "aten::flatten.using_ints": _RESHAPE,
    "aten::unflatten.int": _RESHAPE,
    "aten::alias": _SAME,
    "aten::expand": _SAME,  # the engine sums the gradient back to the input's shape
    "aten::permute": (lambda grad, dims: grad.permute(_inverse(dims)),),
    "aten::transpose.int": (lambda grad, dim0, dim1: grad.transpose(dim0, dim1),),
    "aten::t": (lambda grad: grad.t(),),
    "aten::as_strided": _STRIDED,
    "aten::narrow": _STRIDED,
    "aten::select.int": _STRIDED,
    "aten::slice.Tensor": _STRIDED,
    "aten::diagonal": _STRIDED,
    # composites that would record a node per step (an index per dim, a cat per shift)
    "aten::flip": (lambda grad, dims: grad.flip(dims),),
    "aten::roll": (_roll_back,),
    "aten::tril": (lambda grad, diagonal: grad.tril(diagonal),),
    "aten::triu": (lambda grad, diagonal: grad.triu(diagonal),),
    "aten::cumsum": (_cumsum_back,),
    "aten::repeat": (_repeat_back,),
    "aten::view.dtype": None,
    "aten::detach": None,
    # -- sampling: PyTorch's normal() is not reparameterised: zero gradients ----------------
    "aten::normal.Tensor_float": (_zeros,),
    "aten::normal.float_Tensor": (_zeros,),
    "aten::normal.Tensor_Tensor": (_zeros_to("mean"), _zeros_to("std")),
    # -- copies (the engine casts the gradient back to the input's dtype and device) -----------
    "aten::clone": _SAME,
    "aten::contiguous": _SAME,
    "aten::_to_copy": _SAME,
}
