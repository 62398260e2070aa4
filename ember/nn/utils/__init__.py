"""``ember.nn.utils``: gradient clipping, parameter/vector conversion, weight and spectral
normalisation (hooks, or ``parametrizations`` over ``parametrize``), ``skip_init`` and
``rnn`` packing."""

from ember.nn.utils import parametrizations, parametrize, rnn
from ember.nn.utils.clip_grad import (
    clip_grad_norm,
    clip_grad_norm_,
    clip_grad_value_,
    clip_grads_with_norm_,
    get_total_norm,
)
from ember.nn.utils.convert_parameters import parameters_to_vector, vector_to_parameters
from ember.nn.utils.init import skip_init
from ember.nn.utils.weight_norm import (
    remove_spectral_norm,
    remove_weight_norm,
    spectral_norm,
    weight_norm,
)

__all__ = [
    "rnn",
    "parametrize",
    "parametrizations",
    "clip_grad_norm_",
    "clip_grad_norm",
    "clip_grad_value_",
    "get_total_norm",
    "clip_grads_with_norm_",
    "parameters_to_vector",
    "vector_to_parameters",
    "weight_norm",
    "remove_weight_norm",
    "spectral_norm",
    "remove_spectral_norm",
    "skip_init",
]
