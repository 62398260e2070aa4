"""nn.utils.parametrize and nn.utils.parametrizations (weight_norm, spectral_norm) against
PyTorch: class swap, state-dict names, forward and gradients, assignment through
right_inverse, caching and removal."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from torch.nn.utils import parametrizations as TP
from torch.nn.utils import parametrize as tparam

import ember
import ember.nn as nn
from ember.nn.utils import parametrizations as P
from ember.nn.utils import parametrize

RNG = np.random.default_rng(8)


def _symmetric(lib):
    class Symmetric(lib.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)

        def right_inverse(self, a):
            return a.triu()

    return Symmetric()


def _load(e, t):
    es, ts = e.state_dict(), t.state_dict()
    assert list(es) == list(ts)
    with ember.no_grad():
        for k, v in ts.items():
            es[k].copy_(ember.from_numpy(v.detach().numpy().copy()))


def _compare(e, t, x):
    ex, tx = (
        ember.from_numpy(x.copy()).requires_grad_(),
        torch.from_numpy(x.copy()).requires_grad_(),
    )
    ey, ty = e(ex), t(tx)
    np.testing.assert_allclose(ey.detach().numpy(), ty.detach().numpy(), rtol=1e-10)
    (ey * ey).sum().backward()
    (ty * ty).sum().backward()
    np.testing.assert_allclose(ex.grad.numpy(), tx.grad.numpy(), rtol=1e-9)
    for (n1, p1), (n2, p2) in zip(e.named_parameters(), t.named_parameters()):
        assert n1 == n2
        np.testing.assert_allclose(p1.grad.numpy(), p2.grad.numpy(), rtol=1e-9, err_msg=n1)


def test_register_parametrization_like_torch():
    e = parametrize.register_parametrization(
        nn.Linear(3, 3, dtype=ember.float64), "weight", _symmetric(nn)
    )
    t = tparam.register_parametrization(
        torch.nn.Linear(3, 3, dtype=torch.float64), "weight", _symmetric(torch.nn)
    )
    assert type(e).__name__ == type(t).__name__ == "ParametrizedLinear"
    assert isinstance(e, nn.Linear) and parametrize.type_before_parametrizations(e) is nn.Linear
    assert list(e.state_dict()) == list(t.state_dict())
    _load(e, t)
    w = e.weight.detach().numpy()
    np.testing.assert_array_equal(w, w.T)
    _compare(e, t, RNG.standard_normal((4, 3)))
    assert parametrize.is_parametrized(e) and parametrize.is_parametrized(e, "weight")
    assert not parametrize.is_parametrized(e, "bias")
    # assignment goes through right_inverse
    a = RNG.standard_normal((3, 3))
    e.weight = ember.from_numpy(a.copy())
    t.weight = torch.from_numpy(a.copy())
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy())
    # removal keeps the parametrized value and restores the class
    parametrize.remove_parametrizations(e, "weight")
    tparam.remove_parametrizations(t, "weight")
    assert type(e) is nn.Linear and list(e.state_dict()) == list(t.state_dict())
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy())
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        parametrize.remove_parametrizations(e, "weight")


def test_chained_parametrizations_cache_and_errors():
    m = nn.Linear(3, 3)
    parametrize.register_parametrization(m, "weight", _symmetric(nn))

    class Double(nn.Module):
        def forward(self, x):
            return x * 2

    parametrize.register_parametrization(m, "weight", Double())
    assert len(m.parametrizations.weight) == 2
    w = m.weight.detach().numpy()
    np.testing.assert_allclose(w, w.T)
    with parametrize.cached():
        assert m.weight is m.weight
    assert m.weight is not m.weight

    class Shrink(nn.Module):
        def forward(self, x):
            return x[:2]

    with pytest.raises(ValueError, match="may not change the shape or dtype"):
        parametrize.register_parametrization(nn.Linear(3, 3), "weight", Shrink())
    with pytest.raises(ValueError, match="does not have a parameter, a buffer"):
        parametrize.register_parametrization(nn.Linear(3, 3), "foo", Double())
    parametrize.remove_parametrizations(m, "weight", leave_parametrized=False)
    assert type(m) is nn.Linear


@pytest.mark.parametrize("dim", [0, 1, None])
def test_parametrized_weight_norm_matches_torch(dim):
    e = P.weight_norm(nn.Linear(4, 3, dtype=ember.float64), dim=dim)
    t = TP.weight_norm(torch.nn.Linear(4, 3, dtype=torch.float64), dim=dim)
    assert list(e.state_dict()) == list(t.state_dict())
    for k in ("original0", "original1"):
        assert tuple(getattr(e.parametrizations.weight, k).shape) == tuple(
            getattr(t.parametrizations.weight, k).shape
        )
    _load(e, t)
    _compare(e, t, RNG.standard_normal((5, 4)))
    parametrize.remove_parametrizations(e, "weight")
    tparam.remove_parametrizations(t, "weight")
    np.testing.assert_allclose(e.weight.detach().numpy(), t.weight.detach().numpy())
    assert isinstance(e.weight, nn.Parameter)


@pytest.mark.parametrize(
    "make", [lambda m, dt: m.Linear(5, 4, dtype=dt), lambda m, dt: m.Conv2d(2, 3, 2, dtype=dt)]
)
def test_parametrized_spectral_norm_matches_torch(make):
    e = P.spectral_norm(make(nn, ember.float64), n_power_iterations=2)
    t = TP.spectral_norm(make(torch.nn, torch.float64), n_power_iterations=2)
    assert list(e.state_dict()) == list(t.state_dict())
    _load(e, t)
    shape = (3, 5) if isinstance(e, nn.Linear) else (2, 2, 4, 4)
    for _ in range(2):
        _compare(e, t, RNG.standard_normal(shape))
        e.zero_grad(), t.zero_grad()
    u_e = e.parametrizations.weight[0]._u.numpy()
    np.testing.assert_allclose(u_e, t.parametrizations.weight[0]._u.numpy(), rtol=1e-10)
    e.eval(), t.eval()
    _compare(e, t, RNG.standard_normal(shape))
    np.testing.assert_array_equal(e.parametrizations.weight[0]._u.numpy(), u_e)


def test_parametrized_spectral_norm_unit_norm():
    ember.manual_seed(0)
    m = P.spectral_norm(nn.Linear(8, 6, dtype=ember.float64), n_power_iterations=10)
    s = np.linalg.svd(m.weight.detach().numpy(), compute_uv=False)
    np.testing.assert_allclose(s[0], 1.0, rtol=1e-6)
