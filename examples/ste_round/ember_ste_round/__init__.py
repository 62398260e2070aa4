"""A straight-through estimator for ``round``, as an installable ember formula set.

``round`` has a zero gradient almost everywhere, which stops training of
quantized models; the straight-through estimator passes the gradient through as
if ``round`` were the identity. Activate it with ``EMBER_AUTOGRAD_FORMULAS=default,ste``
or ``ember.autograd.formulas.use("ste")``; ember itself is unchanged.
"""

from __future__ import annotations

from typing import Any

import ember.plugins as P


class STEFormulas:
    @P.hookimpl
    def ember_plugin_api_version(self) -> int:
        return P.PLUGIN_API_VERSION

    @P.hookimpl
    def ember_autograd_formulas(self) -> dict[str, Any]:
        # one rule per Tensor argument: d round(x) / dx := 1
        return {"aten::round": (lambda grad: grad,)}


plugin = STEFormulas()
