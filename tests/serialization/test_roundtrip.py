"""ember.save -> ember.load round trips: containers, views, memo, metadata, devices, files."""

from __future__ import annotations

import io
import os
import pathlib
from collections import OrderedDict

import numpy as np
import pytest

import ember
from ember.serialization import CheckpointError

ALL = [
    ember.bool,
    ember.uint8,
    ember.int8,
    ember.int16,
    ember.int32,
    ember.int64,
    ember.float16,
    ember.bfloat16,
    ember.float32,
    ember.float64,
]


def rt(obj, **kw):
    buf = io.BytesIO()
    ember.save(obj, buf)
    buf.seek(0)
    return ember.load(buf, **kw)


def vals(t):
    return t._host_values().tolist()


@pytest.mark.parametrize("d", ALL, ids=lambda d: d.name)
def test_every_dtype(d):
    t = ember.tensor([1, 0, 3], dtype=d)
    r = rt(t)
    assert r.dtype is d and vals(r) == vals(t)


def test_nested_containers_and_scalars():
    obj = {
        "a": [1, 2.5, True, None, "s", b"raw", b"", 2**70, -7],
        "b": (ember.zeros(2), {"x": (1,)}),
        3: OrderedDict(k=ember.ones(1)),
        "set": {1, 2},
        "c": complex(1, 2),
    }
    r = rt(obj)
    assert r["a"] == obj["a"] and r["set"] == {1, 2} and r["c"] == 1 + 2j
    assert vals(r["b"][0]) == [0.0, 0.0] and r["b"][1] == {"x": (1,)}
    assert isinstance(r[3], OrderedDict) and vals(r[3]["k"]) == [1.0]


def test_views_share_storage_and_memo_keeps_identity():
    base = ember.arange(12.0)
    sd = {"base": base, "v": base[1::3], "t": base.reshape(3, 4).t(), "again": base}
    r = rt(sd)
    assert r["again"] is r["base"]
    assert r["v"]._storage is r["base"]._storage is r["t"]._storage
    assert vals(r["v"]) == [1.0, 4.0, 7.0, 10.0] and r["t"].stride() == (1, 4)
    r["base"][1] = 100.0
    assert vals(r["v"])[0] == 100.0


def test_state_dict_metadata_and_optimizer_state():
    sd = OrderedDict([("0.weight", ember.ones(2, 2)), ("1.num_batches_tracked", ember.tensor(3))])
    sd._metadata = OrderedDict([("", {"version": 1}), ("0", {"version": 2})])
    opt = {
        "state": {0: {"step": ember.tensor(1.0), "exp_avg": ember.zeros(2)}},
        "param_groups": [{"lr": 0.1, "params": [0, 1]}],
    }
    r = rt({"model": sd, "opt": opt})
    assert r["model"]._metadata == sd._metadata
    assert list(r["model"]) == list(sd)
    assert r["opt"]["param_groups"] == opt["param_groups"]
    assert vals(r["opt"]["state"][0]["exp_avg"]) == [0.0, 0.0]


def test_zero_dim_empty_requires_grad_and_attributes():
    w = ember.ones(3).requires_grad_()
    t = ember.zeros(2)
    t.note = "hi"
    r = rt({"s": ember.tensor(2.5), "e": ember.zeros(0, 4), "w": w, "t": t})
    assert r["s"].shape == () and r["s"].item() == 2.5
    assert r["e"].shape == (0, 4)
    assert r["w"].requires_grad
    assert r["t"].note == "hi"


def test_parameter_subclass_is_saved_as_parameter():
    class Parameter(ember.Tensor):
        pass

    p = ember.ones(2)
    p.__class__ = Parameter
    p.requires_grad_(True)
    r = rt({"p": p})
    assert r["p"].requires_grad and vals(r["p"]) == [1.0, 1.0]


def test_paths_pathlike_and_atomic_replace(tmp_path):
    p = tmp_path / "model.pt"
    ember.save({"a": ember.ones(1)}, p)
    assert vals(ember.load(str(p))["a"]) == [1.0]

    class Boom:
        def __reduce__(self):
            raise RuntimeError("boom")

    with pytest.raises(RuntimeError, match="boom"):
        ember.save({"a": ember.zeros(1), "b": Boom()}, p)
    assert vals(ember.load(p)["a"]) == [1.0]  # old file intact
    assert sorted(os.listdir(tmp_path)) == ["model.pt"]  # no temp file left
    ember.save({"a": ember.zeros(1)}, pathlib.PurePath(str(p)))
    assert vals(ember.load(p)["a"]) == [0.0]


def test_mmap_is_zero_copy(tmp_path):
    p = tmp_path / "m.pt"
    ember.save({"a": ember.arange(1000.0), "b": ember.ones(4)}, p)
    r = ember.load(p, mmap=True)
    base = r["a"]._storage.data
    while getattr(base, "base", None) is not None:
        base = base.base
    assert "mmap" in type(base).__name__.lower()
    assert vals(r["a"])[999] == 999.0
    with pytest.raises(ValueError, match="file path"):
        ember.load(io.BytesIO(p.read_bytes()), mmap=True)


def test_map_location_forms():
    t = ember.ones(2)
    for ml in [
        "cpu",
        ember.device("cpu"),
        {"cpu": "cpu"},
        lambda s, loc: None,
        lambda s, loc: s,
        lambda s, loc: "cpu",
    ]:
        assert rt(t, map_location=ml).device == ember.device("cpu")


def test_weights_only_false_roundtrip():
    r = rt({"x": ember.ones(2), "f": frozenset({1})}, weights_only=False)
    assert r["f"] == frozenset({1}) and vals(r["x"]) == [1.0, 1.0]


def test_missing_device_plugin_suggests_map_location():
    from tests.serialization.conftest import make_checkpoint, pid, rebuild

    data = make_checkpoint(
        rebuild(pid("FloatStorage", "0", 1, "cuda:0"), 0, (1,), (1,)) + b".",
        {"data/0": np.float32([7]).tobytes()},
    )
    with pytest.raises(CheckpointError, match="map_location='cpu'"):
        ember.load(io.BytesIO(data))
    r = ember.load(io.BytesIO(data), map_location={"cuda:0": "cpu"})
    assert vals(r) == [7.0]


def test_fake_device_roundtrip():
    lib = ember.library.Library("sertest")

    class FakeDev(ember.library.DeviceBackend):
        name = "serdev"
        indexed = True
        host_memory = False

        def device_count(self):
            return 1

        def allocate(self, n, dev):
            return np.zeros(n, np.uint8)

        def from_host(self, a, dev):
            return np.array(a, np.uint8).reshape(-1)

        def to_host(self, data, off, n, dev):
            return data[off : off + n].copy()

    try:
        lib.register_device(FakeDev())
        lib.impl("aten::fill_.Scalar", lambda out, v: None, "serdev")
        lib.impl("aten::copy_", lambda out, src: None, "serdev")
        dev = ember.device("serdev", 0)
        from ember.core.storage import Storage
        from ember.core.tensor import make_tensor
        from ember.dispatcher import devices

        raw = np.float32([1, 2, 3]).view(np.uint8).copy()
        t = make_tensor(Storage(raw, 12, dev), (3,), (1,), 0, ember.float32, dev, devices.mask(dev))
        buf = io.BytesIO()
        ember.save({"t": t}, buf)
        assert b"serdev:0" in buf.getvalue()
        buf.seek(0)
        r = ember.load(buf)["t"]
        assert r.device == dev and r._storage.data.view(np.float32).tolist() == [1, 2, 3]
        buf.seek(0)
        assert vals(ember.load(buf, map_location="cpu")["t"]) == [1.0, 2.0, 3.0]
    finally:
        lib.remove()
    buf.seek(0)
    with pytest.raises(CheckpointError, match="serdev.*map_location"):
        ember.load(buf)
