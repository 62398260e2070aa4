"""The Module classes of ``ember.nn`` (re-exported there)."""

from ember.nn.modules.activation import (
    ELU,
    GELU,
    Dropout,
    Hardswish,
    LeakyReLU,
    LogSoftmax,
    Mish,
    ReLU,
    Sigmoid,
    SiLU,
    Softmax,
    Softplus,
    Tanh,
)  # fmt: skip
from ember.nn.modules.container import (
    ModuleDict,
    ModuleList,
    ParameterDict,
    ParameterList,
    Sequential,
)  # fmt: skip
from ember.nn.modules.conv import (
    AdaptiveAvgPool1d,
    AdaptiveAvgPool2d,
    AdaptiveMaxPool2d,
    AvgPool1d,
    AvgPool2d,
    Conv1d,
    Conv2d,
    ConvTranspose1d,
    ConvTranspose2d,
    MaxPool1d,
    MaxPool2d,
)  # fmt: skip
from ember.nn.modules.linear import Bilinear, Flatten, Identity, Linear, Unflatten
from ember.nn.modules.loss import (
    BCELoss,
    BCEWithLogitsLoss,
    CosineEmbeddingLoss,
    CrossEntropyLoss,
    HuberLoss,
    KLDivLoss,
    L1Loss,
    MSELoss,
    NLLLoss,
    SmoothL1Loss,
)  # fmt: skip
from ember.nn.modules.module import Module
from ember.nn.modules.normalization import (
    BatchNorm1d,
    BatchNorm2d,
    Embedding,
    GroupNorm,
    LayerNorm,
    RMSNorm,
)  # fmt: skip
from ember.nn.modules.rnn import GRU, LSTM, RNN, GRUCell, LSTMCell, RNNBase, RNNCell, RNNCellBase
from ember.nn.modules.transformer import (
    MultiheadAttention,
    TransformerEncoder,
    TransformerEncoderLayer,
)  # fmt: skip

__all__ = [
    "Module", "Identity", "Linear", "Bilinear", "Flatten", "Unflatten", "Dropout", "Embedding",
    "LayerNorm", "RMSNorm", "GroupNorm", "BatchNorm1d", "BatchNorm2d", "ReLU", "GELU", "SiLU",
    "Tanh", "Sigmoid", "Softmax", "LogSoftmax", "LeakyReLU", "ELU", "Softplus", "Hardswish",
    "Mish", "Sequential", "ModuleList", "ModuleDict", "ParameterList", "ParameterDict",
    "MSELoss", "L1Loss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss", "BCELoss",
    "BCEWithLogitsLoss", "KLDivLoss", "CosineEmbeddingLoss",
    "RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell",
    "MultiheadAttention", "TransformerEncoderLayer", "TransformerEncoder",
    "Conv1d", "Conv2d", "ConvTranspose1d", "ConvTranspose2d", "MaxPool1d", "MaxPool2d",
    "AvgPool1d", "AvgPool2d", "AdaptiveAvgPool1d", "AdaptiveAvgPool2d", "AdaptiveMaxPool2d",
]  # fmt: skip
