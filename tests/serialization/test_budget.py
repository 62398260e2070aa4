"""The load budget: hostile pickles that would hang, crash or allocate without bound are refused
fast, and real checkpoints fit the defaults with room to spare (docs/serialization.md, Limits).

Hang and crash cases run in a child process with a timeout: a case that crashed CPython (a tuple
a million deep hashed as a dict key) or ran for minutes (a DAG standing for 2**40 objects) would
otherwise take the test run down with it.
"""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
import time
from collections import OrderedDict

import pytest

import ember
from ember.serialization import CheckpointError, CheckpointLimitError, LoadLimits
from ember.serialization._zip import ZipWriter
from tests.serialization.conftest import make_checkpoint, pid

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def i4(v: int) -> bytes:
    return v.to_bytes(4, "little")


def long1(v: int) -> bytes:
    b = v.to_bytes((v.bit_length() + 8) // 8 or 1, "little", signed=True)
    return b"\x8a" + bytes([len(b)]) + b


def dag(levels: int = 40, kind: str = "list") -> bytes:
    """Pickle bytes pushing one object: level k holds level k-1 twice (2**levels references)."""
    out = b"]" if kind == "list" else b"N"
    for i in range(levels):
        memo = b"r" + i4(i) + b"j" + i4(i)
        out = (b"](" + out + memo + b"e") if kind == "list" else (out + memo + b"\x86")
    return out


def tensor_v2(storage: bytes, size: tuple[int, ...], stride: tuple[int, ...]) -> bytes:
    def tup(t: tuple[int, ...]) -> bytes:
        return b"(" + b"".join(long1(v) for v in t) + b"t"

    return (
        b"ctorch._utils\n_rebuild_tensor_v2\n("
        + storage
        + b"K\x00"
        + tup(size)
        + tup(stride)
        + b"\x89ccollections\nOrderedDict\n)RtR"
    )


D = dag()
T = dag(kind="tuple")
ODICT = b"ccollections\nOrderedDict\n"
SET = b"c__builtin__\nset\n"
STORE = pid("FloatStorage", "0", 1)
DEEP = b"N" + b"\x85" * 1_000_000  # a tuple nested a million deep, one byte per level
P = 2**61 - 1  # ints k and k + j * P share a hash


def collide(n: int) -> bytes:
    return b"}(" + b"".join(long1(5 + j * P) + b"K\x01" for j in range(n)) + b"u"


# name -> (pickle, expected error class name or "ok", text the message must contain)
CASES = {
    "dag list loads": (b"\x80\x02" + D + b".", "ok", ""),
    "dag as persistent id": (b"\x80\x02" + D + b"Q.", "WeightsUnpicklingError", "tuple"),
    "dag in persistent id": (b"\x80\x02" + D + b"\x85Q.", "WeightsUnpicklingError", "storage"),
    "storage + dag pid": (
        b"\x80\x02(X\x07\x00\x00\x00storage" + D + b"tQ.",
        "WeightsUnpicklingError",
        "5 items",
    ),
    "dag storage type": (
        b"\x80\x02(X\x07\x00\x00\x00storage"
        + D
        + b"X\x01\x00\x00\x000X\x03\x00\x00\x00cpuK\x01tQ.",
        "WeightsUnpicklingError",
        "not a storage type",
    ),
    "pid 0 beside a dag": (b"\x80\x02(" + D + b"K\x00QK\x01t.", "WeightsUnpicklingError", "int"),
    "dag size": (
        b"\x80\x02ctorch._utils\n_rebuild_tensor_v2\n("
        + STORE
        + b"K\x00"
        + D
        + b"\x85(K\x01t\x89}tR.",
        "CheckpointError",
        "size",
    ),
    "dag dtype": (
        b"\x80\x02ctorch._utils\n_rebuild_tensor_v3\n("
        + STORE
        + b"K\x00(K\x01t(K\x01t\x89}"
        + D
        + b"tR.",
        "WeightsUnpicklingError",
        "dtype",
    ),
    "dag callable": (b"\x80\x02" + D + b")R.", "WeightsUnpicklingError", "not an allowed"),
    "dag layout": (
        b"\x80\x02ctorch.serialization\n_get_layout\n" + D + b"\x85R.",
        "CheckpointError",
        "strided",
    ),
    "tuple dag dict key": (b"\x80\x02}" + T + b"K\x01s.", "CheckpointLimitError", "max_work"),
    "tuple dag set member": (
        b"\x80\x02" + SET + b"]" + T + b"a\x85R.",
        "CheckpointLimitError",
        "max_work",
    ),
    "tuple dag OrderedDict key": (
        b"\x80\x02" + ODICT + b"](" + T + b"K\x01\x86a\x85R.",
        "CheckpointLimitError",
        "max_work",
    ),
    "one heavy key hashed 200 times": (
        b"\x80\x02" + dag(20, "tuple") + b"r" + i4(99) + b"](" + b"}h\x63K\x01s" * 200 + b"e.",
        "CheckpointLimitError",
        "max_work",
    ),
    "dict copied 20000 times": (
        b"\x80\x02](}("
        + b"".join(long1(j) + b"N" for j in range(20_000))
        + b"ur"
        + i4(1)
        + ODICT
        + b"r"
        + i4(2)
        + (b"h\x02j" + i4(1) + b"\x85R") * 20_000
        + b"e.",
        "CheckpointLimitError",
        "budget",
    ),
    "hash collisions": (b"\x80\x02" + collide(3000) + b".", "CheckpointLimitError", "hash"),
    "deep tuple dict key": (
        b"\x80\x02}" + DEEP + b"K\x01s.",
        "CheckpointLimitError",
        "max_nesting",
    ),
    "deep tuple set member": (
        b"\x80\x02" + SET + b"]" + DEEP + b"a\x85R.",
        "CheckpointLimitError",
        "max_nesting",
    ),
    "deep tuple OrderedDict key": (
        b"\x80\x02" + ODICT + b"](" + DEEP + b"K\x01\x86a\x85R.",
        "CheckpointLimitError",
        "max_nesting",
    ),
    "expand to 2**40": (
        b"\x80\x02" + tensor_v2(STORE, (1 << 40,), (0,)) + b".",
        "CheckpointLimitError",
        "declares 1099511627776 elements",
    ),
    "expand to 2**64 over 2 dims": (
        b"\x80\x02" + tensor_v2(STORE, (1 << 32, 1 << 32), (0, 0)) + b".",
        "CheckpointLimitError",
        "max_expansion",
    ),
}

_CHILD = r"""
import io, json, sys, time
import ember
cases = json.load(open(sys.argv[1]))
for name, hexdata in cases.items():
    data = bytes.fromhex(hexdata)
    t = time.perf_counter()
    try:
        ember.load(io.BytesIO(data))
        out = ["ok", ""]
    except ember.serialization.CheckpointError as e:
        out = [type(e).__name__, str(e)[:2000]]
    print(json.dumps([name, round(time.perf_counter() - t, 3)] + out), flush=True)
"""


def test_hostile_pickles_fail_fast_in_a_child(tmp_path):
    cases = {k: make_checkpoint(v[0], {"data/0": b"\0" * 4}).hex() for k, v in CASES.items()}
    path = tmp_path / "cases.json"
    path.write_text(json.dumps(cases))
    p = subprocess.run(
        [sys.executable, "-c", _CHILD, str(path)],
        capture_output=True,
        text=True,
        timeout=120,
        cwd=ROOT,
    )
    done = [json.loads(line) for line in p.stdout.splitlines()]
    assert p.returncode == 0, (p.returncode, [d[0] for d in done], p.stderr[-2000:])
    assert [d[0] for d in done] == list(CASES)
    for name, seconds, kind, msg in done:
        _, want, text = CASES[name]
        assert (kind, text in msg) == (want, True), (name, kind, msg)
        assert seconds < 5, (name, seconds)


def test_dag_loads_as_a_dag():
    r = ember.load(io.BytesIO(make_checkpoint(b"\x80\x02" + dag(40) + b".")))
    for _ in range(40):
        assert r[0] is r[1]
        r = r[0]
    assert r == []


def test_errors_name_the_limit_and_how_to_raise_it():
    data = make_checkpoint(b"\x80\x02}" + T + b"K\x01s.")
    with pytest.raises(CheckpointLimitError) as e:
        ember.load(io.BytesIO(data))
    msg = str(e.value)
    assert "max_work" in msg and "LoadLimits(max_work=...)" in msg and "set_load_limits" in msg
    # a tuple DAG of 20 levels costs 2**20 units to hash: fine once raised
    key = make_checkpoint(b"\x80\x02}" + dag(20, "tuple") + b"K\x01s.")
    with pytest.raises(CheckpointLimitError, match="max_work"):
        ember.load(io.BytesIO(key), limits=LoadLimits(max_work=1000))
    assert len(ember.load(io.BytesIO(key))) == 1


def test_depth_is_the_true_object_depth():
    # TUPLE1 opens no MARK: only the true depth can see this nesting
    for depth, ok in [(999, True), (1000, True), (1001, False)]:
        data = make_checkpoint(b"\x80\x02N" + b"\x85" * depth + b".")
        if ok:
            ember.load(io.BytesIO(data))
        else:
            with pytest.raises(CheckpointLimitError, match="max_nesting.*1001 deep"):
                ember.load(io.BytesIO(data))
    data = make_checkpoint(b"\x80\x02}" + b"N" + b"\x85" * 5000 + b"K\x01s.")
    r = ember.load(io.BytesIO(data), limits=LoadLimits(max_nesting=6000))
    assert len(r) == 1 and hash(next(iter(r)))
    # depth through lists, dicts and memo reuse
    lists = b"]" + b"".join(b"r" + i4(i) + b"](j" + i4(i) + b"e" for i in range(1200)) + b"."
    with pytest.raises(CheckpointLimitError, match="max_nesting"):
        ember.load(io.BytesIO(make_checkpoint(b"\x80\x02" + lists)))


def test_hash_collisions_are_refused_but_honest_int_keys_load():
    with pytest.raises(CheckpointLimitError, match="hash-collision"):
        ember.load(io.BytesIO(make_checkpoint(b"\x80\x02" + collide(10) + b".")))
    assert len(ember.load(io.BytesIO(make_checkpoint(b"\x80\x02" + collide(9) + b".")))) == 9
    # -1 and -2 share a hash in CPython; big ints, tuples and floats as keys still load
    obj = {-1: 1, -2: 2, 2**70: 3, (1, 2): 4, ((1,), (2, 3)): 5, 0.5: 6}
    buf = io.BytesIO()
    ember.save(obj, buf)
    assert ember.load(io.BytesIO(buf.getvalue())) == obj


def test_expanded_tensor_asks_for_memory():
    # honest: a saved expand is charged what it declares and loads
    buf = io.BytesIO()
    ember.save({"e": ember.zeros(1).expand(1000)}, buf)
    assert ember.load(io.BytesIO(buf.getvalue()))["e"].shape == (1000,)
    # 4 MB declared over a 4-byte storage in a tiny file: over the budget, fine when raised
    data = make_checkpoint(
        b"\x80\x02" + tensor_v2(STORE, (1 << 20,), (0,)) + b".", {"data/0": b"\0" * 4}
    )
    with pytest.raises(CheckpointLimitError, match="stride \\(0,\\).*4194304 bytes over a 4-byte"):
        ember.load(io.BytesIO(data))
    t = ember.load(io.BytesIO(data), limits=LoadLimits(min_budget=8 << 20))
    assert t.shape == (1 << 20,) and t.stride() == (0,)


def test_central_directory_entries_sharing_one_record_are_refused():
    buf = io.BytesIO()
    w = ZipWriter(buf)
    w.add("a/data.pkl", b"\x80\x02N.")
    w.add("a/version", b"3\n")
    w.add("a/data/0", bytes(1 << 16))
    name, flags, crc, size, off = w.central[-1]
    for k in range(1, 100):
        w.central.append((f"a/data/{k}".encode(), flags, crc, size, off))
    w.close()
    with pytest.raises(CheckpointError, match="add up to more than"):
        ember.load(io.BytesIO(buf.getvalue()))


# -- real checkpoints fit the defaults ------------------------------------------------------


def _bn(sd: OrderedDict, name: str, c: int) -> None:
    for k in ("weight", "bias", "running_mean", "running_var"):
        sd[f"{name}.{k}"] = ember.zeros(c)
    sd[f"{name}.num_batches_tracked"] = ember.tensor(0)


def resnet50_state_dict() -> OrderedDict:
    """torchvision's resnet50 state_dict: the same 320 names and shapes, 25.6M parameters."""
    sd: OrderedDict = OrderedDict()
    sd["conv1.weight"] = ember.zeros(64, 3, 7, 7)
    _bn(sd, "bn1", 64)
    cin = 64
    for li, (blocks, width) in enumerate([(3, 64), (4, 128), (6, 256), (3, 512)], 1):
        for b in range(blocks):
            p = f"layer{li}.{b}"
            sd[f"{p}.conv1.weight"] = ember.zeros(width, cin, 1, 1)
            _bn(sd, f"{p}.bn1", width)
            sd[f"{p}.conv2.weight"] = ember.zeros(width, width, 3, 3)
            _bn(sd, f"{p}.bn2", width)
            sd[f"{p}.conv3.weight"] = ember.zeros(width * 4, width, 1, 1)
            _bn(sd, f"{p}.bn3", width * 4)
            if b == 0:
                sd[f"{p}.downsample.0.weight"] = ember.zeros(width * 4, cin, 1, 1)
                _bn(sd, f"{p}.downsample.1", width * 4)
            cin = width * 4
    sd["fc.weight"] = ember.zeros(1000, 2048)
    sd["fc.bias"] = ember.zeros(1000)
    sd._metadata = OrderedDict((k.rsplit(".", 1)[0], {"version": 1}) for k in sd)
    return sd


def gpt2_state_dict() -> OrderedDict:
    """Hugging Face's GPT-2 small state_dict: 124M parameters, lm_head tied to wte."""
    sd: OrderedDict = OrderedDict()
    sd["transformer.wte.weight"] = ember.zeros(50257, 768)
    sd["transformer.wpe.weight"] = ember.zeros(1024, 768)
    for i in range(12):
        p = f"transformer.h.{i}"
        for ln in ("ln_1", "ln_2"):
            sd[f"{p}.{ln}.weight"] = ember.zeros(768)
            sd[f"{p}.{ln}.bias"] = ember.zeros(768)
        sd[f"{p}.attn.bias"] = ember.zeros(1, 1, 1024, 1024, dtype=ember.bool)
        sd[f"{p}.attn.c_attn.weight"] = ember.zeros(768, 2304)
        sd[f"{p}.attn.c_attn.bias"] = ember.zeros(2304)
        sd[f"{p}.attn.c_proj.weight"] = ember.zeros(768, 768)
        sd[f"{p}.attn.c_proj.bias"] = ember.zeros(768)
        sd[f"{p}.mlp.c_fc.weight"] = ember.zeros(768, 3072)
        sd[f"{p}.mlp.c_fc.bias"] = ember.zeros(3072)
        sd[f"{p}.mlp.c_proj.weight"] = ember.zeros(3072, 768)
        sd[f"{p}.mlp.c_proj.bias"] = ember.zeros(768)
    sd["transformer.ln_f.weight"] = ember.zeros(768)
    sd["transformer.ln_f.bias"] = ember.zeros(768)
    sd["lm_head.weight"] = sd["transformer.wte.weight"]
    return sd


def big_state_dict(nbytes: int) -> OrderedDict:
    n = 16
    return OrderedDict((f"w{i}", ember.zeros(nbytes // n // 4)) for i in range(n))


# Each real checkpoint must also load with a tenth of the default work budget and a memory
# budget of 3x its size (storages once, every tensor's declared bytes once more, a tied weight
# a third time): the defaults (16 units and 32 bytes per byte of file) leave ample room.
TIGHT = LoadLimits(max_expansion=3.0, min_budget=0, work_per_byte=0.0, max_work=2_000_000)


@pytest.mark.parametrize(
    "make",
    [resnet50_state_dict, gpt2_state_dict, lambda: big_state_dict(1 << 30)],
    ids=["resnet50", "gpt2-small", "1GiB"],
)
def test_real_checkpoints_fit_the_defaults(tmp_path, make):
    sd = make()
    path = tmp_path / "ckpt.pt"
    ember.save(sd, path)
    del sd
    for limits in (None, TIGHT):
        r = ember.load(path, limits=limits)
        assert all(isinstance(v, ember.Tensor) for v in r.values())
        del r
    assert ember.load(path, mmap=True, limits=TIGHT)


def test_normal_load_speed_is_unchanged(tmp_path):
    """A 100 MB state_dict loads at disk speed: the budget adds no per-byte work (report the
    before/after timing in docs/serialization.md; this only guards against a gross slowdown)."""
    sd = OrderedDict((f"w{i}", ember.zeros(1 << 20)) for i in range(25))
    path = tmp_path / "sd.pt"
    ember.save(sd, path)
    t = time.perf_counter()
    ember.load(path)
    assert time.perf_counter() - t < 10
