"""ember.device parsing, interning and normalisation."""

import pickle

import pytest

import ember


def test_parse_forms():
    assert ember.device("cpu").type == "cpu" and ember.device("cpu").index is None
    d = ember.device("opencl:1")
    assert (d.type, d.index) == ("opencl", 1)
    assert ember.device("opencl", 1) is d
    assert ember.device(d) is d
    assert repr(d) == "device(type='opencl', index=1)" and str(d) == "opencl:1"
    assert repr(ember.device("cpu")) == "device(type='cpu')"


def test_any_name_is_a_device_type():
    # The core keeps no list of device types: parsing never needs a plugin.
    assert ember.device("someday_npu:3").type == "someday_npu"


def test_equality_with_strings_and_hash():
    assert ember.device("cpu") == "cpu"
    assert ember.device("opencl:0") != "opencl:1"
    assert ember.device("opencl:0") != "not a device!"
    assert len({ember.device("cpu"), ember.device("cpu")}) == 1


@pytest.mark.parametrize("bad", ["", "cpu:", "cpu:x", "1cpu", "cpu:0:1", "c p u"])
def test_invalid_strings(bad):
    with pytest.raises(RuntimeError, match="Invalid device string"):
        ember.device(bad)


def test_errors():
    with pytest.raises(RuntimeError, match="must not be negative"):
        ember.device("cpu", -1)
    with pytest.raises(RuntimeError, match="must not include an index"):
        ember.device("cpu:0", 1)
    with pytest.raises(TypeError, match="expected a string"):
        ember.device(1.5)
    with pytest.raises(AttributeError, match="immutable"):
        ember.device("cpu").index = 2


def test_pickle_keeps_interning():
    d = ember.device("opencl", 2)
    assert pickle.loads(pickle.dumps(d)) is d


def test_tensor_device_is_normalised():
    t = ember.zeros(2, device="cpu:0")
    assert t.device is ember.device("cpu")
    assert t.device.index is None


def test_unknown_device_error_names_known_devices():
    with pytest.raises(RuntimeError, match=r"Unknown device type 'nosuchdev'.*Known device types"):
        ember.zeros(2, device="nosuchdev")


def test_meta_device_computes_shapes_only():
    m = ember.zeros(4, 3, device="meta")
    r = (m @ ember.zeros(3, 5, device="meta")).sum(0)
    assert r.shape == (5,) and r.device == "meta" and r.dtype is ember.float32
    with pytest.raises(NotImplementedError, match="meta tensor"):
        m.tolist()
