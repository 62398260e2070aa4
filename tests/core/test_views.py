"""Views share storage and match PyTorch's shapes, strides and values."""

import numpy as np
import pytest

import ember

torch = pytest.importorskip("torch")


def pair(shape=(2, 3, 4)):
    a = np.arange(int(np.prod(shape)), dtype=np.float64).reshape(shape)
    return ember.tensor(a), torch.tensor(a)


def same(e, t):
    assert tuple(e.shape) == tuple(t.shape)
    assert e.stride() == t.stride()
    assert e.storage_offset() == t.storage_offset()
    np.testing.assert_array_equal(np.asarray(e.tolist()).reshape(t.shape), t.numpy())


VIEWS = [
    lambda x: x.view(6, 4),
    lambda x: x.view(-1),
    lambda x: x.view(2, -1, 2),
    lambda x: x.reshape(4, 6),
    lambda x: x.transpose(0, 2),
    lambda x: x.t() if x.dim() <= 2 else x.mT,
    lambda x: x.permute(2, 0, 1),
    lambda x: x.T,
    lambda x: x.mT,
    lambda x: x.unsqueeze(1),
    lambda x: x.unsqueeze(-1),
    lambda x: x[:, :1].squeeze(1),
    lambda x: x[:1].squeeze(),
    lambda x: x.flatten(),
    lambda x: x.flatten(1),
    lambda x: x.unflatten(2, (2, 2)),
    lambda x: x.narrow(1, 1, 2),
    lambda x: x.select(2, -1),
    lambda x: x[1],
    lambda x: x[:, 1:, ::2],
    lambda x: x[..., 1],
    lambda x: x[None, :, None],
    lambda x: x[-1, ..., 1:3],
    lambda x: x[:, ::2],
    lambda x: x[1:1],
    lambda x: x.diagonal(),
    lambda x: x.diagonal(1, 1, 2),
    lambda x: x[:, :1].expand(2, 5, 4),
    lambda x: x[0:1].expand(3, -1, -1, -1),
    lambda x: x.as_strided((2, 2), (1, 4), 3),
    lambda x: x.transpose(0, 1).reshape(3, 8),
    lambda x: x.squeeze(0),
    lambda x: x.view(2, 12)[:, 3:9].view(2, 2, 3),
]


@pytest.mark.parametrize("i", range(len(VIEWS)))
def test_view_matches_torch(i):
    e, t = pair()
    same(VIEWS[i](e), VIEWS[i](t))


def test_views_share_storage():
    x = ember.zeros(2, 3)
    v = x.t()
    v[1, 0] = 5.0
    assert x.tolist() == [[0.0, 5.0, 0.0], [0.0, 0.0, 0.0]]
    x[:, 2] = ember.tensor([7.0, 8.0])
    assert v[2].tolist() == [7.0, 8.0]
    assert v.untyped_storage() is x.untyped_storage()


def test_reshape_copies_only_when_it_must():
    x = ember.arange(12).reshape(3, 4)
    assert x.reshape(4, 3).untyped_storage() is x.untyped_storage()
    y = x.t().reshape(12)
    assert y.untyped_storage() is not x.untyped_storage()
    assert y.tolist() == torch.arange(12).reshape(3, 4).t().reshape(12).tolist()


def test_contiguous():
    x = ember.arange(6).reshape(2, 3)
    assert x.is_contiguous() and x.contiguous() is x
    c = x.t().contiguous()
    assert c.is_contiguous() and c.stride() == (2, 1) and c.tolist() == [[0, 3], [1, 4], [2, 5]]


@pytest.mark.parametrize(
    "fn,err,match",
    [
        (lambda x: x.view(5), RuntimeError, r"shape '\[5\]' is invalid for input of size 24"),
        (lambda x: x.transpose(0, 1).view(24), RuntimeError, "view size is not compatible"),
        (lambda x: x.view(-1, -1), RuntimeError, "only one dimension can be inferred"),
        (lambda x: x.permute(0, 0, 1), RuntimeError, "duplicate dims"),
        (
            lambda x: x.transpose(0, 3),
            IndexError,
            r"Dimension out of range \(expected to be in "
            r"range of \[-3, 2\], but got 3\)",
        ),
        (lambda x: x[2], IndexError, "index 2 is out of bounds for dimension 0 with size 2"),
        (lambda x: x[0, 0, 0, 0], IndexError, "too many indices for tensor of dimension 3"),
        (
            lambda x: x.expand(3, 3, 4),
            RuntimeError,
            r"The expanded size of the tensor \(3\) must "
            r"match the existing size \(2\)",
        ),
        (lambda x: x.narrow(1, 2, 2), RuntimeError, "exceeds dimension size"),
        (lambda x: x[::-1], ValueError, "step must be greater than zero"),
        (lambda x: x.as_strided((10,), (5,)), RuntimeError, "require"),
    ],
)
def test_view_errors(fn, err, match):
    e, t = pair()
    with pytest.raises(err, match=match):
        fn(e)


def test_zero_dim_and_empty():
    s = ember.tensor(3.5)
    assert s.shape == () and s.dim() == 0 and s.item() == 3.5
    assert s.unsqueeze(0).shape == (1,) and s.view(1, 1).shape == (1, 1)
    e = ember.zeros(0, 3)
    assert e.reshape(3, 0).shape == (3, 0) and e.t().shape == (3, 0) and e.numel() == 0
    assert e.view(-1, 3).shape == (0, 3)
