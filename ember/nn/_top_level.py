"""Top-level ``ember.*`` forms of ``ember.nn.functional`` operations, as ``torch.*`` has them.

PyTorch exposes many functional layers at the top level (``torch.cosine_similarity``,
``torch.batch_norm``, ``torch.pixel_shuffle``, ...). Some are the functional form under
another name; others have the ATen signature, which differs from ``torch.nn.functional``:
``batch_norm`` takes ``(input, weight, bias, running_mean, running_var, training,
momentum, eps, cudnn_enabled)``, losses take an int ``reduction`` (0 none, 1 mean,
2 sum; PyTorch's Python binding defaults it to none, so these do too),
``dropout``-style functions take a required ``train``, and
``adaptive_max_pool1d`` always returns ``(output, indices)``. This module holds both, as
thin wrappers over ``ember.nn.functional``.

``import ember`` does not import this module (it needs ``ember.nn``); ``ember.<name>``
resolves through ``ember.__getattr__`` on first use (``FUNCTIONS`` lists the names).
"""

from __future__ import annotations

from typing import Any

from ember.core.tensor import Tensor
from ember.nn import functional as F

__all__ = ["FUNCTIONS"]

_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _reduction(r: Any) -> str:
    """ATen's int reduction (or a string, accepted too) -> the functional's string."""
    if isinstance(r, str):
        return r
    if r not in _REDUCTIONS:
        raise ValueError(f"{r} is not a valid value for reduction (0: none, 1: mean, 2: sum)")
    return _REDUCTIONS[r]


def batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
               running_mean: Tensor | None, running_var: Tensor | None, training: bool,
               momentum: float, eps: float, cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """``torch.batch_norm``: ATen's argument order over ``F.batch_norm``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[1.0], [3.0]])
        >>> ember.batch_norm(x, None, None, None, None, True, 0.1, 0.0, False)
        tensor([[-1.],
                [ 1.]])
    """
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None,
                  running_mean: Tensor | None, running_var: Tensor | None,
                  use_input_stats: bool, momentum: float, eps: float,
                  cudnn_enabled: bool) -> Tensor:  # fmt: skip
    """``torch.instance_norm``: ATen's argument order over ``F.instance_norm``.

    Each (sample, channel) is normalised over its spatial dims with its own statistics when
    ``use_input_stats``, which also updates ``running_mean``/``running_var`` when given.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[[1.0, 3.0], [5.0, 7.0]]])
        >>> ember.instance_norm(x, None, None, None, None, True, 0.1, 1e-5, False)
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05,
               cudnn_enabled: bool = True) -> Tensor:  # fmt: skip
    """Normalise each sample over groups of channels, the same as ``F.group_norm``.

    ``cudnn_enabled`` is accepted for PyTorch's signature and ignored.

    Examples:
        >>> import ember
        >>> x = ember.tensor([[[1.0, 3.0], [5.0, 7.0]]])
        >>> ember.group_norm(x, 1)
        tensor([[[-1.3416, -0.4472],
                 [ 0.4472,  1.3416]]])
        >>> ember.group_norm(x, 2)
        tensor([[[-1.0000,  1.0000],
                 [-1.0000,  1.0000]]])
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def _train_form(fn: Any, name: str) -> Any:
    def f(input: Tensor, p: float, train: bool) -> Tensor:
        return fn(input, p, train)  # type: ignore[no-any-return]

    def f_(input: Tensor, p: float, train: bool) -> Tensor:
        return fn(input, p, train, inplace=True)  # type: ignore[no-any-return]

    f.__name__ = f.__qualname__ = name
    f_.__name__ = f_.__qualname__ = name + "_"
    return f, f_


def dropout(input: Tensor, p: float = 0.5, train: bool = True) -> Tensor:
    """``torch.dropout``: zero elements with probability ``p`` and scale the rest, in training.

    Examples:
        >>> import ember
        >>> ember.dropout(ember.ones(3), 0.5, False).tolist()
        [1.0, 1.0, 1.0]
    """
    return F.dropout(input, p, train)  # type: ignore[no-any-return]


alpha_dropout, alpha_dropout_ = _train_form(F.alpha_dropout, "alpha_dropout")
feature_alpha_dropout, feature_alpha_dropout_ = _train_form(
    F.feature_alpha_dropout, "feature_alpha_dropout"
)
feature_dropout, feature_dropout_ = _train_form(F.dropout2d, "feature_dropout")
dropout_ = _train_form(F.dropout, "dropout")[1]

# the docstrings of the functions _train_form made (doctest finds them: their module is this)
alpha_dropout.__doc__ = """SELU-preserving dropout: ``F.alpha_dropout`` with a required ``train``.

    Dropped elements take SELU's negative saturation value and the result is rescaled, so a
    SELU network keeps zero mean and unit variance. With ``train=False`` the input is
    returned as it is.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> ember.alpha_dropout(ember.ones(6), 0.5, True)
        tensor([-0.7792, -0.7792, -0.7792, -0.7792,  1.6656, -0.7792])
        >>> ember.alpha_dropout(ember.ones(3), 0.5, False)
        tensor([1., 1., 1.])
    """
alpha_dropout_.__doc__ = """In-place ``ember.alpha_dropout``: overwrites ``input`` and returns it.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.ones(6)
        >>> ember.alpha_dropout_(x, 0.5, True) is x
        True
        >>> x
        tensor([-0.7792, -0.7792, -0.7792, -0.7792,  1.6656, -0.7792])
    """
feature_alpha_dropout.__doc__ = """Alpha dropout of whole channels, with a required ``train``.

    One draw per (sample, channel) of an ``(N, C, *)`` input decides the whole channel.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> out = ember.feature_alpha_dropout(ember.ones(1, 6, 1, 2), 0.5, True)
        >>> out[0, :, 0]
        tensor([[-0.7792, -0.7792],
                [-0.7792, -0.7792],
                [-0.7792, -0.7792],
                [-0.7792, -0.7792],
                [ 1.6656,  1.6656],
                [-0.7792, -0.7792]])
    """
feature_alpha_dropout_.__doc__ = """In-place ``ember.feature_alpha_dropout``; returns ``input``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.ones(1, 6, 1, 1)
        >>> ember.feature_alpha_dropout_(x, 0.5, True) is x
        True
        >>> x.flatten()
        tensor([-0.7792, -0.7792, -0.7792, -0.7792,  1.6656, -0.7792])
    """
feature_dropout.__doc__ = """Zero whole channels: ``F.dropout2d`` with a required ``train``.

    Kept channels are scaled by ``1 / (1 - p)``; with ``train=False`` the input is returned
    as it is.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> out = ember.feature_dropout(ember.ones(1, 6, 1, 2), 0.5, True)
        >>> out[0, :, 0]
        tensor([[0., 0.],
                [0., 0.],
                [0., 0.],
                [0., 0.],
                [2., 2.],
                [0., 0.]])
    """
feature_dropout_.__doc__ = """In-place ``ember.feature_dropout``; returns ``input``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.ones(1, 6, 1, 1)
        >>> ember.feature_dropout_(x, 0.5, True) is x
        True
        >>> x.flatten()
        tensor([0., 0., 0., 0., 2., 0.])
    """
dropout_.__doc__ = """In-place ``ember.dropout``: zeroes elements of ``input`` and scales the rest.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> x = ember.ones(6)
        >>> ember.dropout_(x, 0.5, True) is x
        True
        >>> x
        tensor([0., 0., 0., 0., 2., 0.])
    """


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """Adaptive max pooling of the last dim, returning ``(output, indices)``.

    ``F.adaptive_max_pool1d`` with ``return_indices=True``, as ``torch.adaptive_max_pool1d``
    always returns both.

    Examples:
        >>> import ember
        >>> ember.adaptive_max_pool1d(ember.tensor([[[1.0, 5.0, 2.0, 4.0]]]), 2)
        (tensor([[[5., 4.]]]), tensor([[[1, 3]]]))
    """
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)  # type: ignore[no-any-return]


def selu(input: Tensor) -> Tensor:
    """Apply the SELU activation elementwise, the same as ``F.selu``.

    Examples:
        >>> import ember
        >>> ember.selu(ember.tensor([-1.0, 0.0, 2.0]))
        tensor([-1.1113,  0.0000,  2.1014])
    """
    return F.selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    """Apply the CELU activation elementwise, the same as ``F.celu``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 2.0])
        >>> ember.celu(x)
        tensor([-0.6321,  0.0000,  2.0000])
        >>> ember.celu(x, 2.0)
        tensor([-0.7869,  0.0000,  2.0000])
    """
    return F.celu(input, alpha)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    """Replace the elements at or below ``threshold`` by ``value``, as ``F.threshold`` does.

    Examples:
        >>> import ember
        >>> ember.threshold(ember.tensor([-1.0, 0.0, 2.0]), 0.5, -9.0)
        tensor([-9., -9.,  2.])
    """
    return F.threshold(input, threshold, value)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, generator: Any = None) -> Tensor:  # fmt: skip
    """Apply the randomised leaky ReLU elementwise, the same as ``F.rrelu``.

    In training each negative element gets a slope drawn from ``U(lower, upper)`` by the
    default generator; otherwise the slope is ``(lower + upper) / 2``.

    Raises:
        NotImplementedError: ``generator`` is given with ``training=True``.

    Examples:
        >>> import ember
        >>> x = ember.tensor([-1.0, 0.0, 2.0])
        >>> ember.rrelu(x)
        tensor([-0.2292,  0.0000,  2.0000])
        >>> _ = ember.manual_seed(0)
        >>> ember.rrelu(x, training=True)
        tensor([-0.1279,  0.0000,  2.0000])
    """
    if generator is not None and training:
        raise NotImplementedError(
            "ember.rrelu(generator=...) is not supported: the slopes come from the default "
            "generator; seed it with ember.manual_seed"
        )
    return F.rrelu(input, lower, upper, training)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor,
                                     weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None,
                                     reduction: Any = 0) -> Tensor:  # fmt: skip
    """Binary cross-entropy on logits, the same as ``F.binary_cross_entropy_with_logits``.

    ``reduction`` is ATen's int (0 none, the default; 1 mean; 2 sum); a string is accepted too.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.0, 2.0, -1.0])
        >>> t = ember.tensor([1.0, 1.0, 0.0])
        >>> ember.binary_cross_entropy_with_logits(x, t)
        tensor([0.6931, 0.1269, 0.3133])
        >>> ember.binary_cross_entropy_with_logits(x, t, None, ember.tensor([2.0]), 2)
        tensor(1.9534)
    """
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor,
                          margin: float = 0.0, reduction: Any = 0) -> Tensor:  # fmt: skip
    """Cosine embedding loss of pairs labelled 1 or -1, the same as ``F.cosine_embedding_loss``.

    ``reduction`` is ATen's int (0 none, the default; 1 mean; 2 sum); a string is accepted too.

    Examples:
        >>> import ember
        >>> a = ember.tensor([[1.0, 0.0], [1.0, 0.0]])
        >>> y = ember.tensor([1.0, -1.0])
        >>> ember.cosine_embedding_loss(a, a, y, 0.5)
        tensor([0.0000, 0.5000])
    """
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: Any = 0,
             zero_infinity: bool = False) -> Tensor:  # fmt: skip
    """The CTC loss of ``(T, N, C)`` log-probabilities, the same as ``F.ctc_loss``.

    ``reduction`` is ATen's int (0 none, the default; 1 mean; 2 sum); a string is accepted too.

    Examples:
        Three frames of two equally likely classes; 6 of the 8 paths spell the label ``[1]``:

        >>> import ember
        >>> log_probs = ember.full((3, 1, 2), 0.5).log()
        >>> ember.ctc_loss(log_probs, ember.tensor([[1]]), [3], [1])
        tensor([0.2877])
    """
    return F.ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
        zero_infinity,
    )  # fmt: skip


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: Any = 0) -> Tensor:  # fmt: skip
    """Hinge embedding loss of distances labelled 1 or -1, as ``F.hinge_embedding_loss``.

    ``reduction`` is ATen's int (0 none, the default; 1 mean; 2 sum); a string is accepted too.

    Examples:
        >>> import ember
        >>> x = ember.tensor([0.3, 0.3, 2.0])
        >>> ember.hinge_embedding_loss(x, ember.tensor([1.0, -1.0, -1.0]))
        tensor([0.3000, 0.7000, 0.0000])
    """
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def kl_div(input: Tensor, target: Tensor, reduction: Any = 0, *,
           log_target: bool = False) -> Tensor:  # fmt: skip
    """Kullback-Leibler divergence loss per element, the same as ``F.kl_div``.

    ``input`` holds log-probabilities. ``reduction`` is ATen's int (0 none, the default;
    1 mean; 2 sum); a string is accepted too.

    Examples:
        >>> import ember
        >>> log_p = ember.tensor([[0.25, 0.75]]).log()
        >>> q = ember.tensor([[0.5, 0.5]])
        >>> ember.kl_div(log_p, q)
        tensor([[ 0.3466, -0.2027]])
        >>> ember.kl_div(log_p, q, 2)
        tensor(0.1438)
    """
    return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor,
                        margin: float = 0.0, reduction: Any = 0) -> Tensor:  # fmt: skip
    """Margin ranking loss of two score tensors, the same as ``F.margin_ranking_loss``.

    ``reduction`` is ATen's int (0 none, the default; 1 mean; 2 sum); a string is accepted too.

    Examples:
        >>> import ember
        >>> x1, x2 = ember.tensor([1.0, 1.0]), ember.tensor([2.0, 0.0])
        >>> ember.margin_ranking_loss(x1, x2, ember.tensor([1.0, 1.0]))
        tensor([1., 0.])
    """
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: Any) -> Tensor:  # fmt: skip
    """Poisson negative log likelihood of counts, the same as ``F.poisson_nll_loss``.

    Every argument is required, as in PyTorch. ``reduction`` is ATen's int (0 none, 1 mean,
    2 sum); a string is accepted too.

    Examples:
        >>> import ember
        >>> rate_log = ember.tensor([0.0, 1.0])
        >>> ember.poisson_nll_loss(rate_log, ember.tensor([1.0, 2.0]), True, False, 1e-8, 0)
        tensor([1.0000, 0.7183])
    """
    return F.poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-06,
                        swap: bool = False, reduction: Any = 0) -> Tensor:  # fmt: skip
    """Triplet margin loss of anchors, positives and negatives, as ``F.triplet_margin_loss``.

    ``reduction`` is ATen's int (0 none, the default; 1 mean; 2 sum); a string is accepted too.

    Examples:
        >>> import ember
        >>> anchor = ember.tensor([[0.0, 0.0]])
        >>> positive, negative = ember.tensor([[1.0, 0.0]]), ember.tensor([[0.0, 1.5]])
        >>> ember.triplet_margin_loss(anchor, positive, negative)
        tensor([0.5000])
    """
    return F.triplet_margin_loss(
        anchor, positive, negative, margin, p, eps, swap, reduction=_reduction(reduction)
    )


#: ``ember.<name>`` -> the function: PyTorch's top-level forms
FUNCTIONS: dict[str, Any] = {
    **{
        n: getattr(F, n)
        for n in (
            "cosine_similarity pairwise_distance pdist conv3d conv_transpose3d max_pool3d "
            "max_pool1d_with_indices pixel_shuffle pixel_unshuffle channel_shuffle "
            "native_channel_shuffle bilinear prelu hardshrink rms_norm selu_ celu_ rrelu_ "
            "threshold_"
        ).split()
    },
    **{
        f.__name__: f
        for f in (
            batch_norm, instance_norm, group_norm, alpha_dropout, alpha_dropout_,
            feature_alpha_dropout, feature_alpha_dropout_, feature_dropout, feature_dropout_,
            dropout, dropout_, adaptive_max_pool1d, selu, celu, threshold, rrelu,
            binary_cross_entropy_with_logits, cosine_embedding_loss, ctc_loss,
            hinge_embedding_loss, kl_div, margin_ranking_loss, poisson_nll_loss,
            triplet_margin_loss,
        )
    },
}  # fmt: skip
