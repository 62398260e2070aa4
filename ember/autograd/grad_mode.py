"""``torch.autograd.grad_mode``'s path for the grad-mode switches.

They live in the dispatcher (``ember/dispatcher/grad_mode.py``): grad mode is the
thread-local dispatch mask, which the operator library and ``out=`` read below autograd.
"""

from ember.dispatcher.grad_mode import (
    enable_grad,
    inference_mode,
    is_grad_enabled,
    no_grad,
    set_grad_enabled,
)

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "inference_mode", "is_grad_enabled"]
