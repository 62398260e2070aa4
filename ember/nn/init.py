"""``ember.nn.init``: in-place parameter initialisers with PyTorch's fan and gain rules.

Every initialiser runs under ``no_grad`` and draws from ember's generators
(the default one, or ``generator=``), so ``ember.manual_seed`` makes models
reproducible. ``orthogonal_`` does its QR on the host with numpy; ``dirac_`` builds its
pattern on the host; ``sparse_`` zeroes, per column, the rows of the smallest
random keys (one ``argsort`` and one ``scatter_``). The names without a trailing
underscore are PyTorch's deprecated aliases (with its FutureWarning).
"""

from __future__ import annotations

import math
import warnings
from collections.abc import Callable
from typing import Any

import numpy as np

import ember
from ember.autograd.grad_mode import no_grad
from ember.core.tensor import Tensor
from ember.operators.generator import Generator

__all__ = [
    "calculate_gain",
    "uniform_",
    "normal_",
    "constant_",
    "zeros_",
    "ones_",
    "eye_",
    "xavier_uniform_",
    "xavier_normal_",
    "kaiming_uniform_",
    "kaiming_normal_",
    "orthogonal_",
    "trunc_normal_",
    "dirac_",
    "sparse_",
    "uniform",
    "normal",
    "constant",
    "eye",
    "dirac",
    "xavier_uniform",
    "xavier_normal",
    "kaiming_uniform",
    "kaiming_normal",
    "orthogonal",
    "sparse",
]


def calculate_gain(nonlinearity: str, param: Any = None) -> float:
    """The recommended gain for ``nonlinearity``.

    The factor by which to scale initial weights so activations keep their variance through
    ``nonlinearity``: 1 for linear, convolution and sigmoid layers, 5/3 for ``tanh``,
    ``sqrt(2)`` for ``relu``, ``sqrt(2 / (1 + slope ** 2))`` for ``leaky_relu`` and 3/4 for
    ``selu``.

    Args:
        nonlinearity: the function's name, as in ``ember.nn.functional``.
        param: the negative slope of ``leaky_relu``. Default: ``None`` (0.01).

    Returns:
        The gain, a float.

    Raises:
        ValueError: for an unsupported ``nonlinearity`` or a non-numeric ``param``.

    Examples:
        >>> import ember
        >>> ember.nn.init.calculate_gain("relu")
        1.4142135623730951
        >>> ember.nn.init.calculate_gain("tanh")
        1.6666666666666667
    """
    linear = ("linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
              "conv_transpose3d", "sigmoid")  # fmt: skip
    if nonlinearity in linear:
        return 1.0
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + slope**2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


def _calculate_fan_in_and_fan_out(tensor: Tensor) -> tuple[int, int]:
    if tensor.ndim < 2:
        raise ValueError(
            "Fan in and fan out can not be computed for tensor with fewer than 2 dimensions"
        )
    receptive = 1
    for s in tensor.shape[2:]:
        receptive *= s
    return tensor.shape[1] * receptive, tensor.shape[0] * receptive


def _fan(tensor: Tensor, mode: str) -> int:
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def uniform_(
    tensor: Tensor, a: float = 0.0, b: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill with U(a, b).

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).
        a: the lower bound. Default: ``0.0``.
        b: the upper bound. Default: ``1.0``.
        generator: the random generator to draw from. Default: ``None`` (the default one).

    Returns:
        ``tensor``.

    Examples:
        >>> import ember
        >>> w = ember.nn.init.uniform_(ember.empty(3), -1.0, 1.0)
        >>> bool((w.abs() <= 1).all())
        True
    """
    with no_grad():
        return tensor.uniform_(a, b, generator=generator)


def normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill ``tensor`` with values drawn from ``N(mean, std ** 2)``.

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).
        mean: the mean. Default: ``0.0``.
        std: the standard deviation. Default: ``1.0``.
        generator: the random generator to draw from. Default: ``None`` (the default one).

    Returns:
        ``tensor``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> w = ember.nn.init.normal_(ember.empty(10000), mean=2.0, std=0.5)
        >>> round(w.mean().item(), 1), round(w.std().item(), 1)
        (2.0, 0.5)
    """
    with no_grad():
        return tensor.normal_(mean, std, generator=generator)


def constant_(tensor: Tensor, val: float) -> Tensor:
    """Fill ``tensor`` with the value ``val``.

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).
        val: the fill value.

    Returns:
        ``tensor``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> ember.nn.init.constant_(ember.empty(3), 0.3)
        tensor([0.3000, 0.3000, 0.3000])
    """
    with no_grad():
        return tensor.fill_(val)


def zeros_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with zeros.

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).

    Returns:
        ``tensor``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> ember.nn.init.zeros_(ember.empty(2, 2))
        tensor([[0., 0.],
                [0., 0.]])
    """
    return constant_(tensor, 0.0)


def ones_(tensor: Tensor) -> Tensor:
    """Fill ``tensor`` with ones.

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).

    Returns:
        ``tensor``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> ember.nn.init.ones_(ember.empty(2, 2))
        tensor([[1., 1.],
                [1., 1.]])
    """
    return constant_(tensor, 1.0)


def eye_(tensor: Tensor) -> Tensor:
    """Fill a 2-d ``tensor`` with the identity matrix (ones on the diagonal).

    Keeps the identity of the inputs in a ``Linear`` layer; non-square tensors get a
    rectangular identity.

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).

    Returns:
        ``tensor``.

    Raises:
        ValueError: if ``tensor`` is not 2-d.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> ember.nn.init.eye_(ember.empty(2, 3))
        tensor([[1., 0., 0.],
                [0., 1., 0.]])
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    with no_grad():
        return tensor.copy_(ember.eye(*tensor.shape, dtype=tensor.dtype, device=tensor.device))


def xavier_uniform_(
    tensor: Tensor, gain: float = 1.0, generator: Generator | None = None
) -> Tensor:
    """Fill ``tensor`` from Glorot's uniform distribution ``U(-a, a)``.

    ``a = gain * sqrt(6 / (fan_in + fan_out))``, which keeps the variance of activations and
    gradients about the same across layers (Glorot and Bengio, 2010). ``fan_in`` is
    ``tensor.shape[1] * prod(tensor.shape[2:])`` and ``fan_out`` is ``tensor.shape[0] *
    prod(tensor.shape[2:])`` (the tensor must have 2 or more dims).

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).
        gain: a scaling factor (see ``calculate_gain``). Default: ``1.0``.
        generator: the random generator to draw from. Default: ``None`` (the default one).

    Returns:
        ``tensor``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> w = ember.nn.init.xavier_uniform_(ember.empty(300, 200))
        >>> w.abs().max().item() <= (6 / 500) ** 0.5
        True
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    a = math.sqrt(3.0) * gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return uniform_(tensor, -a, a, generator)


def xavier_normal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill ``tensor`` from Glorot's normal distribution ``N(0, std ** 2)``.

    ``std = gain * sqrt(2 / (fan_in + fan_out))`` (Glorot and Bengio, 2010). ``fan_in`` is
    ``tensor.shape[1] * prod(tensor.shape[2:])`` and ``fan_out`` is ``tensor.shape[0] *
    prod(tensor.shape[2:])`` (the tensor must have 2 or more dims).

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).
        gain: a scaling factor (see ``calculate_gain``). Default: ``1.0``.
        generator: the random generator to draw from. Default: ``None`` (the default one).

    Returns:
        ``tensor``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> w = ember.nn.init.xavier_normal_(ember.empty(300, 200))
        >>> round(w.std().item(), 2), round((2 / 500) ** 0.5, 2)
        (0.06, 0.06)
    """
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return normal_(tensor, 0.0, gain * math.sqrt(2.0 / float(fan_in + fan_out)), generator)


def kaiming_uniform_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:  # fmt: skip
    """Fill ``tensor`` from He's uniform distribution ``U(-bound, bound)``.

    ``bound = gain * sqrt(3 / fan)``, ``gain = calculate_gain(nonlinearity, a)`` and ``fan`` the
    tensor's ``fan_in`` or ``fan_out`` (He et al., 2015). ``fan_in`` is ``tensor.shape[1] *
    prod(tensor.shape[2:])`` and ``fan_out`` is ``tensor.shape[0] * prod(tensor.shape[2:])`` (the
    tensor must have 2 or more dims). This is how ``Linear`` and ``Conv*d`` initialise their weights
    (with ``a = sqrt(5)``).

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).
        a: the negative slope of the rectifier after this layer (``leaky_relu``). Default: ``0``.
        mode: ``'fan_in'`` keeps the forward variance, ``'fan_out'`` the backward one.
            Default: ``'fan_in'``.
        nonlinearity: the nonlinearity after this layer, ``'relu'`` or ``'leaky_relu'``
            (see ``calculate_gain``). Default: ``'leaky_relu'``.
        generator: the random generator to draw from. Default: ``None`` (the default one).

    Returns:
        ``tensor``.

    Raises:
        ValueError: for an unknown ``mode`` or ``nonlinearity``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> w = ember.nn.init.kaiming_uniform_(ember.empty(64, 100), nonlinearity='relu')
        >>> w.abs().max().item() <= (6 / 100) ** 0.5
        True
    """
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    bound = math.sqrt(3.0) * std
    return uniform_(tensor, -bound, bound, generator)


def kaiming_normal_(
    tensor: Tensor, a: float = 0, mode: str = "fan_in", nonlinearity: str = "leaky_relu",
    generator: Generator | None = None,
) -> Tensor:  # fmt: skip
    """Fill ``tensor`` from He's normal distribution ``N(0, std ** 2)``.

    ``std = gain / sqrt(fan)``, ``gain = calculate_gain(nonlinearity, a)`` and ``fan`` the tensor's
    ``fan_in`` or ``fan_out`` (He et al., 2015). ``fan_in`` is ``tensor.shape[1] *
    prod(tensor.shape[2:])`` and ``fan_out`` is ``tensor.shape[0] * prod(tensor.shape[2:])`` (the
    tensor must have 2 or more dims).

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).
        a: the negative slope of the rectifier after this layer (``leaky_relu``). Default: ``0``.
        mode: ``'fan_in'`` or ``'fan_out'``. Default: ``'fan_in'``.
        nonlinearity: ``'relu'`` or ``'leaky_relu'`` (see ``calculate_gain``).
            Default: ``'leaky_relu'``.
        generator: the random generator to draw from. Default: ``None`` (the default one).

    Returns:
        ``tensor``.

    Raises:
        ValueError: for an unknown ``mode`` or ``nonlinearity``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> w = ember.empty(500, 200)
        >>> _ = ember.nn.init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')
        >>> round(w.std().item(), 2), round((2 / 500) ** 0.5, 2)
        (0.06, 0.06)
    """
    if 0 in tensor.shape:
        return tensor
    std = calculate_gain(nonlinearity, a) / math.sqrt(_fan(tensor, mode))
    return normal_(tensor, 0.0, std, generator)


def trunc_normal_(
    tensor: Tensor, mean: float = 0.0, std: float = 1.0, a: float = -2.0, b: float = 2.0,
    generator: Generator | None = None,
) -> Tensor:  # fmt: skip
    """N(mean, std) restricted to [a, b], by vectorised resampling of the rejected entries.

    Values outside ``[a, b]`` are drawn again until they fall inside.

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).
        mean: the mean. Default: ``0.0``.
        std: the standard deviation. Default: ``1.0``.
        a: the lower cut-off. Default: ``-2.0``.
        b: the upper cut-off. Default: ``2.0``.
        generator: the random generator to draw from. Default: ``None`` (the default one).

    Returns:
        ``tensor``.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> w = ember.nn.init.trunc_normal_(ember.empty(1000), std=1.0, a=-0.5, b=0.5)
        >>> bool((w.abs() <= 0.5).all())
        True
    """
    with no_grad():
        tensor.normal_(mean, std, generator=generator)
        for _ in range(1000):
            bad = (tensor < a).logical_or(tensor > b)
            if not bool(bad.any()):
                break
            fresh = ember.empty_like(tensor).normal_(mean, std, generator=generator)
            tensor.copy_(ember.where(bad, fresh, tensor))
        return tensor


def orthogonal_(tensor: Tensor, gain: float = 1.0, generator: Generator | None = None) -> Tensor:
    """Fill ``tensor`` with a (semi-)orthogonal matrix, scaled by ``gain``.

    The tensor is viewed as ``(shape[0], -1)``; its rows (or columns, whichever are fewer)
    are orthonormal (Saxe et al., 2013). The QR decomposition runs on the host.

    Args:
        tensor: the tensor to fill in place (under ``no_grad``).
        gain: a scaling factor. Default: ``1.0``.
        generator: the random generator to draw from. Default: ``None`` (the default one).

    Returns:
        ``tensor``.

    Raises:
        ValueError: if ``tensor`` has fewer than 2 dims.

    Examples:
        >>> import ember
        >>> _ = ember.manual_seed(0)
        >>> w = ember.nn.init.orthogonal_(ember.empty(3, 5))
        >>> ember.allclose(w @ w.T, ember.eye(3), atol=1e-6)
        True
    """
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if tensor.numel() == 0:
        return tensor
    rows = tensor.shape[0]
    cols = tensor.numel() // rows
    with no_grad():
        flat = ember.empty(rows, cols, dtype=ember.float64).normal_(0.0, 1.0, generator=generator)
        m = flat.numpy()
        if rows < cols:
            m = m.T
        q, r = np.linalg.qr(m)
        q = q * np.sign(np.diag(r))
        if rows < cols:
            q = q.T
        host = ember.from_numpy(np.ascontiguousarray(q * gain).reshape(tensor.shape))
        return tensor.copy_(host.to(dtype=tensor.dtype, device=tensor.device))


def dirac_(tensor: Tensor, groups: int = 1) -> Tensor:
    """Fill a 3-, 4- or 5-d convolution weight with the Dirac delta (identity convolution).

    Input channel ``i`` maps to output channel ``i`` (within each of ``groups`` groups), so
    a convolution with this weight copies its input.

    Args:
        tensor: a ``(C_out, C_in, *kernel)`` weight with 1 to 3 spatial dims.
        groups: the number of groups of the convolution. Default: ``1``.

    Returns:
        ``tensor``.

    Raises:
        ValueError: if ``tensor`` is not 3- to 5-d, or ``groups`` does not divide ``C_out``.

    Examples:
        >>> import ember
        >>> w = ember.nn.init.dirac_(ember.empty(2, 2, 3))
        >>> w[:, :, 1].tolist()
        [[1.0, 0.0], [0.0, 1.0]]
    """
    if tensor.ndim not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    out_channels = tensor.shape[0]
    if out_channels % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    per_group = out_channels // groups
    n = min(per_group, tensor.shape[1])
    pattern = np.zeros(tuple(tensor.shape), dtype=np.float64)
    centre = tuple(s // 2 for s in tensor.shape[2:])
    rows = (np.arange(groups)[:, None] * per_group + np.arange(n)[None, :]).reshape(-1)
    cols = np.tile(np.arange(n), groups)
    pattern[(rows, cols, *centre)] = 1.0
    with no_grad():
        host = ember.from_numpy(pattern).to(dtype=tensor.dtype, device=tensor.device)
        return tensor.copy_(host)


def sparse_(
    tensor: Tensor, sparsity: float, std: float = 0.01, generator: Generator | None = None
) -> Tensor:
    """N(0, std) with a fraction ``sparsity`` of each column set to zero (2-d tensors).

    Args:
        tensor: a 2-d tensor to fill in place.
        sparsity: the fraction of each column set to zero.
        std: the standard deviation of the non-zero values. Default: ``0.01``.
        generator: the random generator to draw from. Default: ``None`` (the default one).

    Returns:
        ``tensor``.

    Raises:
        ValueError: if ``tensor`` is not 2-d.

    Examples:
        >>> import ember
        >>> w = ember.nn.init.sparse_(ember.empty(4, 3), 0.5)
        >>> (w == 0).sum(0).tolist()
        [2, 2, 2]
    """
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    with no_grad():
        tensor.normal_(0, std, generator=generator)
        if num_zeros:
            keys = ember.empty(rows, cols, device=tensor.device).uniform_(0, 1, generator=generator)
            zero_rows = keys.argsort(0)[:num_zeros]
            tensor.scatter_(0, zero_rows, 0.0)
    return tensor


def _deprecated(new: Callable[..., Tensor], example_args: str) -> Callable[..., Tensor]:
    old = new.__name__[:-1]

    def alias(*args: Any, **kwargs: Any) -> Tensor:
        warnings.warn(
            f"`nn.init.{old}` is now deprecated in favor of `nn.init.{new.__name__}`.",
            FutureWarning,
            stacklevel=2,
        )
        return new(*args, **kwargs)

    alias.__name__ = alias.__qualname__ = old
    alias.__doc__ = f"""Deprecated alias of ``{new.__name__}``: the same, with a ``FutureWarning``.

    Examples:
        >>> import warnings
        >>> import ember
        >>> with warnings.catch_warnings(record=True) as caught:
        ...     warnings.simplefilter("always")
        ...     _ = ember.nn.init.{old}({example_args})
        >>> caught[0].category.__name__
        'FutureWarning'
    """
    return alias


uniform = _deprecated(uniform_, "ember.empty(2)")
normal = _deprecated(normal_, "ember.empty(2)")
constant = _deprecated(constant_, "ember.empty(2), 0.5")
eye = _deprecated(eye_, "ember.empty(2, 2)")
dirac = _deprecated(dirac_, "ember.empty(2, 2, 3)")
xavier_uniform = _deprecated(xavier_uniform_, "ember.empty(2, 3)")
xavier_normal = _deprecated(xavier_normal_, "ember.empty(2, 3)")
kaiming_uniform = _deprecated(kaiming_uniform_, "ember.empty(2, 3)")
kaiming_normal = _deprecated(kaiming_normal_, "ember.empty(2, 3)")
orthogonal = _deprecated(orthogonal_, "ember.empty(2, 3)")
sparse = _deprecated(sparse_, "ember.empty(4, 3), 0.5")
