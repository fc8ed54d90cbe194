// An explicit cuda config on a form only the cpu target tiles: the GPU
// tiling pass refuses it with a clear error.
// RUN: tiletune-opt %s --verify-diagnostics --tiletune-tile-gpu

func.func @matmul_ta(%a: memref<32x64xf32>, %b: memref<32x64xf32>, %c: memref<64x64xf32>) {
  // expected-error @+1 {{the cuda target does not support matmul_transpose_a yet}}
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    {tiletune.config = #tiletune.config<cuda, block = {m = 32, n = 32}, vthread = {m = 32, n = 32}, thread = {m = 4, n = 4}, shared = {k = 16}, register = {k = 4}>}
    ins(%a, %b : memref<32x64xf32>, memref<32x64xf32>) outs(%c : memref<64x64xf32>)
  return
}
