"""Datasets: the map-style ``Dataset`` and iterable ``IterableDataset`` protocols,
TensorDataset, StackDataset, ConcatDataset, ChainDataset, Subset and random_split.

A map-style dataset implements ``__getitem__(index)`` and ``__len__``; an iterable one
implements ``__iter__`` (the DataLoader gives each worker its own copy and iterator).
``random_split`` draws its permutation from an ember Generator, so a seeded
generator gives the same split run to run.
"""

from __future__ import annotations

import bisect
import itertools
import math
from collections.abc import Iterable, Sequence
from typing import Any, Generic, TypeVar

from ember.core.tensor import Tensor
from ember.operators.generator import Generator
from ember.utils.data.sampler import _permutation

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
    "ChainDataset", "Subset", "random_split",
]  # fmt: skip

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """Base class of map-style datasets: samples looked up by index.

    Subclass it and implement ``__getitem__(index)`` and, for the default samplers,
    ``__len__``. ``a + b`` concatenates two datasets (a :class:`ConcatDataset`).

    Examples:
        >>> import ember
        >>> from ember.utils.data import DataLoader, Dataset
        >>> class Squares(Dataset):
        ...     def __len__(self):
        ...         return 4
        ...     def __getitem__(self, i):
        ...         return ember.tensor([float(i * i)])
        >>> [b.tolist() for b in DataLoader(Squares(), batch_size=2)]
        [[[0.0], [1.0]], [[4.0], [9.0]]]
        >>> len(Squares() + Squares())
        8
    """

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[Any]) -> ConcatDataset[Any]:
        return ConcatDataset([self, other])


class IterableDataset(Dataset[T_co]):
    """Base class of iterable-style datasets (implement ``__iter__``).

    Examples:
        >>> import ember
        >>> from ember.utils.data import DataLoader, IterableDataset
        >>> class Stream(IterableDataset):
        ...     def __iter__(self):
        ...         return iter(range(5))
        >>> [b.tolist() for b in DataLoader(Stream(), batch_size=2)]
        [[0, 1], [2, 3], [4]]
    """

    def __iter__(self) -> Any:
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other: Dataset[Any]) -> ChainDataset:  # type: ignore[override]
        return ChainDataset([self, other])


class TensorDataset(Dataset[tuple[Tensor, ...]]):
    """Samples are ``tuple(t[i] for t in tensors)``; all tensors share their first dim.

    Examples:
        >>> import ember
        >>> ds = ember.utils.data.TensorDataset(ember.arange(4), ember.zeros(4, 2))
        >>> len(ds), ds[1][0].item()
        (4, 1)
    """

    def __init__(self, *tensors: Tensor) -> None:
        if any(tensors[0].shape[0] != t.shape[0] for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index: Any) -> tuple[Tensor, ...]:
        return tuple(t[index] for t in self.tensors)

    def __len__(self) -> int:
        return self.tensors[0].shape[0]


class StackDataset(Dataset[Any]):
    """Samples of several same-length datasets side by side: a tuple (positional
    datasets) or a dict (keyword datasets).

    Examples:
        >>> import ember
        >>> from ember.utils.data import StackDataset
        >>> StackDataset(image=ember.arange(3), label=[7, 8, 9])[1]
        {'image': tensor(1), 'label': 8}
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            raise ValueError(
                "Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                "input/output, but both types are given."
            )
        parts = list(args) or list(kwargs.values())
        if not parts:
            raise ValueError("At least one dataset should be passed")
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets: Any = tuple(args) if args else dict(kwargs)

    def __getitem__(self, index: Any) -> Any:
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __len__(self) -> int:
        return self._length


class ConcatDataset(Dataset[T_co]):
    """Map-style datasets one after the other; ``cumulative_sizes[i]`` is where the
    (i+1)-th one ends.

    Examples:
        >>> import ember
        >>> from ember.utils.data import ConcatDataset, TensorDataset
        >>> parts = [TensorDataset(ember.arange(3)), TensorDataset(ember.arange(10, 12))]
        >>> ds = ConcatDataset(parts)
        >>> len(ds), ds.cumulative_sizes, ds[3][0].item(), ds[-1][0].item()
        (5, [3, 5], 10, 11)
    """

    def __init__(self, datasets: Iterable[Dataset[Any]]) -> None:
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = list(itertools.accumulate(len(d) for d in self.datasets))  # type: ignore[arg-type]

    def __len__(self) -> int:
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx: int) -> T_co:
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        k = bisect.bisect_right(self.cumulative_sizes, idx)
        if k >= len(self.datasets):
            raise IndexError(f"index {idx} is out of range for a ConcatDataset of {len(self)}")
        start = self.cumulative_sizes[k - 1] if k > 0 else 0
        return self.datasets[k][idx - start]  # type: ignore[no-any-return]


class ChainDataset(IterableDataset[Any]):
    """Iterable datasets one after the other (chained lazily).

    Examples:
        >>> from ember.utils.data import ChainDataset
        >>> list(ChainDataset([range(2), range(3)]))
        [0, 1, 0, 1, 2]
    """

    def __init__(self, datasets: Iterable[Any]) -> None:
        self.datasets = datasets

    def __iter__(self) -> Any:
        for d in self.datasets:
            yield from d

    def __len__(self) -> int:
        return sum(len(d) for d in self.datasets)  # type: ignore[arg-type]


class Subset(Dataset[T_co]):
    """A view of a dataset restricted to the given indices, in their order.

    Args:
        dataset: the dataset to draw from.
        indices: the indices of ``dataset`` that make up the subset.

    Examples:
        >>> from ember.utils.data import Subset
        >>> s = Subset(["a", "b", "c", "d"], [3, 1])
        >>> len(s), s[0], s[1]
        (2, 'd', 'b')
    """

    def __init__(self, dataset: Dataset[T_co], indices: Sequence[int]) -> None:
        self.dataset = dataset
        self.indices = indices

    def __getitem__(self, idx: Any) -> T_co:
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]  # type: ignore[return-value]
        return self.dataset[self.indices[idx]]

    def __len__(self) -> int:
        return len(self.indices)


def random_split(
    dataset: Dataset[T_co], lengths: Sequence[int | float], generator: Generator | None = None
) -> list[Subset[T_co]]:
    """Split a dataset into non-overlapping random subsets of the given lengths.

    Args:
        dataset: the dataset to split.
        lengths: the size of each subset, or fractions summing to 1; fractions are
            floored and the remainder is spread one by one over the first subsets.
        generator: the random generator of the permutation; default: ember's global
            generator (seed it with ``ember.manual_seed``).

    Returns:
        One :class:`Subset` per length.

    Raises:
        ValueError: the lengths do not sum to ``len(dataset)`` (or a fraction is outside
            ``[0, 1]``).

    Note:
        The split is reproducible under a seed, but not the same permutation PyTorch
        draws for that seed (ember derives it from its own generator).

    Examples:
        >>> import ember
        >>> from ember.utils.data import random_split
        >>> train, test = random_split(range(10), [0.7, 0.3])
        >>> len(train), len(test)
        (7, 3)
        >>> a, b = random_split(range(5), [3, 2], generator=ember.Generator().manual_seed(0))
        >>> sorted(list(a) + list(b))
        [0, 1, 2, 3, 4]
    """
    n = len(dataset)  # type: ignore[arg-type]
    if math.isclose(sum(lengths), 1) and sum(lengths) <= 1:
        sizes = []
        for i, frac in enumerate(lengths):
            if frac < 0 or frac > 1:
                raise ValueError(f"Fraction at index {i} is not between 0 and 1")
            sizes.append(int(math.floor(n * frac)))
        for i in range(n - sum(sizes)):
            sizes[i % len(sizes)] += 1
        lengths = sizes
    if sum(lengths) != n:
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    perm = _permutation(n, generator)
    out = []
    start = 0
    for length in lengths:
        out.append(Subset(dataset, perm[start : start + int(length)]))
        start += int(length)
    return out
