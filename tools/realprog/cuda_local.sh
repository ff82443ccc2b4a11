#!/usr/bin/env bash
# Installs the CUDA 13.0 compiler tool chain that tools/realprog/suite.py builds with (nvcc,
# cicc, ptxas, the CUDA and CCCL/libcu++/CUB headers) from NVIDIA's PyPI wheels, without a
# driver, a GPU or root:
#
#     tools/realprog/cuda_local.sh [PREFIX]          # default: ~/.local/cuda13
#     export PATH=PREFIX/nvidia/cu13/bin:$PATH
#     python3 tools/realprog/suite.py build
#
# The wheels are only downloaded (`pip download --no-deps`) and unzipped into PREFIX; nothing
# is installed into a Python environment.
set -euo pipefail
prefix=${1:-$HOME/.local/cuda13}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --dest "$tmp" \
    "nvidia-cuda-nvcc==13.0.*" "nvidia-cuda-runtime==13.0.*" "nvidia-cuda-cccl==13.0.*" \
    "nvidia-cuda-crt==13.0.*" "nvidia-nvvm==13.0.*"
mkdir -p "$prefix"
for w in "$tmp"/*.whl; do
    echo "unpacking $(basename "$w")"
    python3 -m zipfile -e "$w" "$prefix"
done
# zip archives do not keep the executable bits.
chmod +x "$prefix"/nvidia/cu13/bin/* "$prefix"/nvidia/cu13/nvvm/bin/* 2>/dev/null || true
bin="$prefix/nvidia/cu13/bin"
"$bin/nvcc" --version | tail -1
echo "export PATH=$bin:\$PATH"
