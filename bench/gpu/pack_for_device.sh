#!/usr/bin/env bash
# Packs the GPU tools built here, with every shared library they load, into
# .device/tiletune-device.tar.xz for a machine that has an NVIDIA GPU and the
# CUDA driver but no LLVM/MLIR (the `device` machine of a session; carry
# .device there and run bench/gpu/device_run.sh).
#
#   bash bench/gpu/pack_for_device.sh          # uses ./build
#   BUILD_DIR=build-x bash bench/gpu/pack_for_device.sh
#
# The pack brings its own glibc loader, so it runs whatever the other
# machine's C library is. LLVM's optional dependencies that TileTune never
# calls (libz3: the static analyzer's solver; libxml2 and ICU: Windows
# manifests) are replaced by empty stand-ins of the same soname, which keeps
# the pack under the 64 MiB a device call may carry (libLLVM and libMLIR
# alone are about 44 MiB compressed).
set -euo pipefail
cd "$(dirname "$0")/../.."
ROOT=$(pwd)
BUILD_DIR=${BUILD_DIR:-$ROOT/build}
OUT_DIR=${OUT_DIR:-$ROOT/.device}
STAGE=$(mktemp -d)
trap 'rm -rf "$STAGE"' EXIT

BINARIES=(bin/tiletune bin/tiletune-gpu-runtime-check bin/tiletune-bench-gpu
          unittests/GPUTests unittests/DriverTests)
mkdir -p "$STAGE/bin" "$STAGE/lib" "$STAGE/examples"
for b in "${BINARIES[@]}"; do
  if [ ! -x "$BUILD_DIR/$b" ]; then
    echo "error: $BUILD_DIR/$b is missing: build it first (scripts/build.sh)" >&2
    exit 1
  fi
  cp "$BUILD_DIR/$b" "$STAGE/bin/"
done
RUNTIME=$(find "$BUILD_DIR" -name 'libtiletune_cuda_runtime.so' | head -n 1)
if [ -z "$RUNTIME" ]; then
  echo "error: libtiletune_cuda_runtime.so was not built (no CUDA toolkit?)" >&2
  exit 1
fi
cp "$RUNTIME" "$STAGE/lib/"

# Stand-ins for libraries LLVM links but TileTune never calls (lazy binding:
# their functions are only looked up when called).
STUBBED='libz3.so|libxml2.so|libicuuc.so|libicudata.so'
# libLLVM binds one libxml2 data symbol at load time (xmlFree) and checks
# libxml2's symbol versions; the stand-in provides both.
echo 'void tiletune_device_stub(void) {}' > "$STAGE/z3.c"
clang-22 -shared -fPIC -Wl,-soname,libz3.so.4 -o "$STAGE/lib/libz3.so.4" \
  "$STAGE/z3.c"
echo 'void *xmlFree = 0;' > "$STAGE/xml2.c"
printf 'LIBXML2_2.4.30 { global: xmlFree; };\nLIBXML2_2.6.0 { } LIBXML2_2.4.30;\n' \
  > "$STAGE/xml2.map"
clang-22 -shared -fPIC -Wl,-soname,libxml2.so.2 \
  -Wl,--version-script="$STAGE/xml2.map" -o "$STAGE/lib/libxml2.so.2" \
  "$STAGE/xml2.c"
rm "$STAGE"/z3.c "$STAGE"/xml2.c "$STAGE"/xml2.map

# The libraries the JIT opens at run time (the host side of every GPU variant
# runs through it): MLIR's C runner utilities and the OpenMP runtime, under
# the names the device script points TILETUNE_MLIR_LIB_DIR and
# TILETUNE_OPENMP_RUNTIME at.
MLIR_LIB_DIR=$(sed -n 's/^TILETUNE_MLIR_LIB_DIR:PATH=//p' "$BUILD_DIR/CMakeCache.txt")
OPENMP=$(sed -n 's/^TILETUNE_OPENMP_RUNTIME:FILEPATH=//p' "$BUILD_DIR/CMakeCache.txt")
cp -L "${MLIR_LIB_DIR:-/usr/lib/llvm-22/lib}/libmlir_c_runner_utils.so" "$STAGE/lib/"
cp -L "${OPENMP:-/usr/lib/llvm-22/lib/libomp.so}" "$STAGE/lib/libomp.so"

# Every other library the binaries load, and the loader itself.
for f in "$STAGE"/bin/* "$STAGE"/lib/libtiletune_cuda_runtime.so \
         "$STAGE"/lib/libmlir_c_runner_utils.so "$STAGE"/lib/libomp.so; do
  LD_LIBRARY_PATH=${MLIR_LIB_DIR:-/usr/lib/llvm-22/lib} ldd "$f" | awk '/=>/ { print $3 } /ld-linux/ && !/=>/ { print $1 }'
done | sort -u | while read -r lib; do
  [ -z "$lib" ] || [ ! -e "$lib" ] && continue
  base=$(basename "$lib")
  if echo "$base" | grep -Eq "$STUBBED"; then continue; fi
  case "$base" in libcuda.so*|libnvidia*) continue ;; esac
  cp -L "$lib" "$STAGE/lib/$base"
done
cp examples/*.mlir "$STAGE/examples/" 2>/dev/null || true

mkdir -p "$OUT_DIR"
tar -C "$STAGE" -cf - . | xz -T0 -9 > "$OUT_DIR/tiletune-device.tar.xz"
ls -l "$OUT_DIR/tiletune-device.tar.xz"
echo "pack: $(tar -tJf "$OUT_DIR/tiletune-device.tar.xz" | wc -l) files"
