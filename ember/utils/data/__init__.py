"""``ember.utils.data``: datasets, samplers, collation and the DataLoader."""

from ember.utils.data._collate import default_collate, default_convert
from ember.utils.data._worker import get_worker_info
from ember.utils.data.dataloader import DataLoader
from ember.utils.data.dataset import (
    ChainDataset,
    ConcatDataset,
    Dataset,
    IterableDataset,
    StackDataset,
    Subset,
    TensorDataset,
    random_split,
)
from ember.utils.data.distributed import DistributedSampler
from ember.utils.data.sampler import (
    BatchSampler,
    RandomSampler,
    Sampler,
    SequentialSampler,
    SubsetRandomSampler,
    WeightedRandomSampler,
)

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
    "ChainDataset", "Subset", "random_split", "DataLoader", "Sampler", "SequentialSampler",
    "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
    "DistributedSampler",
    "default_collate", "default_convert", "get_worker_info",
]  # fmt: skip
