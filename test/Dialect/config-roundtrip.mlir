// RUN: tiletune-opt %s --split-input-file | FileCheck %s
// RUN: tiletune-opt %s --split-input-file | tiletune-opt --split-input-file | FileCheck %s

// CHECK-LABEL: func.func @matmul_cpu
// CHECK: linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 512, n = 1024}, cache = {k = 256, m = 64, n = 512}, register = {m = 8, n = 32}, order = [n, k, m], pack = b, unroll = 4, vectorize = true>}
func.func @matmul_cpu(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 512, n = 1024}, cache = {m = 64, n = 512, k = 256}, register = {m = 8, n = 32}, order = [n, k, m], vectorize = true, pack = b, unroll = 4>}
    ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %0 : tensor<1024x1024xf32>
}

// -----

// Options are optional; prime sizes tile only by 1 or themselves.
// CHECK-LABEL: func.func @matmul_prime_memref
// CHECK: #tiletune.config<cpu, parallel = {m = 13, n = 1}, cache = {k = 7, m = 13, n = 1}, register = {m = 1, n = 1}>
func.func @matmul_prime_memref(%a: memref<13x7xf32>, %b: memref<7x1xf32>, %c: memref<13x1xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 13, n = 1}, cache = {m = 13, n = 1, k = 7}, register = {m = 1, n = 1}>}
    ins(%a, %b : memref<13x7xf32>, memref<7x1xf32>) outs(%c : memref<13x1xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @batch_matmul_cpu
// CHECK: #tiletune.config<cpu, parallel = {b = 2, m = 64, n = 64}, cache = {k = 32, m = 16, n = 64}, register = {m = 4, n = 16}, order = [k, m, n]>
func.func @batch_matmul_cpu(%a: tensor<4x64x32xf32>, %b: tensor<4x32x64xf32>, %c: tensor<4x64x64xf32>) -> tensor<4x64x64xf32> {
  %0 = linalg.batch_matmul {tiletune.config = #tiletune.config<cpu, parallel = {b = 2, m = 64, n = 64}, cache = {m = 16, n = 64, k = 32}, register = {m = 4, n = 16}, order = [k, m, n]>}
    ins(%a, %b : tensor<4x64x32xf32>, tensor<4x32x64xf32>) outs(%c : tensor<4x64x64xf32>) -> tensor<4x64x64xf32>
  return %0 : tensor<4x64x64xf32>
}

// -----

// CHECK-LABEL: func.func @conv_nhwc
// CHECK: #tiletune.config<cpu, parallel = {f = 16, n = 1, oh = 14, ow = 14}, cache = {c = 8, f = 16, kh = 3, kw = 1, oh = 7, ow = 14}, register = {f = 16, oh = 1, ow = 7}, order = [oh, ow, f, c, kh, kw], unroll = 2>
func.func @conv_nhwc(%in: tensor<1x16x16x8xf32>, %flt: tensor<3x3x8x16xf32>, %out: tensor<1x14x14x16xf32>) -> tensor<1x14x14x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
      tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 14, ow = 14, f = 16}, cache = {oh = 7, ow = 14, f = 16, kh = 3, kw = 1, c = 8}, register = {oh = 1, ow = 7, f = 16}, order = [oh, ow, f, c, kh, kw], unroll = 2>}
    ins(%in, %flt : tensor<1x16x16x8xf32>, tensor<3x3x8x16xf32>) outs(%out : tensor<1x14x14x16xf32>) -> tensor<1x14x14x16xf32>
  return %0 : tensor<1x14x14x16xf32>
}

// -----

// CHECK-LABEL: func.func @matmul_cuda
// CHECK: #tiletune.config<cuda, block = {m = 64, n = 64}, vthread = {m = 32, n = 32}, thread = {m = 4, n = 4}, shared = {k = 16}, register = {k = 4}, explicit_unroll = true, max_unroll = 512>
func.func @matmul_cuda(%a: tensor<512x1024xf32>, %b: tensor<1024x1024xf32>, %c: tensor<512x1024xf32>) -> tensor<512x1024xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 64, n = 64}, vthread = {m = 32, n = 32}, thread = {m = 4, n = 4}, shared = {k = 16}, register = {k = 4}, explicit_unroll = true, max_unroll = 512>}
    ins(%a, %b : tensor<512x1024xf32>, tensor<1024x1024xf32>) outs(%c : tensor<512x1024xf32>) -> tensor<512x1024xf32>
  return %0 : tensor<512x1024xf32>
}

// -----

// Padding (cpu matmul kinds): a 127^3 matmul tiled as 128^3; `pad` prints
// among the options, its sizes in name order.
// CHECK-LABEL: func.func @matmul_padded
// CHECK: #tiletune.config<cpu, parallel = {m = 128, n = 128}, cache = {k = 128, m = 64, n = 128}, register = {m = 8, n = 32}, order = [n, k, m], pack = ab, pad = {k = 128, m = 128, n = 128}, unroll = 4, vectorize = true>
func.func @matmul_padded(%a: tensor<127x127xf32>, %b: tensor<127x127xf32>, %c: tensor<127x127xf32>) -> tensor<127x127xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, pad = {n = 128, m = 128, k = 128}, parallel = {m = 128, n = 128}, cache = {m = 64, n = 128, k = 128}, register = {m = 8, n = 32}, order = [n, k, m], pack = ab, unroll = 4, vectorize = true>}
    ins(%a, %b : tensor<127x127xf32>, tensor<127x127xf32>) outs(%c : tensor<127x127xf32>) -> tensor<127x127xf32>
  return %0 : tensor<127x127xf32>
}
