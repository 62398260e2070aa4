"""ConcatDataset, ChainDataset, StackDataset, SubsetRandomSampler, WeightedRandomSampler and
IterableDataset loading (in-process and with workers) against PyTorch."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
import torch.utils.data as tdata

import ember
import ember.utils.data as edata


def _tolist(b):
    return b.tolist() if hasattr(b, "tolist") else b


def _sharded(data):
    class Shard(data.IterableDataset):
        """Each worker reads its own contiguous slice of range(n)."""

        def __init__(self, n):
            self.n = n

        def __iter__(self):
            info = data.get_worker_info()
            if info is None:
                return iter(range(self.n))
            per = math.ceil(self.n / info.num_workers)
            return iter(range(info.id * per, min((info.id + 1) * per, self.n)))

        def __len__(self):
            return self.n

    return Shard(13)


@pytest.mark.parametrize("num_workers", [0, 1, 2])
@pytest.mark.parametrize("batch_size,drop_last", [(4, False), (4, True), (None, False)])
def test_iterable_dataset_batches_match_pytorch(num_workers, batch_size, drop_last):
    def batches(data):
        loader = data.DataLoader(
            _sharded(data), batch_size=batch_size, drop_last=drop_last, num_workers=num_workers
        )
        return [_tolist(b) for b in loader], len(loader)

    assert batches(edata) == batches(tdata)


def test_iterable_dataset_refuses_shuffle_and_samplers():
    ds = _sharded(edata)
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle"):
        edata.DataLoader(ds, shuffle=True)
    with pytest.raises(ValueError, match="expected unspecified sampler option"):
        edata.DataLoader(ds, sampler=[0, 1])
    with pytest.raises(ValueError, match="persistent_workers option needs num_workers > 0"):
        edata.DataLoader(ds, persistent_workers=True)


def test_chain_and_plus_operator():
    ds = _sharded(edata) + _sharded(edata)
    assert isinstance(ds, edata.ChainDataset)
    assert list(ds) == list(range(13)) * 2 and len(ds) == 26
    loader = edata.DataLoader(edata.ChainDataset([range(3), range(2)]), batch_size=2)
    assert [b.tolist() for b in loader] == [[0, 1], [2, 0], [1]]


def test_concat_dataset_indexing_matches_pytorch():
    def build(lib, data):
        return data.ConcatDataset(
            [data.TensorDataset(lib.arange(3)), data.TensorDataset(lib.arange(10, 14))]
        )

    e, t = build(ember, edata), build(torch, tdata)
    assert e.cumulative_sizes == t.cumulative_sizes == [3, 7]
    assert [e[i][0].item() for i in range(-7, 7)] == [t[i][0].item() for i in range(-7, 7)]
    both = edata.TensorDataset(ember.arange(2)) + edata.TensorDataset(ember.arange(5, 6))
    assert isinstance(both, edata.ConcatDataset)
    assert [both[i][0].item() for i in range(3)] == [0, 1, 5]
    with pytest.raises(ValueError, match="absolute value of index should not exceed"):
        e[-8]
    with pytest.raises(IndexError, match="out of range"):
        e[7]
    with pytest.raises(AssertionError, match="datasets should not be an empty iterable"):
        edata.ConcatDataset([])
    with pytest.raises(AssertionError, match="does not support IterableDataset"):
        edata.ConcatDataset([_sharded(edata)])
    batches = [b[0].tolist() for b in edata.DataLoader(e, batch_size=3)]
    assert batches == [[0, 1, 2], [10, 11, 12], [13]]


def test_stack_dataset_tuples_and_dicts():
    s = edata.StackDataset(ember.arange(3), ember.arange(3) * 2)
    assert len(s) == 3 and [v.item() for v in s[1]] == [1, 2]
    d = edata.StackDataset(x=ember.arange(3), y=[7, 8, 9])
    batch = next(iter(edata.DataLoader(d, batch_size=3)))
    assert batch["x"].tolist() == [0, 1, 2] and batch["y"].tolist() == [7, 8, 9]
    with pytest.raises(ValueError, match="Size mismatch between datasets"):
        edata.StackDataset(ember.arange(3), ember.arange(4))
    with pytest.raises(ValueError, match="but both types are given"):
        edata.StackDataset(ember.arange(3), y=ember.arange(3))


def test_subset_random_sampler_is_a_seeded_permutation_of_the_subset():
    idx = [4, 8, 15, 16, 23, 42]
    a = list(edata.SubsetRandomSampler(idx, generator=ember.Generator().manual_seed(3)))
    b = list(edata.SubsetRandomSampler(idx, generator=ember.Generator().manual_seed(3)))
    assert a == b and sorted(a) == idx and a != idx
    assert len(edata.SubsetRandomSampler(idx)) == 6


def test_weighted_random_sampler_follows_the_weights():
    w = [0.1, 0.0, 0.6, 0.3]
    g = ember.Generator().manual_seed(0)
    draws = list(edata.WeightedRandomSampler(w, 20000, generator=g))
    freq = np.bincount(draws, minlength=4) / len(draws)
    np.testing.assert_allclose(freq, w, atol=0.015)
    no_rep = list(edata.WeightedRandomSampler(ember.tensor([1.0, 1.0, 5.0]), 3, replacement=False))
    assert sorted(no_rep) == [0, 1, 2]
    sampler = edata.WeightedRandomSampler(w, 8)
    loader = edata.DataLoader(edata.TensorDataset(ember.arange(4)), batch_size=4, sampler=sampler)
    drawn = [v for b in loader for v in b[0].tolist()]
    assert len(drawn) == 8 and 1 not in drawn  # index 1 has weight 0


@pytest.mark.parametrize(
    "kwargs,error,match",
    [
        ({"weights": [[1.0, 2.0]], "num_samples": 2}, ValueError, "weights should be a 1d"),
        ({"weights": [1.0, 2.0], "num_samples": 0}, ValueError, "num_samples should be a positive"),
        ({"weights": [1.0], "num_samples": 2, "replacement": 1}, ValueError, "replacement should"),
        (
            {"weights": [1.0, 2.0], "num_samples": 3, "replacement": False},
            RuntimeError,
            "cannot sample n_sample > prob_dist.size",
        ),
    ],
)
def test_weighted_random_sampler_errors_match_pytorch(kwargs, error, match):
    with pytest.raises(error, match=match):
        list(tdata.WeightedRandomSampler(**kwargs))
    with pytest.raises(error, match=match):
        list(edata.WeightedRandomSampler(**kwargs))


@pytest.mark.parametrize("n", [1, 3, 7, 10])
@pytest.mark.parametrize("drop_last", [False, True])
def test_distributed_sampler_shards_like_pytorch(n, drop_last):
    from torch.utils.data.distributed import DistributedSampler as TorchSampler

    for rank in range(3):
        kw = {"num_replicas": 3, "rank": rank, "shuffle": False, "drop_last": drop_last}
        want = TorchSampler(list(range(n)), **kw)
        got = edata.DistributedSampler(list(range(n)), **kw)
        assert list(got) == list(want) and len(got) == len(want)


def test_distributed_sampler_shuffles_per_epoch_and_needs_a_rank():
    parts = [list(edata.DistributedSampler(range(10), 3, r, seed=1)) for r in range(3)]
    drawn = sum(parts, [])
    assert len(drawn) == 12 and set(drawn) == set(range(10))  # padded to 3 x 4
    s = edata.DistributedSampler(range(10), 3, 0)
    first = list(s)
    assert list(s) == first
    s.set_epoch(1)
    assert list(s) != first
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        edata.DistributedSampler(range(10))
    with pytest.raises(
        ValueError, match=r"Invalid rank 3, rank should be in the interval \[0, 2\]"
    ):
        edata.DistributedSampler(range(10), num_replicas=3, rank=3)
