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
// RUN: tiletune-run %s --entry=conv1x1_wide_input --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32768,131072}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv1x1_wide_input --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=32768,131072}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv1x1_wide_input_hwcf --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=32768,131072}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 caches=32768,131072" | FileCheck %s --check-prefix=CONFIG
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 caches=32768,1048576" | FileCheck %s --check-prefix=INL2

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

// With the 128 KB L2 given below (CONFIG), each input (2x40x40x64, 819 KB;
// 2x40x40x48, 614 KB) is more than 4x L2 and a chunk of all filters (64 x
// 24, 48 x 40) at most a sixteenth of it, so the input tile is copied and
// all filters are one cache tile, output pixels outermost.
// With a 1 MB L2 the inputs are less than 4x L2 (batch 1 of ResNet-50's
// 56x56 stage: copied, it ran 5-10 % slower), so the filters keep their
// cache tiles and the input is read in place.
// INL2-LABEL: func.func @conv1x1_wide_input(
//       INL2:   order = [f, oh, ow, kh, kw, c], pack = b,
// INL2-LABEL: func.func @conv1x1_wide_input_hwcf(
//       INL2:   order = [f, oh, ow, kh, kw, c], pack = none,
// CONFIG-LABEL: func.func @conv1x1_wide_input(
//       CONFIG:   cache = {c = 64, f = 24,
//  CONFIG-SAME:   order = [oh, ow, f, kh, kw, c], pack = ab
// CONFIG-LABEL: func.func @conv1x1_wide_input_hwcf(
//       CONFIG:   order = [oh, ow, f, kh, kw, c], pack = a,
func.func @conv1x1_wide_input(%in: tensor<2x40x40x64xf32>, %w: tensor<24x1x1x64xf32>, %bias: tensor<24xf32>) -> tensor<2x40x40x24xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x40x40x24xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x40x24xf32>) -> tensor<2x40x40x24xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<2x40x40x64xf32>, tensor<24x1x1x64xf32>) outs(%c : tensor<2x40x40x24xf32>) -> tensor<2x40x40x24xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<2x40x40x24xf32>, tensor<24xf32>) outs(%e : tensor<2x40x40x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x40x40x24xf32>
  return %1 : tensor<2x40x40x24xf32>
}

func.func @conv1x1_wide_input_hwcf(%in: tensor<2x40x40x48xf32>, %w: tensor<1x1x48x40xf32>) -> tensor<2x40x40x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x40x40x40xf32>
  %c = linalg.fill ins(%zero : f32) outs(%e : tensor<2x40x40x40xf32>) -> tensor<2x40x40x40xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<2x40x40x48xf32>, tensor<1x1x48x40xf32>) outs(%c : tensor<2x40x40x40xf32>) -> tensor<2x40x40x40xf32>
  return %0 : tensor<2x40x40x40xf32>
}
