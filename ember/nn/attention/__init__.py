"""``ember.nn.attention``: PyTorch's ``torch.nn.attention`` (``SDPBackend``, ``sdpa_kernel``).

``sdpa_kernel(backends)`` enables exactly ``backends`` for the block (with ``set_priority``,
also in that order of preference) and restores the previous choice after it. The choice is
recorded in ``ember.backends.cuda`` (``flash_sdp_enabled()`` and the others read it, as in
torch) and has no effect on what ember computes: ember's ``scaled_dot_product_attention``
has one implementation, the math one, which runs whichever backends are enabled.

Must always hold: the flags after the block equal the flags before it, also when the block
raises; ``SDPBackend`` is ``ember.backends.cuda.SDPBackend`` (one enum, as in torch).

Examples:
    >>> import ember
    >>> from ember.nn.attention import SDPBackend, sdpa_kernel
    >>> with sdpa_kernel(SDPBackend.MATH):
    ...     ember.backends.cuda.flash_sdp_enabled(), ember.backends.cuda.math_sdp_enabled()
    (False, True)
    >>> ember.backends.cuda.flash_sdp_enabled()
    True
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from typing import Any

from ember.backends.cuda import SDPBackend, _restore_sdp_state, _sdp_state, _set_sdp_backends

__all__ = ["SDPBackend", "sdpa_kernel", "WARN_FOR_UNFUSED_KERNELS"]

#: torch warns when a fused kernel cannot be used if this is set; ember has none to warn about
WARN_FOR_UNFUSED_KERNELS = False


@contextlib.contextmanager
def sdpa_kernel(
    backends: list[SDPBackend] | SDPBackend, set_priority: bool = False
) -> Iterator[dict[str, Any]]:
    """Enable only ``backends`` for scaled dot product attention inside the block.

    Args:
        backends: one ``SDPBackend`` or a list of them.
        set_priority: also prefer them in the order given (the rest keep their order after).

    Raises:
        AssertionError: ``backends`` is neither an ``SDPBackend`` nor a list (torch's type).
    """
    if not isinstance(backends, (list, SDPBackend)):
        raise AssertionError(
            "Backend must be an instance of SDPBackend or a list of SDPBackend instances, "
            f"got {type(backends).__name__}"
        )
    chosen = [backends] if isinstance(backends, SDPBackend) else list(dict.fromkeys(backends))
    saved = _sdp_state()
    try:
        _set_sdp_backends(chosen, set_priority)
        yield {}
    finally:
        _restore_sdp_state(saved)
