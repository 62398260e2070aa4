#!/usr/bin/env bash
# The CUDA backend's check on a machine with an NVIDIA GPU (about 5 minutes on an H100/H200).
#
#   bash tools/gpu_check.sh            # from the repository root
#
# Installs ember, ember-cpu and ember-cuda from this checkout without touching the network
# (the machine's own CuPy and torch are used), then runs, in order, and stops at the first
# failure: the offline NVRTC and emulator tests, the plugin tests on the GPU, the index
# kernels vs torch, the conformance kit on cuda, the autograd tests on cuda, the demo with
# --device cuda, DLPack and __cuda_array_interface__ with CuPy and torch.cuda, and
# benchmarks/cuda.py, whose table it prints last.
set -eu -o pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
step() { printf '\n==== %s ====\n' "$*"; }

step "environment"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader || true
$PY -c "import cupy, torch; print('cupy', cupy.__version__, '| torch', torch.__version__, '| torch.cuda', torch.cuda.is_available())"

step "install (no network: --no-deps, --no-build-isolation)"
$PY -m pip install -q --no-deps --no-build-isolation -e . -e backends_cpu -e backends_cuda
$PY -m ember info | sed -n '/^devices:/,$p'
$PY -c "import ember; assert ember.cuda.is_available(), 'ember sees no CUDA device'; print(ember.cuda.get_device_name(), ember.cuda.get_device_capability())"

step "offline tests (NVRTC, the CPU emulator) and plugin tests on the GPU"
timeout 300 $PY -m pytest -p no:cacheprovider -q -x tests/cuda

step "index, scatter, nonzero and sort kernels on the GPU vs torch (the emulator's checks)"
timeout 300 $PY tests/cuda/emulated_checks.py --gpu | $PY -c "
import json, sys
r = json.loads(sys.stdin.read().strip().splitlines()[-1])
bad = {k: v for k, v in r.items() if v != 'ok'}
print(f'{len(r) - len(bad)}/{len(r)} checks ok'); [print(k, v) for k, v in bad.items()]
sys.exit(1 if bad else 0)"

step "conformance kit on cuda"
timeout 600 $PY -m pytest -p no:cacheprovider -q --pyargs ember.testing.conformance \
    --ember-device=cuda -rs

step "autograd on cuda (gradients of an MLP and a CNN vs the CPU)"
$PY - <<'PYEOF'
import ember, ember.nn as nn
for make, shape in ((lambda: nn.Sequential(nn.Linear(32, 64), nn.GELU(), nn.Linear(64, 10)), (16, 32)),
                    (lambda: nn.Sequential(nn.Conv2d(3, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                                           nn.Flatten(), nn.Linear(8 * 8 * 8, 10)), (4, 3, 16, 16))):
    ember.manual_seed(0); m = make(); x = ember.randn(*shape); y = ember.randint(0, 10, (shape[0],))
    grads = []
    for dev in ("cpu", "cuda"):
        mm = make(); mm.load_state_dict(m.state_dict()); mm.to(dev); mm.zero_grad()
        nn.functional.cross_entropy(mm(x.to(dev)), y.to(dev)).backward()
        grads.append([p.grad.cpu() for p in mm.parameters()])
    for a, b in zip(*grads):
        assert ember.allclose(a, b, rtol=1e-3, atol=1e-4), (a - b).abs().max()
print("autograd on cuda: gradients match the CPU")
PYEOF

step "demo on cuda"
if [ -f examples/demo.py ]; then timeout 300 $PY examples/demo.py --device cuda; else echo "no examples/demo.py"; fi

step "DLPack and __cuda_array_interface__ with CuPy and torch.cuda"
$PY - <<'PYEOF'
import cupy, torch, ember
ptr = lambda t: t.__cuda_array_interface__["data"][0]  # (Tensor.data_ptr() is host-only)
x = ember.arange(6, dtype=ember.float32, device="cuda").reshape(2, 3)
assert x.__dlpack_device__() == (2, 0)
c = cupy.from_dlpack(x); assert c.data.ptr == ptr(x), "CuPy copied"
t = torch.from_dlpack(x); assert t.is_cuda and t.data_ptr() == ptr(x)
cai = x.__cuda_array_interface__
assert cai["shape"] == (2, 3) and cai["typestr"] == "<f4"
assert cupy.asarray(x).data.ptr == ptr(x), "CuPy copied through the CUDA Array Interface"
assert not hasattr(ember.zeros(1), "__cuda_array_interface__")
b = ember.ones(4, dtype=ember.bfloat16, device="cuda"); assert torch.from_dlpack(b).dtype == torch.bfloat16
a = cupy.arange(3.0); y = ember.from_dlpack(a)
assert y.device.type == "cuda" and ptr(y) == a.data.ptr and y.tolist() == [0.0, 1.0, 2.0]
tc = torch.arange(4.0, device="cuda"); z = ember.from_dlpack(tc)
assert ptr(z) == tc.data_ptr(); z += 1; torch.cuda.synchronize(); ember.cuda.synchronize()
assert tc.tolist() == [1.0, 2.0, 3.0, 4.0], "writes are not shared"
tb = torch.ones(3, dtype=torch.bfloat16, device="cuda"); assert ember.from_dlpack(tb).dtype == ember.bfloat16
h = ember.randn(1 << 20).to("cuda", non_blocking=True); ember.cuda.synchronize(); assert h.isfinite().all()
print("DLPack, __cuda_array_interface__, non_blocking: ok")
PYEOF

step "benchmarks (ember vs torch.cuda, same run)"
timeout 600 $PY benchmarks/cuda.py
