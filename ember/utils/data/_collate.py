"""``default_collate``/``default_convert`` and the numpy bridge used by worker processes.

Tensors are stacked on the host with numpy (the core has no ``stack`` yet) and
returned on the first sample's device. Across a process boundary ember tensors
travel as ``_HostArray`` (numpy data plus dtype name) and are rebuilt in the
main process; nothing else is converted.
"""

from __future__ import annotations

import collections.abc as cabc
from typing import Any

import numpy as np

import ember
from ember.core.tensor import Tensor

__all__ = ["default_collate", "default_convert"]


def _stack(ts: list[Tensor]) -> Tensor:
    host = np.stack([t.numpy(force=True) if t.requires_grad else np.asarray(t) for t in ts])
    out = ember.from_numpy(np.ascontiguousarray(host))
    if out.dtype != ts[0].dtype:
        out = out.to(ts[0].dtype)
    return out if ts[0].device.type == "cpu" else out.to(ts[0].device)


def default_collate(batch: list[Any]) -> Any:
    """Merge a list of samples into a batch, recursing through tuples, lists and dicts.

    Examples:
        >>> import ember
        >>> from ember.utils.data import default_collate
        >>> b = default_collate([(ember.tensor([1, 2]), 0), (ember.tensor([3, 4]), 1)])
        >>> b[0].tolist(), b[1].tolist()
        ([[1, 2], [3, 4]], [0, 1])
    """
    elem = batch[0]
    if isinstance(elem, Tensor):
        return _stack(batch)
    if isinstance(elem, np.ndarray):
        if elem.dtype.kind in "OUS":
            raise TypeError(
                "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or "
                f"lists; found {elem.dtype}"
            )
        return ember.from_numpy(np.ascontiguousarray(np.stack(batch)))
    if isinstance(elem, np.generic):
        return ember.from_numpy(np.array(batch))
    if isinstance(elem, bool):
        return ember.tensor(batch)
    if isinstance(elem, float):
        return ember.tensor(batch, dtype=ember.float64)
    if isinstance(elem, int):
        return ember.tensor(batch)
    if isinstance(elem, (str, bytes)):
        return batch
    if isinstance(elem, cabc.Mapping):
        return {k: default_collate([d[k] for d in batch]) for k in elem}
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):
        return type(elem)(*(default_collate(list(s)) for s in zip(*batch)))
    if isinstance(elem, cabc.Sequence):
        if any(len(e) != len(elem) for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        cols = [default_collate(list(s)) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return cols
        try:
            return type(elem)(cols)  # type: ignore[call-arg]
        except TypeError:
            return cols
    raise TypeError(
        "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; "
        f"found {type(elem)}"
    )


def default_convert(data: Any) -> Any:
    """Turn numpy arrays into tensors, recursing through containers, without batching.

    What a :class:`DataLoader` applies to each sample when ``batch_size=None``. Mappings
    keep their keys, named tuples their type, other tuples become lists; arrays of
    strings or objects, and everything else, are returned unchanged.

    Args:
        data: a sample: an array, a container of arrays, or anything else.

    Returns:
        ``data`` with each numeric numpy array replaced by a tensor sharing its memory.

    Examples:
        >>> import numpy as np
        >>> from ember.utils.data import default_convert
        >>> default_convert([np.arange(3), (1, 2)])
        [tensor([0, 1, 2]), [1, 2]]
    """
    if isinstance(data, np.ndarray) and data.dtype.kind not in "OUS":
        return ember.from_numpy(data)
    if isinstance(data, cabc.Mapping):
        return {k: default_convert(v) for k, v in data.items()}
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return type(data)(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, list):
        return [default_convert(d) for d in data]
    return data


class _HostArray:
    __slots__ = ("array", "dtype")

    def __init__(self, array: np.ndarray, dtype: str) -> None:
        self.array = array
        self.dtype = dtype


def to_host(obj: Any) -> Any:
    """Replace ember tensors in ``obj`` by picklable ``_HostArray``s (worker side)."""
    if isinstance(obj, Tensor):
        return _HostArray(np.array(obj.detach().numpy(force=True)), obj.dtype.name)
    if isinstance(obj, dict):
        return {k: to_host(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(to_host(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(to_host(v) for v in obj)
    return obj


def from_host(obj: Any) -> Any:
    """Inverse of ``to_host`` (main-process side)."""
    if isinstance(obj, _HostArray):
        t = ember.from_numpy(obj.array)
        return t if t.dtype.name == obj.dtype else t.to(getattr(ember, obj.dtype))
    if isinstance(obj, dict):
        return {k: from_host(v) for k, v in obj.items()}
    if isinstance(obj, tuple) and hasattr(obj, "_fields"):
        return type(obj)(*(from_host(v) for v in obj))
    if isinstance(obj, (list, tuple)):
        return type(obj)(from_host(v) for v in obj)
    return obj
