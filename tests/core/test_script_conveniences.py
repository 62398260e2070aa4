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
