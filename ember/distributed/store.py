"""The key-value stores of ``ember.distributed``: PyTorch's ``Store``, ``HashStore``,
``FileStore``, ``PrefixStore`` and ``TCPStore`` (names, signatures, return types, errors),
plus ``TCPStoreServer``, the TCPStore server on its own (what a launcher starts).

A store is how the processes of a group meet before they have anything else: ranks publish
addresses and counters under string keys and block until the keys of the others appear.

What must always hold:

* keys are ``str``; values go in as ``str`` or ``bytes`` and ``get`` returns ``bytes``; ``add``
  keeps a signed 64-bit counter (wrapping as PyTorch's does) and returns an ``int``;
  ``compare_set`` writes ``desired`` when the current value equals ``expected`` or when the key
  is missing and ``expected`` is empty, and returns the value the key then has (``expected``
  itself when the key is missing and nothing was written);
* no call blocks past its timeout: a key that never comes raises ``DistStoreError`` from
  ``get``/``wait``/``multi_get``, a server that cannot be reached or goes away raises
  ``DistNetworkError``; ``timedelta(0)`` means "no timeout", as in PyTorch;
* nothing read from a socket or a file allocates more than the limits ``MAX_KEY_BYTES``,
  ``MAX_VALUE_BYTES`` and ``MAX_KEYS_PER_REQUEST`` (module constants, read at each use), which
  are checked before the bytes are read; a malformed or oversized request closes that one
  connection, a malformed ``FileStore`` file raises ``DistStoreError``;
* a ``TCPStore`` server started with a secret serves only clients that prove they know it, and
  the secret never crosses the wire (Note [TCPStore wire protocol]);
* a ``TCPStore`` server is one thread with non-blocking sockets: a blocking ``get``/``wait`` is
  parked, not waited on, so a slow or hostile client never holds up the others; the server
  stops and closes every socket when its master ``TCPStore`` is closed or collected;
* strangers cannot starve it: at most ``MAX_PENDING_HANDSHAKES`` connections are
  unauthenticated at once, each for at most ``HANDSHAKE_TIMEOUT_S``, running out of file
  descriptors pauses accepting instead of spinning, and the warnings a client can provoke are
  rate-limited (Note [TCPStore server under pressure]).
"""

from __future__ import annotations

import abc
import collections
import contextlib
import errno
import hashlib
import heapq
import hmac
import itertools
import logging
import operator
import os
import selectors
import socket
import struct
import threading
import time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import timedelta
from typing import SupportsIndex

from ember.distributed.errors import DistNetworkError, DistStoreError

__all__ = [
    "HANDSHAKE_TIMEOUT_S", "MAX_KEYS_PER_REQUEST", "MAX_KEY_BYTES", "MAX_PENDING_HANDSHAKES",
    "MAX_VALUE_BYTES", "SECRET_ENV", "FileStore", "HashStore", "PrefixStore", "Store", "TCPStore",
    "TCPStoreServer",
]  # fmt: skip

MAX_KEY_BYTES = 4096
"""The longest key a TCPStore or FileStore accepts, in UTF-8 bytes as stored."""
MAX_VALUE_BYTES = 256 * 2**20
"""The longest value a TCPStore or FileStore accepts (and the bound of one request's values)."""
MAX_KEYS_PER_REQUEST = 4096
"""The most keys one ``wait``/``check``/``multi_get``/``multi_set`` may send to a TCPStore."""
SECRET_ENV = "EMBER_STORE_SECRET"
"""The environment variable a TCPStore reads its shared secret from when ``secret`` is None."""

_DEFAULT_TIMEOUT = timedelta(seconds=300)
_INT64 = 2**63
_log = logging.getLogger(__name__)


# --- argument checks shared by every store --------------------------------------------------


def _timeout_s(timeout: object, fn: str) -> float | None:
    """Seconds of a timedelta timeout, None for ``timedelta(0)`` (PyTorch's "no timeout")."""
    if not isinstance(timeout, timedelta):
        raise TypeError(
            f"{fn}(): timeout must be a datetime.timedelta, got {type(timeout).__name__}"
        )
    seconds = timeout.total_seconds()
    if seconds < 0:
        raise ValueError(f"{fn}(): timeout must not be negative, got {timeout!r}")
    return None if seconds == 0 else seconds


def _ms(seconds: float | None) -> int:
    return 0 if seconds is None else round(seconds * 1000)


def _deadline(seconds: float | None) -> float | None:
    return None if seconds is None else time.monotonic() + seconds


def _left(deadline: float | None) -> float | None:
    return None if deadline is None else deadline - time.monotonic()


def _key(fn: str, key: object) -> str:
    if not isinstance(key, str):
        raise TypeError(f"{fn}(): key must be a str, got {type(key).__name__}")
    return key


def _keys(fn: str, keys: object) -> list[str]:
    if isinstance(keys, str | bytes) or not isinstance(keys, Iterable):
        raise TypeError(f"{fn}(): keys must be a list of str, got {type(keys).__name__}")
    return [_key(fn, k) for k in keys]


def _value(fn: str, value: object, what: str = "value") -> bytes:
    if isinstance(value, str):
        return value.encode()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value)
    raise TypeError(f"{fn}(): {what} must be str or bytes, got {type(value).__name__}")


def _amount(fn: str, amount: object) -> int:
    if not isinstance(amount, SupportsIndex):
        raise TypeError(f"{fn}(): amount must be an int, got {type(amount).__name__}")
    n = operator.index(amount)
    if not -_INT64 <= n < _INT64:
        raise TypeError(f"{fn}(): amount {n} does not fit in a signed 64-bit integer")
    return n


def _added(key: str, old: bytes | None, amount: int) -> tuple[int, bytes]:
    """The counter after ``add(key, amount)`` and its stored form (wraps like int64)."""
    if old is None:
        total = amount
    else:
        try:
            total = int(old.decode("ascii")) + amount
        except (UnicodeDecodeError, ValueError):
            msg = f"add(): the value of key {key!r} is not an integer: {old[:64]!r}"
            raise ValueError(msg) from None
        total = (total + _INT64) % (2 * _INT64) - _INT64
    return total, str(total).encode()


def _compare_set(current: bytes | None, expected: bytes, desired: bytes) -> tuple[bool, bytes]:
    """(write ``desired``?, the value compare_set returns) -- PyTorch's rule, one place."""
    if current is None:
        return (True, desired) if expected == b"" else (False, expected)
    return (True, desired) if current == expected else (False, current)


def _limit_key(fn: str, key: str, stored: bytes) -> bytes:
    if len(stored) > MAX_KEY_BYTES:
        raise ValueError(
            f"{fn}(): key {key[:32]!r}... is {len(stored)} bytes; a store key may be at most "
            f"MAX_KEY_BYTES = {MAX_KEY_BYTES} bytes"
        )
    return stored


def _limit_value(fn: str, value: bytes) -> bytes:
    if len(value) > MAX_VALUE_BYTES:
        raise ValueError(
            f"{fn}(): value is {len(value)} bytes; a store value may be at most "
            f"MAX_VALUE_BYTES = {MAX_VALUE_BYTES} bytes"
        )
    return value


def _same_size(keys: Sequence[object], values: Sequence[object]) -> None:
    if len(keys) != len(values):
        raise DistStoreError("multiSet keys and values vectors must be of same size")


# --- the interface ---------------------------------------------------------------------------


class Store(abc.ABC):
    """The key-value store interface process groups rendezvous through (PyTorch's ``Store``).

    A subclass implements ``set``, ``get``, ``add``, ``compare_set``, ``wait``, ``check``,
    ``delete_key`` and ``num_keys``; ``append``, ``multi_get`` and ``multi_set`` have defaults
    built on those. ``timeout`` (default 300 s) bounds every blocking call.

    Examples:
        >>> from ember.distributed.store import HashStore, Store
        >>> isinstance(HashStore(), Store)
        True
        >>> HashStore().timeout
        datetime.timedelta(seconds=300)
    """

    def __init__(self) -> None:
        self._timeout = _DEFAULT_TIMEOUT

    @property
    def timeout(self) -> timedelta:
        """The default timeout of ``get``, ``wait`` and ``multi_get``."""
        return self._timeout

    def set_timeout(self, timeout: timedelta) -> None:
        """Set the default timeout (``timedelta(0)``: no timeout)."""
        _timeout_s(timeout, "set_timeout")
        self._timeout = timeout

    @abc.abstractmethod
    def set(self, key: str, value: str | bytes) -> None:
        """Store ``value`` under ``key``, replacing what was there."""

    @abc.abstractmethod
    def get(self, key: str) -> bytes:
        """The value of ``key``, waiting up to ``timeout`` for it (then ``DistStoreError``)."""

    @abc.abstractmethod
    def add(self, key: str, amount: int) -> int:
        """Add ``amount`` to the integer counter ``key`` (created at 0) and return the sum."""

    @abc.abstractmethod
    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        """Write ``desired_value`` if ``key`` holds ``expected_value`` (or is missing and
        ``expected_value`` is empty); return the value ``key`` then has."""

    @abc.abstractmethod
    def wait(self, keys: Sequence[str], timeout: timedelta | None = None) -> None:
        """Block until every key exists; ``DistStoreError`` after ``timeout``."""

    @abc.abstractmethod
    def check(self, keys: Sequence[str]) -> bool:
        """True if every key exists now (never blocks)."""

    @abc.abstractmethod
    def delete_key(self, key: str) -> bool:
        """Remove ``key``; True if it existed."""

    @abc.abstractmethod
    def num_keys(self) -> int:
        """How many keys the store holds (including its own bookkeeping keys)."""

    def append(self, key: str, value: str | bytes) -> None:
        """Append ``value`` to the value of ``key`` (created if missing)."""
        piece = _value("append", value)
        while True:  # a compare_set loop: correct under concurrent writers
            current = self.get(key) if self.check([key]) else b""
            if self.compare_set(key, current, current + piece) == current + piece:
                return

    def multi_get(self, keys: Sequence[str]) -> list[bytes]:
        """The values of ``keys``, waiting for each like ``get``."""
        return [self.get(k) for k in _keys("multi_get", keys)]

    def multi_set(self, keys: Sequence[str], values: Sequence[str | bytes]) -> None:
        """``set`` each key to its value."""
        _same_size(keys, values)
        for k, v in zip(keys, values):
            self.set(k, v)

    def has_extended_api(self) -> bool:
        """True if ``append``/``multi_get``/``multi_set`` are native (atomic) operations."""
        return False


# --- HashStore -------------------------------------------------------------------------------


class HashStore(Store):
    """An in-process store: a dict behind one ``threading.Condition`` (thread-safe).

    Examples:
        >>> from ember.distributed.store import HashStore
        >>> store = HashStore()
        >>> store.set("first", "value")
        >>> store.get("first")
        b'value'
        >>> store.add("counter", 2), store.add("counter", 5)
        (2, 7)
        >>> store.compare_set("new", "", "made"), store.check(["first", "new"])
        (b'made', True)
        >>> store.delete_key("first"), store.delete_key("first")
        (True, False)
    """

    def __init__(self) -> None:
        super().__init__()
        self._data: dict[str, bytes] = {}
        self._cond = threading.Condition()

    def _wait_for(self, keys: list[str], timeout: timedelta | None) -> None:
        seconds = _timeout_s(self._timeout if timeout is None else timeout, "wait")
        if not self._cond.wait_for(lambda: all(k in self._data for k in keys), seconds):
            raise DistStoreError(f"Wait timeout after {_ms(seconds)}ms, keys: {', '.join(keys)}")

    def _put(self, key: str, value: bytes) -> None:
        self._data[key] = value
        self._cond.notify_all()

    def set(self, key: str, value: str | bytes) -> None:
        """Store ``value`` under ``key``."""
        key, data = _key("set", key), _value("set", value)
        with self._cond:
            self._put(key, data)

    def get(self, key: str) -> bytes:
        """The value of ``key``, waiting up to ``timeout``."""
        key = _key("get", key)
        with self._cond:
            self._wait_for([key], None)
            return self._data[key]

    def add(self, key: str, amount: int) -> int:
        """Add to the counter ``key``; return the new count."""
        key, n = _key("add", key), _amount("add", amount)
        with self._cond:
            total, stored = _added(key, self._data.get(key), n)
            self._put(key, stored)
            return total

    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        """Compare-and-set; returns the value ``key`` then has."""
        key = _key("compare_set", key)
        expected = _value("compare_set", expected_value, "expected_value")
        desired = _value("compare_set", desired_value, "desired_value")
        with self._cond:
            write, result = _compare_set(self._data.get(key), expected, desired)
            if write:
                self._put(key, desired)
            return result

    def wait(self, keys: Sequence[str], timeout: timedelta | None = None) -> None:
        """Block until every key exists."""
        names = _keys("wait", keys)
        with self._cond:
            self._wait_for(names, timeout)

    def check(self, keys: Sequence[str]) -> bool:
        """True if every key exists."""
        names = _keys("check", keys)
        with self._cond:
            return all(k in self._data for k in names)

    def delete_key(self, key: str) -> bool:
        """Remove ``key``; True if it existed."""
        key = _key("delete_key", key)
        with self._cond:
            return self._data.pop(key, None) is not None

    def num_keys(self) -> int:
        """The number of keys."""
        with self._cond:
            return len(self._data)

    def append(self, key: str, value: str | bytes) -> None:
        """Append to the value of ``key`` (atomic)."""
        key, piece = _key("append", key), _value("append", value)
        with self._cond:
            self._put(key, self._data.get(key, b"") + piece)

    def multi_get(self, keys: Sequence[str]) -> list[bytes]:
        """The values of ``keys`` (atomic: waits until all exist)."""
        names = _keys("multi_get", keys)
        with self._cond:
            self._wait_for(names, None)
            return [self._data[k] for k in names]

    def multi_set(self, keys: Sequence[str], values: Sequence[str | bytes]) -> None:
        """Set every key (atomic)."""
        names = _keys("multi_set", keys)
        _same_size(names, values)
        data = [_value("multi_set", v) for v in values]
        with self._cond:
            self._data.update(zip(names, data))
            self._cond.notify_all()

    def has_extended_api(self) -> bool:
        """True."""
        return True


# --- PrefixStore -----------------------------------------------------------------------------


class PrefixStore(Store):
    """A view of ``store`` in which every key is ``prefix + "/" + key`` (PyTorch's joining,
    also for an empty prefix or one ending in "/"); the timeout is the underlying store's.

    Examples:
        >>> from ember.distributed.store import HashStore, PrefixStore
        >>> base = HashStore()
        >>> inner = PrefixStore("b", PrefixStore("a", base))
        >>> inner.set("k", "v")
        >>> base.get("a/b/k"), inner.get("k")
        (b'v', b'v')
        >>> inner.underlying_store.underlying_store is base
        True
    """

    def __init__(self, prefix: str, store: Store) -> None:
        if store is None:
            raise ValueError("store argument cannot be None")
        if not isinstance(prefix, str):
            raise TypeError(f"PrefixStore(): prefix must be a str, got {type(prefix).__name__}")
        if not isinstance(store, Store):
            raise TypeError(f"PrefixStore(): store must be a Store, got {type(store).__name__}")
        super().__init__()
        self._prefix = prefix
        self._store = store

    def _k(self, fn: str, key: str) -> str:
        return f"{self._prefix}/{_key(fn, key)}"

    @property
    def underlying_store(self) -> Store:
        """The store this one wraps."""
        return self._store

    @property
    def _underlying_non_prefix_store(self) -> Store:
        store: Store = self._store
        while isinstance(store, PrefixStore):
            store = store._store
        return store

    @property
    def timeout(self) -> timedelta:
        """The underlying store's timeout."""
        return self._store.timeout

    def set_timeout(self, timeout: timedelta) -> None:
        """Set the underlying store's timeout."""
        self._store.set_timeout(timeout)

    def set(self, key: str, value: str | bytes) -> None:
        """``set`` on the prefixed key."""
        self._store.set(self._k("set", key), value)

    def get(self, key: str) -> bytes:
        """``get`` of the prefixed key."""
        return self._store.get(self._k("get", key))

    def add(self, key: str, amount: int) -> int:
        """``add`` on the prefixed key."""
        return self._store.add(self._k("add", key), amount)

    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        """``compare_set`` on the prefixed key."""
        return self._store.compare_set(self._k("compare_set", key), expected_value, desired_value)

    def wait(self, keys: Sequence[str], timeout: timedelta | None = None) -> None:
        """``wait`` for the prefixed keys."""
        self._store.wait([self._k("wait", k) for k in _keys("wait", keys)], timeout)

    def check(self, keys: Sequence[str]) -> bool:
        """``check`` of the prefixed keys."""
        return self._store.check([self._k("check", k) for k in _keys("check", keys)])

    def delete_key(self, key: str) -> bool:
        """``delete_key`` of the prefixed key."""
        return self._store.delete_key(self._k("delete_key", key))

    def num_keys(self) -> int:
        """The underlying store's key count (all prefixes), as in PyTorch."""
        return self._store.num_keys()

    def append(self, key: str, value: str | bytes) -> None:
        """``append`` to the prefixed key."""
        self._store.append(self._k("append", key), value)

    def multi_get(self, keys: Sequence[str]) -> list[bytes]:
        """``multi_get`` of the prefixed keys."""
        return self._store.multi_get([self._k("multi_get", k) for k in _keys("multi_get", keys)])

    def multi_set(self, keys: Sequence[str], values: Sequence[str | bytes]) -> None:
        """``multi_set`` of the prefixed keys."""
        self._store.multi_set([self._k("multi_set", k) for k in _keys("multi_set", keys)], values)

    def has_extended_api(self) -> bool:
        """The underlying store's answer."""
        return self._store.has_extended_api()


# --- FileStore -------------------------------------------------------------------------------

# Note [FileStore file format]
# The file is an append-only log: an 8-byte header, then records ``<u8 kind, u32 key length,
# u32 value length>`` + key + value, kinds SET / DELETE / APPEND. Every operation opens the
# file, takes flock (shared to read, exclusive to write), replays the records it has not seen
# yet into its cache, and appends at most a few records -- so any number of processes share
# one file. Lengths are checked against the limits and the file's size before a byte of a
# record is read. User keys are stored as "+" + key; "refcount/" and "cleanup/" count the
# FileStores of the file, and the last of ``world_size`` to close deletes it (PyTorch's rule).

_FILE_MAGIC = b"EMBERFS\x01"
_RECORD = struct.Struct("<BII")
_SET, _DELETE, _APPEND = 1, 2, 3
_REFCOUNT, _CLEANUP = "refcount/", "cleanup/"
_POLL_S = 0.01


class FileStore(Store):
    """A store several processes share through one file (see Note [FileStore file format]).

    With ``world_size >= 0`` the file is deleted when that many FileStores of it have closed
    and none is open; ``world_size=-1`` keeps it. ``delete_key`` returns whether the key
    existed (PyTorch's FileStore always says True).

    Examples:
        >>> import os, tempfile
        >>> from ember.distributed.store import FileStore
        >>> path = os.path.join(tempfile.mkdtemp(), "store")
        >>> a, b = FileStore(path, 2), FileStore(path, 2)
        >>> a.set("rank0", "ready")
        >>> b.get("rank0"), b.add("n", 1), a.add("n", 1)
        (b'ready', 1, 2)
        >>> a.close(); os.path.exists(path)
        True
        >>> b.close(); os.path.exists(path)
        False
        >>> os.rmdir(os.path.dirname(path))
    """

    def __init__(self, file_name: str, world_size: int = -1) -> None:
        super().__init__()
        self._closed = True  # until the file is joined, so __del__ of a failed init is quiet
        if not isinstance(file_name, str | os.PathLike):
            raise TypeError(f"FileStore(): file_name must be a str, got {type(file_name).__name__}")
        self._path = os.fspath(file_name)
        self._world_size = operator.index(world_size)
        self._mutex = threading.RLock()
        self._cache: dict[str, bytes] = {}
        self._pos = 0
        self._ident: tuple[int, int] | None = None
        deadline = _deadline(_timeout_s(self._timeout, "FileStore"))
        with self._file(exclusive=True, deadline=deadline) as fd:
            self._write_add(fd, _REFCOUNT, 1)
        self._closed = False

    @property
    def path(self) -> str:
        """The file's path."""
        return self._path

    @property
    def world_size(self) -> int:
        """How many FileStores close before the file is deleted (-1: never)."""
        return self._world_size

    def __repr__(self) -> str:
        return f"FileStore({self._path!r}, world_size={self._world_size})"

    # -- the file ---------------------------------------------------------------------------

    def _corrupt(self, pos: int, what: str) -> DistStoreError:
        return DistStoreError(
            f"FileStore file {self._path!r} is corrupt at offset {pos}: {what}; "
            "delete it or pass another file_name"
        )

    @contextlib.contextmanager
    def _file(self, exclusive: bool, deadline: float | None) -> Iterator[int]:
        """Open and flock the file (bounded by ``deadline``) and replay what is new."""
        import fcntl  # POSIX only: the other stores work without it

        with self._mutex:
            try:
                fd = os.open(self._path, os.O_RDWR | os.O_CREAT, 0o600)
            except OSError as e:
                raise DistStoreError(f"FileStore could not open {self._path!r}: {e}") from e
            try:
                self._flock(fd, fcntl.LOCK_EX if exclusive else fcntl.LOCK_SH, deadline)
                try:
                    self._replay(fd)
                    yield fd
                finally:
                    fcntl.flock(fd, fcntl.LOCK_UN)
            finally:
                os.close(fd)

    def _flock(self, fd: int, how: int, deadline: float | None) -> None:
        import fcntl

        delay = 0.001
        while True:
            try:
                fcntl.flock(fd, how | fcntl.LOCK_NB)
                return
            except BlockingIOError:
                left = _left(deadline)
                if left is not None and left <= 0:
                    raise DistStoreError(
                        f"FileStore timed out waiting for the lock of {self._path!r}"
                    ) from None
                time.sleep(delay if left is None else min(delay, left))
                delay = min(2 * delay, 0.05)

    def _read(self, fd: int, n: int, pos: int) -> bytes:
        chunks, got = [], 0
        while got < n:
            chunk = os.pread(fd, n - got, pos + got)
            if not chunk:
                raise self._corrupt(pos, "the file shrank while it was read")
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)

    def _replay(self, fd: int) -> None:
        st = os.fstat(fd)
        if (st.st_dev, st.st_ino) != self._ident or st.st_size < self._pos:
            self._cache, self._pos, self._ident = {}, 0, (st.st_dev, st.st_ino)
        size = st.st_size
        if self._pos == 0 and size:
            head = self._read(fd, min(size, len(_FILE_MAGIC)), 0)
            if head != _FILE_MAGIC:
                raise self._corrupt(0, f"not an ember FileStore file (header {head!r})")
            self._pos = len(_FILE_MAGIC)
        while self._pos < size:
            pos = self._pos
            if size - pos < _RECORD.size:
                raise self._corrupt(pos, "a truncated record header")
            kind, klen, vlen = _RECORD.unpack(self._read(fd, _RECORD.size, pos))
            if (
                kind not in (_SET, _DELETE, _APPEND)
                or klen > MAX_KEY_BYTES
                or vlen > MAX_VALUE_BYTES
            ):
                raise self._corrupt(
                    pos, f"a bad record (kind {kind}, key {klen} B, value {vlen} B)"
                )
            end = pos + _RECORD.size + klen + vlen
            if end > size:
                raise self._corrupt(
                    pos, f"a truncated record (it ends at {end}, the file at {size})"
                )
            blob = self._read(fd, klen + vlen, pos + _RECORD.size)
            try:
                key = blob[:klen].decode()
            except UnicodeDecodeError:
                raise self._corrupt(pos, "a key that is not UTF-8") from None
            self._apply(kind, key, blob[klen:])
            self._pos = end

    def _apply(self, kind: int, key: str, value: bytes) -> None:
        if kind == _SET:
            self._cache[key] = value
        elif kind == _APPEND:
            self._cache[key] = self._cache.get(key, b"") + value
        else:
            self._cache.pop(key, None)

    def _write(self, fd: int, kind: int, key: str, value: bytes = b"") -> None:
        """Append one record (the file is locked exclusively and replayed to its end)."""
        k = key.encode()
        record = (b"" if self._pos else _FILE_MAGIC) + _RECORD.pack(kind, len(k), len(value))
        data = memoryview(record + k + value)
        os.lseek(fd, self._pos, os.SEEK_SET)
        while data:
            data = data[os.write(fd, data) :]
        self._pos += len(record) + len(k) + len(value)
        self._apply(kind, key, value)

    def _write_add(self, fd: int, key: str, amount: int) -> int:
        total, stored = _added(key.removeprefix("+"), self._cache.get(key), amount)
        self._write(fd, _SET, key, stored)
        return total

    @contextlib.contextmanager
    def _op(self, exclusive: bool, deadline: float | None = None) -> Iterator[int]:
        if self._closed:
            raise DistStoreError(f"{self!r} is closed")
        if deadline is None:
            deadline = _deadline(_timeout_s(self._timeout, "FileStore"))
        with self._file(exclusive, deadline) as fd:
            yield fd

    def _poll(self, fn: str, keys: list[str], timeout: timedelta | None) -> list[bytes]:
        seconds = _timeout_s(self._timeout if timeout is None else timeout, fn)
        deadline = _deadline(seconds)
        stored = ["+" + k for k in keys]
        while True:
            with self._op(exclusive=False, deadline=deadline):
                if all(k in self._cache for k in stored):
                    return [self._cache[k] for k in stored]
            left = _left(deadline)
            if left is not None and left <= 0:
                if fn == "get":
                    raise DistStoreError(
                        f"Timeout waiting for key: {keys[0]} after {_ms(seconds)} ms"
                    )
                raise DistStoreError(
                    f"Wait timeout after {_ms(seconds)}ms, keys: {', '.join(keys)}"
                )
            time.sleep(_POLL_S if left is None else max(0.0, min(_POLL_S, left)))

    def _stored(self, fn: str, key: str) -> str:
        stored = "+" + _key(fn, key)
        _limit_key(fn, key, stored.encode())
        return stored

    # -- the Store interface ----------------------------------------------------------------

    def set(self, key: str, value: str | bytes) -> None:
        """Store ``value`` under ``key``."""
        stored, data = self._stored("set", key), _limit_value("set", _value("set", value))
        with self._op(exclusive=True) as fd:
            self._write(fd, _SET, stored, data)

    def get(self, key: str) -> bytes:
        """The value of ``key``, polling the file up to ``timeout``."""
        self._stored("get", key)
        return self._poll("get", [key], None)[0]

    def add(self, key: str, amount: int) -> int:
        """Add to the counter ``key``; return the new count."""
        stored, n = self._stored("add", key), _amount("add", amount)
        with self._op(exclusive=True) as fd:
            return self._write_add(fd, stored, n)

    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        """Compare-and-set; returns the value ``key`` then has."""
        stored = self._stored("compare_set", key)
        expected = _value("compare_set", expected_value, "expected_value")
        desired = _limit_value("compare_set", _value("compare_set", desired_value, "desired_value"))
        with self._op(exclusive=True) as fd:
            write, result = _compare_set(self._cache.get(stored), expected, desired)
            if write:
                self._write(fd, _SET, stored, desired)
            return result

    def wait(self, keys: Sequence[str], timeout: timedelta | None = None) -> None:
        """Block until every key exists."""
        self._poll("wait", _keys("wait", keys), timeout)

    def check(self, keys: Sequence[str]) -> bool:
        """True if every key exists."""
        names = _keys("check", keys)
        with self._op(exclusive=False):
            return all("+" + k in self._cache for k in names)

    def delete_key(self, key: str) -> bool:
        """Remove ``key``; True if it existed."""
        stored = self._stored("delete_key", key)
        with self._op(exclusive=True) as fd:
            if stored not in self._cache:
                return False
            self._write(fd, _DELETE, stored)
            return True

    def num_keys(self) -> int:
        """The number of keys, counting the FileStore's own "refcount/" (and "cleanup/")."""
        with self._op(exclusive=False):
            return len(self._cache)

    def append(self, key: str, value: str | bytes) -> None:
        """Append to the value of ``key`` (one APPEND record)."""
        stored, piece = self._stored("append", key), _value("append", value)
        with self._op(exclusive=True) as fd:
            _limit_value("append", self._cache.get(stored, b"") + piece)
            self._write(fd, _APPEND, stored, piece)

    def multi_get(self, keys: Sequence[str]) -> list[bytes]:
        """The values of ``keys`` (waits until all exist)."""
        return self._poll("multi_get", _keys("multi_get", keys), None)

    def multi_set(self, keys: Sequence[str], values: Sequence[str | bytes]) -> None:
        """Set every key (one exclusive lock)."""
        names = _keys("multi_set", keys)
        _same_size(names, values)
        pairs = [
            (self._stored("multi_set", k), _limit_value("multi_set", _value("multi_set", v)))
            for k, v in zip(names, values)
        ]
        with self._op(exclusive=True) as fd:
            for stored, data in pairs:
                self._write(fd, _SET, stored, data)

    def close(self) -> None:
        """Leave the file: the last of ``world_size`` FileStores to close deletes it.

        Idempotent; also run when the FileStore is collected.
        """
        with self._mutex:
            if self._closed or not os.path.exists(self._path):
                self._closed = True
                return
            with self._op(exclusive=True) as fd:
                self._closed = True
                finished = self._write_add(fd, _CLEANUP, 1)
                left = self._write_add(fd, _REFCOUNT, -1)
                if left == 0 and 0 <= self._world_size <= finished:
                    with contextlib.suppress(OSError):
                        os.remove(self._path)

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()


# --- TCPStore --------------------------------------------------------------------------------

# Note [TCPStore wire protocol]
# Little endian. On connect the server sends a 38-byte hello: b"EMBS", version 1, flags (bit 0:
# a secret is required) and a 32-byte random nonce Ns. With a secret the client answers with
# its own 32-byte nonce Nc and HMAC-SHA256(secret, b"ember-tcpstore client" + Ns + Nc); the
# server checks it with hmac.compare_digest and answers b"\x01" + HMAC-SHA256(secret,
# b"ember-tcpstore server" + Ns + Nc) (mutual: the client checks that too) or b"\x00" + 32
# zero bytes and closes. Different labels stop reflection, fresh nonces stop replay, and the
# secret itself never crosses the wire. A client with a secret refuses a server without one.
# A close without that verdict byte is not a refusal: the client reconnects (a server under a
# flood may shed its oldest unauthenticated connection, Note [TCPStore server under pressure]).
# Then request frames: <u8 opcode, u32 body length> + body; responses <u8 status (0 ok,
# 1 timeout, 2 error), u32 body length> + body. A body is a sequence of fields, each
# <u32 length> + bytes; integers are 8-byte fields. The server checks the declared length
# against the limits as soon as the 5-byte header is in, and closes the connection on an
# unknown opcode, an oversized or malformed body; each field is checked before use. A
# blocking request (GET, WAIT, MULTI_GET) carries its timeout in milliseconds (0: none) and is
# parked on the server until its keys exist or its deadline passes; the client gives the reply
# 2 s more, then drops the connection (the next call reconnects). An error reply carries
# <u8 kind (1 ValueError, 2 DistStoreError), message>. Opcodes: 1 SET key value, 2 GET ms key,
# 3 ADD key i64, 4 CAS key expected desired, 5 WAIT ms keys..., 6 CHECK keys..., 7 DELETE key,
# 8 NUM_KEYS, 9 APPEND key value, 10 MULTI_GET ms keys..., 11 MULTI_SET keys... values....
# Clients prefix user keys with "/" (as PyTorch does), so the "init/" counter of
# wait_for_workers is out of the user's reach. The secret authenticates the connection, it
# does not encrypt or sign the frames after it: on an untrusted network, tunnel the port.

_HELLO = struct.Struct("<4sBB32s")
_MAGIC, _VERSION, _NEEDS_SECRET = b"EMBS", 1, 1
_HEADER = struct.Struct("<BI")
_U32, _I64 = struct.Struct("<I"), struct.Struct("<q")
_CLIENT_LABEL, _SERVER_LABEL = b"ember-tcpstore client", b"ember-tcpstore server"
_OK, _TIMEOUT, _ERROR = 0, 1, 2
_ERROR_TYPES: dict[int, type[Exception]] = {1: ValueError, 2: DistStoreError}
_INIT_KEY = b"init/"
_REPLY_GRACE_S = 2.0

# Note [TCPStore server under pressure]
# An unauthenticated connection costs the server a file descriptor and nothing else, so
# three bounds keep strangers from starving the ranks:
# * at most MAX_PENDING_HANDSHAKES connections may be unauthenticated at once. At the cap the
#   server stops watching its listener (new clients wait in the kernel's backlog) until a slot
#   frees, or until the oldest unauthenticated connection is _EVICT_AFTER_S old: then that one
#   is dropped to make room ("drop the oldest", not "refuse the newest": an idle flood cannot
#   hold the slots, and an honest client, which answers the challenge within one round trip,
#   is never the oldest for long; one that is dropped anyway sees a close without a verdict
#   and reconnects);
# * a connection that has not authenticated within HANDSHAKE_TIMEOUT_S (or the server's
#   timeout, if shorter) is closed, whatever the store's timeout is;
# * when accept() fails for want of descriptors (EMFILE, ENFILE, ENOBUFS, ENOMEM) the server
#   first drops its oldest unauthenticated connection if one is _EVICT_AFTER_S old, and
#   otherwise stops watching the listener for a back-off (50 ms, doubling up to 1 s, reset by
#   the next accept that works, cut short when the oldest unauthenticated connection becomes
#   old enough to drop) instead of spinning on a listener that stays readable; it logs once
#   when such an episode starts and once when it ends.
# Every warning a client can provoke goes through one rate limit (_WARN_BURST lines per
# _WARN_PERIOD_S, then one line counting what was suppressed), so a flood of bad clients cannot
# flood the log -- nor block the server on a slow stderr for long.
MAX_PENDING_HANDSHAKES = 64
"""The most connections a TCPStore server keeps open that have not authenticated yet."""
HANDSHAKE_TIMEOUT_S = 10.0
"""How long a TCPStore server waits for a client to authenticate (at most its timeout)."""
_EVICT_AFTER_S = 0.25
_ACCEPT_BACKOFF_S = (0.05, 1.0)
_ACCEPTS_PER_STEP = 64
_OUT_OF_FDS = frozenset({errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM})
_WARN_BURST, _WARN_PERIOD_S = 5, 1.0
_LOOPBACK = {
    "127.0.0.1": ("127.0.0.1", socket.AF_INET),
    "localhost": ("127.0.0.1", socket.AF_INET),
    "::1": ("::1", socket.AF_INET6),
}


class _Op:
    SET, GET, ADD, CAS, WAIT, CHECK, DELETE, NUM_KEYS, APPEND, MULTI_GET, MULTI_SET = range(1, 12)


def _max_body() -> int:
    """The largest request or reply body (one request's values plus its keys)."""
    return MAX_VALUE_BYTES + MAX_KEYS_PER_REQUEST * (MAX_KEY_BYTES + 4) + 64


class _Malformed(Exception):
    """A peer sent bytes that do not follow Note [TCPStore wire protocol]."""


class _PeerClosed(Exception):
    """The peer closed the connection."""


def _frame(code: int, fields: Sequence[bytes]) -> bytes:
    body = b"".join(_U32.pack(len(f)) + f for f in fields)
    return _HEADER.pack(code, len(body)) + body


def _parse(body: memoryview) -> list[bytes]:
    """The fields of a body (each length checked before it is copied out)."""
    fields, i, n = [], 0, len(body)
    while i < n:
        if n - i < 4:
            raise _Malformed("a truncated field length")
        (k,) = _U32.unpack_from(body, i)
        i += 4
        if k > n - i or k > MAX_VALUE_BYTES:
            raise _Malformed(f"a field of {k} bytes in a body of {n}")
        fields.append(bytes(body[i : i + k]))
        i += k
        if len(fields) > 2 * MAX_KEYS_PER_REQUEST + 2:
            raise _Malformed("too many fields")
    return fields


def _secret_bytes(secret: str | bytes | None) -> bytes | None:
    if secret is None:
        secret = os.environ.get(SECRET_ENV) or None
    if isinstance(secret, str):
        secret = secret.encode()
    if secret is not None and not isinstance(secret, bytes):
        raise TypeError(f"secret must be str or bytes, got {type(secret).__name__}")
    return secret or None


def _mac(secret: bytes, label: bytes, ns: bytes, nc: bytes) -> bytes:
    return hmac.new(secret, label + ns + nc, hashlib.sha256).digest()


# -- the server -------------------------------------------------------------------------------


class _Conn:
    __slots__ = (
        "sock", "inbuf", "out", "nonce", "authed", "waiter", "closed", "close_after", "since",
    )  # fmt: skip

    def __init__(self, sock: socket.socket, nonce: bytes, authed: bool) -> None:
        self.since = time.monotonic()
        self.sock = sock
        self.inbuf = bytearray()
        self.out: collections.deque[memoryview] = collections.deque()
        self.nonce = nonce
        self.authed = authed
        self.waiter: _Waiter | None = None
        self.closed = False
        self.close_after = False


class _Waiter:
    __slots__ = ("conn", "op", "keys", "done")

    def __init__(self, conn: _Conn, op: int, keys: list[bytes]) -> None:
        self.conn, self.op, self.keys, self.done = conn, op, keys, False


def _need_keys(fields: list[bytes], at_least: int = 0) -> list[bytes]:
    if len(fields) < at_least or len(fields) > MAX_KEYS_PER_REQUEST:
        raise _Malformed(f"{len(fields)} keys")
    if any(len(k) > MAX_KEY_BYTES for k in fields):
        raise _Malformed("a key over MAX_KEY_BYTES")
    return fields


def _int_field(field: bytes) -> int:
    if len(field) != _I64.size:
        raise _Malformed("an integer field that is not 8 bytes")
    return int(_I64.unpack(field)[0])


def _arity(fields: list[bytes], n: int) -> list[bytes]:
    if len(fields) != n:
        raise _Malformed(f"{len(fields)} fields where {n} belong")
    return fields


class _Warnings:
    """The server's rate-limited warnings: at most ``burst`` lines per ``period`` seconds; the
    rest are counted by kind and summed up in one line when the period ends (the loop calls
    ``tick`` at ``due()``)."""

    def __init__(self, burst: int = _WARN_BURST, period: float = _WARN_PERIOD_S) -> None:
        self.burst, self.period = burst, period
        self.window_end = 0.0
        self.used = 0
        self.suppressed: collections.Counter[str] = collections.Counter()

    def warn(self, kind: str, message: str, *args: object, exc_info: bool = False) -> None:
        """Log ``message % args`` unless this period's lines are spent; ``kind`` names it in
        the summary."""
        self.tick()
        if self.used < self.burst:
            self.used += 1
            _log.warning(message, *args, exc_info=exc_info)
        else:
            self.suppressed[kind] += 1

    def due(self) -> float | None:
        """When a summary is owed (None: nothing was suppressed)."""
        return self.window_end if self.suppressed else None

    def tick(self) -> None:
        """End the period if it is over: write the summary, open a new period."""
        now = time.monotonic()
        if now < self.window_end:
            return
        if self.suppressed:
            total = sum(self.suppressed.values())
            what = ", ".join(f"{n} {kind}" for kind, n in self.suppressed.most_common())
            _log.warning(
                "TCPStore: %d more warning(s) suppressed in the last %.1f s: %s",
                total, self.period, what,
            )  # fmt: skip
            self.suppressed.clear()
        self.window_end, self.used = now + self.period, 0


class _ServerLoop:
    """The server's state and its one selector thread (no reference to TCPStoreServer, so
    collecting that object closes the loop)."""

    def __init__(self, listener: socket.socket, secret: bytes | None, handshake_s: float) -> None:
        listener.setblocking(False)
        self.listener, self.secret, self.handshake_s = listener, secret, handshake_s
        self.sel = selectors.DefaultSelector()
        self.sel.register(listener, selectors.EVENT_READ, None)
        self.listening = True
        self.pending: dict[_Conn, None] = {}  # unauthenticated, oldest first
        self.backoff_until: float | None = None  # accept() ran out of descriptors
        self.backoff_s = _ACCEPT_BACKOFF_S[0]
        self.accept_failures = 0
        self.failing_since = 0.0
        self.warnings = _Warnings()
        self.wake_r, self.wake_w = socket.socketpair()
        self.wake_r.setblocking(False)
        self.wake_w.setblocking(False)
        self.sel.register(self.wake_r, selectors.EVENT_READ, self.wake_r)
        self.data: dict[bytes, bytes] = {}
        self.waiting: dict[bytes, set[_Waiter]] = {}
        self.timers: list[tuple[float, int, _Waiter | _Conn]] = []
        self.seq = itertools.count()
        self.parked = 0
        self.conns: set[_Conn] = set()
        self.ready: collections.deque[_Conn] = collections.deque()
        self.stopping = False
        port = listener.getsockname()[1]
        self.thread = threading.Thread(target=self.run, name=f"ember-tcpstore:{port}", daemon=True)
        self.thread.start()

    def close(self) -> None:
        self.stopping = True
        with contextlib.suppress(OSError):
            self.wake_w.send(b"x")
        if threading.current_thread() is not self.thread:
            self.thread.join(5.0)

    # -- the loop ---------------------------------------------------------------------------

    def run(self) -> None:
        try:
            while not self.stopping:
                events = self.sel.select(self.next_timeout())  # if this fails, the server ends
                try:
                    self.step(events)
                except Exception:  # a bug in one step must not take the server down
                    self.warnings.warn(
                        "internal errors", "TCPStore: internal error in the server loop",
                        exc_info=True,
                    )  # fmt: skip
        finally:
            self.stopping = True
            for conn in list(self.conns):
                self.drop(conn)
            for s in (self.listener, self.wake_r, self.wake_w):
                s.close()
            self.sel.close()

    def step(self, events: list[tuple[selectors.SelectorKey, int]]) -> None:
        accept = False
        for key, mask in events:
            if key.data is None:
                accept = True
            elif key.data is self.wake_r:
                with contextlib.suppress(OSError):
                    self.wake_r.recv(4096)
            else:
                self.event(key.data, mask)
        self.fire_timers()
        while self.ready and not self.stopping:
            self.guarded(self.ready.popleft(), self.process)
        # accept last: a connection whose answer came in this round authenticates before the
        # oldest unauthenticated one may be dropped to make room (a stalled loop must not
        # mistake prompt clients for idle ones)
        if accept:
            self.accept()
        self.watch_listener()
        self.warnings.tick()

    def guarded(self, conn: _Conn, step: Callable[[_Conn], None]) -> None:
        """Run one connection's step; whatever goes wrong closes that connection only."""
        try:
            step(conn)
        except _Malformed as e:
            self.warnings.warn(
                "malformed requests", "TCPStore: closing a connection that sent %s", e
            )
            self.drop(conn)
        except Exception:
            self.warnings.warn(
                "internal errors", "TCPStore: closing a connection after an internal error",
                exc_info=True,
            )  # fmt: skip
            self.drop(conn)

    def event(self, conn: _Conn, mask: int) -> None:
        if mask & selectors.EVENT_WRITE and not conn.closed:
            self.guarded(conn, self.flush)
            if not conn.out and not conn.closed:
                self.ready.append(conn)
        if mask & selectors.EVENT_READ and not conn.closed:
            self.guarded(conn, self.read)

    def next_timeout(self) -> float | None:
        if self.ready:
            return 0.0
        deadlines = [self.timers[0][0]] if self.timers else []
        if not self.listening:  # when watching it again may be due (see wants_accept)
            if self.backoff_until is not None:
                deadlines.append(self.backoff_until)
            if self.pending:
                deadlines.append(next(iter(self.pending)).since + _EVICT_AFTER_S)
        summary = self.warnings.due()
        if summary is not None:
            deadlines.append(summary)
        if not deadlines:
            return None
        return max(0.0, min(deadlines) - time.monotonic())

    # -- accepting (Note [TCPStore server under pressure]) ----------------------------------

    def evictable(self) -> _Conn | None:
        """The oldest unauthenticated connection, if it is old enough to be dropped for room."""
        if not self.pending:
            return None
        oldest = next(iter(self.pending))
        return oldest if time.monotonic() - oldest.since >= _EVICT_AFTER_S else None

    def wants_accept(self) -> bool:
        """Whether the listener should be watched now: not while accept() is backing off for
        want of descriptors, nor while the unauthenticated are at their cap -- unless the
        oldest of them is old enough to make room."""
        if self.stopping:
            return False
        room = self.evictable() is not None
        if self.backoff_until is not None:
            if time.monotonic() < self.backoff_until and not room:
                return False
            self.backoff_until = None
        return room or len(self.pending) < MAX_PENDING_HANDSHAKES

    def watch_listener(self) -> None:
        want = self.wants_accept()
        if want != self.listening:
            if want:
                self.sel.register(self.listener, selectors.EVENT_READ, None)
            else:
                self.sel.unregister(self.listener)
            self.listening = want

    def accept(self) -> None:
        freed = False  # the next accept() may only work because a stranger gave up its fd
        for _ in range(_ACCEPTS_PER_STEP):
            if not self.wants_accept():
                return
            try:
                sock, _ = self.listener.accept()
            except (BlockingIOError, InterruptedError):
                return
            except OSError as e:
                if e.errno in (errno.ECONNABORTED, errno.EPROTO, errno.EPERM):
                    continue  # that one client is gone (or filtered): the next may be fine
                if e.errno in _OUT_OF_FDS:
                    if not self.accept_failures:
                        self.accept_failed(e, pause=False)
                    victim = self.evictable()
                    if victim is not None:  # an unauthenticated stranger gives up its fd
                        self.evict(victim, "to free a file descriptor")
                        freed = True
                        continue
                self.accept_failed(e)
                return
            if not freed:
                self.accepting_again()
            freed = False
            self.admit(sock)
            if len(self.pending) > MAX_PENDING_HANDSHAKES:
                victim = self.evictable()  # wants_accept() saw it old enough
                if victim is not None:
                    self.evict(victim, "over MAX_PENDING_HANDSHAKES")

    def accept_failed(self, error: OSError, pause: bool = True) -> None:
        """Count a failed accept(), logging the first of an episode; with ``pause``, stop
        watching the listener for a while (it stays readable: watching it would spin)."""
        now = time.monotonic()
        if not self.accept_failures:
            self.failing_since = now
            self.warnings.warn(
                "accept failures",
                "TCPStore: cannot accept connections (%s) with %d open; dropping the oldest "
                "unauthenticated ones or pausing accepts (retrying every %.2f-%.0f s)",
                error, len(self.conns), *_ACCEPT_BACKOFF_S,
            )  # fmt: skip
        self.accept_failures += 1
        if pause:
            self.backoff_until = now + self.backoff_s
            self.backoff_s = min(2 * self.backoff_s, _ACCEPT_BACKOFF_S[1])

    def accepting_again(self) -> None:
        """An accept() worked without anyone giving up a descriptor: the episode is over."""
        if self.accept_failures:
            self.warnings.warn(
                "accept failures",
                "TCPStore: accepting connections again after %d failed attempt(s) over %.1f s",
                self.accept_failures, time.monotonic() - self.failing_since,
            )  # fmt: skip
            self.accept_failures = 0
        self.backoff_s = _ACCEPT_BACKOFF_S[0]

    def admit(self, sock: socket.socket) -> None:
        sock.setblocking(False)
        with contextlib.suppress(OSError):
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        nonce = os.urandom(32) if self.secret else bytes(32)
        conn = _Conn(sock, nonce, authed=self.secret is None)
        self.conns.add(conn)
        self.sel.register(sock, selectors.EVENT_READ, conn)
        if not conn.authed:
            self.pending[conn] = None
            self.push_timer(conn.since + self.handshake_s, conn)
        flags = _NEEDS_SECRET if self.secret else 0
        self.send(conn, _HELLO.pack(_MAGIC, _VERSION, flags, nonce))

    def evict(self, conn: _Conn, why: str) -> None:
        self.warnings.warn(
            "evicted unauthenticated connections",
            "TCPStore: dropped the oldest unauthenticated connection (%.1f s old) %s",
            time.monotonic() - conn.since, why,
        )  # fmt: skip
        self.drop(conn)

    def read(self, conn: _Conn) -> None:
        try:
            chunk = conn.sock.recv(1 << 18)
        except (BlockingIOError, InterruptedError):
            return
        except OSError:
            chunk = b""
        if not chunk:
            self.drop(conn)
            return
        if conn.close_after:  # refused: what it sends now is dropped unread
            return
        conn.inbuf += chunk
        if len(conn.inbuf) > (_HEADER.size + _max_body() + 64 if conn.authed else 4096):
            raise _Malformed("more bytes than one request may hold while a reply was pending")
        self.process(conn)

    def process(self, conn: _Conn) -> None:
        """Handle every complete request in ``conn``'s buffer, one at a time."""
        buf = conn.inbuf
        while not (conn.closed or conn.waiter or conn.out or conn.close_after):
            if not conn.authed:
                if len(buf) < 64:
                    return
                self.authenticate(conn, bytes(buf[:32]), bytes(buf[32:64]))
                del buf[:64]
                continue
            if len(buf) < _HEADER.size:
                return
            code, n = _HEADER.unpack_from(buf)
            handler = _HANDLERS.get(code)
            if handler is None:
                raise _Malformed(f"an unknown opcode {code}")
            if n > _max_body():
                raise _Malformed(f"a request of {n} bytes (the limit is {_max_body()})")
            if len(buf) < _HEADER.size + n:
                return
            with memoryview(buf) as view, view[_HEADER.size : _HEADER.size + n] as body:
                fields = _parse(body)
            del buf[: _HEADER.size + n]
            reply = handler(self, conn, fields)
            if reply is not None:
                self.send(conn, reply)

    def authenticate(self, conn: _Conn, client_nonce: bytes, mac: bytes) -> None:
        assert self.secret is not None  # only unauthenticated connections come here
        if hmac.compare_digest(mac, _mac(self.secret, _CLIENT_LABEL, conn.nonce, client_nonce)):
            conn.authed = True
            self.pending.pop(conn, None)
            self.send(conn, b"\x01" + _mac(self.secret, _SERVER_LABEL, conn.nonce, client_nonce))
        else:
            self.warnings.warn(
                "refused clients", "TCPStore: refused a client with a wrong or missing secret"
            )
            conn.close_after = True
            self.send(conn, bytes(33))

    def send(self, conn: _Conn, data: bytes) -> None:
        conn.out.append(memoryview(data))
        self.flush(conn)

    def flush(self, conn: _Conn) -> None:
        while conn.out and not conn.closed:
            head = conn.out[0]
            try:
                sent = conn.sock.send(head)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                self.drop(conn)
                return
            if sent < len(head):
                conn.out[0] = head[sent:]
                break
            conn.out.popleft()
        if conn.closed:
            return
        if not conn.out and conn.close_after:
            self.drop(conn)
            return
        events = selectors.EVENT_READ | (selectors.EVENT_WRITE if conn.out else 0)
        if self.sel.get_key(conn.sock).events != events:
            self.sel.modify(conn.sock, events, conn)

    def drop(self, conn: _Conn) -> None:
        if conn.closed:
            return
        conn.closed = True
        if conn.waiter is not None:
            self.unpark(conn.waiter)
        self.conns.discard(conn)
        self.pending.pop(conn, None)
        with contextlib.suppress(KeyError, ValueError, OSError):
            self.sel.unregister(conn.sock)
        conn.sock.close()

    # -- parked requests --------------------------------------------------------------------

    def push_timer(self, deadline: float, item: _Waiter | _Conn) -> None:
        heapq.heappush(self.timers, (deadline, next(self.seq), item))

    def fire_timers(self) -> None:
        now = time.monotonic()
        while self.timers and self.timers[0][0] <= now:
            item = heapq.heappop(self.timers)[2]
            if isinstance(item, _Waiter):
                if not item.done:
                    self.finish(item, _frame(_TIMEOUT, []))
            elif not item.authed and not item.closed:
                self.warnings.warn(
                    "handshake timeouts",
                    "TCPStore: closing a client that did not authenticate within %.1f s",
                    self.handshake_s,
                )  # fmt: skip
                self.drop(item)
        if len(self.timers) > 64 + 4 * (self.parked + len(self.conns)):  # drop stale entries
            self.timers = [t for t in self.timers if not self.stale(t[2])]
            heapq.heapify(self.timers)

    @staticmethod
    def stale(item: _Waiter | _Conn) -> bool:
        return item.done if isinstance(item, _Waiter) else (item.authed or item.closed)

    def park(self, conn: _Conn, op: int, timeout_ms: int, keys: list[bytes]) -> bytes | None:
        if all(k in self.data for k in keys):
            return self.answer(op, keys)
        waiter = _Waiter(conn, op, keys)
        conn.waiter = waiter
        self.parked += 1
        for k in set(keys):
            self.waiting.setdefault(k, set()).add(waiter)
        if timeout_ms:
            self.push_timer(time.monotonic() + timeout_ms / 1000, waiter)
        return None

    def unpark(self, waiter: _Waiter) -> None:
        waiter.done = True
        self.parked -= 1
        waiter.conn.waiter = None
        for k in set(waiter.keys):
            group = self.waiting.get(k)
            if group is not None:
                group.discard(waiter)
                if not group:
                    del self.waiting[k]

    def finish(self, waiter: _Waiter, reply: bytes) -> None:
        self.unpark(waiter)
        if not waiter.conn.closed:
            self.send(waiter.conn, reply)
            self.ready.append(waiter.conn)

    def answer(self, op: int, keys: list[bytes]) -> bytes:
        if op == _Op.WAIT:
            return _frame(_OK, [])
        values = [self.data[k] for k in keys]
        if sum(map(len, values)) + 4 * len(values) > _max_body():
            return _error(ValueError, "multi_get(): the values are larger than one reply may be")
        return _frame(_OK, values)

    def put(self, key: bytes, value: bytes) -> None:
        self.data[key] = value
        for waiter in list(self.waiting.get(key, ())):
            if not waiter.done and all(k in self.data for k in waiter.keys):
                self.finish(waiter, self.answer(waiter.op, waiter.keys))


def _error(kind: type[Exception], message: str) -> bytes:
    code = next(c for c, t in _ERROR_TYPES.items() if t is kind)
    return _frame(_ERROR, [bytes([code]), message.encode()])


def _on_set(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
    key, value = _arity(fields, 2)
    loop.put(_need_keys([key])[0], value)
    return _frame(_OK, [])


def _on_get(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
    timeout, key = _arity(fields, 2)
    return loop.park(conn, _Op.GET, _int_field(timeout), _need_keys([key]))


def _on_add(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
    key, amount = _arity(fields, 2)
    try:
        name = key.decode(errors="replace").removeprefix("/")
        total, stored = _added(name, loop.data.get(key), _int_field(amount))
    except ValueError as e:
        return _error(ValueError, str(e))
    loop.put(_need_keys([key])[0], stored)
    return _frame(_OK, [_I64.pack(total)])


def _on_cas(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
    key, expected, desired = _arity(fields, 3)
    write, result = _compare_set(loop.data.get(_need_keys([key])[0]), expected, desired)
    if write:
        loop.put(key, desired)
    return _frame(_OK, [result])


def _on_check(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
    present = all(k in loop.data for k in _need_keys(fields))
    return _frame(_OK, [b"\x01" if present else b"\x00"])


def _on_delete(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
    (key,) = _need_keys(_arity(fields, 1))
    return _frame(_OK, [b"\x01" if loop.data.pop(key, None) is not None else b"\x00"])


def _on_num_keys(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
    _arity(fields, 0)
    return _frame(_OK, [_I64.pack(len(loop.data))])


def _on_append(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
    key, value = _arity(fields, 2)
    total = loop.data.get(_need_keys([key])[0], b"") + value
    if len(total) > MAX_VALUE_BYTES:
        return _error(
            ValueError, f"append(): the value would be {len(total)} bytes, over the limit"
        )
    loop.put(key, total)
    return _frame(_OK, [])


def _on_multi_set(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
    if len(fields) % 2:
        raise _Malformed("a MULTI_SET with an odd number of fields")
    half = len(fields) // 2
    for key, value in zip(_need_keys(fields[:half]), fields[half:]):
        loop.put(key, value)
    return _frame(_OK, [])


_Handler = Callable[[_ServerLoop, _Conn, list[bytes]], bytes | None]


def _blocking(op: int) -> _Handler:
    def handler(loop: _ServerLoop, conn: _Conn, fields: list[bytes]) -> bytes | None:
        if not fields:
            raise _Malformed("a blocking request without its timeout")
        return loop.park(conn, op, _int_field(fields[0]), _need_keys(fields[1:]))

    return handler


_HANDLERS: dict[int, _Handler] = {
    _Op.SET: _on_set,
    _Op.GET: _on_get,
    _Op.ADD: _on_add,
    _Op.CAS: _on_cas,
    _Op.WAIT: _blocking(_Op.WAIT),
    _Op.CHECK: _on_check,
    _Op.DELETE: _on_delete,
    _Op.NUM_KEYS: _on_num_keys,
    _Op.APPEND: _on_append,
    _Op.MULTI_GET: _blocking(_Op.MULTI_GET),
    _Op.MULTI_SET: _on_multi_set,
}


# -- the server's public face -----------------------------------------------------------------


def _listen(bind: str, port: int) -> socket.socket:
    """A listening socket on ``bind`` ("" = every interface, dual-stack where possible)."""
    try:
        if bind in _LOOPBACK:
            addr, family = _LOOPBACK[bind]
            return socket.create_server((addr, port), family=family, backlog=socket.SOMAXCONN)
        if bind == "" and socket.has_dualstack_ipv6():
            try:
                return socket.create_server(
                    ("", port),
                    family=socket.AF_INET6,
                    dualstack_ipv6=True,
                    backlog=socket.SOMAXCONN,
                )
            except OSError as e:
                if e.errno == errno.EADDRINUSE:
                    raise
        family = socket.AF_INET6 if ":" in bind else socket.AF_INET
        return socket.create_server((bind, port), family=family, backlog=socket.SOMAXCONN)
    except OSError as e:
        where = f"{bind}" if bind else "any local network address"
        name = errno.errorcode.get(e.errno or 0, "?")
        raise DistNetworkError(
            f"The server socket has failed to listen on {where}. port: {port}, "
            f"code: {-(e.errno or 0)}, name: {name}, message: {e.strerror}"
        ) from e


def _adopt(fd: int) -> socket.socket:
    """A listening socket from the caller's bound socket ``fd`` (a duplicate: theirs stays)."""
    try:
        sock = socket.socket(fileno=os.dup(operator.index(fd)))
        sock.listen(socket.SOMAXCONN)
        return sock
    except OSError as e:
        raise DistNetworkError(
            f"TCPStore: master_listen_fd={fd} is not a usable socket: {e}"
        ) from e


class TCPStoreServer:
    """A TCPStore server on its own: one daemon thread serving ``host:port`` (``port=0``: a
    free port, see ``.port``; ``host=""``: every interface), optionally guarded by ``secret``
    (default: ``$EMBER_STORE_SECRET``). Clients are ``TCPStore(host, port, is_master=False)``.
    A client that has not authenticated within ``timeout`` (at most ``HANDSHAKE_TIMEOUT_S``)
    is dropped, and at most ``MAX_PENDING_HANDSHAKES`` may be unauthenticated at once (Note
    [TCPStore server under pressure]). ``close()`` (or collecting the object) stops the thread
    and closes every socket.

    Examples:
        >>> from datetime import timedelta
        >>> from ember.distributed.store import TCPStore, TCPStoreServer
        >>> with TCPStoreServer("127.0.0.1", 0, secret=b"k") as server:
        ...     client = TCPStore("127.0.0.1", server.port, secret=b"k")
        ...     client.set("x", "1")
        ...     print(client.get("x"))
        ...     client.close()
        b'1'
    """

    def __init__(
        self,
        host: str = "",
        port: int = 0,
        *,
        secret: str | bytes | None = None,
        timeout: timedelta = _DEFAULT_TIMEOUT,
        listen_fd: int | None = None,
    ) -> None:
        timeout_s = _timeout_s(timeout, "TCPStoreServer")
        handshake_s = min(timeout_s or HANDSHAKE_TIMEOUT_S, HANDSHAKE_TIMEOUT_S)
        key = _secret_bytes(secret)
        listener = _listen(host, operator.index(port)) if listen_fd is None else _adopt(listen_fd)
        self._host = host
        self._port = int(listener.getsockname()[1])
        self._loop = _ServerLoop(listener, key, handshake_s)

    @property
    def host(self) -> str:
        """The address it listens on ("" = every interface)."""
        return self._host

    @property
    def port(self) -> int:
        """The port it listens on."""
        return self._port

    @property
    def closed(self) -> bool:
        """True once the server stopped."""
        return self._loop.stopping

    def close(self) -> None:
        """Stop serving and close every socket (idempotent)."""
        self._loop.close()

    def __enter__(self) -> TCPStoreServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()

    def __repr__(self) -> str:
        return f"TCPStoreServer(host={self._host!r}, port={self._port}, closed={self.closed})"


_TENANTS: dict[int, weakref.ref[TCPStoreServer]] = {}
_TENANTS_LOCK = threading.Lock()


def _master_server(
    host: str, port: int, multi_tenant: bool, listen_fd: int | None, secret: bytes | None,
    timeout: timedelta,
) -> TCPStoreServer:  # fmt: skip
    # Like PyTorch, a master listens on every interface (its host name may resolve to an
    # address other machines cannot use); a loopback host name keeps it on loopback.
    bind = host if host in _LOOPBACK else ""
    if not multi_tenant:
        return TCPStoreServer(bind, port, secret=secret, timeout=timeout, listen_fd=listen_fd)
    with _TENANTS_LOCK:
        ref = _TENANTS.get(port) if port else None
        server = ref() if ref is not None else None
        if server is None or server.closed:
            server = TCPStoreServer(bind, port, secret=secret, timeout=timeout, listen_fd=listen_fd)
            _TENANTS[server.port] = weakref.ref(server)
        return server


# -- the client -------------------------------------------------------------------------------


def _recv_exact(sock: socket.socket, n: int, deadline: float | None) -> bytearray:
    buf = bytearray(n)  # n was checked against the limits by the caller
    view, got = memoryview(buf), 0
    while got < n:
        left = _left(deadline)
        if left is not None and left <= 0:
            raise TimeoutError("timed out")
        sock.settimeout(left)
        k = sock.recv_into(view[got:])
        if k == 0:
            raise _PeerClosed
        got += k
    return buf


def _send_all(sock: socket.socket, data: bytes, deadline: float | None) -> None:
    left = _left(deadline)
    if left is not None and left <= 0:
        raise TimeoutError("timed out")
    sock.settimeout(left)
    sock.sendall(data)


def _wire_ms(seconds: float | None) -> bytes:
    return _I64.pack(0 if seconds is None else max(1, -int(-seconds * 1000 // 1)))


class TCPStore(Store):
    """A store served over TCP (PyTorch's ``TCPStore``, with its own wire protocol, see
    Note [TCPStore wire protocol]).

    The master (``is_master=True``) starts a server thread on ``port`` (0: a free one, see
    ``.port``); every store, master included, is a client with one socket, shared by its
    threads under a lock. With ``world_size`` set and ``wait_for_workers``, each store adds 1
    to the "init/" counter and the master waits until ``world_size`` have. ``secret`` (or
    ``$EMBER_STORE_SECRET``) must match the server's. ``use_libuv`` is accepted and ignored
    (``libuvBackend`` is False); ``multi_tenant`` masters on one port share one server.
    Connecting retries with backoff until ``timeout``; every call is bounded by it.

    Examples:
        >>> from datetime import timedelta
        >>> from ember.distributed.store import TCPStore
        >>> master = TCPStore("127.0.0.1", 0, None, True, timedelta(seconds=10))
        >>> worker = TCPStore("127.0.0.1", master.port, None, False, timedelta(seconds=10))
        >>> worker.set("addr", "10.0.0.1:29500")
        >>> master.get("addr"), master.add("count", 1), worker.add("count", 1)
        (b'10.0.0.1:29500', 1, 2)
        >>> master.set_timeout(timedelta(milliseconds=50))
        >>> master.wait(["never"])
        Traceback (most recent call last):
        ...
        ember.distributed.errors.DistStoreError: wait timeout after 50ms, keys: /never
        >>> worker.close(); master.close()
    """

    def __init__(
        self,
        host_name: str,
        port: int,
        world_size: int | None = None,
        is_master: bool = False,
        timeout: timedelta = _DEFAULT_TIMEOUT,
        wait_for_workers: bool = True,
        multi_tenant: bool = False,
        master_listen_fd: int | None = None,
        use_libuv: bool = True,
        *,
        secret: str | bytes | None = None,
    ) -> None:
        super().__init__()
        self._lock = threading.Lock()
        self._sock: socket.socket | None = None
        self._server: TCPStoreServer | None = None
        self._closed = False
        self._multi_tenant = bool(multi_tenant)
        if not isinstance(host_name, str):
            raise TypeError(f"TCPStore(): host_name must be a str, got {type(host_name).__name__}")
        port = operator.index(port)
        if not 0 <= port < 65536:
            raise ValueError(f"TCPStore(): port must be in [0, 65535], got {port}")
        self._world_size = None if world_size is None else operator.index(world_size)
        seconds = _timeout_s(timeout, "TCPStore")
        self._timeout = timeout
        self._host, self._port = host_name, port
        self._secret = _secret_bytes(secret)
        try:
            if is_master:
                self._server = _master_server(
                    host_name, port, self._multi_tenant, master_listen_fd, self._secret, timeout
                )
                self._port = self._server.port
            with self._lock:
                self._sock = self._connect(_deadline(seconds), seconds)
            if self._world_size is not None and wait_for_workers:
                self._wait_for_workers(bool(is_master), seconds)
        except BaseException:
            self.close()
            raise

    @property
    def host(self) -> str:
        """The host name it was given."""
        return self._host

    @property
    def port(self) -> int:
        """The server's port (the one picked when a master was given 0)."""
        return self._port

    @property
    def libuvBackend(self) -> bool:  # noqa: N802 -- PyTorch's name
        """False: ember's server is a selector thread, not libuv."""
        return False

    @property
    def world_size(self) -> int | None:
        """The ``world_size`` it was given."""
        return self._world_size

    def __repr__(self) -> str:
        master = self._server is not None
        return f"TCPStore(host={self._host!r}, port={self._port}, is_master={master})"

    # -- connection -------------------------------------------------------------------------

    def _where(self) -> str:
        return f"{self._host}:{self._port}"

    def _refused(self) -> DistNetworkError:
        return DistNetworkError(
            f"TCPStore at {self._where()} refused this client: wrong or missing secret "
            f"(set {SECRET_ENV} or pass secret=...)"
        )

    def _connect(self, deadline: float | None, total_s: float | None) -> socket.socket:
        """Connect and authenticate, retrying with backoff until ``deadline`` (as PyTorch)."""
        delay, last = 0.01, "none"
        while True:
            left = _left(deadline)
            if left is not None and left <= 0:
                raise DistNetworkError(
                    f"The client socket has timed out after {_ms(total_s)}ms while trying to "
                    f"connect to ({self._host}, {self._port}). Last error: {last}"
                )
            try:
                sock = socket.create_connection((self._host, self._port), timeout=left)
            except OSError as e:
                last = repr(e)
            else:
                try:
                    sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
                    self._handshake(sock, deadline)
                    return sock
                except (OSError, _PeerClosed) as e:  # the server went away mid-greeting
                    sock.close()
                    last = repr(e) if isinstance(e, OSError) else "closed during the greeting"
                except BaseException:
                    sock.close()
                    raise
            left = _left(deadline)
            time.sleep(delay if left is None else max(0.0, min(delay, left)))
            delay = min(2 * delay, 1.0)

    def _handshake(self, sock: socket.socket, deadline: float | None) -> None:
        magic, version, flags, ns = _HELLO.unpack(_recv_exact(sock, _HELLO.size, deadline))
        if magic != _MAGIC or version != _VERSION:
            raise DistNetworkError(
                f"{self._where()} is not an ember TCPStore server (greeting {magic!r} v{version})"
            )
        if not flags & _NEEDS_SECRET:
            if self._secret is not None:
                raise DistNetworkError(
                    f"TCPStore at {self._where()} does not ask for a secret, but this client has "
                    f"one; refusing an unauthenticated server (start the master with the same "
                    f"secret, or unset {SECRET_ENV})"
                )
            return
        if self._secret is None:
            raise self._refused()
        nc = os.urandom(32)
        _send_all(sock, nc + _mac(self._secret, _CLIENT_LABEL, ns, nc), deadline)
        reply = _recv_exact(sock, 33, deadline)  # closed before the verdict: _connect retries
        if reply[0] != 1:
            raise self._refused()
        if not hmac.compare_digest(bytes(reply[1:]), _mac(self._secret, _SERVER_LABEL, ns, nc)):
            raise DistNetworkError(
                f"TCPStore at {self._where()} did not prove it knows the secret; not using it"
            )

    def _drop(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    def _call(
        self,
        name: str,
        op: int,
        fields: Sequence[bytes],
        blocking: tuple[float | None, list[bytes]] | None = None,
    ) -> list[bytes]:
        """One request and its reply; the connection is reset after any failure."""
        frame = _frame(op, fields)
        if len(frame) - _HEADER.size > _max_body():
            raise ValueError(
                f"{name}(): the request is {len(frame)} bytes, more than one request may hold "
                f"({_max_body()}; see MAX_VALUE_BYTES)"
            )
        store_s = _timeout_s(self._timeout, name)
        if blocking is None:
            io_s = store_s
        else:
            io_s = None if blocking[0] is None else blocking[0] + _REPLY_GRACE_S
        with self._lock:
            if self._closed:
                raise DistStoreError(f"{self!r} is closed")
            if self._sock is None:
                self._sock = self._connect(_deadline(store_s), store_s)
            sock, deadline = self._sock, _deadline(io_s)
            try:
                _send_all(sock, frame, deadline)
                status, n = _HEADER.unpack(_recv_exact(sock, _HEADER.size, deadline))
                if status not in (_OK, _TIMEOUT, _ERROR) or n > _max_body():
                    raise _Malformed(f"a reply header (status {status}, {n} bytes)")
                with memoryview(_recv_exact(sock, n, deadline)) as body:
                    reply = _parse(body)
            except TimeoutError:
                self._drop()
                raise DistStoreError(
                    f"TCPStore at {self._where()} did not answer {name}() within {_ms(io_s)}ms"
                ) from None
            except _PeerClosed:
                self._drop()
                raise DistNetworkError(
                    "Failed to recv, got 0 bytes. Connection was likely closed. Did the remote "
                    f"server shutdown or crash? (TCPStore at {self._where()}, in {name}())"
                ) from None
            except _Malformed as e:
                self._drop()
                raise DistNetworkError(f"TCPStore at {self._where()} sent {e}") from None
            except OSError as e:
                self._drop()
                raise DistNetworkError(
                    f"TCPStore at {self._where()}: the connection failed in {name}(): {e}"
                ) from e
        if status == _TIMEOUT and blocking is not None:
            keys = ", ".join(k.decode(errors="replace") for k in blocking[1])
            raise DistStoreError(f"wait timeout after {_ms(blocking[0])}ms, keys: {keys}")
        if status == _ERROR and len(reply) == 2 and len(reply[0]) == 1:
            raise _ERROR_TYPES.get(reply[0][0], DistStoreError)(reply[1].decode(errors="replace"))
        if status != _OK:
            self._drop()
            raise DistNetworkError(f"TCPStore at {self._where()} sent a malformed reply")
        return reply

    def _one(self, reply: list[bytes], size: int | None = None) -> bytes:
        if len(reply) != 1 or (size is not None and len(reply[0]) != size):
            raise DistNetworkError(f"TCPStore at {self._where()} sent a malformed reply")
        return reply[0]

    def _wire(self, fn: str, key: str) -> bytes:
        return _limit_key(fn, key, b"/" + _key(fn, key).encode())

    def _wire_keys(self, fn: str, keys: Sequence[str]) -> list[bytes]:
        names = _keys(fn, keys)
        if len(names) > MAX_KEYS_PER_REQUEST:
            raise ValueError(
                f"{fn}(): {len(names)} keys; one request may hold at most "
                f"MAX_KEYS_PER_REQUEST = {MAX_KEYS_PER_REQUEST}"
            )
        return [self._wire(fn, k) for k in names]

    def _wait_for_workers(self, is_master: bool, seconds: float | None) -> None:
        """PyTorch's rule: everyone counts itself in "init/"; the master waits for all."""
        self._call("TCPStore", _Op.ADD, [_INIT_KEY, _I64.pack(1)])
        if not is_master:
            return
        assert self._world_size is not None
        start = time.monotonic()
        while True:
            reply = self._call("TCPStore", _Op.ADD, [_INIT_KEY, _I64.pack(0)])
            joined = _I64.unpack(self._one(reply, 8))[0]
            if joined >= self._world_size:
                return
            elapsed = time.monotonic() - start
            if seconds is not None and elapsed > seconds:
                raise DistStoreError(
                    f"Timed out after {elapsed:.0f} seconds waiting for clients. "
                    f"{joined}/{self._world_size} clients joined."
                )
            time.sleep(0.01)

    # -- the Store interface ----------------------------------------------------------------

    def set(self, key: str, value: str | bytes) -> None:
        """Store ``value`` under ``key``."""
        data = _limit_value("set", _value("set", value))
        self._call("set", _Op.SET, [self._wire("set", key), data])

    def get(self, key: str) -> bytes:
        """The value of ``key``, waiting (on the server) up to ``timeout``."""
        wire, seconds = self._wire("get", key), _timeout_s(self._timeout, "get")
        reply = self._call("get", _Op.GET, [_wire_ms(seconds), wire], (seconds, [wire]))
        return self._one(reply)

    def add(self, key: str, amount: int) -> int:
        """Add to the counter ``key``; return the new count."""
        n = _amount("add", amount)
        reply = self._call("add", _Op.ADD, [self._wire("add", key), _I64.pack(n)])
        return int(_I64.unpack(self._one(reply, 8))[0])

    def compare_set(
        self, key: str, expected_value: str | bytes, desired_value: str | bytes
    ) -> bytes:
        """Compare-and-set on the server; returns the value ``key`` then has."""
        expected = _value("compare_set", expected_value, "expected_value")
        desired = _limit_value("compare_set", _value("compare_set", desired_value, "desired_value"))
        fields = [self._wire("compare_set", key), expected, desired]
        return self._one(self._call("compare_set", _Op.CAS, fields))

    def wait(self, keys: Sequence[str], timeout: timedelta | None = None) -> None:
        """Block (on the server) until every key exists."""
        wire = self._wire_keys("wait", keys)
        seconds = _timeout_s(self._timeout if timeout is None else timeout, "wait")
        self._call("wait", _Op.WAIT, [_wire_ms(seconds), *wire], (seconds, wire))

    def check(self, keys: Sequence[str]) -> bool:
        """True if every key exists."""
        reply = self._call("check", _Op.CHECK, self._wire_keys("check", keys))
        return self._one(reply, 1) == b"\x01"

    def delete_key(self, key: str) -> bool:
        """Remove ``key``; True if it existed."""
        reply = self._call("delete_key", _Op.DELETE, [self._wire("delete_key", key)])
        return self._one(reply, 1) == b"\x01"

    def num_keys(self) -> int:
        """The number of keys on the server (counting "init/" when workers were counted)."""
        return int(_I64.unpack(self._one(self._call("num_keys", _Op.NUM_KEYS, []), 8))[0])

    def append(self, key: str, value: str | bytes) -> None:
        """Append to the value of ``key`` (atomic on the server)."""
        data = _limit_value("append", _value("append", value))
        self._call("append", _Op.APPEND, [self._wire("append", key), data])

    def multi_get(self, keys: Sequence[str]) -> list[bytes]:
        """The values of ``keys`` (waits on the server until all exist)."""
        wire, seconds = self._wire_keys("multi_get", keys), _timeout_s(self._timeout, "multi_get")
        reply = self._call("multi_get", _Op.MULTI_GET, [_wire_ms(seconds), *wire], (seconds, wire))
        if len(reply) != len(wire):
            raise DistNetworkError(f"TCPStore at {self._where()} sent a malformed reply")
        return reply

    def multi_set(self, keys: Sequence[str], values: Sequence[str | bytes]) -> None:
        """Set every key (one request)."""
        wire = self._wire_keys("multi_set", keys)
        _same_size(wire, values)
        data = [_limit_value("multi_set", _value("multi_set", v)) for v in values]
        self._call("multi_set", _Op.MULTI_SET, [*wire, *data])

    def has_extended_api(self) -> bool:
        """True."""
        return True

    def close(self) -> None:
        """Close this client's socket, and stop the server if this is its (single-tenant)
        master. Idempotent; also run when the store is collected. A call blocked in another
        thread fails with ``DistNetworkError``."""
        self._closed = True
        sock = self._sock
        if sock is not None:
            with contextlib.suppress(OSError):
                sock.shutdown(socket.SHUT_RDWR)
        with self._lock:
            self._drop()
        server, self._server = self._server, None
        if server is not None and not self._multi_tenant:
            server.close()

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self.close()
