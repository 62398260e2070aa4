"""L-BFGS with PyTorch's interface: ``step(closure)``, one parameter group, an optional
strong-Wolfe line search, and PyTorch's state names (``d``, ``t``, ``old_dirs``,
``old_stps``, ``ro``, ``H_diag``, ``prev_flat_grad``, ``prev_loss``, ``n_iter``,
``func_evals``) kept under the first parameter.

The parameters are handled as one flat vector (``ember.cat`` of the gradients); the
two-loop recursion and the line search work on it with tensor operators, so every
device runs them. Scalars (losses, slopes, step sizes) are Python floats.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

import ember
from ember.autograd.grad_mode import enable_grad, no_grad
from ember.optim.optimizer import Optimizer

__all__ = ["LBFGS"]

Evaluate = Callable[[float], tuple[float, Any]]


def _cubic_min(
    a: float, fa: float, ga: float, b: float, fb: float, gb: float,
    bounds: tuple[float, float] | None = None,
) -> float:  # fmt: skip
    """Minimiser of the cubic through (a, fa) and (b, fb) with slopes ga and gb, clipped to
    ``bounds`` (default: the interval between a and b); its midpoint if the cubic has none."""
    lo, hi = bounds if bounds is not None else (min(a, b), max(a, b))
    d1 = ga + gb - 3 * (fa - fb) / (a - b)
    disc = d1 * d1 - ga * gb
    if disc < 0:
        return (lo + hi) / 2
    d2 = math.sqrt(disc)
    if a <= b:
        x = b - (b - a) * ((gb + d2 - d1) / (gb - ga + 2 * d2))
    else:
        x = a - (a - b) * ((ga + d2 - d1) / (ga - gb + 2 * d2))
    return min(max(x, lo), hi)


def _strong_wolfe(
    evaluate: Evaluate, t: float, d: Any, f: float, g: Any, gtd: float,
    c1: float = 1e-4, c2: float = 0.9, tolerance_change: float = 1e-9, max_ls: int = 25,
) -> tuple[float, Any, float, int]:  # fmt: skip
    """Find a step ``t`` along ``d`` satisfying the strong Wolfe conditions: bracket, then zoom
    with cubic interpolation. Returns (loss, flat gradient, step, function evaluations)."""
    d_norm = float(d.abs().max().item())
    f_new, g_new = evaluate(t)
    evals, it = 1, 0
    gtd_new = float(g_new.dot(d).item())
    t_prev, f_prev, g_prev, gtd_prev = 0.0, f, g, gtd
    done = False
    # bracketing: ts, fs, gs, gtds are the two ends of an interval holding a good step
    while it < max_ls:
        armijo_fails = f_new > f + c1 * t * gtd or (it > 1 and f_new >= f_prev)
        if not armijo_fails and abs(gtd_new) <= -c2 * gtd:
            ts, fs, gs, gtds = [t], [f_new], [g_new], [gtd_new]
            done = True
            break
        if armijo_fails or gtd_new >= 0:
            ts, fs, gs, gtds = [t_prev, t], [f_prev, f_new], [g_prev, g_new], [gtd_prev, gtd_new]
            break
        t_next = _cubic_min(t_prev, f_prev, gtd_prev, t, f_new, gtd_new,
                            bounds=(t + 0.01 * (t - t_prev), t * 10))  # fmt: skip
        t_prev, f_prev, g_prev, gtd_prev = t, f_new, g_new, gtd_new
        t = t_next
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(g_new.dot(d).item())
        it += 1
    if it == max_ls:
        ts, fs, gs, gtds = [0.0, t], [f, f_new], [g, g_new], [gtd, gtd_new]
    # zoom: shrink the bracket; ``low`` is the end with the lower loss
    stalled = False
    low, high = (0, 1) if fs[0] <= fs[-1] else (1, 0)
    while not done and it < max_ls:
        if abs(ts[1] - ts[0]) * d_norm < tolerance_change:
            break
        t = _cubic_min(ts[0], fs[0], gtds[0], ts[1], fs[1], gtds[1])
        lo_t, hi_t = min(ts), max(ts)
        margin = 0.1 * (hi_t - lo_t)
        if min(hi_t - t, t - lo_t) < margin:
            # too close to an end: after one such step (or outside), move inside the margin
            if stalled or t >= hi_t or t <= lo_t:
                t = hi_t - margin if abs(t - hi_t) < abs(t - lo_t) else lo_t + margin
                stalled = False
            else:
                stalled = True
        else:
            stalled = False
        f_new, g_new = evaluate(t)
        evals += 1
        gtd_new = float(g_new.dot(d).item())
        it += 1
        if f_new > f + c1 * t * gtd or f_new >= fs[low]:
            ts[high], fs[high], gs[high], gtds[high] = t, f_new, g_new, gtd_new
            low, high = (0, 1) if fs[0] <= fs[1] else (1, 0)
        else:
            if abs(gtd_new) <= -c2 * gtd:
                done = True
            elif gtd_new * (ts[high] - ts[low]) >= 0:
                ts[high], fs[high], gs[high], gtds[high] = ts[low], fs[low], gs[low], gtds[low]
            ts[low], fs[low], gs[low], gtds[low] = t, f_new, g_new, gtd_new
    return fs[low], gs[low], ts[low], evals


class LBFGS(Optimizer):
    """L-BFGS: a quasi-Newton method that needs a closure recomputing the loss.

    Each :meth:`step` runs up to ``max_iter`` iterations: it estimates the inverse Hessian
    from the last ``history_size`` steps and gradient changes (the two-loop recursion),
    moves along that direction by ``lr`` (or by a step a strong-Wolfe line search
    finds), and stops early when the gradient or the change in loss gets small. All
    parameters are treated as one flat vector, so memory grows with
    ``history_size * numel``.

    Args:
        params: the parameters to optimize (a single group).
        lr: learning rate (the initial step of the line search). Default: 1.
        max_iter: most iterations per :meth:`step`. Default: 20.
        max_eval: most closure evaluations per :meth:`step`. Default: ``max_iter * 5 // 4``.
        tolerance_grad: stop when the largest gradient entry is at most this.
            Default: 1e-7.
        tolerance_change: stop when the loss or the parameters change by at most this.
            Default: 1e-9.
        history_size: how many past updates to keep. Default: 100.
        line_search_fn: None (fixed step ``lr``) or ``"strong_wolfe"``. Default: None.

    Raises:
        ValueError: ``lr`` is negative, or ``params`` holds several parameter groups.
        RuntimeError: ``line_search_fn`` is not None or ``"strong_wolfe"``.

    Note:
        As in PyTorch, the state is kept under the first parameter with PyTorch's
        names, so state dicts interchange. The closure runs with gradients enabled.

    Examples:
        >>> import ember
        >>> x = ember.nn.Parameter(ember.tensor([1.5, -0.5], dtype=ember.float64))
        >>> opt = ember.optim.LBFGS([x], line_search_fn="strong_wolfe")
        >>> def closure():
        ...     opt.zero_grad()
        ...     loss = ((x - ember.tensor([3.0, 2.0], dtype=ember.float64)) ** 2).sum()
        ...     loss.backward()
        ...     return loss
        >>> _ = opt.step(closure)
        >>> [round(v, 6) for v in x.tolist()]
        [3.0, 2.0]
    """

    def __init__(
        self, params: Any, lr: float = 1, max_iter: int = 20, max_eval: int | None = None,
        tolerance_grad: float = 1e-7, tolerance_change: float = 1e-9, history_size: int = 100,
        line_search_fn: str | None = None,
    ) -> None:  # fmt: skip
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if max_eval is None:
            max_eval = max_iter * 5 // 4
        if line_search_fn not in (None, "strong_wolfe"):
            raise RuntimeError("only 'strong_wolfe' is supported")
        defaults = dict(
            lr=lr, max_iter=max_iter, max_eval=max_eval, tolerance_grad=tolerance_grad,
            tolerance_change=tolerance_change, history_size=history_size,
            line_search_fn=line_search_fn,
        )  # fmt: skip
        super().__init__(params, defaults)
        if len(self.param_groups) != 1:
            raise ValueError("LBFGS doesn't support per-parameter options (parameter groups)")
        self._params = self.param_groups[0]["params"]

    # -- the parameters as one flat vector ------------------------------------------------------
    def _flat_grad(self) -> Any:
        parts = [
            p.new_zeros(p.numel()) if p.grad is None else p.grad.reshape(-1) for p in self._params
        ]
        return ember.cat(parts, 0)

    def _add_grad(self, step: float, direction: Any) -> None:
        offset = 0
        for p in self._params:
            n = p.numel()
            p.add_(direction[offset : offset + n].view_as(p), alpha=step)
            offset += n

    def _evaluator(self, closure: Callable[[], Any], d: Any) -> Evaluate:
        start = [p.clone() for p in self._params]

        def evaluate(t: float) -> tuple[float, Any]:
            self._add_grad(t, d)
            with enable_grad():
                loss = float(closure())
            g = self._flat_grad()
            for p, x in zip(self._params, start):
                p.copy_(x)
            return loss, g

        return evaluate

    def step(self, closure: Callable[[], Any] | None = None) -> Any:
        if closure is None:
            raise RuntimeError("LBFGS.step() requires a closure that reevaluates the model")
        with no_grad():
            return self._step(closure)

    def _step(self, closure: Callable[[], Any]) -> Any:  # noqa: C901 - one algorithm
        group = self.param_groups[0]
        lr, max_iter, max_eval = group["lr"], group["max_iter"], group["max_eval"]
        tol_grad, tol_change = group["tolerance_grad"], group["tolerance_change"]
        history = group["history_size"]
        state = self.state[self._params[0]]
        state.setdefault("func_evals", 0)
        state.setdefault("n_iter", 0)

        with enable_grad():
            orig_loss = closure()
        loss = float(orig_loss)
        evals = 1
        state["func_evals"] += 1
        g = self._flat_grad()
        if float(g.abs().max().item()) <= tol_grad:
            return orig_loss

        d: Any = state.get("d")
        t: Any = state.get("t")
        dirs: Any = state.get("old_dirs")
        steps: Any = state.get("old_stps")
        ro: Any = state.get("ro")
        h_diag: Any = state.get("H_diag")
        prev_g: Any = state.get("prev_flat_grad")
        prev_loss: Any = state.get("prev_loss")
        n_iter = 0
        while n_iter < max_iter:
            n_iter += 1
            state["n_iter"] += 1
            if state["n_iter"] == 1:
                d, dirs, steps, ro, h_diag = -g, [], [], [], 1.0
            else:
                y = g - prev_g
                s = d * t
                ys = float(y.dot(s).item())
                if ys > 1e-10:  # curvature condition: keep the pair
                    if len(dirs) == history:
                        dirs.pop(0), steps.pop(0), ro.pop(0)
                    dirs.append(y)
                    steps.append(s)
                    ro.append(1.0 / ys)
                    h_diag = ys / float(y.dot(y).item())
                # two-loop recursion: d = -H g
                q = -g
                alpha = [0.0] * len(dirs)
                for i in range(len(dirs) - 1, -1, -1):
                    alpha[i] = float(steps[i].dot(q).item()) * ro[i]
                    q.add_(dirs[i], alpha=-alpha[i])
                d = q.mul_(h_diag)
                for i in range(len(dirs)):
                    beta = float(dirs[i].dot(d).item()) * ro[i]
                    d.add_(steps[i], alpha=alpha[i] - beta)
            prev_g = g.clone()
            prev_loss = loss
            if state["n_iter"] == 1:
                t = min(1.0, 1.0 / float(g.abs().sum().item())) * lr
            else:
                t = lr
            gtd = float(g.dot(d).item())
            if gtd > -tol_change:  # not a descent direction
                break
            if group["line_search_fn"] is not None:
                loss, g, t, ls_evals = _strong_wolfe(
                    self._evaluator(closure, d), t, d, loss, g, gtd
                )
                self._add_grad(t, d)
            else:
                self._add_grad(t, d)
                ls_evals = 0
                if n_iter != max_iter:
                    with enable_grad():
                        loss = float(closure())
                    g = self._flat_grad()
                    ls_evals = 1
            converged = float(g.abs().max().item()) <= tol_grad
            evals += ls_evals
            state["func_evals"] += ls_evals
            if n_iter == max_iter or evals >= max_eval or converged:
                break
            if float(d.abs().max().item()) * abs(t) <= tol_change:
                break
            if abs(loss - prev_loss) < tol_change:
                break

        state.update(d=d, t=t, old_dirs=dirs, old_stps=steps, ro=ro, H_diag=h_diag,
                     prev_flat_grad=prev_g, prev_loss=prev_loss)  # fmt: skip
        return orig_loss
