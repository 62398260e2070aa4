"""Fixtures for every test item, the doctests in ``ember/`` included.

Doctests run in the same worker process as the tests (``--doctest-modules`` with xdist),
so an example that sets a process-wide switch (``cudnn.deterministic = True``) would leak
into whichever test that worker runs next. Each item gets the switches back as it found them.
"""

from __future__ import annotations

import copy

import pytest


@pytest.fixture(autouse=True)
def _restore_global_switches():
    import ember
    import ember.backends.cuda as bcuda
    import ember.backends.cudnn as cudnn

    flags = {k: v for k, v in vars(cudnn).items() if isinstance(v, bool)}
    matmul = copy.deepcopy(vars(bcuda.matmul))
    dtype = ember.get_default_dtype()
    deterministic = ember.are_deterministic_algorithms_enabled()
    yield
    for k, v in flags.items():
        setattr(cudnn, k, v)
    vars(bcuda.matmul).clear()
    vars(bcuda.matmul).update(matmul)
    if ember.get_default_dtype() != dtype:
        ember.set_default_dtype(dtype)
    if ember.are_deterministic_algorithms_enabled() != deterministic:
        ember.use_deterministic_algorithms(deterministic)
