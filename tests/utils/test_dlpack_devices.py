"""Device memory through the device contract's optional hooks, with a fake plugin:
``ember.from_dlpack`` of a non-host DLPack device (handed to the plugin that declares the
type, Note [DLPack import]), ``Tensor.__cuda_array_interface__``, and ``from_host``'s
``non_blocking`` keyword passed only to the backends that accept it (Note [Optional hooks]).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest
import torch

import ember
from ember.core.backend import accepts_keyword, host_to_device
from ember.operators import dlpack as impl
from ember.utils.dlpack import DLDeviceType

EXT = int(DLDeviceType.kDLExtDev)  # a type no real plugin declares


class FakeDev(ember.library.DeviceBackend):
    """Two devices of numpy memory that call themselves kDLExtDev and import through a hook."""

    name = "fakedl"
    indexed = True
    host_memory = False

    def __init__(self) -> None:
        self.imported: list[tuple[Any, Any]] = []
        self.uploads: list[bool] = []

    def device_count(self) -> int:
        return 2

    def allocate(self, n: int, dev: Any) -> Any:
        return np.zeros(n, np.uint8)

    def from_host(self, a: Any, dev: Any, non_blocking: bool = False) -> Any:
        self.uploads.append(non_blocking)
        return np.array(a, np.uint8).reshape(-1)

    def to_host(self, data: Any, off: int, n: int, dev: Any) -> Any:
        return data[off : off + n].copy()

    def dlpack_device(self, dev: Any) -> tuple[int, int]:
        return (EXT, dev.index or 0)

    def from_dlpack(self, ext_tensor: Any, *, copy: bool | None) -> Any:
        self.imported.append((ext_tensor, copy))
        return ember.tensor([1.0, 2.0]).to("fakedl:0")

    def cuda_array_interface(self, tensor: Any) -> dict[str, Any]:
        return {"shape": tuple(tensor.shape), "typestr": "<f4", "data": (0, False), "version": 3}


def _copy(out: Any, src: Any) -> None:
    n = out.numel() * out.element_size()
    out._storage.data[:n] = src._storage.data[:n]


@pytest.fixture
def fake() -> Any:
    b = FakeDev()
    lib = ember.library.Library("dlpack_devices_test")
    lib.register_device(b)
    h = ember.library.impl("copy_", _copy, "fakedl")
    try:
        yield b
    finally:
        h.remove()
        lib.remove()


class Producer:
    """An array of another library in kDLExtDev memory (its capsule is never made)."""

    def __init__(self, index: int = 0) -> None:
        self.index = index

    def __dlpack_device__(self) -> tuple[int, int]:
        return (EXT, self.index)

    def __dlpack__(self, **kwargs: Any) -> Any:
        raise AssertionError("the plugin, not the core, asks for the capsule")


def _ext_capsule() -> tuple[Any, Any]:
    """A capsule of torch's that says kDLExtDev (restore it before torch frees it)."""
    t = torch.arange(2.0)
    cap = t.__dlpack__(max_version=(1, 0))
    m = impl._DLManagedTensorVersioned.from_address(
        impl._api.PyCapsule_GetPointer(cap, b"dltensor_versioned")
    )
    m.dl_tensor.device.device_type = EXT
    return cap, m


# -- from_dlpack ---------------------------------------------------------------------------------
def test_device_memory_goes_to_the_plugin_that_declares_its_type(fake):
    p = Producer()
    y = ember.from_dlpack(p)
    assert fake.imported == [(p, None)]
    assert y.device == ember.device("fakedl", 0) and y.tolist() == [1.0, 2.0]
    ember.from_dlpack(p, copy=True)
    assert fake.imported[-1] == (p, True)


def test_a_capsule_of_device_memory_goes_to_the_plugin(fake):
    cap, m = _ext_capsule()
    try:
        assert ember.from_dlpack(cap).device.type == "fakedl"
        assert fake.imported[-1] == (cap, None)
    finally:
        m.dl_tensor.device.device_type = 1


def test_another_device_of_the_plugins_type_is_a_move(fake):
    y = ember.from_dlpack(Producer(), device="fakedl:1")
    assert y.device == ember.device("fakedl", 1) and y.tolist() == [1.0, 2.0]
    with pytest.raises(ValueError, match="without copying. Set copy=None or copy=True"):
        ember.from_dlpack(Producer(), device="fakedl:1", copy=False)


def test_without_a_plugin_for_the_type_the_error_says_so():
    cap, m = _ext_capsule()
    try:
        with pytest.raises(
            BufferError,
            match=r"kDLExtDev \(12, 0\); ember imports host memory \(kDLCPU\) itself and no "
            r"installed device plugin declares that DLPack device type",
        ):
            ember.from_dlpack(cap)
        assert "used" not in repr(cap)  # refused unconsumed: the producer still frees it
    finally:
        m.dl_tensor.device.device_type = 1


def test_an_unavailable_plugin_for_the_type_is_named(monkeypatch):
    from ember.plugins import manager

    class Rec:
        backends = [type("Idle", (FakeDev,), {"name": "idlefake", "device_count": lambda s: 0})()]
        backends[0].unavailable_reason = lambda: "no idle card"

    monkeypatch.setattr(manager, "load_devices", lambda: [Rec()])
    cap, m = _ext_capsule()
    try:
        with pytest.raises(BufferError, match=r"device 'idlefake', which would import it, is "
                           r"unavailable \(no idle card\)"):  # fmt: skip
            ember.from_dlpack(cap)
    finally:
        m.dl_tensor.device.device_type = 1


def test_a_plugin_without_the_import_hook_refuses(fake, monkeypatch):
    monkeypatch.setattr(FakeDev, "from_dlpack", ember.library.DeviceBackend.from_dlpack)
    with pytest.raises(BufferError, match="does not import DLPack tensors"):
        ember.from_dlpack(Producer())


def test_host_memory_still_imported_by_the_core(fake):
    a = np.arange(3.0)
    assert ember.from_dlpack(a).data_ptr() == a.ctypes.data and fake.imported == []


# -- __cuda_array_interface__ --------------------------------------------------------------------
def test_cuda_array_interface_comes_from_the_backend(fake):
    x = ember.empty(3, device="fakedl")
    assert x.__cuda_array_interface__["shape"] == (3,)
    assert hasattr(x, "__cuda_array_interface__")


def test_cuda_array_interface_is_missing_elsewhere(fake, monkeypatch):
    x = ember.zeros(2)
    assert not hasattr(x, "__cuda_array_interface__")
    with pytest.raises(
        AttributeError,
        match=r"non-CUDA tensor type: ember.FloatTensor If CUDA data is required use "
        r"tensor.cuda\(\)",
    ):
        _ = x.__cuda_array_interface__
    monkeypatch.delattr(FakeDev, "cuda_array_interface")  # without the hook: the base's None
    assert not hasattr(ember.empty(1, device="fakedl"), "__cuda_array_interface__")


# -- from_host(non_blocking=...) -----------------------------------------------------------------
class Old(ember.library.DeviceBackend):
    def from_host(self, array, dev):
        return array.copy()


class Kw(ember.library.DeviceBackend):
    def from_host(self, array, dev, **kwargs):
        return (array.copy(), kwargs)


def test_non_blocking_reaches_only_backends_that_take_it():
    a = np.ones(2, np.uint8)
    assert not accepts_keyword(Old(), "from_host", "non_blocking")
    assert host_to_device(Old(), a, None, non_blocking=True).tolist() == [1, 1]
    assert accepts_keyword(Kw(), "from_host", "non_blocking")
    assert host_to_device(Kw(), a, None, non_blocking=True)[1] == {"non_blocking": True}
    assert host_to_device(Kw(), a, None)[1] == {}  # blocking: the old call, unchanged
    b = FakeDev()
    host_to_device(b, a, None, non_blocking=True)
    host_to_device(b, a, None)
    assert b.uploads == [True, False]
