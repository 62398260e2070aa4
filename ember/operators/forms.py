"""The ``ember.*`` functions whose Python forms differ from one schema.

PyTorch's Python binding accepts ``zeros(2, 3)`` as well as ``zeros((2, 3))``,
picks ``sum``'s overload from its arguments, and so on. These small wrappers do
that and call exactly one operator; everything else in ``ember.*`` is an
operator's entry point itself (``api: [function]`` in ops.yaml).
"""

from __future__ import annotations

from typing import Any

from ember.core import dtype as dt
from ember.core import providers
from ember.core.tensor import Size, Tensor, _dims, _shape_args, factory_requires_grad
from ember.dispatcher.namespace import ops
from ember.operators.drivers import broadcast_shapes as _bshapes
from ember.operators.drivers import result_type as _result_type
from ember.operators.matmul import max, min  # noqa: F401 - re-exported

__all__ = [
    "zeros",
    "ones",
    "empty",
    "full",
    "rand",
    "randn",
    "randint",
    "arange",
    "eye",
    "sum",
    "mean",
    "prod",
    "amax",
    "amin",
    "all",
    "any",
    "max",
    "min",
    "div",
    "result_type",
    "broadcast_shapes",
    "broadcast_tensors",
    "transpose",
    "is_tensor",
    "numel",
    "squeeze",
    "unique",
    "einsum",
    "sort",
    "argsort",
    "median",
    "bernoulli",
]


def _size_keyword(name: str, size: tuple[Any, ...], kw: dict[str, Any]) -> tuple[Any, ...]:
    """``zeros(size=(2, 3))`` as PyTorch accepts it: the keyword form of the varargs size."""
    if "size" not in kw:
        return size
    if size:
        raise TypeError(f"{name}() got multiple values for argument 'size'")
    return (kw.pop("size"),)


def _factory(name: str, size: tuple[Any, ...], kw: dict[str, Any]) -> Tensor:
    size = _size_keyword(name, size, kw)
    requires_grad = kw.pop("requires_grad", False)
    t = getattr(ops.aten, name).default(_shape_args(size), **kw)
    return factory_requires_grad(t, requires_grad)


def zeros(*size: Any, **kw: Any) -> Tensor:
    """A tensor of zeros: ``zeros(2, 3)``, ``zeros((2, 3), dtype=ember.int32, device="cpu")``."""
    return _factory("zeros", size, kw)


def ones(*size: Any, **kw: Any) -> Tensor:
    """A tensor of ones."""
    return _factory("ones", size, kw)


def empty(*size: Any, **kw: Any) -> Tensor:
    """An uninitialised tensor."""
    size = _size_keyword("empty", size, kw)
    requires_grad = kw.pop("requires_grad", False)
    t = ops.aten.empty.memory_format(_shape_args(size), **kw)
    return factory_requires_grad(t, requires_grad)


def full(size: Any, fill_value: Any, **kw: Any) -> Tensor:
    requires_grad = kw.pop("requires_grad", False)
    t = ops.aten.full.default(_shape_args((size,)), fill_value, **kw)
    return factory_requires_grad(t, requires_grad)


def rand(*size: Any, **kw: Any) -> Tensor:
    """Uniform samples on [0, 1)."""
    return _factory("rand", size, kw)


def randn(*size: Any, **kw: Any) -> Tensor:
    """Standard normal samples."""
    return _factory("randn", size, kw)


def randint(low: int, high: Any = None, size: Any = None, **kw: Any) -> Tensor:
    """``randint(high, size)`` or ``randint(low, high, size)``: integers in [low, high)."""
    if size is None:
        low, high, size = 0, low, high
    elif high is None:  # randint(high, size=...)
        low, high = 0, low
    if size is None:
        raise TypeError("randint() missing required argument 'size'")
    return ops.aten.randint.low(low, high, _shape_args((size,)), **kw)


def arange(start: Any, end: Any = None, step: Any = 1, **kw: Any) -> Tensor:
    """``arange(end)``, ``arange(start, end, step)``.

    Examples:
        >>> import ember
        >>> ember.arange(5)
        tensor([0, 1, 2, 3, 4])
        >>> ember.arange(1, 2, 0.25)
        tensor([1.0000, 1.2500, 1.5000, 1.7500])
    """
    if end is None:
        start, end = 0, start
    requires_grad = kw.pop("requires_grad", False)
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    t = ops.aten.arange.start_step(*vals, **kw)
    return factory_requires_grad(t, requires_grad)


def eye(n: int, m: Any = None, **kw: Any) -> Tensor:
    return ops.aten.eye.default(n, m, **kw)


def sum(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:  # noqa: A001
    """Sum over ``dim`` (all dims if None)."""
    return ops.aten.sum.dim_IntList(input, _dims(dim), keepdim, dtype=dtype)


def mean(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    return ops.aten.mean.dim(input, _dims(dim), keepdim, dtype=dtype)


def prod(input: Tensor, dim: Any = None, keepdim: bool = False, *, dtype: Any = None) -> Tensor:
    return ops.aten.prod.dim_IntList(input, _dims(dim), keepdim, dtype=dtype)


def amax(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return ops.aten.amax.default(input, _dims(dim) or (), keepdim)


def amin(input: Tensor, dim: Any = (), keepdim: bool = False) -> Tensor:
    return ops.aten.amin.default(input, _dims(dim) or (), keepdim)


def all(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return ops.aten.all.dims(input, _dims(dim), keepdim)


def any(input: Tensor, dim: Any = None, keepdim: bool = False) -> Tensor:  # noqa: A001
    return ops.aten.any.dims(input, _dims(dim), keepdim)


def div(input: Any, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    """True division, or ``rounding_mode="floor"``/``"trunc"``."""
    if rounding_mode is None:
        return ops.aten.div.Tensor(input, other)
    if rounding_mode not in ("floor", "trunc"):
        raise ValueError(
            "div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
            f"'{rounding_mode}'"
        )
    return ops.aten.div.Tensor_mode(input, other, rounding_mode=rounding_mode)


divide = div


def result_type(tensor1: Any, tensor2: Any) -> dt.dtype:
    """The dtype an arithmetic op on the two operands produces.

    Examples:
        >>> import ember
        >>> ember.result_type(ember.tensor([1, 2]), 1.0)
        ember.float32
        >>> ember.result_type(ember.tensor([1, 2], dtype=ember.uint8), ember.tensor(1000))
        ember.uint8
    """
    return _result_type(tensor1, tensor2)


def broadcast_shapes(*shapes: Any) -> Size:
    out: tuple[int, ...] = ()
    for s in shapes:
        out = _bshapes(out, (s,) if isinstance(s, int) else tuple(s))
    return Size(out)


def broadcast_tensors(*tensors: Tensor) -> tuple[Tensor, ...]:
    shape = broadcast_shapes(*(t._shape for t in tensors))
    return tuple(t.expand(shape) for t in tensors)


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    return ops.aten.transpose.int(input, dim0, dim1)


def squeeze(input: Tensor, dim: Any = None) -> Tensor:
    return input.squeeze(dim)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def numel(input: Tensor) -> int:
    return input.numel()


def pow(input: Any, exponent: Any) -> Tensor:  # noqa: A001
    """``input ** exponent``; integer tensors refuse negative integer scalar exponents.

    Examples:
        >>> import ember
        >>> ember.pow(ember.tensor([1, 2, 3]), 2)
        tensor([1, 4, 9])
    """
    if (
        type(exponent) is int
        and exponent < 0
        and isinstance(input, Tensor)
        and input._dtype.category != dt.FLOAT
    ):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    # a number selects pow.Tensor_Scalar / pow.Scalar: one edge, PyTorch's node names
    if not isinstance(exponent, Tensor):
        return ops.aten.pow.Tensor_Scalar(input, exponent)  # type: ignore[no-any-return]
    if not isinstance(input, Tensor):
        return ops.aten.pow.Scalar(input, exponent)  # type: ignore[no-any-return]
    return ops.aten.pow.Tensor_Tensor(input, exponent)  # type: ignore[no-any-return]


def _tensor_div(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    return div(self, other, rounding_mode=rounding_mode)


def _tensor_div_(self: Tensor, other: Any, *, rounding_mode: str | None = None) -> Tensor:
    if rounding_mode is None:
        return ops.aten.div_.Tensor(self, other)
    return ops.aten.div_.Tensor_mode(self, other, rounding_mode=rounding_mode)


def unique(
    input: Tensor,
    sorted: bool = True,
    return_inverse: bool = False,
    return_counts: bool = False,
    dim: int | None = None,
) -> Any:
    """The distinct elements (or slices along ``dim``), sorted; optionally the inverse
    indices and the counts, as ``torch.unique``."""
    if dim is None:
        out = ops.aten._unique2.default(input, sorted, return_inverse, return_counts)
    else:
        out = ops.aten.unique_dim.default(input, dim, sorted, return_inverse, return_counts)
    res = [out[0]]
    if return_inverse:
        res.append(out[1])
    if return_counts:
        res.append(out[2])
    return res[0] if len(res) == 1 else tuple(res)


def einsum(equation: Any, *operands: Any) -> Tensor:
    """``einsum("ij,jk->ik", a, b)``, the operands as one list, or the sublist form
    ``einsum(a, [0, 1], b, [1, 2], [0, 2])``."""
    if isinstance(equation, Tensor):
        from ember.operators.shape_forms import einsum_sublist_equation

        equation, operands = einsum_sublist_equation((equation, *operands))
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return ops.aten.einsum.default(equation, list(operands))  # type: ignore[no-any-return]


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Any:
    """(values, indices) sorted along ``dim``; ``stable=True`` keeps equal elements' order."""
    return ops.aten.sort.stable(input, stable=stable, dim=dim, descending=descending)


def argsort(
    input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> Tensor:
    return ops.aten.sort.stable(input, stable=stable, dim=dim, descending=descending)[1]  # type: ignore[no-any-return]


def _tensor_sort(
    self: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> Any:
    return sort(self, dim, descending, stable=stable)


def _tensor_argsort(
    self: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False
) -> Tensor:
    return argsort(self, dim, descending, stable=stable)


def _tensor_unique(self: Tensor, sorted: bool = True, return_inverse: bool = False,
                   return_counts: bool = False, dim: int | None = None) -> Any:  # fmt: skip
    return unique(self, sorted, return_inverse, return_counts, dim)


def median(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median of all elements, or (values, indices) along ``dim``."""
    if dim is None:
        return ops.aten.median.default(input)
    return ops.aten.median.dim(input, dim, keepdim)


def bernoulli(input: Tensor, p: float | None = None, *, generator: Any = None) -> Tensor:
    """Ones with probability ``input`` (elementwise), or with probability ``p`` in
    ``input``'s shape when ``p`` is given.

    Examples:
        >>> import ember
        >>> g = ember.Generator().manual_seed(0)
        >>> ember.bernoulli(ember.tensor([0.0, 1.0]), generator=g)
        tensor([0., 1.])
        >>> ember.bernoulli(ember.zeros(3), 1.0)
        tensor([1., 1., 1.])
    """
    if p is None:
        return ops.aten.bernoulli.default(input, generator=generator)  # type: ignore[no-any-return]
    return ops.aten.bernoulli.p(input, p, generator=generator)  # type: ignore[no-any-return]


def _tensor_random_(self: Tensor, *args: Any, generator: Any = None, **kw: Any) -> Tensor:
    """``random_()``, ``random_(to)``, ``random_(from, to)``: integers in [from, to)."""
    extra = set(kw) - {"from", "to"}
    if extra:
        raise TypeError(f"random_() got an unexpected keyword argument '{extra.pop()}'")
    if len(args) + len(kw) > 2:
        raise TypeError(f"random_() takes at most 2 arguments ({len(args) + len(kw)} given)")
    if len(args) == 2:
        low, high = args
    elif len(args) == 1:
        low, high = (args[0], kw["to"]) if "to" in kw else (0, args[0])
    else:
        low, high = kw.get("from", 0), kw.get("to")
    return getattr(ops.aten.random_, "from")(self, low, high, generator=generator)  # type: ignore[no-any-return]


#: the Tensor methods whose Python forms these are (typed by ember/core/_tensor_methods.pyi)
TENSOR_METHODS = {
    "pow": pow,
    "__pow__": pow,
    "div": _tensor_div,
    "divide": _tensor_div,
    "div_": _tensor_div_,
    "sort": _tensor_sort,
    "argsort": _tensor_argsort,
    "unique": _tensor_unique,
    "median": median,
    "bernoulli": bernoulli,
    "random_": _tensor_random_,
}
for _name, _fn in TENSOR_METHODS.items():
    setattr(Tensor, _name, _fn)


# Note [Registration points]
providers.empty = empty
