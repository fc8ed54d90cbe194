// An explicit cuda config on a form only the cpu target tiles: the GPU
// tiling pass refuses it with a clear error.
// RUN: tiletune-opt %s --split-input-file --verify-diagnostics --tiletune-tile-gpu

func.func @matmul_ta(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{the cuda target does not support matmul_transpose_a yet}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    {tiletune.config = #tiletune.config<cuda, block = {m = 32, n = 32}, vthread = {m = 32, n = 32}, thread = {m = 4, n = 4}, shared = {k = 16}, register = {k = 4}>}
    ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  return
}

// -----

func.func @nhwgc(%i: memref<1x6x6x2x4xf32>, %f: memref<2x8x3x3x4xf32>, %o: memref<1x4x4x2x8xf32>) {
  // expected-error @+1 {{the cuda target does not support conv_2d_nhwgc_gfhwc yet}}
  linalg.conv_2d_nhwgc_gfhwc
    {tiletune.config = #tiletune.config<cuda, block = {n = 1, oh = 4, ow = 4, g = 1, f = 8}, vthread = {oh = 4, ow = 4, f = 8}, thread = {oh = 1, ow = 1, f = 8}, shared = {kh = 3, kw = 3, c = 4}>}
    ins(%i, %f : memref<1x6x6x2x4xf32>, memref<2x8x3x3x4xf32>) outs(%o : memref<1x4x4x2x8xf32>)
  return
}
