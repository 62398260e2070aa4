"""``ember.utils.data``: datasets, samplers, collation and the DataLoader."""

from ember.utils.data._collate import default_collate, default_convert
from ember.utils.data._worker import get_worker_info
from ember.utils.data.dataloader import DataLoader
from ember.utils.data.dataset import Dataset, IterableDataset, Subset, TensorDataset, random_split
from ember.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = [
    "Dataset", "IterableDataset", "TensorDataset", "Subset", "random_split", "DataLoader",
    "Sampler", "SequentialSampler", "RandomSampler", "BatchSampler", "default_collate",
    "default_convert", "get_worker_info",
]  # fmt: skip
