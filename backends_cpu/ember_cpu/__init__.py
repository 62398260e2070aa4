"""ember-cpu: the default CPU device, as a plugin registered through ``ember.devices``.

The kernels are C, generated from expression tables and compiled with CFFI at
install time (``_build.py``); this module only maps ember's operators onto them,
through ``ember.library`` like any third-party backend. Importing it does not
import ember's internals, only ``ember.plugins``, ``ember.library`` and the
public API.
"""

from __future__ import annotations

from functools import partial
from typing import Any

import numpy as np

import ember
from ember.plugins import PLUGIN_API_VERSION, hookimpl
from ember_cpu.backend import CPUBackend, CPUGenerator

__all__ = ["plugin", "CPUBackend", "CPUGenerator", "KERNELS"]

__version__ = "0.1.0"


def _kernels() -> dict[str, Any]:
    """Operator overload -> kernel, for every operator this backend implements natively."""
    from ember_cpu.ops_copy import copy, fill
    from ember_cpu.ops_elementwise import binary, unary, where
    from ember_cpu.ops_linalg import bmm
    from ember_cpu.ops_reduce import reduce

    table: dict[str, Any] = {}
    for name in UNARY:
        table[f"{name}.default"] = partial(unary, name)
    for name, overload in BINARY.items():
        table[f"{name}.{overload}"] = partial(binary, name)
    table["add.Tensor"] = partial(binary, "add")
    table["sub.Tensor"] = partial(binary, "sub")
    table["div.Tensor"] = partial(binary, "div")
    table["div.Tensor_mode"] = _div_mode(binary)
    table["pow.Tensor_Tensor"] = partial(binary, "pow")
    table["gelu.default"] = _gelu(unary)
    table["where.self"] = where
    for name, overload in REDUCTIONS.items():
        table[f"{name}.{overload}"] = partial(reduce, name)
    table["bmm.default"] = bmm
    table["copy_.default"] = copy
    table["fill_.Scalar"] = fill
    table["uniform_.default"] = _uniform(copy)
    table["normal_.default"] = _normal(copy)
    table["random_.from"] = _random(copy)
    from ember_cpu import ops_index, ops_lapack, ops_nn

    table.update(ops_index.kernels())
    table.update(ops_nn.kernels())
    table.update(ops_lapack.kernels())
    return table


UNARY = (
    "neg abs exp log sqrt tanh sigmoid sin cos reciprocal square relu floor ceil trunc round "
    "sign logical_not isnan isinf isfinite exp2 expm1 log2 log10 log1p rsqrt erf erfc tan asin "
    "acos atan sinh cosh asinh acosh atanh silu softplus mish frac bitwise_not erfinv digamma "
    "lgamma"
).split()
BINARY = {
    "mul": "Tensor",
    "remainder": "Tensor",
    "fmod": "Tensor",
    "maximum": "default",
    "minimum": "default",
    "atan2": "default",
    "hypot": "default",
    "copysign": "default",
    "nextafter": "default",
    "gcd": "default",
    "eq": "Tensor",
    "ne": "Tensor",
    "lt": "Tensor",
    "le": "Tensor",
    "gt": "Tensor",
    "ge": "Tensor",
    "logical_and": "default",
    "logical_or": "default",
    "logical_xor": "default",
    "bitwise_and": "Tensor",
    "bitwise_or": "Tensor",
    "bitwise_xor": "Tensor",
    "bitwise_left_shift": "Tensor",
    "bitwise_right_shift": "Tensor",
}
REDUCTIONS = {
    "sum": "dim_IntList",
    "prod": "dim_IntList",
    "mean": "dim",
    "amax": "default",
    "amin": "default",
    "argmax": "default",
    "argmin": "default",
    "all": "dims",
    "any": "dims",
}


def _div_mode(binary: Any) -> Any:
    def div_mode(out: Any, a: Any, b: Any, rounding_mode: str | None) -> None:
        binary({"floor": "div_floor", "trunc": "div_trunc", None: "div"}[rounding_mode], out, a, b)

    return div_mode


def _gelu(unary: Any) -> Any:
    def gelu(out: Any, a: Any, approximate: str) -> None:
        if approximate not in ("none", "tanh"):
            raise RuntimeError(
                f"approximate argument must be either none or tanh, got '{approximate}'"
            )
        unary("gelu_tanh" if approximate == "tanh" else "gelu", out, a)

    return gelu


def _host_fill(copy: Any, out: Any, values: np.ndarray) -> None:
    copy(out, ember.from_numpy(values.reshape(tuple(out.shape))))


def _uniform(copy: Any) -> Any:
    def uniform_(out: Any, low: float, high: float, gen: CPUGenerator) -> None:
        if low > high:
            raise RuntimeError(
                f"uniform_ expects to return a [from, to) range, but found from={low} > to={high}"
            )
        vals = gen.rng.random(out.numel(), dtype=np.float64) * (high - low) + low
        _host_fill(copy, out, vals)

    return uniform_


def _normal(copy: Any) -> Any:
    def normal_(out: Any, mean: float, std: float, gen: CPUGenerator) -> None:
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        vals = gen.rng.standard_normal(out.numel(), dtype=np.float64) * std + mean
        _host_fill(copy, out, vals)

    return normal_


_INT_RANGE = {
    "bool": (0, 2),
    "uint8": (0, 256),
    "int8": (-128, 128),
    "int16": (-(2**15), 2**15),
    "int32": (-(2**31), 2**31),
    "int64": (-(2**63), 2**63 - 1),
    "float16": (-(2**11), 2**11 + 1),
    "bfloat16": (-(2**8), 2**8 + 1),
    "float32": (-(2**24), 2**24 + 1),
    "float64": (-(2**53), 2**53 + 1),
}


def _random(copy: Any) -> Any:
    def random_(out: Any, low: int, high: int | None, gen: CPUGenerator) -> None:
        lo, hi = _INT_RANGE[out.dtype.name]
        if high is None:
            low, high = max(low, lo), hi
        if low >= high:
            raise RuntimeError(
                f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
            )
        vals = gen.rng.integers(low, high, out.numel(), dtype=np.int64)
        _host_fill(copy, out, vals)

    return random_


class CPUPlugin:
    """The pluggy plugin object the ``ember.devices`` entry point ``cpu`` names."""

    backend = CPUBackend()

    @hookimpl
    def ember_plugin_api_version(self) -> int:
        return PLUGIN_API_VERSION

    @hookimpl
    def ember_device_backends(self) -> list[CPUBackend]:
        return [self.backend]

    @hookimpl
    def ember_register_kernels(self, device_type: str, library: Any) -> None:
        for name, fn in _kernels().items():
            library.impl(name, fn, device_type)

    @hookimpl
    def ember_environment(self) -> dict[str, str]:
        return self.backend.environment()

    @hookimpl
    def ember_set_num_threads(self, num_threads: int) -> None:
        from ember_cpu import _common

        _common.set_num_threads(num_threads)

    @hookimpl
    def ember_get_num_threads(self) -> int:
        from ember_cpu import _common

        return _common.num_threads()


plugin = CPUPlugin()


def __getattr__(name: str) -> Any:
    if name == "KERNELS":
        return _kernels()
    raise AttributeError(name)
