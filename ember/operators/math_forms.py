"""Python forms of the elementwise and reduction operators, and PyTorch's alias names.

PyTorch's binding picks an overload from the arguments (``var(x, 0, True)`` is the
``unbiased`` form, ``round(x, decimals=2)`` and ``lerp(a, b, tensor)`` are other
overloads), keeps ``torch.norm``'s ``'fro'`` default and spells many operators twice
(``arccos``/``acos``, ``greater``/``gt``). ``FUNCTIONS`` become ``ember.<name>``;
``methods()`` (called by ``registration.load`` once every operator's entry point is bound)
returns the ``Tensor`` methods, which replace the schema's own. Each wrapper calls
exactly one operator.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor
from ember.dispatcher.namespace import ops

__all__ = ["FUNCTIONS", "methods", "ALIASES", "INPLACE_ALIASES"]


def _correction(dim: Any, unbiased: Any, correction: Any, name: str) -> tuple[Any, Any]:
    """PyTorch's three spellings: ``(x, unbiased)``, ``(x, dim, unbiased)``, ``correction=``."""
    if isinstance(dim, bool):
        dim, unbiased = None, dim
    if unbiased is not None:
        if correction is not None:
            raise RuntimeError(f"{name}: can't specify both unbiased and correction")
        correction = 1 if unbiased else 0
    return dim, correction


def var(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:  # fmt: skip
    """The variance over ``dim`` with Bessel's ``correction`` (1, or 0 if not ``unbiased``).

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0, 3.0], [2.0, 2.0]])
        >>> ember.var(x, 1).tolist(), x.var(1, False).tolist(), x.var(unbiased=False).item()
        ([2.0, 0.0], [1.0, 0.0], 0.5)
    """
    dim, correction = _correction(dim, unbiased, correction, "var")
    return ops.aten.var.correction(input, dim, correction=correction, keepdim=keepdim)  # type: ignore[no-any-return]


def std(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
        correction: Any = None) -> Tensor:  # fmt: skip
    """The standard deviation (see :func:`var` for the forms).

    Examples:
        >>> import ember
        >>> ember.std(ember.tensor([1.0, 3.0]), unbiased=False).item()
        1.0
    """
    dim, correction = _correction(dim, unbiased, correction, "std")
    return ops.aten.std.correction(input, dim, correction=correction, keepdim=keepdim)  # type: ignore[no-any-return]


def var_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(var, mean)`` in one pass over the data's mean.

    Examples:
        >>> import ember
        >>> v, m = ember.var_mean(ember.tensor([1.0, 2.0, 3.0]))
        >>> v.item(), m.item()
        (1.0, 2.0)
    """
    dim, correction = _correction(dim, unbiased, correction, "var_mean")
    return ops.aten.var_mean.correction(input, dim, correction=correction, keepdim=keepdim)  # type: ignore[no-any-return]


def std_mean(input: Tensor, dim: Any = None, unbiased: Any = None, keepdim: bool = False, *,
             correction: Any = None) -> tuple[Tensor, Tensor]:  # fmt: skip
    """``(std, mean)``.

    Examples:
        >>> import ember
        >>> s, m = ember.std_mean(ember.tensor([1.0, 3.0]), correction=0)
        >>> s.item(), m.item()
        (1.0, 2.0)
    """
    dim, correction = _correction(dim, unbiased, correction, "std_mean")
    return ops.aten.std_mean.correction(input, dim, correction=correction, keepdim=keepdim)  # type: ignore[no-any-return]


def round(input: Tensor, *, decimals: int = 0) -> Tensor:  # noqa: A001
    """Round half to even, at ``decimals`` decimal places.

    Examples:
        >>> import ember
        >>> ember.round(ember.tensor([1.25, 2.5, 1234.5]), decimals=1).tolist()
        [1.2000000476837158, 2.5, 1234.5]
        >>> ember.round(ember.tensor([1234.5]), decimals=-2).tolist()
        [1200.0]
    """
    if decimals == 0:
        return ops.aten.round.default(input)  # type: ignore[no-any-return]
    return ops.aten.round.decimals(input, decimals=decimals)  # type: ignore[no-any-return]


def _round_(self: Tensor, *, decimals: int = 0) -> Tensor:
    if decimals == 0:
        return ops.aten.round_.default(self)  # type: ignore[no-any-return]
    return ops.aten.round_.decimals(self, decimals=decimals)  # type: ignore[no-any-return]


def lerp(input: Tensor, end: Tensor, weight: Any) -> Tensor:
    """``input + weight * (end - input)``; ``weight`` a number or a tensor.

    Examples:
        >>> import ember
        >>> ember.lerp(ember.tensor([0.0, 0.0]), ember.tensor([4.0, 8.0]), 0.25).tolist()
        [1.0, 2.0]
    """
    if isinstance(weight, Tensor):
        return ops.aten.lerp.Tensor(input, end, weight)  # type: ignore[no-any-return]
    return ops.aten.lerp.Scalar(input, end, weight)  # type: ignore[no-any-return]


def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Any:
    """The lower median of the non-NaN elements, or ``(values, indices)`` along ``dim``.

    Examples:
        >>> import ember
        >>> ember.nanmedian(ember.tensor([float("nan"), 3.0, 1.0, 2.0])).item()
        2.0
    """
    if dim is None:
        return ops.aten.nanmedian.default(input)
    return ops.aten.nanmedian.dim(input, dim, keepdim)


def norm(input: Tensor, p: Any = "fro", dim: Any = None, keepdim: bool = False,
         dtype: Any = None) -> Tensor:  # fmt: skip
    """The vector norm over ``dim`` (all dims by default); ``p`` a number, inf or 'fro'.

    Examples:
        >>> import ember
        >>> x = ember.tensor([3.0, -4.0])
        >>> ember.norm(x).item(), ember.norm(x, 1).item(), ember.norm(x, float("inf")).item()
        (5.0, 7.0, 4.0)
    """
    x = input.to(dtype) if dtype is not None else input
    dims = () if dim is None else ((dim,) if isinstance(dim, int) else tuple(dim))
    return ops.aten.norm.ScalarOpt_dim(x, p, dims, keepdim)  # type: ignore[no-any-return]


def square(input: Tensor) -> Tensor:
    """``input * input``; bool squares to int64, as PyTorch's ``pow(x, 2)``.

    Examples:
        >>> import ember
        >>> ember.square(ember.tensor([True, False])).tolist()
        [1, 0]
    """
    if input.dtype is dt.bool_:
        input = input.to(dt.int64)
    return ops.aten.square.default(input)  # type: ignore[no-any-return]


def nextafter(input: Tensor, other: Any) -> Tensor:
    """The next representable value after ``input`` towards ``other``.

    Examples:
        >>> import ember
        >>> ember.nextafter(ember.tensor([1.0], dtype=ember.float16), ember.tensor([2.0],
        ...                 dtype=ember.float16)).tolist()
        [1.0009765625]
    """
    from ember.operators.elementwise import nextafter_half

    half = (dt.float16, dt.bfloat16)
    if isinstance(other, Tensor) and input.dtype in half and other.dtype is input.dtype:
        return nextafter_half(input, other)
    return ops.aten.nextafter.default(input, other)  # type: ignore[no-any-return]


def _nextafter_(self: Tensor, other: Any) -> Tensor:
    if self.dtype in (dt.float16, dt.bfloat16):
        return self.copy_(nextafter(self, other))  # type: ignore[no-any-return]
    return ops.aten.nextafter_.default(self, other)  # type: ignore[no-any-return]


def dist(input: Tensor, other: Tensor, p: Any = 2) -> Tensor:
    """The ``p``-norm of ``input - other``.

    Examples:
        >>> import ember
        >>> ember.dist(ember.tensor([1.0, 2.0]), ember.tensor([4.0, 6.0])).item()
        5.0
    """
    return ops.aten.norm.ScalarOpt_dim(input - other, p, (), False)  # type: ignore[no-any-return]


def angle(input: Tensor) -> Tensor:
    """The argument of each element: pi for negative reals, 0 otherwise (NaN stays NaN).

    Examples:
        >>> import ember
        >>> ember.angle(ember.tensor([-2.0, 3.0])).tolist()
        [3.1415927410125732, 0.0]
    """
    x = input if input.is_floating_point() else input.to(dt.get_default_dtype())
    r = (x < 0).to(x.dtype) * math.pi
    return ops.aten.where.self(x.isnan(), x, r)  # type: ignore[no-any-return]


def real(input: Tensor) -> Tensor:
    """The real part: the tensor itself (ember has no complex dtypes)."""
    return input


def imag(input: Tensor) -> Tensor:
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def _same(input: Tensor) -> Tensor:
    return input


def _false(input: Tensor) -> bool:
    return False


def _sum_to_size(self: Tensor, *size: Any) -> Tensor:
    """Sum ``self`` down to ``size`` (the inverse of broadcasting ``size`` to ``self``)."""
    shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
    lead = len(self.shape) - len(shape)
    if lead < 0 or any(s not in (1, n) for s, n in zip(shape, self.shape[lead:])):
        raise RuntimeError(f"size {{{', '.join(map(str, shape))}}} is not expandable to size "
                           f"{{{', '.join(map(str, self.shape))}}}.")  # fmt: skip
    dims = list(range(lead)) + [lead + i for i, s in enumerate(shape) if s == 1 and
                                self.shape[lead + i] != 1]  # fmt: skip
    r = self.sum(dims, keepdim=True) if dims else self
    return r.reshape(shape) if lead else r


def _scalar_first(name: str) -> Callable[..., Any]:
    """``ember.<name>(2.0, t)``: a Python number as ``self`` becomes a 0-dim tensor of the
    promoted dtype (PyTorch's ``Scalar_Self`` overloads)."""

    def fn(input: Any, other: Any) -> Tensor:
        if not isinstance(input, Tensor) and isinstance(other, Tensor):
            from ember.operators.drivers import result_type

            d = result_type(input, other)
            input = ops.aten.full.default((), input, dtype=d, device=other.device)
        return getattr(ops.aten, name).Tensor(input, other)  # type: ignore[no-any-return]

    fn.__name__ = fn.__qualname__ = name
    return fn


def _float_power(input: Any, exponent: Any) -> Tensor:
    """``input ** exponent`` in float64 (either may be a Python number).

    Examples:
        >>> import ember
        >>> ember.float_power(2, ember.tensor([1, -1])).tolist()
        [2.0, 0.5]
    """
    if not isinstance(input, Tensor) and isinstance(exponent, Tensor):
        input = ops.aten.full.default((), input, dtype=dt.float64, device=exponent.device)
    return ops.aten.float_power.Tensor_Tensor(input, exponent)  # type: ignore[no-any-return]


def _where_method(self: Tensor, condition: Tensor, other: Any) -> Tensor:
    return ops.aten.where.self(condition, self, other)  # type: ignore[no-any-return]


def _floor_divide_(self: Tensor, other: Tensor | float) -> Tensor:
    return ops.aten.div_.Tensor_mode(self, other, rounding_mode="floor")  # type: ignore[no-any-return]


#: PyTorch's second names: alias -> the name ember binds (both ``ember.<x>`` and ``Tensor.<x>``).
ALIASES = {
    "absolute": "abs",
    "arccos": "acos",
    "arccosh": "acosh",
    "arcsin": "asin",
    "arcsinh": "asinh",
    "arctan": "atan",
    "arctan2": "atan2",
    "arctanh": "atanh",
    "negative": "neg",
    "fix": "trunc",
    "multiply": "mul",
    "subtract": "sub",
    "greater": "gt",
    "greater_equal": "ge",
    "less": "lt",
    "less_equal": "le",
    "not_equal": "ne",
}
#: in-place method aliases: alias -> the Tensor method it names.
INPLACE_ALIASES = {
    **{a + "_": t + "_" for a, t in ALIASES.items()},
    "divide_": "div_",
    "true_divide_": "div_",
}
#: in-place dunders -> the in-place method (PyTorch's ``x %= y`` writes into ``x``).
_DUNDERS = {
    "__imod__": "remainder_",
    "__iand__": "bitwise_and_",
    "__ior__": "bitwise_or_",
    "__ixor__": "bitwise_xor_",
    "__ilshift__": "bitwise_left_shift_",
    "__irshift__": "bitwise_right_shift_",
    "__ifloordiv__": "floor_divide_",
}


def rsub(input: Tensor, other: Any, alpha: Any = 1) -> Tensor:
    """``other - alpha * input``; a tensor ``other`` is differentiated too (PyTorch's
    ``rsub.Tensor``), a number goes through ``rsub.Scalar``.

    Examples:
        >>> import ember
        >>> ember.rsub(ember.tensor([1., 2.]), ember.tensor([3., 3.]))
        tensor([2., 1.])
    """
    if isinstance(other, Tensor):
        return ops.aten.sub.Tensor(other, input, alpha=alpha)  # type: ignore[no-any-return]
    return ops.aten.rsub.Scalar(input, other, alpha)  # type: ignore[no-any-return]


FUNCTIONS: dict[str, Callable[..., Any]] = {
    "rsub": rsub,
    "var": var,
    "std": std,
    "var_mean": var_mean,
    "std_mean": std_mean,
    "round": round,
    "lerp": lerp,
    "nanmedian": nanmedian,
    "norm": norm,
    "square": square,
    "nextafter": nextafter,
    "xlogy": _scalar_first("xlogy"),
    "float_power": _float_power,
    "dist": dist,
    "angle": angle,
    "real": real,
    "imag": imag,
    "conj": _same,
    "conj_physical": _same,
    "resolve_conj": _same,
    "resolve_neg": _same,
    "is_conj": _false,
    "is_neg": _false,
}


#: Note [Registration points]: the ``ember`` namespace, installed by ``ember/__init__.py``
#: once it is complete, so an alias calls exactly what ``ember.<target>`` is (with ``out=``).
_public: dict[str, Any] = {}


def install_public_namespace(namespace: dict[str, Any]) -> None:
    """Give the aliases the finished ``ember`` namespace they forward to."""
    global _public
    _public = namespace


def _alias_function(target: str) -> Callable[..., Any]:
    def alias(*args: Any, **kwargs: Any) -> Any:
        return _public[target](*args, **kwargs)

    alias.__name__ = alias.__qualname__ = target
    return alias


for _alias, _target in ALIASES.items():
    FUNCTIONS[_alias] = _alias_function(_target)


#: ``torch.<op>_`` functions: the in-place method as a function of the tensor it writes.
INPLACE_FUNCTIONS = (
    "abs acos acosh arccos arccosh arcsin arcsinh arctan arctanh asin asinh atan atanh ceil "
    "clamp clamp_max clamp_min clip cos cosh deg2rad erf erfc exp exp2 expm1 fix floor frac "
    "gcd lcm ldexp log log10 log1p log2 logit nan_to_num neg negative rad2deg reciprocal relu "
    "round rsqrt sigmoid sin sinc sinh sqrt square tan tanh trunc xlogy"
).split()


def _inplace_function(name: str) -> Callable[..., Any]:
    def fn(input: Tensor, *args: Any, **kwargs: Any) -> Any:
        return getattr(input, name)(*args, **kwargs)

    fn.__name__ = fn.__qualname__ = name
    return fn


for _name in INPLACE_FUNCTIONS:
    FUNCTIONS[_name + "_"] = _inplace_function(_name + "_")


def _polygamma(self: Tensor, n: int) -> Tensor:
    return ops.aten.polygamma.default(n, self)  # type: ignore[no-any-return]


def _polygamma_(self: Tensor, n: int) -> Tensor:
    return ops.aten.polygamma_.default(self, n)  # type: ignore[no-any-return]


def methods() -> dict[str, Any]:
    """``Tensor`` methods to bind: the wrappers above and every alias of a bound method."""
    table: dict[str, Any] = {
        "var": var,
        "std": std,
        "round": round,
        "round_": _round_,
        "lerp": lerp,
        "nanmedian": nanmedian,
        "square": square,
        "where": _where_method,
        "nextafter": nextafter,
        "nextafter_": _nextafter_,
        "dist": dist,
        "angle": angle,
        "real": property(real),
        "imag": property(imag),
        "conj": _same,
        "conj_physical": _same,
        "resolve_conj": _same,
        "resolve_neg": _same,
        "is_conj": _false,
        "is_neg": _false,
        "sum_to_size": _sum_to_size,
        "polygamma": _polygamma,
        "polygamma_": _polygamma_,
        "floor_divide_": _floor_divide_,
    }
    for alias, target in {**ALIASES, **INPLACE_ALIASES}.items():
        fn = table.get(target) or getattr(Tensor, target, None)
        if fn is not None:
            table[alias] = fn
    for dunder, target in _DUNDERS.items():
        table[dunder] = table.get(target) or getattr(Tensor, target)
    return table
