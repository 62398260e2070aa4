"""``ember.amp``: PyTorch's automatic-mixed-precision API, ``autocast`` and ``GradScaler``.

``GradScaler`` is complete: it multiplies the loss by a scale, unscales the gradients
before the optimizer step, skips steps whose gradients hold inf/NaN, and grows or backs
off the scale as PyTorch does (same defaults, state dict and errors). Like PyTorch, a
scaler for a device that is not available (the default ``"cuda"`` without a CUDA plugin)
warns and disables itself, so ``scale``/``step``/``update`` pass straight through.

``autocast`` is accepted but does not lower precision yet: a region runs in its tensors'
own dtypes (results are float32-exact instead of float16/bfloat16-rounded). It warns once
when enabled for a dtype it would have used.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.device import device as _device
from ember.core.tensor import Tensor

__all__ = ["autocast", "GradScaler", "is_autocast_available", "is_autocast_enabled"]

_state = {"enabled": False, "warned": False}


def is_autocast_available(device_type: str) -> bool:
    """Whether ``autocast`` accepts ``device_type`` (it accepts every device type)."""
    return isinstance(device_type, str)


class autocast:  # noqa: N801 - PyTorch's name
    """Context manager (and decorator) for mixed-precision regions; see the module note.

    Examples:
        >>> import ember
        >>> with ember.autocast("cpu", enabled=False):
        ...     y = ember.ones(2, 2) @ ember.ones(2, 2)
        >>> y.dtype
        ember.float32
    """

    def __init__(
        self, device_type: str, dtype: Any = None, enabled: bool = True,
        cache_enabled: bool | None = None,
    ) -> None:  # fmt: skip
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        _device(device_type)  # validates the string
        self.device = device_type
        self.fast_dtype = dtype if dtype is not None else (
            ember.bfloat16 if device_type == "cpu" else ember.float16
        )  # fmt: skip
        self._enabled = bool(enabled)
        self._prev = False

    def __enter__(self) -> autocast:
        if self._enabled and not _state["warned"]:
            _state["warned"] = True
            warnings.warn(
                f"ember.autocast: mixed precision is not implemented yet; the region runs in "
                f"its tensors' own dtypes instead of {self.fast_dtype}",
                UserWarning,
                stacklevel=2,
            )
        self._prev = _state["enabled"]
        _state["enabled"] = self._enabled
        return self

    def __exit__(self, *exc: object) -> None:
        _state["enabled"] = self._prev

    def __call__(self, fn: Callable[..., Any]) -> Callable[..., Any]:
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            with self:
                return fn(*args, **kwargs)

        wrapped.__wrapped__ = fn  # type: ignore[attr-defined]
        return wrapped


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether the current code runs inside an enabled ``autocast`` region."""
    return _state["enabled"]


_READY, _UNSCALED, _STEPPED = 0, 1, 2


class GradScaler:
    """Dynamic loss scaling for mixed-precision training.

    Examples:
        >>> import ember
        >>> p = ember.nn.Parameter(ember.ones(2))
        >>> opt = ember.optim.SGD([p], lr=0.1)
        >>> scaler = ember.amp.GradScaler("cpu", init_scale=1024.0)
        >>> scaler.scale((p * 3).sum()).backward()
        >>> p.grad.tolist()
        [3072.0, 3072.0]
        >>> scaler.step(opt)  # unscales first, then steps
        >>> scaler.update()
        >>> [round(v, 4) for v in p.tolist()], scaler.get_scale()
        ([0.7, 0.7], 1024.0)
    """

    def __init__(
        self, device: str = "cuda", init_scale: float = 2.0**16, growth_factor: float = 2.0,
        backoff_factor: float = 0.5, growth_interval: int = 2000, enabled: bool = True,
    ) -> None:  # fmt: skip
        self._device = device
        self._enabled = enabled
        if enabled and not _available(device):
            warnings.warn(
                f"ember.amp.GradScaler is enabled, but device '{device}' is not available. "
                "Disabling.",
                UserWarning,
                stacklevel=2,
            )
            self._enabled = False
        if growth_factor <= 1.0:
            raise ValueError("The growth factor must be > 1.0.")
        if backoff_factor >= 1.0:
            raise ValueError("The backoff factor must be < 1.0.")
        self._scale = float(init_scale)
        self._growth_factor = growth_factor
        self._backoff_factor = backoff_factor
        self._growth_interval = growth_interval
        self._growth_tracker = 0
        self._per_optimizer: dict[int, dict[str, Any]] = {}

    def is_enabled(self) -> bool:
        return self._enabled

    def scale(self, outputs: Any) -> Any:
        """Multiply a loss (or a nested list/tuple of them) by the current scale."""
        if not self._enabled:
            return outputs
        if isinstance(outputs, Tensor):
            return outputs * self._scale
        if isinstance(outputs, (list, tuple)):
            return type(outputs)(self.scale(o) for o in outputs)
        raise ValueError("outputs must be a Tensor or an iterable of Tensors")

    def _opt_state(self, optimizer: Any) -> dict[str, Any]:
        return self._per_optimizer.setdefault(id(optimizer), {"stage": _READY, "found_inf": 0})

    def unscale_(self, optimizer: Any) -> None:
        """Divide the optimizer's gradients by the scale, in place, noting any inf/NaN."""
        if not self._enabled:
            return
        st = self._opt_state(optimizer)
        if st["stage"] == _UNSCALED:
            raise RuntimeError(
                "unscale_() has already been called on this optimizer since the last update()."
            )
        if st["stage"] == _STEPPED:
            raise RuntimeError("unscale_() is being called after step().")
        inv = 1.0 / self._scale
        found = 0
        with no_grad():
            for group in optimizer.param_groups:
                for p in group["params"]:
                    if p.grad is None:
                        continue
                    if not bool(ember.isfinite(p.grad).all().item()):
                        found = 1
                    p.grad.mul_(inv)
        st["found_inf"] = found
        st["stage"] = _UNSCALED

    def step(self, optimizer: Any, *args: Any, **kwargs: Any) -> Any:
        """Unscale if needed, then ``optimizer.step()`` unless a gradient is inf/NaN."""
        if not self._enabled:
            return optimizer.step(*args, **kwargs)
        if "closure" in kwargs:
            raise RuntimeError("Closure use is not currently supported if GradScaler is enabled.")
        st = self._opt_state(optimizer)
        if st["stage"] == _STEPPED:
            raise RuntimeError("step() has already been called since the last update().")
        if st["stage"] == _READY:
            self.unscale_(optimizer)
        result = None if st["found_inf"] else optimizer.step(*args, **kwargs)
        st["stage"] = _STEPPED
        return result

    def update(self, new_scale: float | Tensor | None = None) -> None:
        """Back the scale off after a skipped step, or grow it after ``growth_interval``
        clean steps; or set it to ``new_scale``."""
        if not self._enabled:
            return
        if new_scale is not None:
            self._scale = float(new_scale)
        elif self._per_optimizer:
            if any(st["found_inf"] for st in self._per_optimizer.values()):
                self._scale *= self._backoff_factor
                self._growth_tracker = 0
            else:
                self._growth_tracker += 1
                if self._growth_tracker == self._growth_interval:
                    self._scale *= self._growth_factor
                    self._growth_tracker = 0
        self._per_optimizer = {}

    def get_scale(self) -> float:
        return self._scale if self._enabled else 1.0

    def get_growth_factor(self) -> float:
        return self._growth_factor

    def set_growth_factor(self, new_factor: float) -> None:
        self._growth_factor = new_factor

    def get_backoff_factor(self) -> float:
        return self._backoff_factor

    def set_backoff_factor(self, new_factor: float) -> None:
        self._backoff_factor = new_factor

    def get_growth_interval(self) -> int:
        return self._growth_interval

    def set_growth_interval(self, new_interval: int) -> None:
        self._growth_interval = new_interval

    def state_dict(self) -> dict[str, Any]:
        if not self._enabled:
            return {}
        return {
            "scale": self._scale,
            "growth_factor": self._growth_factor,
            "backoff_factor": self._backoff_factor,
            "growth_interval": self._growth_interval,
            "_growth_tracker": self._growth_tracker,
        }

    def load_state_dict(self, state_dict: dict[str, Any]) -> None:
        if not self._enabled:
            return
        if len(state_dict) == 0:
            raise RuntimeError(
                "The source state dict is empty, possibly because it was saved from a disabled "
                "instance of GradScaler."
            )
        self._scale = float(state_dict["scale"])
        self._growth_factor = state_dict["growth_factor"]
        self._backoff_factor = state_dict["backoff_factor"]
        self._growth_interval = state_dict["growth_interval"]
        self._growth_tracker = int(state_dict["_growth_tracker"])


def _available(device_type: str) -> bool:
    # every device type, "cuda" included, through the device table (ember.cuda sits above us)
    try:
        from ember.dispatcher import devices

        return bool(devices.backend(_device(device_type).type).is_available())
    except RuntimeError:
        return False
