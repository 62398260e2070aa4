"""Lazy layers: LazyLinear, LazyConv1d/2d/3d, LazyConvTranspose1d/2d/3d, LazyBatchNorm1d/2d/3d,
LazyInstanceNorm1d/2d/3d.

Each is built like its eager class with the input size (``in_features``,
``in_channels`` or ``num_features``) set to 0; a forward pre-hook reads the size from
the first input, re-shapes the parameters and buffers *in place* (the Parameter
objects are kept, so an optimizer built before the first call still sees them),
runs ``reset_parameters`` and turns the module into its eager class, as PyTorch
does (``cls_to_become``).
"""

from __future__ import annotations

from typing import Any

import ember
from ember.core.tensor import Tensor
from ember.nn.modules.conv import (
    Conv1d,
    Conv2d,
    Conv3d,
    ConvTranspose1d,
    ConvTranspose2d,
    ConvTranspose3d,
)
from ember.nn.modules.instancenorm import InstanceNorm1d, InstanceNorm2d, InstanceNorm3d
from ember.nn.modules.linear import Linear
from ember.nn.modules.module import Module, _swap_data
from ember.nn.modules.normalization import BatchNorm1d, BatchNorm2d, BatchNorm3d

__all__ = [
    "LazyLinear", "LazyConv1d", "LazyConv2d", "LazyConv3d", "LazyConvTranspose1d",
    "LazyConvTranspose2d", "LazyConvTranspose3d", "LazyBatchNorm1d", "LazyBatchNorm2d",
    "LazyBatchNorm3d", "LazyInstanceNorm1d", "LazyInstanceNorm2d", "LazyInstanceNorm3d",
]  # fmt: skip


def _reshape_(t: Tensor | None, shape: tuple[int, ...], fill: float | None = None) -> None:
    """Give ``t`` a fresh storage of ``shape`` (same dtype and device), keeping its identity."""
    if t is None:
        return
    new = ember.empty(shape, dtype=t.dtype, device=t.device)
    if fill is not None:
        new.fill_(fill)
    _swap_data(t, new)


class _LazyMixin(Module):
    cls_to_become: type[Module]

    def _start_lazy(self) -> None:
        self._lazy_hook = self.register_forward_pre_hook(_LazyMixin._materialize)

    def has_uninitialized_params(self) -> bool:
        """Tell whether the parameters still wait for the first input (``True``)."""
        return True

    def initialize_parameters(self, input: Tensor) -> None:
        """Size and initialise the parameters from ``input`` (called by the first forward)."""
        raise NotImplementedError

    @staticmethod
    def _materialize(module: Module, args: tuple[Any, ...]) -> None:
        lazy: Any = module
        lazy.initialize_parameters(args[0])
        lazy._lazy_hook.remove()
        del lazy._lazy_hook
        module.__class__ = lazy.cls_to_become


class LazyLinear(_LazyMixin, Linear):
    """A ``Linear`` layer whose ``in_features`` is read from its first input.

    A Linear whose ``in_features`` is the last dim of its first input.

    Takes ``Linear``'s arguments without ``in_features``. The first forward call sets
    ``in_features`` to the input's last dim, allocates and initialises ``weight`` in place
    (the ``Parameter`` objects are kept, so an optimizer built before still holds them) and
    turns the module into a ``Linear``.

    Examples:
        >>> import ember
        >>> fc = ember.nn.LazyLinear(3)
        >>> fc
        LazyLinear(in_features=0, out_features=3, bias=True)
        >>> fc(ember.ones(2, 5)).shape, fc
        (ember.Size([2, 3]), Linear(in_features=5, out_features=3, bias=True))
    """

    cls_to_become = Linear

    def __init__(
        self, out_features: int, bias: bool = True, device: Any = None, dtype: Any = None
    ) -> None:
        Linear.__init__(self, 0, out_features, bias, device, dtype)
        self._start_lazy()

    def initialize_parameters(self, input: Tensor) -> None:
        """Set ``in_features`` from ``input``'s last dim; size and initialise the parameters."""
        self.in_features = input.shape[-1]
        _reshape_(self.weight, (self.out_features, self.in_features))
        _reshape_(self.bias, (self.out_features,))
        self.reset_parameters()


class _LazyConv(_LazyMixin):
    def initialize_parameters(self, input: Tensor) -> None:
        """Set ``in_channels`` from ``input``; size and initialise the parameters."""
        conv: Any = self
        batched = input.ndim == conv._dims + 2
        channels = input.shape[1 if batched else 0]
        if channels % conv.groups:
            raise ValueError("in_channels must be divisible by groups")
        conv.in_channels = channels
        if conv.transposed:
            shape = (channels, conv.out_channels // conv.groups, *conv.kernel_size)
        else:
            shape = (conv.out_channels, channels // conv.groups, *conv.kernel_size)
        _reshape_(conv.weight, shape)
        _reshape_(conv.bias, (conv.out_channels,))
        conv.reset_parameters()


def _lazy_conv(base: Any, transposed: bool) -> type:
    """A Lazy<base> class: PyTorch's signature without ``in_channels``."""

    def __init__(self: Any, out_channels: int, kernel_size: Any, *args: Any, **kwargs: Any) -> None:
        base.__init__(self, 0, out_channels, kernel_size, *args, **kwargs)
        self._start_lazy()

    n = base._dims
    shape = ", ".join(["1", "2"] + ["5"] * n)
    doc = f"""A ``{base.__name__}`` whose ``in_channels`` is read from its first input.

    Takes ``{base.__name__}``'s arguments without ``in_channels``. The first forward call
    sets ``in_channels`` from the input's channel dim, allocates and initialises ``weight``
    (the ``Parameter`` objects are kept, so an optimizer built before the call still holds
    them) and turns the module into a ``{base.__name__}``.

    Examples:
        >>> import ember
        >>> m = ember.nn.Lazy{base.__name__}(4, 3)
        >>> m.in_channels
        0
        >>> _ = m(ember.ones({shape}))
        >>> type(m).__name__, m.in_channels, m.weight.shape[{0 if transposed else 1}]
        ('{base.__name__}', 2, 2)
    """
    return type(
        f"Lazy{base.__name__}",
        (_LazyConv, base),
        {"cls_to_become": base, "__init__": __init__, "__doc__": doc, "__module__": __name__},
    )


LazyConv1d = _lazy_conv(Conv1d, False)
LazyConv2d = _lazy_conv(Conv2d, False)
LazyConv3d = _lazy_conv(Conv3d, False)
LazyConvTranspose1d = _lazy_conv(ConvTranspose1d, True)
LazyConvTranspose2d = _lazy_conv(ConvTranspose2d, True)
LazyConvTranspose3d = _lazy_conv(ConvTranspose3d, True)


class _LazyNorm(_LazyMixin):
    _lazy_unbatched_ndim = -1

    def initialize_parameters(self, input: Tensor) -> None:
        """Set ``num_features`` from ``input``; size and reset parameters and buffers."""
        norm: Any = self
        unbatched = input.ndim == norm._lazy_unbatched_ndim
        n = input.shape[0 if unbatched else 1]
        norm.num_features = n
        if norm.affine:
            _reshape_(norm.weight, (n,))
            _reshape_(norm.bias, (n,))
        if norm.track_running_stats:
            _reshape_(norm.running_mean, (n,))
            _reshape_(norm.running_var, (n,))
        norm.reset_running_stats()
        if norm.affine:
            with ember.no_grad():
                norm.weight.fill_(1.0)
                if norm.bias is not None:
                    norm.bias.zero_()


def _lazy_norm(base: Any, unbatched_ndim: int, instance: bool) -> type:
    def __init__(
        self: Any,
        eps: float = 1e-5,
        momentum: float | None = 0.1,
        affine: bool = True,
        track_running_stats: bool = True,
        device: Any = None,
        dtype: Any = None,
        bias: bool = True,
    ) -> None:
        base.__init__(self, 0, eps, momentum, affine, track_running_stats, device, dtype, bias=bias)
        self._start_lazy()

    shape = ", ".join(
        ["2", "3"] + ["2"] * (unbatched_ndim - 1 if instance else int(base.__name__[-2]))
    )
    doc = f"""A ``{base.__name__}`` whose ``num_features`` is read from its first input.

    Takes ``{base.__name__}``'s arguments without ``num_features``. The first forward call
    sets ``num_features`` from the input's channel dim, allocates the parameters and
    buffers in place and turns the module into a ``{base.__name__}``.

    Note:
        As in PyTorch, ``affine`` and ``track_running_stats`` default to ``True`` here,
        also for the instance norms.

    Examples:
        >>> import ember
        >>> m = ember.nn.Lazy{base.__name__}()
        >>> _ = m(ember.ones({shape}))
        >>> type(m).__name__, m.num_features
        ('{base.__name__}', 3)
    """
    return type(
        f"Lazy{base.__name__}",
        (_LazyNorm, base),
        {
            "cls_to_become": base,
            "__init__": __init__,
            "__doc__": doc,
            "_lazy_unbatched_ndim": unbatched_ndim,
            "__module__": __name__,
        },
    )


LazyBatchNorm1d = _lazy_norm(BatchNorm1d, -1, False)
LazyBatchNorm2d = _lazy_norm(BatchNorm2d, -1, False)
LazyBatchNorm3d = _lazy_norm(BatchNorm3d, -1, False)
LazyInstanceNorm1d = _lazy_norm(InstanceNorm1d, 2, True)
LazyInstanceNorm2d = _lazy_norm(InstanceNorm2d, 3, True)
LazyInstanceNorm3d = _lazy_norm(InstanceNorm3d, 4, True)
