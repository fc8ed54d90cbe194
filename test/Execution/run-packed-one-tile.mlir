// Memref kernels whose whole op is one tile (no parallel split, single-trip
// cache loops, no batch loop) with packed operands: every op family lowers,
// runs and matches the reference (issue 16, item 4: the packing copies were
// placed before the allocation of their buffer).

// RUN: tiletune-run %s --entry=matmul_pack_a --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=matmul_pack_b_1x1x1 --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=matmul_default --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=batch_matmul_pack_ab --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_nhwc_pack_ab --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_nchw_pack_ab --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s

// CHECK: verify: PASSED

func.func @matmul_pack_a(%a: memref<64x64xf32>, %b: memref<64x64xf32>, %c: memref<64x64xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 64, n = 64}, cache = {k = 64, m = 64, n = 64}, register = {m = 8, n = 32}, order = [n, k, m], pack = a>}
    ins(%a, %b : memref<64x64xf32>, memref<64x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

func.func @matmul_pack_b_1x1x1(%a: memref<1x1xf32>, %b: memref<1x1xf32>, %c: memref<1x1xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 1, n = 1}, cache = {k = 1, m = 1, n = 1}, register = {m = 1, n = 1}, pack = b>}
    ins(%a, %b : memref<1x1xf32>, memref<1x1xf32>) outs(%c : memref<1x1xf32>)
  return
}

// The default config of this shape is one tile with pack = ab.
func.func @matmul_default(%a: memref<13x32xf32>, %b: memref<32x32xf32>, %c: memref<13x32xf32>) {
  linalg.matmul ins(%a, %b : memref<13x32xf32>, memref<32x32xf32>) outs(%c : memref<13x32xf32>)
  return
}

func.func @batch_matmul_pack_ab(%a: memref<1x16x24xf32>, %b: memref<1x24x32xf32>, %c: memref<1x16x32xf32>) {
  linalg.batch_matmul {tiletune.config = #tiletune.config<cpu, parallel = {b = 1, m = 16, n = 32}, cache = {m = 16, n = 32, k = 24}, register = {m = 4, n = 16}, pack = ab>}
    ins(%a, %b : memref<1x16x24xf32>, memref<1x24x32xf32>) outs(%c : memref<1x16x32xf32>)
  return
}

func.func @conv_nhwc_pack_ab(%i: memref<1x6x6x8xf32>, %f: memref<3x3x8x16xf32>, %o: memref<1x4x4x16xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 4, f = 16}, cache = {oh = 4, ow = 4, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 1, ow = 4, f = 16}, pack = ab>}
    ins(%i, %f : memref<1x6x6x8xf32>, memref<3x3x8x16xf32>) outs(%o : memref<1x4x4x16xf32>)
  return
}

func.func @conv_nchw_pack_ab(%i: memref<1x8x6x6xf32>, %f: memref<16x8x3x3xf32>, %o: memref<1x16x4x4xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, f = 16, oh = 4, ow = 4}, cache = {f = 16, oh = 4, ow = 4, c = 8, kh = 3, kw = 3}, register = {f = 16, oh = 1, ow = 4}, pack = ab>}
    ins(%i, %f : memref<1x8x6x6xf32>, memref<16x8x3x3xf32>) outs(%o : memref<1x16x4x4xf32>)
  return
}
