#!/usr/bin/env bash
# The long run of the differential fuzzer (docs/Testing.md): tiletune-fuzz
# over several seeds, one log per seed, then the cases and failure classes
# of all of them. Exit status 1 when any case failed.
#
#   bench/fuzz/long_fuzz.sh [-b BUILD_DIR] [-s "SEED ..."] [-n CASES]
#                           [-o LOG_DIR] [-- TILETUNE-FUZZ OPTIONS]
#
# Defaults: build/, seeds "1 2 3 4", 250 cases per seed (about 1000 cases,
# 15-30 minutes on one free core), logs in fuzz-logs/. Each failure in a log
# carries its reproducer: the module and `tiletune-fuzz --seed=S --case=N`.
set -euo pipefail

build=build
seeds="1 2 3 4"
cases=250
logs=fuzz-logs
while getopts "b:s:n:o:h" opt; do
  case "$opt" in
  b) build=$OPTARG ;;
  s) seeds=$OPTARG ;;
  n) cases=$OPTARG ;;
  o) logs=$OPTARG ;;
  *) sed -n '2,12p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))

fuzz="$build/bin/tiletune-fuzz"
if [ ! -x "$fuzz" ]; then
  echo "error: $fuzz not found (build the tiletune-fuzz target)" >&2
  exit 2
fi
mkdir -p "$logs"

status=0
total=0
failed=0
for seed in $seeds; do
  log="$logs/seed-$seed.log"
  start=$(date +%s)
  if ! "$fuzz" --seed="$seed" --cases="$cases" --quiet "$@" >"$log" 2>&1; then
    status=1
  fi
  summary=$(grep '^summary:' "$log" || echo "summary: (no summary, see $log)")
  echo "seed $seed: ${summary#summary: } [$(($(date +%s) - start)) s, $log]"
  n=$(sed -n 's/^summary: \([0-9]*\) cases.*/\1/p' "$log")
  f=$(sed -n 's/^summary: .* \([0-9]*\) failed.*/\1/p' "$log")
  total=$((total + ${n:-0}))
  failed=$((failed + ${f:-0}))
done

echo "all seeds: $total cases, $failed failed"
# Failure classes over all logs, e.g. "  3 compile_error".
grep -ho '^FAILURE \[[a-z_]*\]' "$logs"/seed-*.log 2>/dev/null |
  sed 's/^FAILURE \[\(.*\)\]/\1/' | sort | uniq -c || true
# The rerun command of every failure.
grep -h '^  rerun:' "$logs"/seed-*.log 2>/dev/null || true
exit $status
