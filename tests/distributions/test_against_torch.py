"""Every distribution against torch.distributions in float64 on random parameters:
log_prob, cdf/icdf, entropy, mean, mode, variance, stddev, shapes, enumerate_support,
expand, and the gradients of log_prob and entropy with respect to the parameters."""

import numpy as np
import pytest

import ember
from ember import distributions as ed

torch = pytest.importorskip("torch")
td = torch.distributions

RNG = np.random.default_rng(2024)


def pos(*shape, lo=0.3, hi=3.0):
    return RNG.uniform(lo, hi, shape)


def real(*shape):
    return RNG.standard_normal(shape)


def unit(*shape):
    return RNG.uniform(0.05, 0.95, shape)


def simplex(*shape):
    p = RNG.uniform(0.1, 1.0, shape)
    return p / p.sum(-1, keepdims=True)


def spd(*shape):
    a = RNG.standard_normal(shape)
    return a @ np.swapaxes(a, -1, -2) + shape[-1] * np.eye(shape[-1])


def tril(*shape):
    m = np.tril(RNG.standard_normal(shape))
    d = np.arange(shape[-1])
    m[..., d, d] = np.abs(m[..., d, d]) + 0.5
    return m


# name -> (class name, parameter arrays (positional or keyword), value sampler)
CASES = {
    "Normal": ("Normal", lambda: ((real(3, 2), pos(3, 2)), {}), lambda: real(4, 3, 2)),
    "Uniform": ("Uniform", lambda: ((-pos(3), pos(3)), {}), lambda: RNG.uniform(-0.2, 0.2, (3,))),
    "Exponential": ("Exponential", lambda: ((pos(4),), {}), lambda: pos(2, 4)),
    "Laplace": ("Laplace", lambda: ((real(3), pos(3)), {}), lambda: real(5, 3)),
    "Gamma": ("Gamma", lambda: ((pos(3), pos(3)), {}), lambda: pos(2, 3)),
    "Chi2": ("Chi2", lambda: ((pos(3, lo=1.0, hi=6.0),), {}), lambda: pos(3)),
    "Beta": ("Beta", lambda: ((pos(3), pos(3)), {}), lambda: unit(2, 3)),
    "Dirichlet": ("Dirichlet", lambda: ((pos(2, 4),), {}), lambda: simplex(2, 4)),
    "LogNormal": ("LogNormal", lambda: ((real(3), pos(3)), {}), lambda: pos(2, 3)),
    "Bernoulli_probs": (
        "Bernoulli",
        lambda: ((), {"probs": unit(4)}),
        lambda: RNG.integers(0, 2, (3, 4)).astype(float),
    ),
    "Bernoulli_logits": (
        "Bernoulli",
        lambda: ((), {"logits": real(4)}),
        lambda: RNG.integers(0, 2, (4,)).astype(float),
    ),
    "Categorical_probs": (
        "Categorical",
        lambda: ((), {"probs": simplex(3, 5)}),
        lambda: RNG.integers(0, 5, (2, 3)),
    ),
    "Categorical_logits": (
        "Categorical",
        lambda: ((), {"logits": real(3, 5)}),
        lambda: RNG.integers(0, 5, (3,)),
    ),
    "OneHotCategorical": (
        "OneHotCategorical",
        lambda: ((), {"probs": simplex(2, 4)}),
        lambda: np.eye(4)[RNG.integers(0, 4, (3, 2))],
    ),
    "Binomial": (
        "Binomial",
        lambda: ((), {"total_count": 7.0, "probs": unit(3)}),
        lambda: RNG.integers(0, 8, (2, 3)).astype(float),
    ),
    "Binomial_logits": (
        "Binomial",
        lambda: ((), {"total_count": 5.0, "logits": real(3)}),
        lambda: RNG.integers(0, 6, (3,)).astype(float),
    ),
    "Poisson": (
        "Poisson",
        lambda: ((pos(3, lo=0.5, hi=20.0),), {}),
        lambda: RNG.integers(0, 15, (2, 3)).astype(float),
    ),
    "Geometric": (
        "Geometric",
        lambda: ((), {"probs": unit(3)}),
        lambda: RNG.integers(0, 6, (2, 3)).astype(float),
    ),
    "MVN_cov": (
        "MultivariateNormal",
        lambda: ((real(2, 3),), {"covariance_matrix": spd(2, 3, 3)}),
        lambda: real(4, 2, 3),
    ),
    "MVN_tril": (
        "MultivariateNormal",
        lambda: ((real(3),), {"scale_tril": tril(2, 3, 3)}),
        lambda: real(2, 3),
    ),
    "MVN_precision": (
        "MultivariateNormal",
        lambda: ((real(3),), {"precision_matrix": spd(3, 3)}),
        lambda: real(5, 3),
    ),
}

PROPERTIES = ("mean", "mode", "variance", "stddev")


def _build(case, grad=False):
    cls_name, params, _ = CASES[case]
    args, kwargs = params()

    def conv(lib, a):
        if isinstance(a, np.ndarray):
            if lib is ember:
                return ember.tensor(a, dtype=ember.float64, requires_grad=grad)
            return torch.tensor(a, dtype=torch.float64, requires_grad=grad)
        return a

    e_args = [conv(ember, a) for a in args]
    t_args = [conv(torch, a) for a in args]
    e_kw = {k: conv(ember, v) for k, v in kwargs.items()}
    t_kw = {k: conv(torch, v) for k, v in kwargs.items()}
    e = getattr(ed, cls_name)(*e_args, **e_kw)
    t = getattr(td, cls_name)(*t_args, **t_kw)
    return e, t, e_args + list(e_kw.values()), t_args + list(t_kw.values())


def close(a, b, tol=1e-9):
    an = a.detach().numpy() if isinstance(a, ember.Tensor) else np.asarray(a)
    bn = b.detach().numpy() if isinstance(b, torch.Tensor) else np.asarray(b)
    assert an.shape == bn.shape, (an.shape, bn.shape)
    np.testing.assert_allclose(an, bn, rtol=tol, atol=tol, equal_nan=True)


def _value(case, like_e):
    v = CASES[case][2]()
    dtype = ember.int64 if v.dtype.kind == "i" else ember.float64
    return ember.tensor(v, dtype=dtype), torch.tensor(v)


@pytest.mark.parametrize("case", list(CASES))
def test_log_prob_entropy_moments(case):
    e, t, _, _ = _build(case)
    assert tuple(e.batch_shape) == tuple(t.batch_shape)
    assert tuple(e.event_shape) == tuple(t.event_shape)
    ve, vt = _value(case, e)
    close(e.log_prob(ve), t.log_prob(vt))
    for prop in PROPERTIES:
        try:
            want = getattr(t, prop)
        except NotImplementedError:
            continue
        close(getattr(e, prop), want)
    try:
        want = t.entropy()
    except NotImplementedError:
        return
    close(e.entropy(), want, tol=1e-8)


@pytest.mark.parametrize("case", list(CASES))
def test_gradients_of_log_prob_and_entropy(case):
    e, t, e_params, t_params = _build(case, grad=True)
    ve, vt = _value(case, e)
    le = e.log_prob(ve).sum()
    lt = t.log_prob(vt).sum()
    try:
        le = le + e.entropy().sum()
        lt = lt + t.entropy().sum()
    except NotImplementedError:
        pass
    e_params = [p for p in e_params if isinstance(p, ember.Tensor)]
    t_params = [p for p in t_params if isinstance(p, torch.Tensor)]
    ge = ember.autograd.grad(le, e_params, allow_unused=True)
    gt = torch.autograd.grad(lt, t_params, allow_unused=True)
    for a, b in zip(ge, gt):
        if b is None:
            assert a is None or not a.numpy().any()
        else:
            close(a, b, tol=1e-7)


@pytest.mark.parametrize("case", ["Normal", "Uniform", "Exponential", "Laplace", "LogNormal"])
def test_cdf_and_icdf(case):
    e, t, _, _ = _build(case)
    ve, vt = _value(case, e)
    if case == "LogNormal":
        pass
    close(e.cdf(ve), t.cdf(vt))
    q = RNG.uniform(0.05, 0.95, tuple(t.batch_shape))
    close(e.icdf(ember.tensor(q)), t.icdf(torch.tensor(q)))


def test_gamma_cdf():
    a, b, x = pos(4), pos(4), pos(4)
    e = ed.Gamma(ember.tensor(a), ember.tensor(b))
    t = td.Gamma(torch.tensor(a), torch.tensor(b))
    close(e.cdf(ember.tensor(x)), t.cdf(torch.tensor(x)), tol=1e-10)


@pytest.mark.parametrize(
    "case", ["Bernoulli_probs", "Categorical_probs", "OneHotCategorical", "Binomial"]
)
def test_enumerate_support(case):
    e, t, _, _ = _build(case)
    for expand in (True, False):
        close(e.enumerate_support(expand), t.enumerate_support(expand))
    assert e.has_enumerate_support


@pytest.mark.parametrize("case", list(CASES))
def test_expand(case):
    e, t, _, _ = _build(case)
    shape = (2,) + tuple(t.batch_shape)
    ee, te = e.expand(shape), t.expand(shape)
    assert type(ee) is type(e)
    assert tuple(ee.batch_shape) == tuple(te.batch_shape) == shape
    vt = te.sample()
    close(ee.log_prob(ember.tensor(vt.numpy())), te.log_prob(vt))
    assert tuple(ee.sample((3,)).shape) == tuple(te.sample((3,)).shape)


def test_independent_and_transformed():
    loc, scale = real(2, 3), pos(2, 3)
    e = ed.Independent(ed.Normal(ember.tensor(loc), ember.tensor(scale)), 1)
    t = td.Independent(td.Normal(torch.tensor(loc), torch.tensor(scale)), 1)
    v = real(4, 2, 3)
    close(e.log_prob(ember.tensor(v)), t.log_prob(torch.tensor(v)))
    close(e.entropy(), t.entropy())
    assert tuple(e.batch_shape) == (2,) and tuple(e.event_shape) == (3,)
    et = ed.TransformedDistribution(
        ed.Normal(ember.tensor(loc), ember.tensor(scale)),
        [ed.AffineTransform(1.0, 2.0), ed.SigmoidTransform()],
    )
    tt = td.TransformedDistribution(
        td.Normal(torch.tensor(loc), torch.tensor(scale)),
        [td.AffineTransform(1.0, 2.0), td.SigmoidTransform()],
    )
    u = unit(2, 3)
    close(et.log_prob(ember.tensor(u)), tt.log_prob(torch.tensor(u)))
    close(et.cdf(ember.tensor(u)), tt.cdf(torch.tensor(u)))
    et2 = ed.TransformedDistribution(
        ed.Normal(ember.tensor(loc), ember.tensor(scale)),
        [ed.TanhTransform(), ed.AffineTransform(0.5, -3.0)],
    )
    tt2 = td.TransformedDistribution(
        td.Normal(torch.tensor(loc), torch.tensor(scale)),
        [td.TanhTransform(), td.AffineTransform(0.5, -3.0)],
    )
    w = RNG.uniform(-2.0, 3.0, (2, 3))
    close(et2.log_prob(ember.tensor(w)), tt2.log_prob(torch.tensor(w)), tol=1e-8)
    close(et2.cdf(ember.tensor(w)), tt2.cdf(torch.tensor(w)), tol=1e-8)
    vec = ed.TransformedDistribution(
        ed.Normal(ember.zeros(3, dtype=ember.float64), 1.0),
        ed.AffineTransform(ember.tensor(real(3)), ember.tensor(pos(3)), event_dim=1),
    )
    assert tuple(vec.event_shape) == (3,) and tuple(vec.batch_shape) == ()


@pytest.mark.parametrize(
    "name",
    ["ExpTransform", "SigmoidTransform", "TanhTransform", "SoftplusTransform", "AbsTransform"],
)
def test_transforms_match_torch(name):
    e, t = getattr(ed, name)(), getattr(td, name)()
    x = RNG.uniform(-3, 3, (4, 3))
    ye, yt = e(ember.tensor(x)), t(torch.tensor(x))
    close(ye, yt)
    if name != "AbsTransform":
        close(
            e.log_abs_det_jacobian(ember.tensor(x), ye), t.log_abs_det_jacobian(torch.tensor(x), yt)
        )
        close(e.inv(ye), t.inv(yt), tol=1e-7)
        assert e.bijective and e.sign == t.sign
    assert repr(e) == repr(t)
    assert repr(e.domain) == repr(t.domain) and repr(e.codomain) == repr(t.codomain)


def test_compose_power_affine_and_caching():
    e = ed.ComposeTransform(
        [ed.AffineTransform(0.0, 2.0), ed.ExpTransform(), ed.PowerTransform(3.0)]
    )
    t = td.ComposeTransform(
        [td.AffineTransform(0.0, 2.0), td.ExpTransform(), td.PowerTransform(3.0)]
    )
    x = real(3)
    ye, yt = e(ember.tensor(x)), t(torch.tensor(x))
    close(ye, yt)
    close(e.log_abs_det_jacobian(ember.tensor(x), ye), t.log_abs_det_jacobian(torch.tensor(x), yt))
    close(e.inv(ye), x)
    assert e.inv.inv is e
    cached = ed.ExpTransform(cache_size=1)
    xe = ember.tensor(x)
    assert cached.inv(cached(xe)) is xe
    with pytest.raises(ValueError, match="cache_size must be 0 or 1"):
        ed.ExpTransform(cache_size=2)
    assert ed.identity_transform(xe) is xe
    assert ed.ExpTransform() == ed.ExpTransform() and ed.ExpTransform().inv == ed.ExpTransform().inv
