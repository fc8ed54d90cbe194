#!/usr/bin/env bash
# Builds and runs TileTune's GPU checks and benchmark on a machine with an
# NVIDIA GPU (the device machine of a later session), writing every log to
# ${OUT:-bench/gpu/results}. On a machine without a GPU each step says so.
#
#   bash bench/gpu/run_on_device.sh            # build + all steps
#   SKIP_BUILD=1 bash bench/gpu/run_on_device.sh
#
# Needs the Debian LLVM/MLIR 22 packages (scripts/setup.sh) and the CUDA
# toolkit at /usr/local/cuda (for cuda.h and ptxas; the driver is opened at
# run time).
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build-device}
OUT=${OUT:-$ROOT/bench/gpu/results}
JOBS=${JOBS:-$(nproc)}
mkdir -p "$OUT"

step() { echo; echo "=== $*"; }

{
  step "machine"
  date -u
  nvidia-smi -L 2>&1 || echo "nvidia-smi: not available"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem \
    --format=csv 2>&1 || true
} | tee "$OUT/machine.txt"

if [ -z "${SKIP_BUILD:-}" ]; then
  step "build ($BUILD_DIR)"
  if ! command -v /usr/lib/llvm-22/bin/mlir-opt >/dev/null; then
    echo "MLIR 22 is not installed: run scripts/setup.sh first" | tee "$OUT/build.txt"
    exit 1
  fi
  BUILD_DIR=$BUILD_DIR JOBS=$JOBS bash scripts/build.sh tiletune-opt \
    tiletune-gpu-runtime-check GPUTests tiletune-bench-gpu 2>&1 | tail -n 30 \
    | tee "$OUT/build.txt"
fi

step "runtime probe and self-test"
"$BUILD_DIR/bin/tiletune-gpu-runtime-check" --selftest 2>&1 | tee "$OUT/runtime-check.txt"
status=${PIPESTATUS[0]}
if [ "$status" -eq 2 ]; then
  echo "no GPU on this machine: the GPU steps below only report that" \
    | tee -a "$OUT/runtime-check.txt"
fi

step "GPUTests (includes measurement + verification of a matmul on the GPU)"
"$BUILD_DIR/unittests/GPUTests" 2>&1 | tee "$OUT/gpu-tests.txt"

step "lit tests of test/GPU"
/usr/lib/llvm-22/bin/lit -v "$BUILD_DIR/test/GPU" 2>&1 | tail -n 40 | tee "$OUT/lit-gpu.txt"

step "benchmark: TileTune configs vs cuBLAS, BERT GEMMs"
"$BUILD_DIR/bin/tiletune-bench-gpu" 2>&1 | tee "$OUT/bench.txt"

step "compile-only ranking (ptxas resources)"
"$BUILD_DIR/bin/tiletune-bench-gpu" --compile-only 2>&1 | tee "$OUT/bench-compile-only.txt"

echo; echo "logs in $OUT"
