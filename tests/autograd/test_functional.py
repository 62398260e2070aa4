"""``ember.autograd.functional`` against ``torch.autograd.functional`` on random inputs."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import numpy as np
import pytest
import torch
import torch.autograd.functional as TAF

import ember
import ember.autograd.functional as EAF

RNG = np.random.default_rng(0)


def _arrays(*shapes: tuple[int, ...]) -> list[np.ndarray]:
    return [RNG.standard_normal(s) for s in shapes]


def _to(lib: Any, arrays: list[np.ndarray], single: bool) -> Any:
    ts = tuple(lib.tensor(a) for a in arrays)
    return ts[0] if single else ts


def _close(a: Any, b: Any) -> None:
    if isinstance(b, tuple):
        assert isinstance(a, tuple) and len(a) == len(b)
        for x, y in zip(a, b):
            _close(x, y)
        return
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)


#: name -> (function of (lib, *inputs), input shapes, single input?)
FUNCS: dict[str, tuple[Callable[..., Any], list[tuple[int, ...]], bool]] = {
    "elementwise": (lambda L, x: x.sin() * x, [(3,)], True),
    "matrix": (lambda L, x: (x @ x.t()).tanh(), [(2, 3)], True),
    "two_inputs": (lambda L, x, w: (x @ w).exp(), [(2, 3), (3, 4)], False),
    "tuple_out": (lambda L, x, w: (x * w, (x - w).sum()), [(3,), (3,)], False),
    "unused_input": (lambda L, x, w: x * 2, [(3,), (2,)], False),
}


@pytest.mark.parametrize("name", sorted(FUNCS))
def test_jacobian_and_vjp_match_torch(name: str) -> None:
    fn, shapes, single = FUNCS[name]
    arrays = _arrays(*shapes)
    je = EAF.jacobian(lambda *a: fn(ember, *a), _to(ember, arrays, single))
    jt = TAF.jacobian(lambda *a: fn(torch, *a), _to(torch, arrays, single))
    _close(je, jt)
    outs = fn(torch, *_to(torch, arrays, False))
    vs = [
        RNG.standard_normal(tuple(o.shape)) for o in (outs if isinstance(outs, tuple) else (outs,))
    ]
    ve = EAF.vjp(lambda *a: fn(ember, *a), _to(ember, arrays, single), _to(ember, vs, len(vs) == 1))
    vt = TAF.vjp(lambda *a: fn(torch, *a), _to(torch, arrays, single), _to(torch, vs, len(vs) == 1))
    _close(ve, vt)
    us = _arrays(*shapes)
    ee = EAF.jvp(lambda *a: fn(ember, *a), _to(ember, arrays, single), _to(ember, us, single))
    et = TAF.jvp(lambda *a: fn(torch, *a), _to(torch, arrays, single), _to(torch, us, single))
    _close(ee, et)


@pytest.mark.parametrize(
    "fn,shapes,single",
    [
        (lambda L, x: (x**3).sum() + (x[0] * x[1]), [(3,)], True),
        (lambda L, x, w: ((x @ w).tanh() ** 2).sum(), [(2, 3), (3,)], False),
    ],
)
def test_hessian_vhp_hvp_match_torch(fn: Any, shapes: Any, single: bool) -> None:
    arrays = _arrays(*shapes)
    _close(
        EAF.hessian(lambda *a: fn(ember, *a), _to(ember, arrays, single)),
        TAF.hessian(lambda *a: fn(torch, *a), _to(torch, arrays, single)),
    )
    vs = _arrays(*shapes)
    for ef, tf in ((EAF.vhp, TAF.vhp), (EAF.hvp, TAF.hvp)):
        _close(
            ef(lambda *a: fn(ember, *a), _to(ember, arrays, single), _to(ember, vs, single)),
            tf(lambda *a: fn(torch, *a), _to(torch, arrays, single), _to(torch, vs, single)),
        )


def test_create_graph_strict_and_errors() -> None:
    x = ember.tensor([1.0, 2.0], requires_grad=True)
    j = EAF.jacobian(lambda t: t**3, x, create_graph=True)
    assert j.requires_grad
    (g,) = ember.autograd.grad(j.sum(), x)  # d/dx sum(diag(3 x^2)) = 6x
    assert g.tolist() == [6.0, 12.0]
    assert not EAF.jacobian(lambda t: t**3, x).requires_grad and x.grad is None
    with pytest.raises(RuntimeError, match="independent of input 1"):
        EAF.jacobian(lambda a, b: a * 2, (x, ember.ones(2)), strict=True)
    with pytest.raises(RuntimeError, match="The vector v can only be None"):
        EAF.vjp(lambda t: t * 2, x)
    with pytest.raises(TypeError, match="must be either a Tensor or a tuple of Tensors"):
        EAF.jacobian(lambda t: t, [1.0])
