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
* ``dlpack_device``/``to_dlpack``/``from_dlpack`` are the device's part of DLPack (Note
  [DLPack export], Note [DLPack import]): a host-memory device needs none; any other device
  declares its DLPack device type and, if its memory can be shared by pointer, builds its
  own capsule and imports the producers' capsules of that type;
* the optional hooks (``cuda_array_interface``, ``from_dlpack``, ``from_host``'s
  ``non_blocking`` keyword) have defaults or are asked for by signature (Note [Optional
  hooks]), so a plugin written before them keeps working unchanged.

Note [DLPack export]
    ``Tensor.__dlpack_device__`` returns ``backend.dlpack_device(dev)``;
    ``Tensor.__dlpack__`` (``ember/operators/dlpack.py``) checks what every device shares
    (requires_grad, ``stream``'s type, ``dl_device``, ``copy``), then asks
    ``backend.to_dlpack(tensor, ...)`` for a capsule. A backend returning None leaves the
    capsule to the core, which can build it only for ``host_memory`` devices (through a
    zero-copy numpy view of the storage); for any other device the export fails with a
    ``BufferError`` that names the device and says to use ``.cpu()``. A CUDA plugin
    answers ``(kDLCUDA=2, index)`` and returns the capsule its array library makes
    (its array library's ``__dlpack__``), honouring ``stream``.

Note [DLPack import]
    ``ember.from_dlpack`` (``ember/operators/dlpack.py``) imports host memory (``kDLCPU``,
    ``kDLCUDAHost``) itself. For any other DLPack device type it looks for the device
    backend whose ``dlpack_device`` answers that type (the registered ones first, then
    every device plugin, loaded for the question) and hands the producer (an object with
    ``__dlpack__``, or an unconsumed capsule) to its ``from_dlpack``, which returns a
    tensor of its device sharing the memory. A CUDA plugin answers ``kDLCUDA`` and
    imports ``torch.cuda`` tensors and other GPU arrays without a copy. Without such a
    backend the import fails with a ``BufferError`` naming the device type.

Note [Optional hooks]
    Hooks added to the contract after plugins were written stay optional. A method with
    a default in ``DeviceBackend`` (``cuda_array_interface``, ``from_dlpack``) is called
    through ``getattr`` with that default, so a backend that does not subclass
    ``DeviceBackend`` works too. A keyword added to an existing method
    (``from_host(array, dev, non_blocking=...)``) is passed only to backends whose
    override accepts it (``accepts_keyword``, one signature inspection per class), and
    is not in the base method's signature, so older overrides still type-check.

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

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ember.core.device import device

__all__ = [
    "DeviceBackend",
    "Capabilities",
    "PLUGIN_API_VERSION",
    "accepts_keyword",
    "host_to_device",
]

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

    A backend returns one from :meth:`DeviceBackend.capabilities`; users read it,
    with ``ops`` filled in, through ``ember.library.capabilities(device_type)``.

    Attributes:
        dtypes: dtype names the device can store.
        native_half: dtype names among float16/bfloat16 that kernels compute natively;
            for the others the core computes in float32 and casts.
        ops: qualified operator names with a native kernel (filled in by the core
            from the kernel tables when queried through ``ember.library.capabilities``).
            A backend leaves it empty; operators it lists without registering their
            kernels draw a ``RuntimeWarning`` when its plugin loads.
        cpu_fallback: True to run every operator the device has no kernel (and the core
            no decomposition) for on the CPU: inputs are copied to the host, the CPU
            kernel runs, results and in-place writes are copied back, and a
            ``CPUFallbackWarning`` names each such operator once (Note [CPU fallback] in
            ``ember/dispatcher/cpu_fallback.py``). ``ember.library.cpu_fallback(name)``
            opts in the same way. Default: False (such operators raise
            ``NotImplementedError``).
        op_dtypes: ``{"exp.default": ("float32",), ...}``: for an operator overload (its
            in-place and ``out=`` forms included), the dtypes of its first tensor
            argument that the device's kernel takes. Other dtypes raise
            ``NotImplementedError`` naming the operator, dtype and device (or run on the
            CPU with ``cpu_fallback``) instead of reaching the kernel; the conformance
            kit reports them ``n/i``. Operators not listed take every dtype in
            ``dtypes``. Default: empty.

    Examples:
        >>> from ember.plugins import Capabilities
        >>> caps = Capabilities(dtypes=("float32", "int64"))
        >>> caps.dtypes, caps.native_half, caps.ops
        (('float32', 'int64'), (), ())
        >>> Capabilities(cpu_fallback=True, op_dtypes={"exp.default": ("float32",)}).op_dtypes
        {'exp.default': ('float32',)}
        >>> "float16" in Capabilities().dtypes
        True
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
    cpu_fallback: bool = False
    op_dtypes: Mapping[str, tuple[str, ...]] = field(default_factory=dict, hash=False)


class DeviceBackend:
    """Base class of a device backend. Subclass it and override what your device has.

    A device plugin returns instances from its ``ember_device_backends`` hook; the
    plugin loader registers each available one (``is_available()``) under its ``name``,
    then the plugin registers kernels through ``ember.library``. The core calls the
    methods below: the availability questions when the plugin loads and for
    ``python -m ember info``; ``allocate`` for every new tensor; ``to_host`` and
    ``from_host`` to move data across devices and to and from numpy; ``new_generator``
    once per device for random numbers. A minimal backend implements ``allocate``,
    ``to_host`` and ``from_host`` (``examples/template_device`` is a complete one).

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
        """Whether at least one device of this type can be used now.

        Called once when the plugin loads: an unavailable backend is not registered
        (its device name then raises, citing :meth:`unavailable_reason`). Also answers
        ``ember.cuda.is_available()`` and its kin. The default is
        ``device_count() > 0``. Must not raise.

        Examples:
            >>> from ember.plugins import DeviceBackend
            >>> class NoCard(DeviceBackend):
            ...     def device_count(self):
            ...         return 0
            >>> DeviceBackend().is_available(), NoCard().is_available()
            (True, False)
        """
        return self.device_count() > 0

    def unavailable_reason(self) -> str | None:
        """Why ``is_available()`` is False (shown by ``python -m ember info``), else None.

        Return a short sentence a user can act on (``"no CUDA driver found"``); it is
        quoted in ``info`` and in the error raised for the device's name.

        Examples:
            >>> from ember.plugins import DeviceBackend
            >>> DeviceBackend().unavailable_reason() is None
            True
        """
        return None

    def device_count(self) -> int:
        """How many devices of this type exist (``ember.<name>.device_count()``).

        Indices ``0 .. device_count() - 1`` are valid in ``"name:index"``. The default
        is 1, right for a single device such as the CPU.

        Examples:
            >>> from ember.plugins import DeviceBackend
            >>> DeviceBackend().device_count()
            1
        """
        return 1

    def capabilities(self) -> Capabilities:
        """The dtypes the device stores and the half types it computes natively.

        Queried when the plugin loads (to check the operators it claims) and the first
        time a tensor is made on each device (``native_half`` decides whether float16
        and bfloat16 operators compute in float32). The default stores every dtype and
        computes half types in float32.

        Returns:
            A :class:`Capabilities`; leave ``ops`` empty (the core fills it in).

        Examples:
            >>> from ember.plugins import Capabilities, DeviceBackend
            >>> class Half(DeviceBackend):
            ...     def capabilities(self):
            ...         return Capabilities(native_half=("float16",))
            >>> Half().capabilities().native_half
            ('float16',)
        """
        return Capabilities()

    # -- memory -------------------------------------------------------------------------------
    def allocate(self, nbytes: int, dev: device) -> Any:
        """Return a new uninitialised block of ``nbytes`` bytes on ``dev``.

        Called for every new tensor on the device (the hot path: keep it short). The
        block is stored in ``Storage.data`` and handed back to this backend's kernels,
        ``to_host`` and ``copy_device``; with ``host_memory = True`` it must be a 1-D,
        C-contiguous ``numpy.uint8`` array of ``nbytes`` bytes. ``nbytes`` may be 0.
        Raise ``MemoryError`` when the device is out of memory: the core turns it into
        PyTorch's RuntimeError naming the shape, dtype and device.

        Examples:
            >>> import numpy as np
            >>> from ember.plugins import DeviceBackend
            >>> class Host(DeviceBackend):
            ...     host_memory = True
            ...     def allocate(self, nbytes, dev):
            ...         return np.empty(nbytes, dtype=np.uint8)
            >>> Host().allocate(8, None).shape
            (8,)
        """
        raise NotImplementedError(f"device '{self.name}' does not implement allocate()")

    def to_host(self, data: Any, offset: int, nbytes: int, dev: device) -> np.ndarray:
        """Copy ``nbytes`` bytes starting at byte ``offset`` of ``data`` into a new uint8 array.

        Called to move a tensor off the device (``.cpu()``, ``.to(other)``,
        ``.numpy()``, printing, ``ember.save``). ``data`` is a block this backend's
        ``allocate`` (or ``from_host``) returned. Return a new 1-D ``numpy.uint8`` array
        the caller owns; wait for queued work that writes ``data`` first.

        Examples:
            >>> import numpy as np
            >>> from ember.plugins import DeviceBackend
            >>> class Host(DeviceBackend):
            ...     def to_host(self, data, offset, nbytes, dev):
            ...         return data[offset : offset + nbytes].copy()
            >>> Host().to_host(np.arange(6, dtype=np.uint8), 2, 3, None)
            array([2, 3, 4], dtype=uint8)
        """
        raise NotImplementedError(f"device '{self.name}' does not implement to_host()")

    def from_host(self, array: np.ndarray, dev: device) -> Any:
        """Return a new block on ``dev`` holding the bytes of the contiguous uint8 ``array``.

        Called to bring data onto the device (``ember.tensor(..., device=...)``,
        ``.to(device)``, ``ember.load`` with a ``map_location``). The returned block is
        what ``allocate`` would return, of ``array.nbytes`` bytes; do not keep a
        reference to ``array``, which the caller may reuse.

        Optional keyword: a backend whose ``from_host`` accepts ``non_blocking`` (a bool)
        is passed it by ``host_to_device`` (Note [Optional hooks]); with True it may
        return before the copy has finished on the device, as long as work it queues on
        the block later runs after the copy (a CUDA backend stages ``array`` in pinned
        memory and copies asynchronously on the current stream). Others never see it.

        Examples:
            >>> import numpy as np
            >>> from ember.plugins import DeviceBackend
            >>> class Host(DeviceBackend):
            ...     def from_host(self, array, dev):
            ...         return array.copy()
            >>> Host().from_host(np.ones(2, dtype=np.uint8), None)
            array([1, 1], dtype=uint8)
        """
        raise NotImplementedError(f"device '{self.name}' does not implement from_host()")

    def copy_device(
        self, dst: Any, dst_offset: int, src: Any, src_offset: int, nbytes: int, dev: device
    ) -> None:
        """Copy ``nbytes`` bytes between two blocks of this device.

        Copies from byte ``src_offset`` of ``src`` to byte ``dst_offset`` of ``dst``; the
        ranges may overlap only if ``src is dst``. ``dev`` is the destination device; ``src``
        may be a block of another index of this type: the core calls this hook for copies
        between two devices of one type (``x.to("mydev:1")``), synchronizing the source
        device before and the destination after (Note [Device-to-device copies] in
        ``ember.operators.drivers``). Raising ``NotImplementedError`` (the default) sends
        the values through host memory instead, as for a pair of devices that cannot copy
        directly. A backend's own kernels (``copy_``, ``clone``) may use it too.

        Examples:
            >>> import numpy as np
            >>> from ember.plugins import DeviceBackend
            >>> class Host(DeviceBackend):
            ...     def copy_device(self, dst, dst_off, src, src_off, nbytes, dev):
            ...         dst[dst_off : dst_off + nbytes] = src[src_off : src_off + nbytes]
            >>> a, b = np.arange(4, dtype=np.uint8), np.zeros(4, dtype=np.uint8)
            >>> Host().copy_device(b, 1, a, 0, 2, None)
            >>> b
            array([0, 0, 1, 0], dtype=uint8)
        """
        raise NotImplementedError

    def synchronize(self, dev: device | None = None) -> None:
        """Wait for all queued work on ``dev`` (or on every device of this type) to finish.

        Called by ``ember.accelerator.synchronize()`` and ``ember.<name>.synchronize()``
        (benchmarks time with it). A backend that runs kernels synchronously, as the
        CPU does, keeps the default, which returns at once.

        Examples:
            >>> import ember
            >>> from ember.plugins import DeviceBackend
            >>> DeviceBackend().synchronize(ember.device("cpu")) is None
            True
        """

    # -- random -------------------------------------------------------------------------------
    def new_generator(self, dev: device) -> Any:
        """A new random state for ``dev``, or None if the device has no random numbers.

        Called once per ``ember.Generator(device=dev)`` (including the device's default
        generator, made on first use). Return an object with ``manual_seed(int)``,
        ``initial_seed()``, ``get_state()`` and ``set_state(state)``; the random kernels
        receive it. ``ember.manual_seed`` reaches it through ``manual_seed``.

        Examples:
            >>> from ember.plugins import DeviceBackend
            >>> DeviceBackend().new_generator(None) is None
            True
        """
        return None

    def environment(self) -> dict[str, str]:
        """Facts for ``python -m ember info`` (library versions, device names, ...).

        Called by ``info`` (which shows each key and value under the device) and by the
        device modules (``ember.cuda.get_device_name`` reads ``device_name``). Must not
        be slow or raise; return strings.

        Examples:
            >>> from ember.plugins import DeviceBackend
            >>> class Mine(DeviceBackend):
            ...     def environment(self):
            ...         return {"driver": "1.2"}
            >>> Mine().environment()
            {'driver': '1.2'}
        """
        return {}

    # -- the device module ---------------------------------------------------------------------
    def device_module(self) -> Any:
        """The object ``ember.<name>`` forwards its device-specific calls to, or None.

        ``ember.cuda`` asks the ``cuda`` backend for it and calls, where present,
        ``current_device``, ``set_device``, ``get_device_name``, ``get_device_capability``,
        ``get_device_properties``, ``synchronize``, ``memory_allocated``,
        ``max_memory_allocated``, ``memory_reserved``, ``max_memory_reserved``,
        ``memory_stats``, ``reset_peak_memory_stats``, ``empty_cache``, ``Stream``,
        ``Event``, ``current_stream``, ``default_stream`` and ``stream``, with
        ``torch.cuda``'s meanings. The default None keeps ``ember.cuda``'s generic answers.

        Examples:
            >>> from ember.plugins import DeviceBackend
            >>> DeviceBackend().device_module() is None
            True
        """
        return None

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

    def from_dlpack(self, ext_tensor: Any, *, copy: bool | None) -> Any:
        """A tensor of this device sharing a DLPack producer's memory, or None if unsupported.

        Called by ``ember.from_dlpack`` for a producer on a DLPack device type this
        backend's ``dlpack_device`` declares (Note [DLPack import]); ``ext_tensor`` is an
        object with ``__dlpack__`` or an unconsumed DLPack capsule. Consume it once, keep
        the producer's memory alive as long as the tensor, copy when ``copy`` is True and
        raise ``BufferError`` when ``copy`` is False and a copy would be needed. The
        default returns None: the core then raises ``BufferError``.

        Examples:
            >>> from ember.plugins import DeviceBackend
            >>> DeviceBackend().from_dlpack(object(), copy=None) is None
            True
        """
        return None

    def cuda_array_interface(self, tensor: Any) -> dict[str, Any] | None:
        """The CUDA Array Interface (version 3) of ``tensor``, or None if not CUDA memory.

        ``Tensor.__cuda_array_interface__`` returns it (Numba and other GPU libraries read it);
        None makes the attribute missing (``AttributeError``), as for PyTorch's cpu
        tensors. A CUDA backend returns ``shape``, ``typestr``, ``data`` (the address,
        read-only flag), ``strides`` in bytes (None if contiguous), ``version`` and
        ``stream``.

        Examples:
            >>> import ember
            >>> from ember.plugins import DeviceBackend
            >>> DeviceBackend().cuda_array_interface(ember.zeros(1)) is None
            True
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


_keyword_cache: dict[tuple[type, str, str], bool] = {}


def accepts_keyword(backend: Any, method: str, keyword: str) -> bool:
    """Whether ``backend``'s ``method`` takes ``keyword`` (by name or ``**kwargs``).

    Note [Optional hooks]: the core passes a keyword added to the contract only to the
    backends that accept it; the answer is cached per class.

    Examples:
        >>> from ember.plugins import DeviceBackend
        >>> class Old(DeviceBackend):
        ...     def from_host(self, array, dev):
        ...         return array
        >>> class New(DeviceBackend):
        ...     def from_host(self, array, dev, non_blocking=False):
        ...         return array
        >>> accepts_keyword(Old(), "from_host", "non_blocking")
        False
        >>> accepts_keyword(New(), "from_host", "non_blocking")
        True
    """
    key = (type(backend), method, keyword)
    ok = _keyword_cache.get(key)
    if ok is None:
        try:
            params = inspect.signature(getattr(backend, method)).parameters.values()
        except (TypeError, ValueError):  # a builtin without a signature: pass nothing extra
            params = ()  # type: ignore[assignment]
        ok = any(
            p.kind is p.VAR_KEYWORD
            or (p.name == keyword and p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD))
            for p in params
        )
        _keyword_cache[key] = ok
    return ok


def host_to_device(
    backend: Any, array: np.ndarray, dev: device, *, non_blocking: bool = False
) -> Any:
    """``backend.from_host(array, dev)``, passing ``non_blocking`` where it is accepted.

    Examples:
        >>> import numpy as np
        >>> from ember.plugins import DeviceBackend
        >>> class Old(DeviceBackend):
        ...     def from_host(self, array, dev):
        ...         return array.copy()
        >>> host_to_device(Old(), np.ones(2, np.uint8), None, non_blocking=True)
        array([1, 1], dtype=uint8)
    """
    if non_blocking and accepts_keyword(backend, "from_host", "non_blocking"):
        return backend.from_host(array, dev, non_blocking=True)
    return backend.from_host(array, dev)
