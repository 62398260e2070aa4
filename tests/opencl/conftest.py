"""The opencl tests run only where an OpenCL platform exists (PoCL from pyopencl[pocl] here).

Anywhere else every test in this folder is skipped with the plugin's own reason.
"""

import pytest


def _reason() -> str | None:
    try:
        import ember_opencl
    except ImportError as e:
        return f"ember-opencl is not installed ({e}); pip install -e backends_opencl"
    if not ember_opencl.is_available():
        return f"no OpenCL device: {ember_opencl.OpenCLBackend().unavailable_reason()}"
    return None


def pytest_collection_modifyitems(config, items):
    reason = None
    for item in items:
        if "tests/opencl/" in str(item.fspath).replace("\\", "/"):
            reason = reason or _reason()
            if reason is None:
                return
            item.add_marker(pytest.mark.skip(reason=reason))
