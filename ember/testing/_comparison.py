"""``assert_close``: element-wise closeness of tensors with a readable mismatch report.

Values are compared on the host: ember tensors are copied to the CPU device and
viewed as float64 (floats), int64 (integers) or bool arrays, so any device's
results can be checked against numpy references. Must always hold: integers and
bools compare exactly by default; floats use PyTorch's default tolerances for the
less precise of the two dtypes.
"""

from __future__ import annotations

import math
from typing import Any

import numpy as np

__all__ = ["assert_close", "default_tolerances", "to_numpy"]

#: PyTorch's default (rtol, atol) per dtype name; dtypes not listed compare exactly.
DEFAULT_TOLERANCES: dict[str, tuple[float, float]] = {
    "float16": (1e-3, 1e-5),
    "bfloat16": (1.6e-2, 1e-5),
    "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7),
}


def default_tolerances(*dtypes: str) -> tuple[float, float]:
    """The loosest default (rtol, atol) among dtype names (exact for ints and bool).

    Examples:
        >>> default_tolerances("float32")
        (1.3e-06, 1e-05)
        >>> default_tolerances("int64", "float16")
        (0.001, 1e-05)
        >>> default_tolerances("bool")
        (0.0, 0.0)
    """
    tols = [DEFAULT_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes]
    return max(t[0] for t in tols), max(t[1] for t in tols)


def _dtype_name(x: Any) -> str | None:
    d = getattr(x, "dtype", None)
    if d is None:
        return None
    return d.name if hasattr(d, "itemsize") and not isinstance(d, np.dtype) else str(d)


def to_numpy(x: Any) -> np.ndarray:
    """Host values of a tensor, array or scalar as float64, int64 or bool numpy arrays.

    Examples:
        >>> import ember
        >>> to_numpy(ember.tensor([[1, 2]], dtype=ember.int8)).dtype
        dtype('int64')
        >>> to_numpy(ember.ones(2, dtype=ember.bfloat16)).tolist()
        [1.0, 1.0]
    """
    from ember.core.tensor import Tensor

    if isinstance(x, Tensor):
        t = x.to("cpu")
        name = t.dtype.name
        if name == "bfloat16":
            t = t.float()
        a = np.array(t.contiguous().numpy(), copy=True)
    else:
        a = np.asarray(x)
        name = a.dtype.name
    if a.dtype == np.bool_:
        return a.astype(np.bool_)
    if name.startswith(("int", "uint")):
        return a.astype(np.int64)
    return a.astype(np.float64)


def _fmt_index(flat: int, shape: tuple[int, ...]) -> str:
    return str(tuple(int(i) for i in np.unravel_index(flat, shape))) if shape else "()"


def assert_close(
    actual: Any,
    expected: Any,
    *,
    rtol: float | None = None,
    atol: float | None = None,
    equal_nan: bool = False,
    check_dtype: bool = True,
    msg: str | None = None,
) -> None:
    """Assert ``|actual - expected| <= atol + rtol * |expected|`` element-wise.

    ``actual`` and ``expected`` are ember tensors, numpy arrays or Python scalars
    and lists. Shapes must match exactly; with ``check_dtype`` so must the dtypes
    of two typed inputs. ``rtol``/``atol`` default to PyTorch's per-dtype values
    (both or neither must be given). Infinities must match exactly; NaNs match
    only with ``equal_nan``. On failure an AssertionError reports the number of
    mismatched elements and the greatest absolute and relative differences with
    their indices, prefixed by ``msg``.

    Examples:
        >>> import ember
        >>> assert_close(ember.tensor([1.0, 2.0]), [1.0, 2.0 + 1e-7], check_dtype=False)
        >>> assert_close(ember.tensor([1.0, 2.0]), [1.0, 2.5], check_dtype=False)
        Traceback (most recent call last):
        ...
        AssertionError: Tensor-likes are not close!
        <BLANKLINE>
        Mismatched elements: 1 / 2 (50.0%)
        Greatest absolute difference: 0.5 at index (1,) (up to 1e-05 allowed)
        Greatest relative difference: 0.2 at index (1,) (up to 1.3e-06 allowed)
    """
    if (rtol is None) != (atol is None):
        raise ValueError("Both 'rtol' and 'atol' must be either specified or omitted")
    prefix = f"{msg}\n\n" if msg else ""
    da, de = _dtype_name(actual), _dtype_name(expected)
    if check_dtype and da is not None and de is not None and da != de:
        raise AssertionError(
            f"{prefix}The values for attribute 'dtype' do not match: {da} != {de}."
        )
    a, e = to_numpy(actual), to_numpy(expected)
    if a.shape != e.shape:
        raise AssertionError(
            f"{prefix}The values for attribute 'shape' do not match: {a.shape} != {e.shape}."
        )
    if rtol is None or atol is None:
        names = [d for d in (da, de) if d is not None] or [a.dtype.name, e.dtype.name]
        rtol, atol = default_tolerances(*names)
    if a.dtype == np.bool_ or e.dtype == np.bool_:
        a, e = a.astype(np.int64), e.astype(np.int64)
    exact = a == e
    if a.dtype.kind == "f" or e.dtype.kind == "f":
        af, ef = a.astype(np.float64), e.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(af - ef)
            ok = exact | (np.isfinite(diff) & (diff <= atol + rtol * np.abs(ef)))
        if equal_nan:
            ok |= np.isnan(af) & np.isnan(ef)
    else:
        diff = np.abs(a.astype(np.float64) - e.astype(np.float64))
        ok = exact | (diff <= atol + rtol * np.abs(e.astype(np.float64)))
        ef = e.astype(np.float64)
    if bool(ok.all()):
        return
    bad = ~ok.reshape(-1)
    n, total = int(bad.sum()), ok.size
    flat = diff.reshape(-1)
    d = np.where(bad, np.where(np.isnan(flat), math.inf, flat), 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        rel = np.where(bad, d / np.abs(ef.reshape(-1)), 0.0)
    rel = np.where(np.isnan(rel), math.inf, rel)
    ia, ir = int(np.argmax(d)), int(np.argmax(rel))
    raise AssertionError(
        f"{prefix}{'Scalars are' if a.ndim == 0 else 'Tensor-likes are'} not close!\n\n"
        f"Mismatched elements: {n} / {total} ({100.0 * n / total:.1f}%)\n"
        f"Greatest absolute difference: {d[ia]:.6g} at index {_fmt_index(ia, a.shape)} "
        f"(up to {atol:g} allowed)\n"
        f"Greatest relative difference: {rel[ir]:.6g} at index {_fmt_index(ir, a.shape)} "
        f"(up to {rtol:g} allowed)"
    )
