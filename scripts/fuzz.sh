#!/usr/bin/env bash
# Runs every libFuzzer target of fuzz/ for a while, one after the other.
#
#   scripts/fuzz.sh [SECONDS] [TARGET...]
#
# SECONDS per target (default 60); TARGETs among config-attr, config-key,
# strategy-options, database (default: all). Builds the targets into
# ${BUILD_DIR:-build} first (configure it with scripts/build.sh). New inputs
# go to $BUILD_DIR/fuzz-work/<target> (kept between runs, so a later run
# continues from there), crashes to $BUILD_DIR/fuzz-artifacts/; the seed
# corpus in fuzz/corpus/<target> is only read. A crash input that is fixed
# belongs in fuzz/corpus/<target> as a regression (test/Fuzz runs it).
# Environment: JOBS (default 2), NICE (default 10), TILETUNE_BUILD_LOCK (a
# file; the build runs under flock on it, for shared machines), FUZZ_FLAGS
# (more libFuzzer flags, e.g. -jobs=2).
# Exits non-zero when a target found a crash, a leak or a timeout.
set -euo pipefail
cd "$(dirname "$0")/.."
BUILD_DIR=${BUILD_DIR:-build}
SECONDS_PER_TARGET=${1:-60}
shift || true
TARGETS=("$@")
if [ ${#TARGETS[@]} -eq 0 ]; then
  TARGETS=(config-attr config-key strategy-options database)
fi
NICE=${NICE:-10}

if ! grep -q "TILETUNE_BUILD_FUZZERS:BOOL=ON" "$BUILD_DIR/CMakeCache.txt" 2>/dev/null; then
  echo "fuzz: $BUILD_DIR is not configured with TILETUNE_BUILD_FUZZERS=ON" \
       "(needs clang and libFuzzer: scripts/setup.sh, scripts/build.sh)" >&2
  exit 2
fi
build=(ninja -C "$BUILD_DIR" -j"${JOBS:-2}")
for t in "${TARGETS[@]}"; do build+=("tiletune-fuzz-$t"); done
if [ -n "${TILETUNE_BUILD_LOCK:-}" ]; then
  flock "$TILETUNE_BUILD_LOCK" nice -n "$NICE" "${build[@]}"
else
  nice -n "$NICE" "${build[@]}"
fi

artifacts="$BUILD_DIR/fuzz-artifacts"
mkdir -p "$artifacts"
failed=()
for t in "${TARGETS[@]}"; do
  work="$BUILD_DIR/fuzz-work/$t"
  mkdir -p "$work"
  echo "fuzz: $t for ${SECONDS_PER_TARGET}s"
  # -timeout: one input running 10 s is a hang; -rss_limit_mb: an input
  # that makes the parser allocate gigabytes is a finding too.
  # shellcheck disable=SC2086
  if ! nice -n "$NICE" "$BUILD_DIR/fuzz/tiletune-fuzz-$t" \
      -max_total_time="$SECONDS_PER_TARGET" -timeout=10 -rss_limit_mb=2048 \
      -print_final_stats=1 -artifact_prefix="$artifacts/$t-" \
      ${FUZZ_FLAGS:-} "$work" "fuzz/corpus/$t" \
      >"$BUILD_DIR/fuzz-$t.log" 2>&1; then
    failed+=("$t")
    echo "fuzz: $t FAILED, see $BUILD_DIR/fuzz-$t.log:"
    grep -E "^(==[0-9]+==ERROR|SUMMARY|artifact_prefix)|Test unit written" \
      "$BUILD_DIR/fuzz-$t.log" | head -5 || true
  else
    grep -E "^(stat::number_of_executed_units|stat::new_units_added)" \
      "$BUILD_DIR/fuzz-$t.log" | sed "s/^/fuzz: $t: /" || true
  fi
done
if [ ${#failed[@]} -ne 0 ]; then
  echo "fuzz: failures in ${failed[*]}; inputs in $artifacts"
  exit 1
fi
echo "fuzz: ${#TARGETS[@]} targets ran ${SECONDS_PER_TARGET}s each, no finding"
