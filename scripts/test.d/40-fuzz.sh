#!/usr/bin/env bash
# libFuzzer on the whole compiler (tests/fuzz/compiler_fuzzer.cc): the fuzz target of the
# sanitizer build (scripts/sanitize-build: clang, POLYFUSE_FUZZ=ON, shared with 30-sanitizers.sh), run for
# a bounded time from the examples, the error programs and tests/fuzz/seeds (programs
# that reach language features the examples do not), with the .tc dictionary.
# Exits non-zero on any finding (an internal error, an escaped exception, a crash, a
# sanitizer report, a timeout or out-of-memory) and prints the reproducer's path; replay
# one with: $build/tests/fuzz/compiler_fuzzer REPRODUCER
#   POLYFUSE_SANITIZE_BUILD_DIR the clang build folder (default: build-sanitize)
#   POLYFUSE_LIBFUZZER_SECONDS how long to fuzz (default: 40)
#   POLYFUSE_FUZZ_FINDINGS     where reproducers go (default: a temporary folder, kept on failure)
set -euo pipefail
root="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
seconds="${POLYFUSE_LIBFUZZER_SECONDS:-40}"

build="$(bash "$root/scripts/sanitize-build" compiler_fuzzer)"

work="$(mktemp -d "${TMPDIR:-/tmp}/polyfuse-fuzz.XXXXXX")"
corpus="$work/corpus"
findings="${POLYFUSE_FUZZ_FINDINGS:-$work/findings}"
mkdir -p "$corpus" "$findings"
for seed in "$root"/examples/*.tc "$root"/tests/frontend/errors/*.tc "$root"/tests/fuzz/seeds/*.tc; do
  cp "$seed" "$corpus/$(basename "$(dirname "$seed")")-$(basename "$seed")"
done

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
"$build/tests/fuzz/compiler_fuzzer" "$corpus" -dict="$root/tests/fuzz/tc.dict" \
  -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 -print_final_stats=1 \
  -artifact_prefix="$findings/" 2>"$work/fuzz.log" || status=$?
grep -E '^(#[0-9]+[[:space:]]+DONE|stat::number_of_executed_units|stat::average_exec_per_sec)' "$work/fuzz.log" || true

if ((status != 0)); then
  tail -n 40 "$work/fuzz.log"
  grep -E '^(compiler_fuzzer: |==[0-9]+== ?ERROR|SUMMARY)' "$work/fuzz.log" || true
  echo "fuzz: FINDING (exit status $status); the fuzzer's log is $work/fuzz.log"
  for reproducer in "$findings"/*; do
    [[ -e "$reproducer" ]] && echo "fuzz: reproducer: $reproducer (replay: $build/tests/fuzz/compiler_fuzzer $reproducer)"
  done
  exit 1
fi
rm -rf "$work"
echo "fuzz: no finding in ${seconds} s"
