"""The CPU fallback: a device that opts in runs every operator it lacks on the CPU.

A device opts in with ``Capabilities(cpu_fallback=True)`` from its backend, or with
``ember.library.cpu_fallback(device_type)`` (Note [CPU fallback]). Operators with a
native kernel or a Composite decomposition are unaffected; only those the dispatcher
would otherwise refuse with "no kernel is registered" run on the CPU, with one
``CPUFallbackWarning`` per operator and device type.

Must always hold: the fallback never re-enters itself for the moves it makes (device to
host through ``DeviceBackend.to_host``, host to device through the device's own ``copy_``
kernel, which every device must have); it runs at resolution time only for key sets that
found no kernel, so dispatch of every other call is unchanged.

Note [CPU fallback]
    A call that falls back:

    1. copies each device storage its tensor arguments use to host memory, once per
       storage, the byte span its arguments cover (``to_host``), and rebuilds every
       argument as a CPU tensor with the same shape, strides and relative offset, so
       arguments that alias each other still alias on the host;
    2. replaces a ``Device`` argument naming the device by ``cpu`` and a device
       ``Generator`` by None (the CPU's default generator draws the numbers);
    3. runs the operator's CPU kernel (``op.redispatch`` with the CPU key: autograd and
       tracing have already run above the device key);
    4. writes every argument the schema marks as written (``Tensor(a!)``: in-place
       ``self``, ``out=``) back into the device tensor, through the device's ``copy_``;
    5. returns the device argument itself where the CPU result is that argument's host
       twin (in-place and ``out=`` return their argument, as on any device), a view of
       the device storage where the CPU result is a view of a host twin (a view operator
       stays a view), and a new device tensor (``copy_`` again) for any other tensor.

    Views, ``reshape``, ``expand`` and the other metadata operators are Composite in the
    core and never reach the fallback; the rule in 5 keeps a view a view for a device
    operator that returns one. Random operators that fall back draw from the CPU's
    generator: ``ember.manual_seed`` makes them reproducible, a device ``Generator`` passed
    to them is not used.
"""

from __future__ import annotations

import os
import sys
import warnings
from collections.abc import Callable
from typing import Any

from ember.core import dispatch_key as dk
from ember.core import providers
from ember.core.device import device
from ember.core.dispatch_key import DispatchKey
from ember.core.storage import Storage
from ember.core.tensor import Tensor, make_tensor
from ember.dispatcher import devices, registry
from ember.dispatcher.registry import OpOverload

__all__ = [
    "CPUFallbackWarning",
    "enable",
    "disable",
    "enabled",
    "fallback_counts",
    "unsupported_dtype",
]


class CPUFallbackWarning(UserWarning):
    """Warned once per operator and device type when an operator runs on the CPU instead.

    Silence it with ``warnings.filterwarnings("ignore", category=CPUFallbackWarning)``, with
    the environment variable ``EMBER_CPU_FALLBACK_WARN=0``, or with
    ``ember.library.cpu_fallback(device_type, warn=False)``.

    Examples:
        >>> import warnings
        >>> from ember.library import CPUFallbackWarning
        >>> with warnings.catch_warnings():  # around the code that may fall back
        ...     warnings.filterwarnings("ignore", category=CPUFallbackWarning)
        >>> issubclass(CPUFallbackWarning, UserWarning)
        True
    """


#: device type -> whether the fallback warns (devices opted in by ``library.cpu_fallback``)
_opted_in: dict[str, bool] = {}
#: (device type, operator qualname) pairs already warned about
_warned: set[tuple[str, str]] = set()
#: (device type, operator qualname) -> calls that ran on the CPU (read by the conformance kit)
_counts: dict[tuple[str, str], int] = {}


def enable(device_type: str, *, warn: bool = True) -> None:
    """Let ``device_type`` run the operators it lacks on the CPU (``library.cpu_fallback``)."""
    _opted_in[device_type] = warn
    registry._clear_caches()


def disable(device_type: str) -> None:
    _opted_in.pop(device_type, None)
    registry._clear_caches()


def enabled(device_type: str) -> bool:
    """Whether ``device_type`` opted in, by ``library.cpu_fallback`` or its ``Capabilities``."""
    if device_type in _opted_in:
        return True
    b = devices.registered().get(device_type)
    return b is not None and bool(getattr(b.capabilities(), "cpu_fallback", False))


def fallback_counts() -> dict[tuple[str, str], int]:
    """``(device type, operator) -> calls`` that ran on the CPU so far (a copy)."""
    return dict(_counts)


def _warns(device_type: str) -> bool:
    if os.environ.get("EMBER_CPU_FALLBACK_WARN", "1").strip().lower() in ("0", "false", "no"):
        return False
    return _opted_in.get(device_type, True)


def _warn_once(op: OpOverload, dev: device, why: str) -> None:
    key = (dev.type, op.qualname)
    _counts[key] = _counts.get(key, 0) + 1
    if key in _warned:
        return
    _warned.add(key)
    if _warns(dev.type):
        warnings.warn(
            f"The operator '{op.qualname}' {why} on device '{dev.type}'; it runs on the CPU "
            "instead (its inputs are copied to host memory and its results back), which is "
            "slow. This warning is shown once per operator; silence it with the warnings "
            "filter for ember.library.CPUFallbackWarning or EMBER_CPU_FALLBACK_WARN=0.",
            CPUFallbackWarning,
            stacklevel=_user_level(),
        )


_EMBER_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def _user_level() -> int:
    """``stacklevel`` of the first frame outside ember: the user's line, however deep the
    call (Python 3.12's ``skip_file_prefixes``; 3.11 lacks it)."""
    level, frame = 2, sys._getframe(2)
    while frame.f_back is not None and frame.f_code.co_filename.startswith(
        (_EMBER_DIR, "<ember op")
    ):
        frame, level = frame.f_back, level + 1
    return level


# -- moving arguments ---------------------------------------------------------------------------
def _span(t: Tensor) -> tuple[int, int]:
    """The byte range ``[lo, hi)`` of its storage that tensor ``t`` reads."""
    isz = t._dtype.itemsize
    lo = t._offset * isz
    if any(s == 0 for s in t._shape):
        return lo, lo
    last = t._offset + sum((s - 1) * st for s, st in zip(t._shape, t._stride))
    return lo, (last + 1) * isz


class _Host:
    """The host twins of one call's device tensors, sharing one host block per storage."""

    def __init__(self, tensors: list[Tensor]) -> None:
        self.cpu = devices.normalize("cpu")
        self.cpu_mask = devices.mask(self.cpu)
        cpu_backend = devices.backend("cpu")
        spans: dict[int, list[int]] = {}
        storages: dict[int, Storage] = {}
        for t in tensors:
            lo, hi = _span(t)
            s = spans.get(id(t._storage))
            if s is None:
                spans[id(t._storage)] = [lo, hi]
                storages[id(t._storage)] = t._storage
            else:
                s[0], s[1] = min(s[0], lo), max(s[1], hi)
        #: id(device storage) -> (host storage, byte offset of its first byte on the device)
        self.blocks: dict[int, tuple[Storage, int]] = {}
        for sid, (lo, hi) in spans.items():
            lo -= lo % 8  # every element offset stays a whole number of items
            st = storages[sid]
            n = max(hi - lo, 0)
            be = devices.backend(st.device.type)
            raw = be.to_host(st.data, lo, n, st.device) if n else _empty_bytes()
            self.blocks[sid] = (Storage(cpu_backend.from_host(raw, self.cpu), n, self.cpu), lo)
        self.twins: dict[int, tuple[Tensor, Tensor]] = {}  # id(host twin) -> (twin, device)

    def twin(self, t: Tensor) -> Tensor:
        host, lo = self.blocks[id(t._storage)]
        isz = t._dtype.itemsize
        h = make_tensor(
            host, t._shape, t._stride, t._offset - lo // isz, t._dtype, self.cpu, self.cpu_mask
        )
        self.twins[id(h)] = (h, t)
        return h


def _empty_bytes() -> Any:
    import numpy as np

    return np.empty(0, np.uint8)


def _tensors(value: Any) -> list[Tensor]:
    if isinstance(value, Tensor):
        return [value]
    if isinstance(value, (list, tuple)):
        return [v for v in value if isinstance(v, Tensor)]
    return []


def _copy_to_device(dst: Tensor, src: Tensor) -> None:
    """``dst.copy_(src)`` through the device's own copy kernel (never the fallback)."""
    registry.lookup("aten::copy_").redispatch(devices.mask(dst._device), dst, src, False)


def _back(value: Any, host: _Host, dev: device) -> Any:
    """A CPU result as the device's: the argument it is the twin of, a view of a device
    storage it is a view of, or a new device tensor holding its values."""
    if isinstance(value, Tensor):
        pair = host.twins.get(id(value))
        if pair is not None and pair[0] is value:
            return pair[1]
        for sid, (block, lo) in host.blocks.items():
            if block is value._storage:
                like = next(d for _, d in host.twins.values() if id(d._storage) == sid)
                isz = value._dtype.itemsize
                v = make_tensor(
                    like._storage,
                    value._shape,
                    value._stride,
                    value._offset + lo // isz,
                    value._dtype,
                    like._device,
                    devices.mask(like._device),
                )
                v._base = like._base if like._base is not None else like
                return v
        if value._device.type != "cpu":
            return value
        out = providers.new_empty(tuple(value._shape), value._dtype, dev)
        _copy_to_device(out, value)
        return out
    if isinstance(value, tuple):
        return (
            type(value)(*(_back(v, host, dev) for v in value))
            if hasattr(value, "_fields")
            else tuple(_back(v, host, dev) for v in value)
        )
    if isinstance(value, list):
        return [_back(v, host, dev) for v in value]
    return value


def _make_fallback(op: OpOverload, key: DispatchKey, why: str) -> Callable[..., Any]:
    args_spec = op.schema.arguments
    if op.entry is not None and op.entry.get("cross_device"):
        return _copy_required(op, key)
    written = [
        i for i, a in enumerate(args_spec) if a.type.alias is not None and a.type.alias.is_write
    ]
    kinds = [a.type.base for a in args_spec]

    def run_on_cpu(*args: Any) -> Any:
        dev_tensors = [t for a in args for t in _tensors(a) if t._device.type == key.name]
        dev = dev_tensors[0]._device if dev_tensors else devices.normalize(key.name)
        _warn_once(op, dev, why)
        host = _Host(dev_tensors)
        cpu_args: list[Any] = []
        for kind, a in zip(kinds, args):
            if isinstance(a, Tensor):
                a = host.twin(a) if a._device.type == key.name else a
            elif isinstance(a, (list, tuple)) and any(isinstance(v, Tensor) for v in a):
                a = type(a)(
                    host.twin(v) if isinstance(v, Tensor) and v._device.type == key.name else v
                    for v in a
                )
            elif kind == "Device" and a is not None and devices.normalize(a).type == key.name:
                a = host.cpu
            elif kind == "Generator" and a is not None:
                a = None
            cpu_args.append(a)
        result = op.redispatch(host.cpu_mask, *cpu_args)
        for i in written:
            for h, d in zip(_tensors(cpu_args[i]), _tensors(args[i])):
                if h is not d:
                    _copy_to_device(d, h)
        return _back(result, host, dev)

    run_on_cpu.__qualname__ = f"cpu_fallback[{op.qualname}]"
    return run_on_cpu


def _copy_required(op: OpOverload, key: DispatchKey) -> Callable[..., Any]:
    def no_copy(*args: Any) -> Any:
        raise NotImplementedError(
            f"device '{key.name}' registers no kernel for {op.qualname}, which every device "
            "must implement: the CPU fallback moves values through it (docs/vendors.md)"
        )

    return no_copy


def _fallback_for(op: OpOverload, key: DispatchKey) -> Callable[..., Any] | None:
    """The fallback kernel of ``op`` on device key ``key``, or None if not opted in."""
    if key is dk.Meta or key.name == "cpu" or not enabled(key.name):
        return None
    return _make_fallback(op, key, "has no kernel")


# -- per-operator dtypes (Capabilities.op_dtypes) ------------------------------------------------
def _first_tensor_position(op: OpOverload) -> tuple[int, bool] | None:
    for i, a in enumerate(op.schema.arguments):
        if a.type.base == "Tensor":
            return i, a.type.is_list
    return None


def unsupported_dtype(
    op: OpOverload, key: DispatchKey, kernel: Callable[..., Any]
) -> Callable[..., Any]:
    """``kernel`` behind a check of the dtype of ``op``'s first tensor argument against the
    device's ``Capabilities.op_dtypes`` entry for the operator (or its functional form);
    ``kernel`` itself when the device declares none (Note [Per-operator dtypes])."""
    b = devices.registered().get(key.name)
    table = getattr(b.capabilities(), "op_dtypes", None) if b is not None else None
    if not table:
        return kernel
    allowed = None
    for o in (op, op.functional):
        if o is None:
            continue
        for name in (o.qualname, o.qualname.split("::", 1)[1], _default_name(o)):
            if name in table:
                allowed = frozenset(table[name])
                break
        if allowed is not None:
            break
    pos = _first_tensor_position(op)
    if allowed is None or pos is None:
        return kernel
    i, is_list = pos
    fallback = _make_fallback(op, key, "has no kernel for this dtype")

    def check_dtype(*args: Any) -> Any:
        t = args[i][0] if is_list and args[i] else args[i]
        name = t._dtype.name if isinstance(t, Tensor) else None
        if name is None or name in allowed:
            return kernel(*args)
        if enabled(key.name):
            return fallback(*args)
        raise NotImplementedError(
            f"'{op.qualname}' is not implemented for dtype {name} on device '{key.name}': its "
            f"kernel supports {', '.join(sorted(allowed))} (Capabilities.op_dtypes). Use one "
            f"of those dtypes, move the tensors to the CPU, or let the device run what it "
            "lacks on the CPU (ember.library.cpu_fallback)"
        )

    check_dtype.__wrapped__ = kernel  # type: ignore[attr-defined]
    return check_dtype


def _default_name(op: OpOverload) -> str:
    n = op.schema.name
    return f"{n.name}.{n.overload or 'default'}"


registry._cpu_fallback = _fallback_for  # type: ignore[assignment]
registry._dtype_check = unsupported_dtype  # type: ignore[assignment]
