"""``ember.distributions``: PyTorch's probability distributions, written in ember operators.

Every distribution samples, scores (``log_prob``, ``cdf``, ``entropy``) and reports its
moments with ember operators, so it runs on any device and differentiates: ``rsample``
is reparameterized where PyTorch's is (Normal, Uniform, Exponential, Laplace, Gamma,
Beta, Dirichlet, LogNormal, MultivariateNormal, and transformed/independent versions of
them). Parameters and values are validated as in PyTorch (``validate_args``).

Examples:
    >>> import ember
    >>> from ember.distributions import Categorical, Normal, kl_divergence
    >>> _ = ember.manual_seed(0)
    >>> m = Categorical(probs=ember.tensor([0.1, 0.9]))
    >>> m.sample((4,)).shape
    ember.Size([4])
    >>> kl_divergence(Normal(0.0, 1.0), Normal(0.0, 2.0))
    tensor(0.3181)

Layer: the PyTorch API band at the top of the house (docs/architecture.md); may import
every layer below it (core, dispatcher, library, plugins, operators, autograd) and the
other packages of its band (written in the public tensor API).
"""

from ember.distributions import constraints, transforms
from ember.distributions.bernoulli import Bernoulli
from ember.distributions.beta import Beta
from ember.distributions.binomial import Binomial
from ember.distributions.categorical import Categorical
from ember.distributions.cauchy import Cauchy
from ember.distributions.chi2 import Chi2
from ember.distributions.dirichlet import Dirichlet
from ember.distributions.distribution import Distribution
from ember.distributions.exp_family import ExponentialFamily
from ember.distributions.exponential import Exponential
from ember.distributions.gamma import Gamma
from ember.distributions.geometric import Geometric
from ember.distributions.gumbel import Gumbel
from ember.distributions.half_normal import HalfNormal
from ember.distributions.independent import Independent
from ember.distributions.kl import kl_divergence, register_kl
from ember.distributions.laplace import Laplace
from ember.distributions.log_normal import LogNormal
from ember.distributions.multinomial import Multinomial
from ember.distributions.multivariate_normal import MultivariateNormal
from ember.distributions.normal import Normal
from ember.distributions.one_hot_categorical import OneHotCategorical
from ember.distributions.poisson import Poisson
from ember.distributions.studentT import StudentT
from ember.distributions.transformed_distribution import TransformedDistribution
from ember.distributions.transforms import (
    AbsTransform,
    AffineTransform,
    ComposeTransform,
    ExpTransform,
    PowerTransform,
    SigmoidTransform,
    SoftplusTransform,
    TanhTransform,
    Transform,
    identity_transform,
)
from ember.distributions.uniform import Uniform

__all__ = [
    "AbsTransform",
    "AffineTransform",
    "Bernoulli",
    "Beta",
    "Binomial",
    "Categorical",
    "Cauchy",
    "Chi2",
    "ComposeTransform",
    "Dirichlet",
    "Distribution",
    "ExpTransform",
    "Exponential",
    "ExponentialFamily",
    "Gamma",
    "Geometric",
    "Gumbel",
    "HalfNormal",
    "Independent",
    "Laplace",
    "LogNormal",
    "Multinomial",
    "MultivariateNormal",
    "Normal",
    "OneHotCategorical",
    "Poisson",
    "PowerTransform",
    "SigmoidTransform",
    "SoftplusTransform",
    "StudentT",
    "TanhTransform",
    "Transform",
    "TransformedDistribution",
    "Uniform",
    "constraints",
    "identity_transform",
    "kl_divergence",
    "register_kl",
    "transforms",
]
