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

A PackedSequence input runs padded with a per-step mask (a finished sample keeps
its state) and returns a PackedSequence with the input's batch sizes and indices.
"""

from __future__ import annotations

import math
import numbers
import warnings
from typing import Any

import numpy as np

import ember
from ember.core.tensor import Tensor
from ember.nn import functional as F
from ember.nn import init
from ember.nn.functional._rnn import gru_sequence, lstm_sequence, rnn_sequence
from ember.nn.modules.module import Module
from ember.nn.modules.rnn_cell import (
    GRUCell,
    LSTMCell,
    RNNCell,
    RNNCellBase,
    _gru_cell,
    _Join,
    _lstm_cell,
    _Pieces,
    _rnn_cell,
)
from ember.nn.parameter import Parameter
from ember.nn.utils.rnn import PackedSequence, _packed_data, pad_packed_sequence

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


def _time_permute(x: Tensor, flat_index: Tensor) -> Tensor:
    """Rows of ``x`` (T, N, *) picked by flat ``t * N + n`` indices, reshaped back to (T, N, *)."""
    steps, batch = x.shape[0], x.shape[1]
    flat = x.reshape(steps * batch, *x.shape[2:]).index_select(0, flat_index)
    return flat.reshape(steps, batch, *x.shape[2:])


class RNNBase(Module):
    """Base class of ``RNN``, ``LSTM`` and ``GRU``: their parameters, checks and layer loop.

    Parameters are named as in PyTorch: ``weight_ih_l{k}``, ``weight_hh_l{k}``,
    ``bias_ih_l{k}``, ``bias_hh_l{k}`` (and ``weight_hr_l{k}`` for an LSTM with
    ``proj_size``), with a ``_reverse`` suffix for the second direction; each is initialised
    from ``U(-k, k)``, ``k = 1 / sqrt(hidden_size)``. Use the subclasses.

    Args:
        mode: ``'RNN_TANH'``, ``'RNN_RELU'``, ``'LSTM'`` or ``'GRU'``.
        input_size: the number of features of ``x_t``.
        hidden_size: the number of features of ``h_t``.
        num_layers: the number of stacked layers, each fed the previous one's output.
            Default: ``1``.
        bias: learn the biases. Default: ``True``.
        batch_first: input and output are ``(N, L, *)`` instead of ``(L, N, *)`` (the
            states stay batch-second). Default: ``False``.
        dropout: dropout probability on the outputs of every layer but the last.
            Default: ``0.0``.
        bidirectional: add a reverse-direction pass and concatenate the outputs (``D = 2``).
            Default: ``False``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.
        proj_size: for ``'LSTM'``, project ``h_t`` to this many features (0: none).
            Default: ``0``.

    Raises:
        ValueError: for an unknown ``mode``, a ``dropout`` outside ``[0, 1]``, or a
            non-positive ``hidden_size`` or ``num_layers``.

    Examples:
        >>> import ember
        >>> rnn = ember.nn.RNNBase("GRU", 3, 4)
        >>> [name for name, _ in rnn.named_parameters()]
        ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0']
        >>> rnn.weight_ih_l0.shape  # 3 gates of 4
        ember.Size([12, 3])
    """

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
                shapes: list[tuple[str, tuple[int, ...]]] = [
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

    def flatten_parameters(self) -> None:
        """Do nothing: ember keeps no flat cuDNN weight buffer to compact.

        PyTorch scripts call it before every forward; it is accepted so they run unchanged.
        """

    def reset_parameters(self) -> None:
        """Draw every weight and bias again from ``U(-k, k)``, ``k = 1 / sqrt(hidden_size)``."""
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

    def _unpack(self, input: Any) -> tuple[Tensor, bool, np.ndarray | None]:
        """(T, N, F) input, unbatched flag, and per-sample lengths for a PackedSequence."""
        if isinstance(input, PackedSequence):
            self._check_input(input.data)
            padded, lengths = pad_packed_sequence(input)
            return padded, False, np.asarray(lengths.tolist(), dtype=np.int64)
        x, unbatched = self._prepare(input)
        return x, unbatched, None

    @staticmethod
    def _repack(out: Tensor, input: PackedSequence) -> PackedSequence:
        """Pack the (T, N, H) output exactly like the PackedSequence ``input``."""
        data = _packed_data(out, input.batch_sizes, input.sorted_indices)
        return PackedSequence(data, input.batch_sizes, input.sorted_indices,
                              input.unsorted_indices)  # fmt: skip

    # -- the layer loop -----------------------------------------------------------------------

    def _run(
        self, x: Tensor, states: list[tuple[Tensor, ...]], lengths: np.ndarray | None = None
    ) -> tuple[Tensor, list[Any]]:
        """Run every layer over ``x`` (T, N, F); ``states[l*D+d]`` is that direction's state.

        With ``lengths`` (packed input, one per sample) a sample's state stops changing after
        its last step, and the reverse direction reads each sample backwards from its own
        last step (a per-sample time permutation, its own inverse).
        """
        directions = 2 if self.bidirectional else 1
        masks = rev = None
        if lengths is not None:
            steps_n, batch = x.shape[0], x.shape[1]
            valid = np.arange(steps_n)[:, None] < lengths[None, :]
            masks = [ember.from_numpy(m.reshape(batch, 1).copy()).to(x.device) for m in valid]
            t = np.arange(steps_n)[:, None]
            order = np.where(valid, lengths[None, :] - 1 - t, t) * batch + np.arange(batch)
            rev = ember.from_numpy(order.reshape(-1).astype(np.int64)).to(x.device)
        finals: list[Any] = []
        for layer in range(self.num_layers):
            if layer > 0 and self.dropout > 0 and self.training:
                x = F.dropout(x, self.dropout, True)
            outs = []
            for d, suffix in enumerate(("", "_reverse")[:directions]):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, suffix)
                if b_hh is not None and self.mode != "GRU":
                    # Into the input projection's bias: one add of two vectors instead of one
                    # per step. (GRU's b_hn sits inside r * (W_hn h + b_hn): it stays in the cell.)
                    b_ih, b_hh = b_ih + b_hh, None
                proj = F.linear(x, w_ih, b_ih)
                state = states[layer * directions + d]
                if masks is None:  # Note [Recurrent sequence node]: one node per layer
                    out, *final = self._sequence(proj, state, w_hh, b_hh, w_hr, d == 1)
                    outs.append(out)
                    finals.append(tuple(final))
                    continue
                if d == 1 and rev is not None:
                    proj = _time_permute(proj, rev)
                steps = _Pieces.apply(proj, 0)
                w_hh_t = w_hh.t()
                w_hr_t = w_hr.t() if w_hr is not None else None
                if d == 1 and rev is None:
                    steps = steps[::-1]
                seq = []
                for i, xp in enumerate(steps):
                    new: tuple[Tensor, ...]
                    if self.mode == "LSTM":
                        new = _lstm_cell(xp, state[0], state[1], w_hh_t, b_hh, w_hr_t)
                    elif self.mode == "GRU":
                        new = (_gru_cell(xp, state[0], w_hh_t, b_hh),)
                    else:
                        new = (_rnn_cell(xp, state[0], w_hh_t, b_hh, self.mode == "RNN_RELU"),)
                    if masks is not None:
                        new = tuple(ember.where(masks[i], n, o) for n, o in zip(new, state))
                    state = new
                    seq.append(state[0])
                if d == 1 and rev is None:
                    seq.reverse()
                out = _Join.apply(0, *seq)
                outs.append(_time_permute(out, rev) if d == 1 and rev is not None else out)
                finals.append(state)
            x = outs[0] if directions == 1 else _Join.apply(-1, *outs)
        return x, finals

    def _sequence(
        self, proj: Tensor, state: tuple[Tensor, ...], w_hh: Tensor, b_hh: Tensor | None,
        w_hr: Tensor | None, reverse: bool,
    ) -> tuple[Tensor, ...]:  # fmt: skip
        """One layer and direction over the whole sequence: ``(out, *final_state)``."""
        if self.mode == "LSTM":
            return lstm_sequence(proj, state[0], state[1], w_hh, w_hr, reverse)
        if self.mode == "GRU":
            return gru_sequence(proj, state[0], w_hh, b_hh, reverse)
        return rnn_sequence(proj, state[0], w_hh, self.mode == "RNN_RELU", reverse)

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

    def forward(self, input: Any, hx: Tensor | None = None) -> tuple[Any, Tensor]:
        """Run the sequence ``input`` from state ``hx``; return ``(output, h_n)``.

        ``hx`` defaults to zeros.
        """
        x, unbatched, lengths = self._unpack(input)
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
        out, finals = self._run(x, [(h,) for h in hx.unbind(0)], lengths)
        h_n = ember.stack([s[0] for s in finals], 0)
        if lengths is not None:
            return self._repack(out, input), h_n
        return self._finish(out, unbatched), (h_n.squeeze(1) if unbatched else h_n)


class RNN(_SingleStateRNN):
    """Elman RNN: ``h_t = act(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``, act tanh or relu.

    For each layer and step: ``h_t = act(x_t @ W_ih.T + b_ih + h_{t-1} @ W_hh.T + b_hh)``, where
    ``act`` is ``tanh`` or ``relu`` and ``x_t`` is the previous layer's ``h_t`` above the first
    layer.

    Input: ``x`` of shape ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``),
    ``(L, H_in)`` unbatched, or a ``PackedSequence``; ``hx`` of shape ``(D * num_layers, N, H_out)``
    optional, zeros by default.
    Output: ``(output, h_n)``: ``output`` is ``(L, N, D * H_out)``, the last layer's ``h_t``
    for every ``t``; ``h_n`` is ``(D * num_layers, N, H_out)``, the last step's state of
    every layer and direction.

    Args:
        input_size: the number of features of ``x_t``.
        hidden_size: the number of features of ``h_t``.
        num_layers: the number of stacked layers, each fed the previous one's output.
            Default: ``1``.
        nonlinearity: ``'tanh'`` or ``'relu'``. Default: ``'tanh'``.
        bias: learn ``b_ih`` and ``b_hh``. Default: ``True``.
        batch_first: input and output are ``(N, L, *)`` instead of ``(L, N, *)`` (the
            states stay batch-second). Default: ``False``.
        dropout: dropout probability on the outputs of every layer but the last.
            Default: ``0.0``.
        bidirectional: add a reverse-direction pass and concatenate the outputs (``D = 2``).
            Default: ``False``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

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

    For each layer and step, with ``r``, ``z``, ``n`` the reset, update and new gates::

        r = sigmoid(W_ir x + b_ir + W_hr h + b_hr)
        z = sigmoid(W_iz x + b_iz + W_hz h + b_hz)
        n = tanh(W_in x + b_in + r * (W_hn h + b_hn))
        h' = (1 - z) * n + z * h

    Input: ``x`` of shape ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``),
    ``(L, H_in)`` unbatched, or a ``PackedSequence``; ``hx`` of shape ``(D * num_layers, N, H_out)``
    optional, zeros by default.
    Output: ``(output, h_n)``: ``output`` is ``(L, N, D * H_out)``, the last layer's ``h_t``
    for every ``t``; ``h_n`` is ``(D * num_layers, N, H_out)``.

    Args:
        input_size: the number of features of ``x_t``.
        hidden_size: the number of features of ``h_t``.
        num_layers: the number of stacked layers, each fed the previous one's output.
            Default: ``1``.
        bias: learn the biases. Default: ``True``.
        batch_first: input and output are ``(N, L, *)`` instead of ``(L, N, *)`` (the
            states stay batch-second). Default: ``False``.
        dropout: dropout probability on the outputs of every layer but the last.
            Default: ``0.0``.
        bidirectional: add a reverse-direction pass and concatenate the outputs (``D = 2``).
            Default: ``False``.
        device: where to create the parameters. Default: the default device.
        dtype: their dtype. Default: the default dtype.

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

    For each layer and step, with input, forget, cell and output gates::

        i = sigmoid(W_ii x + b_ii + W_hi h + b_hi)
        f = sigmoid(W_if x + b_if + W_hf h + b_hf)
        g = tanh(W_ig x + b_ig + W_hg h + b_hg)
        o = sigmoid(W_io x + b_io + W_ho h + b_ho)
        c' = f * c + i * g
        h' = o * tanh(c')

    With ``proj_size > 0``, ``h'`` is further multiplied by ``weight_hr`` to ``proj_size``
    features (``H_out = proj_size``, else ``hidden_size``).

    Input: ``x`` of shape ``(L, N, H_in)`` (``(N, L, H_in)`` with ``batch_first``),
    ``(L, H_in)`` unbatched, or a ``PackedSequence``; ``(h_0, c_0)`` of shapes
    ``(D * num_layers, N, H_out)`` and ``(D * num_layers, N, hidden_size)``, zeros if
    omitted. Output: ``(output, (h_n, c_n))``: ``output`` is ``(L, N, D * H_out)``, the last
    layer's ``h_t`` for every ``t``; ``h_n`` and ``c_n`` are the last states, shaped like
    ``h_0`` and ``c_0``.

    Args:
        *args: ``input_size``, ``hidden_size``, ``num_layers=1``, ``bias=True``,
            ``batch_first=False``, ``dropout=0.0``, ``bidirectional=False``, ``proj_size=0``,
            ``device=None`` and ``dtype=None``, in PyTorch's order, as described for
            ``RNNBase`` (``proj_size`` projects ``h_t`` to that many features; 0: none).
        **kwargs: the same arguments by name.

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
        self, input: Any, hx: tuple[Tensor, Tensor] | None = None
    ) -> tuple[Any, tuple[Tensor, Tensor]]:
        """Run the sequence ``input`` from ``hx = (h_0, c_0)``; return ``(output, (h_n, c_n))``.

        ``hx`` defaults to zeros.
        """
        x, unbatched, lengths = self._unpack(input)
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
        out, finals = self._run(x, list(zip(h0.unbind(0), c0.unbind(0))), lengths)
        h_n = ember.stack([s[0] for s in finals], 0)
        c_n = ember.stack([s[1] for s in finals], 0)
        if lengths is not None:
            return self._repack(out, input), (h_n, c_n)
        if unbatched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return self._finish(out, unbatched), (h_n, c_n)
