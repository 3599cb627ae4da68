#!/usr/bin/env bash
# Stage "tests" of gpu-kit/check --no-gpu: the kit's test executables from the relocated
# copy. Without a GPU their GPU tests are skipped, each with its reason, and every other
# test (emulator launches, NVRTC, the cache, the harness on the emulator) must pass.
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"
test_stage tests
