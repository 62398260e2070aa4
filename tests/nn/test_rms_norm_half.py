"""rms_norm in half precision: float32 arithmetic and float32's epsilon (issue 15, class 12)."""

import numpy as np
import pytest
import torch

import ember


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("scale", [0.01, 1.0, 100.0])
@pytest.mark.parametrize("weighted", [False, True])
def test_rms_norm_matches_torch(dtype, scale, weighted):
    a = np.random.default_rng(0).standard_normal((4, 3, 8)) * scale
    t = torch.tensor(a).to(getattr(torch, dtype))
    e = ember.tensor(a).to(getattr(ember, dtype))
    wt = torch.linspace(0.5, 2, 8).to(t.dtype) if weighted else None
    we = ember.linspace(0.5, 2, 8).to(e.dtype) if weighted else None
    want = torch.nn.functional.rms_norm(t, (8,), weight=wt)
    got = ember.nn.functional.rms_norm(e, (8,), weight=we)
    assert str(got.dtype).split(".")[-1] == dtype
    torch.testing.assert_close(torch.tensor(got.to(ember.float64).numpy()), want.double())
