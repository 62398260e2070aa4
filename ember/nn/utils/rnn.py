"""Variable-length sequences: PackedSequence, pack/pad helpers (``ember.nn.utils.rnn``).

A PackedSequence stores the valid steps of a batch time-major, longest sequence
first: ``data[offset(t) + b]`` is step ``t`` of the ``b``-th longest sequence,
``batch_sizes[t]`` (an int64 tensor on the CPU) counts the sequences longer than
``t``, and ``sorted_indices``/``unsorted_indices`` map between the caller's batch
order and the sorted one. Packing and padding are one ``index_select`` /
``index_copy`` with an index table computed on the host from the lengths, so
gradients flow through both. The recurrent layers accept a PackedSequence.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple

import numpy as np

import ember
from ember.core.tensor import Tensor

__all__ = [
    "PackedSequence",
    "invert_permutation",
    "pack_padded_sequence",
    "pad_packed_sequence",
    "pad_sequence",
    "unpad_sequence",
    "pack_sequence",
    "unpack_sequence",
]


class _PackedBase(NamedTuple):
    data: Tensor
    batch_sizes: Tensor
    sorted_indices: Tensor | None
    unsorted_indices: Tensor | None


class PackedSequence(_PackedBase):
    """The packed steps of a batch of variable-length sequences (see the module docstring).

    Examples:
        >>> import ember
        >>> from ember.nn.utils.rnn import pack_sequence
        >>> p = pack_sequence([ember.tensor([1.0, 2.0, 3.0]), ember.tensor([4.0])])
        >>> p.data.tolist(), p.batch_sizes.tolist()
        ([1.0, 4.0, 2.0, 3.0], [2, 1, 1])
    """

    def __new__(
        cls, data: Tensor, batch_sizes: Tensor | None = None,
        sorted_indices: Tensor | None = None, unsorted_indices: Tensor | None = None,
    ) -> PackedSequence:  # fmt: skip
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = invert_permutation(sorted_indices)
        if batch_sizes is None:  # PyTorch's (data, batch_sizes) tuple form
            data, batch_sizes = data
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args: Any, **kwargs: Any) -> PackedSequence:
        """The same sequence with ``data`` (and the indices, for a device) moved or cast."""
        data = self.data.to(*args, **kwargs)
        if data is self.data:
            return self
        dev = data.device
        idx = [
            i.to(dev) if i is not None else None
            for i in (self.sorted_indices, self.unsorted_indices)
        ]
        return type(self)(data, self.batch_sizes, idx[0], idx[1])

    def cpu(self) -> PackedSequence:
        return self.to("cpu")

    def double(self) -> PackedSequence:
        return self.to(ember.float64)

    def float(self) -> PackedSequence:
        return self.to(ember.float32)

    def half(self) -> PackedSequence:
        return self.to(ember.float16)

    @property
    def is_cuda(self) -> bool:
        return self.data.device.type == "cuda"

    def is_pinned(self) -> bool:
        return False


def invert_permutation(permutation: Tensor | None) -> Tensor | None:
    """The inverse of a permutation of ``range(n)``.

    Examples:
        >>> import ember
        >>> from ember.nn.utils.rnn import invert_permutation
        >>> invert_permutation(ember.tensor([2, 0, 1])).tolist()
        [1, 2, 0]
    """
    if permutation is None:
        return None
    n = permutation.shape[0]
    out = ember.empty_like(permutation)
    return out.scatter(0, permutation, ember.arange(n, device=permutation.device))


def _host_lengths(lengths: Any) -> np.ndarray:
    if isinstance(lengths, Tensor):
        return np.asarray(lengths.detach().to("cpu").tolist(), dtype=np.int64).reshape(-1)
    return np.asarray(list(lengths), dtype=np.int64).reshape(-1)


def _pack_index(sorted_lengths: np.ndarray, batch: int) -> np.ndarray:
    """Flat time-major indices ``t * batch + b`` of the valid steps, in packed order."""
    steps = int(sorted_lengths[0]) if len(sorted_lengths) else 0
    valid = np.arange(steps)[:, None] < sorted_lengths[None, :]
    t, b = np.nonzero(valid)
    return t * batch + b


def _sorted_lengths(batch_sizes: Tensor) -> np.ndarray:
    sizes = _host_lengths(batch_sizes)
    return (np.arange(int(sizes[0]))[None, :] < sizes[:, None]).sum(0)


def _packed_data(padded: Tensor, batch_sizes: Tensor, sorted_indices: Tensor | None) -> Tensor:
    """The ``data`` of a (T, B, *) time-major batch packed with ``batch_sizes`` and order."""
    x = padded.index_select(1, sorted_indices) if sorted_indices is not None else padded
    steps, batch = x.shape[0], x.shape[1]
    idx = ember.from_numpy(_pack_index(_sorted_lengths(batch_sizes), batch)).to(x.device)
    return x.reshape(steps * batch, *x.shape[2:]).index_select(0, idx)


def pack_padded_sequence(
    input: Tensor, lengths: Any, batch_first: bool = False, enforce_sorted: bool = True
) -> PackedSequence:
    """Pack a padded (T, B, *) (or (B, T, *) with ``batch_first``) batch of sequences.

    Examples:
        >>> import ember
        >>> from ember.nn.utils.rnn import pack_padded_sequence
        >>> x = ember.tensor([[1.0, 4.0], [2.0, 0.0], [3.0, 0.0]])  # (T=3, B=2)
        >>> pack_padded_sequence(x, [3, 1]).data.tolist()
        [1.0, 4.0, 2.0, 3.0]
    """
    lens = _host_lengths(lengths)
    if (lens <= 0).any():
        raise RuntimeError(
            "Length of all samples has to be greater than 0, but found an element in 'lengths' "
            "that is <= 0"
        )
    if enforce_sorted:
        if (np.diff(lens) > 0).any():
            raise RuntimeError(
                "`lengths` array must be sorted in decreasing order when `enforce_sorted` is "
                "True. You can pass `enforce_sorted=False` to pack_padded_sequence and/or "
                "pack_sequence to sidestep this requirement if you do not need ONNX "
                "exportability."
            )
        order = None
        sorted_lens = lens
    else:
        order_np = np.argsort(-lens, kind="stable")
        sorted_lens = lens[order_np]
        order = ember.from_numpy(order_np.astype(np.int64)).to(input.device)
    x = input.transpose(0, 1) if batch_first else input
    steps, batch = x.shape[0], x.shape[1]
    if len(lens) != batch:
        raise RuntimeError(
            f"Expected `len(lengths)` to be equal to batch_size, but got {len(lens)} "
            f"(batch_size={batch})"
        )
    if int(sorted_lens[0]) > steps:
        raise RuntimeError(
            f"Start ({steps}) + length ({int(sorted_lens[0]) - steps}) exceeds dimension size "
            f"({steps})."
        )
    batch_sizes = (np.arange(int(sorted_lens[0]))[:, None] < sorted_lens[None, :]).sum(1)
    sizes = ember.from_numpy(batch_sizes.astype(np.int64))
    return PackedSequence(_packed_data(x, sizes, order), sizes, order, None)


def pad_packed_sequence(
    sequence: PackedSequence, batch_first: bool = False, padding_value: float = 0.0,
    total_length: int | None = None,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """The inverse of ``pack_padded_sequence``: (padded, lengths) in the caller's batch order.

    Examples:
        >>> import ember
        >>> from ember.nn.utils.rnn import pack_sequence, pad_packed_sequence
        >>> p = pack_sequence([ember.tensor([1.0]), ember.tensor([2.0, 3.0])], enforce_sorted=False)
        >>> padded, lengths = pad_packed_sequence(p, batch_first=True)
        >>> padded.tolist(), lengths.tolist()
        ([[1.0, 0.0], [2.0, 3.0]], [1, 2])
    """
    data = sequence.data
    sizes = _host_lengths(sequence.batch_sizes)
    steps, batch = len(sizes), int(sizes[0])
    if total_length is not None:
        if total_length < steps:
            raise ValueError(
                "Expected total_length to be at least the length of the longest sequence in "
                f"input, but got total_length={total_length} and max sequence length being {steps}"
            )
        steps = total_length
    sorted_lens = _sorted_lengths(sequence.batch_sizes)
    idx = ember.from_numpy(_pack_index(sorted_lens, batch)).to(data.device)
    base = ember.full(
        (steps * batch, *data.shape[1:]), padding_value, dtype=data.dtype, device=data.device
    )
    padded = base.index_copy(0, idx, data).reshape(steps, batch, *data.shape[1:])
    lengths = sorted_lens
    if sequence.unsorted_indices is not None:
        padded = padded.index_select(1, sequence.unsorted_indices)
        lengths = sorted_lens[_host_lengths(sequence.unsorted_indices)]
    if batch_first:
        padded = padded.transpose(0, 1)
    return padded, ember.from_numpy(np.ascontiguousarray(lengths, dtype=np.int64))


def pad_sequence(
    sequences: Tensor | Sequence[Tensor], batch_first: bool = False, padding_value: float = 0.0,
    padding_side: str = "right",
) -> Tensor:  # fmt: skip
    """Stack tensors of shapes (L_i, *) into (max L, B, *) (or (B, max L, *)), padding each.

    Examples:
        >>> import ember
        >>> from ember.nn.utils.rnn import pad_sequence
        >>> pad_sequence([ember.tensor([1.0]), ember.tensor([2.0, 3.0])], batch_first=True).tolist()
        [[1.0, 0.0], [2.0, 3.0]]
    """
    if padding_side not in ("left", "right"):
        raise ValueError(
            f"Expected padding_side to be one of left or right, but got {padding_side}."
        )
    seqs = list(sequences.unbind(0)) if isinstance(sequences, Tensor) else list(sequences)
    if not seqs:
        raise RuntimeError("received an empty list of sequences")
    longest = max(s.shape[0] for s in seqs)
    rows = []
    for s in seqs:
        extra = longest - s.shape[0]
        if extra:
            fill = ember.full((extra, *s.shape[1:]), padding_value, dtype=s.dtype, device=s.device)
            s = ember.cat([s, fill] if padding_side == "right" else [fill, s], 0)
        rows.append(s)
    return ember.stack(rows, 0 if batch_first else 1)


def unpad_sequence(
    padded_sequences: Tensor, lengths: Any, batch_first: bool = False
) -> list[Tensor]:
    """Split a padded batch back into its sequences of ``lengths``."""
    x = padded_sequences if batch_first else padded_sequences.transpose(0, 1)
    return [x[i, : int(n)] for i, n in enumerate(_host_lengths(lengths))]


def pack_sequence(sequences: Sequence[Tensor], enforce_sorted: bool = True) -> PackedSequence:
    """Pack a list of (L_i, *) tensors (longest first unless ``enforce_sorted=False``)."""
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


def unpack_sequence(packed_sequences: PackedSequence) -> list[Tensor]:
    """The list of sequences of a PackedSequence, in the caller's original order."""
    padded, lengths = pad_packed_sequence(packed_sequences, batch_first=True)
    return unpad_sequence(padded, lengths, batch_first=True)
