"""Differential checks against PyTorch: run one lambda on both libraries and compare.

``diff(fn, *args)`` converts numpy arrays in ``args`` (also inside lists) to tensors
of each library, calls ``fn(lib, *tensors)`` with ``lib`` the ``torch`` or ``ember``
module, and asserts the same result: values (exactly for integers and bools, to
float64 round-off otherwise), shape and dtype, for a tensor or a tuple/list of them;
or the same exception type when PyTorch raises (and ``match`` in ember's message).
``grad_diff`` also compares the gradients of ``sum(out * w)`` for a random ``w``.
"""

from __future__ import annotations

import re
from typing import Any

import numpy as np
import torch

import ember

RNG = np.random.default_rng(1234)

__all__ = ["diff", "grad_diff", "RNG", "to_lib", "as_np", "randn", "ints"]


def randn(*shape: int) -> np.ndarray:
    return RNG.standard_normal(shape)


def ints(low: int, high: int, *shape: int) -> np.ndarray:
    return RNG.integers(low, high, size=shape)


def to_lib(lib: Any, a: Any, grad: bool = False) -> Any:
    if isinstance(a, np.ndarray):
        t = lib.tensor(a) if a.ndim else lib.tensor(a.item())
        if a.dtype == np.int32:
            t = t.to(lib.int32)
        if grad and a.dtype == np.float64:
            t.requires_grad_(True)
        return t
    if isinstance(a, list) and a and all(isinstance(x, np.ndarray) for x in a):
        return [to_lib(lib, x, grad) for x in a]
    if isinstance(a, tuple) and a and all(isinstance(x, np.ndarray) for x in a):
        return tuple(to_lib(lib, x, grad) for x in a)
    return a


def as_np(x: Any) -> Any:
    if isinstance(x, torch.Tensor):
        x = x.detach()
        if x.dtype == torch.bfloat16:
            x = x.float()
        return x.numpy()
    if isinstance(x, ember.Tensor):
        x = x.detach()
        if x.dtype == ember.bfloat16:
            x = x.float()
        return x.numpy()
    return x


def _dtype_name(x: Any) -> str:
    return str(x.dtype).split(".")[-1]


def _same(e: Any, t: Any, where: str = "result") -> None:
    if isinstance(t, torch.Tensor):
        assert isinstance(e, ember.Tensor), f"{where}: expected a tensor, got {type(e).__name__}"
        assert tuple(e.shape) == tuple(t.shape), f"{where}: shape {tuple(e.shape)} != {t.shape}"
        assert _dtype_name(e) == _dtype_name(t), f"{where}: dtype {e.dtype} != {t.dtype}"
        ea, ta = as_np(e), as_np(t)
        if ta.dtype.kind in "fc":
            tol = {"float16": 2e-3, "bfloat16": 2e-2, "float32": 2e-6}.get(_dtype_name(t), 1e-12)
            np.testing.assert_allclose(ea, ta, rtol=tol, atol=tol, equal_nan=True, err_msg=where)
        else:
            np.testing.assert_array_equal(ea, ta, err_msg=where)
    elif isinstance(t, (tuple, list)):
        assert isinstance(e, (tuple, list)), f"{where}: expected a sequence, got {type(e)}"
        assert len(e) == len(t), f"{where}: {len(e)} results != {len(t)}"
        for i, (a, b) in enumerate(zip(e, t)):
            _same(a, b, f"{where}[{i}]")
    elif isinstance(t, torch.Size):
        assert tuple(e) == tuple(t), f"{where}: {e} != {t}"
    elif isinstance(t, torch.dtype):
        assert str(e).split(".")[-1] == str(t).split(".")[-1], f"{where}: {e} != {t}"
    else:
        assert e == t, f"{where}: {e!r} != {t!r}"


def diff(fn: Any, *args: Any, match: str | None = None) -> Any:
    """Compare ``fn(torch, ...)`` and ``fn(ember, ...)``; returns ember's result."""
    try:
        expected = fn(torch, *(to_lib(torch, a) for a in args))
    except Exception as exc:  # noqa: BLE001 - the oracle decides what is an error
        kind = type(exc)
        base = next(k for k in kind.__mro__ if k.__module__ == "builtins")
        try:
            got = fn(ember, *(to_lib(ember, a) for a in args))
        except Exception as mine:  # noqa: BLE001
            assert isinstance(mine, base), f"torch raised {kind.__name__}: {exc}; ember {mine!r}"
            if match is not None:
                assert re.search(match, str(mine)), f"{mine} does not match {match!r}"
            return None
        raise AssertionError(
            f"torch raised {kind.__name__}: {exc}; ember returned {got!r}"
        ) from None
    got = fn(ember, *(to_lib(ember, a) for a in args))
    _same(got, expected)
    return got


def _flat(x: Any) -> list[Any]:
    if isinstance(x, (tuple, list)):
        return [y for v in x for y in _flat(v)]
    return [x]


def grad_diff(fn: Any, *args: Any) -> None:
    """Compare values and the gradients of every float64 array argument."""
    targs = [to_lib(torch, a, True) for a in args]
    eargs = [to_lib(ember, a, True) for a in args]
    tout, eout = fn(torch, *targs), fn(ember, *eargs)
    _same(eout, tout)
    touts = [o for o in _flat(tout) if o.requires_grad]
    eouts = [o for o in _flat(eout) if isinstance(o, ember.Tensor) and o.requires_grad]
    assert len(touts) == len(eouts), "different outputs require grad"
    if not touts:
        return
    tl, el = 0, 0
    for t, e in zip(touts, eouts):
        w = RNG.standard_normal(tuple(t.shape))
        tl = tl + (t * torch.tensor(w)).sum()
        el = el + (e * ember.tensor(w)).sum()
    tl.backward()
    el.backward()
    for i, (t, e) in enumerate(zip(_flat(targs), _flat(eargs))):
        if isinstance(t, torch.Tensor) and t.requires_grad:
            assert (t.grad is None) == (e.grad is None), f"grad of argument {i}"
            if t.grad is not None:
                _same(e.grad, t.grad, f"grad of argument {i}")
