// REQUIRES: ptxas
// The cubin format makes MLIR assemble the generated PTX with ptxas from the
// CUDA toolkit: an invalid kernel (bad PTX, too much shared memory) fails
// here. All four op kinds, sm_90 and sm_80.
// RUN: tiletune-opt %s --split-input-file --tiletune-lower-gpu="chip=sm_90 format=bin" | FileCheck %s --check-prefixes=CHECK,BIN
// RUN: tiletune-opt %s --split-input-file --tiletune-lower-gpu="chip=sm_80 format=fatbin" | FileCheck %s --check-prefixes=CHECK,FATBIN

// CHECK: gpu.binary @matmul_kernel
// BIN-SAME: bin = "\7FELF
// FATBIN-SAME: "P\EDU\BA
func.func @matmul(%A: memref<512x1024xf32>, %B: memref<1024x4096xf32>, %C: memref<512x4096xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 64, n = 128}, vthread = {m = 64, n = 64}, thread = {m = 4, n = 4}, shared = {k = 8}, register = {k = 2}, explicit_unroll = true>}
    ins(%A, %B : memref<512x1024xf32>, memref<1024x4096xf32>) outs(%C : memref<512x4096xf32>)
  return
}

// -----

// CHECK: gpu.binary @batch_matmul_kernel
// BIN-SAME: bin = "\7FELF
// FATBIN-SAME: "P\EDU\BA
func.func @batch_matmul(%A: memref<96x128x128xf32>, %B: memref<96x128x64xf32>, %C: memref<96x128x64xf32>) {
  linalg.batch_matmul {tiletune.config = #tiletune.config<cuda, block = {b = 1, m = 64, n = 64}, vthread = {m = 32, n = 64}, thread = {m = 4, n = 4}, shared = {k = 16}, register = {k = 4}>}
    ins(%A, %B : memref<96x128x128xf32>, memref<96x128x64xf32>) outs(%C : memref<96x128x64xf32>)
  return
}

// -----

// CHECK: gpu.binary @conv_kernel
// BIN-SAME: bin = "\7FELF
// FATBIN-SAME: "P\EDU\BA
func.func @conv(%I: memref<4x31x31x64xf32>, %F: memref<5x5x64x192xf32>, %O: memref<4x27x27x192xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cuda, block = {n = 4, oh = 3, ow = 9, f = 64}, vthread = {oh = 3, ow = 9, f = 32}, thread = {oh = 1, ow = 3, f = 2}, shared = {kh = 1, kw = 5, c = 8}, max_unroll = 0>}
    ins(%I, %F : memref<4x31x31x64xf32>, memref<5x5x64x192xf32>) outs(%O : memref<4x27x27x192xf32>)
  return
}

// -----

// CHECK: gpu.binary @conv_nchw_kernel
// BIN-SAME: bin = "\7FELF
// FATBIN-SAME: "P\EDU\BA
func.func @conv_nchw(%I: memref<8x3x227x227xf32>, %F: memref<64x3x11x11xf32>, %O: memref<8x64x55x55xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<4> : tensor<2xi64>, tiletune.config = #tiletune.config<cuda, block = {n = 8, f = 16, oh = 5, ow = 11}, vthread = {f = 8, oh = 5, ow = 11}, thread = {f = 2, oh = 1, ow = 1}, shared = {c = 1, kh = 11, kw = 1}>}
    ins(%I, %F : memref<8x3x227x227xf32>, memref<64x3x11x11xf32>) outs(%O : memref<8x64x55x55xf32>)
  return
}
