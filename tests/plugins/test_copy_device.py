"""Copies between two devices of one type (issue 14, item 12): ``.to("dev:1")`` from
``dev:0`` and ``copy_`` across them call the backend's ``copy_device`` once, with the
destination device, instead of a round trip through host memory; a backend without
``copy_device``, or one that raises ``NotImplementedError`` for the pair, still goes
through the host (Note [Device-to-device copies])."""

import numpy as np
import pytest
from numpy.lib.stride_tricks import as_strided

import ember
from ember import library


def view(t):
    dtype = t.dtype.numpy
    if t.numel() == 0:
        return np.empty(tuple(t.shape), dtype)
    isz = dtype.itemsize
    first = t.untyped_storage().data[t.storage_offset() * isz :][:isz].view(dtype)
    return as_strided(first, tuple(t.shape), tuple(s * isz for s in t.stride()))


class TwoDevices(library.DeviceBackend):
    indexed = True
    host_memory = False

    def __init__(self, name):
        self.name = name
        self.log = []

    def device_count(self):
        return 2

    def allocate(self, nbytes, dev):
        return np.zeros(nbytes, np.uint8)

    def to_host(self, data, offset, nbytes, dev):
        self.log.append(("to_host", dev.index))
        return data[offset : offset + nbytes].copy()

    def from_host(self, array, dev):
        self.log.append(("from_host", dev.index))
        return np.array(array, np.uint8).reshape(-1)

    def synchronize(self, dev=None):
        self.log.append(("synchronize", None if dev is None else dev.index))


class Direct(TwoDevices):
    def copy_device(self, dst, dst_off, src, src_off, nbytes, dev):
        self.log.append(("copy_device", dev.index, dst_off, src_off, nbytes))
        dst[dst_off : dst_off + nbytes] = src[src_off : src_off + nbytes]


class Refuses(TwoDevices):
    def copy_device(self, dst, dst_off, src, src_off, nbytes, dev):
        self.log.append(("copy_device", dev.index))
        raise NotImplementedError("no peer access between these two")


def _register(backend):
    lib = library.Library()
    lib.register_device(backend)
    lib.impl("copy_", lambda out, src: np.copyto(view(out), view(src)), backend.name)
    lib.impl("fill_.Scalar", lambda out, v: np.copyto(view(out), v), backend.name)
    return lib


@pytest.fixture
def direct():
    b = Direct("cd_direct")
    lib = _register(b)
    yield b
    lib.remove()


def test_to_another_index_calls_copy_device_once_with_the_destination(direct):
    x = ember.arange(6.0).reshape(2, 3).to("cd_direct:0")
    direct.log.clear()
    y = x[:, 1:].to("cd_direct:1")  # a strided source: made contiguous on its device first
    assert str(y.device) == "cd_direct:1"
    assert [e for e in direct.log if e[0] != "synchronize"] == [("copy_device", 1, 0, 0, 16)]
    assert ("synchronize", 0) in direct.log and ("synchronize", 1) in direct.log
    assert y.cpu().tolist() == [[1.0, 2.0], [4.0, 5.0]]


def test_copy_across_indices_and_offsets(direct):
    x = ember.arange(5, dtype=ember.int64).to("cd_direct:0")
    dst = ember.zeros(3, dtype=ember.int64, device="cd_direct:1")
    direct.log.clear()
    dst.copy_(x[2:])  # a source at element offset 2
    assert ("copy_device", 1, 0, 16, 24) in direct.log
    assert not [e for e in direct.log if e[0] in ("to_host", "from_host")]
    assert dst.cpu().tolist() == [2, 3, 4]
    back = dst.to("cd_direct:0")
    assert str(back.device) == "cd_direct:0" and back.cpu().tolist() == [2, 3, 4]


def test_empty_tensor_needs_no_copy(direct):
    x = ember.empty(0, 3, device="cd_direct:0")
    direct.log.clear()
    y = x.to("cd_direct:1")
    assert y.shape == (0, 3) and str(y.device) == "cd_direct:1"
    assert not [e for e in direct.log if e[0] == "copy_device"]


def test_without_copy_device_or_when_it_refuses_the_host_carries_the_bytes():
    for backend in (TwoDevices("cd_plain"), Refuses("cd_refuses")):
        lib = _register(backend)
        try:
            x = ember.tensor([1.0, 2.0]).to(f"{backend.name}:0")
            backend.log.clear()
            y = x.to(f"{backend.name}:1")
            moves = [e[:2] for e in backend.log if e[0] in ("to_host", "from_host")]
            assert moves == [("to_host", 0), ("from_host", 1)]
            assert y.cpu().tolist() == [1.0, 2.0] and y.device.index == 1
        finally:
            lib.remove()


def test_moves_to_and_from_the_cpu_never_call_copy_device(direct):
    direct.log.clear()
    x = ember.ones(2).to("cd_direct:1")
    assert x.cpu().tolist() == [1.0, 1.0]
    assert not [e for e in direct.log if e[0] == "copy_device"]
