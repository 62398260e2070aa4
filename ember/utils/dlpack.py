"""``ember.utils.dlpack``: PyTorch's ``torch.utils.dlpack`` (``to_dlpack``, ``from_dlpack``).

The implementation lives in ``ember/operators/dlpack.py`` (``Tensor.__dlpack__`` needs it
at ``import ember``); this module is the public path PyTorch scripts import. See
``docs/interop.md``.

Examples:
    >>> import numpy as np
    >>> from ember.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack
    >>> a = np.zeros(3, dtype=np.float32)
    >>> t = from_dlpack(a); t += 1; a
    array([1., 1., 1.], dtype=float32)
    >>> DLDeviceType(t.__dlpack_device__()[0])
    <DLDeviceType.kDLCPU: 1>
"""

from ember.operators.dlpack import DLDeviceType, from_dlpack, to_dlpack

__all__ = ["DLDeviceType", "from_dlpack", "to_dlpack"]
