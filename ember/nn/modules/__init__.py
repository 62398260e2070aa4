"""The Module classes of ``ember.nn`` (re-exported there).

Each module file owns one family and lists its public classes in ``__all__``.
"""

from ember.nn.modules import (
    activation,
    container,
    conv,
    distance,
    dropout,
    instancenorm,
    lazy,
    linear,
    loss,
    normalization,
    padding,
    pooling,
    rnn,
    sampling,
    sparse,
)
from ember.nn.modules.activation import *  # noqa: F403
from ember.nn.modules.container import *  # noqa: F403
from ember.nn.modules.conv import *  # noqa: F403
from ember.nn.modules.distance import *  # noqa: F403
from ember.nn.modules.dropout import *  # noqa: F403
from ember.nn.modules.instancenorm import *  # noqa: F403
from ember.nn.modules.lazy import *  # noqa: F403
from ember.nn.modules.linear import *  # noqa: F403
from ember.nn.modules.loss import *  # noqa: F403
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import *  # noqa: F403
from ember.nn.modules.padding import *  # noqa: F403
from ember.nn.modules.pooling import *  # noqa: F403
from ember.nn.modules.rnn import *  # noqa: F403
from ember.nn.modules.sampling import *  # noqa: F403
from ember.nn.modules.sparse import *  # noqa: F403
from ember.nn.modules.transformer import (
    MultiheadAttention,
    Transformer,
    TransformerDecoder,
    TransformerDecoderLayer,
    TransformerEncoder,
    TransformerEncoderLayer,
)

__all__ = [
    "Module",
    "MultiheadAttention",
    "TransformerEncoderLayer",
    "TransformerEncoder",
    "TransformerDecoderLayer",
    "TransformerDecoder",
    "Transformer",
    *[
        name
        for m in (
            linear, activation, dropout, normalization, instancenorm, sparse, container, loss,
            rnn, conv, pooling, padding, sampling, distance, lazy,
        )
        for name in m.__all__
    ],
]  # fmt: skip
