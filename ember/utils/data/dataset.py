"""Datasets: the map-style ``Dataset`` protocol, TensorDataset, Subset, random_split.

A map-style dataset implements ``__getitem__(index)`` and ``__len__``.
``random_split`` draws its permutation from an ember Generator, so a seeded
generator gives the same split run to run.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any, Generic, TypeVar

from ember.core.random import Generator
from ember.core.tensor import Tensor
from ember.utils.data.sampler import _permutation

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "Subset", "random_split"]

T_co = TypeVar("T_co", covariant=True)


class Dataset(Generic[T_co]):
    """Base class of map-style datasets."""

    def __getitem__(self, index: Any) -> T_co:
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other: Dataset[Any]) -> Dataset[Any]:
        raise NotImplementedError("ConcatDataset is not implemented yet")


class IterableDataset(Dataset[T_co]):
    """Base class of iterable-style datasets (implement ``__iter__``)."""

    def __iter__(self) -> Any:
        raise NotImplementedError


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


class Subset(Dataset[T_co]):
    """The samples of ``dataset`` at ``indices``."""

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
    """Split into non-overlapping random subsets of the given lengths (or fractions)."""
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
