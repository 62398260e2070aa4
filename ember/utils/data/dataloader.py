"""``DataLoader``: batches from a dataset through a sampler, in-process or with workers.

Invariant: batches come out in the batch sampler's order for any
``num_workers``. With workers, each iterator starts its own processes (fork
on Linux, as PyTorch), keeps at most ``prefetch_factor * num_workers`` tasks in
flight, and stops and joins them when exhausted, on error, or when collected.
An ``IterableDataset`` has no sampler: each worker iterates its own copy (shard it
with ``get_worker_info()``) and batches come from the workers in turn until all
are exhausted, as in PyTorch.
"""

from __future__ import annotations

import multiprocessing as mp
import queue as _queue
from collections.abc import Callable, Iterator
from typing import Any

import ember
from ember.operators.generator import Generator
from ember.utils.data import _worker
from ember.utils.data._collate import default_collate, default_convert, from_host
from ember.utils.data.dataset import IterableDataset
from ember.utils.data.sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]


class DataLoader:
    """Iterate over a dataset in batches, optionally shuffled and loaded by worker processes.

    Each pass (``for batch in loader``) takes indices from the sampler, groups them into
    batches of ``batch_size``, fetches the samples and merges them with ``collate_fn``
    (by default :func:`default_collate`: tensors, numbers and numpy arrays are stacked
    along a new first dimension; tuples, lists and dicts are collated field by field).
    An :class:`IterableDataset` is iterated instead, and batched as it yields.

    Args:
        dataset: a map-style :class:`Dataset` (or any object with ``__getitem__`` and
            ``__len__``) or an :class:`IterableDataset`.
        batch_size: samples per batch; None turns batching off (each sample goes
            through :func:`default_convert`). Default: 1.
        shuffle: visit the samples in a new random order each pass. Default: None
            (False).
        sampler: the order of the indices (a :class:`Sampler` or any iterable); excludes
            ``shuffle``. Default: None.
        batch_sampler: yields whole lists of indices; excludes ``batch_size``,
            ``shuffle``, ``sampler`` and ``drop_last``. Default: None.
        num_workers: worker processes that fetch and collate batches; 0 loads in the
            main process. Default: 0.
        collate_fn: merges a list of samples into a batch. Default: None
            (:func:`default_collate`, or :func:`default_convert` without batching).
        pin_memory: accepted for compatibility (see the note). Default: False.
        drop_last: drop the last batch if it is smaller than ``batch_size``.
            Default: False.
        timeout: seconds to wait for a batch from the workers before raising (0: no
            limit). Default: 0.
        worker_init_fn: called in each worker with its id, after seeding, before
            loading. Default: None.
        multiprocessing_context: a start method name (``"fork"``, ``"spawn"``,
            ``"forkserver"``) or a context; default fork where available. Default: None.
        generator: the random generator of the shuffling order and the workers' base
            seed; default: ember's global generator. Default: None.
        prefetch_factor: batches each worker keeps in flight; only with workers.
            Default: None (2).
        persistent_workers: accepted for compatibility (see the note); needs
            ``num_workers > 0``. Default: False.
        pin_memory_device: accepted for compatibility (see the note). Default: ``""``.
        in_order: accepted for compatibility: batches always come in the sampler's
            order. Default: True.

    Raises:
        ValueError: options conflict (``sampler`` with ``shuffle``, ``batch_sampler``
            with batching options, ``prefetch_factor`` or ``persistent_workers`` without
            workers, a sampler option with an :class:`IterableDataset`) or are negative.
        RuntimeError: while iterating, a worker died or timed out. An exception raised
            in a worker is raised again in the main process, with the same type and
            the worker's traceback in its message.

    Note:
        Differences from PyTorch: batches come out in order whatever ``in_order`` says;
        workers are started for each pass and stopped at its end even with
        ``persistent_workers=True``; ``pin_memory`` has no effect, because ember's
        devices copy from ordinary host memory. Shuffled orders are reproducible under
        a seed but differ from the ones PyTorch draws.

    Examples:
        >>> import ember
        >>> from ember.utils.data import DataLoader, TensorDataset
        >>> ds = TensorDataset(ember.arange(5))
        >>> [b[0].tolist() for b in DataLoader(ds, batch_size=2)]
        [[0, 1], [2, 3], [4]]
        >>> len(DataLoader(ds, batch_size=2, drop_last=True))
        2
        >>> _ = ember.manual_seed(0)
        >>> sorted(x for (b,) in DataLoader(ds, batch_size=2, shuffle=True) for x in b.tolist())
        [0, 1, 2, 3, 4]
    """

    def __init__(
        self, dataset: Any, batch_size: int | None = 1, shuffle: bool | None = None,
        sampler: Any = None, batch_sampler: Any = None, num_workers: int = 0,
        collate_fn: Callable[[Any], Any] | None = None, pin_memory: bool = False,
        drop_last: bool = False, timeout: float = 0, worker_init_fn: Any = None,
        multiprocessing_context: Any = None, generator: Generator | None = None, *,
        prefetch_factor: int | None = None, persistent_workers: bool = False,
        pin_memory_device: str = "", in_order: bool = True,
    ) -> None:  # fmt: skip
        if num_workers < 0:
            raise ValueError(
                "num_workers option should be non-negative; use num_workers=0 to disable "
                "multiprocessing."
            )
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError(
                "prefetch_factor option could only be specified in multiprocessing."
                "let num_workers > 0 to enable multiprocessing, otherwise set "
                "prefetch_factor to None."
            )
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self._iterable = isinstance(dataset, IterableDataset)
        if self._iterable:
            for name, value in (("shuffle", shuffle), ("sampler", sampler),
                                ("batch_sampler", batch_sampler)):  # fmt: skip
                if value not in (None, False):
                    raise ValueError(
                        f"DataLoader with IterableDataset: expected unspecified {name} option, "
                        f"but got {name}={value}"
                    )
            sampler = _InfiniteSampler()
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError(
                    "batch_sampler option is mutually exclusive with batch_size, shuffle, "
                    "sampler, and drop_last"
                )
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError(
                "batch_size=None option disables auto-batching and is mutually exclusive with "
                "drop_last"
            )
        if sampler is None:
            sampler = (
                RandomSampler(dataset, generator=generator)
                if shuffle
                else (SequentialSampler(dataset))
            )
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.dataset = dataset
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler: Sampler = sampler
        self.batch_sampler = batch_sampler
        self.num_workers = num_workers
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.generator = generator
        self.prefetch_factor = 2 if prefetch_factor is None else prefetch_factor
        self.persistent_workers = persistent_workers
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.in_order = in_order  # batches always come in order, which in_order=False allows
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    def _index_sampler(self) -> Any:
        return self.batch_sampler if self._auto_collation else self.sampler

    def __len__(self) -> int:
        if self._iterable:
            n = len(self.dataset)
            if self.batch_size is not None:
                n = n // self.batch_size if self.drop_last else -(-n // self.batch_size)
            return n
        return len(self._index_sampler())

    def _fetch_spec(self) -> _worker.FetchSpec:
        return _worker.FetchSpec(
            self._iterable, self._auto_collation, self.batch_size, self.drop_last
        )

    def __iter__(self) -> Iterator[Any]:
        if self.num_workers == 0:
            return self._single()
        return _MultiProcessIter(self)

    def _single(self) -> Iterator[Any]:
        fetch = _worker.make_fetcher(self.dataset, self.collate_fn, self._fetch_spec())
        for indices in self._index_sampler():
            try:
                batch = fetch(indices)
            except StopIteration:
                return
            yield batch


class _InfiniteSampler(Sampler):
    """The sampler of an IterableDataset: endless ``None`` indices (the dataset decides)."""

    def __iter__(self) -> Iterator[None]:
        while True:
            yield None


class _MultiProcessIter:
    def __init__(self, loader: DataLoader) -> None:
        ctx = loader.multiprocessing_context
        if ctx is None:
            ctx = mp.get_context("fork" if "fork" in mp.get_all_start_methods() else "spawn")
        elif isinstance(ctx, str):
            ctx = mp.get_context(ctx)
        self._timeout = loader.timeout or None
        base_seed = int(ember.randint(0, 2**62, (1,), generator=loader.generator).item())
        self._result = ctx.Queue()
        self._index_queues = []
        self._workers = []
        n = loader.num_workers
        for wid in range(n):
            iq = ctx.Queue()
            w = ctx.Process(
                target=_worker.worker_loop,
                args=(loader.dataset, iq, self._result, loader.collate_fn,
                      loader._fetch_spec(), base_seed + wid, wid, n, loader.worker_init_fn),
                daemon=True,
            )  # fmt: skip
            w.start()
            self._index_queues.append(iq)
            self._workers.append(w)
        self._tasks = iter(loader._index_sampler())
        self._iterable = loader._iterable
        self._active = list(range(n))  # workers that may still produce batches
        self._owner: dict[int, int] = {}  # task id -> worker
        self._send = 0
        self._recv = 0
        self._done = False
        self._buffer: dict[int, Any] = {}
        for _ in range(loader.prefetch_factor * n):
            self._put()

    def _put(self) -> None:
        if self._iterable:
            if not self._active:
                return
            wid = self._active[self._send % len(self._active)]
            indices = None
        else:
            try:
                indices = next(self._tasks)
            except StopIteration:
                return
            wid = self._send % len(self._workers)
        self._owner[self._send] = wid
        self._index_queues[wid].put((self._send, indices))
        self._send += 1

    def __iter__(self) -> _MultiProcessIter:
        return self

    def __next__(self) -> Any:
        while True:
            if self._recv >= self._send:
                self._shutdown()
                raise StopIteration
            payload = self._take()
            if isinstance(payload, _worker.Exhausted):
                # this worker's iterable is done: deal no more tasks to it
                wid = self._owner[self._recv - 1]
                if wid in self._active:
                    self._active.remove(wid)
                self._put()
                continue
            self._put()
            if isinstance(payload, _worker._ExceptionWrapper):
                self._shutdown()
                payload.reraise()
            return from_host(payload)

    def _take(self) -> Any:
        """The next answer in task order (waiting for it)."""
        while self._recv not in self._buffer:
            try:
                task_id, payload = self._result.get(timeout=self._timeout or 5.0)
            except _queue.Empty:
                dead = [w.pid for w in self._workers if not w.is_alive()]
                if dead or self._timeout:
                    self._shutdown()
                    if dead:
                        raise RuntimeError(
                            f"DataLoader worker (pid(s) {', '.join(map(str, dead))}) exited "
                            "unexpectedly"
                        ) from None
                    raise RuntimeError(
                        f"DataLoader timed out after {self._timeout} seconds"
                    ) from None
                continue
            self._buffer[task_id] = payload
        payload = self._buffer.pop(self._recv)
        self._recv += 1
        return payload

    def _shutdown(self) -> None:
        if self._done:
            return
        self._done = True
        for q in self._index_queues:
            q.put(None)
        for w in self._workers:
            w.join(timeout=5)
            if w.is_alive():
                w.terminate()
                w.join()
        for q in (*self._index_queues, self._result):
            q.cancel_join_thread()
            q.close()

    def __del__(self) -> None:
        try:
            self._shutdown()
        except Exception:  # noqa: BLE001, S110 - interpreter teardown
            pass
