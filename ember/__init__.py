"""ember: a PyTorch-compatible tensor library whose core knows no device.

``import ember`` loads the core only (dtypes, devices, the dispatcher and the
operator schema); device backends are plugins loaded on first use of their
name. This module re-exports the public API under PyTorch's names.
"""

from typing import TYPE_CHECKING, Any

from ember import autograd, library
from ember._compile import compile
from ember._version import __version__
from ember.autograd.anomaly_mode import (
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_anomaly_enabled,
)
from ember.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from ember.core import providers as _providers
from ember.core._printing import set_printoptions
from ember.core.device import device
from ember.core.dtype import (
    bfloat16,
    dtype,
    finfo,
    float16,
    float32,
    float64,
    get_default_dtype,
    iinfo,
    int8,
    int16,
    int32,
    int64,
    promote_types,
    set_default_dtype,
    uint8,
)
from ember.core.dtype import (
    bool_ as bool,
)
from ember.core.memory_format import (
    channels_last,
    channels_last_3d,
    contiguous_format,
    layout,
    memory_format,
    preserve_format,
    strided,
)
from ember.core.tensor import Size, Tensor
from ember.dispatcher.namespace import ops
from ember.dispatcher.out import add_out_support as _add_out_support
from ember.operators import drivers as _drivers  # noqa: F401 - registers drivers
from ember.operators import forms as _api
from ember.operators import math_forms as _math_forms
from ember.operators import misc_forms as _api_extra
from ember.operators import registration as _registration
from ember.operators.dlpack import from_dlpack
from ember.operators.factories import as_tensor, from_numpy, tensor
from ember.operators.forms import (
    all,
    amax,
    amin,
    any,
    arange,
    argsort,
    bernoulli,
    broadcast_shapes,
    broadcast_tensors,
    div,
    divide,
    einsum,
    empty,
    eye,
    full,
    is_tensor,
    max,
    mean,
    median,
    min,
    numel,
    ones,
    pow,
    prod,
    rand,
    randint,
    randn,
    result_type,
    sort,
    squeeze,
    sum,
    transpose,
    unique,
    zeros,
)
from ember.operators.generator import (
    Generator,
    get_rng_state,
    initial_seed,
    manual_seed,
    seed,
    set_rng_state,
)
from ember.operators.legacy_types import TENSOR_TYPES as _TENSOR_TYPES
from ember.operators.legacy_types import set_default_tensor_type
from ember.plugins.switches import (
    are_deterministic_algorithms_enabled,
    e,
    get_default_device,
    get_deterministic_debug_mode,
    get_float32_matmul_precision,
    get_num_interop_threads,
    get_num_threads,
    inf,
    init_num_threads,
    is_deterministic_algorithms_warn_only_enabled,
    is_warn_always_enabled,
    nan,
    pi,
    set_default_device,
    set_deterministic_debug_mode,
    set_float32_matmul_precision,
    set_flush_denormal,
    set_num_interop_threads,
    set_num_threads,
    set_warn_always,
    use_deterministic_algorithms,
)
from ember.serialization import load, save

_registration.load()
globals().update({k: v for k, v in _registration.functions.items() if k not in globals()})
if TYPE_CHECKING:  # Note [Typed surface]: the names bound here, in a stub (tools/gen_stubs.py)
    from ember._functions import *  # noqa: F403
globals().update(_TENSOR_TYPES)  # FloatTensor, LongTensor, ...
globals().update({k: getattr(_api_extra, k) for k in _api_extra.__all__})
# out= on the ember.* functions (ember/dispatcher/out.py)
_add_out_support(globals(), [*_registration.functions, *_api.__all__, *_api_extra.__all__])
_math_forms.install_public_namespace(globals())  # the aliases forward to ember.<target>

# sparse COO tensors: imported here because it binds Tensor.to_sparse/to_dense (about 6 ms)
from ember import sparse  # noqa: E402
from ember.sparse import sparse_coo_tensor, spmm  # noqa: E402


def _require_cuda() -> None:
    """``Tensor.cuda()``'s check, importing ember.cuda only when it is asked for."""
    import importlib

    importlib.import_module("ember.cuda")._require()


_providers.require_cuda = _require_cuda  # Note [Registration points]

_LAZY_SUBMODULES = (
    "nn", "optim", "utils", "linalg", "cuda", "backends", "accelerator", "amp", "special",
    "random", "jit", "distributions", "distributed", "profiler", "hub", "types",
    "multiprocessing", "fft", "onnx", "fx", "compiler",
)  # fmt: skip
_LAZY_NAMES = {"autocast": "ember.amp"}  # name -> module that defines it
#: PyTorch's top-level forms of nn.functional operations (ember/nn/_top_level.py)
_NN_NAMES = (
    "cosine_similarity pairwise_distance pdist conv3d conv_transpose3d max_pool3d "
    "max_pool1d_with_indices pixel_shuffle pixel_unshuffle channel_shuffle native_channel_shuffle "
    "bilinear prelu hardshrink rms_norm selu_ celu_ rrelu_ threshold_ batch_norm instance_norm "
    "group_norm alpha_dropout alpha_dropout_ feature_alpha_dropout feature_alpha_dropout_ "
    "feature_dropout feature_dropout_ dropout dropout_ adaptive_max_pool1d selu celu threshold "
    "rrelu binary_cross_entropy_with_logits cosine_embedding_loss ctc_loss hinge_embedding_loss "
    "kl_div margin_ranking_loss poisson_nll_loss triplet_margin_loss"
).split()


def __getattr__(name: str) -> Any:
    # nn/optim/utils import on first use, so `import ember` stays as fast as the core.
    import importlib

    if name in _LAZY_SUBMODULES:
        return importlib.import_module(f"ember.{name}")
    if name in _LAZY_NAMES:
        return getattr(importlib.import_module(_LAZY_NAMES[name]), name)
    if name in _NN_NAMES:
        fn = importlib.import_module("ember.nn._top_level").FUNCTIONS[name]
        globals()[name] = fn
        return fn
    if name == "default_generator":  # the CPU generator, made when first asked for
        return importlib.import_module("ember.random").default_generator
    raise AttributeError(f"module 'ember' has no attribute '{name}'")


float = float32  # noqa: A001 - PyTorch's aliases
double = float64
half = float16
long = int64
int = int32  # noqa: A001
short = int16

__all__ = sorted(
    [
        "library",
        "autograd",
        "no_grad",
        "enable_grad",
        "set_grad_enabled",
        "inference_mode",
        "is_grad_enabled",
        "ops",
        "device",
        "dtype",
        "Tensor",
        "Size",
        "Generator",
        "tensor",
        "as_tensor",
        "from_dlpack",
        "from_numpy",
        "manual_seed",
        "seed",
        "initial_seed",
        "get_default_dtype",
        "set_default_dtype",
        "promote_types",
        "result_type",
        "set_printoptions",
        "__version__",
        "bool",
        "uint8",
        "int8",
        "int16",
        "int32",
        "int64",
        "float16",
        "bfloat16",
        "float32",
        "float64",
        "float",
        "double",
        "half",
        "long",
        "int",
        "short",
        "zeros",
        "ones",
        "empty",
        "full",
        "rand",
        "randn",
        "randint",
        "arange",
        "eye",
        "sum",
        "mean",
        "prod",
        "amax",
        "amin",
        "all",
        "any",
        "max",
        "min",
        "div",
        "divide",
        "broadcast_shapes",
        "broadcast_tensors",
        "transpose",
        "is_tensor",
        "numel",
        "squeeze",
        "save",
        "load",
        "serialization",
        "nn",
        "optim",
        "utils",
        "linalg",
        "cuda",
        "backends",
        "accelerator",
        "amp",
        "autocast",
        "special",
        "distributions",
        "random",
        "jit",
        "default_generator",
        "get_rng_state",
        "set_rng_state",
        "finfo",
        "iinfo",
        "memory_format",
        "layout",
        "preserve_format",
        "contiguous_format",
        "channels_last",
        "channels_last_3d",
        "strided",
        "inf",
        "nan",
        "pi",
        "e",
        "set_num_threads",
        "get_num_threads",
        "set_num_interop_threads",
        "get_num_interop_threads",
        "init_num_threads",
        "set_float32_matmul_precision",
        "get_float32_matmul_precision",
        "use_deterministic_algorithms",
        "are_deterministic_algorithms_enabled",
        "is_deterministic_algorithms_warn_only_enabled",
        "set_deterministic_debug_mode",
        "get_deterministic_debug_mode",
        "set_default_device",
        "get_default_device",
        "set_flush_denormal",
        "set_warn_always",
        "is_warn_always_enabled",
        "set_default_tensor_type",
        "compile",
        "is_anomaly_enabled",
        "is_anomaly_check_nan_enabled",
        "set_anomaly_enabled",
        *_TENSOR_TYPES,
        *_NN_NAMES,
        *_api_extra.__all__,
    ]
    + sorted(_registration.functions)
)

# Last: attach the operator docstrings (ember/_docstrings). pyproject.toml's layer contract
# ignores this one edge: packages below the top layer `import ember`, and without the
# exception every such chain would count as their import of the top layer.
from ember import _docstrings  # noqa: E402

_docstrings.apply()
