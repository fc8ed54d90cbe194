#!/usr/bin/env bash
# One command for a fresh machine: installs what is missing, builds, and runs
# the whole test suite (lit + FileCheck, GoogleTest, Python) via check-tiletune.
# Ends with a plain "N passed, N failed" line.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh
log=$(mktemp)
status=0
bash scripts/build.sh check-tiletune 2>&1 | tee "$log" || status=$?
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
skipped=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
rm -f "$log"
if [ "$status" -ne 0 ] && [ -z "$failed" ]; then failed=1; fi
echo "tests: ${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped"
exit "$status"
