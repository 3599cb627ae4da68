#!/usr/bin/env bash
# Stage "bench" of gpu-kit/check --no-gpu: polyfuse-bench from the kit lists the quick
# protocol (--dry-run: every idiom x 2 dtypes on 20 sizes) and the quick convolutions
# (--dry-run --conv --quick: 5 layers against cuDNN), compiles one problem's kernels and the
# quick layers' conv + bias + ReLU with NVRTC, and without a GPU refuses a run, writing nothing.
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"

log="$OUT_DIR/bench.log"
: >"$log"
bench="$KIT/bin/polyfuse-bench"
problems=""
bad=""

run_boxed 60 "$WORK/dry-run.txt" "$bench" --dry-run --quick
status=$?
cat "$WORK/dry-run.txt" >>"$log"
problems=$(grep -Ec '^run +[0-9]+/[0-9]+ +M=' "$WORK/dry-run.txt")
# The listing states its count: 20 sizes x every idiom x 2 dtypes.
stated=$(sed -n 's/^problems: \([0-9]*\) (20 sizes x [0-9]* idioms x 2 dtypes).*/\1/p' "$WORK/dry-run.txt")
[[ $status -eq 0 && -n "$stated" && $problems -eq $stated ]] ||
  bad="--dry-run --quick: status $status, $problems problems listed (${stated:-no count of 20 sizes x idioms x 2 dtypes} stated)"

echo "== --dry-run --conv --quick --dtype f16" >>"$log"
run_boxed 60 "$WORK/dry-run-conv.txt" "$bench" --dry-run --conv --quick --dtype f16
status=$?
cat "$WORK/dry-run-conv.txt" >>"$log"
convs=$(grep -Ec '^conv +[0-9]+/5 .*: cudnn_conv ' "$WORK/dry-run-conv.txt")
# 4 layers x 2 idioms and the residual on the one "same" layer with K = C; the grouped layer x
# the 2 grouped idioms
((status == 0 && convs == 11)) || bad="${bad:+$bad; }--dry-run --conv --quick: status $status, $convs problems listed (11 expected)"

echo "== --compile-only" >>"$log"
run_boxed 120 "$log" "$bench" --compile-only --size 256x256x128 --idiom gemm_bias_relu --dtype f16 --no-tune --arch sm_90
status=$?
((status == 0)) || bad="${bad:+$bad; }--compile-only: status $status"
run_boxed 120 "$log" "$bench" --compile-only --conv --quick --idiom conv_bias_relu --idiom conv_grouped_bias_relu --dtype f16 --conv-batch 2 --arch sm_90
status=$?
((status == 0)) || bad="${bad:+$bad; }--compile-only --conv: status $status"

if [[ "${HAVE_GPU:-0}" != 1 ]]; then
  echo "== a run without a GPU" >>"$log"
  run_boxed 60 "$log" "$bench" --quick --csv "$WORK/none.csv" --summary "$WORK/none.txt"
  status=$?
  if ((status != 3)) || ! grep -q 'no CUDA device' "$log" || [[ -e "$WORK/none.csv" ]]; then
    bad="${bad:+$bad; }a run without a GPU: status $status (3 and nothing written expected)"
  fi
fi

if [[ -n "$bad" ]]; then
  record bench FAILED "$bad"
elif [[ "${HAVE_GPU:-0}" != 1 ]]; then
  record bench ok "--dry-run --quick lists $problems problems and $convs convolutions; --compile-only compiles; a run without a GPU is refused"
else
  record bench ok "--dry-run --quick lists $problems problems and $convs convolutions; --compile-only compiles"
fi
