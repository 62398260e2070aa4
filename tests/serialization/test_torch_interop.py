"""Cross-library checks with real torch: torch.save -> ember.load and ember.save -> torch.load."""

from __future__ import annotations

import numpy as np
import pytest

import ember
from ember.core.tensor import _host_array
from ember.serialization import CheckpointError

torch = pytest.importorskip("torch")

PAIRS = [
    ("bool", torch.bool, ember.bool),
    ("uint8", torch.uint8, ember.uint8),
    ("int8", torch.int8, ember.int8),
    ("int16", torch.int16, ember.int16),
    ("int32", torch.int32, ember.int32),
    ("int64", torch.int64, ember.int64),
    ("float16", torch.float16, ember.float16),
    ("bfloat16", torch.bfloat16, ember.bfloat16),
    ("float32", torch.float32, ember.float32),
    ("float64", torch.float64, ember.float64),
]
VALUES = [[1, -2, 3], [0, 5, 7]]


def bits(t):
    """Raw element bits of a torch tensor as a numpy array (bfloat16 as uint16)."""
    if t.dtype is torch.bfloat16:
        return t.view(torch.int16).numpy().view(np.uint16)
    return t.numpy()


def ebits(t):
    """Raw element bits of an ember tensor (bfloat16 as uint16)."""
    return np.ascontiguousarray(_host_array(t))


@pytest.mark.parametrize("name,td,ed", PAIRS, ids=[p[0] for p in PAIRS])
def test_torch_to_ember(tmp_path, name, td, ed):
    base = torch.tensor(VALUES, dtype=torch.float64).to(td)
    obj = {"x": base, "t": base.t(), "row": base[1], "scalar": base[0, 0].clone()}
    p = tmp_path / "t.pt"
    torch.save(obj, p)
    for kw in ({}, {"mmap": True}):
        r = ember.load(p, **kw)
        assert r["x"].dtype is ed
        assert r["t"]._storage is r["x"]._storage and r["t"].stride() == (1, 3)
        for k in obj:
            np.testing.assert_array_equal(ebits(r[k]), bits(obj[k]))


@pytest.mark.parametrize("name,td,ed", PAIRS, ids=[p[0] for p in PAIRS])
def test_ember_to_torch(tmp_path, name, td, ed):
    base = ember.tensor(VALUES, dtype=ember.float64).to(ed)
    obj = {"x": base, "t": base.t(), "row": base[1], "e": ember.zeros(0, 2, dtype=ed)}
    p = tmp_path / "e.pt"
    ember.save(obj, p)
    for kw in ({"weights_only": True}, {"weights_only": True, "mmap": True}):
        r = torch.load(p, **kw)
        assert r["x"].dtype is td
        assert r["t"].untyped_storage().data_ptr() == r["x"].untyped_storage().data_ptr()
        for k in obj:
            np.testing.assert_array_equal(bits(r[k]), ebits(obj[k]))


def test_state_dict_with_metadata_loads_into_torch_module(tmp_path):
    m = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    p = tmp_path / "m.pt"
    torch.save(m.state_dict(), p)
    sd = ember.load(p)
    assert sd._metadata == m.state_dict()._metadata
    assert sd["1.num_batches_tracked"].dtype is ember.int64
    ember.save(sd, tmp_path / "back.pt")
    back = torch.load(tmp_path / "back.pt", weights_only=True)
    assert back._metadata == sd._metadata
    m2 = torch.nn.Sequential(torch.nn.Linear(3, 2), torch.nn.BatchNorm1d(2))
    assert str(m2.load_state_dict(back)) == "<All keys matched successfully>"
    torch.testing.assert_close(m2[0].weight, m[0].weight)


def test_parameters_attributes_and_optimizer_state_from_torch(tmp_path):
    w = torch.nn.Parameter(torch.ones(2))
    t = torch.zeros(2)
    t.foo = "bar"
    opt = torch.optim.Adam([w])
    w.grad = torch.ones(2)
    opt.step()
    torch.save(
        {"w": w, "t": t, "opt": opt.state_dict(), "g": torch.zeros(1, requires_grad=True)},
        tmp_path / "p.pt",
    )
    r = ember.load(tmp_path / "p.pt")
    assert r["w"].requires_grad and r["g"].requires_grad
    assert r["t"].foo == "bar"
    assert r["opt"]["param_groups"][0]["params"] == [0]
    assert r["opt"]["state"][0]["exp_avg"].shape == (2,)


def test_legacy_format_from_torch(tmp_path):
    p = tmp_path / "legacy.pt"
    base = torch.arange(6.0)
    torch.save(
        {"a": base, "v": base[2:], "i": torch.tensor([1, 2])},
        p,
        _use_new_zipfile_serialization=False,
    )
    for wo in (True, False):
        r = ember.load(p, weights_only=wo)
        assert r["v"].tolist() == [2.0, 3.0, 4.0, 5.0] and r["i"].tolist() == [1, 2]
        assert r["v"]._storage is r["a"]._storage
    with pytest.raises(CheckpointError, match="legacy"):
        ember.load(p, mmap=True)


def test_unsupported_dtypes_are_named(tmp_path):
    for td, name in [(torch.uint16, "uint16"), (torch.complex64, "complex64")]:
        torch.save({"x": torch.zeros(2, dtype=td)}, tmp_path / "u.pt")
        with pytest.raises(CheckpointError, match=name):
            ember.load(tmp_path / "u.pt")


def test_torch_file_object_and_big_endian_marker(tmp_path):
    import io

    buf = io.BytesIO()
    torch.save([torch.tensor([1.5, 2.5])], buf)
    buf.seek(0)
    assert ember.load(buf)[0].tolist() == [1.5, 2.5]


def test_torch_cuda_location_needs_map_location(tmp_path):
    from tests.serialization.conftest import make_checkpoint, pid, rebuild

    data = make_checkpoint(
        rebuild(pid("FloatStorage", "0", 1, "cuda:0"), 0, (1,), (1,)) + b".",
        {"data/0": np.float32([7]).tobytes()},
    )
    (tmp_path / "c.pt").write_bytes(data)
    assert torch.load(tmp_path / "c.pt", map_location="cpu").tolist() == [7.0]
    assert ember.load(tmp_path / "c.pt", map_location="cpu").tolist() == [7.0]


def test_safetensors_interop(tmp_path):
    st = pytest.importorskip("safetensors.torch")
    from ember.serialization import safetensors as est

    src = {n: torch.tensor([1, 0, 3], dtype=td) for n, td, _ in PAIRS}
    st.save_file(src, tmp_path / "t.safetensors")
    r = est.load_file(tmp_path / "t.safetensors")
    for n, _td, ed in PAIRS:
        assert r[n].dtype is ed
        np.testing.assert_array_equal(ebits(r[n]), bits(src[n]))
    est.save_file(r, tmp_path / "e.safetensors", metadata={"k": "v"})
    back = st.load_file(tmp_path / "e.safetensors")
    for n, td, _ in PAIRS:
        assert back[n].dtype is td and torch.equal(back[n], src[n])
    assert est.load(est.save({"a": r["float32"]}))["a"].tolist() == [1.0, 0.0, 3.0]
