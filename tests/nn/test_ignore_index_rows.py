"""Ignored rows add exactly nothing, even when they hold -inf or NaN (issue 15, class 3)."""

import math

import pytest
import torch

import ember

INF, NAN = math.inf, math.nan
X = [[0.0, 1.0, 2.0], [-INF, NAN, 0.0], [1.0, 1.0, 1.0], [NAN, NAN, NAN]]
T = [1, -100, 2, -100]
CASES = [{}, {"label_smoothing": 0.1}, {"weight": [1.0, 2.0, 3.0]},
         {"weight": [1.0, 2.0, 3.0], "label_smoothing": 0.2}, {"ignore_index": 7}]  # fmt: skip


#: nll_loss has no label smoothing, so it takes only the other cases
FN_CASES = [("cross_entropy", kw) for kw in CASES] + [
    ("nll_loss", kw) for kw in CASES if "label_smoothing" not in kw
]


@pytest.mark.parametrize(("fn", "kw"), FN_CASES)
@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("layout", ["rows", "nchw"])
def test_ignored_rows_match_torch(fn, kw, reduction, layout):
    targets = [7 if t == -100 else t for t in T] if "ignore_index" in kw else T
    out = []
    for lib in (torch, ember):
        args = dict(kw)
        if "weight" in args:
            args["weight"] = lib.tensor(args["weight"], dtype=lib.float64)
        x, t = lib.tensor(X, dtype=lib.float64), lib.tensor(targets)
        if layout == "nchw":  # (N, C, 2) with the class dim in the middle, strided
            x, t = x.unsqueeze(2).expand(4, 3, 2), t.unsqueeze(1).expand(4, 2)
        out.append(getattr(lib.nn.functional, fn)(x, t, reduction=reduction, **args))
    torch.testing.assert_close(torch.tensor(out[1].tolist(), dtype=torch.float64), out[0],
                               equal_nan=True)  # fmt: skip
    if reduction != "none" and "ignore_index" not in kw:
        assert math.isfinite(out[1].item())
