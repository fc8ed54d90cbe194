// RUN: tiletune-opt %s --split-input-file --verify-diagnostics --tiletune-tile-gpu

func.func @tensors(%A: tensor<64x64xf32>, %B: tensor<64x64xf32>, %C: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{GPU tiling needs buffers: bufferize the function first (tiletune-lower-gpu does)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 32, n = 32}, vthread = {m = 32, n = 32}, thread = {m = 2, n = 2}, shared = {k = 16}, register = {k = 4}>}
    ins(%A, %B : tensor<64x64xf32>, tensor<64x64xf32>) outs(%C : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

func.func @threads(%A: memref<256x256xf32>, %B: memref<256x256xf32>, %C: memref<256x256xf32>) {
  // expected-error @+1 {{cuda config exceeds the GPU's limits: 2048 threads per block exceed 1024}}
  linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 64, n = 64}, vthread = {m = 64, n = 32}, thread = {m = 1, n = 1}, shared = {k = 16}, register = {k = 4}>}
    ins(%A, %B : memref<256x256xf32>, memref<256x256xf32>) outs(%C : memref<256x256xf32>)
  return
}

// -----

func.func @four_block_loops(%I: memref<2x18x18x16xf32>, %F: memref<3x3x16x32xf32>, %O: memref<2x16x16x32xf32>) {
  // expected-error @+1 {{invalid cuda config: more than three loops have more than one block}}
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cuda, block = {n = 1, oh = 4, ow = 8, f = 16}, vthread = {oh = 4, ow = 4, f = 16}, thread = {oh = 1, ow = 2, f = 4}, shared = {kh = 3, kw = 1, c = 8}>}
    ins(%I, %F : memref<2x18x18x16xf32>, memref<3x3x16x32xf32>) outs(%O : memref<2x16x16x32xf32>)
  return
}
