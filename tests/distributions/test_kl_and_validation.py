"""kl_divergence against torch for every registered pair (values and gradients), the
register_kl dispatch, parameter/value validation with PyTorch's messages, and repr."""

import numpy as np
import pytest

import ember
from ember import distributions as ed

torch = pytest.importorskip("torch")
td = torch.distributions

RNG = np.random.default_rng(77)


def pos(*s):
    return RNG.uniform(0.3, 3.0, s)


def real(*s):
    return RNG.standard_normal(s)


def unit(*s):
    return RNG.uniform(0.05, 0.95, s)


def spd(*s):
    a = RNG.standard_normal(s)
    return a @ np.swapaxes(a, -1, -2) + s[-1] * np.eye(s[-1])


def _pair(cls, *args, **kwargs):
    """The same distribution in ember and torch, with float64 parameters that need grad."""
    e_p, t_p = [], []

    def conv(v, lib):
        if not isinstance(v, np.ndarray):
            return v
        if lib == "e":
            x = ember.tensor(v, requires_grad=True)
            e_p.append(x)
        else:
            x = torch.tensor(v, requires_grad=True)
            t_p.append(x)
        return x

    e = getattr(ed, cls)(
        *[conv(a, "e") for a in args], **{k: conv(v, "e") for k, v in kwargs.items()}
    )
    t = getattr(td, cls)(
        *[conv(a, "t") for a in args], **{k: conv(v, "t") for k, v in kwargs.items()}
    )
    return e, t, e_p, t_p


PAIRS = {
    "Normal": lambda: [_pair("Normal", real(3), pos(3)) for _ in range(2)],
    "Bernoulli": lambda: [_pair("Bernoulli", probs=unit(3)), _pair("Bernoulli", logits=real(3))],
    "Categorical": lambda: [_pair("Categorical", logits=real(2, 4)) for _ in range(2)],
    "OneHotCategorical": lambda: [_pair("OneHotCategorical", logits=real(4)) for _ in range(2)],
    "Uniform": lambda: [
        _pair("Uniform", np.array([-0.5]), np.array([0.5])),
        _pair("Uniform", np.array([-1.0]), np.array([2.0])),
    ],
    "Exponential": lambda: [_pair("Exponential", pos(3)) for _ in range(2)],
    "Gamma": lambda: [_pair("Gamma", pos(3), pos(3)) for _ in range(2)],
    "Beta": lambda: [_pair("Beta", pos(3), pos(3)) for _ in range(2)],
    "Dirichlet": lambda: [_pair("Dirichlet", pos(2, 3)) for _ in range(2)],
    "Laplace": lambda: [_pair("Laplace", real(3), pos(3)) for _ in range(2)],
    "Poisson": lambda: [_pair("Poisson", pos(3)) for _ in range(2)],
    "Geometric": lambda: [_pair("Geometric", probs=unit(3)) for _ in range(2)],
    "Binomial": lambda: [_pair("Binomial", 6, probs=unit(3)) for _ in range(2)],
    "MultivariateNormal": lambda: [
        _pair("MultivariateNormal", real(2, 3), covariance_matrix=spd(2, 3, 3)),
        _pair("MultivariateNormal", real(3), covariance_matrix=spd(3, 3)),
    ],
    "LogNormal": lambda: [_pair("LogNormal", real(3), pos(3)) for _ in range(2)],
}


@pytest.mark.parametrize("name", list(PAIRS))
def test_kl_matches_torch(name):
    (ep, tp, ep_params, tp_params), (eq, tq, eq_params, tq_params) = PAIRS[name]()
    ke, kt = ed.kl_divergence(ep, eq), td.kl_divergence(tp, tq)
    np.testing.assert_allclose(ke.detach().numpy(), kt.detach().numpy(), rtol=1e-9, atol=1e-10)
    ge = ember.autograd.grad(ke.sum(), ep_params + eq_params, allow_unused=True)
    gt = torch.autograd.grad(kt.sum(), tp_params + tq_params, allow_unused=True)
    for a, b in zip(ge, gt):
        if b is None:
            continue
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7, atol=1e-9)


def test_kl_of_independent_and_infinite_cases():
    p = ed.Independent(ed.Normal(ember.zeros(2, 3), 1.0), 1)
    q = ed.Independent(ed.Normal(ember.ones(2, 3), 2.0), 1)
    want = td.kl_divergence(
        td.Independent(td.Normal(torch.zeros(2, 3), 1.0), 1),
        td.Independent(td.Normal(torch.ones(2, 3), 2.0), 1),
    )
    np.testing.assert_allclose(ed.kl_divergence(p, q).numpy(), want.numpy(), rtol=1e-6)
    inf = ed.kl_divergence(ed.Uniform(0.0, 2.0), ed.Uniform(0.0, 1.0))
    assert inf.item() == float("inf")
    zero = ed.kl_divergence(
        ed.Bernoulli(probs=ember.tensor([0.0])), ed.Bernoulli(probs=ember.tensor([0.5]))
    )
    np.testing.assert_allclose(zero.numpy(), [np.log(2)], rtol=1e-6)


def test_register_kl_dispatch_and_missing_pair():
    class MyNormal(ed.Normal):
        pass

    # a subclass uses its base pair until it registers its own
    assert ed.kl_divergence(MyNormal(0.0, 1.0), ed.Normal(1.0, 1.0)).item() == pytest.approx(0.5)

    @ed.register_kl(MyNormal, ed.Normal)
    def _mine(p, q):
        return ember.tensor(42.0)

    assert ed.kl_divergence(MyNormal(0.0, 1.0), ed.Normal(1.0, 1.0)).item() == 42.0
    assert ed.kl_divergence(ed.Normal(0.0, 1.0), MyNormal(1.0, 1.0)).item() == pytest.approx(0.5)
    with pytest.raises(
        NotImplementedError,
        match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type Bernoulli",
    ):
        ed.kl_divergence(ed.Normal(0.0, 1.0), ed.Bernoulli(0.5))
    with pytest.raises(TypeError, match="Expected type_p to be a Distribution subclass"):
        ed.register_kl(int, ed.Normal)


def test_parameter_validation_messages():
    with pytest.raises(
        ValueError,
        match=r"Expected parameter scale \(Tensor of shape \(2,\)\) of distribution "
        r"Normal\(loc: ember.Size\(\[2\]\), scale: ember.Size\(\[2\]\)\) to satisfy the "
        r"constraint GreaterThan\(lower_bound=0.0\), but found invalid values:",
    ):
        ed.Normal(ember.zeros(2), ember.tensor([1.0, -1.0]))
    with pytest.raises(
        ValueError, match="Either `probs` or `logits` must be specified, but not both."
    ):
        ed.Categorical(ember.ones(2), ember.ones(2))
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified"):
        ed.Bernoulli()
    with pytest.raises(
        ValueError, match="constraint Interval\\(lower_bound=0.0, upper_bound=1.0\\)"
    ):
        ed.Bernoulli(probs=ember.tensor([1.5]))
    with pytest.raises(
        ValueError, match="Exactly one of covariance_matrix or precision_matrix or scale_tril"
    ):
        ed.MultivariateNormal(ember.zeros(2))
    with pytest.raises(ValueError, match="constraint PositiveDefinite\\(\\)"):
        ed.MultivariateNormal(
            ember.zeros(2), covariance_matrix=ember.tensor([[1.0, 2.0], [2.0, 1.0]])
        )
    with pytest.raises(ValueError, match="Expected parameter low"):
        ed.Uniform(1.0, 0.0)
    with pytest.raises(ValueError, match="`probs` parameter must be at least one-dimensional."):
        ed.Categorical(probs=ember.tensor(1.0))
    # probs are normalised, as in PyTorch: a non-normalised vector is valid
    np.testing.assert_allclose(
        ed.Categorical(probs=ember.tensor([1.0, 3.0])).probs.numpy(), [0.25, 0.75]
    )
    ed.Normal(0.0, -1.0, validate_args=False)  # no check when switched off


def test_value_validation_messages():
    with pytest.raises(ValueError, match="The value argument to log_prob must be a Tensor"):
        ed.Normal(0.0, 1.0).log_prob(3)
    with pytest.raises(
        ValueError, match="Value is not broadcastable with batch_shape\\+event_shape"
    ):
        ed.Normal(ember.zeros(2), 1.0).log_prob(ember.zeros(3))
    with pytest.raises(ValueError, match="The right-most size of value must match event_shape"):
        ed.Dirichlet(ember.ones(3)).log_prob(ember.ones(2) / 2)
    with pytest.raises(
        ValueError,
        match=r"Expected value argument \(Tensor of shape \(1,\)\) to be within the support "
        r"\(Boolean\(\)\) of the distribution Bernoulli\(probs: tensor\(\[0.5000\]\)\), but "
        r"found invalid values:",
    ):
        ed.Bernoulli(probs=ember.tensor([0.5])).log_prob(ember.tensor([0.5]))
    with pytest.raises(
        ValueError, match=r"support \(IntegerInterval\(lower_bound=0, upper_bound=2\)\)"
    ):
        ed.Categorical(logits=ember.zeros(3)).log_prob(ember.tensor(3))
    with pytest.raises(
        ValueError, match=r"support \(Interval\(lower_bound=0.0, upper_bound=1.0\)\)"
    ):
        ed.Uniform(0.0, 1.0).log_prob(ember.tensor(2.0))
    # without validation the density of a value outside the support is -inf
    assert ed.Uniform(0.0, 1.0, validate_args=False).log_prob(ember.tensor(2.0)).item() == float(
        "-inf"
    )


def test_default_validate_args_switch():
    try:
        ed.Distribution.set_default_validate_args(False)
        ed.Normal(0.0, -1.0)
        ed.Bernoulli(probs=ember.tensor([2.0]))
    finally:
        ed.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError, match="Expected parameter scale"):
        ed.Normal(0.0, -1.0)
    with pytest.raises(ValueError, match="validate_args must be True or False"):
        ed.Distribution.set_default_validate_args("yes")


def test_repr_and_constraints():
    assert repr(ed.Normal(0.0, 1.0)) == "Normal(loc: 0.0, scale: 1.0)"
    assert repr(ed.Categorical(logits=ember.zeros(3))) == "Categorical(logits: ember.Size([3]))"
    c = ed.constraints
    for mine, theirs in [
        (c.positive, td.constraints.positive),
        (c.real, td.constraints.real),
        (c.simplex, td.constraints.simplex),
        (c.unit_interval, td.constraints.unit_interval),
        (c.interval(0, 1), td.constraints.interval(0, 1)),
        (c.integer_interval(0, 3), td.constraints.integer_interval(0, 3)),
        (c.real_vector, td.constraints.real_vector),
        (c.nonnegative_integer, td.constraints.nonnegative_integer),
        (c.lower_cholesky, td.constraints.lower_cholesky),
    ]:
        assert repr(mine) == repr(theirs)
    x = RNG.standard_normal((5, 3))
    for name in ("positive", "real", "unit_interval", "nonnegative", "boolean"):
        np.testing.assert_array_equal(
            getattr(c, name).check(ember.tensor(x)).numpy(),
            getattr(td.constraints, name).check(torch.tensor(x)).numpy(),
        )
    assert c.independent(c.real, 1).check(ember.zeros(4, 2)).shape == (4,)
    assert c.is_dependent(c.dependent) and not c.is_dependent(c.real)
    with pytest.raises(ValueError, match="Cannot determine validity of dependent constraint"):
        c.dependent.check(ember.zeros(1))
    assert bool(c.positive_definite.check(ember.eye(3)))
    assert not bool(c.lower_cholesky.check(ember.ones(2, 2)))
