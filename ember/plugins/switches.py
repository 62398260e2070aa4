"""Process-wide switches that PyTorch scripts set at the top: threads, defaults, determinism.

Owns ``ember.set_num_threads``/``get_num_threads`` (forwarded to every loaded device
plugin through the ``ember_set_num_threads``/``ember_get_num_threads`` hooks, and
replayed to plugins that load later), the inter-op thread count, the float32 matmul
precision, the deterministic-algorithms flags, the default device and the constants
``inf``, ``nan``, ``pi`` and ``e``.

Must always hold: reading or setting a switch loads no device plugin, except
``get_num_threads`` with no plugin loaded yet, which loads the default device's plugin
to ask it; the values and errors are PyTorch's.
"""

from __future__ import annotations

import math
import warnings
from typing import Any

from ember.core.device import device

__all__ = [
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
]

inf = math.inf
nan = math.nan
pi = math.pi
e = math.e

#: what the switches hold; ``num_threads`` is None until a script sets it.
_state: dict[str, Any] = {
    "num_threads": None,
    "interop_threads": None,
    "matmul_precision": "highest",
    "deterministic": False,
    "warn_only": False,
    "warn_always": False,
}
_PRECISIONS = ("highest", "high", "medium")
_DEBUG_MODES = ("default", "warn", "error")


def _positive_int(n: Any, what: str) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{what} expects an int, but got {type(n).__name__}")
    if n <= 0:
        raise RuntimeError(f"{what} expects a positive integer")
    return n


def set_num_threads(n: int) -> None:
    """Set how many threads device plugins use for intra-op parallelism (OpenMP on the CPU).

    Loaded plugins are told now; plugins that load later are told when they load.

    Examples:
        >>> import ember
        >>> old = ember.get_num_threads()
        >>> ember.set_num_threads(1)
        >>> ember.get_num_threads()
        1
        >>> ember.set_num_threads(old)
    """
    from ember.plugins import manager

    _state["num_threads"] = _positive_int(n, "set_num_threads")
    manager.set_num_threads(n)


def get_num_threads() -> int:
    """The intra-op thread count of the default device's plugin (1 if it has no threads).

    Examples:
        >>> import ember
        >>> ember.get_num_threads() >= 1
        True
    """
    from ember.dispatcher import devices
    from ember.plugins import manager

    n = manager.get_num_threads()
    if n is None:
        devices.backend(devices._default_device[0])  # load the default device's plugin
        n = manager.get_num_threads()
    if n is None:
        n = _state["num_threads"] or 1
    return int(n)


def init_num_threads() -> None:
    """Re-apply the thread count set by ``set_num_threads`` (PyTorch calls it in new threads).

    Does nothing until ``set_num_threads`` has been called.

    Examples:
        >>> import ember
        >>> ember.init_num_threads()
    """
    if _state["num_threads"] is not None:
        set_num_threads(_state["num_threads"])


def set_num_interop_threads(n: int) -> None:
    """Set the inter-op thread count: once per process, as in PyTorch.

    ember runs operators on the calling thread, so the value is recorded and reported
    by ``get_num_interop_threads``.

    Args:
        n: a positive number of threads.

    Raises:
        RuntimeError: ``n`` is not a positive int, or the count was already set.

    Examples:
        >>> import ember
        >>> try:
        ...     ember.set_num_interop_threads(0)
        ... except RuntimeError as e:
        ...     print(e)
        set_num_interop_threads expects a positive integer
    """
    n = _positive_int(n, "set_num_interop_threads")
    if _state["interop_threads"] is not None:
        raise RuntimeError(
            "Error: cannot set number of interop threads after parallel work has started or "
            "set_num_interop_threads called"
        )
    _state["interop_threads"] = n


def get_num_interop_threads() -> int:
    """The inter-op thread count (the value set, else the intra-op count).

    Examples:
        >>> import ember
        >>> ember.get_num_interop_threads() >= 1
        True
    """
    n = _state["interop_threads"]
    return int(n) if n is not None else get_num_threads()


def set_float32_matmul_precision(precision: str) -> None:
    """``"highest"``, ``"high"`` or ``"medium"``: recorded; ember's float32 matmuls stay
    full precision (lower precisions are hints PyTorch may ignore too).

    Examples:
        >>> import ember
        >>> ember.set_float32_matmul_precision("high")
        >>> ember.get_float32_matmul_precision()
        'high'
        >>> ember.set_float32_matmul_precision("highest")
    """
    if precision not in _PRECISIONS:
        warnings.warn(
            f"{precision} is not one of 'highest', 'high', or 'medium'; the current "
            "set_float32_matmul_precision call has no effect.",
            UserWarning,
            stacklevel=2,
        )
        return
    _state["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The value last set by ``set_float32_matmul_precision`` (``"highest"`` at start).

    Examples:
        >>> import ember
        >>> ember.get_float32_matmul_precision()
        'highest'
    """
    return str(_state["matmul_precision"])


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """Ask for deterministic algorithms.

    ember's kernels are deterministic already (fixed reduction orders, no atomics), so the
    flag is recorded for ``are_deterministic_algorithms_enabled`` and changes nothing.

    Examples:
        >>> import ember
        >>> ember.use_deterministic_algorithms(True)
        >>> ember.are_deterministic_algorithms_enabled()
        True
        >>> ember.use_deterministic_algorithms(False)
    """
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): expected a bool, got {mode!r}")
    _state["deterministic"] = mode
    _state["warn_only"] = bool(warn_only)


def are_deterministic_algorithms_enabled() -> bool:
    """Whether ``use_deterministic_algorithms(True)`` is in effect.

    Examples:
        >>> import ember
        >>> ember.are_deterministic_algorithms_enabled()
        False
    """
    return bool(_state["deterministic"])


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    """Whether ``use_deterministic_algorithms`` was called with ``warn_only=True``.

    Examples:
        >>> import ember
        >>> ember.use_deterministic_algorithms(True, warn_only=True)
        >>> ember.is_deterministic_algorithms_warn_only_enabled()
        True
        >>> ember.use_deterministic_algorithms(False)
    """
    return bool(_state["warn_only"])


def set_deterministic_debug_mode(debug_mode: str | int) -> None:
    """Set the determinism mode by level: ``"default"``/0, ``"warn"``/1 or ``"error"``/2.

    The same switch as ``use_deterministic_algorithms``: 0 turns it off, 1 turns it on
    with ``warn_only=True``, 2 turns it on. ember's kernels are deterministic anyway.

    Args:
        debug_mode: the level, as a name or an int.

    Raises:
        RuntimeError: the level is none of these.

    Examples:
        >>> import ember
        >>> ember.set_deterministic_debug_mode("warn")
        >>> ember.get_deterministic_debug_mode()
        1
        >>> ember.set_deterministic_debug_mode(0)
    """
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(
                "invalid value of debug_mode, expected one of `default`, `warn`, `error`, but "
                f"got {debug_mode}"
            )
        debug_mode = _DEBUG_MODES.index(debug_mode)
    if debug_mode not in (0, 1, 2):
        raise RuntimeError(
            f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}"
        )
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    """Return the determinism level: 0 (off), 1 (warn only) or 2 (on).

    Examples:
        >>> import ember
        >>> ember.get_deterministic_debug_mode()
        0
    """
    if not _state["deterministic"]:
        return 0
    return 1 if _state["warn_only"] else 2


def set_default_device(dev: Any) -> None:
    """The device factories use when none is given (``None`` restores ``"cpu"``).

    Examples:
        >>> import ember
        >>> ember.set_default_device("meta")
        >>> ember.zeros(2).device
        device(type='meta')
        >>> ember.set_default_device(None)
        >>> ember.get_default_device()
        device(type='cpu')
    """
    from ember.dispatcher import devices

    if dev is None:
        devices._default_device[0] = "cpu"
        return
    devices._default_device[0] = str(devices.normalize(dev))


def get_default_device() -> device:
    """Return the device factories use when none is given (``cpu`` unless set).

    Examples:
        >>> import ember
        >>> ember.get_default_device()
        device(type='cpu')
    """
    from ember.dispatcher import devices

    return devices.normalize(devices._default_device[0])


def set_flush_denormal(mode: bool) -> bool:
    """Whether denormal flushing could be set: False, ember's kernels keep denormals.

    Note:
        PyTorch returns True on x86 CPUs and then flushes denormals to zero; ember
        always answers False and leaves the kernels unchanged.

    Examples:
        >>> import ember
        >>> ember.set_flush_denormal(True)
        False
    """
    return False


def set_warn_always(b: bool) -> None:
    """Record whether warnings that fire once should fire every time (PyTorch's switch).

    ember's own warnings follow Python's ``warnings`` filters either way; the value is
    reported by ``is_warn_always_enabled``.

    Examples:
        >>> import ember
        >>> ember.set_warn_always(True)
        >>> ember.is_warn_always_enabled()
        True
        >>> ember.set_warn_always(False)
    """
    _state["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    """Whether ``set_warn_always(True)`` is in effect.

    Examples:
        >>> import ember
        >>> ember.is_warn_always_enabled()
        False
    """
    return bool(_state["warn_always"])
