// RUN: tiletune-opt %s --split-input-file --tiletune-lower-cpu="threads=2" | FileCheck %s
// RUN: tiletune-opt %s --split-input-file --tiletune-lower-cpu="tile=false" | FileCheck %s --check-prefix=UNTILED

// The whole pipeline ends in the LLVM dialect: the parallel level becomes an
// OpenMP parallel region with 2 threads, the register tile FMAs on
// vector<32xf32>, the kernel gets a C interface and no longer returns its
// output argument.

// CHECK-LABEL: llvm.func @matmul(
//   CHECK-NOT:   -> !llvm.struct
//       CHECK:   omp.parallel num_threads
//       CHECK:     omp.wsloop
//       CHECK:       llvm.intr.fmuladd{{.*}} : (vector<32xf32>, vector<32xf32>, vector<32xf32>) -> vector<32xf32>
//       CHECK: llvm.func @_mlir_ciface_matmul
// UNTILED-LABEL: llvm.func @matmul(
//   UNTILED-NOT:   omp.parallel
//   UNTILED-NOT:   vector<
func.func @matmul(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 32, n = 64}, cache = {m = 32, n = 64, k = 64}, register = {m = 8, n = 32}, pack = b>}
    ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Ops without a config are lowered untiled; padded convs and memref kernels
// lower too; nothing from other dialects is left.

// CHECK-LABEL: llvm.func @padded_conv(
// UNTILED-LABEL: llvm.func @padded_conv(
//   CHECK-NOT:   linalg.
//   CHECK-NOT:   tensor.
//   CHECK-NOT:   memref.
//   CHECK-NOT:   scf.
func.func @padded_conv(%i: tensor<1x8x8x4xf32>, %f: tensor<3x3x4x16xf32>, %o: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %i low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf ins(%p, %f : tensor<1x10x10x4xf32>, tensor<3x3x4x16xf32>) outs(%o : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}

// -----

// CHECK-LABEL: llvm.func @memref_bmm(
//       CHECK:   llvm.intr.fmuladd
//       CHECK: llvm.func @_mlir_ciface_memref_bmm
func.func @memref_bmm(%a: memref<2x8x4xf32>, %b: memref<2x4x16xf32>, %c: memref<2x8x16xf32>) {
  linalg.batch_matmul {tiletune.config = #tiletune.config<cpu, parallel = {b = 1, m = 8, n = 16}, cache = {m = 8, n = 16, k = 4}, register = {m = 8, n = 16}>}
    ins(%a, %b : memref<2x8x4xf32>, memref<2x4x16xf32>) outs(%c : memref<2x8x16xf32>)
  return
}
