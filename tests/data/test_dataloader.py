"""Datasets, samplers, collation and DataLoader (determinism, workers, errors)."""

from __future__ import annotations

from collections import namedtuple

import numpy as np
import pytest

import ember
from ember.utils.data import (
    BatchSampler,
    DataLoader,
    Dataset,
    RandomSampler,
    SequentialSampler,
    Subset,
    TensorDataset,
    default_collate,
    get_worker_info,
    random_split,
)  # fmt: skip


class Squares(Dataset):
    def __len__(self):
        return 23

    def __getitem__(self, i):
        return {"x": np.full(3, i, dtype=np.float32), "y": i * i, "name": f"s{i}"}


class Failing(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            raise KeyError("bad index 5")
        return ember.tensor([float(i)])


def _flat(loader):
    return [b[0].tolist() for b in loader]


def test_batches_and_drop_last():
    ds = TensorDataset(ember.arange(10), ember.arange(10) * 2)
    dl = DataLoader(ds, batch_size=4)
    assert len(dl) == 3 and _flat(dl) == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    dl = DataLoader(ds, batch_size=4, drop_last=True)
    assert len(dl) == 2 and _flat(dl) == [[0, 1, 2, 3], [4, 5, 6, 7]]
    assert [b.tolist() for b in DataLoader(ember.arange(3), batch_size=None)] == [0, 1, 2]


def test_shuffle_is_deterministic_with_a_generator():
    ds = TensorDataset(ember.arange(50))
    a = _flat(
        DataLoader(ds, batch_size=8, shuffle=True, generator=ember.Generator().manual_seed(1))
    )
    b = _flat(
        DataLoader(ds, batch_size=8, shuffle=True, generator=ember.Generator().manual_seed(1))
    )
    c = _flat(
        DataLoader(ds, batch_size=8, shuffle=True, generator=ember.Generator().manual_seed(2))
    )
    assert a == b and a != c
    assert sorted(sum(a, [])) == list(range(50))
    g = ember.Generator().manual_seed(1)
    dl = DataLoader(ds, batch_size=50, shuffle=True, generator=g)
    assert _flat(dl) != _flat(dl)  # a new order every epoch


def test_collate_structures():
    P = namedtuple("P", "a b")
    b = default_collate([P(1.5, [1, 2]), P(2.5, [3, 4])])
    assert b.a.dtype == ember.float64 and b.a.tolist() == [1.5, 2.5]
    assert [t.tolist() for t in b.b] == [[1, 3], [2, 4]]
    d = default_collate([{"x": np.zeros(2), "s": "a"}, {"x": np.ones(2), "s": "b"}])
    assert d["x"].tolist() == [[0.0, 0.0], [1.0, 1.0]] and d["s"] == ["a", "b"]
    with pytest.raises(RuntimeError, match="each element in list of batch should be of equal size"):
        default_collate([[1, 2], [1]])
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors"):
        default_collate([object()])


def test_custom_collate_and_samplers():
    ds = TensorDataset(ember.arange(6))
    dl = DataLoader(ds, batch_size=3, collate_fn=lambda items: [int(i[0]) for i in items])
    assert list(dl) == [[0, 1, 2], [3, 4, 5]]
    bs = BatchSampler(SequentialSampler(ds), 4, drop_last=False)
    assert _flat(DataLoader(ds, batch_sampler=bs)) == [[0, 1, 2, 3], [4, 5]]
    r = RandomSampler(
        ds, replacement=True, num_samples=20, generator=ember.Generator().manual_seed(0)
    )
    assert len(list(r)) == 20 and len(r) == 20
    assert _flat(DataLoader(ds, sampler=[5, 1], batch_size=2)) == [[5, 1]]
    with pytest.raises(ValueError, match="sampler option is mutually exclusive with shuffle"):
        DataLoader(ds, sampler=[0], shuffle=True)
    with pytest.raises(ValueError, match="batch_sampler option is mutually exclusive"):
        DataLoader(ds, batch_sampler=bs, batch_size=2)
    with pytest.raises(ValueError, match="num_workers option should be non-negative"):
        DataLoader(ds, num_workers=-1)


def test_random_split_and_subset():
    ds = TensorDataset(ember.arange(10))
    a, b = random_split(ds, [7, 3], generator=ember.Generator().manual_seed(0))
    a2, _ = random_split(ds, [0.7, 0.3], generator=ember.Generator().manual_seed(0))
    assert list(a.indices) == list(a2.indices) and len(b) == 3
    assert sorted(list(a.indices) + list(b.indices)) == list(range(10))
    assert isinstance(a, Subset) and a[0][0].item() == a.indices[0]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal"):
        random_split(ds, [3, 3])


def test_workers_return_batches_in_order():
    ds = Squares()
    ref = list(DataLoader(ds, batch_size=4))
    for workers in (1, 3):
        got = list(DataLoader(ds, batch_size=4, num_workers=workers))
        assert len(got) == len(ref)
        for g, r in zip(got, ref):
            assert g["x"].tolist() == r["x"].tolist() and g["x"].dtype == ember.float32
            assert g["y"].tolist() == r["y"].tolist() and g["name"] == r["name"]
    g1 = ember.Generator().manual_seed(5)
    g2 = ember.Generator().manual_seed(5)
    tds = TensorDataset(ember.arange(30))
    a = _flat(DataLoader(tds, batch_size=5, shuffle=True, generator=g1, num_workers=2))
    b = _flat(DataLoader(tds, batch_size=5, shuffle=True, generator=g2))
    assert sorted(sum(a, [])) == list(range(30)) and len(a) == len(b)


class _WhoAmI(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        info = get_worker_info()
        return info.id if info is not None else -1


def test_worker_info_and_errors():
    assert sorted(DataLoader(_WhoAmI(), batch_size=None, num_workers=2)) == [0, 0, 1, 1]
    assert get_worker_info() is None
    it = iter(DataLoader(Failing(), batch_size=2, num_workers=2))
    next(it), next(it)
    with pytest.raises(KeyError, match="Caught KeyError in DataLoader worker process"):
        next(it)
    for w in it._workers:
        assert not w.is_alive()


def test_random_sampler_with_replacement_draws_lazily():
    # scripts pass num_samples=int(1e10) to mean "forever": the indices must be drawn as
    # they are consumed (drawing them up front is a 74.5 GiB allocation)
    import itertools

    from ember.utils.data import RandomSampler

    s = RandomSampler(range(10), replacement=True, num_samples=int(1e10))
    assert len(s) == int(1e10)
    first = list(itertools.islice(iter(s), 10_000))
    assert len(first) == 10_000 and set(first) <= set(range(10)) and len(set(first)) == 10
    a = list(RandomSampler(range(7), True, 9000, ember.Generator().manual_seed(3)))
    b = list(RandomSampler(range(7), True, 9000, ember.Generator().manual_seed(3)))
    assert a == b and len(a) == 9000


def test_workers_exit_when_the_parent_is_killed(tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    script = tmp_path / "parent.py"
    script.write_text(
        "import time, multiprocessing as mp\n"
        "import ember\n"
        "from ember.utils.data import DataLoader, TensorDataset\n"
        "if __name__ == '__main__':\n"
        "    ds = TensorDataset(ember.arange(100.0))\n"
        "    it = iter(DataLoader(ds, batch_size=4, num_workers=2))\n"
        "    next(it)\n"
        "    print(' '.join(str(p.pid) for p in mp.active_children()), flush=True)\n"
        "    time.sleep(60)\n"
    )
    parent = subprocess.Popen(
        [sys.executable, str(script)], stdout=subprocess.PIPE, text=True, start_new_session=True
    )
    try:
        assert parent.stdout is not None
        pids = [int(p) for p in parent.stdout.readline().split()]
        assert len(pids) == 2
        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)

        def alive(pid: int) -> bool:
            try:
                with open(f"/proc/{pid}/stat") as f:
                    return f.read().rsplit(")", 1)[1].split()[0] not in ("Z", "X")
            except FileNotFoundError:
                return False

        deadline = time.monotonic() + 20
        while any(alive(p) for p in pids) and time.monotonic() < deadline:
            time.sleep(0.1)
        left = [p for p in pids if alive(p)]
        assert not left, f"DataLoader workers {left} outlived their killed parent"
    finally:
        try:
            os.killpg(parent.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
