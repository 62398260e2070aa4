"""``format_tensor`` must reproduce ``repr(torch_tensor)`` exactly (with ``ember.``)."""

from __future__ import annotations

import math
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from ember.core._printing import (
    PrintOptions,
    format_tensor,
    get_printoptions,
    set_printoptions,
)

torch = pytest.importorskip("torch")

NAMES = {
    torch.bool: "bool",
    torch.uint8: "uint8",
    torch.int8: "int8",
    torch.int16: "int16",
    torch.int32: "int32",
    torch.int64: "int64",
    torch.float16: "float16",
    torch.bfloat16: "bfloat16",
    torch.float32: "float32",
    torch.float64: "float64",
}
nan, inf = math.nan, math.inf


@pytest.fixture(autouse=True)
def _reset_options() -> Iterator[None]:
    yield
    set_printoptions(profile="default")
    torch.set_printoptions(profile="default")
    torch.set_default_dtype(torch.float32)


def _values(t: Any) -> np.ndarray:
    t = t.detach()
    return (t.float() if t.dtype == torch.bfloat16 else t).numpy()


def _check(t: Any, suffixes: tuple[str, ...] = (), default: str = "float32") -> None:
    expected = repr(t).replace("torch.", "ember.")
    got = format_tensor(
        _values(t), dtype_name=NAMES[t.dtype], default_dtype_name=default, suffixes=suffixes
    )
    assert got == expected, f"\nexpected:\n{expected}\ngot:\n{got}"


def _set_both(**options: Any) -> None:
    torch.set_printoptions(**options)
    set_printoptions(**options)


T = torch.tensor
# fmt: off
HAND_PICKED = [
    T(1.5), T(nan), T(inf), T(-0.0), T(0.0), T(3), T(True), T(2.5, dtype=torch.float64),
    T([1.0, 2.0, 3.0]), T([0.1, 0.25, 1e3]), T([1e-5, 1.0]), T([1e10, 1.0]), T([1e8, 1.0]),
    T([1e-4, 1.0]), T([1000.0, 1.0]), T([1001.0, 1.0]), T([1000.5, 1.0]), T([1e-5, 1e5, nan]),
    T([nan, 1.5]), T([inf, -inf, 1.0]), T([1.0, 100.0, nan]), T([1.5, nan, inf, -inf]),
    T([0.0, 0.0]), T([-0.0, 0.0]), T([-0.0, 1.5]), T([-0.0, -1.0]), T([0.0, nan, -0.0]),
    T([True, False]), T([-5, 3, 100], dtype=torch.int8), T([255, 0], dtype=torch.uint8),
    T([1, 2], dtype=torch.int16), T([1, 2, 3], dtype=torch.int32), T([-(2**63), 2**63 - 1]),
    T([123456789012345, 1]), T([0.1, 65504.0], dtype=torch.float16),
    T([1 / 3], dtype=torch.bfloat16), T([3.1e38, 1.0], dtype=torch.bfloat16),
    T([1e-7, 1e-8], dtype=torch.float16), T([1 / 3], dtype=torch.float64),
    T([1e-300, 1e300], dtype=torch.float64), T([5e-324, 1.7e308], dtype=torch.float64),
    T([2.0**53 + 1], dtype=torch.float64), T([1.23456789e-5, 1e-3]),
    torch.empty(0), torch.empty(2, 0, 3), torch.empty(0, 3, dtype=torch.float64),
    torch.empty(0, dtype=torch.int64), torch.empty(0, dtype=torch.bool),
    torch.empty(0, dtype=torch.int32), torch.empty(0, 0, dtype=torch.float16),
    torch.arange(2000), torch.arange(2000.0), torch.arange(2000.0).reshape(40, 50),
    torch.arange(1001, dtype=torch.int32), torch.arange(24).reshape(2, 3, 4),
    torch.arange(120.0).reshape(2, 3, 4, 5) / 7, torch.arange(5000.0).reshape(10, 10, 50),
    torch.arange(4096).reshape(4, 4, 16, 16), torch.ones(8, 40) * 1.5, torch.ones(1, 1, 1),
    torch.linspace(-1, 1, 50, dtype=torch.float64), torch.arange(60, dtype=torch.uint8),
    torch.arange(30.0).reshape(5, 6) / 7, torch.ones(30, dtype=torch.bool).reshape(3, 10),
]
# fmt: on


@pytest.mark.parametrize("t", HAND_PICKED, ids=[str(i) for i in range(len(HAND_PICKED))])
def test_hand_picked(t: Any) -> None:
    _check(t)


# fmt: off
OPTION_SETS = [
    {"precision": 2}, {"precision": 0}, {"precision": 8}, {"sci_mode": True},
    {"sci_mode": False}, {"linewidth": 40}, {"linewidth": 10}, {"threshold": 5},
    {"edgeitems": 1, "threshold": 5}, {"edgeitems": 0}, {"edgeitems": 0, "threshold": 5},
    {"threshold": 0}, {"profile": "full"}, {"profile": "short"},
    {"profile": "full", "linewidth": 200}, {"precision": 2, "sci_mode": True, "linewidth": 40},
]
OPTION_TENSORS = [
    T(2.5), T(0.0), T([0.0, 1.0]), T([1e-8, 2.5, 1e10]), T([1.0, 1e10]), T([nan, 1e10]),
    T([0.5, 1.5]), T([0.0, nan]), T([1.0, 2.0, 100.0]), torch.arange(3000.0) * 1.5,
    torch.arange(30), torch.arange(24.0).reshape(2, 3, 4) / 3, torch.arange(1200).reshape(30, 40),
    T([1.1, 2.2], dtype=torch.float16), T([1.1, 2.2], dtype=torch.bfloat16),
]
# fmt: on


@pytest.mark.parametrize("options", OPTION_SETS, ids=repr)
def test_printoptions_variants(options: dict[str, Any]) -> None:
    _set_both(**options)
    for t in OPTION_TENSORS:
        _check(t)


def _random_case(rng: np.random.Generator) -> tuple[Any, dict[str, Any]]:
    """One random tensor (all dtypes, 0-D to 4-D, mixed magnitudes) and print options."""
    options: dict[str, Any] = {}
    if rng.random() < 0.4:
        options = {
            "precision": [None, 1, 2, 6][rng.integers(4)],
            "threshold": [None, 5, 50, 1000][rng.integers(4)],
            "edgeitems": [None, 0, 1, 2][rng.integers(4)],
            "linewidth": [None, 20, 40, 120][rng.integers(4)],
            "sci_mode": [None, None, True, False][rng.integers(4)],
        }
    ndim = int(rng.choice([0, 1, 1, 2, 2, 3, 4]))
    sizes = [0, 1, 2, 3, 4, 7, 11, 60] if rng.random() < 0.05 else [1, 2, 3, 4, 6, 7, 25]
    shape = tuple(int(rng.choice(sizes)) for _ in range(ndim))
    if ndim == 1 and rng.random() < 0.3:
        shape = (int(rng.integers(900, 2500)),)
    dtype = list(NAMES)[rng.integers(len(NAMES))]
    n = math.prod(shape)
    if dtype == torch.bool:
        return torch.from_numpy(rng.random(n) < 0.5).reshape(shape), options
    if not dtype.is_floating_point:
        info = torch.iinfo(dtype)
        hi = min(info.max, int(rng.choice([9, 1000, 10**6, 10**12, 2**62])))
        lo = max(info.min, -hi)
        return torch.from_numpy(rng.integers(lo, hi, n, endpoint=True)).to(dtype).reshape(
            shape
        ), options
    if rng.random() < 0.3:  # integer-valued floats, some huge
        x = rng.integers(-3000, 3000, n).astype(np.float64) * 10.0 ** rng.integers(0, 12, n)
    else:
        e1, e2 = np.sort(rng.uniform(-12, 12, 2))
        x = rng.choice([-1.0, 1.0], n) * 10.0 ** rng.uniform(e1, e2, n)
    special = rng.random(n) < 0.03
    x[special] = rng.choice(np.array([nan, inf, -inf, 0.0, -0.0]), int(special.sum()))
    return torch.from_numpy(x).to(dtype).reshape(shape), options


_RNG = np.random.default_rng(20240611)
RANDOM_CASES = [_random_case(_RNG) for _ in range(400)]


@pytest.mark.parametrize("case", RANDOM_CASES, ids=[str(i) for i in range(len(RANDOM_CASES))])
def test_random_corpus(case: tuple[Any, dict[str, Any]]) -> None:
    t, options = case
    _set_both(**options)
    _check(t)


def test_requires_grad_and_grad_fn_suffixes() -> None:
    _check(torch.ones(2, requires_grad=True), ("requires_grad=True",))
    _check(torch.ones(2, requires_grad=True) * 2, ("grad_fn=<MulBackward0>",))
    _check(torch.ones(3, dtype=torch.float64, requires_grad=True), ("requires_grad=True",))
    _check(torch.empty(0, 2, requires_grad=True), ("requires_grad=True",))
    # the suffixes wrap onto their own lines once the last line gets too long
    for n in range(1, 30):
        t = torch.ones(n, dtype=torch.float64, requires_grad=True)
        _check(t, ("requires_grad=True",))
        _check(t + 1, ("grad_fn=<AddBackward0>",))
    _check(torch.ones(3, 30, requires_grad=True) / 3, ("grad_fn=<DivBackward0>",))


def test_default_dtype_float64() -> None:
    torch.set_default_dtype(torch.float64)
    for t in [
        T([1.5, 2.0]),
        T([1.5, 2.0], dtype=torch.float32),
        torch.empty(0),
        torch.empty(0, dtype=torch.float32),
        T([1, 2]),
    ]:
        _check(t, default="float64")


def test_device_suffix() -> None:
    def fmt(values: Any, dtype_name: str, **kw: Any) -> str:
        return format_tensor(np.asarray(values), dtype_name=dtype_name, device="opencl:0", **kw)

    assert fmt([1.0, 2.0], "float32") == "tensor([1., 2.], device='opencl:0')"
    assert fmt(np.float32(0.5), "float32") == "tensor(0.5000, device='opencl:0')"
    assert fmt([1.0, 2.0], "float64") == "tensor([1., 2.], device='opencl:0', dtype=ember.float64)"
    assert fmt([1, 2], "int64") == "tensor([1, 2], device='opencl:0')"
    assert fmt(np.zeros((0, 3), np.float32), "float32") == (
        "tensor([], device='opencl:0', size=(0, 3))"
    )
    assert fmt(np.zeros(0, np.int64), "int64") == (
        "tensor([], device='opencl:0', dtype=ember.int64)"
    )
    assert fmt([1.0, 2.0], "float32", suffixes=("requires_grad=True",)) == (
        "tensor([1., 2.], device='opencl:0', requires_grad=True)"
    )
    assert fmt(np.ones(8), "float64") == (
        "tensor([1., 1., 1., 1., 1., 1., 1., 1.], device='opencl:0',\n       dtype=ember.float64)"
    )
    set_printoptions(edgeitems=0)
    assert fmt([1.0, 2.0], "float32") == "tensor([1., 2.], device='opencl:0', size=(2,))"


def test_options_argument_overrides_globals() -> None:
    opts = PrintOptions(precision=2, threshold=5, edgeitems=1)
    got = format_tensor(np.arange(10.0) / 3 + 0.5, dtype_name="float32", options=opts)
    assert got == "tensor([0.50,  ..., 3.50])"
    assert format_tensor(np.array([1 / 3]), dtype_name="float32") == "tensor([0.3333])"


def test_get_and_set_printoptions_match_torch() -> None:
    from torch._tensor_str import get_printoptions as torch_get

    assert get_printoptions() == torch_get()
    for options in OPTION_SETS + [{"profile": "nonexistent"}, {"precision": 3}]:
        _set_both(**options)
        assert get_printoptions() == torch_get()
    assert get_printoptions() == {
        "precision": 3,
        "threshold": inf,
        "edgeitems": 3,
        "linewidth": 40,
        "sci_mode": None,
    }
    set_printoptions(profile="default")
    assert get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }
