"""Fetching batches, in the main process or in the worker processes of
``DataLoader(num_workers>0)``.

Protocol: the main process sends ``(task_id, indices)`` on a worker's own index
queue and ``None`` to stop it; the worker answers ``(task_id, payload)`` on the
shared result queue, where payload is the collated batch with tensors as numpy
(``_collate.to_host``), an ``_ExceptionWrapper``, or ``Exhausted()`` when the
worker's copy of an iterable dataset has no more batches (its indices are
``None``). Tasks are dealt round-robin, and the main process reorders answers by
task id, so batches come out in sampler order whatever the timing.
"""

from __future__ import annotations

import itertools
import os
import queue
import random
import traceback
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

__all__ = ["WorkerInfo", "get_worker_info", "worker_loop", "FetchSpec", "make_fetcher", "Exhausted"]


class Exhausted:
    """A worker's answer when its copy of an iterable dataset has no more batches."""


@dataclass(frozen=True)
class FetchSpec:
    """How a batch is made: ``iterable`` datasets are read in order (``batch_size`` items,
    or single items when ``batch_size`` is None), map-style ones at the given indices."""

    iterable: bool
    auto_collation: bool
    batch_size: int | None
    drop_last: bool


def make_fetcher(dataset: Any, collate_fn: Callable[[Any], Any], spec: FetchSpec) -> Any:
    """A function ``indices -> collated batch``; raises StopIteration when an iterable
    dataset is exhausted (a short last batch counts as exhausted under ``drop_last``)."""
    if not spec.iterable:
        if spec.auto_collation:
            return lambda indices: collate_fn([dataset[i] for i in indices])
        return lambda index: collate_fn(dataset[index])
    it: list[Any] = []

    def fetch(_: Any) -> Any:
        if not it:
            it.append(iter(dataset))
        if not spec.auto_collation:
            return collate_fn(next(it[0]))
        batch = list(itertools.islice(it[0], spec.batch_size))
        if not batch or (spec.drop_last and len(batch) < (spec.batch_size or 0)):
            raise StopIteration
        return collate_fn(batch)

    return fetch


@dataclass(frozen=True)
class WorkerInfo:
    id: int
    num_workers: int
    seed: int
    dataset: Any


_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """Return facts about the current DataLoader worker, or None in the main process.

    Inside a worker process (``num_workers > 0``) the result has ``id`` (from 0),
    ``num_workers``, ``seed`` (this worker's base seed) and ``dataset`` (the worker's own
    copy of the dataset). An :class:`IterableDataset` uses it to give each worker its
    share of the data, and ``worker_init_fn`` to seed other libraries.

    Examples:
        >>> from ember.utils.data import get_worker_info
        >>> get_worker_info() is None
        True
    """
    return _info


class _ExceptionWrapper:
    def __init__(self, where: str) -> None:
        import sys

        exc_type, exc, _ = sys.exc_info()
        self.exc_type = exc_type
        self.msg = f"Caught {exc_type.__name__ if exc_type else 'Exception'} {where}.\n" + (
            "Original " + traceback.format_exc()
        )

    def reraise(self) -> None:
        try:
            err = self.exc_type(self.msg) if self.exc_type else RuntimeError(self.msg)
        except Exception:  # noqa: BLE001 - exception types with odd constructors
            err = RuntimeError(self.msg)
        raise err


#: how often an idle worker checks that the process that started it is still there
_PARENT_CHECK_S = 1.0


def worker_loop(
    dataset: Any, index_queue: Any, result_queue: Any, collate_fn: Callable[[Any], Any],
    spec: FetchSpec, seed: int, worker_id: int, num_workers: int,
    worker_init_fn: Callable[[int], None] | None,
) -> None:  # fmt: skip
    global _info
    import ember
    from ember.utils.data._collate import to_host

    ember.manual_seed(seed)
    random.seed(seed)
    _info = WorkerInfo(worker_id, num_workers, seed, dataset)
    init_error = None
    if worker_init_fn is not None:
        try:
            worker_init_fn(worker_id)
        except Exception:  # noqa: BLE001 - reported to the main process
            init_error = _ExceptionWrapper(f"in DataLoader worker process {worker_id}")
    fetch = make_fetcher(dataset, collate_fn, spec)
    parent = os.getppid()
    while True:
        try:
            task = index_queue.get(timeout=_PARENT_CHECK_S)
        except queue.Empty:
            # a parent killed outright (SIGKILL) never sends the None that ends the loop:
            # an orphan is adopted by another process, so a changed parent id means "stop"
            if os.getppid() != parent:
                break
            continue
        if task is None:
            break
        task_id, indices = task
        if init_error is not None:
            result_queue.put((task_id, init_error))
            continue
        try:
            payload: Any = to_host(fetch(indices))
        except StopIteration:
            payload = Exhausted()
        except Exception:  # noqa: BLE001 - reported to the main process
            payload = _ExceptionWrapper(f"in DataLoader worker process {worker_id}")
        result_queue.put((task_id, payload))
