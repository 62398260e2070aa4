"""DLPack: ``Tensor.__dlpack__``/``__dlpack_device__``, ``ember.from_dlpack`` and
``ember.utils.dlpack``, checked against numpy and PyTorch (same data pointer, writes seen
both ways, capsules released exactly once)."""

import ctypes
import gc
import sys

import numpy as np
import pytest
import torch

import ember
from ember.operators import dlpack as impl
from ember.utils.dlpack import DLDeviceType, from_dlpack, to_dlpack

NP_DTYPES = [
    np.bool_,
    np.uint8,
    np.int8,
    np.int16,
    np.int32,
    np.int64,
    np.float16,
    np.float32,
    np.float64,
]
TORCH_DTYPES = [
    torch.bool,
    torch.uint8,
    torch.int8,
    torch.int16,
    torch.int32,
    torch.int64,
    torch.float16,
    torch.bfloat16,
    torch.float32,
    torch.float64,
]


def _values(shape, dtype=ember.float32):
    n = int(np.prod(shape))
    return ember.arange(n).reshape(shape).to(dtype) if n else ember.empty(shape, dtype=dtype)


def _versioned(capsule):
    """(flags, (device_type, device_id), (code, bits)) of an unconsumed versioned capsule."""
    ptr = impl._api.PyCapsule_GetPointer(capsule, b"dltensor_versioned")
    m = impl._DLManagedTensorVersioned.from_address(ptr)
    t = m.dl_tensor
    return m.flags, (t.device.device_type, t.device.device_id), (t.dtype.code, t.dtype.bits)


# -- export: ember -> numpy / torch ----------------------------------------------------------
@pytest.mark.parametrize("npd", NP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_numpy_imports_ember_zero_copy_every_dtype(npd):
    x = ember.from_numpy(np.arange(6).astype(npd).reshape(2, 3)).clone()
    a = np.from_dlpack(x)
    assert a.dtype == np.dtype(npd) and a.shape == (2, 3)
    assert a.ctypes.data == x.data_ptr()
    np.testing.assert_array_equal(a, x.numpy())
    a[0, 0] = 1
    assert x[0, 0].item() == a[0, 0]


@pytest.mark.parametrize("td", TORCH_DTYPES, ids=str)
def test_torch_imports_ember_zero_copy_every_dtype(td):
    x = ember.zeros(2, 3, dtype=getattr(ember, str(td).split(".")[1]))
    t = torch.from_dlpack(x)
    assert t.dtype == td and t.shape == (2, 3)
    assert t.data_ptr() == x.data_ptr()
    t[1, 2] = 1
    assert x[1, 2].item() == 1
    x[0, 1] = 1
    assert t[0, 1].item() == 1


@pytest.mark.parametrize("td", TORCH_DTYPES, ids=str)
def test_ember_imports_torch_zero_copy_every_dtype(td):
    t = torch.zeros(3, 2, dtype=td)
    x = ember.from_dlpack(t)
    assert x.dtype == getattr(ember, str(td).split(".")[1]) and x.shape == (3, 2)
    assert x.data_ptr() == t.data_ptr()
    x[2, 1] = 1
    assert t[2, 1].item() == 1
    t[0, 0] = 1
    assert x[0, 0].item() == 1


@pytest.mark.parametrize("npd", NP_DTYPES, ids=lambda d: np.dtype(d).name)
def test_ember_imports_numpy_zero_copy_every_dtype(npd):
    a = np.zeros((2, 2), dtype=npd)
    x = ember.from_dlpack(a)
    assert x.data_ptr() == a.ctypes.data and x.numpy().dtype == a.dtype
    x[1, 1] = 1
    assert a[1, 1] == 1


@pytest.mark.parametrize(
    "view",
    [
        lambda x: x.t(),
        lambda x: x[1:, ::2],
        lambda x: x[:, 1],
        lambda x: x.permute(1, 0)[2:],
        lambda x: x[1, 2],
        lambda x: x[:0],
        lambda x: x.expand(2, 4, 5)[:, 1:],
    ],
    ids=["t", "offset_step", "column", "permute_offset", "zero_dim", "empty", "expand"],
)
def test_views_keep_strides_and_offset(view):
    x = ember.arange(20.0).reshape(4, 5)
    v = view(x)
    t = torch.from_dlpack(v)
    a = np.from_dlpack(v)
    assert t.shape == v.shape == a.shape
    np.testing.assert_array_equal(t.numpy(), v.numpy())
    np.testing.assert_array_equal(a, v.numpy())
    if v.numel():  # an empty tensor has no memory to share (and any strides)
        assert t.stride() == v.stride()
        assert a.strides == tuple(s * 4 for s in v.stride())
        assert t.data_ptr() == v.data_ptr() == a.ctypes.data


def test_torch_views_come_in_with_their_strides():
    t = torch.arange(24.0).reshape(2, 3, 4).permute(2, 0, 1)[1:, :, ::2]
    x = ember.from_dlpack(t)
    assert x.stride() == t.stride() and x.data_ptr() == t.data_ptr()
    np.testing.assert_array_equal(x.numpy(), t.numpy())
    z = ember.from_dlpack(torch.tensor(3.5))
    assert z.shape == () and z.item() == 3.5
    e = ember.from_dlpack(torch.empty(0, 3))
    assert e.shape == (0, 3)


def test_round_trip_ember_torch_ember_is_one_memory():
    x = ember.arange(5)
    y = ember.from_dlpack(torch.from_dlpack(x))
    assert y.data_ptr() == x.data_ptr()
    y[4] = 40
    assert x.tolist() == [0, 1, 2, 3, 40]
    assert ember.from_dlpack(x).data_ptr() == x.data_ptr()


def test_bfloat16_round_trips_through_torch():
    x = ember.tensor([1.5, -2.0, 3.25], dtype=ember.bfloat16)
    t = torch.from_dlpack(x)
    assert t.dtype == torch.bfloat16 and t.tolist() == [1.5, -2.0, 3.25]
    assert _versioned(x.__dlpack__(max_version=(1, 0)))[2] == (4, 16)  # kDLBfloat
    with pytest.raises(RuntimeError, match="Unsupported dtype"):
        np.from_dlpack(x)  # numpy has no bfloat16, and says so


# -- the protocol: capsules, versions, flags, devices -----------------------------------------
def test_versioned_capsule_only_for_max_version_1():
    x = ember.zeros(3)
    assert "dltensor_versioned" in repr(x.__dlpack__(max_version=(1, 0)))
    assert "dltensor_versioned" in repr(x.__dlpack__(max_version=(1, 5)))
    assert '"dltensor"' in repr(x.__dlpack__(max_version=(0, 8)))
    assert '"dltensor"' in repr(x.__dlpack__())
    assert '"dltensor"' in repr(to_dlpack(x))
    flags, device, dtype = _versioned(x.__dlpack__(max_version=(1, 0)))
    assert flags == 0 and device == (1, 0) and dtype == (2, 32)


def test_dlpack_device():
    assert ember.zeros(1).__dlpack_device__() == (DLDeviceType.kDLCPU, 0)
    assert ember.zeros(1).__dlpack_device__() == torch.zeros(1).__dlpack_device__()
    with pytest.raises(BufferError, match="device 'meta' declares no DLPack device type.*cpu"):
        ember.zeros(1, device="meta").__dlpack_device__()
    with pytest.raises(BufferError, match="device 'meta' declares no DLPack device type"):
        ember.zeros(1, device="meta").__dlpack__()


def test_copy_argument_of_dlpack():
    x = ember.arange(4.0)
    c = x.__dlpack__(max_version=(1, 0), copy=True)
    assert _versioned(c)[0] & 2  # DLPACK_FLAG_BITMASK_IS_COPIED
    t = torch.from_dlpack(c)
    assert t.data_ptr() != x.data_ptr() and t.tolist() == x.tolist()
    t[0] = 9
    assert x[0].item() == 0
    t2 = torch.from_dlpack(x.__dlpack__(max_version=(1, 0), copy=False))
    assert t2.data_ptr() == x.data_ptr()
    a = np.from_dlpack(x, copy=True)
    assert a.ctypes.data != x.data_ptr()
    assert np.from_dlpack(x, copy=False).ctypes.data == x.data_ptr()


def test_dl_device_argument():
    x = ember.arange(3)
    assert torch.from_dlpack(x.__dlpack__(dl_device=(1, 0))).data_ptr() == x.data_ptr()
    assert np.from_dlpack(x, device="cpu").ctypes.data == x.data_ptr()
    with pytest.raises(BufferError, match=r"to DLPack device kDLCUDA \(2, 0\).*\(1, 0\)"):
        x.__dlpack__(dl_device=(2, 0))


def test_stream_argument_like_torch():
    x = ember.zeros(2)
    x.__dlpack__(stream=None)
    x.__dlpack__(stream=-1)
    with pytest.raises(AssertionError, match="stream should be None on cpu"):
        x.__dlpack__(stream=5)
    with pytest.raises(TypeError, match="stream must be ``int`` or ``none``"):
        x.__dlpack__(stream="default")


def test_requires_grad_is_refused_like_torch():
    msg = "Can't export tensors that require gradient, use tensor.detach()"
    w = ember.ones(2, requires_grad=True)
    with pytest.raises(BufferError, match=msg.replace("(", r"\(").replace(")", r"\)")):
        w.__dlpack__()
    with pytest.raises(BufferError, match="require gradient"):
        torch.from_dlpack(w)
    with pytest.raises(BufferError, match="require gradient"):
        ember.from_dlpack(torch.ones(2, requires_grad=True))  # torch's own refusal
    assert torch.from_dlpack(w.detach()).data_ptr() == w.data_ptr()


# -- import: ember.from_dlpack ---------------------------------------------------------------
def test_read_only_numpy_is_imported_writable_like_torch():
    # torch 2.13: torch.from_dlpack of a read-only array shares it, writable, no warning
    a = np.arange(4.0)
    a.flags.writeable = False
    t = torch.from_dlpack(a)
    x = ember.from_dlpack(a)
    assert x.data_ptr() == a.ctypes.data == t.data_ptr()
    x[0] = 5
    assert a[0] == 5 == t[0].item()


def test_negative_strides_copy_or_refuse():
    a = np.arange(6.0)[::-2]
    x = ember.from_dlpack(a)
    assert x.tolist() == [5.0, 3.0, 1.0] and x.is_contiguous()
    with pytest.raises(BufferError, match="negative strides.*copy=False"):
        ember.from_dlpack(a, copy=False)


def test_copy_and_device_arguments_of_from_dlpack():
    a = np.arange(3.0)
    assert ember.from_dlpack(a, copy=True).data_ptr() != a.ctypes.data
    assert ember.from_dlpack(a, copy=False).data_ptr() == a.ctypes.data
    assert ember.from_dlpack(a, device="cpu").data_ptr() == a.ctypes.data
    m = ember.from_dlpack(a, device="meta")
    assert m.device == ember.device("meta") and m.shape == (3,)
    with pytest.raises(ValueError, match="cannot move DLPack tensor from device .* to meta"):
        ember.from_dlpack(a, device="meta", copy=False)


class _OldProducer:
    """A producer from before DLPack 1.0: ``__dlpack__`` takes only ``stream``."""

    def __init__(self, a):
        self.a = a

    def __dlpack__(self, stream=None):
        return self.a.__dlpack__()

    def __dlpack_device__(self):
        return self.a.__dlpack_device__()


def test_old_producer_gets_legacy_call_and_copy_is_done_here():
    a = np.arange(3.0)
    assert ember.from_dlpack(_OldProducer(a)).data_ptr() == a.ctypes.data
    assert ember.from_dlpack(_OldProducer(a), copy=True).data_ptr() != a.ctypes.data


def test_raw_capsules():
    t = torch.arange(4)
    cap = torch.utils.dlpack.to_dlpack(t)
    x = from_dlpack(cap)
    assert x.data_ptr() == t.data_ptr() and x.tolist() == [0, 1, 2, 3]
    assert "used_dltensor" in repr(cap)
    with pytest.raises(RuntimeError, match="invalid capsule.*consumed only once"):
        ember.from_dlpack(cap)
    cap2 = np.arange(2).__dlpack__(max_version=(1, 0))
    assert ember.from_dlpack(cap2).tolist() == [0, 1]
    assert "used_dltensor_versioned" in repr(cap2)
    with pytest.raises(AssertionError, match="device and copy kwargs not supported"):
        ember.from_dlpack(torch.utils.dlpack.to_dlpack(t), copy=True)
    with pytest.raises(TypeError, match="expected an object with __dlpack__.*got list"):
        ember.from_dlpack([1, 2])


def test_unsupported_dtype_and_device_leave_capsule_unconsumed():
    c = torch.zeros(2, dtype=torch.complex64).__dlpack__(max_version=(1, 0))
    with pytest.raises(RuntimeError, match="Unsupported dtype in DLTensor: complex64"):
        ember.from_dlpack(c)
    assert "used" not in repr(c)  # still the producer's: its destructor frees it
    u = torch.zeros(2, dtype=torch.uint16)
    with pytest.raises(RuntimeError, match="uint16; ember stores bool, uint8"):
        ember.from_dlpack(u)


def test_fake_device_capsule_is_refused():
    t = torch.arange(3)
    cap = t.__dlpack__(max_version=(1, 0))
    m = impl._DLManagedTensorVersioned.from_address(
        impl._api.PyCapsule_GetPointer(cap, b"dltensor_versioned")
    )
    m.dl_tensor.device.device_type = 7  # pretend it is Vulkan memory (no plugin imports it)
    with pytest.raises(BufferError, match=r"DLPack device kDLVulkan \(7, 0\); ember imports host"):
        ember.from_dlpack(cap)
    m.dl_tensor.device.device_type = 1  # restored, so torch's deleter frees a CPU tensor


# -- lifetime: no leak, no double free ---------------------------------------------------------
def test_many_round_trips_release_everything():
    x = ember.arange(1000.0)
    buf = x.untyped_storage().data
    base = sys.getrefcount(buf)
    a = np.arange(1000.0)
    a_base = sys.getrefcount(a)
    t = torch.arange(1000.0)
    for i in range(300):
        torch.from_dlpack(x)[i] += 1  # consumed by torch, released by torch's tensor
        np.from_dlpack(x)
        x.__dlpack__(max_version=(1, 0))  # never consumed: the capsule's destructor frees it
        x.__dlpack__()
        y = ember.from_dlpack(a)  # numpy's capsule, consumed by ember
        y[0] += 1
        ember.from_dlpack(t).add_(1)
        ember.from_dlpack(torch.from_dlpack(x))
    del y
    gc.collect()
    assert sys.getrefcount(buf) == base
    assert sys.getrefcount(a) == a_base
    assert x[:3].tolist() == [1.0, 2.0, 3.0] and a[0] == 300 and t[0].item() == 300


def test_imported_memory_outlives_the_producer():
    t = torch.arange(5.0)
    x = ember.from_dlpack(t)
    del t
    gc.collect()
    assert (x + 0).tolist() == [0.0, 1.0, 2.0, 3.0, 4.0]
    a = np.from_dlpack(ember.arange(3))
    gc.collect()
    assert a.tolist() == [0, 1, 2]


def test_deleter_runs_once_when_the_last_view_dies():
    calls = []
    proto = ctypes.CFUNCTYPE(None, ctypes.c_void_p)
    t = torch.arange(4.0)
    cap = t.__dlpack__(max_version=(1, 0))
    m = impl._DLManagedTensorVersioned.from_address(
        impl._api.PyCapsule_GetPointer(cap, b"dltensor_versioned")
    )
    original = proto(m.deleter)

    @proto
    def spy(p):
        calls.append(p)
        original(p)

    m.deleter = ctypes.cast(spy, ctypes.c_void_p).value
    x = ember.from_dlpack(cap)
    v = x[1:]
    del cap, x
    gc.collect()
    assert calls == [] and v.tolist() == [1.0, 2.0, 3.0]
    del v
    gc.collect()
    assert len(calls) == 1


# -- devices without host memory -----------------------------------------------------------------
def _opencl_available():
    try:
        return ember.zeros(1, device="opencl").numel() == 1
    except Exception:  # no plugin, no platform, no device: whatever stops it, skip
        return False


@pytest.mark.skipif(not _opencl_available(), reason="no OpenCL device")
def test_opencl_declares_its_type_and_refuses_by_pointer():
    x = ember.arange(3.0, device="opencl")
    assert x.__dlpack_device__() == (DLDeviceType.kDLOpenCL, 0)
    with pytest.raises(
        BufferError, match=r"OpenCL buffers are not shareable by pointer.*\.cpu\(\)"
    ):
        x.__dlpack__()
    with pytest.raises(BufferError, match="not shareable by pointer"):
        torch.from_dlpack(x)
    with pytest.raises(BufferError, match="to the CPU needs a copy, and copy=False forbids"):
        x.__dlpack__(dl_device=(1, 0), copy=False)
    # asking for the CPU copies there (the array API's dl_device)
    assert np.from_dlpack(x, device="cpu").tolist() == [0.0, 1.0, 2.0]
    assert ember.from_dlpack(x, device="cpu").tolist() == [0.0, 1.0, 2.0]
    assert _versioned(x.__dlpack__(max_version=(1, 0), dl_device=(1, 0)))[:2] == (2, (1, 0))
    y = ember.from_dlpack(np.arange(2.0), device="opencl")
    assert y.device.type == "opencl" and y.tolist() == [0.0, 1.0]


def test_a_plugin_can_hand_out_its_own_capsule():
    """The CUDA case: a backend with memory that is not host memory builds its capsule."""
    seen = {}

    class FakeGpu(ember.library.DeviceBackend):
        name = "fakegpu_dlpack"
        host_memory = False

        def allocate(self, n, dev):
            return np.zeros(n, np.uint8)

        def from_host(self, a, dev):
            return a.copy()

        def to_host(self, data, off, n, dev):
            return data[off : off + n].copy()

        def dlpack_device(self, dev):
            return (DLDeviceType.kDLCUDA, dev.index or 0)

        def to_dlpack(self, tensor, *, stream, max_version, copy):
            seen.update(stream=stream, max_version=max_version, copy=copy)
            return np.arange(2.0).__dlpack__()

    lib = ember.library.Library("dlpack_fakegpu")
    try:
        lib.register_device(FakeGpu())
        x = ember.empty(2, device="fakegpu_dlpack")
        assert x.__dlpack_device__() == (2, 0)
        assert torch.from_dlpack(x.__dlpack__(stream=7, max_version=(1, 0))).tolist() == [0, 1]
        assert seen == {"stream": 7, "max_version": (1, 0), "copy": None}
    finally:
        lib.remove()
