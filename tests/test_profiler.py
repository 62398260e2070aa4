"""ember.profiler and ember.autograd.profiler, against torch.profiler where the two can agree:
operator names, nesting and input shapes of a small program, the table's columns, the
schedule, and which steps each completed trace holds."""

import gzip
import json
import os
import re
import threading
import time
import warnings

import pytest
import torch
import torch.profiler as tp

import ember
import ember.autograd.profiler as legacy
from ember import library
from ember.autograd.profiler_util import EventList
from ember.core import dispatch_key as dk
from ember.dispatcher import registry
from ember.profiler import (
    ProfilerAction,
    ProfilerActivity,
    profile,
    record_function,
    schedule,
    tensorboard_trace_handler,
)


def _program(lib):
    x, y = lib.ones(2, 3), lib.ones(2, 3)
    z = (x + y) * y
    return z.relu().exp().sum()


def _quiet_torch_profile(**kw):
    warnings.filterwarnings("ignore", message=".*Profiler clears events.*")
    return tp.profile(**kw)


def test_top_level_operators_and_shapes_match_torchs():
    with _quiet_torch_profile(record_shapes=True) as tprof:
        _program(torch)
    with profile(record_shapes=True) as eprof:
        _program(ember)
    top = lambda evs: [(e.name, e.input_shapes) for e in evs if e.cpu_parent is None]  # noqa: E731
    ember_top = [e for e in top(eprof.events()) if e[0] != "aten::ones"]
    torch_top = [e for e in top(tprof.events()) if e[0] != "aten::ones"]
    assert [n for n, _ in ember_top] == [n for n, _ in torch_top]
    # a full reduction is sum.dim_IntList in ember (four arguments), sum(self, dtype) in torch
    assert (
        ember_top[:4]
        == torch_top[:4]
        == [
            ("aten::add", [[2, 3], [2, 3], []]),
            ("aten::mul", [[2, 3], [2, 3]]),
            ("aten::relu", [[2, 3]]),
            ("aten::exp", [[2, 3]]),
        ]
    )


def test_record_function_ranges_nest_and_time_the_block():
    with profile() as prof:
        with record_function("outer"):
            time.sleep(0.01)
            with record_function("inner"):
                ember.ones(4) * 2
    evs = {e.name: e for e in prof.events()}
    outer, inner = evs["outer"], evs["inner"]
    assert outer.is_user_annotation and inner.cpu_parent is outer
    assert evs["aten::mul"].cpu_parent is inner
    assert outer.cpu_time_total >= 10_000  # microseconds
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total - inner.cpu_time_total)
    avg = prof.key_averages()
    assert sum(e.self_cpu_time_total for e in avg) == pytest.approx(outer.cpu_time_total)


def test_record_function_is_a_decorator_and_free_outside_profiling():
    @record_function("decorated")
    def f(x):
        return x * 3

    x = ember.ones(1)
    assert f(x).item() == 3.0  # no profiler: nothing recorded, nothing breaks
    with profile() as prof:
        f(x)
    names = [e.name for e in prof.events()]
    assert names[:1] == ["decorated"] and "aten::mul" in names


def test_backward_operators_and_nested_decompositions_are_recorded():
    w = ember.ones(3, 3, requires_grad=True)
    with profile() as prof:
        (ember.ones(2, 3) @ w).sum().backward()
    evs = prof.events()
    matmuls = [e for e in evs if e.name == "aten::matmul"]
    assert len(matmuls) >= 2  # forward and the backward formula
    assert any(c.name == "aten::bmm" for e in matmuls for c in e.cpu_children)


def test_table_columns_are_torchs():
    def header(prof, **kw):
        return prof.key_averages(**kw).table(row_limit=1).splitlines()[1].split()

    for kw in ({}, {"profile_memory": True}):
        with _quiet_torch_profile(**kw) as tprof:
            _program(torch)
        with profile(**kw) as eprof:
            _program(ember)
        assert header(eprof) == header(tprof)
    with _quiet_torch_profile(record_shapes=True) as tprof:
        _program(torch)
    with profile(record_shapes=True) as eprof:
        _program(ember)
    assert header(eprof, group_by_input_shape=True) == header(tprof, group_by_input_shape=True)
    table = eprof.key_averages().table(sort_by="self_cpu_time_total", row_limit=2)
    assert len(table.splitlines()) == 3 + 2 + 2 and table.rstrip().endswith("s")
    assert "Self CPU time total:" in table
    with pytest.raises(AttributeError, match="cannot sort by 'bogus'; known keys: cpu_time"):
        eprof.key_averages().table(sort_by="bogus")
    with pytest.raises(ValueError, match="time_unit"):
        eprof.key_averages().table(time_unit="h")
    assert "ms" in eprof.key_averages().table(time_unit="ms").splitlines()[3]


def test_profile_memory_counts_new_results_not_views():
    x = ember.ones(16, 16)
    with profile(profile_memory=True) as prof:
        with record_function("block"):
            y = x * 2  # 1 KiB
            y.view(256)  # a view: nothing new
    evs = {e.name: e for e in prof.events()}
    assert evs["aten::mul"].cpu_memory_usage == 16 * 16 * 4
    assert evs["aten::view"].cpu_memory_usage == 0
    assert evs["block"].cpu_memory_usage == 1024 and evs["block"].self_cpu_memory_usage == 0


@pytest.mark.parametrize(
    "kw",
    [
        dict(wait=1, warmup=1, active=2),
        dict(wait=1, warmup=1, active=2, repeat=2),
        dict(wait=0, warmup=1, active=3, skip_first=2),
        dict(wait=2, warmup=1, active=1, repeat=3, skip_first=1, skip_first_wait=1),
    ],
)
def test_schedule_agrees_with_torchs(kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = schedule(**kw), tp.schedule(**kw)
    assert [ours(i).name for i in range(25)] == [theirs(i).name for i in range(25)]


def test_schedule_errors_are_torchs():
    with pytest.raises(AssertionError, match="Invalid profiler schedule arguments"):
        schedule(wait=0, warmup=0, active=0)
    with pytest.warns(UserWarning, match="won't be using warmup"):
        schedule(wait=0, warmup=0, active=1)
    with pytest.raises(AssertionError, match="Step must be non-negative"):
        schedule(wait=0, warmup=1, active=1)(-1)


@pytest.mark.parametrize("kw, steps", [
    (dict(wait=1, warmup=1, active=2, repeat=2), 10),
    (dict(wait=0, warmup=1, active=3), 6),
    (dict(wait=1, warmup=0, active=1), 5),
])  # fmt: skip
def test_traces_hold_the_steps_torchs_do(kw, steps, tmp_path):
    def run(lib, prof_mod):
        traces = []

        def ready(prof):
            path = str(tmp_path / f"{lib.__name__}{len(traces)}.json")
            prof.export_chrome_trace(path)
            with open(path) as f:
                names = [e["name"] for e in json.load(f)["traceEvents"]]
            traces.append(sorted(n for n in names if n.startswith("ProfilerStep#")))

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with prof_mod.profile(schedule=prof_mod.schedule(**kw), on_trace_ready=ready) as p:
                for _ in range(steps):
                    lib.ones(2) + 1
                    p.step()
        return traces, p.step_num

    assert run(ember, ember.profiler) == run(torch, tp)


def test_chrome_trace_and_tensorboard_trace_handler(tmp_path):
    with profile(on_trace_ready=tensorboard_trace_handler(str(tmp_path), "worker0")) as prof:
        with record_function("fwd"):
            ember.ones(3) + 1
    (name,) = os.listdir(tmp_path)
    assert re.fullmatch(r"worker0\.\d+\.pt\.trace\.json", name)
    with open(tmp_path / name) as f:
        doc = json.load(f)
    xs = [e for e in doc["traceEvents"] if e["ph"] == "X"]
    assert {e["cat"] for e in xs} == {"user_annotation", "cpu_op"}
    fwd = next(e for e in xs if e["name"] == "fwd")
    add = next(e for e in xs if e["name"] == "aten::add")
    assert fwd["ts"] <= add["ts"] and add["ts"] + add["dur"] <= fwd["ts"] + fwd["dur"] + 1e-3
    assert abs(fwd["ts"] / 1e6 - time.time()) < 60  # microseconds since the epoch
    gz = tensorboard_trace_handler(str(tmp_path / "gz"), use_gzip=True)
    gz(prof)
    (gzname,) = os.listdir(tmp_path / "gz")
    assert gzname.endswith(".pt.trace.json.gz")
    with gzip.open(tmp_path / "gz" / gzname, "rt") as f:
        assert json.load(f)["traceEvents"]


def test_one_profiler_at_a_time_and_dispatch_is_restored():
    with profile():
        with pytest.raises(RuntimeError, match="Profiler is already enabled"):
            with legacy.profile():
                pass
    assert dk.Tracer not in registry._fallbacks
    assert not registry.tls.include & dk.Tracer.mask
    p = profile()
    with pytest.raises(RuntimeError, match="didn't finish running"):
        p.key_averages()


def test_operators_unobserved_when_tracer_is_taken():
    def other(op, ks, *args):
        return op.redispatch(ks, *args)

    h = library.fallback(other, "Tracer")
    try:
        with pytest.warns(RuntimeWarning, match="records only record_function blocks"):
            with profile() as prof:
                with record_function("still here"):
                    ember.ones(2) + 1
    finally:
        h.remove()
    assert [e.name for e in prof.events()] == ["still here"]


def test_with_stack_points_at_the_caller_and_threads_are_told_apart():
    def worker():
        with record_function("in thread"):
            time.sleep(0.001)

    with profile(with_stack=True) as prof:
        ember.ones(2) * 2
        t = threading.Thread(target=worker)
        t.start()
        t.join()
    evs = {e.name: e for e in prof.events()}
    assert __file__ in evs["aten::mul"].stack[0]
    assert evs["in thread"].thread != evs["aten::mul"].thread
    grouped = prof.key_averages(group_by_stack_n=1)
    assert "Source Location" in grouped.table()


def test_legacy_autograd_profiler():
    with legacy.profile(use_cuda=False, record_shapes=True) as prof:
        with legacy.record_function("label"):
            _program(ember)
    assert isinstance(prof.function_events, EventList)
    assert {"label", "aten::add", "aten::sum"} <= {e.key for e in prof.key_averages()}
    assert prof.total_average().count == len(prof.function_events)
    assert prof.self_cpu_time_total > 0 and "aten::exp" in str(prof)
    unfinished = legacy.profile()
    with pytest.raises(RuntimeError, match="didn't finish running"):
        unfinished.table()
    with legacy.profile(enabled=False) as off:
        ember.ones(1) + 1
    assert off.function_events is None
    with legacy.emit_nvtx(), legacy.emit_itt():
        pass


def test_activities_and_actions_carry_torchs_names():
    assert [a.name for a in ProfilerActivity] == list(tp.ProfilerActivity.__members__)
    assert [a.name for a in ProfilerAction] == [
        n for n in tp.ProfilerAction.__members__ if n != "DEVICE_STOPPED"
    ]
    with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as prof:
        ember.ones(1) + 1
    assert all(e.device_time_total == 0 for e in prof.key_averages())
