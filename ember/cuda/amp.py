"""``ember.cuda.amp``: PyTorch's older spelling of ``ember.amp`` for the CUDA device
(``from torch.cuda.amp import GradScaler, autocast``). Without a CUDA device plugin the
scaler disables itself (with PyTorch's warning), so training loops run unchanged.

Examples:
    >>> import warnings
    >>> import ember
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     scaler = ember.cuda.amp.GradScaler(enabled=ember.cuda.is_available())
    >>> scaler.is_enabled(), scaler.get_scale()
    (False, 1.0)
"""

from __future__ import annotations

from typing import Any

from ember import amp
from ember.core import dtype as dt

__all__ = ["GradScaler", "autocast"]


class GradScaler(amp.GradScaler):
    """``ember.amp.GradScaler("cuda", ...)``."""

    def __init__(
        self, init_scale: float = 2.0**16, growth_factor: float = 2.0,
        backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True,
    ) -> None:  # fmt: skip
        super().__init__("cuda", init_scale, growth_factor, backoff_factor, growth_interval,
                         enabled)  # fmt: skip


class autocast(amp.autocast):  # noqa: N801 - PyTorch's name
    """``ember.amp.autocast("cuda", ...)`` (float16 by default)."""

    def __init__(self, enabled: bool = True, dtype: Any = dt.float16,
                 cache_enabled: bool = True) -> None:  # fmt: skip
        super().__init__("cuda", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)
