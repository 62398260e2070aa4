"""Python forms of the shape, indexing, linear-algebra and sampling operators.

PyTorch's Python binding accepts varargs (``meshgrid(a, b)``), picks an overload from
the arguments (``normal(mean, std)`` vs ``normal(0., 1., size)``), and returns a
subset of an operator's outputs (``nonzero(as_tuple=True)``, ``unique_consecutive``).
These wrappers do that and call exactly one operator each. ``FUNCTIONS`` become
``ember.<name>`` and ``METHODS`` become ``Tensor.<name>`` (bound by
``registration.load``, after the schema's own entry points, which they replace).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from ember.core.tensor import Tensor, _shape_args
from ember.dispatcher.namespace import ops
from ember.operators import inplace

__all__ = ["FUNCTIONS", "METHODS"]


def _tensors(args: tuple[Any, ...]) -> list[Any]:
    """``f(a, b)`` and ``f([a, b])`` (or a tuple) as one list."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return list(args[0])
    return list(args)


# -- varargs and overload selection ---------------------------------------------------------------
def meshgrid(*tensors: Any, indexing: str | None = None) -> tuple[Tensor, ...]:
    """Coordinate grids of 1-D tensors: ``indexing='ij'`` (matrix, the default) or ``'xy'``.

    Examples:
        >>> import ember
        >>> ys, xs = ember.meshgrid(ember.arange(2), ember.arange(3), indexing="ij")
        >>> ys.tolist(), xs.tolist()
        ([[0, 0, 0], [1, 1, 1]], [[0, 1, 2], [0, 1, 2]])
    """
    return tuple(ops.aten.meshgrid.indexing(_tensors(tensors), indexing=indexing or "ij"))


def _atleast(name: str) -> Callable[..., Any]:
    def fn(*tensors: Any) -> Any:
        op = getattr(ops.aten, name).default
        if len(tensors) == 1 and isinstance(tensors[0], Tensor):
            return op(tensors[0])
        return tuple(op(t) for t in _tensors(tensors))

    fn.__name__ = name
    fn.__doc__ = f"``{name}(x)`` or ``{name}(x, y, ...)``: views with at least that many dims."
    return fn


def block_diag(*tensors: Tensor) -> Tensor:
    """A block-diagonal matrix of the (at most 2-D) inputs, promoted to one dtype.

    Examples:
        >>> import ember
        >>> ember.block_diag(ember.tensor([[1, 2]]), ember.tensor([3])).tolist()
        [[1, 2, 0], [0, 0, 3]]
    """
    if not tensors:
        return ops.aten.zeros.default((1, 0))  # type: ignore[no-any-return]
    return ops.aten.block_diag.default(list(tensors))  # type: ignore[no-any-return]


def cartesian_prod(*tensors: Tensor) -> Tensor:
    return ops.aten.cartesian_prod.default(list(tensors))  # type: ignore[no-any-return]


def chain_matmul(*matrices: Tensor) -> Tensor:
    return ops.aten.chain_matmul.default(_tensors(matrices))  # type: ignore[no-any-return]


def tensordot(a: Tensor, b: Tensor, dims: Any = 2) -> Tensor:
    """Contract ``dims`` (an int: the last of ``a`` with the first of ``b``; or two lists).

    Examples:
        >>> import ember
        >>> a = ember.arange(6.).reshape(2, 3)
        >>> ember.tensordot(a, a, dims=([1], [1])).tolist()
        [[5.0, 14.0], [14.0, 50.0]]
    """
    from ember.operators.linalg_products import tensordot_dims

    da, db = tensordot_dims(a, b, dims)
    return ops.aten.tensordot.default(a, b, da, db)  # type: ignore[no-any-return]


def repeat_interleave(input: Tensor, repeats: Any = None, dim: int | None = None, *,
                      output_size: int | None = None) -> Tensor:  # fmt: skip
    """Repeat each element (or slice along ``dim``) ``repeats`` times, or with one tensor
    argument, each index ``i`` ``input[i]`` times.

    Examples:
        >>> import ember
        >>> ember.repeat_interleave(ember.tensor([1, 2]), 2).tolist()
        [1, 1, 2, 2]
        >>> ember.repeat_interleave(ember.tensor([2, 1])).tolist()
        [0, 0, 1]
    """
    if repeats is None:
        return ops.aten.repeat_interleave.Tensor(input, output_size=output_size)  # type: ignore[no-any-return]
    return ops.aten.repeat_interleave.self_Tensor(  # type: ignore[no-any-return]
        input, repeats, dim, output_size=output_size
    )


def _tensor_repeat_interleave(self: Tensor, repeats: Any, dim: int | None = None, *,
                              output_size: int | None = None) -> Tensor:  # fmt: skip
    return repeat_interleave(self, repeats, dim, output_size=output_size)


def _integral(name: str, y: Tensor, x: Any, dx: Any, dim: int) -> Tensor:
    if x is not None and dx is not None:
        raise TypeError(f"{name}() received an invalid combination of arguments: x and dx")
    if isinstance(x, Tensor):
        return getattr(ops.aten, name).x(y, x, dim=dim)  # type: ignore[no-any-return]
    if x is not None:  # trapz(y, dx) as a positional number
        dx = x
    return getattr(ops.aten, name).dx(y, dx=1 if dx is None else dx, dim=dim)  # type: ignore[no-any-return]


def trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    """The trapezoidal rule along ``dim``, with sample points ``x`` or spacing ``dx``.

    Examples:
        >>> import ember
        >>> ember.trapezoid(ember.tensor([1.0, 2.0, 4.0]))
        tensor(4.5000)
    """
    return _integral("trapezoid", y, x, dx, dim)


def cumulative_trapezoid(y: Tensor, x: Any = None, *, dx: Any = None, dim: int = -1) -> Tensor:
    return _integral("cumulative_trapezoid", y, x, dx, dim)


def normal(mean: Any, std: Any = 1.0, size: Any = None, *, generator: Any = None,
           **kw: Any) -> Tensor:  # fmt: skip
    """Samples of N(mean, std^2): tensor means and/or stds (broadcast), or a ``size``.

    Examples:
        >>> import ember
        >>> ember.normal(0.0, 1.0, (2, 3)).shape
        ember.Size([2, 3])
        >>> ember.normal(ember.zeros(4), 0.0).tolist()
        [0.0, 0.0, 0.0, 0.0]
    """
    aten = ops.aten
    requires_grad = kw.pop("requires_grad", False)
    if isinstance(mean, Tensor) and isinstance(std, Tensor):
        out = aten.normal.Tensor_Tensor(mean, std, generator=generator)
    elif isinstance(mean, Tensor):
        out = aten.normal.Tensor_float(mean, float(std), generator=generator)
    elif isinstance(std, Tensor):
        out = aten.normal.float_Tensor(float(mean), std, generator=generator)
    else:
        if size is None:
            raise TypeError("normal() missing required argument 'size' for float mean and std")
        out = aten.normal.float_float(
            float(mean), float(std), _shape_args((size,)), generator=generator, **kw
        )
    return out.requires_grad_(True) if requires_grad else out  # type: ignore[no-any-return]


def randint_like(input: Tensor, low: int = 0, high: Any = None, **kw: Any) -> Tensor:
    """Integers in ``[low, high)`` shaped like ``input``: ``randint_like(x, high)`` or
    ``randint_like(x, low, high)``."""
    requires_grad = kw.pop("requires_grad", False)
    if high is None:
        low, high = 0, low
    out = ops.aten.randint_like.low_generator_dtype(input, low, high, **kw)
    return out.requires_grad_(True) if requires_grad else out  # type: ignore[no-any-return]


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, **kw: Any) -> Tensor:
    """``base ** linspace(start, end, steps)``.

    Examples:
        >>> import ember
        >>> ember.logspace(0, 2, 3).tolist()
        [1.0, 10.0, 100.0]
    """
    requires_grad = kw.pop("requires_grad", False)
    out = ops.aten.logspace.default(start, end, steps, base, **kw)
    return out.requires_grad_(True) if requires_grad else out  # type: ignore[no-any-return]


def bucketize(input: Any, boundaries: Tensor, *, out_int32: bool = False, right: bool = False
              ) -> Tensor:  # fmt: skip
    """The index of the bucket of ``boundaries`` each value falls in.

    Examples:
        >>> import ember
        >>> ember.bucketize(ember.tensor([0.5, 3.0, 9.0]), ember.tensor([1.0, 3.0, 5.0])).tolist()
        [0, 1, 3]
    """
    overload = ops.aten.bucketize.Tensor if isinstance(input, Tensor) else ops.aten.bucketize.Scalar
    return overload(input, boundaries, out_int32=out_int32, right=right)  # type: ignore[no-any-return]


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None) -> Any:  # fmt: skip
    """The first element of each run of equal consecutive elements (or slices along ``dim``).

    Examples:
        >>> import ember
        >>> ember.unique_consecutive(ember.tensor([1, 1, 2, 1]), return_counts=True)
        (tensor([1, 2, 1]), tensor([2, 1, 1]))
    """
    out = ops.aten.unique_consecutive.default(input, return_inverse, return_counts, dim)
    res = [out[0]]
    if return_inverse:
        res.append(out[1])
    if return_counts:
        res.append(out[2])
    return res[0] if len(res) == 1 else tuple(res)


def tensor_split(input: Tensor, indices_or_sections: Any = None, dim: int = 0, *,
                 sections: Any = None, indices: Any = None,
                 tensor_indices_or_sections: Any = None) -> tuple[Tensor, ...]:  # fmt: skip
    """Views of ``input`` split into ``sections`` near-equal parts or at ``indices``.

    Examples:
        >>> import ember
        >>> [t.tolist() for t in ember.tensor_split(ember.arange(5), 2)]
        [[0, 1, 2], [3, 4]]
    """
    ios = next(
        (v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections)
         if v is not None),
        None,
    )  # fmt: skip
    if ios is None:
        raise TypeError("tensor_split() missing required argument 'indices_or_sections'")
    return tuple(ops.aten.tensor_split.indices(input, ios, dim))


def concatenate(tensors: Any, axis: int = 0, *, dim: int | None = None) -> Tensor:
    return ops.aten.cat.default(list(tensors), axis if dim is None else dim)  # type: ignore[no-any-return]


def cat(tensors: Any, dim: int = 0, *, axis: int | None = None) -> Tensor:
    """Join tensors along an existing dim (``axis`` is numpy's name for it).

    Examples:
        >>> import ember
        >>> ember.cat([ember.zeros(1, 2), ember.ones(1, 2)], axis=0).tolist()
        [[0.0, 0.0], [1.0, 1.0]]
    """
    return ops.aten.cat.default(tensors, dim if axis is None else axis)  # type: ignore[no-any-return]


def split(tensor: Tensor, split_size_or_sections: Any, dim: int = 0) -> tuple[Tensor, ...]:
    """Views of ``tensor`` in chunks of ``split_size_or_sections`` (an int, or a list of
    sizes) along ``dim``.

    Examples:
        >>> import ember
        >>> [t.tolist() for t in ember.split(ember.arange(5), [2, 3])]
        [[0, 1], [2, 3, 4]]
    """
    if isinstance(split_size_or_sections, (list, tuple)):
        return tuple(ops.aten.split_with_sizes.default(tensor, split_size_or_sections, dim))
    return tuple(ops.aten.split.Tensor(tensor, split_size_or_sections, dim))


def cdist(x1: Tensor, x2: Tensor, p: float = 2.0,
          compute_mode: str = "use_mm_for_euclid_dist_if_necessary") -> Tensor:  # fmt: skip
    """The p-norm distance between each pair of rows of ``x1`` and ``x2`` (batched).

    Examples:
        >>> import ember
        >>> ember.cdist(ember.tensor([[0.0, 0.0]]), ember.tensor([[3.0, 4.0], [1.0, 0.0]]))
        tensor([[5., 1.]])
    """
    modes = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
             "donot_use_mm_for_euclid_dist")  # fmt: skip
    if compute_mode not in modes:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    return ops.aten.cdist.default(x1, x2, p, compute_mode)  # type: ignore[no-any-return]


def einsum_sublist_equation(args: tuple[Any, ...]) -> tuple[str, tuple[Tensor, ...]]:
    """``(a, [0, 1], b, [1, 2], [0, 2])`` -> ``("ab,bc->ac", (a, b))`` (Ellipsis allowed)."""
    import string

    letters = string.ascii_letters

    def sub(lst: Any) -> str:
        out = []
        for s in lst:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, int) and 0 <= s < len(letters):
                out.append(letters[s])
            else:
                raise ValueError(f"einsum(): subscript in subscript list is not within the valid "
                                 f"range [0, 52), got {s}")  # fmt: skip
        return "".join(out)

    tensors = args[0::2][: len(args) // 2]
    lhs = ",".join(sub(lst) for lst in args[1::2][: len(tensors)])
    eq = lhs + ("->" + sub(args[-1]) if len(args) % 2 else "")
    return eq, tuple(tensors)


class HistogramResult(NamedTuple):
    """``(hist, bin_edges)``, as ``torch.return_types.histogram``."""

    hist: Tensor
    bin_edges: Tensor


def histogram(input: Tensor, bins: Any = 100, *, range: Any = None,  # noqa: A002
              weight: Tensor | None = None, density: bool = False) -> HistogramResult:  # fmt: skip
    """Counts (or ``weight`` sums, or a density) of ``input`` over ``bins`` equal bins of
    ``range``, or over explicit increasing bin edges.

    Examples:
        >>> import ember
        >>> ember.histogram(ember.tensor([1.0, 2.0, 1.0]), bins=4, range=(0.0, 3.0)).hist
        tensor([0., 2., 1., 0.])
    """
    if isinstance(bins, Tensor):
        out = ops.aten.histogram.bins_tensor(input, bins, weight=weight, density=density)
    else:
        rng = None if range is None else [float(r) for r in range]
        out = ops.aten.histogram.bin_ct(input, bins, range=rng, weight=weight, density=density)
    return HistogramResult(*out)


def isin(elements: Any, test_elements: Any, *, assume_unique: bool = False,
         invert: bool = False) -> Tensor:  # fmt: skip
    """Whether each of ``elements`` occurs in ``test_elements`` (either may be a scalar).

    Examples:
        >>> import ember
        >>> ember.isin(ember.tensor([1, 2, 3]), ember.tensor([3, 1])).tolist()
        [True, False, True]
    """
    if not isinstance(elements, Tensor):
        overload = ops.aten.isin.Scalar_Tensor
    elif not isinstance(test_elements, Tensor):
        overload = ops.aten.isin.Tensor_Scalar
    else:
        overload = ops.aten.isin.Tensor_Tensor
    return overload(elements, test_elements, assume_unique=assume_unique, invert=invert)  # type: ignore[no-any-return]


def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor."""
    n = input.numel()
    if n != 1:
        which = "no values" if n == 0 else "more than one value"
        raise RuntimeError(f"Boolean value of Tensor with {which} is ambiguous")
    return bool(input.reshape(()).item())


def is_same_size(input: Tensor, other: Tensor) -> bool:
    return tuple(input.shape) == tuple(other.shape)


def is_floating_point(input: Tensor) -> bool:
    return input.dtype.is_floating_point  # type: ignore[no-any-return]


def is_complex(input: Tensor) -> bool:
    return False  # ember has no complex dtypes


def can_cast(from_: Any, to: Any) -> bool:
    """Whether PyTorch's casting rules allow ``from_`` to become ``to`` (never down a
    category: float to integral, or anything but bool to bool).

    Examples:
        >>> import ember
        >>> ember.can_cast(ember.int32, ember.float16), ember.can_cast(ember.float32, ember.int64)
        (True, False)
    """
    from ember.core import dtype as dt

    rank = {dt.BOOL: 0, dt.INT: 1, dt.FLOAT: 2}
    return rank[from_.category] <= rank[to.category]


# -- masks, nonzero and where ---------------------------------------------------------------------
def nonzero(input: Tensor, *, as_tuple: bool = False) -> Any:
    """Indices of the nonzero elements: an (n, ndim) tensor, or one 1-D tensor per dim.

    Examples:
        >>> import ember
        >>> ember.nonzero(ember.tensor([[0, 1], [2, 0]])).tolist()
        [[0, 1], [1, 0]]
        >>> ember.nonzero(ember.tensor([0, 3, 4]), as_tuple=True)
        (tensor([1, 2]),)
    """
    idx = ops.aten.nonzero.default(input)
    if not as_tuple:
        return idx
    if input.ndim == 0:  # a 0-dim input counts as one element at position 0
        return (ops.aten.zeros.default((idx.shape[0],), dtype=idx.dtype, device=idx.device),)
    return tuple(idx.select(1, j) for j in range(input.ndim))


def where(condition: Tensor, input: Any = None, other: Any = None) -> Any:
    """``input`` where ``condition`` holds, else ``other``; ``where(condition)`` is
    ``nonzero(condition, as_tuple=True)``."""
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() takes 1 or 3 arguments (condition, input, other)")
    return ops.aten.where.self(condition, input, other)


def _tensor_where(self: Tensor, condition: Tensor, y: Any) -> Tensor:
    return ops.aten.where.self(condition, self, y)  # type: ignore[no-any-return]


def count_nonzero(input: Tensor, dim: Any = None) -> Tensor:
    dims = () if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    return ops.aten.count_nonzero.dim_IntList(input, dims)  # type: ignore[no-any-return]


_REDUCE = {"add": "sum", "multiply": "prod"}


def _scatter(inplace: bool) -> Callable[..., Tensor]:
    def scatter(input: Tensor, dim: int, index: Tensor, src: Any = None, value: Any = None, *,
                reduce: str | None = None) -> Tensor:  # fmt: skip
        s = src if src is not None else value
        if s is None:
            raise TypeError("scatter() missing required argument 'src' or 'value'")
        target = input if inplace else input.clone()
        if reduce is None:
            return ops.aten.scatter_.src(target, dim, index, s)  # type: ignore[no-any-return]
        if reduce not in _REDUCE:
            raise RuntimeError(f"reduce argument must be either add or multiply. Got {reduce}")
        if not isinstance(s, Tensor):
            from ember.operators.indexing import _scalar_src

            s = _scalar_src(target, index, s)
        return ops.aten.scatter_reduce_.two(target, dim, index, s, _REDUCE[reduce])  # type: ignore[no-any-return]

    return scatter


def _tuple_of(overload: str) -> Callable[..., tuple[Tensor, ...]]:
    """The operator's list of views as a tuple, as PyTorch returns it."""
    name, _, ov = overload.partition(".")

    def fn(*args: Any, **kwargs: Any) -> tuple[Tensor, ...]:
        return tuple(getattr(getattr(ops.aten, name), ov or "default")(*args, **kwargs))

    fn.__name__ = name
    fn.__doc__ = f"``{name}``: a tuple of views (see the ``{overload}`` operator)."
    return fn


def _tensor_split_method(self: Tensor, split_size: Any, dim: int = 0) -> tuple[Tensor, ...]:
    return split(self, split_size, dim)


_TUPLES = {
    "chunk": "chunk",
    "unbind": "unbind.int",
    "hsplit": "hsplit.array",
    "vsplit": "vsplit.array",
    "dsplit": "dsplit.array",
    "split_with_sizes": "split_with_sizes",
    "unsafe_split": "unsafe_split.Tensor",
    "unsafe_chunk": "unsafe_chunk",
    "unbind_copy": "unbind_copy.int",
}


# -- methods with varargs --------------------------------------------------------------------------
def _resize_(self: Tensor, *size: Any, memory_format: Any = None) -> Tensor:
    return ops.aten.resize_.default(self, _shape_args(size))  # type: ignore[no-any-return]


def _broadcast_to(self: Tensor, *size: Any) -> Tensor:
    return ops.aten.broadcast_to.default(self, _shape_args(size))  # type: ignore[no-any-return]


def _tensor_split(self: Tensor, indices_or_sections: Any = None, dim: int = 0,
                  **kw: Any) -> tuple[Tensor, ...]:  # fmt: skip
    return tensor_split(self, indices_or_sections, dim, **kw)


def _tensor_nonzero(self: Tensor, *, as_tuple: bool = False) -> Any:
    return nonzero(self, as_tuple=as_tuple)


def _unique_consecutive(self: Tensor, return_inverse: bool = False, return_counts: bool = False,
                        dim: int | None = None) -> Any:  # fmt: skip
    return unique_consecutive(self, return_inverse, return_counts, dim)


def _movedim(input: Tensor, source: Any, destination: Any) -> Tensor:
    return ops.aten.movedim.intlist(input, source, destination)  # type: ignore[no-any-return]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    **{name: _tuple_of(overload) for name, overload in _TUPLES.items()},
    "meshgrid": meshgrid,
    "atleast_1d": _atleast("atleast_1d"),
    "atleast_2d": _atleast("atleast_2d"),
    "atleast_3d": _atleast("atleast_3d"),
    "block_diag": block_diag,
    "cartesian_prod": cartesian_prod,
    "chain_matmul": chain_matmul,
    "tensordot": tensordot,
    "repeat_interleave": repeat_interleave,
    "trapezoid": trapezoid,
    "trapz": trapezoid,
    "cumulative_trapezoid": cumulative_trapezoid,
    "normal": normal,
    "randint_like": randint_like,
    "logspace": logspace,
    "bucketize": bucketize,
    "unique_consecutive": unique_consecutive,
    "tensor_split": tensor_split,
    "concatenate": concatenate,
    "cat": cat,
    "split": split,
    "histogram": histogram,
    "isin": isin,
    "is_nonzero": is_nonzero,
    "is_same_size": is_same_size,
    "is_floating_point": is_floating_point,
    "is_complex": is_complex,
    "can_cast": can_cast,
    "cdist": cdist,
    "nonzero": nonzero,
    "where": where,
    "count_nonzero": count_nonzero,
    "scatter": _scatter(False),
    "movedim": _movedim,
    "moveaxis": _movedim,
}

METHODS: dict[str, Callable[..., Any]] = {
    **{name: _tuple_of(overload) for name, overload in _TUPLES.items()},
    "split": _tensor_split_method,
    "histogram": histogram,
    "isin": isin,
    "is_nonzero": is_nonzero,
    "is_same_size": is_same_size,
    **inplace.METHODS,
    "repeat_interleave": _tensor_repeat_interleave,
    "resize_": _resize_,
    "broadcast_to": _broadcast_to,
    "tensor_split": _tensor_split,
    "nonzero": _tensor_nonzero,
    "where": _tensor_where,
    "count_nonzero": count_nonzero,
    "scatter": _scatter(False),
    "scatter_": _scatter(True),
    "unique_consecutive": _unique_consecutive,
    "movedim": _movedim,
    "moveaxis": _movedim,
}
