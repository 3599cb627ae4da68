#!/usr/bin/env bash
# The sanitizer build (scripts/sanitize-build: clang, ASan + UBSan on every library, shared
# with the fuzz stage) runs the unit tests of the compiler (front end with its bounded mutation-fuzz loop,
# schedule passes, code generation), the reference evaluator, kernels/cpu, and the emulator:
# its own tests, the device helpers' and a selection of generated kernels (GEMM, fused
# idioms, the hand-edited kernels that must fail), with the kernels it builds at run time
# sanitized too (POLYFUSE_EMU_CXXFLAGS). The fibers announce their stack switches to ASan.
# The NVRTC/nvcc tests stay in the main build.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
# (the longest first: they run side by side, one per core; 2026-12-02 on 2 cores, codegen_emu 263 s,
# codegen 291 s before its filter below, frontend 35 s, kernels_cpu 27 s, the others 3-12 s)
tests=(codegen_emu_sanitizer_tests codegen_tests frontend_tests kernels_cpu_tests emu_tests kernels_cuda_emu_tests
       schedule_tests reference_tests)
# The generated-kernel tests that run under ASan (codegen_emu_sanitizer_tests: the files of
# these suites only; the odd-shape sweeps and the rest run in the main build).
codegen_emu_filter='GemmEmu.*:FusedEmu.*:MutatedKernelsEmu.*:OutputShapesEmu.EachOutputStoredOnce'
# codegen_tests without its sweep that emits every example under three tile options with sizes
# bound and unbound (a third of its time, about 100 s under ASan on 2 cores; the goldens emit
# every example here too, and the main build runs the sweep).
codegen_filter='-KernelGrid.EveryExampleIsCoveredByItsGrid'

build="$(bash "$root/scripts/sanitize-build" "${tests[@]}")"

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export POLYFUSE_FUZZ_SECONDS="${POLYFUSE_FUZZ_SECONDS:-20}"
# The kernels built at run time link against the clang-built emulator library: the same
# compiler, so one ASan runtime.
export POLYFUSE_EMU_CXX=clang++
export POLYFUSE_EMU_CXXFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer"
export POLYFUSE_EMU_CACHE_DIR="$build/emu-cache"
# The test programs run side by side, one per core, each into its own log (printed when it
# fails).
logs="$(mktemp -d "${TMPDIR:-/tmp}/polyfuse-sanitizers.XXXXXX")"
run_test() {
  local test=$1 start=$SECONDS binary filter=()
  binary=$(find "$build/tests" -name "$test" -type f -perm -u+x | head -n 1)
  [[ $test == codegen_emu_sanitizer_tests ]] && filter=(--gtest_filter="$codegen_emu_filter")
  [[ $test == codegen_tests ]] && filter=(--gtest_filter="$codegen_filter")
  local status=0
  "$binary" --gtest_brief=1 "${filter[@]}" >"$logs/$test.log" 2>&1 || status=$?
  echo "$status $((SECONDS - start))" >"$logs/$test.status"
}
for test in "${tests[@]}"; do
  while (($(jobs -rp | wc -l) >= $(nproc))); do wait -n || true; done
  run_test "$test" &
done
wait
failed=0
for test in "${tests[@]}"; do
  read -r status seconds <"$logs/$test.status" || { status=1; seconds=?; }
  echo "-- sanitizers: $test: exit $status, $seconds s"
  if ((status != 0)); then
    cat "$logs/$test.log"
    failed=1
  fi
done
((failed == 0)) || { echo "sanitizers: a test program failed under ASan+UBSan (logs in $logs)"; exit 1; }
rm -rf "$logs"
echo "sanitizers: ${#tests[@]} test programs passed under ASan+UBSan"
