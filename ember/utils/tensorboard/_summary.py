"""The ``Summary`` messages ``SummaryWriter`` writes: scalars, histograms, text, images, hparams.

Each function returns the serialized body of one ``Summary`` (``_proto`` encodes it) holding
what ``torch.utils.tensorboard`` writes for the same call, so TensorBoard shows both alike:
scalars as ``simple_value`` (or a ``scalars``-plugin tensor with ``new_style``), text as a
``text``-plugin string tensor tagged ``<tag>/text_summary``, histograms as a
``HistogramProto`` over TensorFlow's default bucket edges trimmed to the occupied buckets
(each bucket given by its right edge, after one empty bucket on the left), images as PNG
(encoded here with ``zlib``), hparams as the ``hparams`` plugin's three messages.

Must always hold: values are converted to NumPy on the host first (ember tensors through
``detach().cpu()``), so nothing here records autograd history or runs on a device.

Examples:
    >>> from ember.utils.tensorboard import _proto
    >>> _proto.decode(scalar("loss", 0.25))[0][0]   # field 1 of Summary: one value
    1
"""

from __future__ import annotations

import struct
import zlib
from collections.abc import Sequence
from typing import Any

import numpy as np

from ember.utils.tensorboard import _proto as pb

__all__ = ["to_numpy", "scalar", "histogram", "histogram_raw", "text", "image", "hparams", "png"]


def to_numpy(x: Any) -> np.ndarray:
    """``x`` (an ember or torch tensor, an array, a number or a list) as a NumPy array."""
    if hasattr(x, "detach") and hasattr(x, "cpu"):
        t = x.detach().cpu()
        if str(getattr(t, "dtype", "")).endswith("bfloat16"):
            t = t.float()
        return np.asarray(t.numpy())
    return np.asarray(x)


def _value(tag: str, body: bytes) -> bytes:
    """A ``Summary`` with one ``Summary.Value`` (``body``: the value's fields after ``tag``)."""
    return pb.submessage(1, pb.string(1, tag) + body)


def _metadata(plugin: str, content: bytes = b"") -> bytes:
    return pb.submessage(9, pb.submessage(1, pb.string(1, plugin) + pb.string(2, content)))


def scalar(tag: str, value: Any, new_style: bool = False, double_precision: bool = False) -> bytes:
    """One scalar; ``value`` must hold exactly one element (AssertionError, as torch)."""
    arr = to_numpy(value).squeeze()
    if arr.ndim != 0:
        raise AssertionError(
            f"Tensor should contain one element (0 dimensions). Was given size: {arr.size} "
            f"and {arr.ndim} dimensions."
        )
    v = float(arr)
    if not new_style:
        return _value(tag, pb.float32(2, v, always=True))
    if double_precision:
        tensor = pb.uint(1, pb.DT_DOUBLE) + pb.packed_doubles(6, [v])
    else:
        tensor = pb.uint(1, pb.DT_FLOAT) + pb.packed_floats(5, [v])
    return _value(tag, pb.submessage(8, tensor) + _metadata("scalars"))


def text(tag: str, text_string: str) -> bytes:
    """A ``text``-plugin summary: a 1-element string tensor tagged ``<tag>/text_summary``."""
    shape = pb.submessage(2, pb.submessage(2, pb.uint(1, 1)))
    tensor = pb.uint(1, pb.DT_STRING) + shape + pb.string(8, text_string, always=True)
    return _value(tag + "/text_summary", pb.submessage(8, tensor) + _metadata("text"))


def _tensorflow_bins() -> list[float]:
    """TensorFlow's default histogram edges: ``±1e-12 * 1.1**k`` below ``1e20``, and 0."""
    pos = []
    v = 1e-12
    while v < 1e20:
        pos.append(v)
        v *= 1.1
    return [-x for x in reversed(pos)] + [0.0] + pos


DEFAULT_BINS = _tensorflow_bins()


def histogram_raw(
    tag: str,
    min: float,  # noqa: A002 - torch's parameter names
    max: float,  # noqa: A002
    num: float,
    sum: float,  # noqa: A002
    sum_squares: float,
    bucket_limits: Sequence[float],
    bucket_counts: Sequence[float],
) -> bytes:
    histo = (
        pb.double(1, min)
        + pb.double(2, max)
        + pb.double(3, num)
        + pb.double(4, sum)
        + pb.double(5, sum_squares)
        + pb.packed_doubles(6, [float(x) for x in bucket_limits])
        + pb.packed_doubles(7, [float(x) for x in bucket_counts])
    )
    return _value(tag, pb.submessage(5, histo))


def histogram(
    tag: str, values: Any, bins: Any = "tensorflow", max_bins: int | None = None
) -> bytes:
    """A histogram of ``values`` with NumPy's ``bins`` (``'tensorflow'``: the default edges)."""
    vals = to_numpy(values).astype(float).reshape(-1)
    if vals.size == 0:
        raise ValueError("The input has no element.")
    if isinstance(bins, str) and bins == "tensorflow":
        bins = DEFAULT_BINS
    counts, edges = np.histogram(vals, bins=bins)
    if max_bins is not None and len(counts) > max_bins:
        group = len(counts) // max_bins  # merge runs of `group` neighbouring buckets
        pad = (-len(counts)) % group
        counts = np.pad(counts, (0, pad)).reshape(-1, group).sum(axis=1)
        edges = np.append(edges[:-1:group], edges[-1])
    occupied = np.flatnonzero(counts)
    if occupied.size == 0:
        raise ValueError(f"the histogram of '{tag}' is empty: no value falls in any bucket")
    first, last = int(occupied[0]), int(occupied[-1])
    limits = edges[first : last + 2]  # the left edge of the first bucket, then right edges
    buckets = np.concatenate([[0], counts[first : last + 1]])
    return histogram_raw(
        tag,
        float(vals.min()),
        float(vals.max()),
        float(vals.size),
        float(vals.sum()),
        float(vals.dot(vals)),
        limits.tolist(),
        buckets.tolist(),
    )


def _grid(nchw: np.ndarray, ncols: int = 8) -> np.ndarray:
    """Tile N images (N, C, H, W) into one CHW image, ``ncols`` to a row, as torch does."""
    if nchw.shape[1] == 1:
        nchw = np.concatenate([nchw] * 3, axis=1)
    if nchw.ndim != 4 or nchw.shape[1] != 3:
        raise AssertionError("Input should be a 4D numpy array with 3 channels")
    n, c, h, w = nchw.shape
    cols = min(n, ncols)
    rows = -(-n // cols)
    canvas = np.zeros((c, h * rows, w * cols), dtype=nchw.dtype)
    for i in range(n):
        r, q = divmod(i, cols)
        canvas[:, r * h : (r + 1) * h, q * w : (q + 1) * w] = nchw[i]
    return canvas


def to_hwc(arr: np.ndarray, dataformats: str) -> np.ndarray:
    """An image array in ``dataformats`` (``NCHW``, ``CHW``, ``HWC``, ``HW``...) as HWC."""
    fmt = dataformats.upper()
    if len(set(fmt)) != len(fmt):
        raise AssertionError(f"You can not use the same dimension shorthand twice: {dataformats}")
    if arr.ndim != len(fmt):
        raise AssertionError(
            f"size of input tensor and input format are different. tensor shape: {arr.shape}, "
            f"input_format: {dataformats}"
        )
    if len(fmt) == 4:
        return _grid(arr.transpose([fmt.find(c) for c in "NCHW"])).transpose(1, 2, 0)
    if len(fmt) == 3:
        hwc = arr.transpose([fmt.find(c) for c in "HWC"])
        return np.concatenate([hwc] * 3, axis=2) if hwc.shape[2] == 1 else hwc
    hw = arr.transpose([fmt.find(c) for c in "HW"])
    return np.stack([hw] * 3, axis=2)


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


def png(hwc: np.ndarray) -> bytes:
    """PNG bytes of a uint8 image (H, W, C) with C = 1 (grey), 3 (RGB) or 4 (RGBA).

    Examples:
        >>> import numpy as np
        >>> png(np.zeros((2, 3, 3), np.uint8))[:8]
        b'\\x89PNG\\r\\n\\x1a\\n'
    """
    h, w, c = hwc.shape
    colour = {1: 0, 2: 4, 3: 2, 4: 6}[c]
    rows = np.ascontiguousarray(hwc, dtype=np.uint8).reshape(h, w * c)
    raw = np.concatenate([np.zeros((h, 1), np.uint8), rows], axis=1).tobytes()  # filter 0
    header = struct.pack(">IIBBBBB", w, h, 8, colour, 0, 0, 0)
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + _chunk(b"IDAT", zlib.compress(raw, 6))
        + _chunk(b"IEND", b"")
    )


def image(tag: str, img: Any, rescale: float = 1, dataformats: str = "NCHW") -> bytes:
    """An image summary: floats are taken in [0, 1] and uint8 in [0, 255], clipped, as PNG.

    ``rescale`` other than 1 resizes by nearest neighbour (torch resamples with Lanczos).
    """
    arr = to_hwc(to_numpy(img), dataformats)
    scale = 1 if arr.dtype == np.uint8 else 255
    u8 = (arr.astype(np.float32) * scale).clip(0, 255).astype(np.uint8)
    h, w, c = u8.shape
    if rescale != 1:
        ys = (np.arange(int(h * rescale)) / rescale).astype(int)
        xs = (np.arange(int(w * rescale)) / rescale).astype(int)
        u8 = u8[ys][:, xs]
    body = pb.uint(1, h) + pb.uint(2, w) + pb.uint(3, c) + pb.string(4, png(u8))
    return _value(tag, pb.submessage(4, body))


def _struct_value(v: Any) -> bytes:
    """A ``google.protobuf.Value``: number (2), string (3) or bool (4)."""
    if isinstance(v, str):
        return pb.string(3, v, always=True)
    if isinstance(v, bool):
        return pb.uint(4, v, always=True)
    return pb.double(2, float(v), always=True)


def _number_value(v: Any) -> bytes:
    return pb.double(2, float(v), always=True)


def _hparams_summary(tag: str, field: int, body: bytes) -> bytes:
    content = pb.submessage(field, body)  # HParamsPluginData{version=0, <field>=body}
    return pb.submessage(1, pb.string(1, tag) + _metadata("hparams", content))


def hparams(
    hparam_dict: dict[str, Any],
    metric_dict: dict[str, Any],
    hparam_domain_discrete: dict[str, list[Any]] | None = None,
) -> tuple[bytes, bytes, bytes]:
    """The ``hparams`` plugin's experiment, session-start and session-end summaries."""
    if not isinstance(hparam_dict, dict) or not isinstance(metric_dict, dict):
        raise TypeError("hparam_dict and metric_dict should be dictionary.")
    domains = hparam_domain_discrete or {}
    if not isinstance(domains, dict):
        raise TypeError("parameter: hparam_domain_discrete should be a dictionary, nothing logged.")
    for k, vs in domains.items():
        if (
            k not in hparam_dict
            or not isinstance(vs, list)
            or not all(isinstance(d, type(hparam_dict[k])) for d in vs)
        ):
            raise TypeError(
                f"parameter: hparam_domain_discrete[{k}] should be a list of same type as "
                f"hparam_dict[{k}]."
            )
    infos, entries = b"", b""
    for k, v in hparam_dict.items():
        if v is None:
            continue
        if hasattr(v, "detach"):
            v = float(to_numpy(v).reshape(-1)[0])
        # torch tests int/float before bool, so a bool hparam is recorded as a number
        if isinstance(v, (int, float)):
            kind, encode = 3, _number_value  # DATA_TYPE_FLOAT64
        elif isinstance(v, str):
            kind, encode = 1, _struct_value  # DATA_TYPE_STRING
        else:
            raise ValueError("value should be one of int, float, str, bool, or torch.Tensor")
        entries += pb.submessage(1, pb.string(1, k) + pb.submessage(2, encode(v)))
        info = pb.string(1, k) + pb.uint(4, kind)
        if k in domains:
            listed = b"".join(pb.submessage(1, encode(d)) for d in domains[k])
            info += pb.submessage(5, listed)
        infos += pb.submessage(4, info)
    metrics = b"".join(pb.submessage(5, pb.submessage(1, pb.string(2, k))) for k in metric_dict)
    return (
        _hparams_summary("_hparams_/experiment", 2, infos + metrics),
        _hparams_summary("_hparams_/session_start_info", 3, entries),
        _hparams_summary("_hparams_/session_end_info", 4, pb.uint(1, 1)),  # STATUS_SUCCESS
    )
