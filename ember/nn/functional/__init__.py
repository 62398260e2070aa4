"""``ember.nn.functional``: PyTorch's functional layer API, written in ember operators.

Everything here is a composition of core operators, so gradients come from
autograd's formula table and every device that runs the core operators runs
these functions. Convolution and pooling are the core's im2col-based Composites.
"""

from ember.nn.functional._activation import (
    elu,
    gelu,
    hardsigmoid,
    hardswish,
    hardtanh,
    leaky_relu,
    log_softmax,
    mish,
    relu,
    relu6,
    sigmoid,
    silu,
    softmax,
    softplus,
    tanh,
)
from ember.nn.functional._attention import (
    multi_head_attention_forward,
    scaled_dot_product_attention,
)
from ember.nn.functional._conv import (
    adaptive_avg_pool1d,
    adaptive_avg_pool2d,
    adaptive_max_pool2d,
    avg_pool1d,
    avg_pool2d,
    conv1d,
    conv2d,
    conv_transpose1d,
    conv_transpose2d,
    fold,
    max_pool1d,
    max_pool2d,
    pad,
    unfold,
)
from ember.nn.functional._layers import (
    batch_norm,
    bilinear,
    dropout,
    embedding,
    group_norm,
    layer_norm,
    linear,
    one_hot,
    rms_norm,
)
from ember.nn.functional._loss import (
    binary_cross_entropy,
    binary_cross_entropy_with_logits,
    cosine_embedding_loss,
    cross_entropy,
    huber_loss,
    kl_div,
    l1_loss,
    mse_loss,
    nll_loss,
    smooth_l1_loss,
)

__all__ = [
    "relu", "relu6", "hardtanh", "gelu", "silu", "mish", "tanh", "sigmoid", "softplus",
    "leaky_relu", "elu", "hardsigmoid", "hardswish", "softmax", "log_softmax",
    "linear", "bilinear", "dropout", "layer_norm", "rms_norm", "group_norm", "batch_norm",
    "embedding", "one_hot",
    "conv1d", "conv2d", "conv_transpose1d", "conv_transpose2d", "max_pool1d", "max_pool2d",
    "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d", "adaptive_avg_pool2d",
    "adaptive_max_pool2d", "pad", "unfold", "fold",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "nll_loss", "cross_entropy",
    "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
    "cosine_embedding_loss",
    "scaled_dot_product_attention", "multi_head_attention_forward",
]  # fmt: skip
