"""``make_tensor``: reproducible test tensors of any dtype, layout and device.

Values are drawn on the host with numpy, built on the CPU device, and moved to the
target device with ``.to(device)``; a non-contiguous layout is then made on the
target device itself (a stride-2 slice of a wider tensor), so device kernels see
genuinely strided inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np

__all__ = ["make_tensor"]

_DEFAULT_RNG = np.random.default_rng(0)


def _rng(generator: np.random.Generator | int | None) -> np.random.Generator:
    if generator is None:
        return _DEFAULT_RNG
    if isinstance(generator, np.random.Generator):
        return generator
    return np.random.default_rng(generator)


def make_tensor(
    shape: Sequence[int] | int,
    dtype: Any,
    device: Any = "cpu",
    *,
    low: float | None = None,
    high: float | None = None,
    noncontiguous: bool = False,
    exclude_zero: bool = False,
    generator: np.random.Generator | int | None = None,
) -> Any:
    """A tensor of ``shape`` with values drawn uniformly from ``[low, high)``.

    Defaults follow PyTorch's ``make_tensor``: floats in [-9, 9), signed integers in
    [-9, 10), uint8 in [0, 10), bools fair coin flips. ``exclude_zero`` replaces
    zeros (useful for divisors). ``generator`` is a numpy Generator or a seed.

    Examples:
        >>> import ember
        >>> t = make_tensor((2, 3), ember.int32, low=0, high=5, generator=0)
        >>> t.shape, t.dtype, bool(((t >= 0) & (t < 5)).all())
        (ember.Size([2, 3]), ember.int32, True)
        >>> make_tensor((3, 4), ember.float32, noncontiguous=True).is_contiguous()
        False
    """
    import ember

    dt = getattr(ember, dtype) if isinstance(dtype, str) else dtype
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    wide = noncontiguous and len(dims) > 0 and all(dims)
    host_shape = dims[:-1] + (dims[-1] * 2,) if wide else dims
    rng = _rng(generator)
    name = dt.name
    if name == "bool":
        a: np.ndarray = rng.random(host_shape) < 0.5
    elif dt.is_floating_point:
        lo, hi = (-9.0 if low is None else low), (9.0 if high is None else high)
        a = rng.uniform(lo, hi, host_shape)
        if exclude_zero:
            a[np.abs(a) < 1e-3] = 1.0 if hi > 1.0 else (lo + hi) / 2
    else:
        lo = (0 if name == "uint8" else -9) if low is None else low
        hi = 10 if high is None else high
        a = rng.integers(int(np.ceil(lo)), int(np.ceil(hi)), host_shape, dtype=np.int64)
        if exclude_zero:
            a[a == 0] = 1
    t = ember.from_numpy(np.array(a).reshape(host_shape)).to(dt)
    if str(device) != "cpu":
        t = t.to(device)
    if wide:
        t = ember.ops.aten.slice.Tensor(t, -1, 0, None, 2)
    return t
