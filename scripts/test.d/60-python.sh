#!/usr/bin/env bash
# The Python package (python/, issue 25):
#   1. pytest (python/tests) on the package the main build left in <build>/python: the
#      extension over libpolyfuse.so beside the package's files. GPU tests skip, saying why.
#   2. the wheel: `pip wheel .` through scikit-build-core, reusing the main build's folder (the
#      same generator, build type and cache: nothing is compiled again, only the package's
#      component installed), then installed into a fresh virtual environment and run from
#      there (python/tests/wheel_smoke.py). Building the wheel from nothing (`pip wheel .` in a
#      fresh checkout) compiles the 163 build steps of the extension and libpolyfuse.so: 899 s
#      measured on 2 shared cores, which this avoids (about 20 s).
# Skips, saying so, only when scripts/deps could not install .tools/python; fails when the main
# build did not build the package although it could.
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
build="$(realpath -m "${POLYFUSE_BUILD_DIR:-$root/build}")"
python="$root/.tools/python/bin/python"
if [[ ! -x "$python" ]]; then
  echo "python stage: SKIPPED: scripts/deps could not install .tools/python (no network to PyPI?)"
  exit 0
fi
if [[ ! -d "$build/python/polyfuse" ]]; then
  echo "python stage: .tools/python is installed, but the main build made no package in $build/python (nanobind not found?)"
  exit 1
fi
export POLYFUSE_CACHE_DIR="${POLYFUSE_CACHE_DIR:-$build/python-cache}"

start=$SECONDS
PYTHONPATH="$build/python" "$python" -m pytest "$root/python/tests" -q -rs -p no:cacheprovider
echo "python stage: pytest $((SECONDS - start)) s"

start=$SECONDS
wheels="$build/python-wheel"
rm -rf "$wheels"
# scikit-build-core leaves its settings (install prefix, SKBUILD_*) in the cache: the main
# build's cache is put back afterwards and the build files generated again from it.
mkdir -p "$wheels"
cp "$build/CMakeCache.txt" "$wheels/CMakeCache.txt.main"
"$python" -m pip wheel "$root" --no-build-isolation --no-deps --quiet --disable-pip-version-check -w "$wheels" \
  -C build-dir="$build" -C cmake.define.POLYFUSE_BUILD_TESTS=ON
cp "$wheels/CMakeCache.txt.main" "$build/CMakeCache.txt"
cmake -S "$root" -B "$build" >/dev/null
echo "python stage: wheel $((SECONDS - start)) s: $(cd "$wheels" && ls ./*.whl)"

start=$SECONDS
python3 -m venv "$wheels/venv"
"$wheels/venv/bin/python" -m pip install --quiet --disable-pip-version-check "$wheels"/polyfuse-*.whl
(cd "$wheels" && "$wheels/venv/bin/python" "$root/python/tests/wheel_smoke.py" "$root/examples")
echo "python stage: fresh virtual environment $((SECONDS - start)) s"
