"""dtype objects and type promotion, checked against PyTorch's tables."""

import itertools
import pickle

import pytest

import ember
from ember.core import dtype as dt

torch = pytest.importorskip("torch")

NAMES = [
    "bool",
    "uint8",
    "int8",
    "int16",
    "int32",
    "int64",
    "float16",
    "bfloat16",
    "float32",
    "float64",
]
PAIRS = list(itertools.product(NAMES, NAMES))


def E(name):
    return getattr(ember, name)


def T(name):
    return getattr(torch, name)


@pytest.mark.parametrize("a,b", PAIRS)
def test_promote_types_matches_torch(a, b):
    assert ember.promote_types(E(a), E(b)).name == str(torch.promote_types(T(a), T(b)))[6:]


SCALARS = [True, 3, 2.5]


@pytest.mark.parametrize("name", NAMES)
@pytest.mark.parametrize("scalar", SCALARS)
def test_result_type_tensor_and_scalar(name, scalar):
    et = ember.zeros(2, dtype=E(name))
    tt = torch.zeros(2, dtype=T(name))
    assert ember.result_type(et, scalar).name == str(torch.result_type(tt, scalar))[6:]


@pytest.mark.parametrize("a,b", PAIRS)
def test_result_type_dim_vs_zero_dim(a, b):
    e = ember.result_type(ember.zeros(2, dtype=E(a)), ember.zeros((), dtype=E(b)))
    t = torch.result_type(torch.zeros(2, dtype=T(a)), torch.zeros((), dtype=T(b)))
    assert e.name == str(t)[6:]


@pytest.mark.parametrize("a,b", [("int32", "float64"), ("uint8", "int8"), ("bool", "float16")])
def test_binary_op_result_dtype_follows_promotion(a, b):
    x = ember.ones(3, dtype=E(a)) + ember.ones(3, dtype=E(b))
    y = torch.ones(3, dtype=T(a)) + torch.ones(3, dtype=T(b))
    assert x.dtype.name == str(y.dtype)[6:]


def test_default_dtype_changes_float_inference():
    assert ember.get_default_dtype() is ember.float32
    ember.set_default_dtype(ember.float64)
    try:
        assert ember.tensor([1.5]).dtype is ember.float64
        assert ember.result_type(ember.tensor([1]), 1.0) is ember.float64
        assert ember.zeros(2).dtype is ember.float64
    finally:
        ember.set_default_dtype(ember.float32)
    assert ember.tensor([1.5]).dtype is ember.float32


def test_set_default_dtype_rejects_integers():
    with pytest.raises(TypeError, match="only floating-point types"):
        ember.set_default_dtype(ember.int64)


def test_dtype_attributes_and_aliases():
    assert ember.float is ember.float32 and ember.double is ember.float64
    assert ember.long is ember.int64 and ember.half is ember.float16
    assert ember.bfloat16.itemsize == 2 and ember.bfloat16.is_floating_point
    assert not ember.int8.is_floating_point and ember.int8.is_signed
    assert not ember.uint8.is_signed
    assert repr(ember.bool) == "ember.bool"


def test_dtype_pickles_as_singleton():
    for d in dt.all_dtypes:
        assert pickle.loads(pickle.dumps(d)) is d


def test_promote_types_rejects_non_dtypes():
    with pytest.raises(TypeError, match="expected two ember.dtype"):
        ember.promote_types(ember.float32, "float64")
