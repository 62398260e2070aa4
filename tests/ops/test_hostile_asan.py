"""The C kernels under AddressSanitizer (issue 16): every hostile case of test_hostile_kernels.py,
and a short run of ordinary operators, in a child process whose ``ember_cpu._C`` is built with
``-fsanitize=address`` (tools/build_asan.py), end without a report of the sanitizer.

test_hostile_kernels.py checks results against torch and that its child ends without a
signal; a read or a write a few bytes outside a storage changes neither, and the sanitizer
sees it. The build goes to a folder of its own (the installed ember-cpu is untouched) that
later runs reuse; the probe at the end shows that an out-of-bounds access in a module built
the same way fails the same check."""

from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = Path(__file__).with_name("test_hostile_kernels.py")


def _load(name: str, path: Path):
    spec = importlib.util.spec_from_file_location(name, path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


asan = _load("ember_tools_build_asan", ROOT / "tools" / "build_asan.py")

pytestmark = pytest.mark.skipif(
    asan.libasan() is None,
    reason="the C compiler has no AddressSanitizer runtime (libasan.so)",
)
#: seconds a child may take (the hostile cases take about 3 s under the sanitizer)
TIMEOUT = 300


@pytest.fixture(scope="module")
def asan_build() -> Path:
    """The sanitizer build of ember_cpu, in a folder per user that later runs reuse."""
    return asan.build()


def _run(build: Path, code: str, *args: str) -> subprocess.CompletedProcess[str]:
    return asan.run(build, ["-c", code, *args], timeout=TIMEOUT)


def _check(p: subprocess.CompletedProcess[str]) -> None:
    """The child ended normally and the sanitizer reported nothing. The children name each
    case on stderr before running it ("case NAME"), so a report says which case it follows."""
    report = asan.asan_report(p.stderr)
    if report:
        before = p.stderr[: len(p.stderr) - len(report)].splitlines()
        cases = [line for line in before if line.startswith("case ")]
        last = cases[-1] if cases else "(before the first case)"
        raise AssertionError(f"AddressSanitizer report after {last}:\n{report[:8000]}")
    assert p.returncode == 0, (p.returncode, p.stderr[-3000:])


def _uses_build(p: subprocess.CompletedProcess[str], build: Path) -> None:
    """The child's ``ember_cpu._C`` (its first line of output) is the sanitizer build's."""
    first = p.stdout.splitlines()[0] if p.stdout else ""
    assert Path(first).resolve().is_relative_to(build.resolve()), (first, str(build))


_HOSTILE_CHILD = """
import importlib.util, sys, types
# the case tables only call ``m`` (ember here); torch, the oracle of the parent test, would be
# an uninstrumented library of its own under the preloaded sanitizer runtime: not imported
sys.modules["torch"] = types.ModuleType("torch")
spec = importlib.util.spec_from_file_location("_hostile", sys.argv[1])
h = importlib.util.module_from_spec(spec)
spec.loader.exec_module(h)
import ember, ember_cpu._C
print(ember_cpu._C.__file__)
cases = [
    (name, fn)
    for table in (h.INDEX_CASES, h.SHAPE_CASES, h.VALUE_CASES)
    for name, fn in sorted(table.items())
]
for seq in h._SORTED:
    for right in (False, True):
        s, v = ember.tensor(seq), ember.tensor(h._VALUES)
        perm = ember.tensor(list(reversed(range(len(seq)))))
        cases += [
            (f"searchsorted {seq} {right}", lambda m, d: m.searchsorted(s, v, right=right)),
            (f"bucketize {seq} {right}", lambda m, d: m.bucketize(v, s, right=right)),
            (f"sorter {seq} {right}", lambda m, d: m.searchsorted(s[perm], v, sorter=perm)),
        ]
for name, fn in cases:
    print("case", name, file=sys.stderr, flush=True)
    try:
        h._shape_of(fn(ember, "cpu"))
    except Exception:
        pass
print("ran", len(cases))
"""


def test_hostile_cases_under_asan(asan_build):
    """Every case of the three tables of test_hostile_kernels.py, plus its searchsorted NaN
    inputs, in one child."""
    h = sys.modules.get("test_hostile_kernels") or _load("_hostile_tables", HOSTILE)
    n = len(h.INDEX_CASES) + len(h.SHAPE_CASES) + len(h.VALUE_CASES) + 6 * len(h._SORTED)
    p = _run(asan_build, _HOSTILE_CHILD, str(HOSTILE))
    _check(p)
    _uses_build(p, asan_build)
    assert p.stdout.split()[-2:] == ["ran", str(n)]


_SMOKE_CHILD = """
import sys
import ember
import ember.nn.functional as F
import ember_cpu._C
print(ember_cpu._C.__file__)


def case(name):
    print("case", name, file=sys.stderr, flush=True)


ember.manual_seed(0)
case("conv")
x = ember.randn(2, 3, 9, 11, requires_grad=True)
w = ember.randn(4, 3, 3, 2, requires_grad=True)
F.conv2d(x, w, ember.randn(4), stride=(2, 1), padding=1, dilation=(1, 2)).sum().backward()
F.conv1d(x.flatten(2)[:, :, :20], w.flatten(2), padding=2, groups=1).sum().backward()
F.conv_transpose2d(x, w.transpose(0, 1), stride=2, output_padding=1).sum().backward()
case("matmul")
a, b = ember.randn(3, 5, 7), ember.randn(7, 6)
(a @ b).sum()
ember.matmul(a.transpose(1, 2)[:, 1:], a[:, :, 2:4])
ember.randn(13) @ ember.randn(13)
ember.mm(ember.randint(-5, 5, (4, 9)), ember.randint(-5, 5, (9, 3)))
case("pooling")
for pool in (F.max_pool2d, F.avg_pool2d):
    p = ember.randn(2, 3, 10, 9, requires_grad=True)
    pool(p, 3, stride=2, padding=1, ceil_mode=True).sum().backward()
F.max_pool1d(ember.randn(2, 3, 17), 4, return_indices=True)
F.adaptive_avg_pool2d(ember.randn(2, 3, 10, 9), (4, 5))
F.adaptive_max_pool2d(ember.randn(1, 2, 7, 7), 3)
v, i = F.max_pool2d(ember.randn(1, 2, 6, 6), 2, return_indices=True)
F.max_unpool2d(v, i, 2)
case("reductions")
r = ember.randn(4, 5, 6)[:, ::2].transpose(0, 2)
for f in (ember.sum, ember.mean, ember.amax, ember.amin, ember.argmax, ember.prod, ember.std,
          ember.logsumexp, ember.cumsum):
    f(r, 1), f(r, 0)
r.sum(), r.max(), r.argmin(), ember.sort(r, 1), ember.topk(r, 2, 2), r.softmax(-1)
case("indexing")
t = ember.arange(60.0).reshape(3, 4, 5)
t[ember.tensor([2, 0]), :, ember.tensor([4, 1])]
t[..., ember.tensor([True, False, True, False, True])]
t[1:, ember.tensor([[0, 3]])] = 1.0
t[t > 30] = 0.0
ember.gather(t, 2, ember.randint(0, 5, (3, 4, 2)))
t.scatter_add(1, ember.randint(0, 4, (3, 2, 5)), t[:, :2])
t.index_select(1, ember.tensor([3, 0, 3]))
t.index_put_((ember.tensor([0, 2]),), ember.ones(4, 5), accumulate=True)
ember.take(t, ember.tensor([0, 59, 7]))
t.masked_fill(t > 3, -1.0), ember.where(t > 2, t, -t), t.flip(0, 2), t.roll(3, 1)
ember.cat([t, t[:1]]), ember.stack([t, t], 1), t.unfold(2, 2, 1).sum(), ember.nonzero(t)
t.repeat(2, 1, 3)
case("embedding")
emb = ember.randn(10, 4, requires_grad=True)
F.embedding(ember.tensor([[0, 9, 3], [3, 3, 1]]), emb, padding_idx=3).sum().backward()
F.embedding_bag(ember.tensor([1, 2, 4, 5, 4, 3]), emb, ember.tensor([0, 2]), mode="max")
case("ctc_loss")
lp = ember.randn(12, 3, 6).log_softmax(2).detach().requires_grad_()
tgt = ember.randint(1, 6, (3, 4))
F.ctc_loss(lp, tgt, ember.tensor([12, 10, 7]), ember.tensor([4, 2, 3]), reduction="sum").backward()
case("nn")
F.cross_entropy(ember.randn(5, 7, requires_grad=True), ember.randint(0, 7, (5,))).backward()
F.layer_norm(ember.randn(3, 8), (8,))
F.batch_norm(ember.randn(4, 3, 5), None, None, training=True)
F.interpolate(ember.randn(1, 2, 5, 5), scale_factor=1.7, mode="bilinear")
F.pad(ember.randn(1, 2, 5), (2, 3), mode="reflect")
F.unfold(ember.randn(1, 2, 6, 7), 3, padding=1, stride=2)
F.fold(ember.randn(1, 8, 9), (4, 4), 2)
case("linalg and the rest")
ember.linalg.cholesky(ember.eye(4) * 2 + 0.1)
ember.linalg.solve(ember.randn(4, 4) + 4 * ember.eye(4), ember.randn(4, 2))
ember.bincount(ember.tensor([0, 5, 5, 2]))
ember.searchsorted(ember.arange(10.0), ember.randn(7) * 5)
ember.randn(7, 3).to(ember.float16).to(ember.int8).to(ember.float64)
ember.multinomial(ember.rand(3, 5), 4)
print("smoke ok")
"""


def test_ordinary_ops_under_asan(asan_build):
    """Convolution, matmul, pooling, reductions, indexing, embedding and ctc_loss, forward and
    backward, on odd shapes and strided views."""
    p = _run(asan_build, _SMOKE_CHILD)
    _check(p)
    _uses_build(p, asan_build)
    assert p.stdout.split()[-2:] == ["smoke", "ok"]


_PROBE_C = """
#include <stdint.h>
/* reads a[0] .. a[n]: one element past an array of n */
double em_probe_sum(const float *a, int64_t n)
{
    double s = 0;
    for (int64_t i = 0; i <= n; i++) s += a[i];
    return s;
}
"""

_PROBE_CHILD = """
import sys
sys.path.insert(0, sys.argv[1])
import ember
from _ember_asan_probe import ffi, lib
print(sys.argv[1])
t = ember.ones(16)
print("case probe", file=sys.stderr, flush=True)
lib.em_probe_sum(ffi.from_buffer("float[]", t.numpy()), 16)
print("no report")
"""


def test_an_out_of_bounds_read_fails_the_check(asan_build, tmp_path):
    """The check can fail: a module built with the same flags that reads one float past an
    ember storage gets a heap-buffer-overflow report, and ``_check`` raises on it."""
    from cffi import FFI
    from ember_cpu._build import sanitize_args

    flags = sanitize_args(asan.SANITIZER)
    ffi = FFI()
    ffi.cdef("double em_probe_sum(const float *a, int64_t n);")
    ffi.set_source("_ember_asan_probe", _PROBE_C, extra_compile_args=flags, extra_link_args=flags)
    ffi.compile(tmpdir=str(tmp_path))
    p = _run(asan_build, _PROBE_CHILD, str(tmp_path))
    assert "no report" not in p.stdout
    with pytest.raises(AssertionError, match="report after case probe") as err:
        _check(p)
    assert "heap-buffer-overflow" in str(err.value)
    assert "em_probe_sum" in str(err.value)  # the stack names the C function (-g)
