// tiletune-default-gpu-config gives every tunable op without a config a
// legal cuda config, for any static shape (primes and 1 included); explicit
// configs are kept. The configs lower to PTX, and the tiled code (run on the
// CPU with map-to-gpu=false) computes what the C++ reference computes.
// RUN: tiletune-opt %s --tiletune-default-gpu-config | FileCheck %s
// RUN: tiletune-opt %s --tiletune-default-gpu-config --tiletune-lower-gpu="chip=sm_80 format=isa" \
// RUN:   | FileCheck %s --check-prefix=PTX
// With overwrite, explicit configs are replaced too.
// RUN: tiletune-opt %s --tiletune-default-gpu-config=overwrite=true | FileCheck %s --check-prefix=OVER
// OVER-LABEL: func.func @kept
// OVER: #tiletune.config<cuda, block = {m = 32, n = 16}, vthread = {m = 32, n = 16}, thread = {m = 4, n = 4}, shared = {k = 8}, register = {k = 4}>
// RUN: for e in mm prime one bmm nhwc nchw kept; do \
// RUN:   tiletune-run %s --entry=$e --verify --repeats=0 \
// RUN:     --pipeline='tiletune-default-gpu-config,tiletune-tile-gpu{map-to-gpu=false},scf-forall-to-for,convert-linalg-to-loops,convert-vector-to-scf,expand-strided-metadata,lower-affine,finalize-memref-to-llvm,convert-scf-to-cf,convert-vector-to-llvm,convert-math-to-llvm,convert-arith-to-llvm,convert-func-to-llvm,convert-cf-to-llvm,reconcile-unrealized-casts' \
// RUN:     || exit 1; \
// RUN: done | FileCheck %s --check-prefix=EXEC

// Threads on m and n (16 x 16 at most, 4 x 4 outputs each), k staged by 16.
// CHECK-LABEL: func.func @mm
// CHECK: #tiletune.config<cuda, block = {m = 64, n = 32}, vthread = {m = 64, n = 32}, thread = {m = 4, n = 4}, shared = {k = 16}, register = {k = 4}>
func.func @mm(%a: memref<64x96xf32>, %b: memref<96x32xf32>, %c: memref<64x32xf32>) {
  linalg.matmul ins(%a, %b : memref<64x96xf32>, memref<96x32xf32>) outs(%c : memref<64x32xf32>)
  return
}
// CHECK-LABEL: func.func @prime
// CHECK: #tiletune.config<cuda, block = {m = 7, n = 5}, vthread = {m = 7, n = 5}, thread = {m = 1, n = 1}, shared = {k = 13}, register = {k = 1}>
func.func @prime(%a: memref<7x13xf32>, %b: memref<13x5xf32>, %c: memref<7x5xf32>) {
  linalg.matmul ins(%a, %b : memref<7x13xf32>, memref<13x5xf32>) outs(%c : memref<7x5xf32>)
  return
}
// CHECK-LABEL: func.func @one
// CHECK: #tiletune.config<cuda, block = {m = 1, n = 1}, vthread = {m = 1, n = 1}, thread = {m = 1, n = 1}, shared = {k = 1}, register = {k = 1}>
func.func @one(%a: memref<1x1xf32>, %b: memref<1x1xf32>, %c: memref<1x1xf32>) {
  linalg.matmul ins(%a, %b : memref<1x1xf32>, memref<1x1xf32>) outs(%c : memref<1x1xf32>)
  return
}
// Batch entries on blocks.
// CHECK-LABEL: func.func @bmm
// CHECK: #tiletune.config<cuda, block = {b = 1, m = 64, n = 64}
func.func @bmm(%a: memref<3x128x96xf32>, %b: memref<3x96x64xf32>, %c: memref<3x128x64xf32>) {
  linalg.batch_matmul ins(%a, %b : memref<3x128x96xf32>, memref<3x96x64xf32>) outs(%c : memref<3x128x64xf32>)
  return
}
// Convolutions: threads on the two innermost output loops, whole 3x3 / 5x5
// windows and a few input channels in shared memory.
// CHECK-LABEL: func.func @nhwc
// CHECK: #tiletune.config<cuda, block = {f = 32, n = 1, oh = 1, ow = 8}, vthread = {f = 32, oh = 1, ow = 8}, thread = {f = 4, oh = 1, ow = 4}, shared = {c = 8, kh = 3, kw = 3}>
func.func @nhwc(%i: memref<1x10x10x16xf32>, %f: memref<3x3x16x32xf32>, %o: memref<1x8x8x32xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x10x10x16xf32>, memref<3x3x16x32xf32>) outs(%o : memref<1x8x8x32xf32>)
  return
}
// CHECK-LABEL: func.func @nchw
// CHECK: #tiletune.config<cuda, block = {f = 1, n = 1, oh = 14, ow = 14}, vthread = {f = 1, oh = 14, ow = 14}, thread = {f = 1, oh = 2, ow = 2}, shared = {c = 3, kh = 5, kw = 5}>
func.func @nchw(%i: memref<2x3x31x31xf32>, %f: memref<8x3x5x5xf32>, %o: memref<2x8x14x14xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : memref<2x3x31x31xf32>, memref<8x3x5x5xf32>) outs(%o : memref<2x8x14x14xf32>)
  return
}
// An explicit config stays.
// CHECK-LABEL: func.func @kept
// CHECK: #tiletune.config<cuda, block = {m = 16, n = 16}, vthread = {m = 16, n = 16}, thread = {m = 1, n = 1}, shared = {k = 8}, register = {k = 8}>
func.func @kept(%a: memref<32x8xf32>, %b: memref<8x16xf32>, %c: memref<32x16xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 16, n = 16}, vthread = {m = 16, n = 16}, thread = {m = 1, n = 1}, shared = {k = 8}, register = {k = 8}>}
    ins(%a, %b : memref<32x8xf32>, memref<8x16xf32>) outs(%c : memref<32x16xf32>)
  return
}

// Dynamic shapes cannot be planned: the op is left without a config (and
// tiletune-lower-gpu leaves it to the host).
// CHECK-LABEL: func.func @dynamic
// CHECK-NOT: tiletune.config
// CHECK: return
func.func @dynamic(%a: memref<?x8xf32>, %b: memref<8x4xf32>, %c: memref<?x4xf32>) {
  linalg.matmul ins(%a, %b : memref<?x8xf32>, memref<8x4xf32>) outs(%c : memref<?x4xf32>)
  return
}

// PTX-COUNT-7: gpu.binary
// EXEC-COUNT-7: verify: PASSED
