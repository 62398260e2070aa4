"""ember.save / ember.load of opencl tensors: back onto opencl, or onto the CPU."""

import numpy as np
import pytest

import ember


def test_roundtrip_onto_opencl(tmp_path):
    x = ember.arange(12.0).reshape(3, 4).to("opencl")
    obj = {"x": x, "view": x[:, 1], "i": ember.tensor([1, 2, 3]).to("opencl"), "c": ember.ones(2)}
    ember.save(obj, tmp_path / "a.pt")
    got = ember.load(tmp_path / "a.pt")
    assert got["x"].device == ember.device("opencl:0") and got["c"].device.type == "cpu"
    np.testing.assert_array_equal(got["x"].cpu().numpy(), x.cpu().numpy())
    np.testing.assert_array_equal(got["view"].cpu().numpy(), [1.0, 5.0, 9.0])
    assert got["i"].dtype == ember.int64 and got["i"].cpu().tolist() == [1, 2, 3]
    got["view"].fill_(0)  # the view still shares its storage with x after loading
    assert got["x"].cpu().numpy()[:, 1].tolist() == [0.0, 0.0, 0.0]


@pytest.mark.parametrize("map_location", ["cpu", {"opencl:0": "cpu"}, ember.device("cpu")])
def test_map_location_cpu(tmp_path, map_location):
    x = ember.randn(5, dtype=ember.float64).to("opencl")
    ember.save(x, tmp_path / "b.pt")
    y = ember.load(tmp_path / "b.pt", map_location=map_location)
    assert y.device.type == "cpu"
    np.testing.assert_array_equal(y.numpy(), x.cpu().numpy())


def test_cpu_checkpoint_onto_opencl_and_module_state(tmp_path):
    m = ember.nn.Linear(4, 3)
    ember.save(m.state_dict(), tmp_path / "m.pt")
    sd = ember.load(tmp_path / "m.pt", map_location="opencl")
    assert all(v.device.type == "opencl" for v in sd.values())
    m2 = ember.nn.Linear(4, 3).to("opencl")
    m2.load_state_dict(sd)
    np.testing.assert_array_equal(m2.weight.detach().cpu().numpy(), m.weight.detach().numpy())


def test_checkpoint_is_readable_by_torch(tmp_path):
    torch = pytest.importorskip("torch")
    x = ember.arange(6, dtype=ember.float32).to("opencl")
    ember.save(x, tmp_path / "t.pt")
    t = torch.load(tmp_path / "t.pt", map_location="cpu", weights_only=True)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0, 4.0, 5.0]
