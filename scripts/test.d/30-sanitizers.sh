#!/usr/bin/env bash
# A second build with AddressSanitizer + UndefinedBehaviorSanitizer (POLYFUSE_SANITIZE=ON)
# that runs the unit tests of the compiler (front end with its bounded mutation-fuzz loop,
# schedule passes, code generation), the reference evaluator and kernels/cpu. The emulator
# (ucontext fibers) and the NVRTC/nvcc tests stay in the main build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="${POLYFUSE_ASAN_BUILD_DIR:-$root/build-asan}"
tests=(frontend_tests schedule_tests codegen_tests reference_tests kernels_cpu_tests)

cmake -S "$root" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DPOLYFUSE_SANITIZE=ON >/dev/null
cmake --build "$build" --parallel "$(nproc)" --target "${tests[@]}"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export POLYFUSE_FUZZ_SECONDS="${POLYFUSE_FUZZ_SECONDS:-20}"
for test in "${tests[@]}"; do
  binary=$(find "$build/tests" -name "$test" -type f -perm -u+x | head -n 1)
  echo "-- sanitizers: $test"
  "$binary" --gtest_brief=1
done
echo "sanitizers: ${#tests[@]} test programs passed under ASan+UBSan"
