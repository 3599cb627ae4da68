# shellcheck shell=bash
# Shared by gpu-kit/check and its stages (sourced, never run): the kit's layout, time
# budgets, results, and finding the CUDA libraries a bare machine keeps in odd places.
#
# Variables the check exports before a stage runs:
#   KIT          the kit's folder (bin/ lib/ libexec/ share/polyfuse/)
#   OUT_DIR      where the stage writes its files (at most 8 in all, see check)
#   WORK         scratch folder (caches, test consoles, reports), removed at the end
#   STAGE_SECONDS  the stage's time budget; a stage stops its tools before it runs out

# Seconds since the epoch.
now() { date +%s; }

# record STAGE STATUS MESSAGE: the one line the summary prints for a stage, with STATUS
# one of ok, FAILED, SKIPPED. Detail lines go with `note`.
record() {
  printf '%-12s %-8s %s\n' "$1" "$2" "$3" >>"$WORK/results.txt"
}

# note TEXT: a line for the summary under the current stage's result line.
note() {
  printf '             %s\n' "$*" >>"$WORK/results.txt"
}

# run_boxed SECONDS LOG COMMAND...: runs COMMAND with stdout and stderr appended to LOG,
# killed after SECONDS (then KILL 10 s later). Returns the command's status; 124 or 137
# mean it ran out of time.
run_boxed() {
  local seconds=$1 log=$2
  shift 2
  if ((seconds < 1)); then
    echo "(not run: no time left) $*" >>"$log"
    return 124
  fi
  timeout --kill-after=10 "$seconds" "$@" >>"$log" 2>&1
}

# have TOOL: whether TOOL is on the PATH.
have() { command -v "$1" >/dev/null 2>&1; }

# The folders where a CUDA machine may keep its libraries: the toolkit, the driver's mount,
# and the Python wheels of PyTorch (nvidia-*-cu13: cuDNN may live only there).
cuda_library_folders() {
  local nvcc_dir
  if have nvcc; then
    nvcc_dir=$(dirname "$(readlink -f "$(command -v nvcc)")")
    echo "$nvcc_dir/../lib64" "$nvcc_dir/../lib" "$nvcc_dir/../targets/x86_64-linux/lib"
  fi
  local folder
  for folder in "${CUDA_HOME:-}" "${CUDA_PATH:-}" /usr/local/cuda /usr/local/cuda-*; do
    [[ -n "$folder" ]] && echo "$folder/lib64" "$folder/lib" "$folder/targets/x86_64-linux/lib"
  done
  echo /usr/local/nvidia/lib64 /usr/local/nvidia/lib /usr/lib/x86_64-linux-gnu /usr/lib64 /usr/lib/wsl/lib
  # Python wheels (nvidia-cudnn-cu13, ...): where the machine's python3 keeps them, and the
  # usual places if asking it fails.
  local wheel
  for wheel in /opt/*/.venv/lib/python3*/site-packages/nvidia/*/lib /usr/local/lib/python3*/dist-packages/nvidia/*/lib \
    /usr/lib/python3/dist-packages/nvidia/*/lib; do
    [[ -d "$wheel" ]] && echo "$wheel"
  done
  if have python3; then
    python3 - <<'PY' 2>/dev/null
import glob, site, sys
roots = set(site.getsitepackages() + [site.getusersitepackages()] + [p for p in sys.path if p.endswith("-packages")])
for root in sorted(roots):
    for lib in sorted(glob.glob(root + "/nvidia/*/lib")):
        print(lib)
PY
  fi
}

# find_library SONAME: the path the dynamic loader would use (ldconfig's cache or
# LD_LIBRARY_PATH), else the first match in cuda_library_folders; nothing if none.
find_library() {
  local soname=$1 folder path
  path=$(ldconfig -p 2>/dev/null | awk -v n="$soname" '$1 == n && /x86-64/ { print $NF; exit }')
  if [[ -n "$path" ]]; then
    echo "$path"
    return
  fi
  local IFS=:
  for folder in ${LD_LIBRARY_PATH:-}; do
    [[ -n "$folder" && -e "$folder/$soname" ]] && { echo "$folder/$soname"; return; }
  done
  unset IFS
  CUDA_FOLDERS=${CUDA_FOLDERS:-$(cuda_library_folders)}
  for folder in $CUDA_FOLDERS; do
    [[ -e "$folder/$soname" ]] && { echo "$folder/$soname"; return; }
  done
}

# The kit's test executables: every test that needs a GPU is in one of them (and skips,
# saying why, without one).
KIT_TESTS=(codegen_gpu_tests gpu_emu_tests runtime_api_tests runtime_cuda_tests)

# run_tests SECONDS LOGDIR: runs every test executable of the kit at once, the long one
# (codegen_gpu_tests) split into shards (GoogleTest's GTEST_TOTAL_SHARDS) when the
# machine has the cores; each process's console goes to LOGDIR/<binary>.<shard>.log and
# each has its own emulator cache. Returns 1 if any process failed or timed out.
run_tests() {
  local seconds=$1 logdir=$2 name shards i pid status=0
  local cores
  cores=$(nproc)
  local pids=()
  for name in "${KIT_TESTS[@]}"; do
    shards=1
    [[ $name == codegen_gpu_tests ]] && shards=$((cores >= 16 ? 8 : cores >= 4 ? cores / 2 : 1))
    # The Hopper tests one per process: a kernel fault (an illegal instruction) is sticky and
    # would fail every later test of its process (seen on an H200, 2026-11-30).
    [[ $name == gpu_emu_tests && $cores -ge 8 ]] && shards=$("$KIT/bin/$name" --gtest_list_tests 2>/dev/null | grep -c '^  ')
    ((shards >= 1)) || shards=1
    for ((i = 0; i < shards; i++)); do
      GTEST_TOTAL_SHARDS=$shards GTEST_SHARD_INDEX=$i POLYFUSE_EMU_CACHE_DIR="$WORK/emu-cache-$name-$i" \
        timeout --kill-after=10 "$seconds" "$KIT/bin/$name" --gtest_color=no >"$logdir/$name.shard$i.log" 2>&1 &
      pids+=($!)
    done
  done
  # 77: every test the process ran was skipped (tests/support/test_main.cc); the table
  # below tells skips from passes.
  local rc
  for pid in "${pids[@]}"; do
    rc=0
    wait "$pid" || rc=$?
    [[ $rc -eq 0 || $rc -eq 77 ]] || status=1
  done
  return "$status"
}

# show_capped FILE: FILE, or its first 600 KB and last 200 KB when it is longer than 1 MB
# (a failing check in a loop can print a line per element; the logs must come back).
show_capped() {
  local size
  size=$(stat -c %s "$1")
  if ((size <= 1000000)); then
    cat "$1"
  else
    head -c 600000 "$1"
    printf '\n... (%d bytes left out) ...\n' $((size - 800000))
    tail -c 200000 "$1"
  fi
}

# tests_report LOGDIR LOG: the table per family (gtest_table.py) into LOG, then every
# process's console; prints the TOTAL line. The summary's lines are left in
# LOGDIR/summary.txt (see add_notes).
tests_report() {
  local logdir=$1 log=$2
  {
    if have python3; then
      python3 "$KIT/libexec/gtest_table.py" --summary "$logdir/summary.txt" "$logdir"/*.log
    else
      echo "python3 not found: counts only, no table per family"
      cat "$logdir"/*.log | awk '
        /^\[       OK \] .* \([0-9]+ ms\)$/ { ok++ }
        /^\[  FAILED  \] .* \([0-9]+ ms\)$/ { failed++ }
        /^\[  SKIPPED \] .* \([0-9]+ ms\)$/ { skipped++ }
        END { printf "TOTAL passed=%d failed=%d skipped=%d unfinished=?\n", ok, failed, skipped }'
    fi
    for file in "$logdir"/*.log; do
      printf '\n==== %s\n' "$(basename "$file")"
      show_capped "$file"
    done
  } >>"$log" 2>&1
  grep -m1 '^TOTAL ' "$log"
}

# add_notes FILE: each line of FILE as a note under the stage's result line.
add_notes() {
  local line
  [[ -f "$1" ]] || return 0
  while IFS= read -r line; do note "$line"; done <"$1"
}

# test_stage STAGE: the kit's test executables (run_tests) within the stage's time, their
# table in $OUT_DIR/STAGE.log and STAGE's result: FAILED when a test failed, did not finish
# or no test passed, and on a GPU check also when GPU tests were skipped for want of a
# device.
test_stage() {
  local stage=$1 log="$OUT_DIR/$1.log" logs="$WORK/$1" start status total result
  : >"$log"
  mkdir -p "$logs"
  start=$(now)
  run_tests $((STAGE_SECONDS - 15)) "$logs"
  status=$?
  total=$(tests_report "$logs" "$log")
  result="${total#TOTAL } in $(($(now) - start)) s"
  if [[ $status -ne 0 || ! "$total" =~ failed=0\ .*unfinished=0 ]]; then
    record "$stage" FAILED "$result (a process failed or ran out of time: $stage.log)"
  elif ((NO_GPU == 0)) && grep -q '^skipped ([0-9]* tests): no CUDA device' "$log"; then
    record "$stage" FAILED "$result: GPU tests skipped, no CUDA device (inventory.txt)"
  elif [[ "$total" =~ passed=0\  ]]; then
    record "$stage" FAILED "no test passed: $result"
  else
    record "$stage" ok "$result"
  fi
  add_notes "$logs/summary.txt"
}

# ready_or_skip STAGE TOOL WHY: records STAGE as skipped and fails when there is no GPU, or
# when TOOL (a path found by the inventory) is empty, saying WHY.
ready_or_skip() {
  if [[ "${HAVE_GPU:-0}" != 1 ]]; then
    record "$1" SKIPPED "no GPU found (inventory.txt)"
    return 1
  fi
  if [[ -z "$2" ]]; then
    record "$1" SKIPPED "$3"
    return 1
  fi
}
