"""Memory formats and layouts: ``ember.channels_last`` and friends, and the strides they mean.

Owns the ``memory_format`` and ``layout`` types with PyTorch's instances
(``preserve_format``, ``contiguous_format``, ``channels_last``, ``channels_last_3d``;
``strided``), the stride rules a factory follows for each format, and the
contiguity tests behind ``Tensor.is_contiguous(memory_format=...)``.

Must always hold:

* the instances are singletons (compare with ``is``) and pickle by name;
* ``channels_last`` means real NHWC strides (``(H*W*C, 1, W*C, C)`` for NCHW sizes),
  as in PyTorch; kernels accept any strides, so every operator works on such tensors;
* ``preserve_format`` (what ``*_like``, ``clone`` and ``to`` use by default) keeps a
  channels-last input channels-last and gives row-major strides otherwise (Note
  [Preserving layouts]); ``x.to(memory_format=f)`` returns ``x`` itself when its
  strides suggest ``f`` (``suggest_format``, PyTorch's ``suggest_memory_format``).

Note [Preserving layouts]
    PyTorch's ``preserve_format`` copies the strides of any non-overlapping, dense
    input, so ``zeros_like(x.t())`` is transposed there. ember keeps only the
    channels-last layouts (the ones a script asks for by name; PyTorch's rule for inputs
    that are not dense) and makes every other new tensor row-major: code throughout
    ember and in user scripts calls ``.view`` on the results of ``clone``/``zeros_like``,
    which a transposed result would break.
    Values, shapes and dtypes are the same either way; only ``stride()`` can differ.
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "memory_format",
    "layout",
    "preserve_format",
    "contiguous_format",
    "channels_last",
    "channels_last_3d",
    "strided",
    "as_memory_format",
    "format_strides",
    "is_contiguous_as",
    "like_strides",
    "suggest_format",
]


class memory_format:  # noqa: N801 - PyTorch's spelling
    """How a new tensor's elements are laid out in memory, such as ``ember.channels_last``.

    Examples:
        >>> import ember
        >>> ember.channels_last
        ember.channels_last
        >>> isinstance(ember.contiguous_format, ember.memory_format)
        True
    """

    __slots__ = ("name", "_cname", "_rank")

    def __init__(self, name: str, cname: str, rank: int | None) -> None:
        self.name = name
        self._cname = cname  # PyTorch's C++ name, used in its error messages
        self._rank = rank  # the only tensor rank the format applies to (None: any)

    def __repr__(self) -> str:
        return "ember." + self.name

    def __reduce__(self) -> str:
        return self.name  # module-level singleton: unpickles to the same object


class layout:  # noqa: N801 - PyTorch's spelling
    """How a tensor stores its elements; ember tensors are all ``ember.strided`` (dense).

    Examples:
        >>> import ember
        >>> ember.zeros(2).layout
        ember.strided
    """

    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name

    def __repr__(self) -> str:
        return "ember." + self.name

    def __reduce__(self) -> str:
        return self.name


preserve_format = memory_format("preserve_format", "Preserve", None)
contiguous_format = memory_format("contiguous_format", "Contiguous", None)
channels_last = memory_format("channels_last", "ChannelsLast", 4)
channels_last_3d = memory_format("channels_last_3d", "ChannelsLast3d", 5)
strided = layout("strided")

#: schema default names (``MemoryFormat memory_format=contiguous_format``) -> the instance
_BY_NAME = {
    f.name: f for f in (preserve_format, contiguous_format, channels_last, channels_last_3d)
}


def as_memory_format(value: Any, op: str = "empty") -> memory_format:
    """The memory format an argument names: an instance, a schema default name, or None
    (``preserve_format``); TypeError otherwise, naming ``op``."""
    if value is None:
        return preserve_format
    if isinstance(value, memory_format):
        return value
    if isinstance(value, str) and value in _BY_NAME:
        return _BY_NAME[value]
    raise TypeError(
        f"{op}(): argument 'memory_format' must be ember.memory_format, not {type(value).__name__}"
    )


def _check_rank(fmt: memory_format, ndim: int) -> None:
    if fmt._rank is not None and ndim != fmt._rank:
        raise RuntimeError(f"required rank {fmt._rank} tensor to use {fmt.name} format")


def format_strides(shape: tuple[int, ...], fmt: memory_format) -> tuple[int, ...]:
    """Strides of a new tensor of ``shape`` laid out as ``fmt`` (not ``preserve_format``).

    Channels-last orders the channel dim (1) innermost, then the spatial dims from the
    last, then the batch dim; size-0 dims count as 1, as PyTorch's.
    """
    if fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    _check_rank(fmt, len(shape))
    n = len(shape)
    order = list(range(n - 1, -1, -1))  # innermost first
    if fmt is not contiguous_format:
        order = [1, *range(n - 1, 1, -1), 0]
    strides = [0] * n
    acc = 1
    for d in order:
        strides[d] = acc
        acc *= max(shape[d], 1)
    return tuple(strides)


def is_contiguous_as(shape: tuple[int, ...], stride: tuple[int, ...], fmt: memory_format) -> bool:
    """Whether ``shape``/``stride`` is laid out exactly as ``fmt`` (size-1 dims skipped).

    Row-major: any size-0 tensor counts; channels-last: only rank-4 (rank-5 for
    ``channels_last_3d``) tensors count, as in PyTorch.
    """
    if fmt is preserve_format:
        raise RuntimeError("unsupported memory format Preserve")
    n = len(shape)
    if fmt is contiguous_format:
        if 0 in shape:
            return True
        order = list(range(n - 1, -1, -1))
    elif n != fmt._rank:
        return False
    else:
        order = [1, *range(n - 1, 1, -1), 0]
    expected = 1
    for d in order:
        if shape[d] != 1:
            if stride[d] != expected:
                return False
            expected *= shape[d]
    return True


def _strides_like(shape: tuple[int, ...], stride: tuple[int, ...], order: list[int]) -> bool:
    """PyTorch's "strides like channels-last" test: dims in ``order`` have non-decreasing
    strides, with its tie-breaks for ambiguous size-1 dims (N111, N1H1, 1C1W)."""
    low = 0
    if stride[1] == 0:
        return False  # a trivial channel dim: call it row-major
    for d in order:
        if shape[d] == 0 or stride[d] < low:
            return False
        if d == 0 and low == stride[1]:
            return False
        low = stride[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest_format(shape: tuple[int, ...], stride: tuple[int, ...]) -> memory_format:
    """The format a tensor's strides suggest: channels-last (3d) or contiguous, as PyTorch's
    ``suggest_memory_format``.

    Examples:
        >>> from ember.core.memory_format import suggest_format
        >>> suggest_format((2, 3, 4, 5), (60, 1, 15, 3)), suggest_format((2, 3), (3, 1))
        (ember.channels_last, ember.contiguous_format)
    """
    if len(shape) == 4 and _strides_like(shape, stride, [1, 3, 2, 0]):
        return channels_last
    if len(shape) == 5 and _strides_like(shape, stride, [1, 4, 3, 2, 0]):
        return channels_last_3d
    return contiguous_format


def like_strides(
    shape: tuple[int, ...], stride: tuple[int, ...], fmt: memory_format
) -> tuple[int, ...]:
    """Strides for a new tensor shaped like one with ``shape``/``stride``, in ``fmt``.

    ``preserve_format`` follows the format the strides suggest (Note [Preserving layouts]).

    Examples:
        >>> from ember.core.memory_format import like_strides, preserve_format, channels_last
        >>> like_strides((2, 3, 4, 5), (60, 1, 15, 3), preserve_format)
        (60, 1, 15, 3)
        >>> like_strides((3, 2), (1, 3), preserve_format)  # see the Note
        (2, 1)
        >>> like_strides((2, 3, 4, 5), (60, 20, 5, 1), channels_last)
        (60, 1, 15, 3)
    """
    if fmt is preserve_format:
        fmt = suggest_format(shape, stride)
    return format_strides(shape, fmt)
