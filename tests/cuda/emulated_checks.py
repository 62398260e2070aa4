"""ember-cuda's indexing primitives on the emulated device (``cuda_emulator``) vs PyTorch.

Run as a script (``python emulated_checks.py``) in a fresh interpreter: it installs the
emulator before ember loads the ``cuda`` plugin, runs every check and prints one JSON
object, check name -> "ok" or what went wrong. ``test_cuda_emulated.py`` runs it and
turns each entry into a test; ``CHECKS`` names them without running anything. With
``--gpu`` the same checks run on a real GPU (``tools/gpu_check.sh``).
"""

from __future__ import annotations

import json
import sys
import traceback
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

CHECKS: dict[str, Callable[[], None]] = {}
EMULATED = "--gpu" not in sys.argv
_rng = np.random.default_rng(0)


def check(fn: Callable[[], None]) -> Callable[[], None]:
    CHECKS[fn.__name__] = fn
    return fn


def E(a: Any, dtype: str | None = None) -> Any:  # noqa: N802 - an ember cuda tensor
    import ember

    t = ember.from_numpy(np.array(a)).to("cuda")
    return t if dtype is None else t.to(getattr(ember, dtype))


def T(a: Any, dtype: str | None = None) -> Any:  # noqa: N802 - a torch tensor (a copy)
    import torch

    t = torch.from_numpy(np.array(a))
    return t if dtype is None else t.to(getattr(torch, dtype))


def same(got: Any, want: Any, what: str) -> None:
    g = got.cpu().numpy()
    w = want.numpy()
    assert g.shape == w.shape, f"{what}: shape {g.shape} != {w.shape}"
    assert np.array_equal(g.astype(np.float64), w.astype(np.float64), equal_nan=True), (
        f"{what}:\n{g}\n!=\n{w}"
    )


def raises(fn: Callable[[], Any], kind: type, text: str) -> None:
    try:
        fn()
    except kind as e:
        assert text in str(e), f"{text!r} not in {e!r}"
        return
    raise AssertionError(f"no {kind.__name__} ({text})")


_SCATTER_DTYPES = ("float32", "float64", "int64", "int16", "int8")


@check
def gather_strided_and_errors() -> None:
    import torch

    import ember

    x = _rng.standard_normal((5, 6)).astype(np.float32)
    idx = _rng.integers(0, 6, (4, 3))
    same(ember.gather(E(x), 1, E(idx)), torch.gather(T(x), 1, T(idx)), "gather")
    xi, i0 = _rng.integers(-5, 5, (5, 6)), _rng.integers(0, 6, (2, 5))
    same(ember.gather(E(xi).t(), 0, E(i0)), torch.gather(T(xi).t(), 0, T(i0)), "strided")
    bad = np.array([[2, 6]])
    raises(lambda: ember.gather(E(x), 1, E(bad)), RuntimeError,
           "index 6 is out of bounds for dimension 1 with size 6")  # fmt: skip
    raises(lambda: ember.gather(E(x), 1, E(-bad)), RuntimeError, "index -2 is out of bounds")


@check
def scatter_reduce_every_reduce_and_dtype() -> None:
    base = _rng.integers(-4, 9, (5, 4)).astype(np.float32)
    src = _rng.integers(-4, 9, (6, 4)).astype(np.float32)
    ix = _rng.integers(0, 5, (6, 4))  # duplicates: the reductions must combine them
    for dt in _SCATTER_DTYPES:
        for red in ("sum", "prod", "mean", "amax", "amin"):
            for inc in (True, False):
                want = T(base, dt).scatter_reduce(0, T(ix), T(src, dt), red, include_self=inc)
                got = E(base, dt).scatter_reduce(0, E(ix), E(src, dt), red, include_self=inc)
                same(got, want, f"{dt} {red} include_self={inc}")
    # along dim 1 of a strided self, and plain scatter (distinct targets)
    want = T(base).t().scatter_add(1, T(ix[:3, :2].T), T(src).t())
    same(E(base).t().scatter_add(1, E(ix[:3, :2].T), E(src).t()), want, "strided dim 1")
    ixu = np.stack([_rng.permutation(5)[:4] for _ in range(4)], 1)
    for dt in ("float32", "int8", "float16"):
        want = T(base, dt).scatter(0, T(ixu), T(src[:4], dt))
        same(E(base, dt).scatter(0, E(ixu), E(src[:4], dt)), want, f"scatter {dt}")


@check
def scatter_bad_index_leaves_self_unchanged() -> None:
    x = E(np.zeros((2, 3), np.float32))
    one = E(np.ones((1, 2), np.float32))
    raises(lambda: x.scatter_add_(1, E(np.array([[1, 9]])), one), RuntimeError,
           "scatter(): index 9 is out of bounds for dimension 1 with size 3")  # fmt: skip
    assert x.cpu().numpy().sum() == 0


@check
def advanced_indexing() -> None:
    x = _rng.standard_normal((4, 5, 3)).astype(np.float32)
    a, b = _rng.integers(-4, 4, (6,)), _rng.integers(0, 5, (2, 2))
    same(E(x)[E(a)], T(x)[T(a)], "rows, negative indices")
    same(E(x)[:, E(b)], T(x)[:, T(b)], "middle dim")
    i, j = a[:3] % 5, a[:3]
    same(E(x).transpose(0, 1)[E(i), E(j)], T(x).transpose(0, 1)[T(i), T(j)], "strided")
    m = x > 0
    same(E(x)[E(m)], T(x)[T(m)], "mask")
    raises(lambda: E(x)[E(np.array([4]))], IndexError,
           "index 4 is out of bounds for dimension 0 with size 4")  # fmt: skip
    raises(lambda: E(x)[E(np.array([-5]))], IndexError, "index -5 is out of bounds")


@check
def index_put_assign_and_accumulate() -> None:
    xx = _rng.integers(0, 3, (4, 3)).astype(np.float32)
    v = _rng.integers(0, 3, (5, 3)).astype(np.float32)
    ii = _rng.integers(-4, 4, (5,))  # duplicates and negative indices
    for dt in ("float32", "int64", "bool", "uint8", "float16"):
        want = T(xx, dt).index_put_((T(ii),), T(v, dt), accumulate=True)
        same(E(xx, dt).index_put_((E(ii),), E(v, dt), accumulate=True), want, f"acc {dt}")
        k = np.array([3, 0])
        want = T(xx, dt).index_put_((T(k),), T(v[:2], dt))
        same(E(xx, dt).index_put_((E(k),), E(v[:2], dt)), want, f"assign {dt}")
    y, yt = E(xx), T(xx)
    y[E(xx > 1)] = 0.5
    yt[T(xx > 1)] = 0.5
    same(y, yt, "mask fill")
    y[:, E(np.array([2, 0]))] = E(np.ones((4, 2), np.float32))
    yt[:, T(np.array([2, 0]))] = 1
    same(y, yt, "columns, strided self")
    before = y.cpu().numpy().copy()
    raises(lambda: y.index_put_((E(np.array([1, -5])),), E(np.float32(2))), IndexError,
           "index -5 is out of bounds for dimension 0 with size 4")  # fmt: skip
    assert np.array_equal(y.cpu().numpy(), before), "a bad index wrote into self"


@check
def nonzero_shapes_and_dtypes() -> None:
    import torch

    import ember

    for shape in ((3, 4), (5,), (0, 3), (), (70, 130)):
        a = _rng.integers(-1, 2, shape).astype(np.float32)
        same(ember.nonzero(E(a)), torch.nonzero(T(a)), f"shape {shape}")
    a = _rng.integers(-1, 2, (70, 130)).astype(np.float32)
    same(ember.nonzero(E(a).t()), torch.nonzero(T(a).t()), "strided, several blocks")
    f = np.array([[0, -0.0, 1], [np.nan, 0, -2]], np.float32)
    for dt in ("float32", "float16", "bool"):
        same(ember.nonzero(E(f, dt)), torch.nonzero(T(f, dt)), f"-0.0 and NaN in {dt}")


@check
def sort_stable_nan_last_any_length() -> None:
    import torch

    import ember

    for shape, dim in (((4, 6), 1), ((6, 4), 0), ((2, 1000), 1), ((7,), 0)):
        for dt in ("float32", "int64", "bool", "float16"):
            a = _rng.integers(-3, 4, shape).astype(np.float32)  # many ties: stability shows
            if dt.startswith("float"):
                a.flat[::7] = np.nan
            for desc in (False, True):
                vt, it = torch.sort(T(a, dt), dim=dim, descending=desc, stable=True)
                ve, ie = ember.sort(E(a, dt), dim=dim, descending=desc, stable=True)
                what = f"{shape} dim={dim} {dt} descending={desc}"
                same(ve, vt, what + " values")
                same(ie, it, what + " indices")
    x = E(_rng.standard_normal((3, 5)).astype(np.float32)).t()  # a strided input
    same(ember.sort(x, dim=0, stable=True)[1], torch.sort(T(x.cpu().numpy()), dim=0)[1], "t()")


@check
def cuda_array_interface_and_non_blocking_upload() -> None:
    import cuda_emulator
    import ember_cuda
    from ember_cuda._runtime import devices

    import ember
    from ember.core.backend import host_to_device

    x = E(np.arange(6, dtype=np.float32)).reshape(2, 3)
    cai = x.__cuda_array_interface__
    assert cai["shape"] == (2, 3) and cai["typestr"] == "<f4" and cai["version"] == 3, cai
    assert cai["data"] == (x._storage.data.ptr, False) and cai["strides"] is None, cai
    assert cai["stream"] == 1, cai  # the legacy default stream: consumers order after it
    assert x.t().__cuda_array_interface__["strides"] == (4, 12)
    raises(lambda: x.requires_grad_().__cuda_array_interface__, RuntimeError, "requires grad")
    b, dev = ember_cuda.plugin.backend, ember.device("cuda", 0)
    a = np.arange(10, dtype=np.uint8)
    staged = len(cuda_emulator._Cuda.pinned)
    block = host_to_device(b, a, dev, non_blocking=True)
    if EMULATED:
        assert len(cuda_emulator._Cuda.pinned) == staged + 1, "not staged in pinned memory"
    assert len(devices()[0]._pending) == 1, "the staging buffer is not kept until done"
    a[:] = 0  # the caller may reuse its array at once
    assert b.to_host(block, 0, 10, dev).tolist() == list(range(10))
    ember.cuda.synchronize()
    assert devices()[0]._pending == []
    y = ember.arange(4.0).to("cuda", non_blocking=True)
    assert y.device.type == "cuda" and y.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]


def main() -> None:
    sys.path.insert(0, str(Path(__file__).parent))
    import cuda_emulator

    if EMULATED:
        cuda_emulator.install()
    else:
        import ember

        assert ember.cuda.is_available(), "--gpu: ember sees no CUDA device"
    names = [a for a in sys.argv[1:] if a != "--gpu"] or list(CHECKS)
    results = {}
    for name in names:
        try:
            CHECKS[name]()
            results[name] = "ok"
        except Exception:  # noqa: BLE001 - every failure is reported, the others still run
            results[name] = traceback.format_exc(limit=6)
    print(json.dumps(results))


if __name__ == "__main__":
    main()
