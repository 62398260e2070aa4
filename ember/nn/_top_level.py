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
    """``torch.instance_norm``: ATen's argument order over ``F.instance_norm``."""
    return F.instance_norm(
        input, running_mean, running_var, weight, bias, use_input_stats, momentum, eps
    )


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None,
               bias: Tensor | None = None, eps: float = 1e-05,
               cudnn_enabled: bool = True) -> Tensor:  # fmt: skip
    return F.group_norm(input, num_groups, weight, bias, eps)


def _train_form(fn: Any, name: str) -> Any:
    def f(input: Tensor, p: float, train: bool) -> Tensor:
        return fn(input, p, train)  # type: ignore[no-any-return]

    def f_(input: Tensor, p: float, train: bool) -> Tensor:
        return fn(input, p, train, inplace=True)  # type: ignore[no-any-return]

    f.__name__ = f.__qualname__ = name
    f_.__name__ = f_.__qualname__ = name + "_"
    f.__doc__ = f"``torch.{name}(input, p, train)``: ``F.{fn.__name__}`` with a required train."
    f_.__doc__ = f"In-place ``{name}``."
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


def adaptive_max_pool1d(input: Tensor, output_size: Any) -> tuple[Tensor, Tensor]:
    """``(output, indices)``, as ``torch.adaptive_max_pool1d`` always returns."""
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)  # type: ignore[no-any-return]


def selu(input: Tensor) -> Tensor:
    return F.selu(input)


def celu(input: Tensor, alpha: float = 1.0) -> Tensor:
    return F.celu(input, alpha)


def threshold(input: Tensor, threshold: float, value: float) -> Tensor:
    return F.threshold(input, threshold, value)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3,
          training: bool = False, generator: Any = None) -> Tensor:  # fmt: skip
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
    return F.binary_cross_entropy_with_logits(
        input, target, weight, reduction=_reduction(reduction), pos_weight=pos_weight
    )


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor,
                          margin: float = 0.0, reduction: Any = 0) -> Tensor:  # fmt: skip
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths: Any, target_lengths: Any,
             blank: int = 0, reduction: Any = 0,
             zero_infinity: bool = False) -> Tensor:  # fmt: skip
    return F.ctc_loss(
        log_probs, targets, input_lengths, target_lengths, blank, _reduction(reduction),
        zero_infinity,
    )  # fmt: skip


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0,
                         reduction: Any = 0) -> Tensor:  # fmt: skip
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def kl_div(input: Tensor, target: Tensor, reduction: Any = 0, *,
           log_target: bool = False) -> Tensor:  # fmt: skip
    return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor,
                        margin: float = 0.0, reduction: Any = 0) -> Tensor:  # fmt: skip
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: Any) -> Tensor:  # fmt: skip
    return F.poisson_nll_loss(
        input, target, log_input, full, eps=eps, reduction=_reduction(reduction)
    )


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor,
                        margin: float = 1.0, p: float = 2, eps: float = 1e-06,
                        swap: bool = False, reduction: Any = 0) -> Tensor:  # fmt: skip
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
