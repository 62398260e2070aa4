"""Samplers: which indices a DataLoader visits, and how they are grouped into batches.

Random order comes from an ember Generator: a 62-bit seed is drawn from it on
each ``__iter__`` and seeds numpy's PCG64 for the permutation, so a seeded
generator reproduces the order (PyTorch's exact permutations are not
reproduced).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence, Sized
from typing import Any

import numpy as np

import ember
from ember.operators.generator import Generator

__all__ = [
    "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
    "WeightedRandomSampler", "BatchSampler",
]  # fmt: skip


def _rng(generator: Generator | None) -> np.random.Generator:
    seed = ember.randint(0, 2**62, (1,), generator=generator).item()
    return np.random.default_rng(int(seed))


def _permutation(n: int, generator: Generator | None) -> list[int]:
    return _rng(generator).permutation(n).tolist()  # type: ignore[no-any-return]


class Sampler:
    """Base class of samplers: an iterable of dataset indices (or of batches of them).

    Subclass it and implement ``__iter__`` (and ``__len__`` when it is known); a
    :class:`DataLoader` takes one as ``sampler`` (indices) or ``batch_sampler`` (lists).

    Args:
        data_source: accepted for compatibility and ignored, as in PyTorch.

    Examples:
        >>> from ember.utils.data import Sampler
        >>> class Evens(Sampler):
        ...     def __init__(self, n):
        ...         self.n = n
        ...     def __iter__(self):
        ...         return iter(range(0, self.n, 2))
        >>> list(Evens(7))
        [0, 2, 4, 6]
    """

    def __init__(self, data_source: Any = None) -> None:
        pass

    def __iter__(self) -> Iterator[Any]:
        raise NotImplementedError


class SequentialSampler(Sampler):
    """Yield the indices ``0, 1, ..., len(data_source) - 1`` in order.

    What a :class:`DataLoader` uses without ``shuffle``.

    Args:
        data_source: the dataset (anything with a length).

    Examples:
        >>> from ember.utils.data import SequentialSampler
        >>> list(SequentialSampler("abc"))
        [0, 1, 2]
    """

    def __init__(self, data_source: Sized) -> None:
        self.data_source = data_source

    def __iter__(self) -> Iterator[int]:
        return iter(range(len(self.data_source)))

    def __len__(self) -> int:
        return len(self.data_source)


class RandomSampler(Sampler):
    """Yield the indices in a random order (or ``num_samples`` draws with replacement).

    What a :class:`DataLoader` uses with ``shuffle=True``; each pass draws a new order.

    Args:
        data_source: the dataset (anything with a length).
        replacement: draw with replacement. Default: False.
        num_samples: how many indices to yield; default ``len(data_source)``. Without
            replacement, a larger number yields whole permutations one after another.
        generator: the random generator; default: ember's global one. Default: None.

    Raises:
        TypeError: ``replacement`` is not a bool.
        ValueError: ``num_samples`` is not a positive int.

    Note:
        Orders are reproducible under a seed but differ from the ones PyTorch draws.

    Examples:
        >>> import ember
        >>> from ember.utils.data import RandomSampler
        >>> a = list(RandomSampler(range(5), generator=ember.Generator().manual_seed(0)))
        >>> b = list(RandomSampler(range(5), generator=ember.Generator().manual_seed(0)))
        >>> a == b, sorted(a)
        (True, [0, 1, 2, 3, 4])
    """

    def __init__(
        self, data_source: Sized, replacement: bool = False, num_samples: int | None = None,
        generator: Generator | None = None,
    ) -> None:  # fmt: skip
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got "
                f"num_samples={self.num_samples}"
            )

    @property
    def num_samples(self) -> int:
        """The number of indices one pass yields (``len(data_source)`` unless given)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self) -> Iterator[int]:
        n = len(self.data_source)
        rng = _rng(self.generator)
        if self.replacement:
            # drawn in blocks as they are consumed: num_samples may be far beyond memory
            # (scripts pass int(1e10) to mean "forever")
            left = self.num_samples
            while left > 0:
                block = min(left, _REPLACEMENT_BLOCK)
                yield from rng.integers(0, n, block).tolist()
                left -= block
            return
        for _ in range(self.num_samples // n):
            yield from rng.permutation(n).tolist()
        yield from rng.permutation(n)[: self.num_samples % n].tolist()

    def __len__(self) -> int:
        return self.num_samples


#: how many indices RandomSampler(replacement=True) draws at a time
_REPLACEMENT_BLOCK = 4096


class SubsetRandomSampler(Sampler):
    """The given indices in a random order (a new permutation on every pass).

    Examples:
        >>> import ember
        >>> from ember.utils.data import SubsetRandomSampler
        >>> sorted(SubsetRandomSampler([3, 5, 7], generator=ember.Generator().manual_seed(0)))
        [3, 5, 7]
    """

    def __init__(self, indices: Sequence[int], generator: Generator | None = None) -> None:
        self.indices = indices
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        for i in _rng(self.generator).permutation(len(self.indices)).tolist():
            yield self.indices[i]

    def __len__(self) -> int:
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices drawn with probabilities proportional to ``weights``
    (with replacement by default), e.g. to oversample rare classes.

    Examples:
        >>> import ember
        >>> from ember.utils.data import WeightedRandomSampler
        >>> g = ember.Generator().manual_seed(0)
        >>> s = WeightedRandomSampler([0.0, 1.0, 0.0], 4, generator=g)
        >>> list(s)
        [1, 1, 1, 1]
    """

    def __init__(
        self, weights: Any, num_samples: int, replacement: bool = True,
        generator: Generator | None = None,
    ) -> None:  # fmt: skip
        if isinstance(num_samples, bool) or not isinstance(num_samples, int) or num_samples <= 0:
            raise ValueError(
                f"num_samples should be a positive integer value, but got num_samples={num_samples}"
            )
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}"
            )
        w = np.asarray(weights.tolist() if hasattr(weights, "tolist") else weights, np.float64)
        if w.ndim != 1:
            raise ValueError(
                f"weights should be a 1d sequence but given weights have shape {tuple(w.shape)}"
            )
        if (w < 0).any() or not np.isfinite(w).all() or w.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and num_samples > len(w):
            raise RuntimeError(
                "cannot sample n_sample > prob_dist.size(-1) samples without replacement"
            )
        self.weights = ember.tensor(w, dtype=ember.float64)
        self._p = w / w.sum()
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self) -> Iterator[int]:
        rng = _rng(self.generator)
        yield from rng.choice(len(self._p), self.num_samples, self.replacement, self._p).tolist()

    def __len__(self) -> int:
        return self.num_samples


class BatchSampler(Sampler):
    """Group another sampler's indices into lists of ``batch_size``.

    Examples:
        >>> from ember.utils.data import BatchSampler, SequentialSampler
        >>> list(BatchSampler(SequentialSampler(range(5)), 2, drop_last=False))
        [[0, 1], [2, 3], [4]]
    """

    def __init__(self, sampler: Iterable[int], batch_size: int, drop_last: bool) -> None:
        if isinstance(batch_size, bool) or not isinstance(batch_size, int) or batch_size <= 0:
            raise ValueError(
                f"batch_size should be a positive integer value, but got batch_size={batch_size}"
            )
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self) -> Iterator[list[int]]:
        batch: list[int] = []
        for i in self.sampler:
            batch.append(i)
            if len(batch) == self.batch_size:
                yield batch
                batch = []
        if batch and not self.drop_last:
            yield batch

    def __len__(self) -> int:
        n = len(self.sampler)  # type: ignore[arg-type]
        return n // self.batch_size if self.drop_last else -(-n // self.batch_size)
