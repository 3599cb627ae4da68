#!/bin/sh
# The CPU target's golden code (tests/golden/cpu/*.cpp: every example, a convolution with pixels in
# vectors, shared and constant B) compiles with -Wall -Wextra -Werror, with OpenMP and without it
# (its pragmas then ignored, a region the calling thread alone): what users build with their own
# flags must not warn. Usage: generated_code_warnings.sh CXX SOURCE_ROOT
set -eu
cxx=$1
root=$2
status=0
for source in "$root"/tests/golden/cpu/*.cpp; do
  for openmp in -fopenmp -Wno-unknown-pragmas; do
    if ! "$cxx" -std=c++20 -fsyntax-only -Wall -Wextra -Werror "$openmp" -I "$root/kernels/cpu/include" "$source"; then
      echo "FAILED: $source ($openmp)"
      status=1
    fi
  done
done
exit $status
