"""Normalisation layers: LayerNorm, RMSNorm, GroupNorm, Embedding, BatchNorm1d/2d/3d.

BatchNorm keeps ``running_mean``/``running_var``/``num_batches_tracked`` buffers
(state-dict version 2, as PyTorch); statistics update only in training mode with
``track_running_stats``. Embedding's lookup is a one-hot product (see
``ember.nn.functional._layers``).
"""

from __future__ import annotations

from typing import Any

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = [
    "LayerNorm",
    "RMSNorm",
    "GroupNorm",
    "BatchNorm1d",
    "BatchNorm2d",
    "BatchNorm3d",
    "SyncBatchNorm",
    "Embedding",
]


def _shape(s: Any) -> tuple[int, ...]:
    return (s,) if isinstance(s, int) else tuple(s)


class LayerNorm(Module):
    """Layer normalisation: normalise each sample over its last ``len(normalized_shape)`` dims.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with the (biased) mean and variance
    taken over the trailing dims given by ``normalized_shape``; the same in training and
    evaluation.

    Input: ``(*, *normalized_shape)``. Output: the same shape.

    Args:
        normalized_shape: the trailing shape to normalise over, an int or a tuple.
        eps: added to the variance for stability. Default: ``1e-5``.
        elementwise_affine: learn ``weight`` (ones) and ``bias`` (zeros) of
            ``normalized_shape``. Default: ``True``.
        bias: learn ``bias`` (with ``elementwise_affine``). Default: ``True``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> ln = ember.nn.LayerNorm(4)
        >>> ln
        LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
        >>> ln(ember.tensor([[1.0, 2.0, 3.0, 4.0]]))
        tensor([[-1.3416, -0.4472,  0.4472,  1.3416]],
               grad_fn=<NativeLayerNormBackward0>)
    """

    def __init__(
        self, normalized_shape: Any, eps: float = 1e-5, elementwise_affine: bool = True,
        bias: bool = True, device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self._has_bias = bias and elementwise_affine
        kw = {"device": device, "dtype": dtype}
        if elementwise_affine:
            self.weight = Parameter(ember.ones(self.normalized_shape, **kw))
            if bias:
                self.bias = Parameter(ember.zeros(self.normalized_shape, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, "
            f"elementwise_affine={self.elementwise_affine}, bias={self._has_bias}"
        )


class RMSNorm(Module):
    """Root-mean-square normalisation over the last ``len(normalized_shape)`` dims.

    ``y = x / sqrt(mean(x ** 2) + eps) * weight``: like ``LayerNorm`` without centring or bias.

    Input: ``(*, *normalized_shape)``. Output: the same shape.

    Args:
        normalized_shape: the trailing shape to normalise over, an int or a tuple.
        eps: added to the mean square; ``None`` uses the dtype's machine epsilon.
            Default: ``None``.
        elementwise_affine: learn ``weight`` (ones) of ``normalized_shape``. Default: ``True``.
        device: where to create ``weight``. Default: the default device.
        dtype: its dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> rms = ember.nn.RMSNorm(2)
        >>> rms
        RMSNorm((2,), eps=None, elementwise_affine=True)
        >>> rms(ember.tensor([[3.0, 4.0]]))
        tensor([[0.8485, 1.1314]], grad_fn=<MulBackward0>)
    """

    def __init__(
        self, normalized_shape: Any, eps: float | None = None, elementwise_affine: bool = True,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.normalized_shape = _shape(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(ember.ones(self.normalized_shape, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.rms_norm(input, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.normalized_shape}, eps={self.eps}, elementwise_affine={self.elementwise_affine}"
        )


class GroupNorm(Module):
    """Group normalisation: normalise each sample over groups of channels.

    The ``C`` channels are split into ``num_groups`` groups; each group of each sample is
    normalised with its own mean and (biased) variance, then scaled by the per-channel
    ``weight`` and shifted by ``bias``. The same in training and evaluation.

    Input: ``(N, C, *)``. Output: the same shape.

    Args:
        num_groups: the number of groups; divides ``num_channels``.
        num_channels: ``C``.
        eps: added to the variance for stability. Default: ``1e-5``.
        affine: learn per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``True``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.
        bias: learn ``bias`` (with ``affine``). Default: ``True``.

    Raises:
        ValueError: if ``num_groups`` does not divide ``num_channels``.

    Examples:
        >>> import ember
        >>> gn = ember.nn.GroupNorm(2, 4)
        >>> gn
        GroupNorm(2, 4, eps=1e-05, affine=True, bias=True)
        >>> y = gn(ember.arange(8.0).reshape(1, 4, 2))
        >>> y.shape, round(y[0, :2].mean().item(), 4)
        (ember.Size([1, 4, 2]), 0.0)
    """

    def __init__(
        self, num_groups: int, num_channels: int, eps: float = 1e-5, affine: bool = True,
        device: Any = None, dtype: Any = None, bias: bool = True,
    ) -> None:  # fmt: skip
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        self._has_bias = bias and affine
        if affine:
            self.weight = Parameter(ember.ones(num_channels, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(ember.zeros(num_channels, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)

    def forward(self, input: Tensor) -> Tensor:
        return F.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self) -> str:
        return (
            f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
            f"bias={self._has_bias}"
        )


class _BatchNorm(Module):
    _version = 2
    _dims: tuple[int, ...] = ()

    def __init__(
        self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
        affine: bool = True, track_running_stats: bool = True, device: Any = None,
        dtype: Any = None, bias: bool = True,
    ) -> None:  # fmt: skip
        super().__init__()
        self._has_bias = bias and affine
        self.num_features = num_features
        self.eps = eps
        self.momentum = momentum
        self.affine = affine
        self.track_running_stats = track_running_stats
        kw = {"device": device, "dtype": dtype}
        if affine:
            self.weight = Parameter(ember.ones(num_features, **kw))
            if bias:
                self.bias = Parameter(ember.zeros(num_features, **kw))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", ember.zeros(num_features, **kw))
            self.register_buffer("running_var", ember.ones(num_features, **kw))
            self.register_buffer(
                "num_batches_tracked", ember.tensor(0, dtype=ember.int64, device=device)
            )
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)

    def reset_running_stats(self) -> None:
        """Reset ``running_mean`` to 0, ``running_var`` to 1 and the batch count to 0."""
        if self.track_running_stats:
            with no_grad():
                self.running_mean.zero_()
                self.running_var.fill_(1)
                self.num_batches_tracked.zero_()

    def _check_input_dim(self, input: Tensor) -> None:
        raise NotImplementedError

    def forward(self, input: Tensor) -> Tensor:
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        use_batch = self.training or (self.running_mean is None and self.running_var is None)
        track = not self.training or self.track_running_stats
        return F.batch_norm(
            input,
            self.running_mean if track else None,
            self.running_var if track else None,
            self.weight,
            self.bias,
            use_batch,
            factor,
            self.eps,
        )

    def extra_repr(self) -> str:
        return (
            f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
            f"affine={self.affine}, bias={self._has_bias}, "
            f"track_running_stats={self.track_running_stats}"
        )


class BatchNorm1d(_BatchNorm):
    """Batch normalisation of ``(N, C)`` or ``(N, C, L)`` input, per channel.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with ``mean`` and ``var`` taken per
    channel over the batch (and ``L``). In training the batch's statistics are used (``var`` biased)
    and the running estimates move towards them: ``running = (1 - momentum) * running + momentum *
    batch`` (``running_var`` from the unbiased variance). In evaluation (``eval()``) the running
    estimates are used.

    Input: ``(N, C)`` or ``(N, C, L)``. Output: the same shape.

    Args:
        num_features: ``C``, the number of channels.
        eps: added to the variance for stability. Default: ``1e-5``.
        momentum: the running estimates' update factor; ``None`` for a cumulative average.
            Default: ``0.1``.
        affine: learn a per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``True``.
        track_running_stats: keep ``running_mean``, ``running_var`` and ``num_batches_tracked``
            buffers; without them evaluation also uses batch statistics. Default: ``True``.
        device: where to create parameters and buffers. Default: the default device.
        dtype: their dtype. Default: the default dtype.
        bias: learn ``bias`` (with ``affine``). Default: ``True``.

    Raises:
        ValueError: if the input has the wrong number of dimensions.

    Examples:
        >>> import ember
        >>> bn = ember.nn.BatchNorm1d(3)
        >>> bn
        BatchNorm1d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        >>> x = ember.arange(6).float().reshape(2, 3)
        >>> y = bn(x)
        >>> y.shape, bn.running_mean
        (ember.Size([2, 3]), tensor([0.1500, 0.2500, 0.3500]))
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim not in (2, 3):
            raise ValueError(f"expected 2D or 3D input (got {input.ndim}D input)")


class BatchNorm2d(_BatchNorm):
    """Batch normalisation of ``(N, C, H, W)`` input, per channel.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with ``mean`` and ``var`` taken per
    channel over ``N``, ``H`` and ``W``. In training the batch's statistics are used (``var``
    biased) and the running estimates move towards them: ``running = (1 - momentum) * running +
    momentum * batch`` (``running_var`` from the unbiased variance). In evaluation (``eval()``) the
    running estimates are used.

    Input: ``(N, C, H, W)``. Output: the same shape.

    Args:
        num_features: ``C``, the number of channels.
        eps: added to the variance for stability. Default: ``1e-5``.
        momentum: the running estimates' update factor; ``None`` for a cumulative average.
            Default: ``0.1``.
        affine: learn a per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``True``.
        track_running_stats: keep ``running_mean``, ``running_var`` and ``num_batches_tracked``
            buffers; without them evaluation also uses batch statistics. Default: ``True``.
        device: where to create parameters and buffers. Default: the default device.
        dtype: their dtype. Default: the default dtype.
        bias: learn ``bias`` (with ``affine``). Default: ``True``.

    Raises:
        ValueError: if the input has the wrong number of dimensions.

    Examples:
        >>> import ember
        >>> bn = ember.nn.BatchNorm2d(3)
        >>> bn
        BatchNorm2d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        >>> x = ember.arange(12).float().reshape(2, 3, 2, 1)
        >>> y = bn(x)
        >>> y.shape, bn.running_mean
        (ember.Size([2, 3, 2, 1]), tensor([0.3500, 0.5500, 0.7500]))
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim != 4:
            raise ValueError(f"expected 4D input (got {input.ndim}D input)")


class BatchNorm3d(_BatchNorm):
    """Batch normalisation of ``(N, C, D, H, W)`` input, per channel.

    ``y = (x - mean) / sqrt(var + eps) * weight + bias``, with ``mean`` and ``var`` taken per
    channel over ``N``, ``D``, ``H`` and ``W``. In training the batch's statistics are used (``var``
    biased) and the running estimates move towards them: ``running = (1 - momentum) * running +
    momentum * batch`` (``running_var`` from the unbiased variance). In evaluation (``eval()``) the
    running estimates are used.

    Input: ``(N, C, D, H, W)``. Output: the same shape.

    Args:
        num_features: ``C``, the number of channels.
        eps: added to the variance for stability. Default: ``1e-5``.
        momentum: the running estimates' update factor; ``None`` for a cumulative average.
            Default: ``0.1``.
        affine: learn a per-channel ``weight`` (ones) and ``bias`` (zeros). Default: ``True``.
        track_running_stats: keep ``running_mean``, ``running_var`` and ``num_batches_tracked``
            buffers; without them evaluation also uses batch statistics. Default: ``True``.
        device: where to create parameters and buffers. Default: the default device.
        dtype: their dtype. Default: the default dtype.
        bias: learn ``bias`` (with ``affine``). Default: ``True``.

    Raises:
        ValueError: if the input has the wrong number of dimensions.

    Examples:
        >>> import ember
        >>> bn = ember.nn.BatchNorm3d(3)
        >>> bn
        BatchNorm3d(3, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        >>> x = ember.arange(12).float().reshape(2, 3, 2, 1, 1)
        >>> y = bn(x)
        >>> y.shape, bn.running_mean
        (ember.Size([2, 3, 2, 1, 1]), tensor([0.3500, 0.5500, 0.7500]))
    """

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim != 5:
            raise ValueError(f"expected 5D input (got {input.ndim}D input)")


class SyncBatchNorm(_BatchNorm):
    """Batch normalisation whose statistics span every rank of a process group.

    In training, each rank's per-channel sum, sum of squares and count are summed over
    the group with a differentiable all-reduce (``ember.distributed.nn.functional``),
    so N ranks on N slices of a batch normalise -- and, under DDP, train -- as one
    process on the whole batch. In eval mode, or outside an initialized process
    group, it is ``BatchNorm`` of the input's dimension.

    Input: ``(N, C, *)``. Output: the same shape.

    Args:
        num_features: ``C``, the number of channels.
        eps: added to the variance for stability. Default: ``1e-5``.
        momentum: the running estimates' update factor. Default: ``0.1``.
        affine: learn per-channel ``weight`` and ``bias``. Default: ``True``.
        track_running_stats: keep running estimates. Default: ``True``.
        process_group: the group to reduce over. Default: ``None`` (the whole world).
        device: where to create parameters and buffers. Default: the default device.
        dtype: their dtype. Default: the default dtype.
        bias: learn ``bias`` (with ``affine``). Default: ``True``.

    Examples:
        >>> import ember
        >>> net = ember.nn.Sequential(ember.nn.Conv2d(3, 4, 1), ember.nn.BatchNorm2d(4))
        >>> net = ember.nn.SyncBatchNorm.convert_sync_batchnorm(net)
        >>> net[1]
        SyncBatchNorm(4, eps=1e-05, momentum=0.1, affine=True, bias=True, track_running_stats=True)
        >>> net(ember.ones(2, 3, 2, 2)).shape
        ember.Size([2, 4, 2, 2])
    """

    def __init__(
        self, num_features: int, eps: float = 1e-5, momentum: float | None = 0.1,
        affine: bool = True, track_running_stats: bool = True, process_group: Any = None,
        device: Any = None, dtype: Any = None, *, bias: bool = True,
    ) -> None:  # fmt: skip
        super().__init__(
            num_features, eps, momentum, affine, track_running_stats, device, dtype, bias
        )
        self.process_group = process_group

    def _check_input_dim(self, input: Tensor) -> None:
        if input.ndim < 2:
            raise ValueError(f"expected at least 2D input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        from ember import distributed as dist

        self._check_input_dim(input)
        if (
            not self.training
            or not dist.is_initialized()
            or dist.get_world_size(self.process_group) == 1
        ):
            return super().forward(input)
        from ember.distributed.nn import functional as DF

        dims = [0, *range(2, input.ndim)]
        c = self.num_features
        count = input.numel() // input.shape[1]
        shape = [1, c] + [1] * (input.ndim - 2)
        # each rank's mean and sum of squared deviations (two passes, stable), gathered
        # and combined with the ranks' offsets from the global mean (Chan et al.): the
        # one-pass E[x^2] - E[x]^2 loses every digit when |mean| >> std
        # accumulated in float64: a float32 sum of a batch rounds the mean by more than
        # std * 1e-5 once |mean| >> std (BatchNorm's own kernel accumulates wider too)
        wide = input.double() if input.dtype.is_floating_point else input
        local_mean = wide.sum(dims) / max(count, 1)
        local_m2 = ((wide - local_mean.reshape(shape)) ** 2).sum(dims)
        n_local = ember.full((1,), float(count), dtype=wide.dtype, device=input.device)
        stats = ember.stack(
            DF.all_gather(ember.cat([local_mean, local_m2, n_local]), group=self.process_group)
        )
        means, m2s, ns = stats[:, :c], stats[:, c : 2 * c], stats[:, 2 * c :]
        n = ns.sum()
        mean = (ns * means).sum(0) / n
        var = (m2s.sum(0) + (ns * (means - mean) ** 2).sum(0)) / n
        if self.track_running_stats:
            with no_grad():
                self.num_batches_tracked.add_(1)
                factor = self.momentum
                if factor is None:
                    factor = 1.0 / float(self.num_batches_tracked.item())
                unbiased = var.detach() * (n / (n - 1)).clamp_min(0) if n.item() > 1 else var
                self.running_mean.mul_(1 - factor).add_(mean.detach() * factor)
                self.running_var.mul_(1 - factor).add_(unbiased.detach() * factor)
        # normalized in the wide dtype too: the mean rounded to float32 is off by more
        # than std * 1e-4 when |mean| >> std
        out = ((wide - mean.reshape(shape)) * ember.rsqrt(var.reshape(shape) + self.eps)).to(
            input.dtype
        )
        if self.weight is not None:
            out = out * self.weight.reshape(shape)
        if self.bias is not None:
            out = out + self.bias.reshape(shape)
        return out

    @classmethod
    def convert_sync_batchnorm(cls, module: Module, process_group: Any = None) -> Module:
        """``module`` with every ``BatchNorm*d`` replaced by a ``SyncBatchNorm`` (same state)."""
        out = module
        if isinstance(module, _BatchNorm) and type(module) in (
            BatchNorm1d, BatchNorm2d, BatchNorm3d,
        ):  # fmt: skip
            out = cls(
                module.num_features, module.eps, module.momentum, module.affine,
                module.track_running_stats, process_group, bias=module._has_bias,
            )  # fmt: skip
            with no_grad():
                if module.affine:
                    out.weight = module.weight
                    if module.bias is not None:
                        out.bias = module.bias
                if module.track_running_stats:
                    out.running_mean = module.running_mean
                    out.running_var = module.running_var
                    out.num_batches_tracked = module.num_batches_tracked
            out.training = module.training
        for name, child in module.named_children():
            out.add_module(name, cls.convert_sync_batchnorm(child, process_group))
        return out


class Embedding(Module):
    """Store ``num_embeddings`` vectors of size ``embedding_dim`` and look them up by index.

    A lookup table: row ``i`` of ``weight`` is the vector of index ``i``.

    Input: an integer tensor of indices, any shape ``(*)``. Output: ``(*, embedding_dim)``.

    Args:
        num_embeddings: the number of rows of the table.
        embedding_dim: the size of each vector.
        padding_idx: a row that is initialised to zeros and gets no gradient. Default: ``None``.
        max_norm: renormalise each looked-up row whose norm exceeds this, in place.
            Default: ``None``.
        norm_type: the p of the norm for ``max_norm``. Default: ``2.0``.
        scale_grad_by_freq: divide the gradient by each index's frequency in the batch.
            Default: ``False``.
        sparse: must stay ``False``: ember has no sparse gradients (``True`` raises
            ``NotImplementedError`` in forward). Default: ``False``.
        device: where to create ``weight``. Default: the default device.
        dtype: its dtype. Default: the default dtype.

    Attributes:
        weight: ``(num_embeddings, embedding_dim)``, initialised from ``N(0, 1)``.

    Examples:
        >>> import ember
        >>> emb = ember.nn.Embedding(10, 3, padding_idx=0)
        >>> emb
        Embedding(10, 3, padding_idx=0)
        >>> emb(ember.tensor([[0, 2], [4, 5]])).shape
        ember.Size([2, 2, 3])
        >>> emb(ember.tensor([0])).tolist()
        [[0.0, 0.0, 0.0]]
    """

    def __init__(
        self, num_embeddings: int, embedding_dim: int, padding_idx: int | None = None,
        max_norm: float | None = None, norm_type: float = 2.0, scale_grad_by_freq: bool = False,
        sparse: bool = False, _weight: Tensor | None = None, _freeze: bool = False,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.num_embeddings = num_embeddings
        self.embedding_dim = embedding_dim
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            if padding_idx < 0:
                padding_idx += num_embeddings
        self.padding_idx = padding_idx
        self.max_norm = max_norm
        self.norm_type = norm_type
        self.scale_grad_by_freq = scale_grad_by_freq
        self.sparse = sparse
        if _weight is None:
            w = ember.empty(num_embeddings, embedding_dim, device=device, dtype=dtype)
            self.weight = Parameter(w, requires_grad=not _freeze)
            self.reset_parameters()
        else:
            self.weight = Parameter(_weight, requires_grad=not _freeze)

    def reset_parameters(self) -> None:
        """Draw ``weight`` from ``N(0, 1)`` again, zeroing the ``padding_idx`` row."""
        init.normal_(self.weight)
        if self.padding_idx is not None:
            with no_grad():
                self.weight[self.padding_idx].fill_(0)

    def forward(self, input: Tensor) -> Tensor:
        return F.embedding(
            input, self.weight, self.padding_idx, self.max_norm, self.norm_type,
            self.scale_grad_by_freq, self.sparse,
        )  # fmt: skip

    @classmethod
    def from_pretrained(
        cls, embeddings: Tensor, freeze: bool = True, padding_idx: int | None = None,
        **kwargs: Any,
    ) -> Embedding:  # fmt: skip
        """Create an ``Embedding`` whose table is ``embeddings`` (2-d).

        Args:
            embeddings: the ``(num_embeddings, embedding_dim)`` table.
            freeze: keep the table fixed (no gradient). Default: ``True``.
            padding_idx: as for the constructor. Default: ``None``.
            **kwargs: the constructor's other keyword arguments.

        Examples:
            >>> import ember
            >>> emb = ember.nn.Embedding.from_pretrained(ember.tensor([[1.0, 2.0], [3.0, 4.0]]))
            >>> emb(ember.tensor([1])).tolist(), emb.weight.requires_grad
            ([[3.0, 4.0]], False)
        """
        rows, cols = embeddings.shape
        return cls(rows, cols, padding_idx, _weight=embeddings, _freeze=freeze, **kwargs)

    def extra_repr(self) -> str:
        s = f"{self.num_embeddings}, {self.embedding_dim}"
        if self.padding_idx is not None:
            s += f", padding_idx={self.padding_idx}"
        if self.max_norm is not None:
            s += f", max_norm={self.max_norm}"
        if self.norm_type != 2:
            s += f", norm_type={self.norm_type}"
        if self.scale_grad_by_freq:
            s += ", scale_grad_by_freq=True"
        if self.sparse:
            s += ", sparse=True"
        return s
