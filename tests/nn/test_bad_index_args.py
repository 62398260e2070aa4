"""Out-of-range indices, offsets and lengths raise, as torch does, instead of wrapping, reading
past the end or returning a value (issue 16's kernel findings)."""

import pytest
import torch

import ember

F = ember.nn.functional


def _both(fn):
    """``fn(lib)`` on torch and ember: both must raise the same error type."""
    with pytest.raises(Exception) as t_err:
        fn(torch)
    with pytest.raises(type(t_err.value)) as e_err:
        fn(ember)
    return str(e_err.value)


@pytest.mark.parametrize("bad", [-1, -4, 4, 100])
def test_embedding_index_out_of_range(bad):
    msg = _both(lambda m: m.nn.functional.embedding(m.tensor([[0, bad]]), m.ones(4, 3)))
    assert "embedding" in msg and str(bad) in msg and "[0, 4)" in msg


def test_embedding_in_range_matches_torch():
    w = torch.randn(5, 3, dtype=torch.float64)
    i = torch.tensor([[0, 4], [2, 2]])
    got = F.embedding(ember.tensor(i.numpy()), ember.tensor(w.numpy()))
    assert torch.equal(torch.from_numpy(got.numpy()), torch.nn.functional.embedding(i, w))
    empty = F.embedding(ember.zeros(0, dtype=ember.int64), ember.ones(4, 3))
    assert tuple(empty.shape) == (0, 3)


def test_embedding_on_meta_checks_nothing_it_cannot_read():
    w = ember.empty(4, 3, device="meta")
    i = ember.tensor([1, 7]).to("meta")
    assert tuple(F.embedding(i, w).shape) == (2, 3)


@pytest.mark.parametrize("offsets", [[0, 5], [0, -1], [0, 4]])
def test_embedding_bag_offsets_out_of_range(offsets):
    _both(
        lambda m: m.nn.functional.embedding_bag(
            m.tensor([0, 1, 2]), m.arange(12.0).reshape(4, 3), m.tensor(offsets)
        )
    )


def test_embedding_bag_last_offset_at_end_is_allowed():
    def run(m):
        w = m.arange(12.0, dtype=m.float64).reshape(4, 3)
        return m.nn.functional.embedding_bag(
            m.tensor([0, 1, 2]), w, m.tensor([0, 1, 3]), include_last_offset=True, mode="sum"
        )

    assert run(ember).tolist() == run(torch).tolist()


@pytest.mark.parametrize(
    "in_len, tg_len, text",
    [
        (5, -1, "target_lengths to have value at least 0"),
        (-5, 2, "input_lengths to have value at least 0"),
        (7, 2, "input_lengths to have value at most 5"),
        (5, 3, "size at least 3 at dimension 1"),
    ],
)
def test_ctc_loss_bad_lengths(in_len, tg_len, text):
    lp = torch.randn(5, 1, 4).log_softmax(2).numpy()

    def run(m):
        return m.nn.functional.ctc_loss(
            m.tensor(lp), m.tensor([[1, 2]]), m.tensor([in_len]), m.tensor([tg_len])
        )

    assert text in _both(run)


def test_ctc_loss_concatenated_targets_too_short():
    lp = torch.randn(5, 2, 4).log_softmax(2).numpy()

    def run(m):
        return m.nn.functional.ctc_loss(
            m.tensor(lp), m.tensor([1, 2, 1]), m.tensor([5, 5]), m.tensor([2, 2])
        )

    assert "size 4 at dimension 0" in _both(run)


@pytest.mark.parametrize("dims, padding", [(1, 5), (2, 5), (2, (0, 5))])
def test_conv_transpose_output_too_small(dims, padding):
    def run(m):
        x = m.ones((1, 2) + (3,) * dims)
        w = m.ones((2, 2) + (3,) * dims)
        fn = getattr(m.nn.functional, f"conv_transpose{dims}d")
        return fn(x, w, padding=padding)

    msg = _both(run)
    assert "Output size is too small" in msg


def test_conv_transpose_smallest_output_still_works():
    x = torch.randn(1, 2, 1, 1, dtype=torch.float64)
    w = torch.randn(2, 2, 3, 3, dtype=torch.float64)
    want = torch.nn.functional.conv_transpose2d(x, w, padding=1)
    got = F.conv_transpose2d(ember.tensor(x.numpy()), ember.tensor(w.numpy()), padding=1)
    assert tuple(got.shape) == (1, 2, 1, 1)
    assert torch.allclose(torch.from_numpy(got.numpy()), want)


def _same_error(fn):
    """Both raise the same type with the same message."""
    with pytest.raises(Exception) as t_err:
        fn(torch)
    with pytest.raises(type(t_err.value)) as e_err:
        fn(ember)
    assert str(e_err.value) == str(t_err.value)


@pytest.mark.parametrize("bad", [-1, 5, 9])
@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_embedding_bag_index_out_of_range_as_torch(bad, mode):
    # torch's message differs by mode (some are "Expected i < index_size"); the type is one
    msg = _both(
        lambda m: m.nn.functional.embedding_bag(
            m.tensor([0, 2, bad, 1]), m.ones(5, 3), m.tensor([0, 2]), mode=mode
        )
    )
    assert msg == f"Index 2 of input takes value {bad} which is not in the valid range [0, 5)"


@pytest.mark.parametrize("pool", ["max_pool3d", "avg_pool3d"])
@pytest.mark.parametrize("kw", [{"padding": -1}, {"stride": 0}, {"stride": (1, 0, 1)}])
def test_pool3d_refuses_negative_padding_and_zero_stride_as_torch(pool, kw):
    _same_error(lambda m: getattr(m.nn.functional, pool)(m.ones(1, 1, 4, 4, 4), 2, **kw))


def test_embedding_bag_in_range_still_matches_torch():
    w = torch.randn(5, 3, dtype=torch.float64)
    i, o = torch.tensor([0, 4, 2, 2, 1]), torch.tensor([0, 2, 2])
    for mode in ("sum", "mean", "max"):
        want = torch.nn.functional.embedding_bag(i, w, o, mode=mode)
        got = F.embedding_bag(
            ember.tensor(i.numpy()), ember.tensor(w.numpy()), ember.tensor(o.numpy()), mode=mode
        )
        assert torch.allclose(torch.from_numpy(got.numpy()), want)
