"""Drivers for structured operators: the core's half of the "out convention".

An operator whose ``ops.yaml`` entry has ``kind: <family>`` is structured: the
core computes its output shape, dtype and device once (this module is the meta
function of the whole family), allocates the output, broadcasts the inputs to
the output's shape (stride-0 views) and casts them to the computation dtype.
Only then does it call the device kernel, which does nothing but arithmetic:

==========  ============================================  =======================
family      kernel call                                   notes
==========  ============================================  =======================
unary       ``k(out, a, *scalars)``                       same shape and dtype
binary      ``k(out, a, b, *scalars)``                    a, b expanded to out
where       ``k(out, cond, a, b)``                        cond is bool
reduce      ``k(out, a, dims)``                           out has keepdim shape
bmm         ``k(out, a, b)``                              (B,M,N) (B,M,K) (B,K,N)
copy        ``k(out, src)``                               any dtype pair, same device
fill        ``k(out, value)``                             value is a Python scalar
random      ``k(out, *params, generator_impl)``           fills ``out`` in place
==========  ============================================  =======================

float16/bfloat16 are computed in float32 unless the device lists them in
``Capabilities.native_half``. The Meta device runs the same drivers with a
no-op kernel, so every structured operator has a meta function for free.

Must always hold: a structured kernel writes into ``out`` and returns None. Its first
call per (operator, device kernel) is checked: a kernel that returns a value instead
(the result it should have written) raises ``TypeError`` naming the operator, the
device and the kernel; after one call has passed, the driver calls the bare kernel
(Note [Kernel contract checks] in ``ember/core/backend.py``).
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from ember.core import dtype as dt
from ember.core import providers
from ember.core.backend import DeviceBackend, host_to_device
from ember.core.device import device
from ember.core.storage import Storage
from ember.core.tensor import Size, Tensor, contiguous_strides, make_tensor
from ember.dispatcher import registry
from ember.dispatcher.registry import OpOverload

__all__ = ["check_numel", "new_empty", "broadcast_shapes", "expand_to", "cast", "result_type"]

Kernel = Callable[..., Any]

# -- allocation ---------------------------------------------------------------------------------
_dev_info: dict[device, tuple[Callable[[int, device], Any], int, frozenset[dt.dtype]]] = {}


def _info(dev: device) -> tuple[Callable[[int, device], Any], int, frozenset[dt.dtype]]:
    from ember.dispatcher import devices

    b = devices.backend(dev.type)
    native = frozenset(getattr(dt, n) for n in b.capabilities().native_half)
    r = (b.allocate, devices.mask(dev), native)
    _dev_info[dev] = r
    return r


_I64_MAX = 2**63 - 1


def check_numel(shape: tuple[int, ...], op: str) -> None:
    """Refuse a shape whose sizes or element count do not fit int64, as PyTorch does: a size
    beyond int64 is a TypeError (it cannot be unpacked), an overflowing product a RuntimeError.
    A kernel is never handed such a shape (a stride-0 view could otherwise claim 2**64 elements).
    """
    n = 1
    for k, s in enumerate(shape):
        if s > _I64_MAX or s < -_I64_MAX - 1:
            raise TypeError(
                f"{op}(): argument 'size' failed to unpack the object at pos {k + 1} with error "
                f'"Overflow when unpacking long long" (size {s} does not fit int64)'
            )
        n *= -s if s < 0 else s  # a -1 still to be inferred counts as 1
        if n > _I64_MAX:
            raise RuntimeError(
                f"numel: integer multiplication overflow ({op} to size {list(shape)} would have "
                "more than 2**63 - 1 elements)"
            )


def _layout(shape: tuple[int, ...]) -> tuple[tuple[int, ...], int]:
    if len(_layout_cache) > 4096:
        _layout_cache.clear()
    n = 1
    for s in shape:
        if s < 0:
            raise RuntimeError(
                f"Trying to create tensor with negative dimension {s}: {list(shape)}"
            )
        n *= s
        if n > _I64_MAX:  # checked at every step, as PyTorch (a later 0 does not undo it)
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    r = _layout_cache[shape] = (contiguous_strides(shape), n)
    return r


_layout_cache: dict[tuple[int, ...], tuple[tuple[int, ...], int]] = {}


def new_empty(shape: tuple[int, ...], dtype: dt.dtype, dev: device) -> Tensor:
    """A new contiguous tensor on ``dev`` with uninitialised contents (hot path: keep short)."""
    info = _dev_info.get(dev) or _info(dev)
    lay = _layout_cache.get(shape) or _layout(shape)
    n = lay[1] * dtype.itemsize
    if n > _I64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={list(shape)}")
    t = object.__new__(Tensor)
    try:
        t._storage = Storage(info[0](n, dev), n, dev)
    except MemoryError:  # PyTorch's allocators raise RuntimeError (torch.OutOfMemoryError)
        raise RuntimeError(
            f"can't allocate memory: you tried to allocate {n} bytes for a tensor of shape "
            f"{list(shape)} and dtype {dtype.name} on {dev}"
        ) from None
    t._shape = shape if type(shape) is Size else Size(shape)
    t._stride = lay[0]
    t._offset = 0
    t._dtype = dtype
    t._device = dev
    t._ks = info[1]
    t._requires_grad = False
    t._grad = None
    t.grad_fn = None
    t._base = None
    return t


def compute_dtype(d: dt.dtype, dev: device) -> dt.dtype:
    """The dtype kernels compute ``d`` in on ``dev`` (half types widen unless native)."""
    if d is dt.float16 or d is dt.bfloat16:
        info = _dev_info.get(dev) or _info(dev)
        return d if d in info[2] else dt.float32
    return d


# -- shapes ---------------------------------------------------------------------------------------
_bcast_cache: dict[tuple[tuple[int, ...], tuple[int, ...]], Size] = {}


def broadcast_shapes(a: tuple[int, ...], b: tuple[int, ...]) -> Size:
    """PyTorch's broadcasting of two shapes, with its error text."""
    key = (a, b)
    r = _bcast_cache.get(key)
    if r is not None:
        return r
    n = max(len(a), len(b))
    pa = (1,) * (n - len(a)) + tuple(a)
    pb = (1,) * (n - len(b)) + tuple(b)
    out = []
    for i, (x, y) in enumerate(zip(pa, pb)):
        if x == y or y == 1:
            out.append(x)
        elif x == 1:
            out.append(y)
        else:
            raise RuntimeError(
                f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                f"at non-singleton dimension {i}"
            )
    if len(_bcast_cache) > 4096:
        _bcast_cache.clear()
    r = _bcast_cache[key] = Size(out)
    return r


def expand_to(t: Tensor, shape: tuple[int, ...]) -> Tensor:
    """A view of ``t`` broadcast to ``shape`` (stride 0 on broadcast dims)."""
    if t._shape == shape:
        return t
    n = len(shape)
    lead = n - len(t._shape)
    strides = [0] * lead
    for i, (s, st) in enumerate(zip(t._shape, t._stride)):
        strides.append(0 if s == 1 and shape[lead + i] != 1 else st)
    v = make_tensor(t._storage, shape, tuple(strides), t._offset, t._dtype, t._device, t._ks)
    v._base = t
    return v


def cast(t: Tensor, dtype: dt.dtype) -> Tensor:
    """``t`` in ``dtype`` (itself if it already is), through the device's copy kernel."""
    if t._dtype is dtype:
        return t
    out = new_empty(t._shape, dtype, t._device)
    _copy_kernel(t._device)(out, t)
    return out


# -- the out convention, checked once (Note [Kernel contract checks]) --------------------------
#: (operator, device kernel) pairs whose first call wrote ``out`` and returned None
_validated: set[tuple[OpOverload, Kernel]] = set()


def _returned_value(op: OpOverload, kernel: Kernel, out: Any, result: Any) -> TypeError:
    where = f"device '{out._device}'" if isinstance(out, Tensor) else "its device"
    name = f"{getattr(kernel, '__module__', '?')}.{getattr(kernel, '__qualname__', kernel)}"
    return TypeError(
        f"{op.qualname}: the kernel {name} registered for {where} returned a value of type "
        f"{type(result).__name__} instead of None; structured kernels write into `out` "
        "and return None (the core allocated `out` and hands it over as the first argument; "
        "ember/operators/drivers.py lists each family's call)"
    )


def _checked(op: OpOverload, kernel: Kernel, on_valid: Callable[[], None]) -> Kernel:
    """``kernel`` itself once validated; until then a stand-in that checks the first call
    returns None and then calls ``on_valid`` (which swaps the bare kernel in)."""
    if kernel is registry._noop or (op, kernel) in _validated:
        return kernel

    def first_call(out: Any, *args: Any) -> None:
        if (op, kernel) in _validated:
            kernel(out, *args)
            return
        result = kernel(out, *args)
        if result is not None:
            raise _returned_value(op, kernel, out, result)
        _validated.add((op, kernel))
        on_valid()

    return first_call


def _structured(
    factory: Callable[[OpOverload, Kernel], Kernel],
) -> Callable[[OpOverload, Kernel], Kernel]:
    """A driver factory whose kernel's first call is checked (the out convention)."""

    def make(op: OpOverload, kernel: Kernel) -> Kernel:
        # after the first call passes, the next dispatch resolves again and gets the bare
        # kernel: only this operator's dispatch cache is dropped, once
        return factory(op, _checked(op, kernel, op._cache.clear))

    make.__name__ = make.__qualname__ = factory.__name__
    return make


_primitives: dict[tuple[str, device], Kernel] = {}
registry.on_registration(_primitives.clear)


def _primitive(qualname: str, dev: device) -> Kernel:
    """The raw device kernel of a primitive every device must have (copy_, fill_)."""
    k = _primitives.get((qualname, dev))
    if k is None:
        from ember.core import dispatch_key as dk
        from ember.dispatcher import devices

        ks = devices.mask(dev)
        if ks == dk.Meta.mask:
            k = registry._noop
        else:
            k = registry.lookup(qualname).kernels.get(dk.key_for_bit(ks.bit_length() - 1))
            if k is None:
                raise NotImplementedError(
                    f"device '{dev}' registers no kernel for {qualname}, which every device "
                    "must implement (docs/primitives.md)"
                )
        bare = k
        k = _checked(
            registry.lookup(qualname), bare, lambda: _primitives.__setitem__((qualname, dev), bare)
        )
        _primitives[(qualname, dev)] = k
    return k


def _copy_kernel(dev: device) -> Kernel:
    return _primitive("aten::copy_", dev)


def _fill_kernel(dev: device) -> Kernel:
    return _primitive("aten::fill_.Scalar", dev)


# -- promotion ------------------------------------------------------------------------------------
def result_type(*operands: Any) -> dt.dtype:
    """PyTorch's result dtype for tensors and Python scalars (ember.result_type)."""
    dim_t = zero_t = None
    scat = -1
    for o in operands:
        if isinstance(o, Tensor):
            if o._shape:
                dim_t = o._dtype if dim_t is None else dt.promote_types(dim_t, o._dtype)
            else:
                zero_t = o._dtype if zero_t is None else dt.promote_types(zero_t, o._dtype)
        elif isinstance(o, dt.dtype):
            dim_t = o if dim_t is None else dt.promote_types(dim_t, o)
        else:
            scat = max(scat, dt.scalar_category(o))
    return dt.combine(dim_t, zero_t, scat)


def _with_scalar(d: dt.dtype, value: Any) -> dt.dtype:
    """Promotion of a tensor of dtype ``d`` with a Python scalar (the scalar tier loses
    unless it is of a higher category)."""
    tv = type(value)
    if tv is float:
        return d if d.category == dt.FLOAT else dt.get_default_dtype()
    if tv is int:
        return d if d.category != dt.BOOL else dt.int64
    if tv is bool:
        return d
    return result_type(value, d)


_scalar_cache: dict[tuple[Any, ...], Tensor] = {}


def scalar_tensor(value: Any, dtype: dt.dtype, dev: device) -> Tensor:
    """A 0-dim tensor holding a Python scalar (cached: these never escape to users)."""
    key = (type(value), value, dtype, dev)
    if value == 0 and type(value) is float and math.copysign(1.0, value) < 0:
        key = (float, "-0.0", dtype, dev)  # -0.0 == 0.0 and hashes alike: keep them apart
    t = _scalar_cache.get(key)
    if t is None:
        t = new_empty((), dtype, dev)
        _fill_kernel(dev)(t, value)
        if len(_scalar_cache) > 1024:
            _scalar_cache.clear()
        _scalar_cache[key] = t
    return t


def _can_cast(src: dt.dtype, dst: dt.dtype) -> bool:
    return src.category <= dst.category


_OVERLAP = (
    "unsupported operation: more than one element of the written-to tensor refers to a single "
    "memory location. Please clone() the tensor before performing the operation."
)


def _check_no_overlap(self: Tensor) -> None:
    """Refuse to write into a tensor whose elements share memory (a stride 0 over a dim of
    size > 1, as ``expand`` makes), as PyTorch does; ``fill_``-like writes stay allowed."""
    if 0 in self._stride:
        for st, n in zip(self._stride, self._shape, strict=True):
            if st == 0 and n > 1:
                raise RuntimeError(_OVERLAP)


def _check_inplace(op: OpOverload, cdt: dt.dtype, self: Tensor, shape: tuple[int, ...]) -> None:
    _check_no_overlap(self)
    if not _can_cast(cdt, self._dtype):
        raise RuntimeError(
            f"result type {_TORCH_NAMES[cdt.name]} can't be cast to the desired output type "
            f"{_TORCH_NAMES[self._dtype.name]}"
        )
    if shape != self._shape:
        raise RuntimeError(
            f"output with shape {list(self._shape)} doesn't match the broadcast shape {list(shape)}"
        )


def _check_storable(self: Tensor, other: Any) -> None:
    """Raise PyTorch's cast error when ``self op= other``'s promoted dtype cannot be stored
    in ``self``."""
    if isinstance(other, Tensor):
        pdt = result_type(self, other)
    else:
        pdt = _with_scalar(self._dtype, other)
    if not _can_cast(pdt, self._dtype):
        raise RuntimeError(
            f"result type {_TORCH_NAMES[pdt.name]} can't be cast to the desired output type "
            f"{_TORCH_NAMES[self._dtype.name]}"
        ) from None


_TORCH_NAMES = {
    "bool": "Bool",
    "uint8": "Byte",
    "int8": "Char",
    "int16": "Short",
    "int32": "Int",
    "int64": "Long",
    "float16": "Half",
    "bfloat16": "BFloat16",
    "float32": "Float",
    "float64": "Double",
}


#: (operator, dtype category) -> PyTorch's exception type and message for that refusal
_DTYPE_REFUSALS: dict[tuple[str, str], tuple[type[Exception], str]] = {
    ("neg", "bool"): (
        RuntimeError,
        "Negation, the `-` operator, on a bool tensor is not supported. If you are trying to "
        "invert a mask, use the `~` or `logical_not()` operator instead.",
    ),
    ("sub", "bool"): (
        RuntimeError,
        "Subtraction, the `-` operator, with two bool tensors is not supported. Use the `^` or "
        "`logical_xor()` operator instead.",
    ),
}


def _check_dtype(op: OpOverload, allowed: Any, d: dt.dtype) -> None:
    if allowed is not None and _CATEGORY_NAMES[d.category] not in allowed:
        name = op.qualname.split("::")[-1].split(".")[0]
        refusal = _DTYPE_REFUSALS.get((name.rstrip("_"), _CATEGORY_NAMES[d.category]))
        if refusal is not None:
            raise refusal[0](refusal[1])
        f = op.functional
        f_allowed: Any = f.entry.get("dtypes") if f is not None and f.entry is not None else ()
        if name.endswith("_") and (f_allowed is None or _CATEGORY_NAMES[d.category] in f_allowed):
            # the functional form accepts the dtype and promotes it (sqrt of an int tensor is
            # float): the in-place form cannot store its float result
            want = _TORCH_NAMES[dt.get_default_dtype().name]
            raise RuntimeError(
                f"result type {want} can't be cast to the desired output type "
                f"{_TORCH_NAMES[d.name]}"
            )
        raise NotImplementedError(
            f"{op.qualname} is not implemented for dtype {d.name}; it accepts "
            f"{', '.join(allowed)} tensors"
        )


_CATEGORY_NAMES = ("bool", "int", "float")


def _write_out(op: OpOverload, out: Tensor, result: Tensor) -> Tensor:
    """Copy ``result`` into a user's ``out=`` tensor, resizing an empty one."""
    if out._shape != result._shape:
        if out.numel() != 0:
            raise RuntimeError(
                f"{op.qualname}: out has shape {list(out._shape)} but the result has shape "
                f"{list(result._shape)}; pass an out tensor of the right shape or an empty one"
            )
        fresh = new_empty(result._shape, out._dtype, out._device)
        out._storage, out._shape, out._stride, out._offset = (
            fresh._storage,
            fresh._shape,
            fresh._stride,
            0,
        )
    if not _can_cast(result._dtype, out._dtype):
        raise RuntimeError(
            f"result type {_TORCH_NAMES[result._dtype.name]} can't be cast to the desired "
            f"output type {_TORCH_NAMES[out._dtype.name]}"
        )
    _copy_kernel(out._device)(out, result)
    out._storage.version += 1
    return out


def _variant(op: OpOverload) -> str:
    if op.schema.name.is_inplace:
        return "inplace"
    if op.schema.is_out:
        return "out"
    return "functional"


# -- elementwise ----------------------------------------------------------------------------------
def _float_result(d: dt.dtype) -> dt.dtype:
    return d if d.category == dt.FLOAT else dt.get_default_dtype()


#: kind -> (compute dtype from the promoted dtype, output dtype from the compute dtype)
_ELEMENTWISE_RULES: dict[
    str, tuple[Callable[[dt.dtype], dt.dtype], Callable[[dt.dtype], dt.dtype]]
] = {
    "unary": (lambda d: d, lambda d: d),
    "unary_float": (_float_result, lambda d: d),
    "unary_bool": (lambda d: d, lambda d: dt.bool_),
    "binary": (lambda d: d, lambda d: d),
    "binary_float": (_float_result, lambda d: d),
    "compare": (lambda d: d, lambda d: dt.bool_),
    "logical": (lambda d: dt.bool_, lambda d: dt.bool_),
}


Plan = tuple[dt.dtype, dt.dtype, dt.dtype]


def _planner(op: OpOverload) -> Callable[[dt.dtype, device], Plan]:
    """Per-op cache: (promoted dtype, device) -> (output, kernel, kernel-output) dtypes.

    The dtype check and the family's rules run once per dtype and device, so the hot
    path pays a single dict lookup for all of them.
    """
    to_compute, to_out = _ELEMENTWISE_RULES[op.kind]  # type: ignore[index]
    allowed = op.entry.get("dtypes") if op.entry is not None else None
    plans: dict[tuple[dt.dtype, device], Plan] = {}

    def plan(pdt: dt.dtype, dev: device) -> Plan:
        p = plans.get((pdt, dev))
        if p is None:
            _check_dtype(op, allowed, pdt)
            cdt = to_compute(pdt)
            kdt = compute_dtype(cdt, dev)
            p = plans[(pdt, dev)] = (to_out(cdt), kdt, to_out(kdt))
        return p

    return plan


def _unary_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    plan = _planner(op)
    variant = _variant(op)

    def unary(self: Tensor, *scalars: Any) -> Tensor:
        dev = self._device
        odt, kdt, kout = plan(self._dtype, dev)
        a = self if self._dtype is kdt else cast(self, kdt)
        res = new_empty(self._shape, kout, dev)
        kernel(res, a, *scalars)
        return res if kout is odt else cast(res, odt)

    def unary_(self: Tensor, *scalars: Any) -> Tensor:
        dev = self._device
        odt, kdt, kout = plan(self._dtype, dev)
        _check_inplace(op, odt, self, self._shape)
        if kdt is self._dtype and kout is self._dtype:
            kernel(self, self, *scalars)
        else:
            tmp = new_empty(self._shape, kout, dev)
            kernel(tmp, cast(self, kdt), *scalars)
            _copy_kernel(dev)(self, tmp)
        self._storage.version += 1
        return self

    def unary_out(self: Tensor, *scalars: Any) -> Tensor:
        *rest, out = scalars
        return _write_out(op, out, unary(self, *rest))

    return {"functional": unary, "inplace": unary_, "out": unary_out}[variant]


def _binary_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    plan = _planner(op)
    variant = _variant(op)

    def prepare(self: Any, other: Any) -> tuple[Tensor, Tensor, Size, Plan, device]:
        if isinstance(self, Tensor) and isinstance(other, Tensor):
            sd = self._dtype
            pdt = sd if sd is other._dtype else result_type(self, other)
            dev = self._device
            p = plan(pdt, dev)
        else:
            t = self if isinstance(self, Tensor) else other
            dev = t._device
            p = plan(_with_scalar(t._dtype, other if t is self else self), dev)
            # A Python scalar becomes a 0-dim tensor of the computation dtype, as in PyTorch.
            if isinstance(self, Tensor):
                other = scalar_tensor(other, p[1], dev)
            else:
                self = scalar_tensor(self, p[1], dev)
        shape = self._shape
        if shape != other._shape:
            shape = broadcast_shapes(shape, other._shape)
        return self, other, shape, p, dev

    def binary(self: Any, other: Any, *scalars: Any) -> Tensor:
        if type(self) is Tensor and type(other) is Tensor and self._dtype is other._dtype:
            # The common case, inlined: same dtype, no scalars.
            dev = self._device
            odt, kdt, kout = plan(self._dtype, dev)
            shape = self._shape
            if shape != other._shape:
                shape = broadcast_shapes(shape, other._shape)
        else:
            self, other, shape, (odt, kdt, kout), dev = prepare(self, other)
        a = self if self._dtype is kdt else cast(self, kdt)
        b = other if other._dtype is kdt else cast(other, kdt)
        res = new_empty(shape, kout, dev)
        kernel(res, expand_to(a, shape), expand_to(b, shape), *scalars)
        return res if kout is odt else cast(res, odt)

    def binary_(self: Tensor, other: Any, *scalars: Any) -> Tensor:
        if not isinstance(self, Tensor):
            raise TypeError(f"{op.qualname}: self must be a Tensor, not {type(self).__name__}")
        try:
            self, other, shape, (odt, kdt, kout), dev = prepare(self, other)
        except NotImplementedError:
            # PyTorch checks that the result can be stored before it looks for a kernel
            # (``short.bitwise_and_(float)``: the float result cannot go into a short tensor)
            _check_storable(self, other)
            raise
        _check_inplace(op, odt, self, shape)
        b = expand_to(other if other._dtype is kdt else cast(other, kdt), shape)
        if self._dtype is kdt and kout is kdt:
            kernel(self, self, b, *scalars)
        else:
            res = new_empty(shape, kout, dev)
            kernel(res, cast(self, kdt), b, *scalars)
            _copy_kernel(dev)(self, res)
        self._storage.version += 1
        return self

    def binary_out(self: Any, other: Any, *scalars: Any) -> Tensor:
        *rest, out = scalars
        return _write_out(op, out, binary(self, other, *rest))

    fn = {"functional": binary, "inplace": binary_, "out": binary_out}[variant]
    if op.schema.name.base == "sub":
        return _refusing_bool_operands(fn)
    return fn


_SUB_BOOL = (
    "Subtraction, the `-` operator, with a bool tensor is not supported. If you are trying to "
    "invert a mask, use the `~` or `logical_not()` operator instead."
)


def _refusing_bool_operands(fn: Kernel) -> Kernel:
    """``sub`` with one bool operand (a tensor or a Python bool) is refused, as in PyTorch;
    two bool tensors are refused by the dtype check (``_DTYPE_REFUSALS``)."""

    def sub(self: Any, other: Any, *rest: Any) -> Any:
        a = self._dtype is dt.bool_ if isinstance(self, Tensor) else isinstance(self, bool)
        b = other._dtype is dt.bool_ if isinstance(other, Tensor) else isinstance(other, bool)
        if a is not b:
            raise RuntimeError(_SUB_BOOL)
        return fn(self, other, *rest)

    return sub


def _where_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def where(condition: Tensor, self: Any, other: Any) -> Tensor:
        if condition._dtype is not dt.bool_:
            raise RuntimeError(
                "where expected condition to be a boolean tensor, but got a tensor with dtype "
                f"{_TORCH_NAMES[condition._dtype.name]}"
            )
        dev = condition._device
        pdt = result_type(self, other)
        if not isinstance(self, Tensor):
            self = scalar_tensor(self, pdt, dev)
        if not isinstance(other, Tensor):
            other = scalar_tensor(other, pdt, dev)
        shape = broadcast_shapes(broadcast_shapes(condition._shape, self._shape), other._shape)
        out = new_empty(shape, pdt, dev)
        kernel(
            out,
            expand_to(condition, shape),
            expand_to(cast(self, pdt), shape),
            expand_to(cast(other, pdt), shape),
        )
        return out

    return where


# -- reductions -----------------------------------------------------------------------------------
def normalize_dims(op: OpOverload, dims: Any, ndim: int) -> tuple[int, ...]:
    """Sorted, wrapped, unique reduction dims; ``None``/``[]`` mean all dims."""
    if dims is None or (isinstance(dims, (tuple, list)) and len(dims) == 0):
        return tuple(range(ndim))
    if isinstance(dims, int):
        dims = (dims,)
    n = max(ndim, 1)
    seen: list[int] = []
    for d in dims:
        if not -n <= d < n:
            raise IndexError(
                f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], but got {d})"
            )
        d = d + n if d < 0 else d
        if d in seen:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        seen.append(d)
    if ndim == 0:
        return ()
    return tuple(sorted(seen))


def _reduce_out_dtype(kind: str, op: OpOverload, d: dt.dtype, requested: Any) -> dt.dtype:
    if requested is not None:
        if kind == "reduce_float" and requested.category != dt.FLOAT:
            raise RuntimeError(
                f"{op.schema.name.name}(): could not infer output dtype. Optional dtype must be "
                f"either a floating point or complex dtype. Got: {_TORCH_NAMES[requested.name]}"
            )
        return requested  # type: ignore[no-any-return]
    if kind == "reduce":
        return dt.int64 if d.category != dt.FLOAT else d
    if kind == "reduce_float":
        if d.category != dt.FLOAT:
            raise RuntimeError(
                f"{op.schema.name.name}(): could not infer output dtype. Input dtype must be "
                f"either a floating point or complex dtype. Got: {_TORCH_NAMES[d.name]}"
            )
        return d
    if kind == "reduce_index":
        return dt.int64
    if kind == "reduce_bool":
        return dt.uint8 if d is dt.uint8 else dt.bool_  # PyTorch keeps uint8 for all/any
    return d


def _reduce_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    kind = op.kind
    assert kind is not None
    nonempty = kind in ("reduce_same", "reduce_index")
    has_dtype = any(a.name == "dtype" for a in op.schema.arguments)
    name = op.schema.name.name

    def reduce(self: Tensor, dim: Any = None, keepdim: bool = False, *rest: Any) -> Tensor:
        requested = rest[0] if has_dtype and rest else None
        x = self
        if kind == "reduce_index" and dim is None:
            x = self.reshape(-1) if self._shape else self
            dims: tuple[int, ...] = (0,) if x._shape else ()
        elif kind == "reduce_bool" and isinstance(dim, (tuple, list)) and not dim:
            # all/any over an explicit empty dim list reduce nothing (PyTorch's rule).
            return cast(cast(self, dt.bool_), _reduce_out_dtype(kind, op, self._dtype, None))
        else:
            dims = normalize_dims(op, dim, len(self._shape))
        odt = _reduce_out_dtype(kind, op, x._dtype, requested)
        if nonempty:
            if kind == "reduce_same" and x.numel() == 0 and (dim is None or dim in ((), [])):
                raise RuntimeError(
                    f"{name}(): Expected reduction dim to be specified for input.numel() == 0. "
                    "Specify the reduction dim with the 'dim' argument."
                )
            for d in dims:
                if x._shape[d] == 0:
                    raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
            if not x._shape and x.numel() == 0:
                raise IndexError(f"{name}(): Expected reduction dim to have non-zero size.")
        dev = x._device
        if kind == "reduce_index":
            kdt = compute_dtype(x._dtype, dev)
            a = cast(x, kdt)
        elif kind == "reduce_bool":
            a = cast(x, dt.bool_)
            kdt = dt.bool_
        else:
            kdt = compute_dtype(odt, dev)
            a = cast(x, kdt)
        if not dims:
            # 0-dim input: reducing "nothing" keeps the value (argmax gives 0).
            a = a.reshape(1)
            kshape: tuple[int, ...] = (1,)
            dims = (0,)
            final: tuple[int, ...] = ()
        else:
            kshape = tuple(1 if i in dims else s for i, s in enumerate(x._shape))
            final = kshape if keepdim else tuple(s for i, s in enumerate(x._shape) if i not in dims)
        if kind == "reduce_index" and dim is None and keepdim:
            final = (1,) * len(self._shape)
        kout_dt = (
            dt.int64 if kind == "reduce_index" else (dt.bool_ if kind == "reduce_bool" else kdt)
        )
        out = new_empty(kshape, kout_dt, dev)
        kernel(out, a, dims)
        if out._dtype is not odt:
            out = cast(out, odt)
        if out._shape != final:
            out = make_tensor(
                out._storage, final, contiguous_strides(final), 0, out._dtype, dev, out._ks
            )
        return out

    return reduce


# -- matmul primitive -----------------------------------------------------------------------------
def _bmm_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def bmm(self: Tensor, mat2: Tensor) -> Tensor:
        if len(self._shape) != 3 or len(mat2._shape) != 3:
            raise RuntimeError(
                f"batch1 must be a 3D tensor and batch2 must be a 3D tensor; got shapes "
                f"{list(self._shape)} and {list(mat2._shape)}"
            )
        b, m, k = self._shape
        b2, k2, n = mat2._shape
        if b != b2 or k != k2:
            raise RuntimeError(
                f"Expected size for first two dimensions of batch2 tensor to be: [{b}, {k}] "
                f"but got: [{b2}, {k2}]."
            )
        if self._dtype is dt.bool_:  # PyTorch's errors, before any device is asked
            raise NotImplementedError("\"bmm\" not implemented for 'Bool'")
        if self._dtype is not mat2._dtype:
            raise RuntimeError(
                f"expected scalar type {_TORCH_NAMES[self._dtype.name]} but found "
                f"{_TORCH_NAMES[mat2._dtype.name]}"
            )
        dev = self._device
        kdt = compute_dtype(self._dtype, dev)
        out = new_empty((b, m, n), kdt, dev)
        kernel(out, cast(self, kdt), cast(mat2, kdt))
        return cast(out, self._dtype)

    return bmm


_C_NAMES = {
    "bool": "bool",
    "uint8": "unsigned char",
    "int8": "signed char",
    "int16": "short int",
    "int32": "int",
    "int64": "long int",
    "float16": "c10::Half",
    "bfloat16": "c10::BFloat16",
    "float32": "float",
    "float64": "double",
}


# -- copy, fill, random ---------------------------------------------------------------------------
def _copy_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def copy_(self: Tensor, src: Any, non_blocking: bool = False) -> Tensor:
        if not isinstance(src, Tensor):
            raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
        if src._device is not self._device:
            src = _to_device(src, self._device, non_blocking)
        shape = broadcast_shapes(self._shape, src._shape)
        if shape != self._shape:
            raise RuntimeError(
                f"output with shape {list(self._shape)} doesn't match the broadcast shape "
                f"{list(shape)}"
            )
        _check_no_overlap(self)
        if src._storage is self._storage and self._storage.data is not None:
            src = _clone(src)
        kernel(self, expand_to(src, self._shape))
        self._storage.version += 1
        return self

    return copy_


def _clone(t: Tensor) -> Tensor:
    out = new_empty(t._shape, t._dtype, t._device)
    _copy_kernel(t._device)(out, t)
    return out


def _to_device(src: Tensor, dev: device, non_blocking: bool = False) -> Tensor:
    """Move a tensor's values to another device: between two devices of one type through
    the backend's ``copy_device`` when it defines one (Note [Device-to-device copies]),
    otherwise through host memory (``non_blocking`` reaches the target's ``from_host``
    where it accepts it, Note [Optional hooks])."""
    from ember.dispatcher import devices

    s = src if src.is_contiguous() else _clone(src)
    sb = devices.backend(s._device.type)
    isz = s._dtype.itemsize
    n = s.numel() * isz
    if s._device.type == dev.type and type(sb).copy_device is not DeviceBackend.copy_device:
        out = new_empty(s._shape, s._dtype, dev)
        if not n:
            return out
        sb.synchronize(s._device)
        try:
            sb.copy_device(out._storage.data, 0, s._storage.data, s._offset * isz, n, dev)
        except NotImplementedError:
            pass  # this pair of devices cannot copy directly: through the host below
        else:
            sb.synchronize(dev)
            return out
    raw = sb.to_host(s._storage.data, s._offset * isz, n, s._device)
    db = devices.backend(dev.type)
    data = host_to_device(db, raw, dev, non_blocking=bool(non_blocking))
    return make_tensor(
        Storage(data, n, dev),
        s._shape,
        contiguous_strides(s._shape),
        0,
        s._dtype,
        dev,
        devices.mask(dev),
    )


# Note [Device-to-device copies]
#     A copy between two devices of one type (``x.to("mydev:1")`` from ``mydev:0``,
#     ``copy_`` across them) calls ``DeviceBackend.copy_device(dst, 0, src, offset, nbytes,
#     dev)`` once, ``dev`` the destination and ``src`` a block of the source device, when the
#     backend defines ``copy_device``; it synchronizes the source device before and the
#     destination after, so the copy is complete when ``to`` returns, as the host path's is.
#     A backend whose two devices cannot copy directly (different contexts) raises
#     ``NotImplementedError`` and the values go through host memory. Copies within one
#     device never come here: they are the device's ``copy_`` kernel.


def _fill_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    def fill_(self: Tensor, value: Any) -> Tensor:
        if isinstance(value, Tensor):
            if value._shape:
                raise RuntimeError(
                    "fill_ only supports 0-dimension value tensor but got tensor with "
                    f"{len(value._shape)} dimensions."
                )
            value = value.item()
        if self._dtype.category == dt.INT and isinstance(value, float) and value != value:
            value = 0
        kernel(self, value)
        self._storage.version += 1
        return self

    return fill_


#: the largest finite value of each float dtype, and its name in PyTorch's C++ messages
_FLOAT_MAX = {
    "float16": (65504.0, "c10::Half", "Half"),
    "bfloat16": (3.3895313892515355e38, "c10::BFloat16", "BFloat16"),
    "float32": (3.4028234663852886e38, "float", "Float"),
    "float64": (1.7976931348623157e308, "double", "Double"),
}


def _check_uniform_bounds(self: Tensor, low: float, high: float) -> None:
    """PyTorch's checks of ``uniform_(from, to)`` on a float tensor, empty or not."""
    limits = _FLOAT_MAX.get(self._dtype.name)
    if limits is not None:
        big, c_name, name = limits
        for what, v in (("from", low), ("to", high)):
            if not -big <= v <= big:  # NaN too
                raise RuntimeError(f"{what} is out of bounds for {c_name}")
        if high - low > big:
            raise RuntimeError(
                f"uniform_ expects to-from <= std::numeric_limits<{name}>::max(), but found "
                f"to={high:g} and from={low:g} which result in to-from to exceed the limit"
            )
    if low > high:
        raise RuntimeError(
            f"uniform_ expects to return a [from, to) range, but found from={low:g} > to={high:g}"
        )


def _random_driver(op: OpOverload, kernel: Kernel) -> Kernel:
    uniform = op.schema.name.base == "uniform"

    def random(self: Tensor, *params: Any) -> Tensor:
        *args, gen = params
        _check_no_overlap(self)
        if uniform:
            _check_uniform_bounds(self, *args)
        from ember.operators.generator import generator_impl

        kernel(self, *args, generator_impl(gen, self._device))
        self._storage.version += 1
        return self

    return random


for _k in ("unary", "unary_float", "unary_bool"):
    registry.register_driver(_k, _structured(_unary_driver))
for _k in ("binary", "binary_float", "compare", "logical"):
    registry.register_driver(_k, _structured(_binary_driver))
for _k in ("reduce", "reduce_float", "reduce_same", "reduce_index", "reduce_bool"):
    registry.register_driver(_k, _structured(_reduce_driver))
registry.register_driver("where", _structured(_where_driver))
registry.register_driver("bmm", _structured(_bmm_driver))
registry.register_driver("copy", _structured(_copy_driver))
registry.register_driver("fill", _structured(_fill_driver))
registry.register_driver("random", _structured(_random_driver))


# Note [Registration points]
providers.new_empty = new_empty
