"""The Tensor: a strided view of a Storage, plus the PyTorch method surface.

A tensor is metadata (shape, stride, storage offset, dtype, device, dispatch
keys) over a ``Storage``. Views make new metadata over the same storage; no
device is involved (``ember.operators.views``). Everything that computes goes
through an operator (``ember.ops.aten.*``), so every device and every dispatch
key sees the same calls.

Must always hold: ``_ks`` is the tensor's dispatch key set (its device key, plus
Autograd when it requires grad); ``_stride`` is in elements; strides are never
negative. A tensor pickles by value and loads as a leaf (Note [Pickling tensors]);
``share_memory_()`` moves a host storage into an anonymous shared-memory file, which
``ember.multiprocessing`` passes to other processes.
"""

from __future__ import annotations

import builtins
import copy
import copyreg
import mmap
import os
import tempfile
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

import numpy as np

from ember.core import dtype as dt
from ember.core import providers
from ember.core.device import device
from ember.core.dispatch_key import DEVICE_MASK as _DEVICE_MASK
from ember.core.storage import Storage

_device_type = device

__all__ = ["Tensor", "Size", "make_tensor", "contiguous_strides"]


class Size(tuple):  # type: ignore[type-arg]
    """A tensor's shape: a tuple of ints, printed as ``ember.Size([2, 3])``.

    Examples:
        >>> import ember
        >>> ember.zeros(2, 3).shape
        ember.Size([2, 3])
        >>> ember.zeros(2, 3).shape.numel()
        6
    """

    __slots__ = ()

    def __repr__(self) -> str:
        return f"ember.Size([{', '.join(map(str, self))}])"

    def numel(self) -> int:
        n = 1
        for s in self:
            n *= s
        return n

    def __getitem__(self, item: Any) -> Any:
        r = tuple.__getitem__(self, item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other: Any) -> Size:  # type: ignore[override]
        return Size(tuple(self) + tuple(other))

    def __reduce__(self) -> Any:
        return (Size, (tuple(self),))


def contiguous_strides(shape: tuple[int, ...]) -> tuple[int, ...]:
    """Row-major strides, in elements, of a tensor of ``shape``."""
    st = []
    acc = 1
    for s in reversed(shape):
        st.append(acc)
        acc *= max(s, 1)
    return tuple(reversed(st))


#: PyTorch's messages for a non-float tensor asked to require grad (``requires_grad_()``; the
#: ``requires_grad`` setter; a factory's ``requires_grad=True``, capitalised)
_GRAD_DTYPES = (
    "dtype can require gradients",
    "and complex dtype can require gradients",
)
_NON_LEAF_GRAD = (
    "The .grad attribute of a Tensor that is not a leaf Tensor is being accessed. Its .grad "
    "attribute won't be populated during autograd.backward(). If you indeed want the .grad field "
    "to be populated for a non-leaf Tensor, use .retain_grad() on the non-leaf Tensor. If you "
    "access the non-leaf Tensor by mistake, make sure you access the leaf Tensor instead. See "
    "github.com/pytorch/pytorch/pull/30531 for more information."
)


def factory_requires_grad(t: Tensor, requires_grad: Any) -> Tensor:
    """A factory's ``requires_grad=``: PyTorch's factory message for a non-float dtype.

    Examples:
        >>> import ember
        >>> factory_requires_grad(ember.zeros(2), True).requires_grad
        True
    """
    if not requires_grad:
        return t
    if t._dtype.category != dt.FLOAT:
        raise RuntimeError(f"Only Tensors of floating point {_GRAD_DTYPES[1]}")
    return t.requires_grad_(True)


def fresh_version(fn: Any) -> Any:
    """Wrap a factory kernel so the tensor it returns has version 0, as PyTorch's: the
    ``fill_``/``copy_``/random writes that built it were on memory nobody else has seen."""

    def kernel(*args: Any, **kwargs: Any) -> Any:
        out = fn(*args, **kwargs)
        if type(out) is Tensor and not any(
            isinstance(a, Tensor) and a._storage is out._storage for a in args
        ):
            out._storage.version = 0
        return out

    kernel.__name__ = kernel.__qualname__ = getattr(fn, "__name__", "kernel")
    kernel.__doc__ = fn.__doc__
    return kernel


def make_tensor(
    storage: Storage,
    shape: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
    dtype: dt.dtype,
    dev: device,
    ks: int,
) -> Tensor:
    """Create a tensor object without any checks (the core's fast constructor)."""
    t = object.__new__(Tensor)
    t._storage = storage
    t._shape = shape if type(shape) is Size else Size(shape)
    t._stride = stride
    t._offset = offset
    t._dtype = dtype
    t._device = dev
    t._ks = ks
    t._requires_grad = False
    t._grad = None
    t.grad_fn = None
    t._base = None
    return t


def _shape_args(args: tuple[Any, ...], what: str = "size") -> tuple[int, ...]:
    """Accept ``f(2, 3)``, ``f((2, 3))`` and ``f([2, 3])`` as PyTorch does."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = tuple(args[0])
    out = []
    for a in args:
        if isinstance(a, Tensor):
            a = a.item()
        if isinstance(a, bool) or not isinstance(a, (int, np.integer)):
            raise TypeError(f"{what} must be a sequence of ints, but got {type(a).__name__}")
        out.append(int(a))
    return tuple(out)


def _ops() -> Any:
    return providers.aten


if TYPE_CHECKING:
    # Note [Typed surface]: the methods registration binds from ops.yaml at import, as a stub
    # generated by tools/gen_stubs.py; at run time Tensor derives from object alone.
    from ember.core._tensor_methods import TensorMethods
else:
    TensorMethods = object


class Tensor(TensorMethods):
    """A multi-dimensional array on some device, with PyTorch's API.

    Construct tensors with factory functions (``ember.tensor``, ``ember.zeros``...),
    not with this class.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1., 2.], [3., 4.]])
        >>> x.shape, x.dtype, x.device
        (ember.Size([2, 2]), ember.float32, device(type='cpu'))
        >>> (x + x).tolist()
        [[2.0, 4.0], [6.0, 8.0]]
        >>> x.t().is_contiguous()
        False
    """

    __slots__ = (
        "_storage",
        "_shape",
        "_stride",
        "_offset",
        "_dtype",
        "_device",
        "_ks",
        "_requires_grad",
        "_grad",
        "grad_fn",
        "_base",
        "__dict__",
        "__weakref__",
    )
    _storage: Storage
    _shape: Size
    _stride: tuple[int, ...]
    _offset: int
    _dtype: dt.dtype
    _device: device
    _ks: int
    _requires_grad: bool
    _grad: Tensor | None
    grad_fn: Any
    _base: Tensor | None

    def __new__(cls, *args: Any, device: Any = None) -> Tensor:
        """PyTorch's legacy constructor: ``Tensor(2, 3)`` is uninitialised, ``Tensor([1, 2])``
        copies data; both in the default dtype (``nn.Parameter(torch.Tensor(out, in))``)."""
        if cls is not Tensor:
            raise TypeError(
                f"{cls.__name__} cannot be constructed directly; use ember.tensor(data), "
                "ember.empty(size) or another factory function"
            )
        return _legacy_new(args, dt.get_default_dtype(), device, "Tensor")

    def new(self, *args: Any, device: Any = None) -> Tensor:
        """Legacy ``x.new(2, 3)`` / ``x.new([1, 2])``: like ``Tensor(...)`` in x's dtype and device.

        Examples:
            >>> import ember
            >>> x = ember.zeros(2, dtype=ember.float64)
            >>> x.new(3, 4).shape, x.new([1, 2]).dtype
            (ember.Size([3, 4]), ember.float64)
        """
        return _legacy_new(args, self._dtype, device or self._device, "new")

    # -- metadata -----------------------------------------------------------------------------
    @property
    def shape(self) -> Size:
        return self._shape

    def size(self, dim: int | None = None) -> Any:
        if dim is None:
            return self._shape
        return self._shape[_wrap_dim(dim, len(self._shape), "size")]

    def stride(self, dim: int | None = None) -> Any:
        if dim is None:
            return self._stride
        return self._stride[_wrap_dim(dim, len(self._shape), "stride")]

    def storage_offset(self) -> int:
        return self._offset

    @property
    def dtype(self) -> dt.dtype:
        return self._dtype

    @property
    def device(self) -> device:
        return self._device

    @property
    def ndim(self) -> int:
        return len(self._shape)

    def dim(self) -> int:
        return len(self._shape)

    ndimension = dim

    def numel(self) -> int:
        n = 1
        for s in self._shape:
            n *= s
        return n

    nelement = numel

    def element_size(self) -> int:
        return self._dtype.itemsize

    @property
    def itemsize(self) -> int:
        return self._dtype.itemsize

    @property
    def nbytes(self) -> int:
        return self.numel() * self._dtype.itemsize

    @property
    def is_meta(self) -> bool:
        return self._device.type == "meta"

    @property
    def is_cpu(self) -> bool:
        return self._device.type == "cpu"

    @property
    def is_cuda(self) -> bool:
        return self._device.type == "cuda"

    @property
    def is_xpu(self) -> bool:
        return self._device.type == "xpu"

    @property
    def is_mps(self) -> bool:
        return self._device.type == "mps"

    # PyTorch's layout/flavour flags: ember tensors are always dense and strided.
    @property
    def layout(self) -> Any:
        from ember.core.memory_format import strided

        return strided

    is_sparse = False
    is_quantized = False
    is_nested = False
    is_mkldnn = False

    def is_signed(self) -> bool:
        return self._dtype.name not in ("uint8", "bool")

    def is_inference(self) -> bool:
        return False

    def is_pinned(self) -> bool:
        return False

    def is_shared(self) -> bool:
        """Whether the storage lives in shared memory (``share_memory_()``, or received so).

        Examples:
            >>> import ember
            >>> x = ember.zeros(3)
            >>> x.is_shared(), x.share_memory_().is_shared(), x[1:].is_shared()
            (False, True, True)
        """
        return self._storage in _SHARED_FDS

    def share_memory_(self) -> Tensor:
        """Move the storage into shared memory, in place (every view of it follows).

        A no-op when already shared, and for tensors on devices without host memory (they
        travel between processes by value). Through ``ember.multiprocessing`` (its Queue,
        Pool and process arguments), a shared tensor reaches another process as the same
        memory: writes on either side are seen by the other.

        Examples:
            >>> import ember
            >>> x = ember.arange(3.)
            >>> x.share_memory_() is x, x.tolist()
            (True, [0.0, 1.0, 2.0])
        """
        st = self._storage
        if st.data is not None and providers.backend(st.device.type).host_memory:
            share_storage(st)
        return self

    def __reduce_ex__(self, proto: Any) -> Any:
        # Note [Pickling tensors]: by value. The storage is its own pickled object (the
        # copyreg reducer below), so views pickled together share memory after loading; the
        # result is a leaf that keeps requires_grad and the instance __dict__, not .grad or
        # the graph (as PyTorch's). Device keys are per process, so _ks is rebuilt on load.
        state = {
            k: v
            for k, v in self.__dict__.items()
            if k not in _PROCESS_LOCAL_STATE and not isinstance(v, weakref.ReferenceType)
        }
        args = (self._storage, self._dtype, tuple(self._shape), self._stride, self._offset)
        return (_rebuild_tensor, (type(self), *args, self._requires_grad, state))

    @property
    def _version(self) -> int:
        # the storage's in-place write counter (what saved tensors check); factories reset it
        # to 0 on the tensor they return (``fresh_version``), as PyTorch's starts at 0
        return self._storage.version

    def is_floating_point(self) -> bool:
        return self._dtype.category == dt.FLOAT

    def is_complex(self) -> bool:
        return False

    def untyped_storage(self) -> Storage:
        return self._storage

    def get_device(self) -> int:
        return -1 if self._device.index is None else self._device.index

    def is_contiguous(self, memory_format: Any = None) -> bool:
        """Row-major (or, with ``memory_format=``, that format's) layout, size-1 dims aside.

        Examples:
            >>> import ember
            >>> x = ember.zeros(2, 3, 4, 5).contiguous(memory_format=ember.channels_last)
            >>> x.is_contiguous(), x.is_contiguous(memory_format=ember.channels_last)
            (False, True)
        """
        if memory_format is not None:
            from ember.core import memory_format as mf

            fmt = mf.as_memory_format(memory_format, "is_contiguous")
            return mf.is_contiguous_as(self._shape, self._stride, fmt)
        expected = 1
        for size, st in zip(reversed(self._shape), reversed(self._stride)):
            if size == 1:
                continue
            if size == 0:
                return True
            if st != expected:
                return 0 in self._shape  # an empty tensor is contiguous whatever its strides
            expected *= size
        return True

    def data_ptr(self) -> int:
        if self._storage.data is None:
            return 0
        data = self._storage.data
        if isinstance(data, np.ndarray):
            return int(data.__array_interface__["data"][0]) + self._offset * self._dtype.itemsize
        raise RuntimeError(f"data_ptr() is not available for device '{self._device}'")

    # -- autograd surface (the engine lives in ember.autograd) ---------------------------------
    @property
    def requires_grad(self) -> bool:
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value: bool) -> None:
        if value and self._dtype.category != dt.FLOAT:
            raise RuntimeError(f"only Tensors of floating point {_GRAD_DTYPES[1]}")
        self.requires_grad_(value)

    def requires_grad_(self, requires_grad: bool = True) -> Tensor:
        if requires_grad and self._dtype.category != dt.FLOAT:
            raise RuntimeError(f"only Tensors of floating point {_GRAD_DTYPES[0]}")
        if not requires_grad and self.grad_fn is not None:
            raise RuntimeError(
                "you can only change requires_grad flags of leaf variables. If you want to use "
                "a computed variable in a subgraph that doesn't require differentiation use "
                "var_no_grad = var.detach()."
            )
        from ember.core.dispatch_key import Autograd

        if requires_grad:
            providers.ensure_autograd()
        self._requires_grad = bool(requires_grad)
        self._ks = (self._ks | Autograd.mask) if requires_grad else (self._ks & ~Autograd.mask)
        return self

    @property
    def grad(self) -> Tensor | None:
        g = self._grad
        if g is None and self.grad_fn is not None and not self.__dict__.get("_retains_grad"):
            import warnings

            warnings.warn(_NON_LEAF_GRAD, UserWarning, stacklevel=2)
        return g

    @grad.setter
    def grad(self, value: Tensor | None) -> None:
        self._grad = value

    @property
    def is_leaf(self) -> bool:
        return self.grad_fn is None

    def detach(self) -> Tensor:
        return _ops().detach.default(self)

    @property
    def data(self) -> Tensor:
        """This tensor's values without autograd history (shares memory)."""
        return self.detach()

    @data.setter
    def data(self, value: Tensor) -> None:
        if not isinstance(value, Tensor):
            raise TypeError(f"data must be a Tensor, not {type(value).__name__}")
        self._storage, self._shape, self._stride = value._storage, value._shape, value._stride
        self._offset, self._dtype, self._device = value._offset, value._dtype, value._device
        keep = self._ks & ~_DEVICE_MASK
        self._ks = keep | (value._ks & _DEVICE_MASK)

    def __deepcopy__(self, memo: dict[int, Any]) -> Tensor:
        if self.grad_fn is not None:
            raise RuntimeError(
                "Only Tensors created explicitly by the user (graph leaves) support the deepcopy "
                "protocol at the moment.  If you were attempting to deepcopy a module, this may "
                "be because of a torch.nn.utils.weight_norm usage, see "
                "https://github.com/pytorch/pytorch/pull/103001"
            )
        new = self.detach().clone()
        if type(self) is not Tensor:
            # Subclasses (nn.Parameter) keep their class; the slots carry the state.
            sub = object.__new__(type(self))
            for name in (
                "_storage",
                "_shape",
                "_stride",
                "_offset",
                "_dtype",
                "_device",
                "_ks",
                "_requires_grad",
                "_grad",
                "grad_fn",
                "_base",
            ):
                setattr(sub, name, getattr(new, name))
            sub.__dict__.update(copy.deepcopy(self.__dict__, memo))
            new = sub
        if self._requires_grad:
            new.requires_grad_(True)
        if self._grad is not None:
            new._grad = copy.deepcopy(self._grad, memo)
        memo[id(self)] = new
        return new

    def detach_(self) -> Tensor:
        if self._base is not None and self.grad_fn is not None:
            raise RuntimeError(
                "Can't detach views in-place. Use detach() instead. If you are using "
                "DistributedDataParallel (DDP) for training, and gradient_as_bucket_view is set "
                "as True, gradients are views of DDP buckets, and hence detach_() cannot be "
                "called on these gradients. To fix this error, please refer to the Optimizer."
                "zero_grad() function in torch/optim/optimizer.py as the solution."
            )
        from ember.core.dispatch_key import Autograd

        self.grad_fn = None
        self._requires_grad = False
        self._ks &= ~Autograd.mask
        return self

    @property
    def output_nr(self) -> builtins.int:
        return self.__dict__.get("_output_nr", 0)  # type: ignore[no-any-return]

    def backward(
        self,
        gradient: Tensor | None = None,
        retain_graph: builtins.bool | None = None,
        create_graph: builtins.bool = False,
        inputs: Any = None,
    ) -> None:
        """Accumulate this tensor's gradient with respect to the graph leaves into ``.grad``.

        Examples:
            >>> import ember
            >>> x = ember.tensor([1., 2.], requires_grad=True)
            >>> (x * 3).sum().backward()
            >>> x.grad
            tensor([3., 3.])
        """
        providers.backward(self, gradient, retain_graph, create_graph, inputs)

    def retain_grad(self) -> None:
        """Keep ``.grad`` of this non-leaf tensor after backward."""
        if self.grad_fn is None:
            if not self._requires_grad:
                raise RuntimeError("can't retain_grad on Tensor that has requires_grad=False")
            return
        import weakref

        self.grad_fn._retain[self.output_nr] = weakref.ref(self)
        self.__dict__["_retains_grad"] = True

    @property
    def retains_grad(self) -> builtins.bool:
        return self.grad_fn is not None and self.__dict__.get("_retains_grad", False)

    def register_hook(self, hook: Any) -> Any:
        """Call ``hook(grad)`` when this tensor's gradient is computed; it may return a new one.

        Examples:
            >>> import ember
            >>> x = ember.tensor([1., 2.], requires_grad=True)
            >>> h = x.register_hook(lambda g: g * 10)
            >>> x.sum().backward(); x.grad
            tensor([10., 10.])
        """
        if not self._requires_grad:
            raise RuntimeError("cannot register a hook on a tensor that doesn't require gradient")
        if self.grad_fn is None:
            hooks = self.__dict__.setdefault("_hooks", [])
        else:
            hooks = self.grad_fn._tensor_hooks.setdefault(self.output_nr, [])
        hooks.append(hook)
        return providers.removable_handle(hooks, hook)

    def register_post_accumulate_grad_hook(self, hook: Any) -> Any:
        """Call ``hook(tensor)`` after a leaf's ``.grad`` has been accumulated."""
        if self.grad_fn is not None:
            raise RuntimeError(
                "post accumulate grad hooks cannot be registered on non-leaf tensors"
            )
        hooks = self.__dict__.setdefault("_post_acc_hooks", [])
        hooks.append(hook)
        return providers.removable_handle(hooks, hook)

    # -- host interop -------------------------------------------------------------------------
    def numpy(self, *, force: bool = False) -> np.ndarray:
        """A numpy array sharing memory with this CPU tensor (copied when ``force``).

        Examples:
            >>> import ember
            >>> x = ember.zeros(2)
            >>> a = x.numpy(); a[0] = 5
            >>> x
            tensor([5., 0.])
        """
        if self._requires_grad and not force:
            raise RuntimeError(
                "Can't call numpy() on Tensor that requires grad. Use tensor.detach().numpy() "
                "instead."
            )
        if self._dtype is dt.bfloat16:
            raise TypeError("Got unsupported ScalarType BFloat16")
        if host_read_hook[0] is not None:
            host_read_hook[0](self, "numpy()")
        if not providers.backend(self._device.type).host_memory:
            if not force:
                raise TypeError(
                    f"can't convert {self._device} device type tensor to numpy. Use Tensor.cpu() "
                    "to copy the tensor to host memory first."
                )
            return _host_array(self).copy()
        arr = _host_view(self)
        return arr.copy() if force else arr

    def __dlpack__(
        self,
        *,
        stream: Any = None,
        max_version: tuple[int, int] | None = None,
        dl_device: tuple[int, int] | None = None,
        copy: bool | None = None,
    ) -> Any:
        """A DLPack capsule sharing this tensor's memory (the array API's ``__dlpack__``).

        A versioned ``"dltensor_versioned"`` capsule when ``max_version >= (1, 0)``, the
        legacy ``"dltensor"`` one otherwise; ``copy=True`` exports a copy, ``copy=False``
        raises ``BufferError`` where a copy would be needed (Note [DLPack export]).

        Examples:
            >>> import ember, numpy as np
            >>> x = ember.arange(3.)
            >>> a = np.from_dlpack(x); a[0] = 7
            >>> x, a.ctypes.data == x.data_ptr()
            (tensor([7., 1., 2.]), True)
        """
        return providers.to_dlpack(
            self, stream=stream, max_version=max_version, dl_device=dl_device, copy=copy
        )

    def __dlpack_device__(self) -> tuple[int, int]:
        """DLPack's ``(device_type, device_id)`` of the tensor's device (``(1, 0)`` on cpu).

        Examples:
            >>> import ember
            >>> ember.zeros(2).__dlpack_device__()
            (1, 0)
        """
        dl = providers.backend(self._device.type).dlpack_device(self._device)
        return (int(dl[0]), int(dl[1]))

    @property
    def __cuda_array_interface__(self) -> dict[str, Any]:
        """The CUDA Array Interface (Numba's protocol) of a tensor in CUDA memory.

        Answered by the tensor's device backend (``DeviceBackend.cuda_array_interface``,
        Note [Optional hooks]); on any other device the attribute is missing
        (``AttributeError``, so ``hasattr`` is False), as for PyTorch's cpu tensors.

        Examples:
            >>> import ember
            >>> hasattr(ember.zeros(2), "__cuda_array_interface__")
            False
        """
        hook = getattr(providers.backend(self._device.type), "cuda_array_interface", None)
        cai = hook(self) if hook is not None else None
        if cai is None:
            raise AttributeError(
                f"Can't get __cuda_array_interface__ on non-CUDA tensor type: {self.type()} "
                "If CUDA data is required use tensor.cuda() to copy tensor to device memory."
            )
        return cai

    def _host_values(self) -> np.ndarray:
        """Values on the host for printing and tolist (bfloat16 widened to float32)."""
        if host_read_hook[0] is not None:
            host_read_hook[0](self, "reading its values (item(), tolist(), bool(), print)")
        a = _host_array(self)
        if self._dtype is dt.bfloat16:
            a = (a.astype(np.uint32) << 16).view(np.float32)
        return a

    def tolist(self) -> Any:
        return self._host_values().tolist()

    def item(self) -> Any:
        if self.numel() != 1:
            raise RuntimeError(
                f"a Tensor with {self.numel()} elements cannot be converted to Scalar"
            )
        return self._host_values().reshape(()).item()

    def __array__(self, dtype: Any = None, copy: Any = None) -> np.ndarray:
        a = self._host_values()
        return a.astype(dtype) if dtype is not None else a

    def __repr__(self) -> str:
        from ember.core._printing import format_tensor

        suffixes = []
        if self.grad_fn is not None:
            suffixes.append(f"grad_fn=<{type(self.grad_fn).__name__}>")
        elif self._requires_grad:
            suffixes.append("requires_grad=True")
        dev = None if self._device.type == "cpu" else str(self._device)
        if self._device.type == "meta":
            return (
                f"tensor(..., device='meta', size={tuple(self._shape)}"
                + ("" if self._dtype is dt.get_default_dtype() else f", dtype={self._dtype!r}")
                + ")"
            )
        return format_tensor(
            self._host_values(),
            dtype_name=self._dtype.name,
            default_dtype_name=dt.get_default_dtype().name,
            device=dev,
            suffixes=tuple(suffixes),
        )

    __str__ = __repr__

    # numpy defers binary operators to the tensor (``np.float32(2) * t`` is a Tensor).
    __array_priority__ = 1000

    def __format__(self, spec: str) -> str:
        if not self._shape and self._device.type != "meta":
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __contains__(self, element: Any) -> bool:
        if not isinstance(element, (Tensor, builtins.int, builtins.float, builtins.bool)):
            raise RuntimeError(
                "Tensor.__contains__ only supports Tensor or scalar, but you passed in a "
                f"{type(element)}."
            )
        same: Any = self == element
        return bool(same.any().item())

    def __reversed__(self) -> Tensor:
        return self if not self._shape else self.flip(0)

    def __len__(self) -> int:
        if not self._shape:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self) -> Any:
        if not self._shape:
            raise TypeError("iteration over a 0-d tensor")
        return (self[i] for i in range(self._shape[0]))

    def __bool__(self) -> bool:
        if self.numel() != 1:
            raise RuntimeError(
                "Boolean value of Tensor with more than one value is ambiguous"
                if self.numel() > 1
                else "Boolean value of Tensor with no values is ambiguous"
            )
        return bool(self.item())

    def __float__(self) -> float:
        return float(self.item())

    def __int__(self) -> int:
        return int(self.item())

    def __index__(self) -> int:
        if self._dtype.category != dt.INT or self.numel() != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    __hash__ = object.__hash__

    # -- new_* factories -----------------------------------------------------------------------
    def new_empty(self, *size: Any, dtype: Any = None, device: Any = None,
                  requires_grad: builtins.bool = False, **_: Any) -> Tensor:  # fmt: skip
        shape = tuple(size[0]) if len(size) == 1 and not isinstance(size[0], int) else size
        t = providers.new_empty(tuple(int(s) for s in shape), dtype or self._dtype,
                      _device_type(device) if device is not None else self._device)  # fmt: skip
        return t.requires_grad_() if requires_grad else t

    def new_full(self, size: Any, fill_value: Any, *, dtype: Any = None, device: Any = None,
                 requires_grad: builtins.bool = False, **_: Any) -> Tensor:  # fmt: skip
        t = self.new_empty(size, dtype=dtype, device=device).fill_(fill_value)
        return t.requires_grad_() if requires_grad else t

    def new_zeros(self, *size: Any, dtype: Any = None, device: Any = None,
                  requires_grad: builtins.bool = False, **_: Any) -> Tensor:  # fmt: skip
        t = self.new_empty(*size, dtype=dtype, device=device).fill_(0)
        return t.requires_grad_() if requires_grad else t

    def new_ones(self, *size: Any, dtype: Any = None, device: Any = None,
                 requires_grad: builtins.bool = False, **_: Any) -> Tensor:  # fmt: skip
        t = self.new_empty(*size, dtype=dtype, device=device).fill_(1)
        return t.requires_grad_() if requires_grad else t

    def new_tensor(self, data: Any, *, dtype: Any = None, device: Any = None,
                   requires_grad: builtins.bool = False) -> Tensor:  # fmt: skip
        return providers.tensor(data, dtype=dtype or self._dtype, device=device or self._device,
                      requires_grad=requires_grad)  # fmt: skip

    # -- conversion ---------------------------------------------------------------------------
    def to(self, *args: Any, **kwargs: Any) -> Tensor:
        """``to(dtype)``, ``to(device, dtype=None)``, ``to(other)``, with ``copy=False``."""
        dtype = kwargs.pop("dtype", None)
        dev = kwargs.pop("device", None)
        copy = kwargs.pop("copy", False)
        non_blocking = kwargs.pop("non_blocking", False)
        memory_format = kwargs.pop("memory_format", None)
        if kwargs:
            raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
        for a in args:
            if isinstance(a, dt.dtype):
                dtype = a
            elif isinstance(a, Tensor):
                dtype, dev = a._dtype, a._device
            elif isinstance(a, (str, device)):
                dev = a
            elif isinstance(a, bool):
                non_blocking = a
            else:
                raise TypeError(f"to() received an invalid argument of type {type(a).__name__}")
        target = None if dev is None else providers.normalize_device(dev)
        if (
            not copy
            and (dtype is None or dtype is self._dtype)
            and (target is None or target is self._device)
            and (memory_format is None or _keeps_format(self, memory_format))
        ):
            return self
        return _ops()._to_copy.default(
            self, dtype=dtype, device=target, non_blocking=non_blocking, memory_format=memory_format
        )

    def cpu(self) -> Tensor:
        return self.to("cpu")

    def cuda(self, device: Any = None, non_blocking: builtins.bool = False) -> Tensor:
        """Copy to a CUDA device; needs a ``cuda`` device plugin (see ``ember.cuda``)."""
        providers.require_cuda()
        idx = device if isinstance(device, builtins.int) else None
        target = _device_type("cuda", idx) if device is None or idx is not None else device
        return self.to(target, non_blocking=non_blocking)

    def pin_memory(self, device: Any = None) -> Tensor:
        raise RuntimeError(
            "Cannot access accelerator device when none is available: pin_memory() needs a "
            "device plugin with pinned host memory; ember's tensors are used from host memory "
            "as they are"
        )

    def type(self, dtype: Any = None, non_blocking: builtins.bool = False) -> Any:
        if dtype is None:
            return f"ember.{_LEGACY_NAMES.get(self._dtype.name, 'Tensor')}"
        if isinstance(dtype, str):
            dtype = _legacy_dtype(dtype)
        elif isinstance(dtype, type) and isinstance(getattr(dtype, "dtype", None), dt.dtype):
            dtype = dtype.dtype  # type: ignore[attr-defined] # a legacy type: ember.DoubleTensor
        return self.to(dtype)

    def float(self) -> Tensor:
        return self.to(dt.float32)

    def double(self) -> Tensor:
        return self.to(dt.float64)

    def half(self) -> Tensor:
        return self.to(dt.float16)

    def bfloat16(self) -> Tensor:
        return self.to(dt.bfloat16)

    def int(self) -> Tensor:
        return self.to(dt.int32)

    def long(self) -> Tensor:
        return self.to(dt.int64)

    def short(self) -> Tensor:
        return self.to(dt.int16)

    def char(self) -> Tensor:
        return self.to(dt.int8)

    def byte(self) -> Tensor:
        return self.to(dt.uint8)

    def bool(self) -> Tensor:
        return self.to(dt.bool_)

    # -- views with PyTorch's varargs forms ---------------------------------------------------
    # The varargs forms also take PyTorch's keyword (``x.view(size=...)``, ``x.flip(dims=...)``).
    def view(self, *shape: Any, size: Any = None, dtype: Any = None) -> Tensor:
        if dtype is not None or (len(shape) == 1 and isinstance(shape[0], dt.dtype)):
            return _ops().view.dtype(self, dtype if dtype is not None else shape[0])
        return _ops().view.default(self, _shape_args(shape if size is None else (size,)))

    def reshape(self, *shape: Any, **kw: Any) -> Tensor:
        return _ops().reshape.default(self, _shape_args(_kw_args(shape, kw, "shape")))

    def expand(self, *sizes: Any, **kw: Any) -> Tensor:
        return _ops().expand.default(self, _shape_args(_kw_args(sizes, kw, "size")))

    def permute(self, *dims: Any, **kw: Any) -> Tensor:
        return _ops().permute.default(self, _shape_args(_kw_args(dims, kw, "dims"), "dims"))

    def repeat(self, *sizes: Any, **kw: Any) -> Tensor:
        reps = _shape_args(_kw_args(sizes, kw, "repeats"), "repeats")
        return _ops().repeat.default(self, reps)  # type: ignore[no-any-return]

    def tile(self, *dims: Any, **kw: Any) -> Tensor:
        dims = _shape_args(_kw_args(dims, kw, "dims"), "dims")
        return _ops().tile.default(self, dims)  # type: ignore[no-any-return]

    def flip(self, *dims: Any, **kw: Any) -> Tensor:
        dims = _shape_args(_kw_args(dims, kw, "dims"), "dims")
        return _ops().flip.default(self, dims)  # type: ignore[no-any-return]

    def norm(self, p: Any = 2, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        if dim is None and not keepdim and p == 2:
            return _ops().norm.Scalar(self, p)  # type: ignore[no-any-return]
        return _ops().norm.ScalarOpt_dim(self, p, _dims(dim) or (), keepdim)  # type: ignore[no-any-return]

    def view_as(self, other: Tensor) -> Tensor:
        return self.view(other._shape)

    def reshape_as(self, other: Tensor) -> Tensor:
        return self.reshape(other._shape)

    def expand_as(self, other: Tensor) -> Tensor:
        return self.expand(other._shape)

    def squeeze(self, dim: Any = None) -> Tensor:
        if dim is None:
            return _ops().squeeze.default(self)
        if isinstance(dim, (tuple, list)):
            return _ops().squeeze.dims(self, tuple(dim))
        return _ops().squeeze.dim(self, dim)

    def flatten(self, start_dim: builtins.int = 0, end_dim: builtins.int = -1) -> Tensor:
        return _ops().flatten.using_ints(self, start_dim, end_dim)

    @property
    def T(self) -> Tensor:  # noqa: N802
        n = len(self._shape)
        return self.permute(*range(n - 1, -1, -1))

    @property
    def mT(self) -> Tensor:  # noqa: N802
        if len(self._shape) < 2:
            raise RuntimeError(
                "tensor.mT is only supported on matrices or batches of matrices. "
                f"Got {len(self._shape)}-D tensor."
            )
        return self.transpose(-2, -1)

    @property
    def H(self) -> Tensor:  # noqa: N802
        return self.T

    @property
    def mH(self) -> Tensor:  # noqa: N802
        return self.mT

    def __getitem__(self, index: Any) -> Tensor:
        return providers.getitem(self, index)  # type: ignore[no-any-return]

    def __setitem__(self, index: Any, value: Any) -> None:
        providers.setitem(self, index, value)

    # -- reductions with PyTorch's overloaded forms --------------------------------------------
    def sum(self, dim: Any = None, keepdim: builtins.bool = False, *, dtype: Any = None) -> Tensor:
        return _ops().sum.dim_IntList(self, _dims(dim), keepdim, dtype=dtype)

    def mean(self, dim: Any = None, keepdim: builtins.bool = False, *, dtype: Any = None) -> Tensor:
        return _ops().mean.dim(self, _dims(dim), keepdim, dtype=dtype)

    def prod(self, dim: Any = None, keepdim: builtins.bool = False, *, dtype: Any = None) -> Tensor:
        return _ops().prod.dim_IntList(self, _dims(dim), keepdim, dtype=dtype)

    def amax(self, dim: Any = (), keepdim: builtins.bool = False) -> Tensor:
        return _ops().amax.default(self, _dims(dim) or (), keepdim)

    def amin(self, dim: Any = (), keepdim: builtins.bool = False) -> Tensor:
        return _ops().amin.default(self, _dims(dim) or (), keepdim)

    def all(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        return _ops().all.dims(self, _dims(dim), keepdim)

    def any(self, dim: Any = None, keepdim: builtins.bool = False) -> Tensor:
        return _ops().any.dims(self, _dims(dim), keepdim)

    def max(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return providers.max(self, dim, keepdim)

    def min(self, dim: Any = None, keepdim: builtins.bool = False) -> Any:
        return providers.min(self, dim, keepdim)

    def __matmul__(self, other: Tensor) -> Tensor:
        return _ops().matmul.default(self, other)

    def __rmatmul__(self, other: Tensor) -> Tensor:
        return _ops().matmul.default(other, self)

    def __neg__(self) -> Tensor:
        return _ops().neg.default(self)

    def __pos__(self) -> Tensor:
        return self

    def __abs__(self) -> Tensor:
        return _ops().abs.default(self)

    def __invert__(self) -> Tensor:
        if self._dtype is dt.bool_:
            return _ops().logical_not.default(self)
        if self._dtype.category == dt.FLOAT:
            raise TypeError(
                "~ (operator.invert) is only implemented on integer and Boolean-type tensors"
            )
        return _ops().bitwise_not.default(self)

    def __radd__(self, other: Any) -> Tensor:
        return _ops().add.Tensor(self, other)

    def __rmul__(self, other: Any) -> Tensor:
        return _ops().mul.Tensor(self, other)

    def __rsub__(self, other: Any) -> Tensor:
        return _ops().rsub.Scalar(self, other)

    def __rtruediv__(self, other: Any) -> Tensor:
        return _rbinary("div.Tensor", self, other)

    def __rfloordiv__(self, other: Any) -> Tensor:
        return _ops().div.Tensor_mode(other, self, rounding_mode="floor")

    def __rpow__(self, other: Any) -> Tensor:
        return _rbinary("pow.Scalar", self, other)

    def __rlshift__(self, other: Any) -> Tensor:
        return _rbinary("bitwise_left_shift.Tensor", self, other)

    def __rrshift__(self, other: Any) -> Tensor:
        return _rbinary("bitwise_right_shift.Tensor", self, other)

    def __rmod__(self, other: Any) -> Tensor:
        return _rbinary("remainder.Tensor", self, other)

    def __rand__(self, other: Any) -> Tensor:
        return _ops().bitwise_and.Tensor(self, other)

    def __ror__(self, other: Any) -> Tensor:
        return _ops().bitwise_or.Tensor(self, other)

    def __rxor__(self, other: Any) -> Tensor:
        return _ops().bitwise_xor.Tensor(self, other)


_LEGACY_NAMES = {
    "float32": "FloatTensor",
    "float64": "DoubleTensor",
    "float16": "HalfTensor",
    "bfloat16": "BFloat16Tensor",
    "int64": "LongTensor",
    "int32": "IntTensor",
    "int16": "ShortTensor",
    "int8": "CharTensor",
    "uint8": "ByteTensor",
    "bool": "BoolTensor",
}


_LEGACY_DTYPES = {v: k for k, v in _LEGACY_NAMES.items()}


def _legacy_dtype(name: str) -> dt.dtype:
    """``'ember.DoubleTensor'`` (or ``'torch.DoubleTensor'``) -> ``ember.float64``."""
    short = name.rsplit(".", 1)[-1]
    if short not in _LEGACY_DTYPES or not name.startswith(("ember.", "torch.")):
        raise ValueError(f"invalid type: '{name}'")
    return getattr(dt, _LEGACY_DTYPES[short].replace("bool", "bool_"))  # type: ignore[no-any-return]


def _legacy_new(args: tuple[Any, ...], dtype: dt.dtype, dev: Any, what: str) -> Tensor:
    """The legacy constructors ``Tensor(*sizes)``, ``Tensor(data)`` and ``x.new(...)``."""
    if not args:
        return providers.empty(0, dtype=dtype, device=dev)
    first = args[0]
    if len(args) == 1 and isinstance(first, Tensor):
        if first._dtype is not dtype:
            raise TypeError(f"{what}(): expected a {dtype} tensor as data, got {first._dtype}")
        return first if dev is None else first.to(dev)
    if builtins.all(isinstance(a, (builtins.int, np.integer)) for a in args) or (
        len(args) == 1 and isinstance(first, Size)
    ):
        return providers.empty(_shape_args(args), dtype=dtype, device=dev)
    if len(args) == 1 and isinstance(first, (list, tuple, np.ndarray)):
        return providers.tensor(first, dtype=dtype, device=dev)
    if len(args) == 1 and isinstance(first, range):  # torch.LongTensor(range(n)) (pygcn)
        return providers.tensor(list(first), dtype=dtype, device=dev)
    raise TypeError(
        f"{what}(): data must be a sequence or sizes must be ints (got "
        + ", ".join(type(a).__name__ for a in args)
        + ")"
    )


def _keeps_format(t: Tensor, memory_format: Any) -> builtins.bool:
    """Whether ``t.to(memory_format=...)`` may return ``t`` itself (it is laid out so)."""
    from ember.core import memory_format as mf

    fmt = mf.as_memory_format(memory_format, "to")
    return fmt is mf.preserve_format or mf.suggest_format(t._shape, t._stride) is fmt


def _rbinary(name: str, self: Tensor, other: Any) -> Tensor:
    """``other <op> self`` for a Python scalar ``other``: structured ops wrap it themselves."""
    packet, overload = name.split(".")
    return getattr(getattr(_ops(), packet), overload)(other, self)  # type: ignore[no-any-return]


def _kw_args(args: tuple[Any, ...], kw: dict[str, Any], name: str) -> tuple[Any, ...]:
    """Varargs, or the one keyword PyTorch also accepts for them (``x.permute(dims=...)``)."""
    if kw:
        if set(kw) != {name} or args:
            bad = next(k for k in kw if k != name) if set(kw) != {name} else name
            raise TypeError(f"got an unexpected keyword argument '{bad}'")
        return (kw[name],)
    return args


def _dims(dim: Any) -> Any:
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        return tuple(dim)
    return (dim,)


def _wrap_dim(dim: int, ndim: int, what: str = "") -> int:
    n = builtins.max(ndim, 1)
    if not -n <= dim < n:
        raise IndexError(
            f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {dim})"
        )
    return dim + n if dim < 0 else dim


#: Called as ``hook(tensor, what)`` before a tensor's values are read into Python (set by
#: ``ember.compile`` while it captures, to end the graph there; None otherwise).
host_read_hook: list[Callable[[Tensor, str], None] | None] = [None]


def _host_view(t: Tensor) -> np.ndarray:
    """Zero-copy numpy view of a host-memory tensor."""
    st = t._storage
    isz = t._dtype.itemsize
    if st.data is None:
        raise RuntimeError("Cannot access data of a meta tensor")
    if 0 in t._shape:  # no element to view; the offset may lie past the end of the buffer
        return np.empty(t._shape, dtype=t._dtype.numpy)
    return np.ndarray(
        t._shape,
        dtype=t._dtype.numpy,
        buffer=st.data,
        offset=t._offset * isz,
        strides=tuple(s * isz for s in t._stride),
    )


def _host_array(t: Tensor) -> np.ndarray:
    """The tensor's values as a numpy array (a view for host memory, a copy otherwise)."""
    b = providers.backend(t._device.type)
    if b.host_memory:
        return _host_view(t)
    if t._device.type == "meta":
        raise NotImplementedError(
            "Cannot copy out of meta tensor; no data! Use a real device, such as 'cpu'"
        )
    c = t if t.is_contiguous() else t.contiguous()
    raw = b.to_host(c._storage.data, c._offset * c._dtype.itemsize, c.nbytes, c._device)
    return raw.view(c._dtype.numpy).reshape(c._shape)


# -- pickling and shared memory (Note [Pickling tensors]) -------------------------------------
#: per-process attributes of a tensor's __dict__ that never travel (hooks, autograd marks);
#: weak references do not either (ember/serialization keeps the same rule)
_PROCESS_LOCAL_STATE = frozenset(
    {"_grad_acc", "_hooks", "_post_acc_hooks", "_retains_grad", "_output_nr"}
)


def _rebuild_tensor(
    cls: type,
    storage: Storage,
    dtype: dt.dtype,
    shape: tuple[int, ...],
    stride: tuple[int, ...],
    offset: int,
    requires_grad: bool,
    state: dict[str, Any],
) -> Tensor:
    """A pickled tensor back: metadata over ``storage``, ``_ks`` from this process's keys."""
    from ember.core.dispatch_key import Meta, device_key

    dev = storage.device
    ks = Meta.mask if dev.type == "meta" else device_key(dev.type).mask
    t = make_tensor(storage, shape, stride, offset, dtype, dev, ks)
    if cls is not Tensor:  # a subclass keeps its class; the slots carry the state
        sub: Tensor = object.__new__(cls)
        for name in Tensor.__slots__:
            if not name.startswith("__"):  # __dict__ and __weakref__ are not state
                setattr(sub, name, getattr(t, name))
        t = sub
    t.__dict__.update(state)
    if requires_grad:
        t.requires_grad_(True)
    return t


def _reduce_storage(st: Storage) -> Any:
    """copyreg's reducer of a Storage: its device and bytes (copied to the host if needed)."""
    raw = None
    if st.data is not None:
        b = providers.backend(st.device.type)
        host = (
            st.data[: st.nbytes] if b.host_memory else b.to_host(st.data, 0, st.nbytes, st.device)
        )
        raw = np.ascontiguousarray(host).tobytes()
    return (_rebuild_storage, (str(st.device), st.nbytes, raw))


def _rebuild_storage(dev_name: str, nbytes: int, raw: bytes | None) -> Storage:
    dev = providers.normalize_device(dev_name)
    if raw is None:
        return Storage(None, nbytes, dev)
    data = providers.backend(dev.type).from_host(np.frombuffer(raw, dtype=np.uint8), dev)
    return Storage(data, nbytes, dev)


copyreg.pickle(Storage, _reduce_storage)

#: storages in shared memory -> the file descriptor of their memory (closed with the storage)
_SHARED_FDS: weakref.WeakKeyDictionary[Storage, int] = weakref.WeakKeyDictionary()


def _new_shared_fd(nbytes: int) -> int:
    """An anonymous shared-memory file of ``nbytes`` (memfd on Linux, else an unlinked file)."""
    if hasattr(os, "memfd_create"):
        fd = os.memfd_create("ember-shared-storage", os.MFD_CLOEXEC)
    else:  # pragma: no cover - macOS: a file in /dev/shm or the temporary folder, unlinked
        where = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
        fd, path = tempfile.mkstemp(prefix="ember-shm-", dir=where)
        os.unlink(path)
    os.ftruncate(fd, builtins.max(nbytes, 1))
    return fd


def _map_shared(fd: int, nbytes: int) -> np.ndarray:
    mm = mmap.mmap(fd, builtins.max(nbytes, 1))  # MAP_SHARED; the array keeps the map alive
    return np.frombuffer(mm, dtype=np.uint8)[:nbytes]


def share_storage(st: Storage) -> int:
    """Move ``st``'s bytes into shared memory, in place; return the memory's descriptor."""
    fd = _SHARED_FDS.get(st)
    if fd is not None:
        return fd
    if not providers.backend(st.device.type).host_memory:
        raise RuntimeError(
            f"share_memory_(): a tensor on '{st.device}' cannot be moved to shared memory; "
            "only host-memory (cpu) tensors can (copy it with .cpu() first)"
        )
    fd = _new_shared_fd(st.nbytes)
    arr = _map_shared(fd, st.nbytes)
    arr[:] = np.asarray(st.data)[: st.nbytes]
    st.data, st.handle = arr, None  # the backend re-derives its cached pointer
    _adopt(st, fd)
    return fd


def storage_from_shared_fd(fd: int, nbytes: int) -> Storage:
    """A cpu Storage over the shared memory behind ``fd`` (which it owns from now on)."""
    st = Storage(_map_shared(fd, nbytes), nbytes, providers.normalize_device("cpu"))
    _adopt(st, fd)
    return st


def _adopt(st: Storage, fd: int) -> None:
    _SHARED_FDS[st] = fd
    weakref.finalize(st, os.close, fd)
