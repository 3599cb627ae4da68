#!/usr/bin/env bash
# Stage "correctness" of gpu-kit/check: every GPU test of the kit (generated kernels
# against the reference and against the emulator, the helpers' test kernels, the runtime
# API's launches), run at once in shards; a table per family in correctness.log.
set -uo pipefail
# shellcheck source=lib.sh
source "$KIT/libexec/lib.sh"
test_stage correctness
