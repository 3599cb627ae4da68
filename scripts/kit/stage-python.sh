#!/usr/bin/env bash
# Stage "python" of gpu-kit/check: builds the Python extension for the machine's Python
# (share/polyfuse/python/kit-build: module.cc against the kit's libpolyfuse and the machine's
# nanobind), then runs the package's pytest files there: on a GPU check the GPU tests
# (PyTorch and CuPy arrays through DLPack on the framework's stream, polyfuse.torch's custom
# op on CUDA tensors and under torch.compile), which must run, not skip; with --no-gpu the GPU
# tests (they skip, with the reason) and the error paths. POLYFUSE_KIT_PYTHON names the Python
# (default python3); it needs nanobind, numpy and pytest, and CMake and a C++ compiler must be
# there, else the stage is SKIPPED. On a GPU, with torch, the time left goes to
# bench/gpu/torch_programs.py (whole programs against PyTorch: a note per program).
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"

# Its log goes after the other tests' (check writes at most 8 files): correctness.log on a GPU
# check, tests.log with --no-gpu.
log="$OUT_DIR/correctness.log"
((NO_GPU)) && log="$OUT_DIR/tests.log"
echo "== stage python: the Python package's tests" >>"$log"
python=${POLYFUSE_KIT_PYTHON:-python3}
data="$KIT/share/polyfuse"
start=$(now)

missing=""
have cmake || missing="cmake"
have c++ || have g++ || missing="${missing:+$missing, }a C++ compiler"
if ! have "$python"; then
  missing="${missing:+$missing, }$python"
elif ! "$python" -c "import nanobind, numpy, pytest" >>"$log" 2>&1; then
  missing="${missing:+$missing, }nanobind/numpy/pytest for $python"
fi
if [[ -n "$missing" ]]; then
  record python SKIPPED "no $missing: the extension cannot be built here"
  exit 0
fi

build="$WORK/python-build"
generator=()
have ninja && generator=(-G Ninja)
if ! run_boxed $((STAGE_SECONDS / 2)) "$log" cmake -S "$data/python/kit-build" -B "$build" "${generator[@]}" \
  -DPython_EXECUTABLE="$(command -v "$python")" -DPOLYFUSE_KIT_LIB="$KIT/lib" ||
  ! run_boxed $((STAGE_SECONDS - ($(now) - start) - 30)) "$log" cmake --build "$build" --parallel; then
  record python FAILED "building the extension failed after $(($(now) - start)) s ($(basename "$log"))"
  exit 0
fi

tests=("$data/python/tests/test_gpu.py")
((NO_GPU)) && tests+=("$data/python/tests/test_errors.py")
report="$WORK/python-pytest.txt"
PYTHONPATH="$build${PYTHONPATH:+:$PYTHONPATH}" run_boxed $((STAGE_SECONDS - ($(now) - start) - 5)) "$report" \
  "$python" -m pytest -q -rs -p no:cacheprovider "${tests[@]}"
status=$?
cat "$report" >>"$log"
counts=$(grep -E '^[0-9]+ (passed|failed|skipped|error)|^=+ .*(passed|failed|skipped|error).* =+$' "$report" | tail -n 1 |
  sed 's/=//g; s/^ *//; s/ *$//')
seconds=$(($(now) - start))
if ((status != 0)); then
  record python FAILED "pytest: ${counts:-status $status} ($seconds s; $(basename "$log"))"
elif ((!NO_GPU)) && grep -q "SKIPPED" "$report"; then
  record python FAILED "pytest: $counts: GPU tests skipped on a GPU machine ($seconds s; $(basename "$log"))"
else
  record python ok "extension built for $("$python" -c 'import sys; print("Python %d.%d" % sys.version_info[:2])'); pytest: $counts ($seconds s)"
fi

# On a GPU: whole programs against PyTorch (bench/gpu/torch_programs.py: the f32 linear layer,
# attention, the MLP, ...) in the stage's time left, a note per program, the output in the log.
((NO_GPU || status != 0)) && exit 0
left=$((STAGE_SECONDS - ($(now) - start) - 5))
if ! "$python" -c "import torch; assert torch.cuda.is_available()" >/dev/null 2>&1; then
  note "torch programs: not timed: $python has no torch with CUDA"
elif ((left < 20)); then
  note "torch programs: not timed: $left s left of the stage"
else
  report="$WORK/torch-programs.txt"
  PYTHONPATH="$build${PYTHONPATH:+:$PYTHONPATH}" run_boxed "$left" "$report" "$python" \
    "$data/bench/gpu/torch_programs.py" --repeats 20 --time-limit $((left - 15))
  programs_status=$?
  { echo "== bench/gpu/torch_programs.py"; cat "$report"; } >>"$log"
  grep -E '^summary: ' "$report" | sed 's/^summary: //' | fold -s -w 96 >"$WORK/torch-programs-notes.txt"
  grep -E '^CHECK FAILED|^stopped at the time limit' "$report" | cut -c1-110 >>"$WORK/torch-programs-notes.txt"
  ((programs_status != 0)) && echo "torch programs: status $programs_status ($(basename "$log"))" >>"$WORK/torch-programs-notes.txt"
  add_notes "$WORK/torch-programs-notes.txt"
fi
