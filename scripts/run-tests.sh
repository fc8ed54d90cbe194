#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds, and runs
# the whole test suite (lit + FileCheck, GoogleTest, Python, fuzz smoke runs)
# via check-tiletune, then the same suite under ASan+UBSan
# (scripts/run-sanitizers.sh; TILETUNE_SANITIZE=0 skips it). Prints a plain
# "tests: N passed, N failed" line, and "sanitizers: ..." after it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
log=$(mktemp)
status=0
bash scripts/build.sh check-tiletune 2>&1 | tee "$log" || status=$?
# check-tiletune runs lit twice (test/run-lit.sh): the counts are summed.
count() {
  sed -n "s/^ *$1 *: *\\([0-9]*\\).*/\\1/p" "$log" | awk '{s += $1} END {print s}'
}
passed=$(count Passed)
failed=$(count Failed)
skipped=$(count Unsupported)
rm -f "$log"
if [ "$status" -ne 0 ] && [ -z "$failed" ]; then failed=1; fi
echo "tests: ${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped"
# The whole suite again under AddressSanitizer + UndefinedBehaviorSanitizer
# (build-asan/, about 15 more minutes on 2 cores; docs/Testing.md).
# TILETUNE_SANITIZE=0 skips it for a quicker local run.
if [ "${TILETUNE_SANITIZE:-1}" != 0 ]; then
  bash scripts/run-sanitizers.sh || status=$?
fi
exit "$status"
