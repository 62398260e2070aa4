"""The time loops of ``nn.RNN``, ``nn.GRU`` and ``nn.LSTM``, each one autograd node per layer.

What this owns: for one layer and direction, given the input projection of the whole
sequence (``pre``, ``(T, N, G * H)``: ``x @ W_ih.T + b_ih``, plus ``b_hh`` where it adds
outside the gates), the loop over time steps and its hand-written backward
(Note [Recurrent sequence node]). The functions return ``(out, h_n)`` (``(out, h_n,
c_n)`` for an LSTM), ``out`` being ``(T, N, H_out)`` in time order.

What must hold: results and gradients equal the step-by-step composition's (the cells
in ``ember.nn.modules.rnn_cell``) within rounding; everything is ember operators, so
every device runs it and ``ember.compile`` captures it.

Note [Recurrent sequence node]
    Recorded op by op, a GRU step is about fourteen autograd nodes and its backward
    twice as many operators, each paying dispatch and recording for (N, H)-sized work;
    the core's view backward also writes every per-step slice's gradient into a buffer of
    the whole input's size. Instead, ``forward`` runs the loop without recording, copying
    what backward needs (gate activations, states) into (T, N, *) buffers, and
    ``backward`` walks time in reverse with only the truly sequential work per step: the
    incoming gradient plus a product with ``W_hh``. Everything that does not depend on
    the carry (gate derivatives, the weight gradient ``dW_hh = sum_t dG_t^T h_{t-1}``, the
    bias gradient, the gradient of ``pre``) is computed for all steps at once before or
    after the loop, the way cuDNN-style implementations do. A double backward
    (``create_graph=True``) recomputes the loop with recording on and differentiates that,
    so second derivatives stay exact.
"""

from __future__ import annotations

from typing import Any

import ember
from ember.autograd.function import Function
from ember.core.tensor import Tensor

__all__: list[str] = []


def _needs_node(*tensors: Tensor | None) -> bool:
    return ember.is_grad_enabled() and any(t is not None and t.requires_grad for t in tensors)


def _order(steps: list[Any], reverse: bool) -> list[Any]:
    return steps[::-1] if reverse else steps


def _buffers(like: Tensor, steps: int, sizes: tuple[int, ...]) -> list[Tensor]:
    batch = like.shape[-2]
    return [ember.empty(steps, batch, s, dtype=like.dtype, device=like.device) for s in sizes]


def _steps(buffer: Tensor, reverse: bool) -> list[Tensor]:
    """The (N, *) views of a (T, N, *) tensor in the order the loop visits them."""
    return _order(list(buffer.unbind(0)), reverse)


def _stacked(hs: list[Tensor], h0: Tensor, reverse: bool) -> Tensor:
    if not hs:
        return h0.new_empty((0, *h0.shape))
    return ember.stack(_order(hs, reverse), 0)


def _previous(h0: Tensor, out: Tensor, reverse: bool) -> Tensor:
    """The state each step started from, in time order: ``h0`` then ``out`` shifted by one."""
    first = h0.unsqueeze(0)
    if reverse:
        return ember.cat([out[1:], first], 0)
    return ember.cat([first, out[:-1]], 0)


def _recompute_grads(
    loop: Any, args: tuple[Any, ...], tensors: list[Tensor | None], grads: tuple[Tensor, ...]
) -> list[Tensor | None]:
    """Gradients of the recorded ``loop``'s outputs w.r.t. ``tensors``, themselves
    differentiable: the double backward of a sequence node."""
    with ember.enable_grad():
        outs = loop(*args)
    wanted = [t for t in tensors if t is not None and t.requires_grad]
    found = iter(
        ember.autograd.grad(list(outs), wanted, list(grads), create_graph=True, allow_unused=True)
    )
    return [next(found) if t is not None and t.requires_grad else None for t in tensors]


# -- Elman RNN ---------------------------------------------------------------------------------


def _rnn_graph(pre: Tensor, h0: Tensor, w_hh: Tensor, relu: bool, reverse: bool) -> list[Tensor]:
    """The recorded loop (double backward): ``[out, h_n]``."""
    w_t, h, hs = w_hh.t(), h0, []
    for p in _steps(pre, reverse):
        a = p + h.mm(w_t)
        h = a.relu() if relu else a.tanh()
        hs.append(h)
    return [_stacked(hs, h0, reverse), h]


def _rnn_run(
    pre: Tensor, h0: Tensor, w_hh: Tensor, relu: bool, reverse: bool
) -> tuple[Tensor, Tensor]:  # fmt: skip
    (out,) = _buffers(h0, pre.shape[0], (h0.shape[-1],))
    outs, w_t, h = _steps(out, reverse), w_hh.t().contiguous(), h0
    for t, p in enumerate(_steps(pre, reverse)):
        h = h.mm(w_t).add_(p)
        h = h.relu_() if relu else h.tanh_()
        outs[t].copy_(h)
    return out, h


class _RNNSequence(Function):
    @staticmethod
    def forward(
        ctx: Any, pre: Tensor, h0: Tensor, w_hh: Tensor, relu: bool, reverse: bool
    ) -> tuple[Tensor, Tensor]:  # fmt: skip
        out, h_n = _rnn_run(pre, h0, w_hh, relu, reverse)
        ctx.flags = (relu, reverse)
        ctx.save_for_backward(pre, h0, w_hh, out)
        return out, h_n

    @staticmethod
    def backward(ctx: Any, g_out: Tensor, g_hn: Tensor) -> tuple[Any, ...]:
        pre, h0, w_hh, out = ctx.saved_tensors
        relu, reverse = ctx.flags
        if ember.is_grad_enabled():
            d = _recompute_grads(_rnn_graph, (pre, h0, w_hh, relu, reverse), [pre, h0, w_hh],
                                 (g_out, g_hn))  # fmt: skip
            return (*d, None, None)
        steps, batch, hidden = out.shape
        slope = (out > 0).to(out.dtype) if relu else 1 - out * out
        (d_pre,) = _buffers(out, steps, (hidden,))
        carry = g_hn
        g_steps, s_steps, d_steps = g_out.unbind(0), slope.unbind(0), d_pre.unbind(0)
        for t in _order(list(range(steps)), not reverse):
            d = g_steps[t] + carry
            d.mul_(s_steps[t])
            d_steps[t].copy_(d)
            carry = d.mm(w_hh)
        prev = _previous(h0, out, reverse)
        d_w = d_pre.view(steps * batch, hidden).t().mm(prev.reshape(steps * batch, hidden))
        return d_pre, carry, d_w, None, None


def rnn_sequence(
    pre: Tensor, h0: Tensor, w_hh: Tensor, relu: bool, reverse: bool
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """One Elman RNN layer over time: ``h_t = act(pre_t + h_{t-1} @ w_hh.T)``.

    ``pre`` already holds ``x @ W_ih.T + b_ih + b_hh``. Returns ``(out, h_n)``.
    """
    if _needs_node(pre, h0, w_hh):
        return _RNNSequence.apply(pre, h0, w_hh, relu, reverse)
    return _rnn_run(pre, h0, w_hh, relu, reverse)


# -- GRU ---------------------------------------------------------------------------------------


def _gru_graph(
    pre: Tensor, h0: Tensor, w_hh: Tensor, b_hh: Tensor | None, reverse: bool
) -> list[Tensor]:  # fmt: skip
    """The recorded loop (double backward): ``[out, h_n]``."""
    w_t, h, hs = w_hh.t(), h0, []
    for p in _steps(pre, reverse):
        gh = h.mm(w_t) if b_hh is None else h.mm(w_t) + b_hh
        i_r, i_z, i_n = p.chunk(3, 1)
        h_r, h_z, h_n = gh.chunk(3, 1)
        r, z = (i_r + h_r).sigmoid(), (i_z + h_z).sigmoid()
        n = (i_n + r * h_n).tanh()
        h = n + z * (h - n)
        hs.append(h)
    return [_stacked(hs, h0, reverse), h]


def _gru_run(
    pre: Tensor, h0: Tensor, w_hh: Tensor, b_hh: Tensor | None, reverse: bool, save: bool
) -> tuple[Tensor, Tensor, list[Tensor]]:  # fmt: skip
    """The loop unrecorded: ``(out, h_n, saved)``, saved = [sigmoid (r, z), n, W_hn h + b_hn]."""
    steps, hidden = pre.shape[0], h0.shape[-1]
    w_t = w_hh.t().contiguous()
    pre_rz = _steps(pre.narrow(2, 0, 2 * hidden), reverse)
    pre_n = _steps(pre.narrow(2, 2 * hidden, hidden), reverse)
    out, *saved = _buffers(h0, steps, (hidden, 2 * hidden, hidden, hidden)[: 4 if save else 1])
    outs = _steps(out, reverse)
    if save:
        rz_b, n_b, ghn_b = (_steps(b, reverse) for b in saved)
    h = h0
    for t in range(steps):
        gh = h.mm(w_t)
        if b_hh is not None:
            gh.add_(b_hh)
        rz = pre_rz[t] + gh.narrow(1, 0, 2 * hidden)
        rz.sigmoid_()
        ghn = gh.narrow(1, 2 * hidden, hidden)
        n = rz.narrow(1, 0, hidden) * ghn
        n.add_(pre_n[t])
        n.tanh_()
        h = h - n
        h.mul_(rz.narrow(1, hidden, hidden))
        h.add_(n)  # (1 - z) * n + z * h
        outs[t].copy_(h)
        if save:
            rz_b[t].copy_(rz)
            n_b[t].copy_(n)
            ghn_b[t].copy_(ghn)
    return out, h, saved


class _GRUSequence(Function):
    @staticmethod
    def forward(
        ctx: Any, pre: Tensor, h0: Tensor, w_hh: Tensor, b_hh: Tensor | None, reverse: bool
    ) -> tuple[Tensor, Tensor]:  # fmt: skip
        out, h_n, (rz, n, ghn) = _gru_run(pre, h0, w_hh, b_hh, reverse, save=True)
        ctx.reverse = reverse
        ctx.save_for_backward(pre, h0, w_hh, b_hh, out, rz, n, ghn)
        return out, h_n

    @staticmethod
    def backward(ctx: Any, g_out: Tensor, g_hn: Tensor) -> tuple[Any, ...]:
        pre, h0, w_hh, b_hh, out, rz, n, ghn = ctx.saved_tensors
        reverse = ctx.reverse
        if ember.is_grad_enabled():
            d = _recompute_grads(_gru_graph, (pre, h0, w_hh, b_hh, reverse),
                                 [pre, h0, w_hh, b_hh], (g_out, g_hn))  # fmt: skip
            return (*d, None)
        steps, batch, hidden = out.shape
        r, z = rz.narrow(2, 0, hidden), rz.narrow(2, hidden, hidden)
        prev = _previous(h0, out, reverse)
        # With d the gradient reaching h_t: dz = d*(h_prev - n), dn = d*(1 - z); the gate
        # pre-activations' gradients are d times these multipliers, free of the carry.
        one_minus_z = 1 - z
        b = one_minus_z * (1 - n * n)  # d(n pre-activation) / dh_t
        a = (prev - n) * z * one_minus_z  # d(z pre-activation) / dh_t
        c = b * ghn * r * (1 - r)  # d(r pre-activation) / dh_t
        m_hh = ember.stack([c, a, b * r], 2)  # (T, N, 3, H): gradient of h @ W_hh.T + b_hh
        d_all, d_gh = _buffers(out, steps, (hidden, 3 * hidden))
        d_gh3 = d_gh.view(steps, batch, 3, hidden)
        carry = g_hn
        g_steps, m_steps, z_steps = g_out.unbind(0), m_hh.unbind(0), z.unbind(0)
        d_steps, gh_steps, gh3_steps = d_all.unbind(0), d_gh.unbind(0), d_gh3.unbind(0)
        for t in _order(list(range(steps)), not reverse):
            d = g_steps[t] + carry
            d_steps[t].copy_(d)
            gh3_steps[t].copy_(d.unsqueeze(1))
            gh3_steps[t].mul_(m_steps[t])
            carry = gh_steps[t].mm(w_hh)
            carry.add_(d.mul_(z_steps[t]))
        rows = d_gh.view(steps * batch, 3 * hidden)
        d_w = rows.t().mm(prev.reshape(steps * batch, hidden))
        d_b = rows.sum(0) if b_hh is not None else None
        d_gh3.select(2, 2).copy_(d_all * b)  # the input side's n gradient lacks the factor r
        return d_gh, carry, d_w, d_b, None


def gru_sequence(
    pre: Tensor, h0: Tensor, w_hh: Tensor, b_hh: Tensor | None, reverse: bool
) -> tuple[Tensor, Tensor]:  # fmt: skip
    """One GRU layer over time; ``pre`` holds ``x @ W_ih.T + b_ih``. Returns ``(out, h_n)``."""
    if _needs_node(pre, h0, w_hh, b_hh):
        return _GRUSequence.apply(pre, h0, w_hh, b_hh, reverse)
    return _gru_run(pre, h0, w_hh, b_hh, reverse, save=False)[:2]


# -- LSTM --------------------------------------------------------------------------------------


def _lstm_graph(
    pre: Tensor, h0: Tensor, c0: Tensor, w_hh: Tensor, w_hr: Tensor | None, reverse: bool
) -> list[Tensor]:  # fmt: skip
    """The recorded loop (double backward): ``[out, h_n, c_n]``."""
    w_t, h, c, hs = w_hh.t(), h0, c0, []
    for p in _steps(pre, reverse):
        i, f, g, o = (p + h.mm(w_t)).chunk(4, 1)
        c = f.sigmoid() * c + i.sigmoid() * g.tanh()
        h = o.sigmoid() * c.tanh()
        if w_hr is not None:
            h = h.mm(w_hr.t())
        hs.append(h)
    return [_stacked(hs, h0, reverse), h, c]


def _lstm_run(
    pre: Tensor, h0: Tensor, c0: Tensor, w_hh: Tensor, w_hr: Tensor | None, reverse: bool,
    save: bool,
) -> tuple[Tensor, Tensor, Tensor, list[Tensor]]:  # fmt: skip
    """The loop unrecorded: ``(out, h_n, c_n, saved)``, saved = [sigmoid of the gates (i, f,
    -, o), tanh(g), c_t, and with a projection the unprojected h_t]."""
    steps, hidden, out_size = pre.shape[0], c0.shape[-1], h0.shape[-1]
    w_t = w_hh.t().contiguous()
    w_hr_t = None if w_hr is None else w_hr.t().contiguous()
    sizes = (4 * hidden, hidden, hidden) + ((hidden,) if w_hr is not None else ())
    out, *saved = _buffers(c0, steps, (out_size, *sizes) if save else (out_size,))
    outs, pres = _steps(out, reverse), _steps(pre, reverse)
    if save:
        s_b, g_b, c_b, *hr_b = (_steps(b, reverse) for b in saved)
    h, c = h0, c0
    for t in range(steps):
        gates = h.mm(w_t)
        gates.add_(pres[t])
        g = gates.narrow(1, 2 * hidden, hidden).tanh()
        s = gates.sigmoid_()  # the g slot is unused: one call instead of three
        if save:
            s_b[t].copy_(s)
            g_b[t].copy_(g)
        c = s.narrow(1, hidden, hidden) * c
        c.add_(g.mul_(s.narrow(1, 0, hidden)))
        h = c.tanh()
        h.mul_(s.narrow(1, 3 * hidden, hidden))
        if save:
            c_b[t].copy_(c)
            if hr_b:
                hr_b[0][t].copy_(h)
        if w_hr_t is not None:
            h = h.mm(w_hr_t)
        outs[t].copy_(h)
    return out, h, c, saved


class _LSTMSequence(Function):
    @staticmethod
    def forward(
        ctx: Any, pre: Tensor, h0: Tensor, c0: Tensor, w_hh: Tensor, w_hr: Tensor | None,
        reverse: bool,
    ) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
        out, h_n, c_n, (s, g, cs, *hr) = _lstm_run(pre, h0, c0, w_hh, w_hr, reverse, save=True)
        ctx.reverse = reverse
        ctx.save_for_backward(pre, h0, c0, w_hh, w_hr, out, s, g, cs, hr[0] if hr else None)
        return out, h_n, c_n

    @staticmethod
    def backward(ctx: Any, g_out: Tensor, g_hn: Tensor, g_cn: Tensor) -> tuple[Any, ...]:
        pre, h0, c0, w_hh, w_hr, out, s, g, cs, hr = ctx.saved_tensors
        reverse = ctx.reverse
        if ember.is_grad_enabled():
            d = _recompute_grads(_lstm_graph, (pre, h0, c0, w_hh, w_hr, reverse),
                                 [pre, h0, c0, w_hh, w_hr], (g_out, g_hn, g_cn))  # fmt: skip
            return (*d, None)
        steps, batch, hidden = cs.shape
        out_size = out.shape[2]
        i, f, o = (s.narrow(2, k * hidden, hidden) for k in (0, 1, 3))
        c_prev = _previous(c0, cs, reverse)
        tc = cs.tanh()
        # With e the gradient reaching the (unprojected) h_t and k the one reaching c_t:
        # dc_t = k + e * o * (1 - tanh(c_t)^2); the gates' gradients are dc_t or e times
        # these multipliers, free of the carry.
        q = o * (1 - tc * tc)
        m_ifg = ember.stack([g * i * (1 - i), c_prev * f * (1 - f), i * (1 - g * g)], 2)
        m_o = tc * o * (1 - o)
        projected = (out_size,) if hr is not None else ()
        d_pre, *dh_all = _buffers(cs, steps, (4 * hidden, *projected))
        d_ifg = d_pre.view(steps, batch, 4, hidden).narrow(2, 0, 3).unbind(0)
        d_o = d_pre.narrow(2, 3 * hidden, hidden).unbind(0)
        carry_h, carry_c = g_hn, g_cn
        g_steps, q_steps, f_steps = g_out.unbind(0), q.unbind(0), f.unbind(0)
        mifg_steps, mo_steps = m_ifg.unbind(0), m_o.unbind(0)
        dp_steps = d_pre.unbind(0)
        dh_steps = dh_all[0].unbind(0) if dh_all else []
        for t in _order(list(range(steps)), not reverse):
            e = g_steps[t] + carry_h
            if w_hr is not None:
                dh_steps[t].copy_(e)
                e = e.mm(w_hr)
            dc = e * q_steps[t]
            dc.add_(carry_c)
            d_ifg[t].copy_(dc.unsqueeze(1))
            d_ifg[t].mul_(mifg_steps[t])
            d_o[t].copy_(e)
            d_o[t].mul_(mo_steps[t])
            carry_h = dp_steps[t].mm(w_hh)
            carry_c = dc.mul_(f_steps[t])
        rows = steps * batch
        prev = _previous(h0, out, reverse)
        d_w = d_pre.view(rows, 4 * hidden).t().mm(prev.reshape(rows, out_size))
        d_wr = None
        if w_hr is not None:
            d_wr = dh_all[0].view(rows, out_size).t().mm(hr.view(rows, hidden))
        return d_pre, carry_h, carry_c, d_w, d_wr, None


def lstm_sequence(
    pre: Tensor, h0: Tensor, c0: Tensor, w_hh: Tensor, w_hr: Tensor | None, reverse: bool
) -> tuple[Tensor, Tensor, Tensor]:  # fmt: skip
    """One LSTM layer over time; ``pre`` holds ``x @ W_ih.T + b_ih + b_hh``.

    Returns ``(out, h_n, c_n)``; with ``w_hr`` each ``h_t`` is projected by it.
    """
    if _needs_node(pre, h0, c0, w_hh, w_hr):
        return _LSTMSequence.apply(pre, h0, c0, w_hh, w_hr, reverse)
    return _lstm_run(pre, h0, c0, w_hh, w_hr, reverse, save=False)[:3]
