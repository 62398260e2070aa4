"""ember-template-device: the smallest working ember device, to copy and rename.

Three parts, each replaceable on its own:

* ``backend.py`` -- ``TemplateBackend``: memory blocks, host transfers, random state
  and the ``Capabilities`` (which dtypes the device stores);
* ``kernels.py`` -- the numpy kernels, one function per operator family;
* this module -- the operator tables (which ember operator runs which kernel) and
  the pluggy plugin object that the ``ember.devices`` entry point ``template`` names.

It imports only ember's public plugin API (``ember.plugins``; the ``library``
object ember passes to ``ember_register_kernels`` is an ``ember.library.Library``),
exactly what a third-party vendor has. Operators not in ``KERNELS`` either run
through ember's Composite decompositions (factories, matmul over bmm, views,
softmax, ...) or fail with an error naming the operator and the missing kernel.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

from ember.plugins import PLUGIN_API_VERSION, hookimpl
from ember_template_device import kernels as K
from ember_template_device.backend import DTYPES, TemplateBackend, TemplateGenerator

__all__ = ["plugin", "KERNELS", "DTYPES", "TemplateBackend", "TemplateGenerator"]

__version__ = "0.1.0"

#: unary operators (``<name>.default``) -> numpy ufunc ``f(x, out=...)``.
UNARY = {
    "neg": np.negative,
    "abs": np.abs,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "sin": np.sin,
    "cos": np.cos,
    "tanh": np.tanh,
    "reciprocal": np.reciprocal,
    "square": np.square,
    "floor": np.floor,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "round": np.round,  # half to even, as PyTorch
    "sigmoid": K.sigmoid,
    "relu": K.relu,
    "logical_not": np.logical_not,
    "isnan": np.isnan,
    "isinf": np.isinf,
    "isfinite": np.isfinite,
}

#: binary operators (``name.overload``) -> numpy ufunc ``f(a, b, out=...)``.
BINARY = {
    "mul.Tensor": np.multiply,  # bool * bool is logical and, as in PyTorch
    "div.Tensor": np.true_divide,  # the core casts integer inputs to float first
    "maximum.default": np.maximum,  # NaN-propagating, as in PyTorch
    "minimum.default": np.minimum,
    "pow.Tensor_Tensor": K.power,
    "eq.Tensor": np.equal,
    "ne.Tensor": np.not_equal,
    "lt.Tensor": np.less,
    "le.Tensor": np.less_equal,
    "gt.Tensor": np.greater,
    "ge.Tensor": np.greater_equal,
    "logical_and.default": np.logical_and,
    "logical_or.default": np.logical_or,
}

#: reductions -> (numpy reduction, whether it accumulates in float64 for floats).
REDUCTIONS = {
    "sum.dim_IntList": (np.sum, True),
    "prod.dim_IntList": (np.prod, True),
    "amax.default": (np.amax, False),
    "amin.default": (np.amin, False),
    "all.dims": (np.all, False),
    "any.dims": (np.any, False),
}


def _kernels() -> dict[str, Any]:
    """Operator overload -> kernel, for every operator this device implements natively."""
    table: dict[str, Any] = {f"{n}.default": partial(K.unary, f) for n, f in UNARY.items()}
    table.update({n: partial(K.binary, f) for n, f in BINARY.items()})
    table.update({n: partial(K.reduce, f, acc) for n, (f, acc) in REDUCTIONS.items()})
    table["add.Tensor"] = partial(K.add, 1)
    table["sub.Tensor"] = partial(K.add, -1)
    table["where.self"] = K.where
    table["mean.dim"] = K.mean
    table["bmm.default"] = K.bmm
    table["copy_.default"] = K.copy  # mandatory: every cast and device move uses it
    table["fill_.Scalar"] = K.fill  # mandatory: zeros, ones, full, ... use it
    table["uniform_.default"] = K.uniform
    table["normal_.default"] = K.normal
    table["random_.from"] = K.random
    return table


KERNELS = _kernels()


class TemplatePlugin:
    """The pluggy plugin object named by the ``ember.devices`` entry point ``template``."""

    backend = TemplateBackend()

    @hookimpl
    def ember_plugin_api_version(self) -> int:
        return PLUGIN_API_VERSION

    @hookimpl
    def ember_device_backends(self) -> list[TemplateBackend]:
        return [self.backend]

    @hookimpl
    def ember_register_kernels(self, device_type: str, library: Any) -> None:
        for name, fn in KERNELS.items():
            library.impl(name, fn, device_type)

    @hookimpl
    def ember_environment(self) -> dict[str, str]:
        return self.backend.environment()


plugin = TemplatePlugin()
