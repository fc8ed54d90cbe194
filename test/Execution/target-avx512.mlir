// An AVX-512 target runs on a host with AVX-512 ...
// REQUIRES: avx512
// RUN: tiletune-run %s --mcpu=skylake-avx512 --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" \
// RUN:   --verify --repeats=0 --num-threads=1 | FileCheck %s
// CHECK: target: skylake-avx512
// CHECK: verify: PASSED

func.func @matmul(%a: memref<24x40xf32>, %b: memref<40x64xf32>, %c: memref<24x64xf32>) {
  linalg.matmul ins(%a, %b : memref<24x40xf32>, memref<40x64xf32>) outs(%c : memref<24x64xf32>)
  return
}
