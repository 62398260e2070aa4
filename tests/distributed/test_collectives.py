"""Every collective on 2 and 4 ranks over the ``mpi`` backend, checked against numpy.

Each test starts real processes on 127.0.0.1 (``run_ranks`` in conftest.py: bounded,
and every process is reaped). Inside, each rank computes what every other rank holds
with numpy in float64 and asserts the collective's result equals it.
"""

from __future__ import annotations

import pytest

COLLECTIVES = r"""
def data(r, shape=(3, 2), dtype=np.float64):
    return (np.arange(np.prod(shape)).reshape(shape) * (r + 1) + r).astype(dtype)

everyone = [data(r) for r in range(world)]

# all_reduce: every op, several dtypes
refs = {
    dist.ReduceOp.SUM: np.sum, dist.ReduceOp.PRODUCT: np.prod,
    dist.ReduceOp.MIN: np.min, dist.ReduceOp.MAX: np.max,
}
for op, ref in refs.items():
    for dt in (ember.float64, ember.float32, ember.int64, ember.int32):
        npdt = {ember.float64: np.float64, ember.float32: np.float32,
                ember.int64: np.int64, ember.int32: np.int32}[dt]
        t = ember.from_numpy(data(rank, dtype=npdt))
        dist.all_reduce(t, op=op)
        want = ref(np.stack([data(r, dtype=np.float64) for r in range(world)]), axis=0)
        got = t.numpy().astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-6, err_msg=str((op, dt)))
t = ember.from_numpy(data(rank))
dist.all_reduce(t, op=dist.ReduceOp.AVG)
np.testing.assert_allclose(t.numpy(), np.mean(np.stack(everyone), axis=0))
for op, ref in ((dist.ReduceOp.BAND, np.bitwise_and), (dist.ReduceOp.BOR, np.bitwise_or),
                (dist.ReduceOp.BXOR, np.bitwise_xor)):
    t = ember.tensor([rank + 1, 3 * rank + 5, 255])
    dist.all_reduce(t, op=op)
    want = ref.reduce(np.array([[r + 1, 3 * r + 5, 255] for r in range(world)]), axis=0)
    assert t.tolist() == want.tolist(), (op, t, want)
# half precision is reduced in float32 and rounded once
for dt in (ember.float16, ember.bfloat16):
    t = ember.tensor([0.5 * (rank + 1), 1.0], dtype=dt)
    dist.all_reduce(t)
    assert t.dtype == dt
    assert t.float().tolist() == [0.5 * sum(range(1, world + 1)), float(world)]
# bool: SUM is "any", PRODUCT is "all" (PyTorch's rule)
b = ember.tensor([rank == 0, True, False])
dist.all_reduce(b)
assert b.tolist() == [True, True, False]
b = ember.tensor([rank == 0, True, False])
dist.all_reduce(b, op=dist.ReduceOp.PRODUCT)
assert b.tolist() == [world == 1, True, False]
# a non-contiguous tensor is reduced through a staged copy and written back in place
base = ember.from_numpy(data(rank, (2, 3)))
view = base.t()
dist.all_reduce(view)
np.testing.assert_allclose(base.numpy(), np.sum([data(r, (2, 3)) for r in range(world)], axis=0))
# a tensor that requires grad is reduced like the others (no autograd record)
w = ember.ones(2, requires_grad=True)
dist.all_reduce(w)
assert w.tolist() == [float(world)] * 2 and w.grad_fn is None

# a device the engine cannot read (OpenCL for MPI) goes through a CPU copy and back
try:
    import ember_opencl
    has_opencl = ember_opencl.is_available()
except ImportError:
    has_opencl = False
if has_opencl:
    d = ember.from_numpy(data(rank)).to("opencl")
    dist.all_reduce(d)
    assert d.device.type == "opencl"
    np.testing.assert_allclose(d.cpu().numpy(), np.sum(np.stack(everyone), axis=0))
    outs = [ember.zeros(3, 2, dtype=ember.float64, device="opencl") for _ in range(world)]
    dist.all_gather(outs, ember.from_numpy(data(rank)).to("opencl"))
    for r in range(world):
        np.testing.assert_array_equal(outs[r].cpu().numpy(), data(r))
    print("OPENCL staged")

# broadcast / reduce from every root
for root in range(world):
    t = ember.from_numpy(data(rank))
    dist.broadcast(t, src=root)
    np.testing.assert_array_equal(t.numpy(), data(root))
    t = ember.from_numpy(data(rank))
    dist.reduce(t, dst=root, op=dist.ReduceOp.SUM)
    want = np.sum(np.stack(everyone), axis=0) if rank == root else data(rank)
    np.testing.assert_allclose(t.numpy(), want)

# all_gather, all_gather_into_tensor (concatenated and stacked)
outs = [ember.zeros(3, 2, dtype=ember.float64) for _ in range(world)]
dist.all_gather(outs, ember.from_numpy(data(rank)))
for r in range(world):
    np.testing.assert_array_equal(outs[r].numpy(), data(r))
cat = ember.zeros(3 * world, 2, dtype=ember.float64)
dist.all_gather_into_tensor(cat, ember.from_numpy(data(rank)))
np.testing.assert_array_equal(cat.numpy(), np.concatenate(everyone))
stk = ember.zeros(world, 3, 2, dtype=ember.float64)
dist.all_gather_into_tensor(stk, ember.from_numpy(data(rank)))
np.testing.assert_array_equal(stk.numpy(), np.stack(everyone))

# reduce_scatter (list and tensor forms), with SUM and AVG
ins = [ember.from_numpy(data(rank) + 10 * s) for s in range(world)]
out = ember.zeros(3, 2, dtype=ember.float64)
dist.reduce_scatter(out, ins)
np.testing.assert_allclose(out.numpy(), sum(data(r) + 10 * rank for r in range(world)))
flat = ember.cat([i.reshape(-1) for i in ins])
out = ember.zeros(6, dtype=ember.float64)
dist.reduce_scatter_tensor(out, flat, op=dist.ReduceOp.AVG)
want = np.mean([data(r) + 10 * rank for r in range(world)], axis=0).reshape(-1)
np.testing.assert_allclose(out.numpy(), want)

# gather / scatter
for root in range(world):
    got = [ember.zeros(3, 2, dtype=ember.float64) for _ in range(world)] if rank == root else None
    dist.gather(ember.from_numpy(data(rank)), got, dst=root)
    if rank == root:
        for r in range(world):
            np.testing.assert_array_equal(got[r].numpy(), data(r))
    piece = ember.zeros(2, dtype=ember.int64)
    parts = [ember.tensor([root, s]) for s in range(world)] if rank == root else None
    dist.scatter(piece, parts, src=root)
    assert piece.tolist() == [root, rank]

# all_to_all (lists of different sizes) and all_to_all_single (even and uneven splits)
send = [ember.full((s + 1,), float(100 * rank + s)) for s in range(world)]
recv = [ember.zeros(rank + 1) for _ in range(world)]
dist.all_to_all(recv, send)
for s in range(world):
    assert recv[s].tolist() == [float(100 * s + rank)] * (rank + 1)
inp = ember.arange(world * 2, dtype=ember.float32) + 100 * rank
out = ember.zeros(world * 2)
dist.all_to_all_single(out, inp)
assert out.tolist() == [float(100 * s + 2 * rank + k) for s in range(world) for k in range(2)]
in_splits = [r + 1 for r in range(world)]                     # rank sends r+1 rows to rank r
out_splits = [rank + 1] * world                                # and receives rank+1 from each
inp = ember.arange(sum(in_splits) * 2, dtype=ember.float64).reshape(-1, 2) + 1000 * rank
out = ember.zeros(sum(out_splits), 2, dtype=ember.float64)
dist.all_to_all_single(out, inp, out_splits, in_splits)
start = sum(in_splits[:rank])
want = np.concatenate([
    (np.arange(sum(in_splits) * 2).reshape(-1, 2) + 1000 * s)[start:start + rank + 1]
    for s in range(world)
])
np.testing.assert_array_equal(out.numpy(), want)

# point to point: a ring with send/recv, isend/irecv, batch_isend_irecv, any-source recv
right, left = (rank + 1) % world, (rank - 1) % world
if rank % 2 == 0:
    dist.send(ember.tensor([rank * 1.0]), dst=right)
    got = ember.zeros(1); src = dist.recv(got, src=left)
else:
    got = ember.zeros(1); src = dist.recv(got, src=left)
    dist.send(ember.tensor([rank * 1.0]), dst=right)
assert got.tolist() == [float(left)] and src == left
buf = ember.zeros(4)
works = dist.batch_isend_irecv([
    dist.P2POp(dist.isend, ember.full((4,), float(rank)), right, tag=7),
    dist.P2POp(dist.irecv, buf, left, tag=7),
])
for w in works:
    w.wait()
assert buf.tolist() == [float(left)] * 4
if rank == 0:
    got = ember.zeros(1)
    senders = sorted(dist.recv(got) for _ in range(world - 1))
    assert senders == list(range(1, world)), senders
else:
    dist.send(ember.tensor([1.0]), dst=0)

# async work: start, test, wait, result
w = dist.all_reduce(ember.ones(1 << 16), async_op=True)
assert w.wait() is True and w.is_completed() and w.is_success() and w.exception() is None
t = ember.ones(3)
w = dist.all_reduce(t, async_op=True)
assert w.result()[0] is t and t.tolist() == [float(world)] * 3
fut = dist.all_reduce(ember.ones(1), async_op=True).get_future()
assert fut.wait()[0].tolist() == [float(world)]

# subgroups: members reduce among themselves; others get None and a warning
evens = dist.new_group([r for r in range(world) if r % 2 == 0])
if rank % 2 == 0:
    t = ember.tensor([float(rank)])
    dist.all_reduce(t, group=evens)
    assert t.tolist() == [float(sum(r for r in range(world) if r % 2 == 0))]
    assert dist.get_rank(evens) == rank // 2 and dist.get_process_group_ranks(evens)[0] == 0
    t = ember.tensor([float(rank)])
    dist.broadcast(t, src=[r for r in range(world) if r % 2 == 0][-1], group=evens)
    assert t.tolist() == [float([r for r in range(world) if r % 2 == 0][-1])]
else:
    import warnings
    assert evens is dist.GroupMember.NON_GROUP_MEMBER and dist.get_rank(evens) == -1
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert dist.all_reduce(ember.ones(1), group=evens) is None
    assert any("does not belong to the given group" in str(c.message) for c in caught)

# object collectives: restricted unpickling, tensors inside
objs = [None] * world
dist.all_gather_object(objs, {"rank": rank, "t": ember.ones(2) * rank, "s": "x" * rank})
assert [o["rank"] for o in objs] == list(range(world))
assert objs[world - 1]["t"].tolist() == [float(world - 1)] * 2
lst = [rank, None, "mine"] if rank == 1 else [None, None, None]
dist.broadcast_object_list(lst, src=1)
assert lst == [1, None, "mine"]
got = [None] * world if rank == 0 else None
dist.gather_object(("g", rank), got, dst=0)
if rank == 0:
    assert got == [("g", r) for r in range(world)]
out = [None]
dist.scatter_object_list(out, [{"to": r} for r in range(world)] if rank == 0 else None, src=0)
assert out == [{"to": rank}]
if rank == 0:
    dist.send_object_list([{"a": 1}, [1, 2]], dst=1)
elif rank == 1:
    box = [None, None]
    assert dist.recv_object_list(box, src=0) == 0 and box == [{"a": 1}, [1, 2]]

dist.barrier()
dist.monitored_barrier(timeout=timedelta(seconds=20))
assert dist.get_backend() == "mpi" and dist.is_initialized()
dist.destroy_process_group()
assert not dist.is_initialized()
"""


@pytest.mark.parametrize("world", [2, 4])
def test_every_collective_matches_numpy(ranks, world):
    results = ranks(world, COLLECTIVES, timeout=120)
    try:
        import ember_opencl

        if ember_opencl.is_available():
            assert all("OPENCL staged" in out for _, out, _ in results)
    except ImportError:
        pass


def test_object_collectives_refuse_code_from_a_peer(ranks):
    # rank 1 sends a pickle whose global is os.system: rank 0 must refuse it, not run it
    body = r"""
import io, pickle
from ember.distributed import _objects
class Evil:
    def __reduce__(self):
        return (os.system, ("touch " + os.environ["MARK"],))
real_encode = _objects._encode
if rank == 1:
    def evil_encode(obj):
        return ember.from_numpy(np.frombuffer(pickle.dumps(Evil()), dtype=np.uint8).copy())
    _objects._encode = evil_encode
objs = [None] * world
try:
    dist.all_gather_object(objs, "hello")
except Exception as e:
    print("REFUSED", type(e).__name__, e)
assert not os.path.exists(os.environ["MARK"]), "a peer ran code on this rank"
"""
    import os
    import tempfile

    mark = os.path.join(tempfile.mkdtemp(), "pwned")
    results = ranks(2, body, env={"MARK": mark})
    assert "REFUSED" in results[0][1]
    assert not os.path.exists(mark)


def test_gloo_name_runs_on_mpi_and_init_method_forms(ranks, tmp_path):
    body = r"""
assert dist.get_backend() == "mpi"
t = ember.ones(2) * (rank + 1)
dist.all_reduce(t)
assert t.tolist() == [3.0, 3.0]
"""
    ranks(2, body, backend="gloo")
    rdzv = tmp_path / "rdzv"
    body_file = f"""
import os
from datetime import timedelta
import ember, ember.distributed as dist
r = int(os.environ["RANK"])
dist.init_process_group("mpi", init_method="file://{rdzv}", rank=r, world_size=2,
                        timeout=timedelta(seconds=30))
t = ember.ones(1) * r
dist.all_reduce(t)
assert t.tolist() == [1.0]
"""
    ranks(2, body_file, preamble=False)
    body_tcp = """
import os
from datetime import timedelta
import ember, ember.distributed as dist
r = int(os.environ["RANK"])
dist.init_process_group("mpi", init_method="tcp://127.0.0.1:" + os.environ["MASTER_PORT"],
                        rank=r, world_size=2, timeout=timedelta(seconds=30))
assert dist.get_world_size() == 2
"""
    ranks(2, body_tcp, preamble=False)
