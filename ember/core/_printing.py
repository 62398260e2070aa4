"""Tensor ``repr`` text and the global print options.

This module owns how a tensor looks when printed: ``format_tensor`` turns a numpy
array of element values (plus dtype, device and caller-supplied suffixes) into
the exact text PyTorch's ``repr`` produces, with ``ember.`` in place of
``torch.``. It also owns the module-level print options (``set_printoptions``,
``get_printoptions``, ``PrintOptions``) with PyTorch's defaults and semantics.

Rules reproduced (found by observing PyTorch's output):

* floats: the mode is chosen from the *shown*, finite, non-zero values only.
  If all of them are integers, they print as ``1.``; otherwise in fixed notation
  with ``precision`` digits. Scientific notation is used when max/min of their
  absolute values exceeds 1000 or the max exceeds 1e8 (or, for non-integers,
  the min is below 1e-4); ``sci_mode`` overrides the choice. Every element is
  right-aligned to the widest of those values (zeros, nan and inf do not count).
  With no finite non-zero value at all, everything prints in integer style.
* ints print with ``str``; bools as ``True``/``False``; both aligned to the widest.
* more than ``threshold`` elements: each dimension longer than ``2 * edgeitems``
  shows its first and last ``edgeitems`` entries around ``...``; the width and
  mode are computed from the shown entries only. ``edgeitems == 0`` prints
  ``[...]`` and (like PyTorch) then always adds a ``size=`` suffix.
* rows wrap at ``linewidth``; N-D blocks are separated by ``ndim - 1`` newlines.
* suffixes follow the body; each goes on a new line, indented, if it would
  make the current line too long.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["PrintOptions", "format_tensor", "get_printoptions", "set_printoptions"]

_PREFIX = "tensor("
_FLOAT_DTYPES = frozenset({"float16", "bfloat16", "float32", "float64"})
# dtypes whose name is never printed for a non-empty tensor (besides the default float).
_IMPLIED_DTYPES = frozenset({"int64", "bool"})


@dataclass
class PrintOptions:
    """Print settings; the defaults are PyTorch's ``profile="default"``."""

    precision: int = 4
    threshold: float = 1000
    edgeitems: int = 3
    linewidth: int = 80
    sci_mode: bool | None = None


# profile name -> (precision, threshold, edgeitems, linewidth)
_PROFILES: dict[str, tuple[int, float, int, int]] = {
    "default": (4, 1000, 3, 80),
    "short": (2, 1000, 2, 80),
    "full": (4, math.inf, 3, 80),
}

_OPTIONS = PrintOptions()


def set_printoptions(
    precision: int | None = None,
    threshold: float | None = None,
    edgeitems: int | None = None,
    linewidth: int | None = None,
    profile: str | None = None,
    sci_mode: bool | None = None,
) -> None:
    """Set the global print options, like ``torch.set_printoptions``.

    A known ``profile`` ("default", "short", "full") is applied first, then the
    explicit arguments override it; an unknown profile is ignored, as PyTorch
    does. ``sci_mode`` is always assigned, so omitting it resets it to automatic.
    """
    if profile in _PROFILES:
        (
            _OPTIONS.precision,
            _OPTIONS.threshold,
            _OPTIONS.edgeitems,
            _OPTIONS.linewidth,
        ) = _PROFILES[profile]
    if precision is not None:
        _OPTIONS.precision = precision
    if threshold is not None:
        _OPTIONS.threshold = threshold
    if edgeitems is not None:
        _OPTIONS.edgeitems = edgeitems
    if linewidth is not None:
        _OPTIONS.linewidth = linewidth
    _OPTIONS.sci_mode = sci_mode


def get_printoptions() -> dict[str, Any]:
    """The current print options as a dict, like ``torch._tensor_str.get_printoptions``."""
    return dataclasses.asdict(_OPTIONS)


def format_tensor(
    values: np.ndarray,
    *,
    dtype_name: str,
    default_dtype_name: str = "float32",
    device: str | None = None,
    suffixes: tuple[str, ...] = (),
    options: PrintOptions | None = None,
) -> str:
    """Return PyTorch's ``repr`` text for a tensor holding ``values``.

    Args:
        values: the element values; for bfloat16, already converted to float32.
        dtype_name: PyTorch-style dtype name ("float32", "int64", "bool", ...).
        default_dtype_name: the current default floating dtype.
        device: ``None`` for the CPU, else e.g. ``"mydev:0"``.
        suffixes: pre-formatted trailing items, e.g. ``("requires_grad=True",)``.
        options: print options to use instead of the global ones.

    Examples:
        >>> import numpy as np
        >>> format_tensor(np.array([1.0, 2.5]), dtype_name="float64")
        'tensor([1.0000, 2.5000], dtype=ember.float64)'
        >>> format_tensor(np.zeros((0, 3), np.int32), dtype_name="int32")
        'tensor([], size=(0, 3), dtype=ember.int32)'
    """
    opts = _OPTIONS if options is None else options
    arr = np.asarray(values)
    size_item = "size=" + str(tuple(int(d) for d in arr.shape))
    dtype_item = f"dtype=ember.{dtype_name}"

    items: list[str] = []
    if device is not None:
        items.append(f"device='{device}'")
    if arr.size == 0:
        if arr.ndim != 1:
            items.append(size_item)
        if dtype_name != default_dtype_name:
            items.append(dtype_item)
        body = "[]"
    else:
        if opts.edgeitems == 0:
            items.append(size_item)
        if dtype_name != default_dtype_name and dtype_name not in _IMPLIED_DTYPES:
            items.append(dtype_item)
        floating = dtype_name in _FLOAT_DTYPES or arr.dtype.kind == "f"
        body = _format_body(arr, floating, opts, len(_PREFIX))
    items.extend(suffixes)
    return _join_suffixes(_PREFIX + body, items, opts.linewidth)


def _format_body(arr: np.ndarray, floating: bool, opts: PrintOptions, indent: int) -> str:
    """The bracketed element text of a non-empty tensor."""
    if arr.ndim == 0:
        return str(_element_strings(arr.reshape(1), floating, opts)[0][0])
    summarize = arr.size > opts.threshold
    edge = opts.edgeitems
    if summarize and edge == 0:
        return "[...]"
    cut = tuple(summarize and n > 2 * edge for n in arr.shape)
    shown = arr
    for axis, (n, is_cut) in enumerate(zip(arr.shape, cut)):
        if is_cut:
            keep = np.r_[0:edge, n - edge : n]
            shown = np.take(shown, keep, axis=axis)
    strs, width = _element_strings(shown.reshape(-1), floating, opts)
    per_line = max(1, (opts.linewidth - indent - (arr.ndim - 1)) // (width + 2))
    return _nest(strs.reshape(shown.shape), cut, edge, indent, per_line)


def _element_strings(
    flat: np.ndarray, floating: bool, opts: PrintOptions
) -> tuple[np.ndarray, int]:
    """Format every element of ``flat``; return the right-aligned strings and the width."""
    if not floating:
        strs = flat.astype(str)
        width = int(np.strings.str_len(strs).max())
        return np.strings.rjust(strs, width), width

    x = flat.astype(np.float64)
    finite = np.isfinite(x)
    counted = finite & (x != 0)
    nonzero = x[counted]
    int_mode, sci = True, False
    if nonzero.size:
        mags = np.abs(nonzero)
        lo, hi = float(mags.min()), float(mags.max())
        int_mode = bool(np.all(nonzero == np.ceil(nonzero)))
        with np.errstate(over="ignore"):
            ratio = float(np.float64(hi) / np.float64(lo))
        sci = ratio > 1000.0 or hi > 1.0e8 or (not int_mode and lo < 1.0e-4)
        if opts.sci_mode is not None:
            sci = opts.sci_mode

    if sci:
        strs = np.strings.mod(f"%.{opts.precision}e", x)
    elif int_mode:
        strs = np.strings.mod("%.0f", x)
        strs = np.where(finite, np.strings.add(strs, "."), strs)
    else:
        strs = np.strings.mod(f"%.{opts.precision}f", x)
    width = 1
    if nonzero.size:
        width = max(width, int(np.strings.str_len(strs[counted]).max()))
    return np.strings.rjust(strs, width), width


def _nest(strs: np.ndarray, cut: tuple[bool, ...], edge: int, indent: int, per_line: int) -> str:
    """Bracket ``strs`` (already summarised) recursively, inserting ``...`` where cut."""
    if strs.ndim == 1:
        cells: list[str] = strs.tolist()
        if cut[0]:
            cells[edge:edge] = [" ..."]
        lines = [", ".join(cells[i : i + per_line]) for i in range(0, len(cells), per_line)]
        return "[" + (",\n" + " " * (indent + 1)).join(lines) + "]"
    blocks = [_nest(sub, cut[1:], edge, indent + 1, per_line) for sub in strs]
    if cut[0]:
        blocks[edge:edge] = ["..."]
    return "[" + ("," + "\n" * (strs.ndim - 1) + " " * (indent + 1)).join(blocks) + "]"


def _join_suffixes(text: str, items: list[str], linewidth: int) -> str:
    """Append ``, item`` for each item, wrapping onto an indented line when too long."""
    parts = [text]
    # PyTorch counts two more characters than the last line really holds.
    used = len(text.rsplit("\n", 1)[-1]) + 2
    for item in items:
        if used + len(item) + 2 > linewidth:
            parts.append(",\n" + " " * len(_PREFIX) + item)
            used = len(_PREFIX) + len(item)
        else:
            parts.append(", " + item)
            used += len(item) + 2
    parts.append(")")
    return "".join(parts)
