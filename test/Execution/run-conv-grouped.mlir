// Grouped convolutions, linalg.conv_2d_ngchw_fgchw and
// linalg.conv_2d_nhwgc_gfhwc: computed as a loop over the groups (an
// scf.forall over threads when the config splits g, then an scf.for) whose
// body is the plain conv of one group (conv_2d_nchw_fchw /
// conv_2d_nhwc_fhwc on rank-reduced slices) with the config without g.
// Explicit configs and default configs (a grouped NCHW conv with fewer
// filters per group than vector lanes keeps its native layout); G = 1, 2,
// 3, 4, 16; channels and filters per group odd and prime, and 1; stride 2
// and dilation 2; tensors and buffers, f32 and f64; 1 and 2 threads and
// AVX2 (haswell); every result verified against the C++ reference.

// RUN: tiletune-run %s --entry=explicit_nhwgc --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=NHWGC
// RUN: tiletune-run %s --entry=explicit_ngchw --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=NGCHW
// RUN: tiletune-run %s --entry=explicit_ngchw_native --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=explicit_ngchw_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=nhwgc_primes --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=nhwgc_primes --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=ngchw_primes --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=ngchw_primes --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=ngchw_primes --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=nhwgc_strided --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=ngchw_strided --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=nhwgc_one_group --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=nhwgc_depthwise --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=ngchw_one_group --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s

// NHWGC: op: linalg.conv_2d_nhwgc_gfhwc, 5.898e+05 FLOP
// NHWGC: verify: PASSED
// NGCHW: op: linalg.conv_2d_ngchw_fgchw, 5.898e+05 FLOP
// NGCHW: verify: PASSED
// CHECK: verify: PASSED

// G = 4, C/G = 8, F/G = 16; g split over 2 threads (2 groups each).
func.func @explicit_nhwgc(%i: tensor<1x10x10x4x8xf32>, %f: tensor<4x16x3x3x8xf32>,
                          %o: tensor<1x8x8x4x16xf32>) -> tensor<1x8x8x4x16xf32> {
  %0 = linalg.conv_2d_nhwgc_gfhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, g = 2, oh = 8, ow = 8, f = 16},
         cache = {oh = 2, ow = 8, f = 16, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 4, f = 16}, unroll = 2>}
    ins(%i, %f : tensor<1x10x10x4x8xf32>, tensor<4x16x3x3x8xf32>)
    outs(%o : tensor<1x8x8x4x16xf32>) -> tensor<1x8x8x4x16xf32>
  return %0 : tensor<1x8x8x4x16xf32>
}

// The same conv in NGCHW, computed as NHWC per group; the groups in one
// thread, the output rows over 2.
func.func @explicit_ngchw(%i: tensor<1x4x8x10x10xf32>, %f: tensor<16x4x8x3x3xf32>,
                          %o: tensor<1x4x16x8x8xf32>) -> tensor<1x4x16x8x8xf32> {
  %0 = linalg.conv_2d_ngchw_fgchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, g = 4, f = 16, oh = 4, ow = 8},
         cache = {f = 16, oh = 2, ow = 8, c = 8, kh = 3, kw = 3},
         register = {f = 16, oh = 1, ow = 4}, layout = nhwc>}
    ins(%i, %f : tensor<1x4x8x10x10xf32>, tensor<16x4x8x3x3xf32>)
    outs(%o : tensor<1x4x16x8x8xf32>) -> tensor<1x4x16x8x8xf32>
  return %0 : tensor<1x4x16x8x8xf32>
}

// The native NCHW micro-kernel per group, one group per thread.
func.func @explicit_ngchw_native(%i: tensor<2x2x3x9x9xf32>, %f: tensor<5x2x3x3x3xf32>,
                                 %o: tensor<2x2x5x7x7xf32>) -> tensor<2x2x5x7x7xf32> {
  %0 = linalg.conv_2d_ngchw_fgchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 2, g = 1, f = 5, oh = 7, ow = 7},
         cache = {f = 5, oh = 7, ow = 7, c = 3, kh = 3, kw = 3},
         register = {f = 1, oh = 1, ow = 7}>}
    ins(%i, %f : tensor<2x2x3x9x9xf32>, tensor<5x2x3x3x3xf32>)
    outs(%o : tensor<2x2x5x7x7xf32>) -> tensor<2x2x5x7x7xf32>
  return %0 : tensor<2x2x5x7x7xf32>
}

// On buffers, computed as NHWC, groups over 2 threads.
func.func @explicit_ngchw_buffers(%i: memref<1x2x4x6x6xf32>, %f: memref<8x2x4x3x3xf32>,
                                  %o: memref<1x2x8x4x4xf32>) {
  linalg.conv_2d_ngchw_fgchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, g = 1, f = 8, oh = 4, ow = 4},
         cache = {f = 8, oh = 1, ow = 4, c = 4, kh = 3, kw = 3},
         register = {f = 8, oh = 1, ow = 4}, layout = nhwc>}
    ins(%i, %f : memref<1x2x4x6x6xf32>, memref<8x2x4x3x3xf32>)
    outs(%o : memref<1x2x8x4x4xf32>)
  return
}

// G = 3, C/G = 5, F/G = 7, OH = 7, OW = 9: primes and non-divisible sizes.
func.func @nhwgc_primes(%i: tensor<1x9x11x3x5xf32>, %f: tensor<3x7x3x3x5xf32>,
                        %o: tensor<1x7x9x3x7xf32>) -> tensor<1x7x9x3x7xf32> {
  %0 = linalg.conv_2d_nhwgc_gfhwc {dilations = dense<1> : tensor<2xi64>,
                                   strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x9x11x3x5xf32>, tensor<3x7x3x3x5xf32>)
    outs(%o : tensor<1x7x9x3x7xf32>) -> tensor<1x7x9x3x7xf32>
  return %0 : tensor<1x7x9x3x7xf32>
}

func.func @ngchw_primes(%i: tensor<1x2x5x9x11xf32>, %f: tensor<7x2x5x3x3xf32>,
                        %o: tensor<1x2x7x7x9xf32>) -> tensor<1x2x7x7x9xf32> {
  %0 = linalg.conv_2d_ngchw_fgchw
    ins(%i, %f : tensor<1x2x5x9x11xf32>, tensor<7x2x5x3x3xf32>)
    outs(%o : tensor<1x2x7x7x9xf32>) -> tensor<1x2x7x7x9xf32>
  return %0 : tensor<1x2x7x7x9xf32>
}

// Batch 2, G = 4, strides 2, dilations (1, 2), on buffers, f64.
func.func @nhwgc_strided(%i: memref<2x11x13x4x3xf64>, %f: memref<4x6x3x3x3xf64>,
                         %o: memref<2x5x5x4x6xf64>) {
  linalg.conv_2d_nhwgc_gfhwc {dilations = dense<[1, 2]> : tensor<2xi64>,
                              strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : memref<2x11x13x4x3xf64>, memref<4x6x3x3x3xf64>)
    outs(%o : memref<2x5x5x4x6xf64>)
  return
}

func.func @ngchw_strided(%i: tensor<2x4x3x13x11xf32>, %f: tensor<6x4x3x3x3xf32>,
                         %o: tensor<2x4x6x5x5xf32>) -> tensor<2x4x6x5x5xf32> {
  %0 = linalg.conv_2d_ngchw_fgchw {dilations = dense<[2, 1]> : tensor<2xi64>,
                                   strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : tensor<2x4x3x13x11xf32>, tensor<6x4x3x3x3xf32>)
    outs(%o : tensor<2x4x6x5x5xf32>) -> tensor<2x4x6x5x5xf32>
  return %0 : tensor<2x4x6x5x5xf32>
}

// G = 1: the plain conv.
func.func @nhwgc_one_group(%i: tensor<1x8x8x1x16xf32>, %f: tensor<1x32x3x3x16xf32>,
                           %o: tensor<1x6x6x1x32xf32>) -> tensor<1x6x6x1x32xf32> {
  %0 = linalg.conv_2d_nhwgc_gfhwc
    ins(%i, %f : tensor<1x8x8x1x16xf32>, tensor<1x32x3x3x16xf32>)
    outs(%o : tensor<1x6x6x1x32xf32>) -> tensor<1x6x6x1x32xf32>
  return %0 : tensor<1x6x6x1x32xf32>
}

func.func @ngchw_one_group(%i: memref<1x1x16x8x8xf32>, %f: memref<32x1x16x3x3xf32>,
                           %o: memref<1x1x32x6x6xf32>) {
  linalg.conv_2d_ngchw_fgchw
    ins(%i, %f : memref<1x1x16x8x8xf32>, memref<32x1x16x3x3xf32>)
    outs(%o : memref<1x1x32x6x6xf32>)
  return
}

// One channel and one filter per group (depthwise-like): computed the same
// way (correct, not fast).
func.func @nhwgc_depthwise(%i: tensor<1x10x10x16x1xf32>, %f: tensor<16x1x3x3x1xf32>,
                           %o: tensor<1x8x8x16x1xf32>) -> tensor<1x8x8x16x1xf32> {
  %0 = linalg.conv_2d_nhwgc_gfhwc
    ins(%i, %f : tensor<1x10x10x16x1xf32>, tensor<16x1x3x3x1xf32>)
    outs(%o : tensor<1x8x8x16x1xf32>) -> tensor<1x8x8x16x1xf32>
  return %0 : tensor<1x8x8x16x1xf32>
}
