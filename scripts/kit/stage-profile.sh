#!/usr/bin/env bash
# Stage "profile" of gpu-kit/check: Nsight Compute on polyfuse's default 4096^3 f16 GEMM
# and on two fused kernels (GEMM + bias + ReLU, ReLU + GEMM), one launch each, through polyfuse-bench
# (which checks the output first). The key metrics per kernel go to the summary; ncu's
# details page to profile.txt. The clocks are left as they are (--clock-control none).
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"

log="$OUT_DIR/profile.txt"
: >"$log"
ready_or_skip profile "${NCU:-}" "ncu not found (PATH, /usr/local/cuda*/bin, /opt/nvidia/nsight-compute)" || exit 0
notes="$WORK/profile-notes.txt"
: >"$notes"
have python3 || echo "python3 not found: ncu's details page only, no key-metric lines" >>"$notes"

sections=(--section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis
  --section MemoryWorkloadAnalysis_Tables --section Occupancy --section WarpStateStats --section LaunchStats)
size=4096
flops=$((2 * size * size * size))
start=$(now)
failed=0
kernels=(gemm gemm_bias_relu relu_gemm)  # relu_gemm: the prologue transformed in shared memory (2026-12-01)
for i in "${!kernels[@]}"; do
  kernel=${kernels[i]}
  report="$WORK/profile-$kernel"
  bench=("$KIT/bin/polyfuse-bench" --size "${size}x${size}x${size}" --idiom "$kernel" --dtype f16 --no-tune
    --warmup 0 --repeats 1 --spin-ms 0 --samples 256 --csv "$WORK/profile-$kernel.csv" --summary "$WORK/profile-$kernel.txt")
  # This kernel's share of the time left: the kernels after it get as much each.
  left=$(((STAGE_SECONDS - ($(now) - start)) / (${#kernels[@]} - i)))
  echo "==== ncu: $kernel (f16, ${size}^3, default tiles), up to $left s" >>"$log"
  run_boxed "$left" "$log" "$NCU" --target-processes all --clock-control none -k "regex:^${kernel}\$" -c 1 \
    "${sections[@]}" -f -o "$report" "${bench[@]}"
  if [[ ! -s "$report.ncu-rep" ]]; then
    # Some ncu versions lack a section: once more with ncu's default set.
    echo "==== no report with the chosen sections; again with ncu's default set" >>"$log"
    left=$(((STAGE_SECONDS - ($(now) - start)) / (${#kernels[@]} - i)))
    run_boxed "$left" "$log" "$NCU" --target-processes all --clock-control none -k "regex:^${kernel}\$" -c 1 \
      -f -o "$report" "${bench[@]}"
  fi
  if [[ ! -s "$report.ncu-rep" ]]; then
    echo "$kernel: no profile ($(grep -m1 -E '==ERROR==|==WARNING==' "$log" | cut -c1-80))" >>"$notes"
    failed=$((failed + 1))
    continue
  fi
  timeout 60 "$NCU" --import "$report.ncu-rep" --page details >>"$log" 2>&1
  timeout 60 "$NCU" --import "$report.ncu-rep" --page raw --csv >"$report-raw.csv" 2>>"$log"
  if have python3; then
    python3 "$KIT/libexec/ncu_summary.py" "$report-raw.csv" "$kernel" "$flops" >"$report.summary" 2>&1 ||
      failed=$((failed + 1))
    cat "$report.summary" >>"$log"
  fi
done

if ((failed)); then
  record profile FAILED "$failed of ${#kernels[@]} kernels without a profile or metrics (profile.txt)"
else
  record profile ok "${kernels[*]}, f16 ${size}^3, one launch each, in $(($(now) - start)) s"
fi
add_notes "$notes"
for kernel in "${kernels[@]}"; do add_notes "$WORK/profile-$kernel.summary"; done
