#!/usr/bin/env bash
# gpu-kit/check in GPU mode, on a machine without a GPU: a kit whose executables and tools
# (nvidia-smi, compute-sanitizer, ncu, polyfuse, polyfuse-bench, the test executables,
# plot.py) are the stand-ins of tests/kit/fake_gpu runs every GPU stage's real script, so
# that the orchestration is tested before a GPU machine ever runs it:
#   1. all passes: exit 0, the 8 files, a summary of at most 40 lines printed last, each
#      stage's line and the key numbers parsed from the tools' output;
#   2. a failing test, sanitizer hazards and no ncu: exit 1, each failure named, the later
#      stages still run, the profile skipped with its reason;
#   3. arguments: --help, an unknown option and two folders.
#   check_test.sh SOURCE_ROOT
set -euo pipefail
root=$(cd "${1:?usage: check_test.sh SOURCE_ROOT}" && pwd)
fakes="$root/tests/kit/fake_gpu"
work=$(mktemp -d "${TMPDIR:-/tmp}/polyfuse-check-test.XXXXXX")
trap 'rm -rf "$work"' EXIT

fail() {
  echo "check_test: FAILED: $*" >&2
  [[ -f "$log" ]] && { echo "---- check's output:" >&2; cat "$log" >&2; }
  exit 1
}
expect_line() {  # expect_line FILE REGEX
  grep -Eq "$2" "$1" || fail "no line matching '$2' in $(basename "$1")"
}

kit="$work/gpu-kit"
mkdir -p "$kit"/{bin,lib,libexec,share/polyfuse/kit,share/polyfuse/bench/gpu,share/polyfuse/examples}
cp "$root/scripts/kit/check" "$kit/"
cp "$root"/scripts/kit/{lib.sh,inventory.sh,stage-*.sh,*.py} "$kit/libexec/"
cp "$fakes/polyfuse" "$fakes/polyfuse-bench" "$kit/bin/"
for name in codegen_gpu_tests gpu_emu_tests runtime_api_tests runtime_cuda_tests; do cp "$fakes/gtest" "$kit/bin/$name"; done
cp "$fakes/plot.py" "$kit/share/polyfuse/bench/gpu/plot.py"
cp "$root"/examples/*.tc "$kit/share/polyfuse/examples/"
printf 'commit=fake\ndate=today\nglibc_needed=2.17\nglibcxx_needed=GLIBCXX_3.4.19\n' >"$kit/share/polyfuse/kit/manifest.txt"
mkdir -p "$work/tools" "$work/tools-no-ncu"
cp "$fakes/nvidia-smi" "$fakes/compute-sanitizer" "$fakes/ncu" "$work/tools/"
cp "$fakes/nvidia-smi" "$fakes/compute-sanitizer" "$work/tools-no-ncu/"

# 1. Everything passes.
log="$work/log1"
status=0
(cd "$work" && POLYFUSE_KIT_PYTHON=/nonexistent/python3 PATH="$work/tools:$PATH" "$kit/check" "$work/out1") >"$log" 2>&1 ||
  status=$?
((status == 0)) || fail "scenario 1 exited with $status"
expected="bench.csv bench.png correctness.log inventory.txt profile.txt sanitizers.log speed.log summary.txt"
[[ "$(cd "$work/out1" && echo *)" == "$expected" ]] || fail "scenario 1 wrote $(cd "$work/out1" && echo *), not $expected"
summary="$work/out1/summary.txt"
(($(wc -l <"$summary") <= 40)) || fail "the summary has $(wc -l <"$summary") lines"
[[ "$(tail -n "$(wc -l <"$summary")" "$log")" == "$(cat "$summary")" ]] || fail "the summary is not the tail of the output"
expect_line "$summary" '^GPU: NVIDIA H100 80GB HBM3, 580.95.05, 81559 MiB, 9.0; driver CUDA 13.0$'
expect_line "$summary" '^correctness +ok +passed=[0-9]+ failed=0 skipped=[0-9]+ unfinished=0'
expect_line "$summary" '^sanitizers +ok +6 kernels clean under memcheck racecheck synccheck'
expect_line "$summary" '^speed +ok +11 problems \(1 convolutions, 4 large, 4 autotuned\) in [0-9]+ s; plot bench.png'
expect_line "$summary" '^ *4096/8192\^3 sm_90a vs cublas_cudnn: gemm/f16 1.102x'
expect_line "$summary" '^ *4096/8192\^3 sm_80 vs cublaslt: gemm/f16 0.912x gemm/bf16 0.950x'
expect_line "$summary" 'best vs cublaslt: gemm/f16 0.912x gemm/bf16 0.950x'
expect_line "$summary" 'best vs cudnn_fused: conv_bias_relu/f16 0.500x'
expect_line "$summary" '^python +SKIPPED +no /nonexistent/python3: the extension cannot be built here'
expect_line "$summary" '^profile +ok +gemm gemm_bias_relu relu_gemm, f16 4096\^3'
expect_line "$summary" 'gemm: 1.25 msecond, 110.0 TFLOP/s; grid 1,024 x 256 threads, 168 registers/thread'
expect_line "$summary" 'tensor pipe: pipe_tensor_op_hmma_cycles_active 71.5%; occupancy 12.4%'
expect_line "$summary" 'stalls \(cycles per issued instruction\): long_scoreboard 1.92, barrier 0.84'
expect_line "$summary" '^verdict: every stage passed'

# 2. A failing test, racecheck hazards, no ncu: every stage still runs.
log="$work/log2"
status=0
(cd "$work" && FAKE_TEST_FAILURE=1 FAKE_RACES=1 PATH="$work/tools-no-ncu:$PATH" "$kit/check" "$work/out2") >"$log" 2>&1 ||
  status=$?
((status == 1)) || fail "scenario 2 exited with $status, not 1"
summary="$work/out2/summary.txt"
expect_line "$summary" '^correctness +FAILED +passed=[0-9]+ failed=1 '
expect_line "$summary" 'FAILED: codegen_gpu_tests Configs/CudaGemm.MatchesReference/case0: gpu_run_test.cc:41: Failure'
expect_line "$summary" '^sanitizers +FAILED +6 of 6 kernels'
expect_line "$summary" '^ +gemm +ok +clean +ERRORS\(2\) +clean'
expect_line "$summary" '^speed +ok'
if [[ -z "$(PATH=/usr/bin:/bin command -v ncu)" ]] && ! compgen -G '/usr/local/cuda*/bin/ncu' >/dev/null; then
  expect_line "$summary" '^profile +SKIPPED +ncu not found'
fi
expect_line "$summary" '^verdict: 2 stage\(s\) FAILED'

# 3. Arguments.
log="$work/log3"
"$kit/check" --help >"$log" 2>&1 || fail "--help exited non-zero"
expect_line "$log" '^  gpu-kit/check \[OUTDIR\] +on a GPU machine'
status=0
"$kit/check" --frobnicate >"$log" 2>&1 || status=$?
if ((status != 2)) || ! grep -q "unknown option '--frobnicate'" "$log"; then fail "an unknown option: status $status"; fi
status=0
"$kit/check" "$work/a" "$work/b" >"$log" 2>&1 || status=$?
if ((status != 2)) || ! grep -q "one output folder only" "$log"; then fail "two folders: status $status"; fi
echo "check_test: the GPU stages ran as expected on stand-ins (3 scenarios)"
