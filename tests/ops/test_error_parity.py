"""PyTorch's errors, type and message, for calls it refuses (issue 15, the differential
tester's "raises" classes): each expression runs with ``lib`` bound to ember and to torch,
and both must refuse it the same way, or both return the same values."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
import torch

import ember

INPLACE_CAST = [
    # the promoted dtype cannot be stored in self: checked before any kernel is looked for
    "lib.tensor([1, 2], dtype=lib.int16).bitwise_and_(lib.tensor([1.0, 2.0]))",
    "lib.tensor([1, 2], dtype=lib.int16).bitwise_or_(lib.tensor([1.0, 2.0]))",
    "lib.tensor([True, False]).bitwise_xor_(lib.tensor([1.0, 0.0]))",
    "lib.tensor([1, 2], dtype=lib.int32).bitwise_left_shift_(lib.tensor([1.0], dtype=lib.half))",
    "lib.tensor([1, 2], dtype=lib.int16).bitwise_right_shift_(lib.tensor([1.0], dtype=lib.double))",
    "lib.tensor([4, 6], dtype=lib.int8).gcd_(lib.tensor([2.0, 3.0], dtype=lib.float64))",
    "lib.tensor([1, 2], dtype=lib.int16).add_(lib.tensor([1.0, 2.0]))",
    "lib.tensor([1, 2], dtype=lib.int16).bitwise_and_(lib.tensor([3, 1]))",  # accepted
    "lib.tensor([4, 6], dtype=lib.int8).gcd_(lib.tensor([2, 3], dtype=lib.int8))",  # accepted
]

SUB_BOOL = [
    "lib.tensor([1.0]) - True",
    "True - lib.tensor([1.0])",
    "True - lib.tensor([True])",
    "lib.tensor([True]) - 1",
    "lib.tensor([1.0]) - lib.tensor([True])",
    "lib.tensor([True]) - lib.tensor([1.0])",
    "lib.tensor([True]) - lib.tensor([True])",
    "lib.rsub(lib.tensor([True]), 1.0)",
    "lib.rsub(lib.tensor([1.0]), lib.tensor([True]))",
    "lib.tensor([1.0]).sub_(lib.tensor([True]))",
    "lib.sub(lib.tensor([1.0]), lib.tensor([True]), out=lib.empty(1))",
    "lib.tensor([3, 4]) - lib.tensor([1, 1])",  # accepted
    "2 - lib.tensor([1.0])",  # accepted
]

ZERO_DIM_DIMS = [
    "lib.tensor(2.0).logsumexp(1)",
    "lib.tensor(2.0).logsumexp(-1)",
    "lib.tensor(2.0).logsumexp((0, -1))",
    "lib.tensor(2.0).logsumexp([])",
    "lib.tensor(2.0).flatten(1, 1)",
    "lib.tensor(2.0).flatten(-2, 0)",
    "lib.tensor(2.0).flatten(0, -1)",
    "lib.tensor(2).movedim(0, -1)",
    "lib.tensor(2).movedim(1, 0)",
    "lib.tensor(2).movedim([0], [-1])",
]

OTHERS = [
    "lib.tensor([1, 2], dtype=lib.int8).masked_scatter("
    "lib.tensor([True, False]), lib.tensor([1.0, 2.0], dtype=lib.float64))",
    "lib.tensor([1, 2], dtype=lib.int8).masked_scatter_("
    "lib.tensor([True, False]), lib.tensor([1.0, 2.0], dtype=lib.float64))",
    "lib.tensor([1, 2], dtype=lib.int8).masked_scatter("
    "lib.tensor([True, False]), lib.tensor([5, 6], dtype=lib.int8))",
    "lib.tensor([1, 2], dtype=lib.int8).lcm(lib.tensor([True, False]))",
    "lib.tensor([True, False]).lcm(lib.tensor([3, 4]))",
    "lib.tensor([6, 4]).lcm(lib.tensor([4, 6], dtype=lib.int32))",
]

# the order of checks decides which error a call with two faults gets
QUANTILE_HISTOGRAM = [
    "lib.quantile(lib.tensor([1.0]), 2.0, 5)",
    "lib.quantile(lib.tensor([]), 2.0, 5)",
    "lib.quantile(lib.tensor([1.0]), 0.5, 5)",
    "lib.quantile(lib.tensor([1.0]), lib.tensor([2.0]), 5)",
    "lib.quantile(lib.tensor(6.3, dtype=lib.float64), lib.tensor([0.5], dtype=lib.float64), 1)",
    "lib.quantile(lib.tensor([1.0]), lib.tensor([2.0]))",
    "lib.quantile(lib.tensor([]), lib.tensor([2.0]), 0)",
    "lib.quantile(lib.tensor([1.0, 3.0]), lib.tensor([0.5]))",
    "lib.nanquantile(lib.tensor([1.0, float('nan')]), lib.tensor([-1.0]), 0)",
    "lib.nanquantile(lib.tensor([1]), 0.5)",
    "lib.nanquantile(lib.tensor([]), 0.5)",
    "lib.nanquantile(lib.tensor([1.0]), 0.5, interpolation='x')",
    "lib.histogram(lib.tensor([1.0, float('inf')]), bins=3)",
    "lib.histogram(lib.tensor([1.0, float('nan')]), bins=3)",
    "lib.histogram(lib.tensor([1.0, 2.0]), bins=3, range=(-float('inf'), 2.0))",
    "lib.histogram(lib.tensor([1.0, 2.0]), bins=3, range=(0.0, float('nan')))",
    "lib.histogram(lib.tensor([1.0, 2.0]), bins=3, range=(0.5, 2.5)).hist",
]

BATCH_NORM_EMPTY = [
    "lib.ops.aten.native_batch_norm(lib.ones(4, 3, 0), None, None, None, None, True, 0.1, 1e-5)",
    "lib.ops.aten.native_batch_norm("
    "lib.ones(4, 3, 0), None, None, lib.zeros(3), lib.ones(3), False, 0.1, 1e-5)[1]",
    "lib.nn.functional.batch_norm(lib.ones(4, 3, 0), None, None, training=True)",
    "lib.nn.functional.batch_norm(lib.ones(0, 3), lib.zeros(3), lib.ones(3), training=True)",
    "lib.nn.functional.batch_norm(lib.ones(0, 3), lib.zeros(3), lib.ones(3), training=False)",
    "lib.nn.BatchNorm2d(3)(lib.ones(0, 3, 2, 2))",
]

UNIFORM = [
    f"lib.empty({shape}, dtype=lib.{dtype}).uniform_({low}, {high})"
    for shape in ("3", "(4, 3, 0)")
    for dtype, low, high in [
        ("float32", "-1e39", "0"),
        ("float32", "0", "1e39"),
        ("float32", "-3e38", "3e38"),
        ("float32", "1.5", "0.5"),
        ("float32", "1", "0"),
        ("float16", "0", "70000"),
        ("bfloat16", "0", "1e39"),
        ("float32", "0", "float('nan')"),
        ("float32", "-float('inf')", "0"),
        ("float64", "-1e308", "1e308"),
    ]
]

DTYPES = ["float32", "float64", "float16", "int64", "int16", "int8", "uint8", "bool"]
SHAPES = [
    ((3,), (3,)),
    ((2, 3), (3,)),
    ((3,), (3, 2)),
    ((2, 3), (3, 2)),
    ((1, 2, 3), (3,)),
    ((1, 2, 3), (3, 2)),
    ((1, 2, 3), (1, 3, 2)),
    ((2, 3), (1, 3, 2)),
    ((3,), (1, 3, 2)),
]
# matmul picks dot, mv, mm or bmm by the shapes; each kernel words the dtype error its own way
MATMUL = [
    f"lib.ones({sa}, dtype=lib.{a}) @ lib.ones({sb}, dtype=lib.{b})"
    for (sa, sb), a, b in itertools.product(SHAPES, DTYPES, DTYPES)
    if a != b or a == "bool"
] + [
    f"lib.{f}(lib.ones({sa}, dtype=lib.{a}), lib.ones({sb}, dtype=lib.{b}))"
    for f, sa, sb in [
        ("mm", (2, 3), (3, 2)),
        ("bmm", (1, 2, 3), (1, 3, 2)),
        ("mv", (2, 3), (3,)),
        ("dot", (3,), (3,)),
    ]
    for a, b in itertools.product(DTYPES, DTYPES)
    if a != b or a == "bool"
]


def _outcome(lib, expr: str):
    try:
        value = eval(expr, {"lib": lib})
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e)
    if isinstance(value, (ember.Tensor, torch.Tensor)):
        return "value", str(value.dtype).split(".")[-1], np.asarray(value.tolist()).tolist()
    return "value", value


@pytest.mark.parametrize(
    "expr",
    INPLACE_CAST
    + SUB_BOOL
    + ZERO_DIM_DIMS
    + OTHERS
    + QUANTILE_HISTOGRAM
    + BATCH_NORM_EMPTY
    + UNIFORM,
)
def test_refused_as_torch_refuses(expr: str) -> None:
    assert _outcome(ember, expr) == _outcome(torch, expr)


def test_matmul_dtype_errors_name_the_kernel_torch_picks() -> None:
    differ = [e for e in MATMUL if _outcome(ember, e) != _outcome(torch, e)]
    assert len(MATMUL) > 500
    assert not differ, f"{len(differ)} of {len(MATMUL)} differ, e.g. {differ[:3]}"


def test_uniform_still_draws_in_range() -> None:
    x = ember.empty(1000, dtype=ember.float64).uniform_(-2.0, 3.0)
    assert -2.0 <= x.min().item() and x.max().item() < 3.0
    wide = ember.empty(1000, dtype=ember.float64).uniform_(-1e300, 1e300)  # to - from is finite
    assert wide.isfinite().all() and wide.min().item() < 0 < wide.max().item()


def test_xlogy_gradient_at_zero_is_torchs() -> None:
    # d/dx xlogy(x, y) is log(y) at x == 0 too (0 where y <= 0 or y is inf, not NaN)
    inf, nan = float("inf"), float("nan")
    xs = [-0.0, 0.0, 0.0, 0.0, 1.0, -1.0, 2.0]
    ys = [2.0, 0.0, -1.0, nan, 0.0, 3.0, inf]
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(xs, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(ys, dtype=lib.float64)
        out = lib.xlogy(x, y)
        out.sum().backward()
        grads.append((out.detach().tolist(), x.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-15)  # (NaN == NaN; -0.0 == 0.0)


@pytest.mark.parametrize("op", ["copysign", "remainder", "fmod"])
def test_gradients_at_infinities_are_torchs(op: str) -> None:
    # copysign: result / self (NaN at an infinite self); remainder/fmod: the other's gradient
    # is minus the floor (trunc) division, which is -1 for -3 // inf
    inf, nan = float("inf"), float("nan")
    xs = [-inf, inf, 0.0, -0.0, 2.0, nan, -3.0, 3.0]
    ys = [1.0, -1.0, -1.0, 1.0, -2.0, 1.0, inf, -inf]
    grads = []
    for lib in (ember, torch):
        x = lib.tensor(xs, dtype=lib.float64, requires_grad=True)
        y = lib.tensor(ys, dtype=lib.float64, requires_grad=True)
        getattr(lib, op)(x, y).sum().backward()
        grads.append((x.grad.tolist(), None if y.grad is None else y.grad.tolist()))
    np.testing.assert_allclose(grads[0][0], grads[1][0])
    if grads[1][1] is not None:
        np.testing.assert_allclose(grads[0][1], grads[1][1])


def test_batch_norm_of_an_empty_batch_keeps_the_graph_and_the_statistics() -> None:
    for lib in (ember, torch):
        m = lib.nn.BatchNorm1d(3)
        x = lib.ones(0, 3, requires_grad=True)
        m(x).sum().backward()
        assert x.grad.shape == (0, 3) and m.weight.grad.tolist() == [0.0, 0.0, 0.0]
        assert m.running_mean.tolist() == [0.0] * 3 and m.running_var.tolist() == [1.0] * 3
