#!/usr/bin/env bash
# What partial-tile predication costs in the k-loop, measured statically (no GPU): compiles
# generated GEMM kernels with nvcc for sm_90, disassembles them (cuobjdump + nvdisasm, which
# the CUDA toolkit here lacks: fetched once from PyPI into a cache folder) and profiles
# every loop that issues tensor-core MMAs (bench/gpu/sass_loops.py).
#
#   bench/gpu/predication_sass.sh [build-dir]       (default: build)
#
# A kernel with partial tiles has two k-loops (full blocks, edge blocks); the full blocks'
# loop is compared with the k-loop of a kernel whose sizes are multiples of the tile.
# Static counts: instructions in the loop body, not executed instructions.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${1:-$root/build}"
polyfuse="$build/tools/polyfuse"
nvcc="${NVCC:-/usr/local/cuda/bin/nvcc}"
tools="${XDG_CACHE_HOME:-$HOME/.cache}/polyfuse/sass-tools"
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

if [ ! -x "$tools/bin/cuobjdump" ] || [ ! -x "$tools/bin/nvdisasm" ]; then
  mkdir -p "$tools/bin"
  python3 -m pip download --quiet --no-deps -d "$work/wheels" nvidia-cuda-cuobjdump nvidia-cuda-nvdisasm
  for wheel in "$work"/wheels/*.whl; do python3 -m zipfile -e "$wheel" "$work/unpacked"; done
  find "$work/unpacked" -type f \( -name cuobjdump -o -name nvdisasm \) -exec cp {} "$tools/bin/" \;
  chmod +x "$tools/bin/"*
fi

profile() {  # name, polyfuse arguments...
  local name=$1
  shift
  "$polyfuse" compile "$@" --emit=cuda -o "$work/$name.cu"
  local ptxas
  ptxas=$("$nvcc" -arch=sm_90 -cubin -O3 -Xptxas -v -o "$work/$name.cubin" "$work/$name.cu" 2>&1 | grep -oE "Used [0-9]+ registers|[0-9]+ bytes spill stores" | paste -sd ' ')
  echo "== $name: $* ($ptxas)"
  NVDISASM_PATH="$tools/bin" "$tools/bin/cuobjdump" -sass "$work/$name.cubin" | python3 "$root/bench/gpu/sass_loops.py"
}

gemm="$root/examples/gemm.tc"
profile all_full "$gemm" -D M=4096 -D N=4096 -D K=4096
profile edges_in_m_n "$gemm" -D M=4000 -D N=4000 -D K=4096
profile edges_and_k_tail "$gemm" -D M=4000 -D N=4000 -D K=4104
profile unbound_sizes "$gemm"
