# mypy: disable-error-code="operator, attr-defined, return-value, arg-type"
# (Tensor dunders are bound from ops.yaml at import time, so mypy cannot see them.)
"""Recurrent layers: RNN (tanh/relu), LSTM (with ``proj_size``), GRU and their cells.

Everything is written in ember operators (``F.linear``, ``sigmoid``, ``tanh``,
``chunk``, ``stack``), so autograd differentiates through the time loop. The
input projection of a whole sequence is one matrix product per layer and
direction; only the hidden-state product runs per time step.

What must hold, so that a PyTorch ``state_dict`` loads unchanged:

* parameter names and order are PyTorch's: per layer ``k`` and direction
  (suffix ``""`` or ``"_reverse"``) ``weight_ih_l{k}``, ``weight_hh_l{k}``,
  ``bias_ih_l{k}``, ``bias_hh_l{k}`` and, for an LSTM with projections,
  ``weight_hr_l{k}``;
* gate order in the stacked weights: LSTM (i, f, g, o), GRU (r, z, n) with
  ``n = tanh(W_in x + b_in + r * (W_hn h + b_hn))``;
* every parameter starts as U(-1/sqrt(hidden_size), 1/sqrt(hidden_size)).
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import ember
from ember.autograd.function import Function
from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.modules.module import Module
from ember.nn.parameter import Parameter

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


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


class RNNBase(Module):
    """The shared machinery of RNN, LSTM and GRU: parameters, checks and the layer loop."""

    def __init__(
        self, mode: str, input_size: int, hidden_size: int, num_layers: int = 1,
        bias: bool = True, batch_first: bool = False, dropout: float = 0.0,
        bidirectional: bool = False, proj_size: int = 0, device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__()
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        if (
            not isinstance(dropout, numbers.Number)
            or isinstance(dropout, bool)
            or not 0 <= dropout <= 1
        ):
            raise ValueError(
                "dropout should be a number in range [0, 1] representing the probability of an "
                "element being zeroed"
            )
        if dropout > 0 and num_layers == 1:
            warnings.warn(
                "dropout option adds dropout after all but last recurrent layer, so non-zero "
                f"dropout expects num_layers greater than 1, but got dropout={dropout} and "
                f"num_layers={num_layers}",
                stacklevel=2,
            )
        if not isinstance(hidden_size, int) or isinstance(hidden_size, bool):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size < 0:
            raise ValueError(
                "proj_size should be a positive integer or zero to disable projections"
            )
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if proj_size and mode != "LSTM":
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        directions = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        gate_size = _GATES[mode] * hidden_size
        kw = {"device": device, "dtype": dtype}
        self._flat_weights_names: list[str] = []
        for layer in range(num_layers):
            layer_in = input_size if layer == 0 else real_hidden * directions
            for suffix in ("", "_reverse")[:directions]:
                shapes = [
                    (f"weight_ih_l{layer}{suffix}", (gate_size, layer_in)),
                    (f"weight_hh_l{layer}{suffix}", (gate_size, real_hidden)),
                ]
                if bias:
                    shapes.append((f"bias_ih_l{layer}{suffix}", (gate_size,)))
                    shapes.append((f"bias_hh_l{layer}{suffix}", (gate_size,)))
                if proj_size > 0:
                    shapes.append((f"weight_hr_l{layer}{suffix}", (proj_size, hidden_size)))
                for name, shape in shapes:
                    self.register_parameter(name, Parameter(ember.empty(shape, **kw)))
                    self._flat_weights_names.append(name)
        self.reset_parameters()

    def reset_parameters(self) -> None:
        stdv = 1.0 / math.sqrt(self.hidden_size)
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def all_weights(self) -> list[list[Parameter]]:
        """The parameters grouped per layer and direction, as PyTorch's ``all_weights``."""
        per = 2 + 2 * self.bias + (self.proj_size > 0)
        names = self._flat_weights_names
        return [[getattr(self, n) for n in names[i : i + per]] for i in range(0, len(names), per)]

    def _weights(self, layer: int, suffix: str) -> tuple[Tensor, Tensor, Any, Any, Any]:
        def get(kind: str) -> Any:
            return getattr(self, f"{kind}_l{layer}{suffix}", None)

        return get("weight_ih"), get("weight_hh"), get("bias_ih"), get("bias_hh"), get("weight_hr")

    # -- checks -------------------------------------------------------------------------------

    def _check_input(self, input: Tensor) -> None:
        if input.shape[-1] != self.input_size:
            raise RuntimeError(
                f"input.size(-1) must be equal to input_size. Expected {self.input_size}, "
                f"got {input.shape[-1]}"
            )

    def _expected_hidden(self, batch: int, cell: bool = False) -> tuple[int, int, int]:
        directions = 2 if self.bidirectional else 1
        size = self.hidden_size if cell or self.proj_size == 0 else self.proj_size
        return (self.num_layers * directions, batch, size)

    @staticmethod
    def _check_hidden(hx: Tensor, expected: tuple[int, ...], what: str) -> None:
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    def _prepare(self, input: Tensor) -> tuple[Tensor, bool]:
        """Return the input as (T, N, F) and whether it was unbatched."""
        name = {"RNN_TANH": "RNN", "RNN_RELU": "RNN"}.get(self.mode, self.mode)
        if input.ndim not in (2, 3):
            tail = " tensor" if name == "RNN" else ""
            raise ValueError(
                f"{name}: Expected input to be 2D or 3D, got {input.ndim}D{tail} instead"
            )
        self._check_input(input)
        if input.ndim == 2:
            return input.unsqueeze(1), True
        return (input.transpose(0, 1) if self.batch_first else input), False

    # -- the layer loop -----------------------------------------------------------------------

    def _run(self, x: Tensor, states: list[tuple[Tensor, ...]]) -> tuple[Tensor, list[Any]]:
        """Run every layer over ``x`` (T, N, F); ``states[l*D+d]`` is that direction's state."""
        directions = 2 if self.bidirectional else 1
        finals: list[Any] = []
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                x = F.dropout(x, self.dropout, True)
            outs = []
            for d, suffix in enumerate(("", "_reverse")[:directions]):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, suffix)
                proj = F.linear(x, w_ih, b_ih)
                if b_hh is not None and self.mode != "GRU":
                    # Outside the loop: one add and one bias reduction instead of one per step.
                    # (GRU's b_hn sits inside r * (W_hn h + b_hn), so it stays in the cell.)
                    proj, b_hh = proj + b_hh, None
                steps = _Pieces.apply(proj, 0)
                w_hh_t = w_hh.t()
                w_hr_t = w_hr.t() if w_hr is not None else None
                if d == 1:
                    steps = steps[::-1]
                state = states[layer * directions + d]
                seq = []
                for xp in steps:
                    if self.mode == "LSTM":
                        state = _lstm_cell(xp, state[0], state[1], w_hh_t, b_hh, w_hr_t)
                    elif self.mode == "GRU":
                        state = (_gru_cell(xp, state[0], w_hh_t, b_hh),)
                    else:
                        state = (_rnn_cell(xp, state[0], w_hh_t, b_hh, self.mode == "RNN_RELU"),)
                    seq.append(state[0])
                if d == 1:
                    seq.reverse()
                outs.append(_Join.apply(0, *seq))
                finals.append(state)
            x = outs[0] if directions == 1 else _Join.apply(-1, *outs)
        return x, finals

    def _zeros(self, like: Tensor, shape: tuple[int, ...]) -> Tensor:
        return ember.zeros(shape, dtype=like.dtype, device=like.device)

    def _finish(self, out: Tensor, unbatched: bool) -> Tensor:
        if unbatched:
            return out.squeeze(1)
        return out.transpose(0, 1) if self.batch_first else out

    def extra_repr(self) -> str:
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size != 0:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s


class _SingleStateRNN(RNNBase):
    """RNN and GRU: one state tensor ``h`` of shape (num_layers * D, N, H)."""

    def forward(self, input: Tensor, hx: Tensor | None = None) -> tuple[Tensor, Tensor]:
        x, unbatched = self._prepare(input)
        batch = x.shape[1]
        if hx is not None:
            if unbatched and hx.ndim != 2:
                raise RuntimeError(
                    f"For unbatched 2-D input, hx should also be 2-D but got {hx.ndim}-D tensor"
                )
            if not unbatched and hx.ndim != 3:
                raise RuntimeError(
                    f"For batched 3-D input, hx should also be 3-D but got {hx.ndim}-D tensor"
                )
            if unbatched:
                hx = hx.unsqueeze(1)
            self._check_hidden(hx, self._expected_hidden(batch), "hidden")
        else:
            hx = self._zeros(x, self._expected_hidden(batch))
        out, finals = self._run(x, [(h,) for h in hx.unbind(0)])
        h_n = ember.stack([s[0] for s in finals], 0)
        return self._finish(out, unbatched), (h_n.squeeze(1) if unbatched else h_n)


class RNN(_SingleStateRNN):
    """Elman RNN: ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``, act tanh or relu.

    Examples:
        >>> import ember
        >>> rnn = ember.nn.RNN(3, 4, num_layers=2)
        >>> out, h = rnn(ember.zeros(5, 2, 3))
        >>> out.shape, h.shape
        (ember.Size([5, 2, 4]), ember.Size([2, 2, 4]))
    """

    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1,
        nonlinearity: str = "tanh", bias: bool = True, batch_first: bool = False,
        dropout: float = 0.0, bidirectional: bool = False, device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(
                f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or 'relu'."
            )
        mode = "RNN_TANH" if nonlinearity == "tanh" else "RNN_RELU"
        super().__init__(
            mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
            bidirectional, device=device, dtype=dtype,
        )  # fmt: skip
        self.nonlinearity = nonlinearity


class GRU(_SingleStateRNN):
    """Gated recurrent unit, gates (r, z, n) stacked in that order.

    Examples:
        >>> import ember
        >>> gru = ember.nn.GRU(3, 4, batch_first=True, bidirectional=True)
        >>> out, h = gru(ember.zeros(2, 5, 3))
        >>> out.shape, h.shape
        (ember.Size([2, 5, 8]), ember.Size([2, 2, 4]))
    """

    def __init__(
        self, input_size: int, hidden_size: int, num_layers: int = 1, bias: bool = True,
        batch_first: bool = False, dropout: float = 0.0, bidirectional: bool = False,
        device: Any = None, dtype: Any = None,
    ) -> None:  # fmt: skip
        super().__init__(
            "GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
            bidirectional, device=device, dtype=dtype,
        )  # fmt: skip


class LSTM(RNNBase):
    """Long short-term memory, gates (i, f, g, o) stacked in that order; ``proj_size`` supported.

    Examples:
        >>> import ember
        >>> lstm = ember.nn.LSTM(3, 4, num_layers=2)
        >>> out, (h, c) = lstm(ember.zeros(5, 2, 3))
        >>> out.shape, h.shape, c.shape
        (ember.Size([5, 2, 4]), ember.Size([2, 2, 4]), ember.Size([2, 2, 4]))
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__("LSTM", *args, **kwargs)

    def forward(
        self, input: Tensor, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Tensor, tuple[Tensor, Tensor]]:
        x, unbatched = self._prepare(input)
        batch = x.shape[1]
        if hx is not None:
            h0, c0 = hx
            if unbatched and (h0.ndim != 2 or c0.ndim != 2):
                raise RuntimeError(
                    "For unbatched 2-D input, hx and cx should also be 2-D but got "
                    f"({h0.ndim}-D, {c0.ndim}-D) tensors"
                )
            if not unbatched and (h0.ndim != 3 or c0.ndim != 3):
                raise RuntimeError(
                    "For batched 3-D input, hx and cx should also be 3-D but got "
                    f"({h0.ndim}-D, {c0.ndim}-D) tensors"
                )
            if unbatched:
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
            self._check_hidden(h0, self._expected_hidden(batch), "hidden[0]")
            self._check_hidden(c0, self._expected_hidden(batch, cell=True), "hidden[1]")
        else:
            h0 = self._zeros(x, self._expected_hidden(batch))
            c0 = self._zeros(x, self._expected_hidden(batch, cell=True))
        out, finals = self._run(x, list(zip(h0.unbind(0), c0.unbind(0))))
        h_n = ember.stack([s[0] for s in finals], 0)
        c_n = ember.stack([s[1] for s in finals], 0)
        if unbatched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return self._finish(out, unbatched), (h_n, c_n)


# -- cells ------------------------------------------------------------------------------------


class RNNCellBase(Module):
    """Parameters ``weight_ih`` (G*H, in), ``weight_hh`` (G*H, H), ``bias_ih``, ``bias_hh``."""

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
        x, unbatched = self._prepare(input)
        h = self._state(x, hx, unbatched)
        xp = F.linear(x, self.weight_ih, self.bias_ih)
        out = _rnn_cell(xp, h, self.weight_hh.t(), self.bias_hh, self.nonlinearity == "relu")
        return out.squeeze(0) if unbatched else out


class GRUCell(RNNCellBase):
    """One step of a GRU.

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
        x, unbatched = self._prepare(input)
        h = self._state(x, hx, unbatched)
        out = _gru_cell(
            F.linear(x, self.weight_ih, self.bias_ih), h, self.weight_hh.t(), self.bias_hh
        )
        return out.squeeze(0) if unbatched else out


class LSTMCell(RNNCellBase):
    """One step of an LSTM; returns ``(h', c')``.

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
        x, unbatched = self._prepare(input)
        h0, c0 = (None, None) if hx is None else hx
        h = self._state(x, h0, unbatched, 0)
        c = self._state(x, c0, unbatched, 1)
        xp = F.linear(x, self.weight_ih, self.bias_ih)
        h, c = _lstm_cell(xp, h, c, self.weight_hh.t(), self.bias_hh, None)
        return (h.squeeze(0), c.squeeze(0)) if unbatched else (h, c)
