"""``ember.accelerator``: PyTorch's device-agnostic accelerator queries.

The accelerator is the CUDA device when an ``ember-cuda`` plugin provides one; ember
reports no accelerator otherwise, so ``current_accelerator()`` is None and scripts fall
back to the CPU, as with a CPU-only PyTorch.

Examples:
    >>> import ember
    >>> acc = ember.accelerator.current_accelerator()
    >>> device = acc.type if ember.accelerator.is_available() else "cpu"
    >>> ember.ones(1, device=device).device.type in ("cpu", "cuda")
    True
"""

from __future__ import annotations

from ember.core.device import device

__all__ = ["is_available", "current_accelerator", "device_count"]


def is_available() -> bool:
    """Whether an accelerator device is available."""
    from ember import cuda

    return cuda.is_available()


def current_accelerator(check_available: bool = False) -> device | None:
    """The accelerator's device type as an ``ember.device``, or None without one."""
    from ember import cuda

    if cuda.is_available() or (not check_available and cuda.is_initialized()):
        return device("cuda")
    return None


def device_count() -> int:
    """How many accelerator devices are available (0 without one)."""
    from ember import cuda

    return cuda.device_count()
