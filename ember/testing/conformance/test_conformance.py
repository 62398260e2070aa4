"""The conformance tests: one test per OpInfo x dtype, run on ``--ember-device``.

Collected only when the ``ember_conformance`` pytest plugin is active and
``--ember-device`` is given; otherwise (the project's own ``pytest`` run) the
module skips itself at collection.
"""

from __future__ import annotations

from typing import Any

import pytest

from ember.testing.conformance._runner import NotImplementedOnDevice, run_case
from ember.testing.opdb import OpInfo, select


def _device(config: Any) -> str | None:
    try:
        return config.getoption("ember_device")
    except ValueError:
        return None


def pytest_generate_tests(metafunc: Any) -> None:
    if "ember_case" not in metafunc.fixturenames:
        return
    dev = _device(metafunc.config)
    cases = []
    if dev:
        for info in select(metafunc.config.getoption("ember_ops")):
            cases += [pytest.param((info, d), id=f"{info.name}-{d}") for d in info.dtypes]
    metafunc.parametrize("ember_case", cases)


def test_op(ember_case: tuple[OpInfo, str], request: Any) -> None:
    info, dtype = ember_case
    dev = _device(request.config)
    if not dev:
        pytest.skip("pass --ember-device=NAME to run the conformance suite")
    request.node.user_properties.append(("ember_case", (info.name, dtype)))
    try:
        _, fell_back = run_case(info, dtype, dev)
    except NotImplementedOnDevice as e:
        pytest.skip(f"not implemented: {e}")
    if fell_back:
        request.node.user_properties.append(("ember_cpu_fallback", fell_back))
