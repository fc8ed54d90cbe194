#!/usr/bin/env bash
# Builds TileTune with AddressSanitizer + UndefinedBehaviorSanitizer into
# ${ASAN_BUILD_DIR:-build-asan} and runs the lit suite (lit + FileCheck,
# GoogleTest, Python) under it. See docs/Testing.md for what is checked,
# what is suppressed and why.
#
#   scripts/run-sanitizers.sh            # the full suite
#   scripts/run-sanitizers.sh PATH...    # only these lit paths, relative to
#                                        # test/ (e.g. Dialect Unit python)
#
# Environment: JOBS (default 2), ASAN_BUILD_DIR, TILETUNE_BUILD_LOCK (a file;
# when set every build step runs under flock on it, for shared machines).
# Ends with a plain "sanitizers: N passed, N failed, N skipped" line.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BUILD_DIR=${ASAN_BUILD_DIR:-build-asan}
JOBS=${JOBS:-2}
LLVM_BIN=/usr/lib/llvm-22/bin

locked() {
  if [ -n "${TILETUNE_BUILD_LOCK:-}" ]; then
    flock "$TILETUNE_BUILD_LOCK" nice -n 10 "$@"
  else
    nice -n 10 "$@"
  fi
}

if [ ! -f "$BUILD_DIR/build.ninja" ]; then
  # -O1: ASan's recommended level; full Release optimization adds build time
  # and little to what the sanitizers see.
  cmake -G Ninja -S . -B "$BUILD_DIR" \
    -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_C_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_CXX_FLAGS_RELEASE="-O1 -DNDEBUG" \
    -DCMAKE_C_COMPILER=clang-22 -DCMAKE_CXX_COMPILER=clang++-22 \
    -DMLIR_DIR=/usr/lib/llvm-22/lib/cmake/mlir \
    -DLLVM_DIR=/usr/lib/llvm-22/lib/cmake/llvm \
    -DLLVM_EXTERNAL_LIT=$LLVM_BIN/lit \
    -DTILETUNE_SANITIZERS=address,undefined
fi

# One Ninja run per target, so that a shared build lock is held for minutes,
# not for the whole (long) instrumented build.
TARGETS=(TileTuneSupport TileTuneSpace TileTuneMeasure TileTuneSearch
  TileTuneDatabase TileTuneTuner TileTuneDialect TileTuneTransforms
  TileTuneExecution TileTuneProblem TileTuneGPU TileTuneMeasureKernel
  TileTuneMeasureCPU TileTuneMeasureGPU TileTuneInit TileTuneDriver
  TileTuneTuningPasses tiletune-opt tiletune tiletune-run
  tiletune-search-bench)
for t in SupportTests SpaceTests MeasureTests SearchTests DatabaseTests \
    TunerTests DialectTests TransformsTests ExecutionTests ProblemTests \
    MeasureKernelTests GPUTests DriverTests; do
  TARGETS+=("$t")
done
available=$(ninja -C "$BUILD_DIR" -t targets all | sed 's/:.*//')
for t in "${TARGETS[@]}" TileTunePython tiletune-bench-cpu \
    tiletune-gpu-runtime-check; do
  if grep -qx "$t" <<<"$available"; then
    locked ninja -C "$BUILD_DIR" -j"$JOBS" "$t"
  fi
done
# Whatever else check-tiletune needs (tools and test binaries added after
# this list was written, the fuzz targets when libFuzzer is there).
locked ninja -C "$BUILD_DIR" -j"$JOBS" tiletune-test-depends

# ASan: stop at the first error. allow_user_poisoning=0: LLVM's
# BumpPtrAllocator (a header) poisons slabs when inlined into our
# instrumented code, and uninstrumented libMLIR.so never unpoisons what it
# allocates from them: false use-after-poison reports (fuzz/
# SanitizerDefaults.cpp has the details). LSan: see lsan.supp for what is
# suppressed and why. UBSan: every finding is fatal, with a stack.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}halt_on_error=1:allow_user_poisoning=0:check_initialization_order=1:detect_leaks=1"
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$ROOT/scripts/sanitizers/lsan.supp:print_suppressions=0"
export UBSAN_OPTIONS="${UBSAN_OPTIONS:+$UBSAN_OPTIONS:}halt_on_error=1:print_stacktrace=1"
export ASAN_SYMBOLIZER_PATH=$LLVM_BIN/llvm-symbolizer
export UBSAN_SYMBOLIZER_PATH=$LLVM_BIN/llvm-symbolizer

paths=()
for p in "$@"; do paths+=("$BUILD_DIR/test/$p"); done
[ ${#paths[@]} -eq 0 ] && paths=("$BUILD_DIR/test")
log=$(mktemp)
status=0
nice -n 10 "$LLVM_BIN/lit" -sv -j"$JOBS" "${paths[@]}" 2>&1 \
  | tee "$log" || status=$?
passed=$(sed -n 's/^ *Passed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
failed=$(sed -n 's/^ *Failed *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
skipped=$(sed -n 's/^ *Unsupported *: *\([0-9]*\).*/\1/p' "$log" | tail -1)
rm -f "$log"
if [ "$status" -ne 0 ] && [ -z "$failed" ]; then failed=1; fi
echo "sanitizers: ${passed:-0} passed, ${failed:-0} failed, ${skipped:-0} skipped"
exit "$status"
