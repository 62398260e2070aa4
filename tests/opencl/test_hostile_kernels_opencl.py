"""The hostile index and value cases of tests/ops/test_hostile_kernels.py on the opencl device:
the same error type as torch (or torch's result), and an in-place write with a bad index
leaves ``self`` unchanged, as on the CPU."""

import importlib.util
import pathlib

import pytest

import ember

_spec = importlib.util.spec_from_file_location(
    "_hostile_cases", pathlib.Path(__file__).parents[1] / "ops" / "test_hostile_kernels.py"
)
H = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(H)


@pytest.mark.parametrize("name", sorted(H.INDEX_CASES))
def test_index_kernels_match_torch_on_opencl(name):
    H._same(H.INDEX_CASES[name], "opencl")


@pytest.mark.parametrize("name", sorted(n for n in H.VALUE_CASES if "multinomial" in n))
def test_value_checks_match_torch_on_opencl(name):
    H._same(H.VALUE_CASES[name], "opencl")


def test_searchsorted_nan_on_opencl_matches_torch():
    seq, vals = [1.0, 2.0, 3.0, H.NAN, H.NAN], [H.NAN, 2.5, 3.0, H.INF, 0.0]
    for right in (False, True):
        H._same(
            lambda m, d, r=right: m.searchsorted(
                m.tensor(seq, device=d), m.tensor(vals, device=d), right=r
            ),
            "opencl",
        )


@pytest.mark.parametrize(
    "write",
    [
        lambda t, i, v: t.scatter_(0, i, v),
        lambda t, i, v: t.scatter_add_(0, i, v),
        lambda t, i, v: t.index_put_((i,), v),
        lambda t, i, v: t.index_put_((i,), v, accumulate=True),
        lambda t, i, v: t.put_(i, v),
    ],
)
@pytest.mark.parametrize("bad", [7, -9])
def test_bad_write_leaves_self_unchanged_on_opencl(write, bad):
    t = ember.zeros(4, device="opencl")
    with pytest.raises((IndexError, RuntimeError), match=str(bad)):
        write(t, ember.tensor([1, bad], device="opencl"), ember.ones(2, device="opencl"))
    assert t.tolist() == [0.0] * 4
