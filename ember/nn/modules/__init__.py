"""The Module classes of ``ember.nn`` (re-exported there).

Each module file owns one family and lists its public classes in ``__all__``.
PyTorch users also import classes by their file in ``torch.nn.modules``
(``torch.nn.modules.batchnorm._BatchNorm``): where ember's file differs, a thin module of
PyTorch's name re-exports them (``batchnorm``, ``flatten``, ``fold``, ...), and
``TORCH_PATHS`` adds the missing names to ember's files of PyTorch's names; the classes
are always the same objects.
"""

from ember.nn.modules import (
    activation,
    batchnorm,
    channelshuffle,
    container,
    conv,
    distance,
    dropout,
    flatten,
    fold,
    instancenorm,
    lazy,
    linear,
    loss,
    normalization,
    padding,
    pixelshuffle,
    pooling,
    rnn,
    sampling,
    sparse,
    transformer,
    upsampling,
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

#: files that exist only for PyTorch's import paths (thin re-exports)
TORCH_FILES = (batchnorm, channelshuffle, flatten, fold, pixelshuffle, upsampling)
#: ember module file -> names PyTorch's file of that name has and ember defines elsewhere.
TORCH_PATHS = {
    activation: {
        "MultiheadAttention": MultiheadAttention,
        "NonDynamicallyQuantizableLinear": transformer.NonDynamicallyQuantizableLinear,
    },
    conv: {n: getattr(lazy, n) for n in lazy.__all__ if n.startswith("LazyConv")},
    dropout: {"Dropout": activation.Dropout, "_DropoutNd": activation.Dropout},
    instancenorm: {
        "_NormBase": normalization._BatchNorm,
        **{n: getattr(lazy, n) for n in lazy.__all__ if n.startswith("LazyInstanceNorm")},
    },
    linear: {
        "LazyLinear": lazy.LazyLinear,
        "NonDynamicallyQuantizableLinear": transformer.NonDynamicallyQuantizableLinear,
    },
    normalization: {"LocalResponseNorm": instancenorm.LocalResponseNorm},
    pooling: {
        n: getattr(conv, n)
        for n in "MaxPool1d MaxPool2d AvgPool1d AvgPool2d AdaptiveAvgPool1d AdaptiveAvgPool2d "
        "AdaptiveMaxPool2d".split()
    },
    sparse: {"Embedding": normalization.Embedding},
}
for _mod, _names in TORCH_PATHS.items():
    for _name, _obj in _names.items():
        setattr(_mod, _name, _obj)
