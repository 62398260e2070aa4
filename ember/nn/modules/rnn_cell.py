"""Recurrent cells: RNNCell, LSTMCell, GRUCell (one time step, PyTorch's parameter names).

Also the step functions the recurrent layers (``ember.nn.modules.rnn``) run at each
time step, so a cell and a one-step layer compute the same thing, and the two autograd
Functions that split and join per-step tensors. Every parameter starts as
U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
"""

from __future__ import annotations

import math
from typing import Any

import ember
from ember.autograd.function import Function
from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]


class _Pieces(Function):
    """``x.unbind(0)`` (``chunks=0``) or ``x.chunk(chunks, -1)`` whose backward is ONE
    ``stack``/``cat`` of the pieces' gradients.

    Why: the core differentiates each view separately, writing every piece's
    gradient into a zero tensor of the whole input's size and summing them, which
    makes a T-step time loop cost O(T^2) memory traffic in backward.
    """

    @staticmethod
    def forward(ctx: Any, x: Tensor, chunks: int) -> tuple[Tensor, ...]:
        ctx.chunks = chunks
        return tuple(x.unbind(0) if chunks == 0 else x.chunk(chunks, -1))

    @staticmethod
    def backward(ctx: Any, *grads: Tensor) -> tuple[Tensor, None]:
        if ctx.chunks == 0:
            return _Join.apply(0, *grads), None
        return _Join.apply(-1, *grads), None


class _Join(Function):
    """``stack(xs, 0)`` (``dim=0``) or ``cat(xs, -1)`` whose backward is views of the gradient.

    Why: the core builds stack/cat by copying into slices of one output, so autograd
    records one slice-copy node per piece and each of them rewrites a buffer of the whole
    output in backward: O(T^2) for the T steps of a sequence.
    """

    @staticmethod
    def forward(ctx: Any, dim: int, *xs: Tensor) -> Tensor:
        ctx.dim = dim
        ctx.sizes = [x.shape[-1] for x in xs]
        return ember.stack(list(xs), 0) if dim == 0 else ember.cat(list(xs), -1)

    @staticmethod
    def backward(ctx: Any, g: Tensor) -> tuple[Any, ...]:
        if ctx.dim == 0:
            return (None, *_Pieces.apply(g, 0))
        return (None, *g.split(ctx.sizes, -1))


# The cells take the hidden-to-hidden weights already transposed (``w_hh.t()``, made once per
# sequence): a per-step ``.t()`` view would send every step's gradient through a zero-filled
# buffer of the weight's size in the core's view backward.


def _hh(h: Tensor, w_hh_t: Tensor, b_hh: Tensor | None) -> Tensor:
    out = h.matmul(w_hh_t)
    return out + b_hh if b_hh is not None else out


def _rnn_cell(
    x_proj: Tensor, h: Tensor, w_hh_t: Tensor, b_hh: Tensor | None, relu: bool
) -> Tensor:  # fmt: skip
    pre = x_proj + _hh(h, w_hh_t, b_hh)
    return pre.relu() if relu else pre.tanh()


def _gru_cell(x_proj: Tensor, h: Tensor, w_hh_t: Tensor, b_hh: Tensor | None) -> Tensor:
    i_r, i_z, i_n = _Pieces.apply(x_proj, 3)
    h_r, h_z, h_n = _Pieces.apply(_hh(h, w_hh_t, b_hh), 3)
    r = (i_r + h_r).sigmoid()
    z = (i_z + h_z).sigmoid()
    n = (i_n + r * h_n).tanh()
    return n + z * (h - n)  # (1 - z) * n + z * h


def _lstm_cell(
    x_proj: Tensor, h: Tensor, c: Tensor, w_hh_t: Tensor, b_hh: Tensor | None,
    w_hr_t: Tensor | None,
) -> tuple[Tensor, Tensor]:  # fmt: skip
    i, f, g, o = _Pieces.apply(x_proj + _hh(h, w_hh_t, b_hh), 4)
    c = f.sigmoid() * c + i.sigmoid() * g.tanh()
    h = o.sigmoid() * c.tanh()
    if w_hr_t is not None:
        h = h.matmul(w_hr_t)
    return h, c


class RNNCellBase(Module):
    """Base class of ``RNNCell``, ``LSTMCell`` and ``GRUCell``: their parameters and checks.

    Holds ``weight_ih`` ``(G * hidden_size, input_size)``, ``weight_hh``
    ``(G * hidden_size, hidden_size)`` and, with ``bias``, ``bias_ih`` and ``bias_hh``
    ``(G * hidden_size,)``, where ``G`` is the number of gates (``num_chunks``): 1, 4 or 3.
    All are initialised from ``U(-k, k)``, ``k = 1 / sqrt(hidden_size)``.

    Args:
        input_size: the number of input features.
        hidden_size: the number of hidden features.
        bias: learn the biases.
        num_chunks: ``G``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> cell = ember.nn.LSTMCell(3, 4)
        >>> isinstance(cell, ember.nn.RNNCellBase), cell.weight_ih.shape
        (True, ember.Size([16, 3]))
    """

    _name = "RNNCell"

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool, num_chunks: int,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = {"device": device, "dtype": dtype}
        self.weight_ih = Parameter(ember.empty(num_chunks * hidden_size, input_size, **kw))
        self.weight_hh = Parameter(ember.empty(num_chunks * hidden_size, hidden_size, **kw))
        if bias:
            self.bias_ih = Parameter(ember.empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(ember.empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        """Draw every weight and bias again from ``U(-k, k)``, ``k = 1 / sqrt(hidden_size)``."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    def _prepare(self, input: Tensor) -> tuple[Tensor, bool]:
        if input.ndim not in (1, 2):
            raise ValueError(
                f"{self._name}: Expected input to be 1D or 2D, got {input.ndim}D instead"
            )
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input has inconsistent input_size: got {input.shape[-1]} expected "
                f"{self.input_size}"
            )
        return (input.unsqueeze(0), True) if input.ndim == 1 else (input, False)

    def _state(self, x: Tensor, h: Tensor | None, unbatched: bool, index: int = 0) -> Tensor:
        if h is None:
            return ember.zeros(x.shape[0], self.hidden_size, dtype=x.dtype, device=x.device)
        if unbatched:
            h = h.unsqueeze(0)
        if h.shape[0] != x.shape[0]:
            raise RuntimeError(
                f"Input batch size {x.shape[0]} doesn't match hidden{index} batch size {h.shape[0]}"
            )
        if h.shape[-1] != self.hidden_size:
            raise RuntimeError(
                f"hidden{index} has inconsistent hidden_size: got {h.shape[-1]}, expected "
                f"{self.hidden_size}"
            )
        return h

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        nonlinearity = getattr(self, "nonlinearity", "tanh")
        if nonlinearity != "tanh":
            s += f", nonlinearity={nonlinearity}"
        return s


class RNNCell(RNNCellBase):
    """One step of an Elman RNN.

    ``h' = act(x @ weight_ih.T + bias_ih + h @ weight_hh.T + bias_hh)``, ``act`` being ``tanh``
    or ``relu``.

    Input: ``x`` of shape ``(N, input_size)`` or ``(input_size,)``; ``hx`` of shape
    ``(N, hidden_size)`` or ``(hidden_size,)``, zeros if omitted. Output: ``h'``, shaped like
    ``hx``.

    Args:
        input_size: the number of features of ``x``.
        hidden_size: the number of features of ``h``.
        bias: learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        nonlinearity: ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> ember.nn.RNNCell(3, 4)(ember.zeros(2, 3)).shape
        ember.Size([2, 4])
    """

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True, nonlinearity: str = "tanh",
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """Compute one step from ``input`` and ``hx`` (zeros if omitted); return ``h'``."""
        x, unbatched = self._prepare(input)
        h = self._state(x, hx, unbatched)
        xp = F.linear(x, self.weight_ih, self.bias_ih)
        out = _rnn_cell(xp, h, self.weight_hh.t(), self.bias_hh, self.nonlinearity == "relu")
        return out.squeeze(0) if unbatched else out


class GRUCell(RNNCellBase):
    """One step of a GRU.

    Computes the ``GRU`` update (see ``ember.nn.GRU``) for a single step.

    Input: ``x`` of shape ``(N, input_size)`` or ``(input_size,)``; ``hx`` of shape
    ``(N, hidden_size)`` or ``(hidden_size,)``, zeros if omitted. Output: ``h'``, shaped like
    ``hx``.

    Args:
        input_size: the number of features of ``x``.
        hidden_size: the number of features of ``h``.
        bias: learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> ember.nn.GRUCell(3, 4)(ember.zeros(2, 3)).shape
        ember.Size([2, 4])
    """

    _name = "GRUCell"

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input: Tensor, hx: Tensor | None = None) -> Tensor:
        """Compute one step from ``input`` and ``hx`` (zeros if omitted); return ``h'``."""
        x, unbatched = self._prepare(input)
        h = self._state(x, hx, unbatched)
        out = _gru_cell(
            F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh.t(), self.bias_hh
        )
        return out.squeeze(0) if unbatched else out


class LSTMCell(RNNCellBase):
    """One step of an LSTM; returns ``(h', c')``.

    Computes the ``LSTM`` update (see ``ember.nn.LSTM``) for a single step.

    Input: ``x`` of shape ``(N, input_size)`` or ``(input_size,)``; ``hx``, a pair ``(h, c)``
    of shape ``(N, hidden_size)`` or ``(hidden_size,)``, zeros if omitted. Output:
    ``(h', c')``, shaped like ``h`` and ``c``.

    Args:
        input_size: the number of features of ``x``.
        hidden_size: the number of features of ``h``.
        bias: learn ``bias_ih`` and ``bias_hh``. Default: ``True``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

    Examples:
        >>> import ember
        >>> h, c = ember.nn.LSTMCell(3, 4)(ember.zeros(2, 3))
        >>> h.shape, c.shape
        (ember.Size([2, 4]), ember.Size([2, 4]))
    """

    _name = "LSTMCell"

    def __init__(
        self, input_size: int, hidden_size: int, bias: bool = True,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, Tensor]:
        """Compute one step from ``input`` and ``hx = (h, c)``; return ``(h', c')``.

        ``hx`` defaults to zeros.
        """
        x, unbatched = self._prepare(input)
        h0, c0 = (None, None) if hx is None else hx
        h = self._state(x, h0, unbatched, 0)
        c = self._state(x, c0, unbatched, 1)
        xp = F.linear(x, self.weight_ih, self.bias_ih)
        h, c = _lstm_cell(xp, h, c, self.weight_hh.t(), self.bias_hh, None)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)
