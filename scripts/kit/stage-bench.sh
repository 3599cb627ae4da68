#!/usr/bin/env bash
# Stage "bench" of gpu-kit/check --no-gpu: polyfuse-bench from the kit lists the quick
# protocol (--dry-run: every idiom x 2 dtypes on 20 sizes), compiles one problem's kernels with NVRTC, and
# without a GPU refuses a run, writing nothing.
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

echo "== --compile-only" >>"$log"
run_boxed 120 "$log" "$bench" --compile-only --size 256x256x128 --idiom gemm_bias_relu --dtype f16 --no-tune --arch sm_90
status=$?
((status == 0)) || bad="${bad:+$bad; }--compile-only: status $status"

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
  record bench ok "--dry-run --quick lists $problems problems; --compile-only compiles; a run without a GPU is refused"
else
  record bench ok "--dry-run --quick lists $problems problems; --compile-only compiles"
fi
