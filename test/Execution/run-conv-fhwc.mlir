// linalg.conv_2d_nhwc_fhwc (the layout TOSA emits: filter [F][KH][KW][C]):
// computed as a conv_2d_nhwc_hwcf: with `pack = b` (the default configs'
// choice) on filter tiles transposed to HWCF while packing, otherwise on the
// whole filter transposed to HWCF first; with explicit configs and with the
// default configs (shapes 1, primes,
// strides and dilations, batch 2), at 1 and 2 threads and for AVX2
// (haswell), on tensors and buffers, verified against the C++ reference.

// RUN: tiletune-run %s --entry=explicit --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=EXPLICIT
// RUN: tiletune-run %s --entry=explicit --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=EXPLICIT
// RUN: tiletune-run %s --entry=primes --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=primes --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=primes --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=strided --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=strided --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=strided --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=ones --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=ones --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=packed --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=packed --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=packed_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=packed_buffers --mcpu=haswell --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-opt %s --tiletune-tile-cpu 2>/dev/null | FileCheck %s --check-prefix=IR

// EXPLICIT: op: linalg.conv_2d_nhwc_fhwc, 5.898e+05 FLOP
// EXPLICIT: verify: PASSED
// CHECK: verify: PASSED

func.func @explicit(%i: tensor<1x10x10x16xf32>, %f: tensor<32x3x3x16xf32>,
                    %o: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 8, f = 32},
         cache = {oh = 2, ow = 8, f = 32, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 4, f = 16}, unroll = 2>}
    ins(%i, %f : tensor<1x10x10x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// C = 5, F = 7, OH = 7, OW = 9: primes and non-divisible sizes.
func.func @primes(%i: tensor<1x9x11x5xf32>, %f: tensor<7x3x3x5xf32>,
                  %o: tensor<1x7x9x7xf32>) -> tensor<1x7x9x7xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>,
                                 strides = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x9x11x5xf32>, tensor<7x3x3x5xf32>)
    outs(%o : tensor<1x7x9x7xf32>) -> tensor<1x7x9x7xf32>
  return %0 : tensor<1x7x9x7xf32>
}

// Batch 2, strides 2, dilations (1, 2), on buffers, f64.
func.func @strided(%i: memref<2x11x13x3xf64>, %f: memref<6x3x3x3xf64>,
                   %o: memref<2x5x5x6xf64>) {
  linalg.conv_2d_nhwc_fhwc {dilations = dense<[1, 2]> : tensor<2xi64>,
                            strides = dense<2> : tensor<2xi64>}
    ins(%i, %f : memref<2x11x13x3xf64>, memref<6x3x3x3xf64>)
    outs(%o : memref<2x5x5x6xf64>)
  return
}

// Every loop of size 1 but the filters.
func.func @ones(%i: tensor<1x1x1x1xf32>, %f: tensor<4x1x1x1xf32>,
                %o: tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc
    ins(%i, %f : tensor<1x1x1x1xf32>, tensor<4x1x1x1xf32>)
    outs(%o : tensor<1x1x1x4xf32>) -> tensor<1x1x1x4xf32>
  return %0 : tensor<1x1x1x4xf32>
}

// `pack = b`: each 32x3x3x8 filter tile (a chunk of c) is transposed into a
// 3x3x8x32 HWCF tile inside the cache loops; no whole-filter transpose.
// IR-LABEL: func.func @packed(
// IR-NOT:     linalg.transpose
// IR:         scf.forall
// IR:         scf.for
// IR:         linalg.transpose ins(%{{.*}} : tensor<32x3x3x8xf32>) outs(%{{.*}} : tensor<3x3x8x32xf32>) permutation = [1, 2, 3, 0]
// IR:         vector.transfer_read %transposed
// IR-LABEL: func.func @packed_buffers(
// IR:         memref.alloc(){{.*}} : memref<3x3x4x16xf32>
// IR:         scf.for
// IR:         vector.transpose
func.func @packed(%i: tensor<1x10x10x16xf32>, %f: tensor<32x3x3x16xf32>,
                  %o: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 8, f = 32},
         cache = {oh = 4, ow = 8, f = 32, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 4, f = 16}, pack = b, unroll = 2>}
    ins(%i, %f : tensor<1x10x10x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// On buffers, stride 2, dilation 2, both operands packed, the filter tile
// 16 of 48 filters x 4 of 12 channels.
func.func @packed_buffers(%i: memref<1x17x17x12xf32>, %f: memref<48x3x3x12xf32>,
                          %o: memref<1x6x6x48xf32>) {
  linalg.conv_2d_nhwc_fhwc {dilations = dense<2> : tensor<2xi64>,
                            strides = dense<2> : tensor<2xi64>,
                            tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 3, ow = 6, f = 48},
         cache = {oh = 3, ow = 6, f = 16, kh = 3, kw = 3, c = 4},
         register = {oh = 1, ow = 6, f = 16}, pack = ab, unroll = 1>}
    ins(%i, %f : memref<1x17x17x12xf32>, memref<48x3x3x12xf32>)
    outs(%o : memref<1x6x6x48xf32>)
  return
}
