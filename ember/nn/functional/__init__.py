"""``ember.nn.functional``: PyTorch's functional layer API, written in ember operators.

Everything here is a composition of core operators, so gradients come from
autograd's formula table and every device that runs the core operators runs
these functions. Convolution and pooling are the core's im2col-based Composites.
Each private module owns one family and lists it in its ``__all__``.
"""

from ember.nn.functional import (
    _activation,
    _attention,
    _conv,
    _ctc,
    _distance,
    _dropout,
    _embedding,
    _layers,
    _loss,
    _loss_margin_and_nll,
    _norm,
    _pooling,
    _sampling,
    _volumetric,
)
from ember.nn.functional._activation import *  # noqa: F403
from ember.nn.functional._attention import *  # noqa: F403
from ember.nn.functional._conv import *  # noqa: F403
from ember.nn.functional._ctc import *  # noqa: F403
from ember.nn.functional._distance import *  # noqa: F403
from ember.nn.functional._dropout import *  # noqa: F403
from ember.nn.functional._embedding import *  # noqa: F403
from ember.nn.functional._layers import *  # noqa: F403
from ember.nn.functional._loss import *  # noqa: F403
from ember.nn.functional._loss_margin_and_nll import *  # noqa: F403
from ember.nn.functional._norm import *  # noqa: F403
from ember.nn.functional._pooling import *  # noqa: F403
from ember.nn.functional._sampling import *  # noqa: F403
from ember.nn.functional._volumetric import *  # noqa: F403

__all__ = [
    name
    for module in (
        _activation, _layers, _dropout, _norm, _embedding, _conv, _pooling, _volumetric, _sampling,
        _distance, _loss, _loss_margin_and_nll, _ctc, _attention,
    )
    for name in module.__all__
]  # fmt: skip
