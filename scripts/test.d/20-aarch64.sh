#!/usr/bin/env bash
# kernels/cpu on aarch64: cross-compiles the library and its tests standalone with
# g++-aarch64-linux-gnu (kernels/cpu/cmake/aarch64-linux-gnu.cmake) into build-aarch64/
# and runs them under qemu-aarch64 through CTest (label "aarch64"). The Neon
# microkernels are only exercised here. Test sizes are bounded under emulation.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${POLYFUSE_AARCH64_BUILD_DIR:-$root/build-aarch64}"
start=$SECONDS

for tool in aarch64-linux-gnu-g++ qemu-aarch64; do
  command -v "$tool" >/dev/null || { echo "20-aarch64: $tool missing (scripts/deps installs it)" >&2; exit 1; }
done

if [[ ! -f "$build/CMakeCache.txt" ]]; then
  cmake -S "$root/kernels/cpu" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_TOOLCHAIN_FILE="$root/kernels/cpu/cmake/aarch64-linux-gnu.cmake" >/dev/null
fi
cmake --build "$build" --parallel "$(nproc)"
ctest --test-dir "$build" -L aarch64 --no-tests=error --output-on-failure --parallel "$(nproc)" --timeout 600
echo "20-aarch64: passed in $((SECONDS - start)) s"
