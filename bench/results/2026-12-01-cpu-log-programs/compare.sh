#!/bin/bash
# Before/after on one core: BEFORE and BEFORE_DATA (a binary and a POLYFUSE_DATA_DIR with its own
# kernels/cpu library) against AFTER, alternating, three rounds, --repeat 200 medians.
# Usage: BEFORE=... BEFORE_DATA=... AFTER=build/tools/polyfuse bash compare.sh
cd "$(dirname "$0")"
for round in 1 2 3; do
  for p in entropy_safe bce_safe kl_rows norms amax maxloop; do
    for who in before after; do
      if [ $who = before ]; then out=$(POLYFUSE_DATA_DIR=$BEFORE_DATA $BEFORE run $p.tc -D M=1024 -D N=1024 --target=cpu --threads 1 --repeat 200 2>&1)
      else out=$($AFTER run $p.tc -D M=1024 -D N=1024 --target=cpu --threads 1 --repeat 200 2>&1); fi
      echo "$round $p $who $(echo "$out" | grep -o 'check: [a-zA-Z]*') $(echo "$out" | grep -o 'time: [0-9.]* ms')"
    done
  done
done
