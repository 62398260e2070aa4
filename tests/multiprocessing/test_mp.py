"""ember.multiprocessing and tensor pickling: tensors pickle by value like PyTorch's, and
through multiprocessing queues and spawned processes a shared tensor is the same memory.

Every child is started with the 'spawn' method, bounded by a timeout, and joined or
terminated before the test ends."""

import copyreg
import pickle
import queue as queue_mod

import numpy as np
import pytest
import torch

import ember
import ember.multiprocessing as mp
from ember.core.storage import Storage

TIMEOUT = 60


# -- plain pickle -------------------------------------------------------------------------------
def _same(e, t):
    assert list(e.shape) == list(t.shape) and e.stride() == t.stride()
    assert e.dtype.name == str(t.dtype).split(".")[1] and e.requires_grad == t.requires_grad
    assert np.array_equal(np.asarray(e.detach().float()), t.detach().float().numpy())


@pytest.mark.parametrize(
    "make",
    [
        lambda m: m.arange(6.0, dtype=m.float64).reshape(2, 3),
        lambda m: m.arange(12.0).reshape(3, 4).t(),  # non-contiguous
        lambda m: m.arange(12.0).reshape(3, 4)[1:, ::2],  # a view with an offset
        lambda m: m.tensor(3.5),  # 0-dim
        lambda m: m.arange(5.0).to(m.bfloat16),
        lambda m: m.arange(4),
        lambda m: m.tensor([True, False]),
        lambda m: m.zeros(0, 3),
        lambda m: m.ones(3, dtype=m.float64).requires_grad_(),
    ],
)
def test_pickle_round_trip_matches_torch(make):
    e, t = make(ember), make(torch)
    e2, t2 = pickle.loads(pickle.dumps(e)), pickle.loads(pickle.dumps(t))
    _same(e2, t2)
    _same(e2, e)
    assert e2.is_leaf and e2.device == ember.device("cpu")
    assert e2._ks == e._ks  # dispatch keys rebuilt in this process


def test_pickle_of_a_parameter_and_a_module():
    p = ember.nn.Parameter(ember.randn(2, 3))
    q = pickle.loads(pickle.dumps(p))
    assert type(q) is ember.nn.Parameter and q.requires_grad
    assert q.tolist() == p.tolist()
    frozen = pickle.loads(pickle.dumps(ember.nn.Parameter(ember.zeros(2), requires_grad=False)))
    assert not frozen.requires_grad
    lin = ember.nn.Linear(3, 2)
    lin2 = pickle.loads(pickle.dumps(lin))
    x = ember.randn(4, 3)
    assert lin2(x).tolist() == lin(x).tolist()


def test_pickle_keeps_views_together_and_drops_graph_state():
    a = ember.arange(6.0).reshape(2, 3)
    a2, v2 = pickle.loads(pickle.dumps((a, a[:, 1])))
    v2[0] = 100.0
    assert a2[0, 1].item() == 100.0 and a[0, 1].item() == 1.0  # one storage, a copy of a's
    x = ember.ones(2, requires_grad=True)
    x.grad = ember.ones(2)
    x.register_hook(lambda g: g)
    y = pickle.loads(pickle.dumps(x * 2))  # a non-leaf arrives as a leaf, as in PyTorch
    assert y.requires_grad and y.is_leaf and y.tolist() == [2.0, 2.0]
    x.tag = "w"  # instance attributes travel, as PyTorch's
    x2 = pickle.loads(pickle.dumps(x))
    assert x2.grad is None and "_hooks" not in x2.__dict__ and x2.tag == "w"


def test_pickle_of_meta_tensor_and_storage_reducer():
    m = pickle.loads(pickle.dumps(ember.empty(2, 3, device="meta")))
    assert m.is_meta and tuple(m.shape) == (2, 3)
    assert Storage in copyreg.dispatch_table


# -- shared memory ------------------------------------------------------------------------------
def test_share_memory_moves_the_storage_in_place():
    x = ember.arange(6.0).reshape(2, 3)
    v = x[1]
    assert not x.is_shared()
    assert x.share_memory_() is x and x.is_shared() and v.is_shared()
    v[0] = 7.0  # views still see the same (now shared) memory; kernels use the new buffer
    assert x[1, 0].item() == 7.0 and (x + 1)[1, 0].item() == 8.0
    assert x.share_memory_() is x  # idempotent
    assert ember.zeros(0).share_memory_().is_shared()
    meta = ember.empty(2, device="meta")
    assert meta.share_memory_() is meta and not meta.is_shared()  # nothing to share


def test_share_memory_of_a_module():
    lin = ember.nn.Linear(2, 2)
    for p in lin.parameters():
        p.share_memory_()
    assert all(p.is_shared() for p in lin.parameters())


def test_non_leaf_that_requires_grad_is_refused():
    from multiprocessing.reduction import ForkingPickler

    x = ember.ones(2, requires_grad=True)
    with pytest.raises(RuntimeError, match="Cowardly refusing to serialize non-leaf tensor"):
        ForkingPickler.dumps(x * 2)


def test_sharing_strategy_switches():
    assert mp.get_sharing_strategy() == "file_descriptor"
    with pytest.raises(ValueError, match="invalid sharing strategy 'nope'"):
        mp.set_sharing_strategy("nope")
    assert mp.get_all_sharing_strategies() == {"file_descriptor", "file_system"}


# -- children (module level: the spawned processes import them by name) ------------------------
def _fill_rank(rank, t):
    t[rank] = float(rank + 1) * 10.0


def _add_one_via_queues(inq, outq, done):
    t = inq.get(timeout=TIMEOUT)
    t += 1.0
    outq.put((t.is_shared(), t[1:]))  # a view of the received tensor goes back
    done.wait(TIMEOUT)  # a sender stays alive until its tensors are received (fd passing)


def _raise(rank):
    if rank == 1:
        raise ValueError(f"child {rank} failed on purpose")


def _exit_with(rank, code):
    import os

    os._exit(code)


def _make_and_send(outq, done):
    outq.put(ember.full((3,), 5.0))
    outq.put("sent")
    done.wait(TIMEOUT)


def test_spawn_two_processes_write_into_a_shared_tensor():
    t = ember.zeros(2, 3).share_memory_()
    mp.spawn(_fill_rank, args=(t,), nprocs=2, join=True)
    assert t.tolist() == [[10.0] * 3, [20.0] * 3]


def test_spawn_without_join_returns_a_context():
    t = ember.zeros(2)
    ctx = mp.spawn(_fill_rank, args=(t,), nprocs=2, join=False)
    try:
        while not ctx.join(timeout=TIMEOUT):
            pass
    finally:
        for p in ctx.processes:
            p.terminate()
            p.join()
    assert len(ctx.pids()) == 2
    assert t.is_shared() and t.tolist() == [10.0, 20.0]  # sending it shared it, as PyTorch's


def test_queue_round_trip_shares_memory_both_ways():
    ctx = mp.get_context("spawn")
    inq, outq, done = ctx.Queue(), ctx.Queue(), ctx.Event()
    p = ctx.Process(target=_add_one_via_queues, args=(inq, outq, done))
    p.start()
    try:
        t = ember.arange(4.0, dtype=ember.float64)
        inq.put(t)
        shared, back = outq.get(timeout=TIMEOUT)
        done.set()
        p.join(TIMEOUT)
    finally:
        if p.is_alive():
            p.terminate()
        p.join()
    assert p.exitcode == 0 and shared and t.is_shared()
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]  # the child's write is seen here
    assert back._storage is t._storage  # the view came back as a view of t itself
    back[0] = -1.0
    assert t[1].item() == -1.0


def test_a_tensor_made_in_the_child_reaches_the_parent():
    ctx = mp.get_context("spawn")
    q, done = ctx.Queue(), ctx.Event()
    p = ctx.Process(target=_make_and_send, args=(q, done))
    p.start()
    try:
        t = q.get(timeout=TIMEOUT)
        assert q.get(timeout=TIMEOUT) == "sent"
        done.set()
        p.join(TIMEOUT)
    finally:
        if p.is_alive():
            p.terminate()
        p.join()
    assert t.tolist() == [5.0, 5.0, 5.0] and t.is_shared()
    with pytest.raises(queue_mod.Empty):
        q.get(timeout=0.1)


def test_an_exception_in_a_child_surfaces_with_its_traceback():
    with pytest.raises(mp.ProcessRaisedException) as info:
        mp.spawn(_raise, nprocs=2, join=True)
    err = info.value
    assert err.error_index == 1 and isinstance(err.pid, int)
    msg = str(err)
    assert "-- Process 1 terminated with the following error:" in msg
    assert "Traceback (most recent call last)" in msg
    assert "ValueError: child 1 failed on purpose" in msg and "_raise" in msg


def test_a_child_exiting_non_zero_gives_process_exited_exception():
    with pytest.raises(mp.ProcessExitedException, match="process 0 terminated with exit code 3"):
        mp.spawn(_exit_with, args=(3,), nprocs=1)


def test_exceptions_pickle():
    e = pickle.loads(pickle.dumps(mp.ProcessRaisedException("m", 1, 2)))
    assert (e.msg, e.error_index, e.pid) == ("m", 1, 2)
    x = pickle.loads(pickle.dumps(mp.ProcessExitedException("m", 0, 5, -9, "SIGKILL")))
    assert (x.exit_code, x.signal_name) == (-9, "SIGKILL")


def test_reexports_python_multiprocessing():
    import multiprocessing

    for name in multiprocessing.__all__:
        assert hasattr(mp, name), name
    assert mp.SpawnContext is mp.ProcessContext


def test_module_share_memory_moves_every_parameter_and_buffer():
    import ember

    net = ember.nn.Sequential(ember.nn.Linear(3, 2), ember.nn.BatchNorm1d(2))
    assert not any(p.is_shared() for p in net.parameters())
    assert net.share_memory() is net
    assert all(t.is_shared() for t in [*net.parameters(), *net.buffers()])
    before = net[0].weight.detach().clone()
    assert ember.equal(net[0].weight, before)  # the values are kept
