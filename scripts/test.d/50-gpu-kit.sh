#!/usr/bin/env bash
# The GPU check kit without a GPU: builds it (scripts/gpu-kit), copies it into an empty
# temporary folder and runs `check --no-gpu` there (relocation, the CLI on every example
# and test program, the kit's test executables, polyfuse-bench --dry-run, the Python
# extension built from the kit with the project's packages copied out of .tools). Where the
# machine allows a private mount namespace (unshare), the checkout and the build folder are
# hidden under empty folders meanwhile, so that anything the kit still reads from them
# fails. The shell scripts of the kit pass shellcheck. Exits non-zero on any problem.
#   POLYFUSE_KIT_OUT   keep check's files there, outside the checkout (default: a temporary
#                      folder, removed)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(realpath -m "${POLYFUSE_BUILD_DIR:-$root/build}")"
start=$SECONDS

if command -v shellcheck >/dev/null; then
  shellcheck -x -P SCRIPTDIR "$root/scripts/gpu-kit" "$root"/scripts/kit/check "$root"/scripts/kit/*.sh \
    "$root/scripts/gpu-results" "$0" "$root/tests/kit/check_test.sh" \
    "$root"/tests/kit/fake_gpu/{nvidia-smi,ncu,compute-sanitizer,polyfuse,polyfuse-bench,gtest}
else
  echo "gpu-kit stage: shellcheck not found (scripts/deps installs it); scripts not checked"
fi

bash "$root/scripts/gpu-kit"
work="$(mktemp -d "${TMPDIR:-/tmp}/polyfuse-kit.XXXXXX")"
trap 'rm -rf "$work"' EXIT
cp -r "$root/gpu-kit" "$work/"
out="$(realpath -m "${POLYFUSE_KIT_OUT:-$work/out}")"
if [[ "$out" == "$root"/* || "$out" == "$build"/* ]]; then
  echo "gpu-kit stage: error: POLYFUSE_KIT_OUT=$out is inside the checkout or the build, which are hidden" >&2
  exit 2
fi
mkdir -p "$out"

# COMMAND... in a private mount namespace where the checkout and the build folder are
# empty (a build folder inside the checkout is hidden with it).
unshare=(unshare --mount)
[[ $(id -u) -eq 0 ]] || unshare+=(--map-root-user)
hidden() {
  # shellcheck disable=SC2016  # expanded by the inner shell
  "${unshare[@]}" bash -c '
    set -e
    for folder in "$1" "$2"; do
      if [[ -d "$folder" ]]; then mount -t tmpfs -o size=1m polyfuse-hidden "$folder"; fi
    done
    cd /
    shift 2
    exec "$@"' _ "$root" "$build" "$@"
}
# The kit's python stage builds the extension with a Python that has nanobind, numpy and
# pytest: the project's virtual environment lives in the checkout, which is hidden, so its
# packages are copied out for the stage (the system's Python 3, the venv's base, runs them).
venv_site=$(echo "$root"/.tools/python/lib/python3*/site-packages)
if [[ -d "$venv_site/nanobind" && -d "$venv_site/numpy" && -d "$venv_site/pytest" ]]; then
  mkdir -p "$work/site"
  for package in nanobind numpy numpy.libs pytest _pytest pluggy iniconfig packaging pygments py.py; do
    [[ -e "$venv_site/$package" ]] && cp -r "$venv_site/$package" "$work/site/"
  done
  export PYTHONPATH="$work/site" POLYFUSE_KIT_PYTHON
  POLYFUSE_KIT_PYTHON=$(readlink -f "$root/.tools/python/bin/python")
else
  echo "gpu-kit stage: .tools/python has no nanobind/numpy/pytest (scripts/deps installs them); the kit's python stage skips"
fi
status=0
# shellcheck disable=SC2016  # expanded by the inner shell
if hidden bash -c '[[ ! -e "$1/CMakeLists.txt" ]]' _ "$root" 2>/dev/null; then
  echo "gpu-kit stage: check --no-gpu from $work/gpu-kit, with $root and $build hidden"
  hidden "$work/gpu-kit/check" "$out" --no-gpu || status=$?
else
  echo "gpu-kit stage: no private mount namespace here (unshare or mount refused); the checkout stays visible"
  (cd / && "$work/gpu-kit/check" "$out" --no-gpu) || status=$?
fi
echo "gpu-kit stage: kit $(du -sb "$root/gpu-kit" | awk '{ printf "%.1f MiB", $1 / 1048576 }'), $((SECONDS - start)) s"
exit "$status"
