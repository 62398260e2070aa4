"""Runs one OpInfo for one dtype on one device and compares with its reference.

Must always hold: a missing kernel or dtype raises ``NotImplementedOnDevice``
(reported, never a failure), and so does a dtype a device's ``Capabilities.op_dtypes``
leaves out for the operator; a case that passed through the CPU fallback says which
operators fell back (``run_case``); a wrong value, shape or device raises AssertionError
naming the operator, the dtype and the sample.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ember.testing._comparison import assert_close, default_tolerances, to_numpy
from ember.testing._opinfo import OpInfo, SampleInput, category

__all__ = ["NotImplementedOnDevice", "check_case", "run_case", "run_sample"]


class NotImplementedOnDevice(Exception):
    """The device has no kernel for the operator (or does not store the dtype)."""


def _host(x: Any) -> Any:
    from ember.core.tensor import Tensor

    if isinstance(x, Tensor):
        return to_numpy(x)
    if isinstance(x, (list, tuple)) and any(isinstance(v, Tensor) for v in x):
        return type(x)(_host(v) for v in x)
    return x


def run_sample(info: OpInfo, dtype: str, device: str, sample: SampleInput) -> None:
    """Run one sample on ``device`` and compare with the reference (or validator).

    Examples:
        >>> from ember.testing.opdb import lookup
        >>> info = lookup("add.Tensor")
        >>> for s in info.samples("float32", "cpu"):
        ...     run_sample(info, "float32", "cpu", s)
    """
    args = tuple(_host(a) for a in sample.args)
    kwargs = {k: _host(v) for k, v in sample.kwargs.items()}
    with np.errstate(all="ignore"):  # e.g. log(False): the reference's -inf is the answer
        expected = info.ref(*args, **kwargs) if info.ref is not None else None
    result = info.op(*sample.args, **sample.kwargs)
    where = f"{info.name} [{dtype}] sample '{sample.desc}'"
    want_dev = device.split(":")[0]
    if result.device.type != want_dev:
        raise AssertionError(f"{where}: result is on {result.device}, expected {device}")
    got = to_numpy(result)
    if info.validate is not None:
        info.validate(got, sample)
        return
    exp = np.asarray(expected)
    rd = result.dtype.name
    if category(rd) != "float":
        with np.errstate(invalid="ignore", over="ignore"):
            exp = exp.astype(np.bool_ if rd == "bool" else np.dtype(rd))
    rtol, atol = info.tols.get(rd) or default_tolerances(rd)
    assert_close(got, exp, rtol=rtol, atol=atol, equal_nan=True, check_dtype=False, msg=where)


def check_case(info: OpInfo, dtype: str, device: str) -> int:
    """Run every sample of ``info`` for ``dtype`` on ``device``; returns the sample count.

    Raises NotImplementedOnDevice when the device lacks the kernel or the dtype.

    Examples:
        >>> from ember.testing.opdb import lookup
        >>> check_case(lookup("sum.dim_IntList"), "int32", "cpu")
        9
    """
    return run_case(info, dtype, device)[0]


def run_case(info: OpInfo, dtype: str, device: str) -> tuple[int, list[str]]:
    """``check_case``, also returning the operators that ran on the CPU fallback (Note [CPU
    fallback]): empty when every operator of the case ran on the device's own kernels.

    Examples:
        >>> from ember.testing.opdb import lookup
        >>> run_case(lookup("sum.dim_IntList"), "int32", "cpu")
        (9, [])
    """
    from ember.dispatcher.cpu_fallback import fallback_counts
    from ember.library import capabilities

    if dtype not in capabilities(device.split(":")[0]).dtypes:
        raise NotImplementedOnDevice(f"dtype {dtype} is not in {device}'s Capabilities.dtypes")
    before = fallback_counts()
    samples = info.samples(dtype, device)
    for s in samples:
        try:
            run_sample(info, dtype, device, s)
        except NotImplementedError as e:
            raise NotImplementedOnDevice(str(e).splitlines()[0]) from e
    dev_type = device.split(":")[0]
    after = fallback_counts()
    fell_back = sorted(
        op for (d, op), n in after.items() if d == dev_type and n != before.get((d, op))
    )
    return len(samples), fell_back
