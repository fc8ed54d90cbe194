// Kernels carrying a tiletune.config run through TileTune's own CPU
// pipeline (tiling, vectorization, OpenMP) and still match the reference.

// RUN: tiletune-run %s --entry=matmul --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=MM
// RUN: tiletune-run %s --entry=matmul --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=MM
// RUN: tiletune-run %s --entry=conv --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=CONV
// RUN: tiletune-run %s --entry=untuned --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s --check-prefix=DEFAULT

// MM: kernel: @matmul(memref<128x64xf32>, memref<64x256xf32>, memref<128x256xf32>)
// MM: verify: PASSED
func.func @matmul(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>,
                  %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 64, n = 256}, cache = {m = 32, n = 128, k = 32},
         register = {m = 8, n = 32}, order = [n, k, m]>}
    ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>)
    outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// CONV: op: linalg.conv_2d_nhwc_hwcf
// CONV: verify: PASSED
func.func @conv(%i: tensor<1x10x10x16xf32>, %f: tensor<3x3x16x32xf32>,
                %o: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 8, f = 32},
         cache = {oh = 2, ow = 8, f = 32, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 4, f = 16}>}
    ins(%i, %f : tensor<1x10x10x16xf32>, tensor<3x3x16x32xf32>)
    outs(%o : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// DEFAULT: op: linalg.batch_matmul
// DEFAULT: verify: PASSED
func.func @untuned(%a: tensor<4x32x48xf32>, %b: tensor<4x48x64xf32>,
                   %c: tensor<4x32x64xf32>) -> tensor<4x32x64xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x32x48xf32>, tensor<4x48x64xf32>)
    outs(%c : tensor<4x32x64xf32>) -> tensor<4x32x64xf32>
  return %0 : tensor<4x32x64xf32>
}
