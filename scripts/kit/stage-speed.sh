#!/usr/bin/env bash
# Stage "speed" of gpu-kit/check: polyfuse-bench --quick (every idiom x dtype on the
# protocol's first 20 sizes, against cuBLAS, cuBLAS + cuDNN and cuBLASLt), then
# polyfuse-bench --conv --quick --dtype f16 (the convolution idioms on 4 layers at batch 32,
# against cuDNN's fastest algorithm and its fused call; a third of the time), their rows in
# one CSV, their geomean summaries and the plot; then, where python3 has torch with CUDA,
# PyTorch's eager version of each GEMM problem timed into the CSV's torch_ms column
# (bench/gpu/torch_baselines.py; none for the convolutions yet). Then the autotuner (issue 18):
# polyfuse-bench --autotune on GEMM and GEMM + bias + ReLU at 4096^3, f16, for --arch sm_80 (the
# mma.sync path) and --arch sm_90a (the TMA + wgmma path): default, best and autotuned side by
# side, their rows in the CSV too (its arch column tells the paths apart), a sixth of the time.
# Before it, the issues' large problems (issues 18 and 19's goals): GEMM, GEMM + bias + ReLU,
# ReLU + GEMM and SwiGLU at 4096^3 and 8192^3, f16, the default kernels (--no-tune) of both paths
# (--arch sm_90a, --arch sm_80), a sixth of the time; their geomeans join the summary's notes.
# Problems that do not fit the stage's time are left out, and the summaries say so.
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"

log="$OUT_DIR/speed.log"
: >"$log"
csv="$OUT_DIR/bench.csv"
png="$OUT_DIR/bench.png"
ready_or_skip speed "$KIT/bin/polyfuse-bench" "" || exit 0

start=$(now)
limit=$((STAGE_SECONDS - 90))  # room for the problem under way, the plot, PyTorch and the summary
((limit < 30)) && limit=30
conv_limit=$((limit / 3))
tune_limit=$((limit / 6))
large_limit=$((limit / 6))
# --no-tune: one kernel per problem. Sweeping the candidate set per problem took 25 s a problem on
# an H200 (2026-11-30): the stage's time went on 4 problems; the autotuned runs below tune 4096^3.
run_boxed $((STAGE_SECONDS - 15 - conv_limit - tune_limit - large_limit - 20)) "$log" "$KIT/bin/polyfuse-bench" --quick \
  --no-tune --csv "$csv" --summary "$WORK/bench-summary.txt" --time-limit $((limit - conv_limit - tune_limit - large_limit))
status=$?
# The convolutions (issue 24): their rows join the CSV, their summary the GEMMs'.
run_boxed $((STAGE_SECONDS - ($(now) - start) - tune_limit - large_limit - 40)) "$log" "$KIT/bin/polyfuse-bench" --conv \
  --quick --dtype f16 \
  --csv "$WORK/conv.csv" --summary "$WORK/conv-summary.txt" --time-limit "$conv_limit"
conv_status=$?
((status == 0)) && status=$conv_status
conv_rows=0
if [[ -s "$WORK/conv.csv" ]]; then
  conv_rows=$(($(wc -l <"$WORK/conv.csv") - 1))
  if [[ -s "$csv" ]]; then tail -n +2 "$WORK/conv.csv" >>"$csv"; else cp "$WORK/conv.csv" "$csv"; fi
fi
[[ -f "$WORK/conv-summary.txt" ]] && cat "$WORK/conv-summary.txt" >>"$WORK/bench-summary.txt"
# The large problems on both paths: rows into the CSV, each path's geomeans into large-notes.txt.
large_rows=0
: >"$WORK/large-notes.txt"
for arch in sm_90a sm_80; do
  left=$(((STAGE_SECONDS - ($(now) - start) - tune_limit - 40) / 2))
  [[ $arch == sm_80 ]] && left=$((STAGE_SECONDS - ($(now) - start) - tune_limit - 40))
  ((left < 20)) && break
  run_boxed "$left" "$log" "$KIT/bin/polyfuse-bench" --no-tune --arch "$arch" --size 4096x4096x4096 --size 8192x8192x8192 \
    --idiom gemm --idiom gemm_bias_relu --idiom relu_gemm --idiom swiglu --dtype f16 --csv "$WORK/large-$arch.csv" \
    --summary "$WORK/large-$arch-summary.txt" --time-limit $((large_limit / 2))
  large_status=$?
  ((status == 0)) && status=$large_status
  if [[ -s "$WORK/large-$arch.csv" ]]; then
    large_rows=$((large_rows + $(wc -l <"$WORK/large-$arch.csv") - 1))
    if [[ -s "$csv" ]]; then tail -n +2 "$WORK/large-$arch.csv" >>"$csv"; else cp "$WORK/large-$arch.csv" "$csv"; fi
  fi
  [[ -f "$WORK/large-$arch-summary.txt" ]] &&
    awk -v arch="$arch" '$3 == "polyfuse_best" && $4 == "vs" && $5 ~ /^cublas/ {
           baseline = $5; sub(":", "", baseline)
           for (i = 6; i < NF; i++) if ($i == "geomean") { value = $(i + 1); break }
           line[baseline] = line[baseline] " " $1 "/" $2 " " value
         }
         END { for (b in line) print "4096/8192^3 " arch " vs " b ":" line[b] }' "$WORK/large-$arch-summary.txt" |
    sort | fold -s -w 96 >>"$WORK/large-notes.txt"
done
# The autotuner on both paths (its summaries are in speed.log).
tuned_rows=0
archs=(sm_80 sm_90a)
for i in "${!archs[@]}"; do
  arch=${archs[i]}
  left=$(((STAGE_SECONDS - ($(now) - start) - 40) / (${#archs[@]} - i)))
  ((left < 20)) && break
  run_boxed "$left" "$log" "$KIT/bin/polyfuse-bench" --autotune --arch "$arch" --size 4096x4096x4096 --idiom gemm \
    --idiom gemm_bias_relu --dtype f16 --csv "$WORK/tune-$arch.csv" --summary "$WORK/tune-$arch-summary.txt" \
    --time-limit $((tune_limit / 2))
  tune_status=$?
  ((status == 0)) && status=$tune_status
  if [[ -s "$WORK/tune-$arch.csv" ]]; then
    tuned_rows=$((tuned_rows + $(wc -l <"$WORK/tune-$arch.csv") - 1))
    if [[ -s "$csv" ]]; then tail -n +2 "$WORK/tune-$arch.csv" >>"$csv"; else cp "$WORK/tune-$arch.csv" "$csv"; fi
  fi
done
seconds=$(($(now) - start))

plot="no plot"
if [[ -s "$csv" ]] && have python3; then
  if python3 "$KIT/share/polyfuse/bench/gpu/plot.py" "$csv" -o "$png" >>"$log" 2>&1; then
    plot="plot bench.png"
  else
    plot="plot FAILED (speed.log)"
  fi
elif ! have python3; then
  plot="no plot: python3 not found"
fi

# PyTorch's eager calls on the same problems, in the time left (their own check first).
torch_line=""
if [[ -s "$csv" ]] && have python3 && python3 -c "import torch; assert torch.cuda.is_available()" >/dev/null 2>&1; then
  torch_seconds=$((STAGE_SECONDS - ($(now) - start) - 20))
  if run_boxed "$torch_seconds" "$log" python3 "$KIT/share/polyfuse/bench/gpu/torch_baselines.py" "$csv" \
    --time-limit $((torch_seconds - 15)); then
    torch_line="; torch_ms added"
  else
    torch_line="; torch baselines FAILED (speed.log)"
  fi
  grep -E "vs torch: geomean|stopped at the time limit|TORCH CHECK FAILED" "$log" | grep -v "^polyfuse" |
    sed 's/ polyfuse_best vs torch: geomean/ best vs torch/' | fold -s -w 96 >"$WORK/torch-notes.txt"
else
  torch_line="; no torch baselines: python3 has no torch with CUDA"
fi
plot="$plot$torch_line"

rows=$(($(wc -l <"$csv" 2>/dev/null || echo 1) - 1))
case "$status" in
  0) record speed ok "$rows problems ($conv_rows convolutions, $large_rows large, $tuned_rows autotuned) in $seconds s; $plot" ;;
  1) record speed FAILED "a variant failed its correctness check ($rows problems, $seconds s; $plot)" ;;
  124 | 137) record speed FAILED "polyfuse-bench ran out of time after $seconds s ($rows problems in bench.csv; $plot)" ;;
  *) record speed FAILED "polyfuse-bench exited with status $status after $seconds s ($rows problems; $plot; speed.log)" ;;
esac
# For the summary: polyfuse_best's geomean speedup per idiom and dtype against each
# baseline, a few lines (the whole summary is in speed.log).
if [[ -f "$WORK/bench-summary.txt" ]]; then
  awk '$3 == "polyfuse_best" && $4 == "vs" {
         baseline = $5; sub(":", "", baseline)
         for (i = 6; i < NF; i++) if ($i == "geomean") { value = $(i + 1); break }
         line[baseline] = line[baseline] " " $1 "/" $2 " " value
       }
       END { for (b in line) print "best vs " b ":" line[b] }' "$WORK/bench-summary.txt" |
    fold -s -w 96 >"$WORK/speed-notes.txt"
  grep -E 'stopped at the time limit|CHECK FAILURES|RUN ABORTED' "$WORK/bench-summary.txt" | cut -c1-110 >>"$WORK/speed-notes.txt"
  add_notes "$WORK/speed-notes.txt"
fi
[[ -s "$WORK/large-notes.txt" ]] && add_notes "$WORK/large-notes.txt"
[[ -s "$WORK/torch-notes.txt" ]] && add_notes "$WORK/torch-notes.txt"
