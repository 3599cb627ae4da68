#!/usr/bin/env bash
# Stage "sanitizers" of gpu-kit/check: compute-sanitizer memcheck, racecheck and synccheck
# on one generated kernel per idiom (odd sizes, so the edge blocks' predicated code runs
# too), each through `polyfuse run --backend=cuda`, which also checks the result.
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"

log="$OUT_DIR/sanitizers.log"
: >"$log"
ready_or_skip sanitizers "${SANITIZER:-}" \
  "compute-sanitizer not found (PATH, /usr/local/cuda*/bin, /usr/local/cuda*/compute-sanitizer)" || exit 0

examples="$KIT/share/polyfuse/examples"
sizes=(-D M=200 -D N=136 -D K=72)
# name|example|extra options
kernels=("gemm|gemm|" "gemm_bias_relu|gemm_bias_relu|" "gemm_bias_relu_splitk2|gemm_bias_relu|--split-k 2"
  "relu_gemm|relu_gemm|" "add_gemms|add_gemms|" "batched_gemm|batched_gemm|-D B=2")
tools=(memcheck racecheck synccheck)
scratch="$WORK/sanitizers"
mkdir -p "$scratch"

# run_all PREFIX SECONDS [SANITIZER ARGS...]: every kernel at once; PREFIX names the logs.
run_all() {
  local prefix=$1 seconds=$2 entry name example extra pids=()
  shift 2
  for entry in "${kernels[@]}"; do
    IFS='|' read -r name example extra <<<"$entry"
    # shellcheck disable=SC2086  # extra options are words
    timeout --kill-after=5 "$seconds" "$@" "$KIT/bin/polyfuse" run "$examples/$example.tc" "${sizes[@]}" $extra \
      --backend=cuda --repeat 1 >"$scratch/$prefix-$name.log" 2>&1 &
    pids+=($!)
  done
  local i=0 status
  for entry in "${kernels[@]}"; do
    wait "${pids[i]}"
    status=$?
    echo "$status" >"$scratch/$prefix-${entry%%|*}.status"
    i=$((i + 1))
  done
}

start=$(now)
# Without the sanitizer first: fills the kernel cache and checks every result.
run_all plain 60
for tool in "${tools[@]}"; do
  left=$((STAGE_SECONDS - ($(now) - start) - 5))
  run_all "$tool" $((left / 2 > 90 ? 90 : left / 2)) "$SANITIZER" --tool "$tool" --error-exitcode 86 --print-limit 20
done

# A verdict per kernel and tool: clean, errors (with the sanitizer's count), wrong result...
verdict() {
  local file=$1 status
  status=$(cat "${file%.log}.status" 2>/dev/null || echo '?')
  case "$status" in
    0) echo clean ;;
    86) echo "ERRORS($(grep -Eo '(ERROR|RACECHECK) SUMMARY: [0-9]+' "$file" | grep -Eo '[0-9]+$' | head -n 1))" ;;
    1) echo "CHECK-FAILED" ;;
    124 | 137) echo "TIMEOUT" ;;
    *) echo "EXIT-$status" ;;
  esac
}
{
  printf '%-24s %-14s' kernel plain
  printf ' %-14s' "${tools[@]}"
  echo
  for entry in "${kernels[@]}"; do
    name=${entry%%|*}
    printf '%-24s %-14s' "$name" "$(verdict "$scratch/plain-$name.log" | sed 's/^clean$/ok/')"
    for tool in "${tools[@]}"; do printf ' %-14s' "$(verdict "$scratch/$tool-$name.log")"; done
    echo
  done
} >"$scratch/table.txt"
failures=$(awk 'NR > 1' "$scratch/table.txt" | grep -Ec 'ERRORS|FAILED|TIMEOUT|EXIT')
{
  echo "compute-sanitizer: $SANITIZER; sizes: ${sizes[*]}"
  cat "$scratch/table.txt"
  for file in "$scratch"/*.log; do
    printf '\n==== %s (status %s)\n' "$(basename "$file")" "$(cat "${file%.log}.status" 2>/dev/null)"
    tail -n 60 "$file"
  done
} >>"$log"

if ((failures)); then
  record sanitizers FAILED "$failures of ${#kernels[@]} kernels with errors, a wrong result or a time-out (sanitizers.log)"
  add_notes "$scratch/table.txt"
  # The first complaint of the tool itself: tells a kernel's error from a tool that cannot
  # run here (seen on gVisor machines: "Device not supported").
  first=$(cat "$scratch"/{memcheck,racecheck,synccheck}-*.log 2>/dev/null | grep -m1 -E '^========= (Error|ERROR|Invalid|Race|Barrier)' | cut -c1-100)
  [[ -n "$first" ]] && note "first report: $first"
else
  record sanitizers ok "${#kernels[@]} kernels clean under ${tools[*]} in $(($(now) - start)) s"
fi
