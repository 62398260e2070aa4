"""Failures never hang: a dead rank, mismatched calls, a silent peer, a wrong secret.

Every case runs real ranks under a wall-clock bound (``run_ranks``), and asserts the
error each surviving rank raises: its type, and that it names what went wrong.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_a_rank_killed_mid_all_reduce_is_named_by_every_other_rank(ranks):
    body = r"""
import signal
x = ember.ones(1 << 18)
t0 = time.monotonic()
try:
    for i in range(200):
        if rank == 1 and i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        dist.all_reduce(x)
    raise AssertionError("the collectives went on without rank 1")
except dist.DistBackendError as e:
    print("RAISED", round(time.monotonic() - t0, 1), e)
    assert "rank 1" in str(e) and "has exited" in str(e), e
try:
    dist.all_reduce(x)
except dist.DistBackendError as e:
    assert "unusable after an earlier failure" in str(e), e
"""
    results = ranks(3, body, group_timeout=120, expect_ok=False)
    for r in (0, 2):
        rc, out, err = results[r]
        assert rc == 0 and "RAISED" in out and f"OK {r}" in out, (out, err)
        seconds = float(out.split("RAISED", 1)[1].split()[0])
        assert seconds < 60, f"rank {r} noticed the dead peer only after {seconds} s"
    assert results[1][0] == -9


def test_mismatched_collectives_raise_on_every_rank_in_detail_mode(ranks):
    body = r"""
try:
    if rank == 0:
        dist.all_reduce(ember.ones(4))
    else:
        dist.broadcast(ember.ones(4), src=0)
    raise AssertionError("mismatch not detected")
except dist.DistBackendError as e:
    assert "Detected mismatch between collectives on ranks" in str(e), e
    assert "OpType=ALLREDUCE" in str(e) and "OpType=BROADCAST" in str(e), e
"""
    ranks(2, body, env={"EMBER_DISTRIBUTED_DEBUG": "DETAIL"})
    shapes = r"""
try:
    dist.all_reduce(ember.ones(4 if rank == 0 else 5))
    raise AssertionError("mismatch not detected")
except dist.DistBackendError as e:
    assert "TensorShape=[[4]]" in str(e) and "TensorShape=[[5]]" in str(e), e
"""
    ranks(2, shapes, env={"EMBER_DISTRIBUTED_DEBUG": "DETAIL"})


def test_a_peer_that_never_calls_times_out_with_the_operation_named(ranks):
    body = r"""
if rank == 0:
    t0 = time.monotonic()
    try:
        dist.all_reduce(ember.ones(3))
        raise AssertionError("all_reduce returned without its peer")
    except dist.DistBackendError as e:
        assert "all_reduce" in str(e) and "did not complete within 2 s" in str(e), e
    assert time.monotonic() - t0 < 30
    dist.destroy_process_group()
else:
    time.sleep(4)
"""
    ranks(2, body, group_timeout=2)


def test_monitored_barrier_names_the_missing_rank(ranks):
    body = r"""
if rank == 1:
    time.sleep(3)
try:
    dist.monitored_barrier(timeout=timedelta(seconds=1))
    assert rank == 1 or False, "rank 0 passed without rank 1"
except dist.DistBackendError as e:
    assert "Rank 1 failed to pass monitoredBarrier in 1000 ms" in str(e), e
"""
    ranks(2, body)


def test_store_secret_is_required_and_the_job_goes_on(ranks):
    body = r"""
from ember.distributed import TCPStore
if rank == 0:
    for secret in ("wrong", None):
        try:
            os.environ.pop("EMBER_STORE_SECRET")
            TCPStore("127.0.0.1", int(os.environ["MASTER_PORT"]), secret=secret,
                     timeout=timedelta(seconds=5))
            raise AssertionError("a client without the secret was served")
        except dist.DistNetworkError as e:
            assert "wrong or missing secret" in str(e), e
        finally:
            os.environ["EMBER_STORE_SECRET"] = "s3cret"
t = ember.ones(2)
dist.all_reduce(t)
assert t.tolist() == [2.0, 2.0]
"""
    ranks(2, body, env={"EMBER_STORE_SECRET": "s3cret"})


def test_launcher_reports_the_rank_that_died_and_stops_the_rest(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(
        textwrap.dedent(
            """
            import os, signal
            import ember, ember.distributed as dist
            from datetime import timedelta
            dist.init_process_group("mpi", timeout=timedelta(seconds=60))
            x = ember.ones(1000)
            for i in range(1000):
                if dist.get_rank() == 1 and i == 3:
                    os.kill(os.getpid(), signal.SIGKILL)
                dist.all_reduce(x)
            """
        )
    )
    r = subprocess.run(
        [sys.executable, "-m", "ember.distributed.run", "--nproc-per-node", "2", str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=tmp_path,
    )
    assert r.returncode != 0
    assert "rank      : 1" in r.stderr and "SIGKILL" in r.stderr, r.stderr[-3000:]


def test_under_mpiexec_init_process_group_needs_nothing_else(tmp_path):
    script = tmp_path / "job.py"
    script.write_text(
        textwrap.dedent(
            """
            import ember, ember.distributed as dist
            dist.init_process_group("mpi")
            t = ember.ones(2) * dist.get_rank()
            dist.all_reduce(t)
            objs = [None] * dist.get_world_size()
            dist.all_gather_object(objs, dist.get_rank())
            assert t.tolist() == [1.0, 1.0] and objs == [0, 1]
            # one file per rank: the ranks' stdout lines interleave in mpiexec's output
            open(__file__ + f".ok{dist.get_rank()}", "w").close()
            dist.destroy_process_group()
            """
        )
    )
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MASTER_", "PMI_"))}
    mpiexec = shutil.which(
        "mpiexec", path=os.path.dirname(sys.executable) + os.pathsep + os.environ["PATH"]
    )
    assert mpiexec is not None, "ember-mpi depends on the MPICH wheel, which brings mpiexec"
    r = subprocess.run(
        [mpiexec, "-n", "2", sys.executable, str(script)],
        capture_output=True,
        text=True,
        timeout=120,
        env=env,
    )
    assert r.returncode == 0, r.stderr[-3000:]
    assert (tmp_path / "job.py.ok0").exists() and (tmp_path / "job.py.ok1").exists(), r.stdout


def test_mismatched_sizes_dtypes_and_calls_raise_by_default(ranks):
    # without any debug setting: nothing is sent, every rank raises (Note [Agreement])
    cases = {
        "size": "dist.all_reduce(ember.ones(2000 if rank == 0 else 3000))",
        "dtype": "dist.all_reduce(ember.ones(4, dtype=ember.float32 if rank else ember.float64))",
        "call": "dist.all_reduce(ember.ones(4)) if rank == 0 else dist.broadcast(ember.ones(4), 0)",
        "root": "dist.broadcast(ember.ones(4), src=rank)",
    }
    expect = {
        "size": "different sizes (2000 to 3000 elements)",
        "dtype": "different dtypes",
        "call": "different collectives",
        "root": "different collectives",
    }
    body = "case = os.environ['CASE']\n" + "\n".join(
        f"""if case == {k!r}:
    try:
        {v}
        raise AssertionError("no error")
    except dist.DistBackendError as e:
        assert {expect[k]!r} in str(e), e
"""
        for k, v in cases.items()
    )
    for case in cases:
        ranks(2, body, env={"CASE": case})
