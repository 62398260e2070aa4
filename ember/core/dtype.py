"""Data types and PyTorch's type-promotion rules.

This module owns the ten dtypes ember knows, their numpy counterparts, the
promotion lattice (``promote_types``, ``result_type``) and the numeric limits
of each dtype (``finfo``, ``iinfo``). Invariants:

* every dtype is a singleton: compare with ``is``;
* promotion is computed once per pair and cached in a table;
* ``result_type`` follows PyTorch's category rule: a dimensioned tensor beats a
  0-dim tensor, which beats a Python scalar, unless the lower-priority operand
  belongs to a higher category (bool < integer < floating point).
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = [
    "dtype",
    "bool_",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
    "promote_types",
    "get_default_dtype",
    "set_default_dtype",
    "all_dtypes",
    "finfo",
    "iinfo",
]

# Categories, ordered: a higher category wins promotion against a lower one.
BOOL, INT, FLOAT = 0, 1, 2


class dtype:  # noqa: N801 - PyTorch's spelling
    """A tensor element type, such as ``ember.float32``.

    Examples:
        >>> import ember
        >>> ember.float32.itemsize, ember.float32.is_floating_point
        (4, True)
        >>> ember.int64
        ember.int64
    """

    __slots__ = ("name", "itemsize", "category", "is_signed", "numpy", "_rank", "__weakref__")

    def __init__(
        self, name: str, itemsize: int, category: int, is_signed: bool, np_dtype: Any, rank: int
    ):
        self.name = name
        self.itemsize = itemsize
        self.category = category
        self.is_signed = is_signed
        # The numpy dtype holding the raw bits. bfloat16 has none in numpy:
        # it is stored as uint16 and converted by the backends.
        self.numpy: np.dtype[Any] = np.dtype(np_dtype)
        self._rank = rank

    @property
    def is_floating_point(self) -> bool:
        return self.category == FLOAT

    @property
    def is_complex(self) -> bool:
        return False

    def to_real(self) -> dtype:
        """The real dtype matching this one: the dtype itself, as ember has no complex dtypes.

        Examples:
            >>> import ember
            >>> ember.float32.to_real()
            ember.float32
            >>> ember.int64.to_real()
            ember.int64
        """
        return self

    def __repr__(self) -> str:
        return "ember." + self.name

    def __reduce__(self) -> str:
        # Pickle by name, so dtypes stay singletons across processes.
        return _PICKLE_NAMES[self.name]


bool_ = dtype("bool", 1, BOOL, False, np.bool_, 0)
uint8 = dtype("uint8", 1, INT, False, np.uint8, 1)
int8 = dtype("int8", 1, INT, True, np.int8, 2)
int16 = dtype("int16", 2, INT, True, np.int16, 3)
int32 = dtype("int32", 4, INT, True, np.int32, 4)
int64 = dtype("int64", 8, INT, True, np.int64, 5)
float16 = dtype("float16", 2, FLOAT, True, np.float16, 6)
bfloat16 = dtype("bfloat16", 2, FLOAT, True, np.uint16, 7)
float32 = dtype("float32", 4, FLOAT, True, np.float32, 8)
float64 = dtype("float64", 8, FLOAT, True, np.float64, 9)

all_dtypes: tuple[dtype, ...] = (
    bool_,
    uint8,
    int8,
    int16,
    int32,
    int64,
    float16,
    bfloat16,
    float32,
    float64,
)
_PICKLE_NAMES = {d.name: ("bool_" if d is bool_ else d.name) for d in all_dtypes}

#: Aliases PyTorch accepts as attributes (``torch.float``, ``torch.long``...).
ALIASES: dict[str, dtype] = {
    "bool": bool_,
    "float": float32,
    "double": float64,
    "half": float16,
    "long": int64,
    "int": int32,
    "short": int16,
    "uint8": uint8,
    "int8": int8,
    "int16": int16,
    "int32": int32,
    "int64": int64,
    "float16": float16,
    "bfloat16": bfloat16,
    "float32": float32,
    "float64": float64,
}

_BY_NUMPY: dict[Any, dtype] = {d.numpy: d for d in all_dtypes if d is not bfloat16}


def from_numpy_dtype(nd: Any) -> dtype:
    """The ember dtype for a numpy dtype; TypeError for ones ember lacks."""
    nd = np.dtype(nd)
    try:
        return _BY_NUMPY[nd.newbyteorder("=") if nd.byteorder not in "=|" else nd]
    except KeyError:
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{nd.name}. The only supported types are: "
            "float64, float32, float16, int64, int32, int16, int8, uint8, and bool."
        ) from None


def _promote_pair(a: dtype, b: dtype) -> dtype:
    if a is b:
        return a
    if a.category != b.category:
        return a if a.category > b.category else b
    if a.category == INT:
        # uint8 with a signed type needs a signed type that holds both.
        if a is uint8 or b is uint8:
            other = b if a is uint8 else a
            return int16 if other is int8 else other
        return a if a.itemsize > b.itemsize else b
    if a.category == FLOAT:
        if {a, b} == {float16, bfloat16}:
            return float32
        return a if a.itemsize > b.itemsize else b
    return a  # both bool


_PROMOTE: dict[tuple[dtype, dtype], dtype] = {
    (a, b): _promote_pair(a, b) for a in all_dtypes for b in all_dtypes
}


def promote_types(type1: dtype, type2: dtype) -> dtype:
    """The smallest dtype both ``type1`` and ``type2`` convert to safely.

    Examples:
        >>> import ember
        >>> ember.promote_types(ember.uint8, ember.int8)
        ember.int16
        >>> ember.promote_types(ember.float16, ember.bfloat16)
        ember.float32
    """
    try:
        return _PROMOTE[type1, type2]
    except KeyError:
        raise TypeError(
            f"promote_types(): expected two ember.dtype, got {type(type1).__name__} "
            f"and {type(type2).__name__}"
        ) from None


_default_dtype: list[dtype] = [float32]


def get_default_dtype() -> dtype:
    """The dtype of floating-point tensors made from Python floats (float32 at start).

    Examples:
        >>> import ember
        >>> ember.get_default_dtype()
        ember.float32
    """
    return _default_dtype[0]


def set_default_dtype(d: dtype) -> None:
    """Set the default floating-point dtype; only floating dtypes are allowed, as in PyTorch."""
    if not isinstance(d, dtype) or not d.is_floating_point or d is bfloat16:
        raise TypeError(
            "only floating-point types are supported as the default type "
            f"(float16, float32, float64), got {d!r}"
        )
    _default_dtype[0] = d


def scalar_dtype(value: object) -> dtype:
    """The dtype PyTorch gives a lone Python scalar: bool, int64 or the default float."""
    if isinstance(value, bool):
        return bool_
    if isinstance(value, int):
        return int64
    if isinstance(value, float):
        return _default_dtype[0]
    if isinstance(value, np.generic):
        return from_numpy_dtype(value.dtype)
    raise TypeError(f"expected a Python bool, int or float, got {type(value).__name__}")


def scalar_category(value: object) -> int:
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return FLOAT
    if isinstance(value, np.generic):
        return from_numpy_dtype(value.dtype).category
    raise TypeError(f"expected a Python bool, int or float, got {type(value).__name__}")


def combine(dim_t: dtype | None, zero_t: dtype | None, scalar_cat: int) -> dtype:
    """Apply PyTorch's three-tier rule to the promoted dtypes of each tier.

    ``dim_t`` is the promotion of all dimensioned tensors, ``zero_t`` that of the
    0-dim tensors, ``scalar_cat`` the highest category among Python scalars (-1 if none).
    """
    result = dim_t
    if zero_t is not None:
        if result is None:
            result = zero_t
        elif zero_t.category > result.category:
            result = zero_t
    if scalar_cat >= 0:
        if result is None:
            result = (bool_, int64, _default_dtype[0])[scalar_cat]
        elif scalar_cat > result.category:
            result = int64 if scalar_cat == INT else _default_dtype[0]
    if result is None:
        raise TypeError("result_type(): expected at least one tensor or scalar")
    return result


# -- numeric limits -------------------------------------------------------------------------------
def _fmt(v: float | int) -> str:
    return f"{v:g}"


class finfo:  # noqa: N801 - PyTorch's spelling
    """Machine limits of a floating-point dtype, as ``torch.finfo``.

    ``bits``, ``eps`` (the gap between 1 and the next value), ``max``, ``min``,
    ``tiny``/``smallest_normal`` (the smallest positive normal number), ``resolution``
    (``10 ** -decimal digits``) and ``dtype`` (its name). ``finfo()`` describes the
    default dtype.

    Examples:
        >>> import ember
        >>> ember.finfo(ember.float32).eps
        1.1920928955078125e-07
        >>> ember.finfo(ember.bfloat16)
        finfo(resolution=0.01, min=-3.38953e+38, max=3.38953e+38, eps=0.0078125, \
smallest_normal=1.17549e-38, tiny=1.17549e-38, dtype=bfloat16)
    """

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: dtype | None = None) -> None:  # noqa: A002 - PyTorch's name
        d = _default_dtype[0] if type is None else type
        if not isinstance(d, dtype):
            raise TypeError(
                f"finfo(): argument 'type' (position 1) must be ember.dtype, not "
                f"{d.__class__.__name__}"
            )
        if d.category != FLOAT:
            raise TypeError(
                "ember.finfo() requires a floating point input type. Use ember.iinfo to handle "
                "'ember.finfo'"
            )
        if d is bfloat16:  # 8 exponent bits like float32, 7 stored mantissa bits
            eps, mx, tiny = 2.0**-7, float((2 - 2.0**-7) * 2.0**127), 2.0**-126
        else:
            info = np.finfo(d.numpy)
            eps, mx, tiny = float(info.eps), float(info.max), float(info.smallest_normal)
        self.bits = d.itemsize * 8
        self.eps = eps
        self.max = mx
        self.min = -mx
        self.tiny = self.smallest_normal = tiny
        self.resolution = 10.0 ** -int(-math.log10(eps))
        self.dtype = d.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (
            f"finfo(resolution={_fmt(self.resolution)}, min={_fmt(self.min)}, "
            f"max={_fmt(self.max)}, eps={_fmt(self.eps)}, "
            f"smallest_normal={_fmt(self.smallest_normal)}, tiny={_fmt(self.tiny)}, "
            f"dtype={self.dtype})"
        )


class iinfo:  # noqa: N801 - PyTorch's spelling
    """Limits of an integer dtype: ``bits``, ``min``, ``max`` (Python ints), ``dtype``.

    Examples:
        >>> import ember
        >>> ember.iinfo(ember.int8)
        iinfo(min=-128, max=127, dtype=int8)
        >>> ember.iinfo(ember.int64).max
        9223372036854775807
    """

    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type: dtype) -> None:  # noqa: A002 - PyTorch's name
        if not isinstance(type, dtype):
            raise TypeError(
                f"iinfo(): argument 'type' (position 1) must be ember.dtype, not "
                f"{type.__class__.__name__}"
            )
        if type is bool_:
            raise TypeError("ember.bool is not supported by ember.iinfo")
        if type.category != INT:
            raise TypeError(
                "ember.iinfo() requires an integer input type. Use ember.finfo to handle "
                "'ember.iinfo'"
            )
        info = np.iinfo(type.numpy)
        self.bits = type.itemsize * 8
        self.min = int(info.min)
        self.max = int(info.max)
        self.dtype = type.name

    def __eq__(self, other: object) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={_fmt(self.min)}, max={_fmt(self.max)}, dtype={self.dtype})"
