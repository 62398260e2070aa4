"""``OpInfo`` and ``SampleInput``, and the sample-input generators shared by op families.

A sample generator is ``gen(info, dtype, device, rng) -> Iterable[SampleInput]``;
it builds its tensors with ``make_tensor`` on ``device`` and covers the layouts a
kernel must handle: contiguous, broadcast (stride 0), transposed, strided
(non-contiguous), 0-dim and empty. Keep counts small: the conformance suite runs
every sample for every dtype of every operator.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ember.testing._creation import make_tensor

__all__ = ["OpInfo", "SampleInput", "ALL_DTYPES", "SAMPLES"]

ALL_DTYPES = (
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
)
_CATEGORY = {"bool": "bool", "float16": "float", "bfloat16": "float"}


def category(dtype: str) -> str:
    """'bool', 'int' or 'float' for a dtype name."""
    return _CATEGORY.get(dtype, "float" if dtype.startswith("float") else "int")


@dataclass(frozen=True)
class SampleInput:
    """One call: positional ``args`` and keyword ``kwargs`` (tensors already on device)."""

    args: tuple[Any, ...]
    kwargs: Mapping[str, Any] = field(default_factory=dict)
    desc: str = ""


Reference = Callable[..., Any]
SampleGen = Callable[["OpInfo", str, str, np.random.Generator], Iterable[SampleInput]]
Validator = Callable[[np.ndarray, SampleInput], None]


@dataclass(frozen=True)
class OpInfo:
    """What the test suites need to know about one operator overload.

    Attributes:
        name: the overload's qualname without namespace (``"add.Tensor"``).
        op: calls the operator in ember (``op(*sample.args, **sample.kwargs)``).
        ref: numpy reference over float64/int64/bool host arrays (tensor arguments
            converted by ``to_numpy``); None when ``validate`` checks the result instead.
        dtypes: dtype names the operator supports.
        sample_inputs: the sample generator (see the module docstring).
        domain: (low, high) for the values of the first tensor argument, or None.
        domain_other: (low, high) for the other tensor arguments (None: same as domain).
        tols: per-dtype (rtol, atol) overriding ``assert_close``'s defaults.
        differentiable: an autograd formula exists for the operator.
        primitive: a member of the primitive set (``primitive: true`` in ops.yaml).
        kind: the structured family, or "composite"/"view"/"factory".
        validate: checks a result that has no deterministic reference (random ops).
        inplace: ``op`` writes its first argument (samples must not broadcast it).
    """

    name: str
    op: Callable[..., Any]
    ref: Reference | None
    dtypes: tuple[str, ...]
    sample_inputs: SampleGen
    domain: tuple[float, float] | None = None
    domain_other: tuple[float, float] | None = None
    nonzero_other: bool = False
    tols: Mapping[str, tuple[float, float]] = field(default_factory=dict)
    differentiable: bool = False
    primitive: bool = False
    kind: str = "composite"
    validate: Validator | None = None
    inplace: bool = False
    extra: Mapping[str, Any] = field(default_factory=dict)

    def samples(self, dtype: str, device: str, seed: int = 0) -> list[SampleInput]:
        """The samples for one dtype on one device (reproducible for a seed)."""
        rng = np.random.default_rng(seed)
        out = list(self.sample_inputs(self, dtype, device, rng))
        if self.inplace:
            out = [s for s in out if _self_is_result_shape(s)]
        return out


def _self_is_result_shape(s: SampleInput) -> bool:
    """An in-place sample writes a first argument of the result's shape whose elements are
    distinct memory (an expanded tensor is refused, as PyTorch refuses it)."""
    shapes = [tuple(a.shape) for a in s.args if hasattr(a, "shape")]
    if not shapes or np.broadcast_shapes(*shapes) != shapes[0]:
        return False
    first = s.args[0]
    return not any(st == 0 and n > 1 for st, n in zip(first.stride(), first.shape, strict=True))


def _mk(info: OpInfo, shape: tuple[int, ...], dtype: str, dev: str, rng: Any, **kw: Any) -> Any:
    lo, hi = info.domain or (None, None)
    return make_tensor(shape, dtype, dev, low=lo, high=hi, generator=rng, **kw)


def _mk_other(info: OpInfo, shape: tuple[int, ...], dtype: str, dev: str, rng: Any) -> Any:
    lo, hi = info.domain_other or info.domain or (None, None)
    return make_tensor(
        shape, dtype, dev, low=lo, high=hi, generator=rng, exclude_zero=info.nonzero_other
    )


def _kw(info: OpInfo, dtype: str) -> dict[str, Any]:
    """Extra keyword arguments of a sample, chosen per dtype category (``extra["kwargs"]``)."""
    return dict(info.extra.get("kwargs", {}).get(category(dtype), {}))


def unary_samples(info: OpInfo, dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    kw = _kw(info, dtype)
    yield SampleInput((_mk(info, (5, 7), dtype, dev, rng),), kw, "contiguous")
    yield SampleInput((_mk(info, (7, 5), dtype, dev, rng).t(),), kw, "transposed")
    yield SampleInput((_mk(info, (4, 6), dtype, dev, rng, noncontiguous=True),), kw, "strided")
    yield SampleInput((_mk(info, (), dtype, dev, rng),), kw, "0-dim")
    yield SampleInput((_mk(info, (0, 3), dtype, dev, rng),), kw, "empty")
    if info.extra.get("special") and category(dtype) == "float":
        import ember

        vals = [float("nan"), float("inf"), -float("inf"), 0.0, -1.5, 2.0]
        t = ember.tensor(vals, dtype=getattr(ember, dtype))
        yield SampleInput((t.to(dev) if dev != "cpu" else t,), kw, "nan/inf")


_BINARY_SHAPES: tuple[tuple[str, tuple[int, ...], tuple[int, ...]], ...] = (
    ("contiguous", (3, 5), (3, 5)),
    ("broadcast", (3, 5), (5,)),
    ("outer broadcast", (3, 1), (1, 5)),
    ("0-dim other", (3, 5), ()),
    ("both 0-dim", (), ()),
    ("empty", (0, 5), (5,)),
)


def binary_samples(info: OpInfo, dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    kw = _kw(info, dtype)
    for desc, sa, sb in _BINARY_SHAPES:
        a, b = _mk(info, sa, dtype, dev, rng), _mk_other(info, sb, dtype, dev, rng)
        yield SampleInput((a, b), kw, desc)
    a = _mk(info, (5, 3), dtype, dev, rng).t()
    yield SampleInput((a, _mk_other(info, (3, 5), dtype, dev, rng)), kw, "transposed")
    a = _mk(info, (3, 4), dtype, dev, rng, noncontiguous=True)
    yield SampleInput((a, _mk_other(info, (3, 4), dtype, dev, rng)), kw, "strided")


def where_samples(info: OpInfo, dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    for desc, sa, sb in _BINARY_SHAPES:
        c = make_tensor(sa, "bool", dev, generator=rng)
        yield SampleInput(
            (c, _mk(info, sa, dtype, dev, rng), _mk(info, sb, dtype, dev, rng)), {}, desc
        )
    c = make_tensor((5, 3), "bool", dev, generator=rng).t()
    a = _mk(info, (4, 6), dtype, dev, rng, noncontiguous=True)
    yield SampleInput((c[:, :1], a[:3, :5], _mk(info, (5,), dtype, dev, rng)), {}, "strided")


def reduce_samples(info: OpInfo, dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    shape = info.extra.get("shape", (3, 4, 5))
    all_dims = info.extra.get("all_dims", None)
    cases: list[tuple[str, Any, bool]] = [
        ("all dims", all_dims, False),
        ("dim 1", 1, False),
        ("dim -1 keepdim", -1, True),
        ("dims (0, 2)", (0, 2), False),
    ]
    if not info.extra.get("single_dim"):
        cases.append(("dims (0, 2) keepdim", (0, 2), True))
    else:
        cases[3] = ("dim 0 keepdim", 0, True)
    for desc, dim, keep in cases:
        yield SampleInput((_mk(info, shape, dtype, dev, rng), dim, keep), {}, desc)
    t = _mk(info, shape[::-1], dtype, dev, rng).permute(2, 1, 0)
    yield SampleInput((t, 1, False), {}, "transposed")
    t = _mk(info, shape, dtype, dev, rng, noncontiguous=True)
    yield SampleInput((t, -1, False), {}, "strided")
    yield SampleInput((_mk(info, (), dtype, dev, rng), all_dims, False), {}, "0-dim")
    yield SampleInput((_mk(info, (0, 4), dtype, dev, rng), 1, False), {}, "empty")


def bmm_samples(info: OpInfo, dtype: str, dev: str, rng: Any) -> Iterable[SampleInput]:
    for desc, sa, sb in (
        ("contiguous", (2, 3, 4), (2, 4, 5)),
        ("empty batch", (0, 3, 4), (0, 4, 2)),
        ("K = 0", (2, 3, 0), (2, 0, 4)),
    ):
        yield SampleInput(
            (_mk(info, sa, dtype, dev, rng), _mk(info, sb, dtype, dev, rng)), {}, desc
        )
    b = _mk(info, (2, 5, 4), dtype, dev, rng).transpose(1, 2)
    yield SampleInput((_mk(info, (2, 3, 4), dtype, dev, rng), b), {}, "transposed")
    a = _mk(info, (2, 3, 4), dtype, dev, rng, noncontiguous=True)
    yield SampleInput((a, _mk(info, (2, 4, 2), dtype, dev, rng)), {}, "strided")


#: sample generator per structured family (a table, keyed by ``kind:``).
SAMPLES: dict[str, SampleGen] = {
    "unary": unary_samples,
    "unary_float": unary_samples,
    "unary_bool": unary_samples,
    "binary": binary_samples,
    "binary_float": binary_samples,
    "compare": binary_samples,
    "logical": binary_samples,
    "where": where_samples,
    "reduce": reduce_samples,
    "reduce_float": reduce_samples,
    "reduce_same": reduce_samples,
    "reduce_index": reduce_samples,
    "reduce_bool": reduce_samples,
    "bmm": bmm_samples,
}
