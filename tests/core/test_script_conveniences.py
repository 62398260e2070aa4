"""Small things real PyTorch scripts do that stopped them on ember (issue 15, item 5)."""

import numpy as np
import pytest
import torch

import ember


def test_a_python_range_indexes_as_its_list():
    e, t = ember.arange(12).reshape(3, 4), torch.arange(12).reshape(3, 4)
    for index in (range(2), (range(2), 1), (slice(1, None), range(0, 4, 2)), range(0)):
        np.testing.assert_array_equal(e[index].numpy(), t[index].numpy())
    ye, yt = ember.zeros(3, 4), torch.zeros(3, 4)
    ye[range(1, 3)] = 1.0
    yt[range(1, 3)] = 1.0
    ye[:, range(2)] += 2.0
    yt[:, range(2)] += 2.0
    np.testing.assert_array_equal(ye.numpy(), yt.numpy())


@pytest.mark.parametrize("name", ["zeros", "ones", "empty", "rand", "randn"])
def test_factories_take_size_as_a_keyword(name):
    e = getattr(ember, name)(size=(2, 3), dtype=ember.float64)
    t = getattr(torch, name)(size=(2, 3), dtype=torch.float64)
    assert tuple(e.shape) == tuple(t.shape) and e.dtype == ember.float64
    assert tuple(getattr(ember, name)(size=[4]).shape) == (4,)
    with pytest.raises(TypeError, match=f"{name}\\(\\) got multiple values for argument 'size'"):
        getattr(ember, name)(2, size=(2,))


def test_randint_high_with_size_keyword():
    x = ember.randint(5, size=(200,))
    assert tuple(x.shape) == (200,) and x.dtype == ember.int64
    assert 0 <= x.min().item() and x.max().item() < 5
    y = ember.randint(3, 6, size=(50,))
    assert 3 <= y.min().item() and y.max().item() < 6


def test_device_flags_of_other_accelerators():
    x = ember.ones(2)
    assert (x.is_xpu, x.is_mps, x.is_cuda, x.is_cpu) == (False, False, False, True)


@pytest.mark.parametrize("cls", ["RNN", "GRU", "LSTM"])
def test_recurrent_flatten_parameters_changes_nothing(cls):
    m = getattr(ember.nn, cls)(3, 4)
    before = {k: v.clone() for k, v in m.state_dict().items()}
    assert m.flatten_parameters() is None
    after = m.state_dict()
    assert before.keys() == after.keys()
    assert all(bool((before[k] == after[k]).all()) for k in before)


def test_negative_zero_scalars_are_not_confused_with_zero():
    """A cached 0-dim 0.0 must not answer for -0.0 (they compare and hash equal)."""
    x = ember.tensor([1.0, -2.0])
    for _ in range(2):
        assert (x / 0.0).tolist() == [float("inf"), float("-inf")]
        assert (x / -0.0).tolist() == [float("-inf"), float("inf")]
    assert str((ember.tensor([0.0]) * -0.0).item()) == "-0.0"


def test_std_of_a_constant_has_zero_gradient_as_torch():
    data = [[2.0, 2.0, 2.0], [1.0, 2.0, 4.0]]
    grads = []
    for lib in (ember, torch):
        a = lib.tensor(data, dtype=lib.float64, requires_grad=True)
        (a.std(1).sum() + lib.std_mean(a, 1)[0].sum() + a.std()).backward()
        grads.append(np.asarray(a.grad.tolist()))
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-15)
    c = ember.full((4,), 3.0, dtype=ember.float64, requires_grad=True)
    c.std().backward()
    assert c.grad.tolist() == [0.0, 0.0, 0.0, 0.0]
    x = ember.randn(3, 4, dtype=ember.float64, requires_grad=True)
    assert ember.autograd.gradgradcheck(lambda t: t.std(1), (x,))


def test_rsub_differentiates_a_tensor_other():
    a = ember.tensor([1.0, 2.0], requires_grad=True)
    b = ember.tensor([3.0, 4.0], requires_grad=True)
    ember.rsub(a, b, alpha=2).sum().backward()
    assert a.grad.tolist() == [-2.0, -2.0] and b.grad.tolist() == [1.0, 1.0]
    assert ember.rsub(ember.tensor([1, 2]), 3).tolist() == [2, 1]


_CAST = "result type Float can't be cast to the desired output type "
_NEG = r"Negation, the `-` operator, on a bool tensor is not supported"
_INV = r"~ \(operator.invert\) is only implemented on integer and Boolean-type tensors"
_MEAN = "Optional dtype must be either a floating point or complex dtype. Got: Long"
_CLOSE = r"isclose\(\): argument 'other' \(position 2\) must be Tensor, not float"
REFUSALS = [
    (lambda L: L.zeros(2, dtype=L.int64).sqrt_(), RuntimeError, _CAST + "Long"),
    (lambda L: L.zeros(2, dtype=L.int32).exp_(), RuntimeError, _CAST + "Int"),
    (lambda L: -L.tensor([True]), RuntimeError, _NEG),
    (lambda L: ~L.tensor([1.0]), TypeError, _INV),
    (lambda L: L.arange(3.0).mean(dtype=L.int64), RuntimeError, _MEAN),
    (lambda L: L.isclose(L.tensor([1.0]), 0.0), TypeError, _CLOSE),
    (lambda L: L.arange(3).index_select(0, L.tensor([5])), IndexError, "index out of range"),
]


@pytest.mark.parametrize(("call", "exc", "match"), REFUSALS)
def test_refusals_raise_torchs_exception_types(call, exc, match):
    for lib in (torch, ember):
        with pytest.raises(exc, match=match):
            call(lib)
    with pytest.raises(Exception) as info:
        call(ember)
    assert type(info.value) is exc  # the same type, not only a subclass (NotImplementedError)


WRITES = {
    "add_": lambda t, L: t.add_(1),
    "mul_": lambda t, L: t.mul_(2),
    "sqrt_": lambda t, L: t.sqrt_(),
    "clamp_": lambda t, L: t.clamp_(0, 1),
    "copy_": lambda t, L: t.copy_(L.ones(3)),
    "uniform_": lambda t, L: t.uniform_(),
    "relu(inplace)": lambda t, L: L.nn.functional.relu(t, inplace=True),
    "fill_": lambda t, L: t.fill_(1),  # allowed by both
    "zero_": lambda t, L: t.zero_(),  # allowed by both
}


@pytest.mark.parametrize("name", sorted(WRITES))
def test_writes_into_overlapping_memory_follow_torch(name):
    """``zeros(1).expand(3).add_(1)`` raises, as PyTorch's (issue 15, class 5)."""
    outcomes = []
    for lib in (torch, ember):
        try:
            WRITES[name](lib.zeros(1).expand(3), lib)
            outcomes.append("ok")
        except RuntimeError as e:
            assert "more than one element of the written-to tensor" in str(e)
            outcomes.append("raises")
    assert outcomes[0] == outcomes[1]
    ok = ember.zeros(3, 1).expand(3, 1)  # a stride 0 over a size-1 dim writes one element
    ok.add_(1)
    assert ok.tolist() == [[1.0], [1.0], [1.0]]


@pytest.mark.parametrize("n", [0, 1, 2])
def test_diff_order_zero_ignores_prepend_and_append(n):
    got = ember.diff(
        ember.arange(5.0), n=n, prepend=ember.tensor([9.0]), append=ember.tensor([1.0])
    )
    want = torch.diff(
        torch.arange(5.0), n=n, prepend=torch.tensor([9.0]), append=torch.tensor([1.0])
    )
    assert got.tolist() == want.tolist()


@pytest.mark.parametrize(
    ("bshape", "vshape"), [((2, 0), (2, 1)), ((2, 3, 0), (2, 3, 4)), ((0, 3), (0, 2)), ((0,), (2,))]
)
def test_searchsorted_with_empty_sequences(bshape, vshape):
    for right in (False, True):
        got = ember.searchsorted(ember.zeros(bshape), ember.ones(vshape), right=right)
        want = torch.searchsorted(torch.zeros(bshape), torch.ones(vshape), right=right)
        assert got.tolist() == want.tolist() and tuple(got.shape) == tuple(want.shape)


@pytest.mark.parametrize(
    "kw",
    [
        {"kernel_size": 2},
        {"kernel_size": 3, "stride": 2, "padding": 1},
        {
            "kernel_size": 3,
            "stride": 2,
            "padding": 1,
            "count_include_pad": False,
            "ceil_mode": True,
        },
        {"kernel_size": 2, "divisor_override": 3},
    ],
)
def test_avg_pool2d_of_int64_truncates_like_torch(kw):
    e = (ember.arange(25) - 12).reshape(1, 1, 5, 5) * 3
    t = (torch.arange(25) - 12).reshape(1, 1, 5, 5) * 3
    got, want = ember.nn.functional.avg_pool2d(e, **kw), torch.nn.functional.avg_pool2d(t, **kw)
    assert got.dtype == ember.int64 and got.tolist() == want.tolist()
    with pytest.raises(NotImplementedError, match="\"avg_pool2d\" not implemented for 'Int'"):
        ember.nn.functional.avg_pool2d(e.to(ember.int32), **kw)


@pytest.mark.parametrize(
    "kw", [{"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
           {"kernel_size": 2, "divisor_override": 3}],
)  # fmt: skip
def test_avg_pool3d_of_int64_stays_int64_like_torch(kw):
    e = (ember.arange(125) - 60).reshape(1, 1, 5, 5, 5) * 3
    t = (torch.arange(125) - 60).reshape(1, 1, 5, 5, 5) * 3
    got, want = ember.nn.functional.avg_pool3d(e, **kw), torch.nn.functional.avg_pool3d(t, **kw)
    assert got.dtype == ember.int64 and got.tolist() == want.tolist()
    with pytest.raises(NotImplementedError, match="not implemented for 'Int'"):
        ember.nn.functional.avg_pool3d(e.to(ember.int32), **kw)


def test_legacy_constructors_take_a_range():
    import torch

    for name in ("LongTensor", "FloatTensor", "IntTensor"):
        got, want = getattr(ember, name)(range(4)), getattr(torch, name)(range(4))
        assert got.tolist() == want.tolist() and str(got.dtype)[6:] == str(want.dtype)[6:]
