"""``DistributedSampler``: each of ``num_replicas`` processes gets its own 1/N of the
dataset (padded by repeating indices so every rank has as many, or trimmed with
``drop_last``), reshuffled per epoch by ``set_epoch``.

ember has no process groups yet, so ``num_replicas`` and ``rank`` must be given; without
them the sampler raises PyTorch's "Default process group has not been initialized" error.
The shuffled order comes from a generator seeded with ``seed + epoch`` (every rank draws
the same permutation), not PyTorch's permutation.
"""

from __future__ import annotations

import math
from collections.abc import Iterator, Sized

from ember.operators.generator import Generator
from ember.utils.data.sampler import Sampler, _permutation

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Restrict loading to one rank's share of the dataset.

    Examples:
        >>> from ember.utils.data.distributed import DistributedSampler
        >>> list(DistributedSampler(range(10), num_replicas=3, rank=1, shuffle=False))
        [1, 4, 7, 0]
    """

    def __init__(
        self, dataset: Sized, num_replicas: int | None = None, rank: int | None = None,
        shuffle: bool = True, seed: int = 0, drop_last: bool = False,
    ) -> None:  # fmt: skip
        if num_replicas is None or rank is None:
            from ember import distributed as dist

            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, "
                             f"{num_replicas - 1}]")  # fmt: skip
        self.dataset = dataset
        self.num_replicas, self.rank = num_replicas, rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle, self.seed = shuffle, seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            indices = _permutation(n, Generator().manual_seed(self.seed + self.epoch))
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[: self.total_size]
        return iter(indices[self.rank : self.total_size : self.num_replicas])

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Make the next pass use another shuffle (call it at the start of every epoch)."""
        self.epoch = epoch
