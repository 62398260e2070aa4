"""The front end in one process: argument checks and errors, backends found by name.

A one-rank engine defined here (``Loopback``) stands in for MPI, so the checks that
``ember.distributed`` makes before any engine call are tested in-process; the same
engine shipped as a separate package is found through its ``ember.distributed``
entry point, and a broken one is reported without breaking ``mpi``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest
import torch.distributed as tdist

import ember
import ember.distributed as dist
from ember.distributed.backend import Collectives, DoneRequest, ProcessGroupBackend

LOOPBACK = """
from ember.distributed.backend import Collectives, DoneRequest, ProcessGroupBackend

class LoopCollectives(Collectives):
    rank, size = 0, 1
    def allreduce(self, t, op): return DoneRequest()
    def broadcast(self, t, root): return DoneRequest()
    def reduce(self, t, root, op): return DoneRequest()
    def allgather(self, out, inp): out.copy_(inp.reshape(-1)); return DoneRequest()
    def gather(self, out, inp, root):
        if out is not None: out.copy_(inp.reshape(-1))
        return DoneRequest()
    def scatter(self, out, inp, root): out.copy_(inp.reshape(out.shape)); return DoneRequest()
    def reduce_scatter(self, out, inp, op): out.copy_(inp.reshape(out.shape)); return DoneRequest()
    def alltoall(self, out, inp, os_, is_): out.copy_(inp.reshape(out.shape)); return DoneRequest()
    def send(self, t, dst, tag): raise RuntimeError("one rank: nobody to send to")
    def recv(self, t, src, tag): raise RuntimeError("one rank: nobody to receive from")
    def barrier(self): return DoneRequest()

class Loopback(ProcessGroupBackend):
    name = "loopback"
    def create(self, store, rank, world_size, timeout, *, global_ranks, parent):
        assert world_size == 1
        return LoopCollectives()
"""

_scope: dict[str, object] = {}
exec(LOOPBACK, _scope)
Loopback = _scope["Loopback"]
_registered = [False]


@pytest.fixture
def one_rank():
    if not _registered[0]:
        dist.Backend.register_backend("loopback", Loopback())  # type: ignore[operator]
        _registered[0] = True
    dist.init_process_group("loopback", store=dist.HashStore(), rank=0, world_size=1)
    yield
    dist.destroy_process_group()


def test_queries_before_init_raise_pytorchs_error():
    assert not dist.is_initialized() and dist.is_available()
    for fn in (dist.get_rank, dist.get_world_size, dist.get_backend, dist.barrier):
        with pytest.raises(ValueError, match="Default process group has not been initialized"):
            fn()
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.all_reduce(ember.ones(2))
    # the same type and message as PyTorch
    with pytest.raises(ValueError) as theirs:
        tdist.get_rank()
    with pytest.raises(ValueError) as ours:
        dist.get_rank()
    assert str(ours.value) == str(theirs.value)


def test_rendezvous_errors_name_the_missing_piece(monkeypatch):
    for var in ("MASTER_ADDR", "MASTER_PORT", "RANK", "WORLD_SIZE"):
        monkeypatch.delenv(var, raising=False)
    with pytest.raises(ValueError, match="environment variable MASTER_ADDR expected"):
        dist.init_process_group("loopback", init_method="env://")
    monkeypatch.setenv("MASTER_ADDR", "127.0.0.1")
    with pytest.raises(ValueError, match="environment variable MASTER_PORT expected"):
        dist.init_process_group("loopback", init_method="env://")
    with pytest.raises(ValueError, match="rank parameter missing"):
        dist.init_process_group("loopback", init_method="tcp://127.0.0.1:1", world_size=1)
    with pytest.raises(ValueError, match="No rendezvous handler for foo://"):
        dist.init_process_group("loopback", init_method="foo://x")
    with pytest.raises(ValueError, match="world_size must be positive if using store"):
        dist.init_process_group("loopback", store=dist.HashStore(), rank=0)
    with pytest.raises(ValueError, match="Cannot specify both init_method and store"):
        dist.init_process_group("loopback", init_method="env://", store=dist.HashStore())
    with pytest.raises(ValueError, match="rank 3 is out of range for world_size 2"):
        dist.init_process_group("loopback", init_method="file:///tmp/x?rank=3&world_size=2")
    assert not dist.is_initialized()


def test_unknown_backend_lists_the_known_ones():
    with pytest.raises(ValueError, match=r"Invalid backend: 'nosuch'.*Known backends:.*mpi"):
        dist.init_process_group("nosuch", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(TypeError, match="expects an ember.distributed.backend"):
        dist.Backend.register_backend("bad", object())  # type: ignore[arg-type]


def test_argument_checks(one_rank):
    assert dist.get_backend() == "loopback" and dist.get_rank() == 0
    with pytest.raises(ValueError, match="trying to initialize the default process group twice"):
        dist.init_process_group("loopback", store=dist.HashStore(), rank=0, world_size=1)
    with pytest.raises(TypeError, match="Expected parameter `tensor` of type torch.Tensor"):
        dist.all_reduce([1, 2])
    with pytest.raises(ValueError, match="ReduceOp.AVG needs a floating-point"):
        dist.all_reduce(ember.ones(2, dtype=ember.int64), op=dist.ReduceOp.AVG)
    with pytest.raises(ValueError, match="ReduceOp.BAND needs an integer or bool"):
        dist.all_reduce(ember.ones(2), op=dist.ReduceOp.BAND)
    with pytest.raises(ValueError, match="PREMUL_SUM is not supported"):
        dist.all_reduce(ember.ones(2), op=dist.ReduceOp.PREMUL_SUM)
    with pytest.raises(ValueError, match="tensor_list has 2 tensors; the group has 1 ranks"):
        dist.all_gather([ember.ones(2), ember.ones(2)], ember.ones(2))
    with pytest.raises(ValueError, match=r"tensor_list\[0\] has shape \[3\]"):
        dist.all_gather([ember.ones(3)], ember.ones(2))
    with pytest.raises(TypeError, match="has dtype ember.float64"):
        dist.all_gather([ember.ones(2, dtype=ember.float64)], ember.ones(2))
    with pytest.raises(ValueError, match="output tensor size must be equal to world_size"):
        dist.all_gather_into_tensor(ember.ones(3), ember.ones(2))
    with pytest.raises(ValueError, match="``gather_list`` must be specified on destination"):
        dist.gather(ember.ones(2), None, dst=0)
    with pytest.raises(ValueError, match="Must specify global_rank or group_rank"):
        dist.broadcast(ember.ones(2))  # PyTorch demands a root for broadcast and reduce
    with pytest.raises(ValueError, match="Must specify global_rank or group_rank"):
        dist.reduce(ember.ones(2))
    with pytest.raises(ValueError, match="src rank 2 is out of range"):
        dist.broadcast(ember.ones(2), src=2)
    with pytest.raises(ValueError, match="Invalid ``op``"):
        dist.P2POp(print, ember.ones(1), 0)
    with pytest.raises(ValueError, match=r"input_split_sizes=\[3\] must have 1"):
        dist.all_to_all_single(ember.ones(2), ember.ones(2), None, [3])
    with pytest.raises(ValueError, match="new_group: rank 5 is out of range"):
        dist.new_group([5])


def test_list_forms_reduce_to_the_flat_primitives(one_rank):
    outs = [ember.zeros(2, 2)]
    dist.all_gather(outs, ember.arange(4.0).reshape(2, 2))
    assert outs[0].tolist() == [[0.0, 1.0], [2.0, 3.0]]
    out = ember.zeros(3)
    dist.reduce_scatter(out, [ember.tensor([1.0, 2.0, 3.0])], op=dist.ReduceOp.AVG)
    assert out.tolist() == [1.0, 2.0, 3.0]
    a2a = [ember.zeros(2)]
    dist.all_to_all(a2a, [ember.tensor([5.0, 6.0])])
    assert a2a[0].tolist() == [5.0, 6.0]
    w = dist.all_reduce(ember.ones(2), async_op=True)
    assert isinstance(w, dist.Work) and w.is_completed() and w.wait()
    objs = [None]
    dist.all_gather_object(objs, {"x": ember.ones(1)})
    assert objs[0]["x"].tolist() == [1.0]
    sub = dist.new_group([0])
    assert dist.get_world_size(sub) == 1 and dist.get_process_group_ranks(sub) == [0]


def test_engine_failure_breaks_the_group_with_the_reason(one_rank):
    with pytest.raises(ValueError, match="Invalid destination rank"):
        dist.send(ember.ones(1), dst=0)
    with pytest.raises(dist.DistBackendError, match="recv failed on process group 'default_pg'"):
        dist.recv(ember.ones(1), src=0)
    with pytest.raises(dist.DistBackendError, match="unusable after an earlier failure"):
        dist.all_reduce(ember.ones(1))


def _site(tmp_path: Path, fake_dist) -> Path:
    root = tmp_path / "site"
    root.mkdir()
    fake_dist(
        root,
        "ember-loopback",
        "ember_loopback",
        LOOPBACK
        + """
import ember.plugins as P
class Plugin:
    @P.hookimpl
    def ember_plugin_api_version(self): return P.PLUGIN_API_VERSION
    @P.hookimpl
    def ember_process_group_backend(self): return Loopback()
plugin = Plugin()
""",
        "[ember.distributed]\nloopback = ember_loopback:plugin\n",
    )
    fake_dist(
        root,
        "ember-broken-pg",
        "ember_broken_pg",
        "raise ImportError('libfabric.so.1: cannot open shared object file')\n",
        "[ember.distributed]\nbroken = ember_broken_pg:plugin\n",
    )
    return root


def test_a_separately_installed_backend_is_found_by_name(tmp_path, fake_dist):
    root = _site(tmp_path, fake_dist)
    env = dict(
        os.environ, PYTHONPATH=os.pathsep.join([str(root), os.environ.get("PYTHONPATH", "")])
    )
    code = """
import warnings
import ember, ember.distributed as dist
dist.init_process_group("loopback", store=dist.HashStore(), rank=0, world_size=1)
t = ember.ones(2); dist.all_reduce(t)
print("BACKEND", dist.get_backend())
dist.destroy_process_group()
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    try:
        dist.init_process_group("broken", store=dist.HashStore(), rank=0, world_size=1)
    except RuntimeError as e:
        print("BROKEN", e)
print("WARNED", [str(x.message) for x in w])
print("MPI", dist.is_mpi_available())
"""
    r = subprocess.run(
        [sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 0, r.stderr
    assert "BACKEND loopback" in r.stdout
    assert "ember-broken-pg" in r.stdout and "libfabric.so.1" in r.stdout
    assert "MPI True" in r.stdout
    info = subprocess.run(
        [sys.executable, "-m", "ember", "info"], env=env, capture_output=True, text=True, timeout=60
    )
    assert "ember.distributed:loopback  [ember-loopback 1.2.3]" in info.stdout
    assert "ember.distributed:broken  [ember-broken-pg 1.2.3]" in info.stdout
    assert "ember.distributed:mpi  [ember-mpi" in info.stdout


def test_contract_types_are_exported():
    assert issubclass(Loopback, ProcessGroupBackend)  # type: ignore[arg-type]
    assert DoneRequest().test() and Collectives.check_peers is not None
    assert timedelta(minutes=30) == dist.default_pg_timeout
