"""The device contract: what a device backend object provides to the core.

A device plugin returns one or more ``DeviceBackend`` instances from its
``ember_device_backends`` hook (see ``ember.plugins.hookspecs``). The core calls
only the methods below; kernels are registered separately through
``ember.library``. Everything here is host-side Python: no C++ is needed.

Must always hold:

* ``allocate`` returns an object the backend's kernels understand; the core
  stores it in ``Storage.data`` and never looks inside unless ``host_memory``;
* ``host_memory = True`` promises that ``Storage.data`` is a 1-D, C-contiguous
  ``numpy.uint8`` array, so ``Tensor.numpy()`` and ``ember.from_numpy`` share
  memory without copies (the CPU backend does this);
* ``to_host``/``from_host`` move raw bytes; dtype interpretation is the core's;
* ``accelerator = True`` makes the device eligible as ``ember.accelerator``'s current
  accelerator (PyTorch's ``torch.accelerator``: CUDA, XPU, PrivateUse1, ...); the default
  False leaves it an ordinary device (the CPU, a numpy-backed test device);
* ``Capabilities.ops`` is the core's to fill: a backend that lists operators there
  without registering their kernels is warned once when its plugin loads;
* ``dlpack_device``/``to_dlpack`` are the device's part of DLPack (Note [DLPack export]):
  a host-memory device needs neither; any other device declares its DLPack device type
  and, if its memory can be shared by pointer, builds its own capsule.

Note [DLPack export]
    ``Tensor.__dlpack_device__`` returns ``backend.dlpack_device(dev)``;
    ``Tensor.__dlpack__`` (``ember/operators/dlpack.py``) checks what every device shares
    (requires_grad, ``stream``'s type, ``dl_device``, ``copy``), then asks
    ``backend.to_dlpack(tensor, ...)`` for a capsule. A backend returning None leaves the
    capsule to the core, which can build it only for ``host_memory`` devices (through a
    zero-copy numpy view of the storage); for any other device the export fails with a
    ``BufferError`` that names the device and says to use ``.cpu()``. A CUDA plugin
    answers ``(kDLCUDA=2, index)`` and returns the capsule its array library makes
    (CuPy's ``__dlpack__``), honouring ``stream``.

Note [Kernel contract checks]
    A plugin's kernels are checked once, cheaply, so a broken contract fails loudly
    instead of handing users wrong memory: a structured kernel's first call per
    (operator, device) must return None (``ember/operators/drivers.py``); a
    factorization kernel's first outputs must have its meta function's shapes and
    dtypes (``ember/operators/linalg_factorizations.py``); the operators a backend
    claims in ``capabilities().ops`` must have kernels (``ember/plugins/manager.py``).
    After a first call passes, the bare kernel is what dispatch calls: no check is
    left on the hot path. ``kernel_checks`` below is the registration point
    (Note [Registration points]) through which the operator library asks the plugin
    loader to run its checks on each device a plugin registers.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ember.core.device import device

__all__ = ["DeviceBackend", "Capabilities", "PLUGIN_API_VERSION"]

#: DLPack's ``kDLCPU`` device type (``ember.utils.dlpack.DLDeviceType`` lists them all).
KDLCPU = 1

#: Bumped when the contract changes incompatibly; plugins declare the version they target.
PLUGIN_API_VERSION = 1

#: Note [Kernel contract checks]: ``check(device_type, plugin)`` for each device whose
#: plugin's ``ember_register_kernels`` hook has returned (``plugin`` names the distribution,
#: for messages); filled by the operator library, run by ``ember.plugins.manager``.
kernel_checks: list[Callable[[str, str], None]] = []


@dataclass(frozen=True)
class Capabilities:
    """What a device declares it can do, queryable before running anything.

    Attributes:
        dtypes: dtype names the device can store.
        native_half: dtype names among float16/bfloat16 that kernels compute natively;
            for the others the core computes in float32 and casts.
        ops: qualified operator names with a native kernel (filled in by the core
            from the kernel tables when queried through ``ember.library.capabilities``).
            A backend leaves it empty; operators it lists without registering their
            kernels draw a ``RuntimeWarning`` when its plugin loads.
    """

    dtypes: tuple[str, ...] = (
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
    )
    native_half: tuple[str, ...] = ()
    ops: tuple[str, ...] = field(default=())


class DeviceBackend:
    """Base class of a device backend. Subclass it and override what your device has.

    Attributes:
        name: the device type string users write (``"cpu"``, ``"mydev"``, ...).
        indexed: True if devices are numbered (``"mydev:1"``); False for a single
            device such as the CPU, whose tensors report ``device(type='cpu')``.
        host_memory: see the module docstring.
        accelerator: True if the device is an accelerator in PyTorch's sense (a GPU or
            another device that training scripts should prefer to the CPU):
            ``ember.accelerator.current_accelerator()`` then reports it. Declare it on
            the class; default False.

    Examples:
        >>> import ember.plugins as P
        >>> class MyBackend(P.DeviceBackend):
        ...     name = "mydev"
        ...     accelerator = True
        >>> MyBackend().accelerator, P.DeviceBackend().accelerator
        (True, False)
    """

    name: str = ""
    indexed: bool = True
    host_memory: bool = False
    accelerator: bool = False

    # -- availability -------------------------------------------------------------------------
    def is_available(self) -> bool:
        """Whether at least one device can be used now."""
        return self.device_count() > 0

    def unavailable_reason(self) -> str | None:
        """Why ``is_available()`` is False (shown by ``python -m ember info``), else None."""
        return None

    def device_count(self) -> int:
        """How many devices of this type exist."""
        return 1

    def capabilities(self) -> Capabilities:
        return Capabilities()

    # -- memory -------------------------------------------------------------------------------
    def allocate(self, nbytes: int, dev: device) -> Any:
        """Return a new uninitialised block of ``nbytes`` bytes on ``dev``."""
        raise NotImplementedError(f"device '{self.name}' does not implement allocate()")

    def to_host(self, data: Any, offset: int, nbytes: int, dev: device) -> np.ndarray:
        """Copy ``nbytes`` bytes starting at byte ``offset`` of ``data`` into a new uint8 array."""
        raise NotImplementedError(f"device '{self.name}' does not implement to_host()")

    def from_host(self, array: np.ndarray, dev: device) -> Any:
        """Return a new block on ``dev`` holding the bytes of the contiguous uint8 ``array``."""
        raise NotImplementedError(f"device '{self.name}' does not implement from_host()")

    def copy_device(
        self, dst: Any, dst_offset: int, src: Any, src_offset: int, nbytes: int, dev: device
    ) -> None:
        """Copy bytes between two blocks of this device (default: through the host)."""
        raise NotImplementedError

    def synchronize(self, dev: device | None = None) -> None:
        """Wait for all queued work on ``dev`` (or all devices) to finish."""

    # -- random -------------------------------------------------------------------------------
    def new_generator(self, dev: device) -> Any:
        """A new random state for ``dev``: an object with ``manual_seed(int)``,
        ``initial_seed()``, ``get_state()`` and ``set_state(state)``; the random kernels
        receive it. None if the device has no random numbers."""
        return None

    def environment(self) -> dict[str, str]:
        """Facts for ``python -m ember info`` (library versions, device names, ...)."""
        return {}

    # -- DLPack (Note [DLPack export]) ---------------------------------------------------------
    def dlpack_device(self, dev: device) -> tuple[int, int]:
        """DLPack's ``(device_type, device_id)`` of ``dev``: what ``__dlpack_device__`` returns.

        The default answers ``(1, 0)`` (``kDLCPU``) for a ``host_memory`` device and raises
        ``BufferError`` otherwise. Override it with your device's DLPack type
        (``kDLCUDA = 2``, ``kDLOpenCL = 4``, ``kDLROCM = 10``, ...; DLPack's ``dlpack.h``)
        and index, even if the memory cannot be exported (``to_dlpack`` then says why).

        Examples:
            >>> import ember
            >>> from ember.plugins import DeviceBackend
            >>> class Host(DeviceBackend):
            ...     host_memory = True
            >>> Host().dlpack_device(ember.device("cpu"))
            (1, 0)
        """
        if self.host_memory:
            return (KDLCPU, 0)
        raise BufferError(
            f"device '{dev}' declares no DLPack device type (its backend "
            f"{type(self).__name__} does not implement dlpack_device()); copy the tensor to "
            "host memory with .cpu() first"
        )

    def to_dlpack(
        self,
        tensor: Any,
        *,
        stream: int | None,
        max_version: tuple[int, int] | None,
        copy: bool | None,
    ) -> Any:
        """A DLPack capsule of ``tensor`` (on this device), or None to leave it to the core.

        Called by ``Tensor.__dlpack__`` after the checks every device shares (the tensor
        does not require grad; ``dl_device`` is this device). Return a ``"dltensor"``
        capsule (DLPack 0.x, when ``max_version`` is None or below ``(1, 0)``) or a
        ``"dltensor_versioned"`` one, whose deleter keeps the memory alive until the
        consumer is done; make work queued on the device visible to ``stream`` (a CUDA
        stream pointer, or None: the legacy default stream) first; copy when ``copy`` is
        True; raise ``BufferError`` if the memory cannot be shared (when ``copy`` is False
        and a copy would be needed, too). The default returns None: the core exports
        ``host_memory`` devices itself and refuses the others, naming ``.cpu()``.
        """
        return None

    # -- compiler -----------------------------------------------------------------------------
    def compile_kernel(self, kernel: Any) -> Any:
        """Generate code for one fused kernel (``ember.compiler.kernel.FusedKernel``).

        Return ``fn(inputs, outputs)`` that computes the kernel over tensors of this
        device (the calling convention is in Note [Fused kernels] of
        ``ember.compiler.kernel``), or None if this device cannot generate it: the
        compiler then runs the fused operators one by one through the dispatcher. The
        default generates nothing, so a device without a code generator still runs
        compiled graphs.
        """
        return None

    def compile_kernels(self, kernels: list[Any]) -> list[Any]:
        """Generate code for several fused kernels at once (one graph's worth).

        Returns one entry per kernel, as ``compile_kernel`` would. The compiler calls this
        once per graph, so a device whose toolchain has a fixed start-up cost (a C
        compiler, an OpenCL program build) can build every kernel of a graph in one
        translation unit. The default calls ``compile_kernel`` for each.
        """
        return [self.compile_kernel(k) for k in kernels]

    def __repr__(self) -> str:
        return f"<{type(self).__name__} '{self.name}'>"
