#!/bin/sh
# Installs everything the test suite needs, on a fresh machine:
#   - ember with its test extras (torch as the oracle, ruff, mypy, hypothesis, ...),
#   - the in-tree plugins: ember-cpu (built by CFFI), ember-opencl, ember-mpi (the
#     "mpi" process group: mpi4py over the MPICH wheel, so pip alone installs a real MPI),
#     and ember-cuda (CuPy; without a GPU its tests compile every CUDA source it can emit
#     with NVRTC from the nvidia-cuda-nvrtc-cu12 wheel, which needs no driver),
#   - an OpenCL platform that can compile on this CPU. pyopencl's wheels bring PoCL 3.0
#     (LLVM 14), which cannot compile for CPUs newer than LLVM 14 knows (AMD Zen 5
#     among them); there Debian's PoCL (pocl-opencl-icd) is installed beside it, and
#     ember-opencl picks the device that compiles (Note [Probing compilers]).
set -eu
cd "$(dirname "$0")/.."
python -m pip install -q -e ".[test]" -e backends_cpu -e backends_opencl -e backends_mpi \
    -e backends_cuda nvidia-cuda-nvrtc-cu12

if python -c "import ember_opencl, sys; sys.exit(0 if ember_opencl.is_available() else 1)"; then
    exit 0
fi
echo "install_test_deps: no OpenCL device compiles here; trying Debian's PoCL" >&2
if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq && apt-get install -y -qq pocl-opencl-icd >/dev/null
else
    echo "install_test_deps: needs root and apt-get to install pocl-opencl-icd;" \
         "the OpenCL tests will be skipped with the reason" >&2
fi
