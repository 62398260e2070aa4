"""The ``ember_conformance`` pytest plugin (entry point ``pytest11``).

Adds ``--ember-device=NAME`` and ``--ember-ops=PATTERNS``. Without
``--ember-device`` it does nothing else: ``ember/testing/conformance`` is not
collected and no summary is printed, so other test runs are unaffected. With it,
the terminal summary shows an operator x dtype table of pass / FAIL / n/i
(not implemented on the device) / blank (dtype not supported by the operator).
"""

from __future__ import annotations

import os
from typing import Any

import pytest

_HERE = os.path.dirname(os.path.abspath(__file__))
_SHORT = {
    "bool": "b8",
    "uint8": "u8",
    "int8": "i8",
    "int16": "i16",
    "int32": "i32",
    "int64": "i64",
    "float16": "f16",
    "bfloat16": "bf16",
    "float32": "f32",
    "float64": "f64",
}
_CELL = {"passed": "ok", "cpu": "cpu", "failed": "FAIL", "ni": "n/i"}
_RESULTS = pytest.StashKey[dict[tuple[str, str], str]]()


def pytest_addoption(parser: Any) -> None:
    g = parser.getgroup("ember", "ember device conformance")
    g.addoption(
        "--ember-device",
        dest="ember_device",
        default=None,
        metavar="NAME",
        help="run ember's conformance suite on this device (e.g. cpu)",
    )
    g.addoption(
        "--ember-ops",
        dest="ember_ops",
        default=None,
        metavar="PATTERNS",
        help="comma-separated glob patterns of operator names to run",
    )


def pytest_configure(config: Any) -> None:
    config.stash[_RESULTS] = {}


def pytest_ignore_collect(collection_path: Any, config: Any) -> bool | None:
    inside = os.path.abspath(str(collection_path)).startswith(_HERE)
    if inside and os.path.basename(str(collection_path)) == "test_conformance.py":
        return True if not config.getoption("ember_device") else None
    return None


def pytest_runtest_logreport(report: Any) -> None:
    props = dict(report.user_properties)
    case = props.get("ember_case")
    if case is None or (report.when != "call" and report.passed):
        return
    results = _config.stash[_RESULTS] if _config is not None else {}
    if report.skipped and "not implemented" in str(report.longrepr):
        results[case] = "ni"
    elif report.failed:
        results[case] = "failed"
    elif report.passed:
        results.setdefault(case, "cpu" if props.get("ember_cpu_fallback") else "passed")


_config: Any = None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: Any) -> None:
    global _config
    _config = session.config


def summary_table(results: dict[tuple[str, str], str], device: str) -> list[str]:
    """The summary lines: one row per operator, one column per dtype, then totals.

    A case is ``ok`` when it passed on the device's own kernels, ``cpu`` when it passed
    with some operator running on the CPU fallback (Note [CPU fallback]).

    Examples:
        >>> print("\\n".join(summary_table({("add.Tensor", "int8"): "passed"}, "cpu")))
        ember conformance on cpu (ok = pass, FAIL = fail, n/i = not implemented)
        operator    b8   u8   i8   i16  i32  i64  f16  bf16 f32  f64
        add.Tensor            ok
        totals: 1 pass, 0 fail, 0 not implemented (1 operator x dtype cases, 1 operators)
    """
    ops = list(dict.fromkeys(op for op, _ in results))
    width = max([len(o) for o in ops] + [8]) + 2
    n = {k: sum(v == k for v in results.values()) for k in _CELL}
    legend = "ok = pass, FAIL = fail, n/i = not implemented"
    if n["cpu"]:
        legend = "ok = pass, cpu = pass on the CPU fallback, FAIL = fail, n/i = not implemented"
    lines = [
        f"ember conformance on {device} ({legend})",
        "operator".ljust(width) + "".join(s.ljust(5) for s in _SHORT.values()).rstrip(),
    ]
    for op in ops:
        cells = [_CELL.get(results.get((op, d), ""), "").ljust(5) for d in _SHORT]
        lines.append((op.ljust(width) + "".join(cells)).rstrip())
    passed = f"{n['passed'] + n['cpu']} pass"
    if n["cpu"]:
        passed += f" ({n['cpu']} on the CPU fallback)"
    lines.append(
        f"totals: {passed}, {n['failed']} fail, {n['ni']} not implemented "
        f"({len(results)} operator x dtype cases, {len(ops)} operators)"
    )
    return lines


def pytest_terminal_summary(terminalreporter: Any, exitstatus: int, config: Any) -> None:
    device = config.getoption("ember_device")
    results = config.stash.get(_RESULTS, {})
    if not device or not results:
        return
    terminalreporter.section("ember conformance summary")
    for line in summary_table(results, device):
        terminalreporter.write_line(line)
    from ember.testing.conformance.tiers import coverage

    for line in coverage(device.split(":")[0]):
        terminalreporter.write_line(line)
