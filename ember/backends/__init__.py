"""``ember.backends``: PyTorch's ``torch.backends`` switches, for scripts that set them.

Training scripts flip ``torch.backends.cudnn.benchmark = True``, set
``torch.backends.cuda.matmul.allow_tf32`` or ask ``torch.backends.mps.is_available()``
before choosing a device. ember has no cuDNN, cuBLAS, MPS or MKL-DNN of its own (a device
plugin brings its own kernels), so these are plain attributes that keep the values a script
sets, and availability queries that answer from the installed device plugins. Nothing here
changes how ember computes. ``cuda`` (``ember/backends/cuda``) also owns the
scaled-dot-product-attention backend flags that ``ember.nn.attention.sdpa_kernel`` sets.

Examples:
    >>> import ember
    >>> ember.backends.cudnn.benchmark = True
    >>> ember.backends.mps.is_available()
    False

Layer: the PyTorch API band at the top of the house (docs/architecture.md); may import
every layer below it (core, dispatcher, library, plugins, operators, autograd) and the
other packages of its band (answers from the device table and the plugin records).
"""

from __future__ import annotations

from types import SimpleNamespace

from ember.backends import cuda, cudnn, mps

__all__ = ["cudnn", "mps", "cuda", "mkldnn", "openmp"]


def _false() -> bool:
    return False


mkldnn = SimpleNamespace(is_available=_false, enabled=False)
openmp = SimpleNamespace(is_available=lambda: True)
