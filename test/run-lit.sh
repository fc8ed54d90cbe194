#!/bin/sh
# What check-tiletune runs (test/CMakeLists.txt): the lit suite in two steps,
# everything but test/Timing in parallel, then test/Timing one test at a
# time. Those tests compare the tuner's reported figures with tiletune-run's
# later measurements of the same configs; a test on the other core (a
# 2-thread kernel, a build in test/Package) would slow one side by more than
# their tolerance. Both steps run even if the first fails. lit matches
# --filter-out against the full name ("TILETUNE :: Timing/x.test",
# case-insensitively), hence ':: Timing/'.
# Usage: run-lit.sh LIT TEST_BINARY_DIR [LIT ARGS...]
lit=$1
dir=$2
shift 2
"$lit" "$@" --filter-out ':: Timing/' "$dir"
parallel=$?
"$lit" "$@" -j1 "$dir/Timing"
timing=$?
[ "$parallel" -eq 0 ] && [ "$timing" -eq 0 ]
