"""Composite random sampling and spaced factories, over the ``uniform_``/``normal_``/``random_``
primitives.

Every distribution is an inverse transform of uniform or normal samples drawn from the
device's generator, computed in float32 at least (float64 for float64 tensors) and
copied into the target, so half-precision targets get correctly rounded samples:

==============  =============================================
exponential_    ``-log(1 - u) / lambd``
geometric_      ``ceil(log(1 - u) / log(1 - p))`` (trials until the first success)
log_normal_     ``exp(normal(mean, std))``
cauchy_         ``median + sigma * tan(pi * (u - 1/2))``
normal          ``mean + std * normal(0, 1)`` (broadcast; PyTorch's zero gradient)
==============  =============================================
"""

from __future__ import annotations

import math
from typing import Any

from ember.core import dtype as dt
from ember.core.tensor import Tensor

__all__ = [
    "exponential_",
    "geometric_",
    "log_normal_",
    "cauchy_",
    "normal_tensor_float",
    "normal_float_tensor",
    "normal_tensor_tensor",
    "normal_float_float",
    "randint_like",
    "logspace",
]

_C_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
            "uint8": "unsigned char", "bool": "bool"}  # fmt: skip
_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
          "bool": "Bool"}  # fmt: skip


def _aten() -> Any:
    from ember.dispatcher.namespace import ops

    return ops.aten


def _work(self: Tensor) -> Tensor:
    """An uninitialised tensor of ``self``'s shape in the sampling precision."""
    from ember.operators.drivers import new_empty

    d = dt.float64 if self._dtype is dt.float64 else dt.float32
    return new_empty(tuple(self._shape), d, self._device)


def _need_float(self: Tensor, msg: str) -> None:
    if self._dtype.category != dt.FLOAT:
        name = self._dtype.name
        raise RuntimeError(msg.format(c=_C_NAMES.get(name, name), n=_NAMES.get(name, name)))


def exponential_(self: Tensor, lambd: float = 1.0, generator: Any = None) -> Tensor:
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd:g}")
    _need_float(
        self,
        "Exponential distribution is a continuous probability distribution. dtype must be a "
        "floating point but you specified {n}",
    )
    u = _work(self).uniform_(0.0, 1.0, generator=generator)
    return self.copy_((1 - u).log() / -lambd)


def geometric_(self: Tensor, p: float, generator: Any = None) -> Tensor:
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p:g}")
    if self._dtype is dt.bool_:
        raise NotImplementedError("\"geometric_cpu\" not implemented for 'Bool'")
    u = _work(self).uniform_(0.0, 1.0, generator=generator)
    k = ((1 - u).log() / math.log1p(-p)).ceil()
    return self.copy_(k.clamp(min=1))


def log_normal_(self: Tensor, mean: float = 1.0, std: float = 2.0, generator: Any = None) -> Tensor:
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std:g}")
    if self._dtype.category != dt.FLOAT:
        raise NotImplementedError(
            f"\"log_normal_cpu\" not implemented for '{_NAMES[self._dtype.name]}'"
        )
    z = _work(self).normal_(mean, std, generator=generator)
    return self.copy_(z.exp())


def cauchy_(self: Tensor, median: float = 0.0, sigma: float = 1.0, generator: Any = None
            ) -> Tensor:  # fmt: skip
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma:g}")
    _need_float(
        self,
        "Cauchy distribution is a continuous probability distribution. dtype must be a floating "
        "point but you specified {c}",
    )
    u = _work(self).uniform_(0.0, 1.0, generator=generator)
    return self.copy_(((u - 0.5) * math.pi).tan() * sigma + median)


# -- normal with tensor parameters ----------------------------------------------------------------
def _normal_out(shape: Any, dtype: dt.dtype, like: Tensor, generator: Any) -> Tensor:
    from ember.operators.drivers import new_empty

    if dtype.category != dt.FLOAT:
        raise NotImplementedError(
            f"\"normal_kernel_cpu\" not implemented for '{_NAMES.get(dtype.name, dtype.name)}'"
        )
    return new_empty(tuple(shape), dtype, like._device).normal_(0.0, 1.0, generator=generator)


def _check_std(std: Any) -> None:
    if isinstance(std, Tensor):
        if std.numel() and bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
    elif std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std:g}")


def normal_tensor_float(mean: Tensor, std: float = 1.0, generator: Any = None) -> Tensor:
    _check_std(std)
    z = _normal_out(mean._shape, mean._dtype, mean, generator)
    return z * std + mean.detach()


def normal_float_tensor(mean: float, std: Tensor, generator: Any = None) -> Tensor:
    _check_std(std)
    z = _normal_out(std._shape, std._dtype, std, generator)
    return z * std.detach() + mean


def normal_tensor_tensor(mean: Tensor, std: Tensor, generator: Any = None) -> Tensor:
    from ember.operators.drivers import broadcast_shapes

    _check_std(std)
    shape = broadcast_shapes(mean._shape, std._shape)
    z = _normal_out(shape, mean._dtype, mean, generator)
    return (z * std.detach().to(mean._dtype) + mean.detach()).to(mean._dtype)


def normal_float_float(mean: float, std: float, size: Any, generator: Any = None,
                       dtype: Any = None, layout: Any = None, device: Any = None,
                       pin_memory: Any = None) -> Tensor:  # fmt: skip
    _check_std(std)
    d = dtype or dt.get_default_dtype()
    t = _aten().empty.memory_format(tuple(size), dtype=d, device=device)
    return t.normal_(float(mean), float(std), generator=generator)


# -- factories ------------------------------------------------------------------------------------
def randint_like(self: Tensor, low: int, high: int, generator: Any = None,
                 dtype: Any = None, layout: Any = None, device: Any = None,
                 pin_memory: Any = None, memory_format: Any = None) -> Tensor:  # fmt: skip
    if low >= high:
        raise RuntimeError(
            f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}"
        )
    t = _aten().empty_like.default(self, dtype=dtype, device=device)
    return t.random_(int(low), int(high), generator=generator)


def logspace(start: Any, end: Any, steps: int, base: float = 10.0, dtype: Any = None,
             layout: Any = None, device: Any = None, pin_memory: Any = None) -> Tensor:  # fmt: skip
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    d = dtype or dt.get_default_dtype()
    if d is dt.bool_:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    s = start.item() if isinstance(start, Tensor) else start
    e = end.item() if isinstance(end, Tensor) else end
    exps = _aten().linspace(s, e, steps, dtype=dt.float64, device=device)
    return exps.new_full((), float(base)).pow(exps).to(d)
