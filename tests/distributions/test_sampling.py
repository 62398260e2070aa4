"""Draws: shapes, support, moments against the analytic ones (fixed seed, generous
tolerances), and reparameterized gradients (pathwise for location-scale families,
implicit for Gamma against torch's ``_standard_gamma_grad``, unbiased for Beta/Dirichlet)."""

import math

import numpy as np
import pytest

import ember
from ember import distributions as ed
from ember.distributions._sampling import regularized_gamma, standard_gamma_grad

torch = pytest.importorskip("torch")

N = 40000


def t64(x):
    return ember.tensor(np.asarray(x, dtype=np.float64))


MOMENTS = {
    "Normal": lambda: ed.Normal(t64([0.5, -2.0]), t64([1.5, 0.2])),
    "Uniform": lambda: ed.Uniform(t64([-1.0, 2.0]), t64([3.0, 2.5])),
    "Exponential": lambda: ed.Exponential(t64([0.5, 4.0])),
    "Laplace": lambda: ed.Laplace(t64([1.0, -1.0]), t64([0.5, 2.0])),
    "Gamma": lambda: ed.Gamma(t64([0.3, 1.0, 4.5, 60.0]), t64([1.0, 2.0, 0.5, 3.0])),
    "Chi2": lambda: ed.Chi2(t64([1.0, 7.0])),
    "Beta": lambda: ed.Beta(t64([0.5, 2.0, 8.0]), t64([0.7, 3.0, 1.5])),
    "Dirichlet": lambda: ed.Dirichlet(t64([[0.4, 1.0, 3.0], [5.0, 5.0, 5.0]])),
    "LogNormal": lambda: ed.LogNormal(t64([0.0, 0.5]), t64([0.25, 0.5])),
    "Bernoulli": lambda: ed.Bernoulli(probs=t64([0.1, 0.5, 0.97])),
    "Categorical": lambda: ed.Categorical(probs=t64([0.2, 0.3, 0.5])),
    "Binomial": lambda: ed.Binomial(
        t64([3.0, 20.0, 500.0, 60.0]), probs=t64([0.3, 0.8, 0.4, 0.05])
    ),
    "Poisson": lambda: ed.Poisson(t64([0.3, 4.0, 9.99, 10.0, 250.0])),
    "Geometric": lambda: ed.Geometric(probs=t64([0.2, 0.9])),
    "MultivariateNormal": lambda: ed.MultivariateNormal(
        t64([1.0, -1.0]), covariance_matrix=t64([[2.0, 0.6], [0.6, 0.5]])
    ),
}


@pytest.mark.parametrize("name", list(MOMENTS))
def test_sample_moments_and_support(name):
    ember.manual_seed(11)
    d = MOMENTS[name]()
    x = d.sample((N,))
    assert tuple(x.shape) == (N,) + tuple(d.batch_shape) + tuple(d.event_shape)
    if d.support is not None and not isinstance(d, ed.Categorical):
        assert bool(d.support.check(x).all())
    xs = x.to(ember.float64).numpy()
    if name == "Categorical":
        freq = np.bincount(xs.astype(int), minlength=3) / N
        np.testing.assert_allclose(freq, d.probs.numpy(), atol=0.01)
        return
    mean, var = d.mean.numpy(), d.variance.numpy()
    se = np.sqrt(var / N)
    assert np.all(np.abs(xs.mean(0) - mean) < 5 * se + 1e-12), (xs.mean(0), mean)
    np.testing.assert_allclose(xs.var(0), var, rtol=0.08, atol=1e-12)
    assert not d.sample().requires_grad


def test_sample_shapes_and_no_grad():
    loc = ember.zeros(3, requires_grad=True)
    d = ed.Normal(loc, 1.0)
    assert d.sample().shape == (3,) and not d.sample().requires_grad
    assert d.rsample((2, 4)).shape == (2, 4, 3) and d.rsample().requires_grad
    assert d.sample(5).shape == (5, 3)
    assert ed.Categorical(logits=ember.zeros(2, 5)).sample((7,)).shape == (7, 2)
    assert ed.OneHotCategorical(logits=ember.zeros(2, 5)).sample((7,)).shape == (7, 2, 5)
    assert ed.Bernoulli(0.3).sample((4,)).shape == (4,)
    assert ed.Dirichlet(ember.ones(2, 3)).rsample((5,)).shape == (5, 2, 3)
    assert ed.Gamma(ember.ones(2), 1.0).sample((0,)).shape == (0, 2)


def _pathwise(dist_fn, params, noise_of):
    """d sum(x) / d params from autograd equals the pathwise derivative from the noise."""
    ember.manual_seed(3)
    ps = [ember.tensor(p, dtype=ember.float64, requires_grad=True) for p in params]
    x = dist_fn(*ps).rsample((5,))
    grads = ember.autograd.grad(x.sum(), ps)
    want = noise_of(x.detach(), *[p.detach() for p in ps])
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-10, atol=1e-12)


def test_rsample_pathwise_gradients():
    loc, scale = [0.5, -1.0], [2.0, 0.3]
    _pathwise(
        ed.Normal, (loc, scale), lambda x, m, s: (ember.full_like(m, 5.0), ((x - m) / s).sum(0))
    )
    _pathwise(
        ed.Laplace, (loc, scale), lambda x, m, s: (ember.full_like(m, 5.0), ((x - m) / s).sum(0))
    )
    _pathwise(
        ed.Uniform,
        ([0.0, -2.0], [1.0, 3.0]),
        lambda x, lo, hi: ((1 - (x - lo) / (hi - lo)).sum(0), ((x - lo) / (hi - lo)).sum(0)),
    )
    _pathwise(ed.Exponential, ([0.5, 3.0],), lambda x, r: ((-x / r).sum(0),))
    _pathwise(
        ed.LogNormal, (loc, scale), lambda x, m, s: (x.sum(0), (x * (x.log() - m) / s).sum(0))
    )


def test_mvn_rsample_gradient_matches_torch_for_the_same_noise():
    loc = np.array([1.0, -2.0])
    lt = np.array([[1.5, 0.0], [0.4, 0.7]])
    e_loc = ember.tensor(loc, requires_grad=True)
    e_l = ember.tensor(lt, requires_grad=True)
    x = ed.MultivariateNormal(e_loc, scale_tril=e_l).rsample((6,))
    eps = np.linalg.solve(lt, (x.detach().numpy() - loc).T).T  # the noise that was drawn
    w = np.arange(12.0).reshape(6, 2)
    (x * ember.tensor(w)).sum().backward()
    t_loc = torch.tensor(loc, requires_grad=True)
    t_l = torch.tensor(lt, requires_grad=True)
    xt = t_loc + (t_l @ torch.tensor(eps).T).T
    (xt * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(e_loc.grad.numpy(), t_loc.grad.numpy())
    np.testing.assert_allclose(np.tril(e_l.grad.numpy()), np.tril(t_l.grad.numpy()), atol=1e-12)


def test_gamma_implicit_gradient_matches_torch():
    ember.manual_seed(5)
    alpha = ember.tensor([0.2, 0.9, 1.0, 3.0, 12.0, 150.0], dtype=ember.float64, requires_grad=True)
    x = ed.Gamma(alpha, 1.0).rsample((200,))
    (g,) = ember.autograd.grad(x.sum(), [alpha])
    xt = torch.tensor(x.detach().numpy())
    at = torch.tensor(alpha.detach().numpy()).expand_as(xt)
    want = torch._standard_gamma_grad(at, xt).sum(0).numpy()
    np.testing.assert_allclose(g.numpy(), want, rtol=2e-3)
    # and the rate enters as 1 / rate
    rate = ember.tensor([2.0], dtype=ember.float64, requires_grad=True)
    y = ed.Gamma(ember.tensor([3.0], dtype=ember.float64), rate).rsample((10,))
    (gr,) = ember.autograd.grad(y.sum(), [rate])
    np.testing.assert_allclose(gr.numpy(), -(y.detach().sum(0) / rate.detach()).numpy())


def test_standard_gamma_grad_is_the_exact_implicit_derivative():
    from scipy import special

    a = np.array([0.05, 0.5, 2.0, 30.0, 400.0])
    for q in (0.01, 0.5, 0.99):
        x = special.gammaincinv(a, q)
        h = 1e-6 * a
        want = (special.gammaincinv(a + h, q) - special.gammaincinv(a - h, q)) / (2 * h)
        got = standard_gamma_grad(ember.tensor(x), ember.tensor(a)).numpy()
        np.testing.assert_allclose(got, want, rtol=1e-6)
        p, qq = regularized_gamma(ember.tensor(a), ember.tensor(x))
        np.testing.assert_allclose(p.numpy(), q, rtol=1e-10)
        np.testing.assert_allclose(qq.numpy(), 1 - q, rtol=1e-9)


@pytest.mark.parametrize("dist", ["Beta", "Dirichlet"])
def test_beta_dirichlet_rsample_gradients_are_unbiased(dist):
    """d E[x_0] / d alpha from averaged pathwise gradients vs the analytic derivative."""
    ember.manual_seed(9)
    a = ember.tensor([1.5, 4.0], dtype=ember.float64, requires_grad=True)
    d = ed.Beta(a[0], a[1]) if dist == "Beta" else ed.Dirichlet(a)
    x = d.rsample((N,))
    first = x if dist == "Beta" else x[..., 0]
    (g,) = ember.autograd.grad(first.mean(), [a])
    s = 5.5
    want = np.array([4.0 / s**2, -1.5 / s**2])  # d/da (a / (a + b)), d/db
    np.testing.assert_allclose(g.numpy(), want, atol=0.004)


def test_sampling_runs_on_opencl():
    ember_opencl = pytest.importorskip("ember_opencl")
    if not ember_opencl.is_available():
        pytest.skip("no OpenCL device")
    loc = ember.tensor([0.0, 3.0]).to("opencl").requires_grad_()
    d = ed.Normal(loc, 2.0)
    x = d.rsample((1000,))
    assert x.device.type == "opencl"
    d.log_prob(x.detach()).sum().backward()
    assert loc.grad.device.type == "opencl"
    c = ed.Categorical(logits=ember.tensor([0.0, 1.0, 2.0]).to("opencl"))
    s = c.sample((500,))
    assert s.device.type == "opencl" and c.log_prob(s).shape == (500,)
    g = ed.Gamma(ember.tensor([2.0]).to("opencl"), 1.0).sample((2000,))
    assert g.device.type == "opencl" and abs(g.mean().item() - 2.0) < 0.2
    mvn = ed.MultivariateNormal(
        ember.zeros(2).to("opencl"), covariance_matrix=ember.eye(2).to("opencl")
    )
    assert abs(mvn.log_prob(ember.zeros(2).to("opencl")).item() + math.log(2 * math.pi)) < 1e-5
