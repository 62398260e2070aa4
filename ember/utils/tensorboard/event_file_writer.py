"""One TensorBoard event file: ``EventFileWriter`` frames, queues and writes ``Event`` records.

The file is named as TensorBoard's own writer names them,
``events.out.tfevents.<unix time>.<host>.<pid>.<n><filename_suffix>`` (``n`` counts the
files this process opened), and starts with the ``file_version`` event ``brain.Event:2``.

Must always hold: an event is on disk after ``flush()``/``close()``, once ``max_queue``
events are pending, or within about ``flush_secs`` seconds (one daemon thread flushes every
open file), and pending events are flushed when the interpreter exits.

Examples:
    >>> import os, tempfile
    >>> w = EventFileWriter(tempfile.mkdtemp())
    >>> os.path.basename(w.path).startswith("events.out.tfevents.")
    True
    >>> w.close()
"""

from __future__ import annotations

import atexit
import itertools
import os
import socket
import threading
import time
import weakref

from ember.utils.tensorboard import _proto as pb
from ember.utils.tensorboard._record import frame

__all__ = ["EventFileWriter"]

_uid = itertools.count()
_live: weakref.WeakSet[EventFileWriter] = weakref.WeakSet()
_flusher: list[threading.Thread] = []
_flusher_lock = threading.Lock()


def _flush_due() -> None:
    """The flusher thread: every writer whose ``flush_secs`` have passed is flushed."""
    while True:
        time.sleep(0.5)
        now = time.monotonic()
        for w in list(_live):
            if now >= w._next_flush:
                w.flush()


def _flush_all() -> None:
    for w in list(_live):
        w.flush()


atexit.register(_flush_all)


class EventFileWriter:
    """One event file: queues framed ``Event`` records and writes them out."""

    def __init__(
        self, logdir: str, max_queue: int = 10, flush_secs: float = 120, filename_suffix: str = ""
    ) -> None:
        self._logdir = str(logdir)
        os.makedirs(self._logdir, exist_ok=True)
        name = "events.out.tfevents.%010d.%s.%s.%s" % (  # noqa: UP031 - TensorBoard's pattern
            time.time(),
            socket.gethostname(),
            os.getpid(),
            next(_uid),
        )
        self._path = os.path.join(self._logdir, name) + filename_suffix
        self._file = open(self._path, "wb")  # noqa: SIM115 - kept open for the writer's life
        self._max_queue = max(1, int(max_queue))
        self._flush_secs = float(flush_secs)
        self._next_flush = time.monotonic() + self._flush_secs
        self._pending: list[bytes] = []
        self._lock = threading.Lock()
        self._closed = False
        source = pb.submessage(10, pb.string(1, "ember.utils.tensorboard"))
        self.add_event(pb.string(3, "brain.Event:2", always=True) + source)
        self.flush()
        _live.add(self)
        with _flusher_lock:
            if not _flusher:
                t = threading.Thread(target=_flush_due, name="ember-tensorboard", daemon=True)
                t.start()
                _flusher.append(t)

    def get_logdir(self) -> str:
        return self._logdir

    @property
    def path(self) -> str:
        """The event file's path."""
        return self._path

    def add_event(
        self, what: bytes, step: int | None = None, walltime: float | None = None
    ) -> None:
        """Queue an ``Event`` whose payload fields (a summary, a file version...) are ``what``."""
        wall = time.time() if walltime is None else float(walltime)
        body = pb.double(1, wall) + (pb.uint(2, int(step)) if step is not None else b"") + what
        with self._lock:
            if self._closed:
                raise RuntimeError(f"the event file {self._path} is closed")
            self._pending.append(frame(body))
            full = len(self._pending) >= self._max_queue
        if full:
            self.flush()

    def flush(self) -> None:
        """Write every queued event to disk."""
        with self._lock:
            if self._closed:
                return
            if self._pending:
                self._file.write(b"".join(self._pending))
                self._pending.clear()
            self._file.flush()
            self._next_flush = time.monotonic() + self._flush_secs

    def close(self) -> None:
        self.flush()
        with self._lock:
            if not self._closed:
                self._closed = True
                self._file.close()
        _live.discard(self)
