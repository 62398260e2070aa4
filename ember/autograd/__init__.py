"""``ember.autograd``: reverse-mode automatic differentiation.

Owns the graph (``Node``), the engine (``backward``, ``grad``), custom
``Function``s, ``gradcheck``, ``functional`` (jacobian, hessian, vjp, jvp), anomaly
detection (``detect_anomaly``, ``Variable``) and the formula sets
(``ember.autograd.formulas``).
The Autograd dispatch key has one generic kernel (``ember.autograd.kernel``).

Layer: above the operator library (formulas are written in operators); may import
``ember.core``, ``ember.dispatcher``, ``ember.library``, ``ember.plugins`` and
``ember.operators``. Grad mode itself lives in the dispatcher (it is the thread-local
dispatch mask); ``ember.autograd.grad_mode`` is its PyTorch path.

Must always hold: importing this package loads no formula set and registers no
kernel; ``_ensure_loaded()`` (called by the first ``requires_grad_(True)`` or
``Function.apply``) replaces the Autograd fallthrough with the generic kernel and
loads the active formula sets, once. Tensors that do not require grad never
reach that kernel, so their dispatch cost does not change.

Examples:
    >>> import ember
    >>> x = ember.tensor([1., 2., 3.], requires_grad=True)
    >>> y = (x * x).sum()
    >>> y.backward()
    >>> x.grad
    tensor([2., 4., 6.])
"""

from __future__ import annotations

import threading
from typing import Any

from ember import library
from ember.autograd import functional
from ember.autograd.anomaly_mode import (
    Variable,
    detect_anomaly,
    is_anomaly_check_nan_enabled,
    is_anomaly_enabled,
    set_detect_anomaly,
)
from ember.autograd.engine import backward, grad
from ember.autograd.function import BackwardCFunction, Function, FunctionCtx, once_differentiable
from ember.autograd.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)
from ember.autograd.gradcheck import GradcheckError, gradcheck, gradgradcheck
from ember.autograd.node import Node
from ember.core import providers

__all__ = [
    "backward",
    "grad",
    "Function",
    "FunctionCtx",
    "BackwardCFunction",
    "once_differentiable",
    "gradcheck",
    "gradgradcheck",
    "GradcheckError",
    "no_grad",
    "enable_grad",
    "set_grad_enabled",
    "inference_mode",
    "is_grad_enabled",
    "Node",
    "functional",
    "Variable",
    "detect_anomaly",
    "set_detect_anomaly",
    "is_anomaly_enabled",
    "is_anomaly_check_nan_enabled",
]

_loaded = False
_lock = threading.Lock()


def _ensure_loaded() -> None:
    """Install the generic Autograd kernel and load the active formula sets (once)."""
    global _loaded
    if _loaded:
        return
    with _lock:
        if _loaded:
            return
        from ember import library
        from ember.autograd import formulas, kernel
        from ember.operators import registration

        registration.autograd_fallthrough.remove()
        library.fallback(kernel.autograd_kernel, "Autograd")
        formulas.table()
        _loaded = True


def _register_formula(qualname: str, rule: Any) -> Any:
    from ember.autograd import formulas  # loads the formula plugins on first use

    return formulas.register(qualname, rule)


# Note [Registration points]
providers.backward, providers.ensure_autograd = backward, _ensure_loaded
library.install_formula_sink(_register_formula)


def __getattr__(name: str) -> Any:
    # torch.autograd.profiler, imported on first use
    if name in ("profiler", "profiler_util"):
        import importlib

        return importlib.import_module(f"ember.autograd.{name}")
    raise AttributeError(f"module 'ember.autograd' has no attribute '{name}'")
