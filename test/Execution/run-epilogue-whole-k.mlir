// The epilogue chain and the fill fused past a reduction that makes no
// loop (all of K, or all of c, in one cache tile: a K = 64 GEMM, ResNet-50's
// first 1x1 convs), and the default config of a wide 1x1 conv over 64
// channels whose input is larger than L2 (the input tile copied, all
// filters one cache tile): every result compared with the module lowered
// untiled and unfused, at 1 and 2 threads, AVX-512 and AVX2, on sizes the
// tiles do not divide.

// RUN: tiletune-run %s --entry=mm_whole_k_residual --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_whole_k_residual --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv1x1_whole_c_bias_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv1x1_whole_c_bias_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv1x1_wide_input --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=49152,262144}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv1x1_wide_input --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=49152,262144}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv1x1_wide_input_hwcf --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=49152,262144}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 caches=49152,262144" | FileCheck %s --check-prefix=CONFIG

// CHECK: verify: passed against the untiled lowering

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d3)>
// All of K (c) in one cache tile: the chain and the fill are fused into the
// cache loops after the k loop that the config's order names but that makes
// no loop (1000 and 129 not divisible by the tiles).
func.func @mm_whole_k_residual(%a: tensor<1000x64xf32>, %b: tensor<64x129xf32>, %bias: tensor<129xf32>, %res: tensor<1000x129xf32>) -> tensor<1000x129xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1000x129xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<1000x129xf32>) -> tensor<1000x129xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<1000x64xf32>, tensor<64x129xf32>) outs(%c : tensor<1000x129xf32>) -> tensor<1000x129xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias, %res : tensor<1000x129xf32>, tensor<129xf32>, tensor<1000x129xf32>) outs(%e : tensor<1000x129xf32>) {
  ^bb0(%x: f32, %y: f32, %r: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %t = arith.addf %s, %r : f32
    %m = arith.maximumf %t, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1000x129xf32>
  return %1 : tensor<1000x129xf32>
}

func.func @conv1x1_whole_c_bias_relu(%in: tensor<2x17x17x64xf32>, %w: tensor<72x1x1x64xf32>, %bias: tensor<72xf32>) -> tensor<2x17x17x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x17x17x72xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x17x17x72xf32>) -> tensor<2x17x17x72xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<2x17x17x64xf32>, tensor<72x1x1x64xf32>) outs(%c : tensor<2x17x17x72xf32>) -> tensor<2x17x17x72xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<2x17x17x72xf32>, tensor<72xf32>) outs(%e : tensor<2x17x17x72xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x17x17x72xf32>
  return %1 : tensor<2x17x17x72xf32>
}

// The input (2x23x23x64, 271 KB) is larger than the 256 KB L2 given below
// (CONFIG), so the input tile is copied and all 72 filters are one cache
// tile, output pixels outermost.
// CONFIG-LABEL: func.func @conv1x1_wide_input(
//       CONFIG:   cache = {c = 64, f = 72,
//  CONFIG-SAME:   order = [oh, ow, f, kh, kw, c], pack = ab
// CONFIG-LABEL: func.func @conv1x1_wide_input_hwcf(
//       CONFIG:   order = [oh, ow, f, kh, kw, c], pack = a,
func.func @conv1x1_wide_input(%in: tensor<2x23x23x64xf32>, %w: tensor<72x1x1x64xf32>, %bias: tensor<72xf32>) -> tensor<2x23x23x72xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x23x23x72xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x23x23x72xf32>) -> tensor<2x23x23x72xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<2x23x23x64xf32>, tensor<72x1x1x64xf32>) outs(%c : tensor<2x23x23x72xf32>) -> tensor<2x23x23x72xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<2x23x23x72xf32>, tensor<72xf32>) outs(%e : tensor<2x23x23x72xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x23x23x72xf32>
  return %1 : tensor<2x23x23x72xf32>
}

func.func @conv1x1_wide_input_hwcf(%in: tensor<2x23x23x64xf32>, %w: tensor<1x1x64x40xf32>) -> tensor<2x23x23x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x23x23x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x23x23x40xf32>) -> tensor<2x23x23x40xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<2x23x23x64xf32>, tensor<1x1x64x40xf32>) outs(%c : tensor<2x23x23x40xf32>) -> tensor<2x23x23x40xf32>
  return %0 : tensor<2x23x23x40xf32>
}
