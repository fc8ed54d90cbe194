#!/usr/bin/env bash
# Runs TileTune's GPU checks, the cuBLAS comparison and the BERT tuning of
# issue 5 on a machine with an NVIDIA GPU, from the pack made by
# bench/gpu/pack_for_device.sh (no LLVM/MLIR needed there). Logs and the
# tuning database go to $OUT (the device tool's output folder) or
# bench/gpu/results.
#
#   bash bench/gpu/device_run.sh checks          # runtime, GPU unit tests, cuBLAS bench
#   bash bench/gpu/device_run.sh tune SHAPE ALGOS TRIALS SECONDS
#        e.g. tune 512x1024x1024 gbfs,opevo 500 120
#   bash bench/gpu/device_run.sh report
#
# With the device tool: carry .device, e.g.
#   run(command="bash bench/gpu/device_run.sh checks", carry=[".device"])
set -uo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
PACK=${PACK:-$ROOT/.device/tiletune-device.tar.xz}
T=${T:-/tmp/tiletune-device}
OUT=${OUT:-$ROOT/bench/gpu/results}
mkdir -p "$OUT"

if [ ! -x "$T/bin/tiletune" ]; then
  [ -f "$PACK" ] || { echo "no pack at $PACK: run bench/gpu/pack_for_device.sh"; exit 1; }
  mkdir -p "$T" && tar -xJf "$PACK" -C "$T" || exit 1
fi
LIBS=$T/lib
# cuBLAS for the comparison: CUDA toolkit, or pip's nvidia-cublas.
for d in /usr/local/cuda/lib64 \
         $(python3 -c 'import nvidia.cublas, os; print(os.path.join(os.path.dirname(nvidia.cublas.__file__), "lib"))' 2>/dev/null) \
         /usr/local/nvidia/lib64 /usr/local/nvidia/lib; do
  [ -d "$d" ] && LIBS=$LIBS:$d
done
export TILETUNE_CUDA_RUNTIME=$T/lib/libtiletune_cuda_runtime.so
# The JIT's run-time libraries come with the pack (no LLVM install there).
export TILETUNE_MLIR_LIB_DIR=$T/lib TILETUNE_OPENMP_RUNTIME=$T/lib/libomp.so
if [ -z "${TILETUNE_PTXAS:-}" ]; then
  for p in "$(command -v ptxas 2>/dev/null)" /usr/local/cuda/bin/ptxas; do
    [ -n "$p" ] && [ -x "$p" ] && { export TILETUNE_PTXAS=$p; break; }
  done
fi
# The pack's own loader and C library, so the binaries run on any distro.
tt() { "$T/lib/ld-linux-x86-64.so.2" --library-path "$LIBS" "$T/bin/$1" "${@:2}"; }

step() { echo; echo "=== $*"; }
DB=$OUT/bert.db
case "${1:-checks}" in
  checks)
    step "machine"
    nvidia-smi -L 2>&1; echo "ptxas: ${TILETUNE_PTXAS:-none}"
    step "runtime self-test"
    tt tiletune-gpu-runtime-check --selftest 2>&1 | tee "$OUT/runtime-check.txt"
    step "GPUTests"
    tt GPUTests 2>&1 | tail -n 30 | tee "$OUT/gpu-tests.txt"
    step "DriverTests (GPU measurer)"
    tt DriverTests --gtest_filter='*GPU*:*Cuda*' 2>&1 | tail -n 20 | tee "$OUT/driver-tests.txt"
    step "cuBLAS vs fixed TileTune configs, BERT GEMMs"
    tt tiletune-bench-gpu 2>&1 | tee "$OUT/bench.txt"
    ;;
  tune)
    SHAPE=${2:?shape MxKxN}; ALGOS=${3:-gbfs,na2c,opevo,xgb}
    TRIALS=${4:-500}; SECONDS_PER_RUN=${5:-120}
    IFS=x read -r M K N <<<"$SHAPE"
    F=$OUT/matmul-$SHAPE.mlir
    cat > "$F" <<EOF
func.func @bert(%a: tensor<${M}x${K}xf32>, %b: tensor<${K}x${N}xf32>,
                %c: tensor<${M}x${N}xf32>) -> tensor<${M}x${N}xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<${M}x${K}xf32>, tensor<${K}x${N}xf32>)
                     outs(%c : tensor<${M}x${N}xf32>) -> tensor<${M}x${N}xf32>
  return %r : tensor<${M}x${N}xf32>
}
EOF
    for a in ${ALGOS//,/ }; do
      step "tune $SHAPE with $a ($TRIALS trials, at most $SECONDS_PER_RUN s)"
      tt tiletune tune "$F" --target=cuda --algorithm="$a" --trials="$TRIALS" \
        --seconds="$SECONDS_PER_RUN" --db="$DB" --resume --no-progress 2>&1 \
        | tail -n 8 | tee -a "$OUT/tune-$SHAPE.txt"
    done
    ;;
  report)
    tt tiletune report --db="$DB" 2>&1 | tee "$OUT/report.txt"
    tt tiletune export --db="$DB" -o "$OUT/bert.jsonl"
    ;;
  *)
    echo "usage: $0 checks | tune SHAPE ALGOS TRIALS SECONDS | report"; exit 2 ;;
esac
