"""The stores of ``ember.distributed.store``: PyTorch's answers for the same calls, blocking and
timeouts, several threads and processes, and a TCPStore server that survives hostile clients.

Every test is bounded: waits have timeouts, threads are joined with a timeout, and every process
started is killed in a ``finally``.
"""

from __future__ import annotations

import contextlib
import fcntl
import gc
import os
import random
import re
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
import torch  # noqa: E402 - the oracle, a test dependency

from ember.distributed import store as st
from ember.distributed.errors import DistError, DistNetworkError, DistStoreError
from ember.distributed.store import (
    FileStore,
    HashStore,
    PrefixStore,
    Store,
    TCPStore,
    TCPStoreServer,
)

tdist = torch.distributed

REPO = Path(__file__).resolve().parents[2]
LOCAL = "127.0.0.1"
SHORT = timedelta(seconds=5)


# --- helpers ---------------------------------------------------------------------------------


def _outcome(call: Callable[[], Any]) -> Any:
    """A call's result, or the name of the error it raised (PyTorch's and ember's share names)."""
    try:
        return call()
    except Exception as e:  # noqa: BLE001 -- the error type is the outcome being compared
        return type(e).__name__


def _script(store: Any) -> list[Any]:
    """One sequence of calls; run on torch's store and on ember's, the answers must agree."""
    calls: list[Callable[[], Any]] = [
        lambda: store.set("a", "x"),
        lambda: store.set("b", b"\x00\xff"),
        lambda: store.get("a"),
        lambda: store.get("b"),
        lambda: store.add("c", 3),
        lambda: store.add("c", -5),
        lambda: store.get("c"),
        lambda: store.set("n", "12"),
        lambda: store.add("n", 1),
        lambda: store.check(["a", "b"]),
        lambda: store.check(["a", "zz"]),
        lambda: store.check([]),
        lambda: store.compare_set("k1", "", "v1"),
        lambda: store.get("k1"),
        lambda: store.compare_set("k2", "e", "v2"),
        lambda: store.check(["k2"]),
        lambda: store.compare_set("k1", "v1", "v1b"),
        lambda: store.compare_set("k1", "nope", "v1c"),
        lambda: store.compare_set("k1", "", "v1d"),
        lambda: store.compare_set("k1", b"v1b", b"zz"),
        lambda: store.set("empty", ""),
        lambda: store.compare_set("empty", "", "filled"),
        lambda: store.delete_key("a"),
        lambda: store.check(["a"]),
        lambda: store.num_keys(),
        lambda: store.append("ap", "po"),
        lambda: store.append("ap", b"tato"),
        lambda: store.get("ap"),
        lambda: store.multi_set(["m1", "m2"], ["x", b"y"]),
        lambda: store.multi_get(["m1", "m2"]),
        lambda: store.multi_get([]),
        lambda: store.add("big", 2**62),
        lambda: store.add("big", 2**62),
        lambda: store.set("", "v"),
        lambda: store.get(""),
        lambda: store.num_keys(),
        lambda: store.has_extended_api(),
        lambda: store.timeout,
        lambda: store.set_timeout(timedelta(seconds=0.2)),
        lambda: store.timeout,
        lambda: store.wait(["m1"]),
    ]
    return [_outcome(c) for c in calls]


@pytest.fixture
def tmp_file() -> Iterator[str]:
    with tempfile.TemporaryDirectory() as d:
        yield os.path.join(d, "store")


@pytest.fixture
def master() -> Iterator[TCPStore]:
    store = TCPStore(LOCAL, 0, None, True, SHORT)
    yield store
    store.close()


def _client(port: int, **kw: Any) -> TCPStore:
    kw.setdefault("timeout", SHORT)
    return TCPStore(LOCAL, port, **kw)


def _run_workers(code: str, args: list[list[str]], timeout: float = 20.0) -> list[str]:
    """Run ``python -c code`` once per argument list; return each stdout; kill all at the end."""
    env = {**os.environ, "PYTHONPATH": str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", "")}
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", code, *a],
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for a in args
    ]
    try:
        deadline = time.monotonic() + timeout
        outs = []
        for p in procs:
            out, err = p.communicate(timeout=max(0.1, deadline - time.monotonic()))
            assert p.returncode == 0, err
            outs.append(out)
        return outs
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()
                p.wait(5)


def _start(fn: Callable[[], Any]) -> tuple[threading.Thread, list[Any]]:
    box: list[Any] = []
    thread = threading.Thread(target=lambda: box.append(_outcome(fn)), daemon=True)
    thread.start()
    return thread, box


def _raw(port: int) -> socket.socket:
    sock = socket.create_connection((LOCAL, port), timeout=5)
    assert sock.recv(st._HELLO.size, socket.MSG_WAITALL)[:4] == b"EMBS"
    return sock


def _closed_by_peer(sock: socket.socket, within: float = 5.0) -> bool:
    """True if the peer closes ``sock`` within ``within`` seconds (whatever it sent first)."""
    sock.settimeout(within)
    try:
        while sock.recv(65536):
            pass
    except ConnectionResetError:
        return True
    except TimeoutError:
        return False
    return True


# --- the same answers as PyTorch -------------------------------------------------------------


def test_hashstore_answers_like_torch() -> None:
    assert _script(HashStore()) == _script(tdist.HashStore())


def test_prefixstore_answers_like_torch() -> None:
    ours = _script(PrefixStore("pre", HashStore()))
    assert ours == _script(tdist.PrefixStore("pre", tdist.HashStore()))


def test_tcpstore_answers_like_torch() -> None:
    theirs_store = tdist.TCPStore(LOCAL, 0, 1, True, SHORT)
    ours_store = TCPStore(LOCAL, 0, 1, True, SHORT)
    try:
        assert _script(ours_store) == _script(theirs_store)
    finally:
        ours_store.close()


def test_filestore_answers_like_torch(tmp_file: str) -> None:
    ours = _script(FileStore(tmp_file, 1))
    theirs = _script(tdist.FileStore(tmp_file + ".torch", 1))
    assert ours == theirs


def test_num_keys_counts_the_bookkeeping_keys_like_torch(tmp_file: str) -> None:
    for world_size in (None, 1):
        ours, theirs = (
            TCPStore(LOCAL, 0, world_size, True, SHORT),
            tdist.TCPStore(LOCAL, 0, world_size, True, SHORT),
        )
        assert ours.num_keys() == theirs.num_keys() == (0 if world_size is None else 1)
        ours.close()
    assert FileStore(tmp_file, 1).num_keys() == tdist.FileStore(tmp_file + ".t", 1).num_keys() == 1


def test_timeout_errors_are_torchs(master: TCPStore, tmp_file: str) -> None:
    stores: list[tuple[Store, str]] = [
        (HashStore(), r"^Wait timeout"),
        (master, r"^wait timeout after 200ms, keys: /missing$"),
        (FileStore(tmp_file), r"^Timeout waiting for key: missing after 200 ms$"),
    ]
    for store, message in stores:
        store.set_timeout(timedelta(milliseconds=200))
        start = time.monotonic()
        with pytest.raises(DistStoreError, match=message):
            store.get("missing")
        assert 0.15 < time.monotonic() - start < 2.0
        with pytest.raises(DistStoreError, match=r"^[wW]ait timeout after 100ms, keys: .*missing"):
            store.wait(["missing"], timedelta(milliseconds=100))
        with pytest.raises(RuntimeError):  # PyTorch code catches RuntimeError
            store.multi_get(["missing"])


# --- argument checks -------------------------------------------------------------------------


@pytest.mark.parametrize("make", [HashStore, lambda: PrefixStore("p", HashStore())])
def test_argument_types_are_checked(make: Callable[[], Store]) -> None:
    store = make()
    with pytest.raises(TypeError, match=r"set\(\): value must be str or bytes, got int"):
        store.set("k", 5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"get\(\): key must be a str, got int"):
        store.get(5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"add\(\): amount must be an int, got float"):
        store.add("k", 1.5)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"amount 18446744073709551616 does not fit"):
        store.add("k", 2**64)
    with pytest.raises(TypeError, match=r"check\(\): keys must be a list of str, got str"):
        store.check("abc")
    with pytest.raises(TypeError, match="timeout must be a datetime.timedelta, got int"):
        store.set_timeout(5)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="timeout must not be negative"):
        store.set_timeout(timedelta(seconds=-1))
    store.set("word", "x")
    with pytest.raises(
        ValueError, match=r"add\(\): the value of key '(p/)?word' is not an integer"
    ):
        store.add("word", 1)
    with pytest.raises(DistStoreError, match="multiSet keys and values vectors must be of same"):
        store.multi_set(["a", "b"], ["x"])


def test_store_is_abstract_and_its_defaults_work() -> None:
    with pytest.raises(TypeError):
        Store()  # type: ignore[abstract]

    class Minimal(Store):  # only the abstract methods, over a HashStore
        def __init__(self) -> None:
            super().__init__()
            self.inner = HashStore()

        def set(self, key: str, value: str | bytes) -> None:
            self.inner.set(key, value)

        def get(self, key: str) -> bytes:
            return self.inner.get(key)

        def add(self, key: str, amount: int) -> int:
            return self.inner.add(key, amount)

        def compare_set(self, key: str, expected: str | bytes, desired: str | bytes) -> bytes:
            return self.inner.compare_set(key, expected, desired)

        def wait(self, keys: Any, timeout: timedelta | None = None) -> None:
            self.inner.wait(keys, timeout)

        def check(self, keys: Any) -> bool:
            return self.inner.check(keys)

        def delete_key(self, key: str) -> bool:
            return self.inner.delete_key(key)

        def num_keys(self) -> int:
            return self.inner.num_keys()

    store = Minimal()
    store.append("k", "po")
    store.append("k", "po")  # torch's default loop would stop here: current == the piece
    store.multi_set(["a", "b"], ["1", "2"])
    assert store.get("k") == b"popo"
    assert store.multi_get(["a", "b"]) == [b"1", b"2"]
    assert store.has_extended_api() is False
    assert store.timeout == timedelta(seconds=300)


# --- HashStore and PrefixStore ---------------------------------------------------------------


def test_hashstore_get_blocks_until_another_thread_sets() -> None:
    store = HashStore()
    thread, box = _start(lambda: store.get("late"))
    time.sleep(0.1)
    assert thread.is_alive()
    store.set("late", "here")
    thread.join(5)
    assert box == [b"here"]


def test_zero_timeout_means_no_timeout_as_in_torch() -> None:
    store = HashStore()
    store.set_timeout(timedelta(0))
    thread, box = _start(lambda: store.wait(["k"]))
    time.sleep(0.2)
    assert thread.is_alive()
    store.set("k", "v")
    thread.join(5)
    assert box == [None]


def test_hashstore_counts_right_under_threads() -> None:
    store = HashStore()
    threads = [
        threading.Thread(target=lambda: [store.add("n", 1) for _ in range(200)]) for _ in range(8)
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    assert store.get("n") == b"1600"


def test_prefixstore_nesting_keys_and_timeout() -> None:
    base = HashStore()
    outer = PrefixStore("a", base)
    inner = PrefixStore("b", outer)
    inner.set("k", "v")
    PrefixStore("", base).set("e", "1")
    PrefixStore("x/", base).set("e", "2")
    assert base.get("a/b/k") == b"v" and outer.get("b/k") == b"v" and inner.get("k") == b"v"
    assert base.check(["/e", "x//e"])  # PyTorch joins with "/" whatever the prefix looks like
    assert inner.num_keys() == base.num_keys() == 3
    assert inner.underlying_store is outer and outer.underlying_store is base
    assert inner._underlying_non_prefix_store is base
    inner.set_timeout(timedelta(seconds=7))
    assert base.timeout == outer.timeout == timedelta(seconds=7)
    assert inner.delete_key("k") and not base.check(["a/b/k"])
    with pytest.raises(ValueError, match="store argument cannot be None"):
        PrefixStore("p", None)  # type: ignore[arg-type]
    with pytest.raises(TypeError, match="store must be a Store"):
        PrefixStore("p", tdist.HashStore())


# --- FileStore -------------------------------------------------------------------------------


def _torch_file_kept(path: str, world_size: int, n: int) -> list[bool]:
    stores = [tdist.FileStore(path, world_size) for _ in range(n)]
    kept = []
    while stores:
        del stores[0]
        gc.collect()
        kept.append(os.path.exists(path))
    if os.path.exists(path):
        os.remove(path)
    return kept


def test_filestore_deletes_its_file_like_torch(tmp_file: str) -> None:
    cases = ((2, [True, False]), (-1, [True, True]), (1, [False]), (3, [True, True]))
    for world_size, kept_after in cases:
        assert _torch_file_kept(tmp_file, world_size, len(kept_after)) == kept_after
        stores = [FileStore(tmp_file, world_size) for _ in kept_after]
        stores[0].set("k", "v")
        assert stores[-1].get("k") == b"v"
        for store, kept in zip(stores, kept_after):
            store.close()
            assert os.path.exists(tmp_file) is kept
        if os.path.exists(tmp_file):
            os.remove(tmp_file)
    store = FileStore(tmp_file, 1)
    del store
    gc.collect()
    assert not os.path.exists(tmp_file)
    with pytest.raises(DistStoreError, match="is closed"):
        closed = FileStore(tmp_file)
        closed.close()
        closed.get("k")


def test_filestore_across_processes(tmp_file: str) -> None:
    code = (
        "import sys; from datetime import timedelta\n"
        "from ember.distributed.store import FileStore\n"
        "rank, path = int(sys.argv[1]), sys.argv[2]\n"
        "s = FileStore(path, 4); s.set_timeout(timedelta(seconds=10))\n"
        "s.set(f'rank{rank}', str(rank)); s.append('log', str(rank)); s.add('count', 1)\n"
        "s.wait([f'rank{r}' for r in range(4)])\n"
        "print(sorted(s.multi_get([f'rank{r}' for r in range(4)])), s.get('count'))\n"
        "s.close()\n"
    )
    parent = FileStore(tmp_file, 4)
    parent.set("rank0", "0")
    parent.append("log", "0")
    parent.add("count", 1)
    outs = _run_workers(code, [[str(r), tmp_file] for r in (1, 2, 3)])
    assert all(o.startswith("[b'0', b'1', b'2', b'3']") for o in outs)
    assert parent.get("count") == b"4"
    assert sorted(parent.get("log").decode()) == ["0", "1", "2", "3"]
    parent.close()
    assert not os.path.exists(tmp_file)  # the fourth to close deleted it


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (b"\xff" * 7, "not an ember FileStore file"),
        (st._FILE_MAGIC + b"\x01\x02", "a truncated record header"),
        (st._FILE_MAGIC + struct.pack("<BII", 1, 3, 10) + b"abc", "a truncated record"),
        (st._FILE_MAGIC + struct.pack("<BII", 1, 3, 2**32 - 1) + b"abc", "a bad record"),
        (st._FILE_MAGIC + struct.pack("<BII", 9, 1, 1) + b"ab", "a bad record .kind 9"),
    ],
)
def test_filestore_refuses_a_corrupt_file(tmp_file: str, content: bytes, message: str) -> None:
    Path(tmp_file).write_bytes(content)
    start = time.monotonic()
    with pytest.raises(DistStoreError, match=f"is corrupt at offset .*{message}"):
        FileStore(tmp_file)
    assert time.monotonic() - start < 1.0  # no hang, no giant allocation


def test_filestore_lock_wait_is_bounded(tmp_file: str) -> None:
    store = FileStore(tmp_file)
    store.set_timeout(timedelta(milliseconds=200))
    with open(tmp_file, "rb+") as held:
        fcntl.flock(held, fcntl.LOCK_EX)
        start = time.monotonic()
        with pytest.raises(DistStoreError, match="timed out waiting for the lock"):
            store.set("k", "v")
        assert time.monotonic() - start < 2.0
    store.set("k", "v")
    assert store.get("k") == b"v"


def test_filestore_limits(tmp_file: str, monkeypatch: pytest.MonkeyPatch) -> None:
    store = FileStore(tmp_file)
    with pytest.raises(ValueError, match="MAX_KEY_BYTES = 4096"):
        store.set("k" * 5000, "v")
    monkeypatch.setattr(st, "MAX_VALUE_BYTES", 10)
    with pytest.raises(ValueError, match="MAX_VALUE_BYTES = 10"):
        store.set("k", "x" * 11)
    store.append("k", "x" * 6)
    with pytest.raises(ValueError, match="MAX_VALUE_BYTES"):
        store.append("k", "x" * 6)


# --- TCPStore: clients, threads, processes ---------------------------------------------------


def test_tcpstore_properties(master: TCPStore) -> None:
    assert master.host == LOCAL and isinstance(master.port, int) and master.port > 0
    assert master.libuvBackend is False and master.world_size is None
    assert master.has_extended_api() is True
    client = _client(master.port)
    client.set_timeout(timedelta(seconds=1))
    assert master.timeout == SHORT and client.timeout == timedelta(seconds=1)
    assert repr(client) == f"TCPStore(host='127.0.0.1', port={master.port}, is_master=False)"
    client.close()
    client.close()
    with pytest.raises(DistStoreError, match="is closed"):
        client.get("k")


def test_tcpstore_many_threads(master: TCPStore) -> None:
    shared = _client(master.port)

    def work(i: int) -> None:
        own = _client(master.port)
        for _ in range(25):
            own.add("own", 1)
            shared.add("shared", 1)
        own.set(f"done{i}", "1")
        own.close()

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    master.wait([f"done{i}" for i in range(8)])
    for t in threads:
        t.join(10)
    assert master.get("own") == master.get("shared") == b"200"
    shared.close()


def test_tcpstore_blocking_get_is_parked_not_blocking_the_server(master: TCPStore) -> None:
    waiter, other = _client(master.port), _client(master.port)
    thread, box = _start(lambda: waiter.get("later"))
    time.sleep(0.1)
    start = time.monotonic()
    for i in range(50):
        other.set(f"x{i}", "v")
    assert time.monotonic() - start < 1.0
    assert thread.is_alive()
    other.set("later", "now")
    thread.join(5)
    assert box == [b"now"]
    waiter.close()
    other.close()


def test_tcpstore_large_value_roundtrip(master: TCPStore) -> None:
    value = os.urandom(8 * 2**20)
    client = _client(master.port)
    client.set("big", value)
    assert master.get("big") == value
    assert master.multi_get(["big", "big"]) == [value, value]
    client.close()


def test_tcpstore_across_processes_waits_for_workers() -> None:
    code = (
        "import sys; from datetime import timedelta\n"
        "from ember.distributed.store import TCPStore\n"
        "rank, port = int(sys.argv[1]), int(sys.argv[2])\n"
        "s = TCPStore('127.0.0.1', port, 4, False, timedelta(seconds=10))\n"
        "s.set(f'rank{rank}', str(rank)); s.add('count', 1)\n"
        "print(s.get('go').decode())\n"
        "s.close()\n"
    )
    listener = socket.create_server((LOCAL, 0))
    port = listener.getsockname()[1]
    done: list[list[str]] = []
    # The workers start first and connect to the bound socket; the master's constructor
    # returns once all three counted themselves in "init/" (PyTorch's wait_for_workers).
    runner = threading.Thread(
        target=lambda: done.append(_run_workers(code, [[str(r), str(port)] for r in (1, 2, 3)])),
        daemon=True,
    )
    runner.start()
    master = TCPStore(
        LOCAL, port, 4, True, timedelta(seconds=15), master_listen_fd=listener.fileno()
    )
    listener.close()
    try:
        master.wait(["rank1", "rank2", "rank3"])
        master.set("go", "yes")
        runner.join(20)
        assert done == [["yes\n"] * 3]
        assert master.get("count") == b"3"
        assert master.num_keys() == 6  # init/, rank1..3, count, go
    finally:
        master.close()
        runner.join(20)


def test_master_times_out_waiting_for_workers() -> None:
    start = time.monotonic()
    with pytest.raises(DistStoreError, match=r"waiting for clients. 1/2 clients joined."):
        TCPStore(LOCAL, 0, 2, True, timedelta(milliseconds=300))
    assert time.monotonic() - start < 2.0


# --- TCPStore: failures are bounded ----------------------------------------------------------


def _free_port() -> int:
    with socket.create_server((LOCAL, 0)) as s:
        return int(s.getsockname()[1])


def test_connect_retries_until_the_timeout() -> None:
    port = _free_port()
    start = time.monotonic()
    with pytest.raises(DistNetworkError, match=r"timed out after 500ms while trying to connect"):
        _client(port, timeout=timedelta(milliseconds=500))
    assert 0.4 < time.monotonic() - start < 2.0
    # ... and a server that comes up late is found by the retries.
    box: list[TCPStore] = []
    thread = threading.Thread(target=lambda: box.append(_client(port)), daemon=True)
    thread.start()
    time.sleep(0.3)
    with TCPStoreServer(LOCAL, port) as server:
        thread.join(5)
        box[0].set("k", "v")
        assert box[0].get("k") == b"v"
        box[0].close()
        assert server.port == port


def test_client_fails_fast_when_the_server_is_gone() -> None:
    master = TCPStore(LOCAL, 0, None, True, SHORT)
    client = _client(master.port, timeout=timedelta(milliseconds=500))
    client.set("k", "v")
    thread, box = _start(lambda: client.get("never"))
    time.sleep(0.1)
    master.close()
    thread.join(5)
    assert box == ["DistNetworkError"]
    start = time.monotonic()
    with pytest.raises(DistNetworkError):
        client.set("k", "v")
    assert time.monotonic() - start < 2.0
    client.close()


def test_collecting_the_master_stops_its_server() -> None:
    master = TCPStore(LOCAL, 0, None, True, SHORT)
    port = master.port
    name = f"ember-tcpstore:{port}"
    assert any(t.name == name for t in threading.enumerate())
    del master
    gc.collect()
    deadline = time.monotonic() + 5
    while any(t.name == name for t in threading.enumerate()) and time.monotonic() < deadline:
        time.sleep(0.01)
    assert not any(t.name == name for t in threading.enumerate())
    with pytest.raises(DistNetworkError):
        _client(port, timeout=timedelta(milliseconds=200))


def test_an_unanswering_server_times_out() -> None:
    listener = socket.create_server((LOCAL, 0))
    port = listener.getsockname()[1]
    accepted: list[socket.socket] = []

    def serve() -> None:  # greets like an ember server, then never answers
        conn, _ = listener.accept()
        accepted.append(conn)
        conn.sendall(st._HELLO.pack(b"EMBS", 1, 0, bytes(32)))

    thread = threading.Thread(target=serve, daemon=True)
    thread.start()
    try:
        client = _client(port, timeout=timedelta(milliseconds=300))
        start = time.monotonic()
        with pytest.raises(DistStoreError, match=r"did not answer set\(\) within 300ms"):
            client.set("k", "v")
        assert time.monotonic() - start < 2.0
        client.close()
    finally:
        thread.join(5)
        for s in (*accepted, listener):
            s.close()


def test_multi_tenant_masters_share_a_server_and_ports_are_exclusive() -> None:
    first = TCPStore(LOCAL, 0, None, True, SHORT, multi_tenant=True)
    second = TCPStore(LOCAL, first.port, None, True, SHORT, multi_tenant=True)
    first.set("k", "v")
    assert second.get("k") == b"v"
    with pytest.raises(DistNetworkError, match="failed to listen .* name: EADDRINUSE"):
        TCPStore(LOCAL, first.port, None, True, SHORT)
    first.close()
    second.set("still", "serving")
    second.close()


def test_tcpstore_request_limits(master: TCPStore, monkeypatch: pytest.MonkeyPatch) -> None:
    with pytest.raises(ValueError, match="MAX_KEY_BYTES = 4096"):
        master.set("k" * 4096, "v")  # 4097 bytes with the "/" every TCPStore key gets
    with pytest.raises(ValueError, match="MAX_KEYS_PER_REQUEST = 4096"):
        master.check([str(i) for i in range(4097)])
    monkeypatch.setattr(st, "MAX_VALUE_BYTES", 100)
    with pytest.raises(ValueError, match="MAX_VALUE_BYTES = 100"):
        master.set("k", "x" * 101)
    master.set("k", "x" * 60)
    with pytest.raises(ValueError, match="append.*over the limit"):
        master.append("k", "x" * 60)
    assert master.get("k") == b"x" * 60  # the connection survived a refused request


# --- TCPStore: secrets -----------------------------------------------------------------------


def test_secret_refuses_wrong_and_missing_while_others_keep_working(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv(st.SECRET_ENV, raising=False)
    master = TCPStore(LOCAL, 0, None, True, SHORT, secret="right")
    good = _client(master.port, secret=b"right")
    good.set("k", "v")
    refused = rf"TCPStore at 127.0.0.1:{master.port} refused this client: wrong or missing secret"
    for secret in (None, "wrong"):
        start = time.monotonic()
        with pytest.raises(DistNetworkError, match=refused + r" \(set EMBER_STORE_SECRET"):
            _client(master.port, secret=secret)
        assert time.monotonic() - start < 2.0  # refused at once, not retried
        assert good.get("k") == b"v" and master.add("n", 1) >= 1
    monkeypatch.setenv(st.SECRET_ENV, "right")
    from_env = _client(master.port)
    assert from_env.get("k") == b"v"
    for s in (from_env, good, master):
        s.close()


def test_client_with_a_secret_refuses_a_server_without_one(
    master: TCPStore, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(st.SECRET_ENV, raising=False)
    with pytest.raises(
        DistNetworkError, match="does not ask for a secret, but this client has one"
    ):
        _client(master.port, secret="s")


def test_client_refuses_a_server_that_cannot_prove_the_secret() -> None:
    listener = socket.create_server((LOCAL, 0))
    port = listener.getsockname()[1]
    seen: list[bytes] = []

    def impostor() -> None:  # asks for the secret, accepts any answer, cannot prove itself
        conn, _ = listener.accept()
        with conn:
            conn.sendall(st._HELLO.pack(b"EMBS", 1, 1, os.urandom(32)))
            seen.append(conn.recv(64, socket.MSG_WAITALL))
            conn.sendall(b"\x01" + os.urandom(32))
            conn.recv(1)

    thread = threading.Thread(target=impostor, daemon=True)
    thread.start()
    try:
        with pytest.raises(DistNetworkError, match="did not prove it knows the secret"):
            _client(port, secret=b"the-secret")
        assert len(seen[0]) == 64 and b"the-secret" not in seen[0]  # never on the wire
    finally:
        thread.join(5)
        listener.close()


def test_unauthenticated_requests_are_refused_and_slow_handshakes_dropped() -> None:
    with TCPStoreServer(LOCAL, 0, secret="k", timeout=timedelta(milliseconds=300)) as server:
        good = _client(server.port, secret="k")
        sneaky = _raw(server.port)  # skips authentication and sends a request
        sneaky.sendall(st._frame(st._Op.NUM_KEYS, []) + bytes(64))
        assert sneaky.recv(33, socket.MSG_WAITALL) == bytes(33)  # the refusal
        assert _closed_by_peer(sneaky)
        idle = _raw(server.port)  # never answers the challenge
        start = time.monotonic()
        assert _closed_by_peer(idle)
        assert time.monotonic() - start < 2.0
        good.set("k", "v")
        assert good.get("k") == b"v"
        for s in (sneaky, idle):
            s.close()
        good.close()


# --- TCPStore: hostile bytes close only their own connection --------------------------------


@pytest.mark.parametrize(
    "junk",
    [
        pytest.param(random.Random(0).randbytes(4096), id="random-bytes"),
        pytest.param(struct.pack("<BI", st._Op.SET, 2**32 - 1), id="huge-declared-length"),
        pytest.param(struct.pack("<BI", 200, 0), id="unknown-opcode"),
        pytest.param(struct.pack("<BII", st._Op.SET, 4, 100), id="field-overruns-body"),
        pytest.param(st._frame(st._Op.SET, [b"k" * 5000, b"v"]), id="key-over-limit"),
        pytest.param(st._frame(st._Op.GET, [b"\x00", b"k"]), id="bad-integer-field"),
        pytest.param(st._frame(st._Op.DELETE, [b"a", b"b"]), id="wrong-arity"),
    ],
)
def test_malformed_requests_close_only_that_connection(master: TCPStore, junk: bytes) -> None:
    other = _client(master.port)
    bad = _raw(master.port)
    bad.sendall(junk)
    assert _closed_by_peer(bad)
    bad.close()
    other.set("k", "v")
    assert other.get("k") == b"v" and master.check(["k"])
    other.close()


def test_declared_length_is_not_allocated_up_front(master: TCPStore) -> None:
    import tracemalloc

    bad = _raw(master.port)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        bad.sendall(struct.pack("<BI", st._Op.SET, st.MAX_VALUE_BYTES) + b"x" * 1024)
        master.set("k", "v")  # the server handled the partial frame, and serves on
        assert master.get("k") == b"v"
        assert tracemalloc.get_traced_memory()[1] - before < 8 * 2**20
    finally:
        tracemalloc.stop()
        bad.close()


def test_a_stalled_client_does_not_hold_up_the_others(master: TCPStore) -> None:
    stalled = _raw(master.port)
    stalled.sendall(struct.pack("<BI", st._Op.SET, 100) + b"\x05\x00")  # and then nothing
    reader = _raw(master.port)  # asks for a large value and never reads the answer
    master.set("big", os.urandom(4 * 2**20))
    reader.sendall(st._frame(st._Op.GET, [struct.pack("<q", 1000), b"/big"]))
    client = _client(master.port)
    start = time.monotonic()
    for i in range(20):
        client.set(f"k{i}", "v")
        assert client.get(f"k{i}") == b"v"
    assert time.monotonic() - start < 1.0
    for s in (stalled, reader):
        s.close()
    client.close()


def test_server_from_a_listening_fd() -> None:
    listener = socket.create_server((LOCAL, 0))
    with TCPStoreServer(listen_fd=listener.fileno()) as server:
        listener.close()
        client = _client(server.port)
        client.set("k", "v")
        assert client.get("k") == b"v"
        client.close()
    assert server.closed
    with pytest.raises(DistNetworkError, match="is not a usable socket"):
        TCPStoreServer(listen_fd=10**6)


def test_every_error_is_a_runtime_error() -> None:
    assert issubclass(DistStoreError, DistError) and issubclass(DistNetworkError, RuntimeError)


# --- TCPStore: a server under pressure (Note [TCPStore server under pressure]) ----------------

_PRESSED_SERVER = """
import logging, resource, sys
from datetime import timedelta
from ember.distributed.store import TCPStoreServer
logging.basicConfig(stream=sys.stderr, level=logging.INFO, format="%(levelname)s %(message)s")
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_NOFILE, (limit, limit))
server = TCPStoreServer(LOCAL, 0, secret=sys.argv[2] or None, timeout=timedelta(seconds=30))
print("PORT", server.port, flush=True)
sys.stdin.read()  # until the test closes the pipe (or dies)
server.close()
""".replace("LOCAL", repr(LOCAL))


def _cpu_s(pid: int) -> float:
    """User plus system CPU seconds of process ``pid`` so far (Linux's /proc)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@contextlib.contextmanager
def _pressed_server(tmp_path: Path, fd_limit: int, secret: str) -> Iterator[tuple[int, int, Path]]:
    """A TCPStoreServer in a child limited to ``fd_limit`` descriptors, logging to a file:
    yields (pid, port, log path); killed at the end whatever happens."""
    log = tmp_path / "server.log"
    env = {k: v for k, v in os.environ.items() if k != st.SECRET_ENV}
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    with open(log, "wb") as err:
        proc = subprocess.Popen(
            [sys.executable, "-c", _PRESSED_SERVER, str(fd_limit), secret],
            cwd=REPO, env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err,
        )  # fmt: skip
    try:
        assert proc.stdout is not None
        box: list[bytes] = []
        ready = threading.Thread(target=lambda: box.append(proc.stdout.readline()), daemon=True)
        ready.start()
        ready.join(30)
        assert box and box[0].startswith(b"PORT "), (box, log.read_text())
        yield proc.pid, int(box[0].split()[1]), log
    finally:
        proc.kill()
        proc.wait(10)
        for pipe in (proc.stdin, proc.stdout):
            if pipe is not None:
                pipe.close()


def _idle_connections(port: int, n: int) -> list[socket.socket]:
    """``n`` connections that never say a word (the kernel's backlog holds what is not
    accepted yet)."""
    return [socket.create_connection((LOCAL, port), timeout=5) for _ in range(n)]


_needs_proc = pytest.mark.skipif(
    not Path("/proc/self/stat").exists() or sys.platform != "linux", reason="reads /proc"
)


@_needs_proc
@pytest.mark.parametrize("fd_limit", [128, 48], ids=["fds-128", "fds-48"])
def test_idle_strangers_cannot_shut_out_a_client_with_the_secret(
    tmp_path: Path, fd_limit: int
) -> None:
    # 200 idle unauthenticated connections against 128 descriptors (over the pre-auth cap) or
    # 48 (accept() runs out of descriptors before the cap): the server neither spins nor shuts
    # out the rank that knows the secret, and its log stays short
    with _pressed_server(tmp_path, fd_limit, "s3cret") as (pid, port, log):
        cpu0, t0 = _cpu_s(pid), time.monotonic()
        idle = _idle_connections(port, 200)
        try:
            start = time.monotonic()
            good = _client(port, secret="s3cret", timeout=timedelta(seconds=20))
            good.set("k", "v")
            assert good.get("k") == b"v"
            served = time.monotonic() - start
            good.close()
            time.sleep(1.0)  # and the server stays quiet while the strangers wait
            cpu, wall = _cpu_s(pid) - cpu0, time.monotonic() - t0
        finally:
            for s in idle:
                s.close()
        lines = log.read_text().splitlines()
    assert served < 5.0, f"served after {served:.1f}s"
    assert cpu < 0.5 * wall, f"{cpu:.2f}s of CPU in {wall:.2f}s"
    assert len(lines) <= 6 * (wall + 2), lines[:20]
    assert any("dropped the oldest unauthenticated connection" in line for line in lines)


@_needs_proc
def test_running_out_of_descriptors_pauses_accepting_instead_of_spinning(tmp_path: Path) -> None:
    # no secret, so every connection is a client and none may be dropped: accept() fails with
    # EMFILE, and the server must back off (not spin, not log each failure) and resume
    with _pressed_server(tmp_path, 48, "") as (pid, port, log):
        cpu0, t0 = _cpu_s(pid), time.monotonic()
        held = _idle_connections(port, 80)
        try:
            time.sleep(2.5)
            cpu, wall = _cpu_s(pid) - cpu0, time.monotonic() - t0
        finally:
            for s in held:
                s.close()
        start = time.monotonic()
        client = _client(port, timeout=timedelta(seconds=10))
        client.set("k", "v")
        assert client.get("k") == b"v"
        resumed = time.monotonic() - start
        client.close()
        time.sleep(0.2)
        text = log.read_text()
    assert cpu < 0.5 * wall, f"{cpu:.2f}s of CPU in {wall:.2f}s"
    assert text.count("cannot accept connections") == 1, text[:2000]  # once per episode
    assert "accepting connections again" in text
    assert len(text.splitlines()) <= 4, text[:2000]
    assert resumed < 3.0, f"served {resumed:.1f}s after the descriptors came back"


def test_unauthenticated_connections_are_capped_and_the_oldest_dropped(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(st, "MAX_PENDING_HANDSHAKES", 4)
    monkeypatch.delenv(st.SECRET_ENV, raising=False)
    with TCPStoreServer(LOCAL, 0, secret="k", timeout=timedelta(seconds=60)) as server:
        first = [_raw(server.port) for _ in range(4)]  # the cap: each got its challenge
        time.sleep(st._EVICT_AFTER_S + 0.1)
        late = _raw(server.port)  # admitted: the oldest stranger makes room
        assert _closed_by_peer(first[0], within=2.0)
        assert not _closed_by_peer(first[1], within=0.2)
        good = _client(server.port, secret="k")  # admitted at once, or after a reconnect
        good.set("a", "b")
        assert good.get("a") == b"b"
        good.close()
        assert len(server._loop.pending) <= 4
        for s in (*first, late):
            s.close()


def test_the_handshake_timeout_is_bounded_apart_from_the_store_timeout(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(st, "HANDSHAKE_TIMEOUT_S", 0.3)  # read when the server starts
    with TCPStoreServer(LOCAL, 0, secret="k", timeout=timedelta(minutes=30)) as server:
        assert server._loop.handshake_s == 0.3
        idle = _raw(server.port)
        start = time.monotonic()
        assert _closed_by_peer(idle, within=5.0)
        assert time.monotonic() - start < 2.0
        idle.close()
    with TCPStoreServer(LOCAL, 0, timeout=timedelta(0)) as server:
        assert server._loop.handshake_s == 0.3  # "no timeout" still bounds the handshake
    with TCPStoreServer(LOCAL, 0, timeout=timedelta(milliseconds=100)) as server:
        assert server._loop.handshake_s == pytest.approx(0.1)


def test_warnings_about_bad_clients_are_rate_limited_with_a_count(
    caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(st.SECRET_ENV, raising=False)
    n = 200
    with caplog.at_level("WARNING", logger=st.__name__):
        with TCPStoreServer(LOCAL, 0, secret="k") as server:
            start = time.monotonic()
            for _ in range(n):  # each one answers the challenge with a wrong MAC
                bad = _raw(server.port)
                bad.sendall(bytes(64))
                assert bad.recv(33, socket.MSG_WAITALL) == bytes(33)
                bad.close()
            good = _client(server.port, secret="k")
            good.set("k", "v")  # still served
            good.close()

            def counted() -> tuple[int, int, list[str]]:
                messages = [r.getMessage() for r in caplog.records if r.name == st.__name__]
                shown = sum("refused a client with a wrong" in m for m in messages)
                summed = 0
                for m in messages:
                    if "warning(s) suppressed" in m:
                        found = re.search(r"(\d+) refused clients", m)
                        summed += int(found.group(1)) if found else 0
                return shown, summed, messages

            deadline = time.monotonic() + 5.0
            while sum(counted()[:2]) < n and time.monotonic() < deadline:
                time.sleep(0.05)
            elapsed = time.monotonic() - start
    shown, summed, messages = counted()
    assert shown + summed == n, messages
    periods = elapsed / st._WARN_PERIOD_S + 2
    assert shown <= st._WARN_BURST * periods, (shown, elapsed)
    assert len(messages) <= (st._WARN_BURST + 1) * periods, (len(messages), elapsed)
