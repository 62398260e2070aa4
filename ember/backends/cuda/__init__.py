"""``ember.backends.cuda``: PyTorch's ``torch.backends.cuda`` switches, kept as settable flags.

Scripts set ``torch.backends.cuda.matmul.allow_tf32 = True`` and call
``enable_flash_sdp(False)`` before they train. ember has no cuBLAS or fused attention
kernels of its own, so these are flags with torch's names and defaults that can be set and
read back (a device plugin may consult them) and change nothing ember computes: its
``scaled_dot_product_attention`` has one implementation, whatever the flags say. This module
owns the scaled-dot-product-attention backend state that ``ember.nn.attention.sdpa_kernel``
sets: which backends are enabled, and their priority order.

Must always hold: ``SDPBackend`` has torch's members and values; every flag reads back what
was last set; ``sdp_kernel`` and ``ember.nn.attention.sdpa_kernel`` restore the previous
state on exit, also when the block raises.

Examples:
    >>> import ember
    >>> ember.backends.cuda.matmul.allow_tf32 = True
    >>> ember.backends.cuda.matmul.allow_tf32
    True
    >>> ember.backends.cuda.matmul.allow_tf32 = False  # torch's default
    >>> ember.backends.cuda.enable_flash_sdp(False)
    >>> ember.backends.cuda.flash_sdp_enabled()
    False
    >>> ember.backends.cuda.enable_flash_sdp(True)
"""

from __future__ import annotations

import contextlib
import enum
import warnings
from collections.abc import Iterable, Iterator
from typing import Any

__all__ = [
    "is_built",
    "matmul",
    "SDPBackend",
    "enable_cudnn_sdp",
    "cudnn_sdp_enabled",
    "enable_flash_sdp",
    "flash_sdp_enabled",
    "enable_mem_efficient_sdp",
    "mem_efficient_sdp_enabled",
    "enable_math_sdp",
    "math_sdp_enabled",
    "allow_fp16_bf16_reduction_math_sdp",
    "fp16_bf16_reduction_math_sdp_allowed",
    "is_flash_attention_available",
    "can_use_flash_attention",
    "can_use_efficient_attention",
    "can_use_cudnn_attention",
    "sdp_kernel",
]


def is_built() -> bool:
    """Whether a ``cuda`` device plugin is installed (ember itself links no CUDA)."""
    from ember.plugins import manager

    return any(r.name == "cuda" for r in manager.discover("ember.devices"))


class cuBLASModule:  # noqa: N801 - torch's name
    """``matmul``: the cuBLAS precision flags; unknown names raise ``AttributeError``."""

    _defaults: dict[str, Any] = {  # noqa: RUF012 - a class-level table of the known flags
        "allow_tf32": False,
        "allow_fp16_reduced_precision_reduction": True,
        "allow_bf16_reduced_precision_reduction": True,
        "allow_fp16_accumulation": False,
        "fp32_precision": "none",
    }

    def __init__(self) -> None:
        object.__setattr__(self, "_flags", dict(self._defaults))

    def __getattr__(self, name: str) -> Any:
        flags = object.__getattribute__(self, "_flags")
        if name in flags:
            return flags[name]
        raise AttributeError("Unknown attribute " + name)

    def __setattr__(self, name: str, value: Any) -> None:
        if name not in self._defaults:
            raise AttributeError("Unknown attribute " + name)
        object.__getattribute__(self, "_flags")[name] = value


matmul = cuBLASModule()


class SDPBackend(enum.IntEnum):
    """The scaled-dot-product-attention implementations (torch's names and values)."""

    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4

    def __str__(self) -> str:
        return f"SDPBackend.{self.name}"


#: the enabled flag of each backend that can be switched (ERROR cannot)
_sdp_enabled: dict[SDPBackend, bool] = {
    b: True for b in SDPBackend if b is not SDPBackend.ERROR
}  # fmt: skip
#: the order in which an implementation would be tried (torch's default order)
_sdp_priority: list[SDPBackend] = [
    SDPBackend.FLASH_ATTENTION,
    SDPBackend.EFFICIENT_ATTENTION,
    SDPBackend.MATH,
    SDPBackend.CUDNN_ATTENTION,
    SDPBackend.OVERRIDEABLE,
]
_fp16_bf16_reduction_math = [False]


def _set_sdp_backends(backends: Iterable[Any], set_priority: bool = False) -> None:
    """Enable exactly ``backends``; with ``set_priority`` they also go first, in that order."""
    chosen = list(backends)
    for b in _sdp_enabled:
        _sdp_enabled[b] = b in chosen
    if set_priority:
        first = [SDPBackend(int(b)) for b in chosen if int(b) != SDPBackend.ERROR]
        _sdp_priority[:] = first + [b for b in _sdp_priority if b not in first]


def _sdp_state() -> tuple[dict[SDPBackend, bool], list[SDPBackend]]:
    """A copy of the whole attention-backend state: the flags and the priority order."""
    return dict(_sdp_enabled), list(_sdp_priority)


def _restore_sdp_state(state: tuple[dict[SDPBackend, bool], list[SDPBackend]]) -> None:
    _sdp_enabled.update(state[0])
    _sdp_priority[:] = state[1]


def sdp_priority_order() -> list[int]:
    """The backends' priority order, as ints (torch's ``torch._C._get_sdp_priority_order``)."""
    return [int(b) for b in _sdp_priority]


def enable_flash_sdp(enabled: bool) -> None:
    _sdp_enabled[SDPBackend.FLASH_ATTENTION] = bool(enabled)


def flash_sdp_enabled() -> bool:
    return _sdp_enabled[SDPBackend.FLASH_ATTENTION]


def enable_mem_efficient_sdp(enabled: bool) -> None:
    _sdp_enabled[SDPBackend.EFFICIENT_ATTENTION] = bool(enabled)


def mem_efficient_sdp_enabled() -> bool:
    return _sdp_enabled[SDPBackend.EFFICIENT_ATTENTION]


def enable_math_sdp(enabled: bool) -> None:
    _sdp_enabled[SDPBackend.MATH] = bool(enabled)


def math_sdp_enabled() -> bool:
    return _sdp_enabled[SDPBackend.MATH]


def enable_cudnn_sdp(enabled: bool) -> None:
    _sdp_enabled[SDPBackend.CUDNN_ATTENTION] = bool(enabled)


def cudnn_sdp_enabled() -> bool:
    return _sdp_enabled[SDPBackend.CUDNN_ATTENTION]


def allow_fp16_bf16_reduction_math_sdp(enabled: bool) -> None:
    _fp16_bf16_reduction_math[0] = bool(enabled)


def fp16_bf16_reduction_math_sdp_allowed() -> bool:
    return _fp16_bf16_reduction_math[0]


def is_flash_attention_available() -> bool:
    """False: ember has no flash-attention kernel."""
    return False


def can_use_flash_attention(params: Any = None, debug: bool = False) -> bool:
    """False: ember has no flash-attention kernel."""
    if debug:
        warnings.warn("ember has no flash attention kernel", UserWarning, stacklevel=2)
    return False


def can_use_efficient_attention(params: Any = None, debug: bool = False) -> bool:
    """False: ember has no memory-efficient attention kernel."""
    if debug:
        warnings.warn("ember has no memory-efficient attention kernel", UserWarning, stacklevel=2)
    return False


def can_use_cudnn_attention(params: Any = None, debug: bool = False) -> bool:
    """False: ember has no cuDNN attention kernel."""
    if debug:
        warnings.warn("ember has no cuDNN attention kernel", UserWarning, stacklevel=2)
    return False


@contextlib.contextmanager
def sdp_kernel(
    enable_flash: bool = True,
    enable_math: bool = True,
    enable_mem_efficient: bool = True,
    enable_cudnn: bool = True,
) -> Iterator[dict[str, Any]]:
    """Deprecated in torch (``FutureWarning``) for ``ember.nn.attention.sdpa_kernel``: enable
    the named backends inside the block, restoring every flag after it."""
    warnings.warn(
        "`torch.backends.cuda.sdp_kernel()` is deprecated. In the future, this context manager "
        "will be removed. Please see `torch.nn.attention.sdpa_kernel()` for the new context "
        "manager, with updated signature.",
        FutureWarning,
        stacklevel=3,
    )
    wanted = {
        SDPBackend.FLASH_ATTENTION: enable_flash,
        SDPBackend.MATH: enable_math,
        SDPBackend.EFFICIENT_ATTENTION: enable_mem_efficient,
        SDPBackend.CUDNN_ATTENTION: enable_cudnn,
    }
    saved = _sdp_state()
    try:  # as sdpa_kernel with the listed backends: the others (OVERRIDEABLE) are off
        _set_sdp_backends([b for b, on in wanted.items() if on])
        yield {}
    finally:
        _restore_sdp_state(saved)
