// Default configs computed for 2 threads (the parallel level split over
// batch_matmul's batch and rows, conv's batch, output rows and filters) on
// odd, prime and size-1 shapes, for the host and the AVX2 target: each is
// lowered, run on 2 threads and verified against the C++ reference.

// RUN: tiletune-run %s --entry=bmm_odd --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_odd --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_rows --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_ones --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_nhwc_rows --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_nhwc_rows --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_nhwc_prime --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_nchw_batch --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_nchw_batch --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// CHECK: verify: PASSED

// The splits (AVX2 target, caches pinned): batch first, then rows; a conv
// whose batch, rows, filters and columns are all prime to 2 (conv_nhwc_prime)
// has no even split and runs its one trip (the parallel tiles divide their
// loops); its 7 rows of 11 pixels are padded to 12 on AVX2 for the im2col
// GEMM's 6-row tiles (getCPUPaddedPrimeRows; HWCF since 2026-12-07), with
// the same tiles.
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,1M" | FileCheck %s --check-prefix=SPLIT
// SPLIT-LABEL: func.func @bmm_odd
// SPLIT: parallel = {b = 2, m = 48, n = 32}
// SPLIT-LABEL: func.func @bmm_rows
// SPLIT: parallel = {b = 3, m = 48, n = 48}
// SPLIT-LABEL: func.func @bmm_ones
// SPLIT: parallel = {b = 1, m = 1, n = 1}
// SPLIT-LABEL: func.func @conv_nhwc_rows
// SPLIT: parallel = {f = 24, n = 1, oh = 5, ow = 13}
// SPLIT-LABEL: func.func @conv_nhwc_prime
// SPLIT: parallel = {f = 7, n = 1, oh = 12, ow = 11}, cache = {c = 5, f = 7, kh = 3, kw = 3, oh = 12, ow = 11}, register = {f = 7, oh = 1, ow = 11}, {{.*}}pad = {oh = 12}
// SPLIT-LABEL: func.func @conv_nchw_batch
// SPLIT: parallel = {f = 6, n = 1, oh = 5, ow = 4}

func.func @bmm_odd(%a: tensor<4x37x13xf32>, %b: tensor<4x13x29xf32>,
                   %c: tensor<4x37x29xf32>) -> tensor<4x37x29xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<4x37x13xf32>, tensor<4x13x29xf32>)
                           outs(%c : tensor<4x37x29xf32>) -> tensor<4x37x29xf32>
  return %0 : tensor<4x37x29xf32>
}

func.func @bmm_rows(%a: tensor<3x96x17xf32>, %b: tensor<3x17x40xf32>,
                    %c: tensor<3x96x40xf32>) -> tensor<3x96x40xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x96x17xf32>, tensor<3x17x40xf32>)
                           outs(%c : tensor<3x96x40xf32>) -> tensor<3x96x40xf32>
  return %0 : tensor<3x96x40xf32>
}

func.func @bmm_ones(%a: tensor<1x1x7xf32>, %b: tensor<1x7x1xf32>,
                    %c: tensor<1x1x1xf32>) -> tensor<1x1x1xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<1x1x7xf32>, tensor<1x7x1xf32>)
                           outs(%c : tensor<1x1x1xf32>) -> tensor<1x1x1xf32>
  return %0 : tensor<1x1x1xf32>
}

func.func @conv_nhwc_rows(%i: tensor<1x12x15x3xf32>, %f: tensor<3x3x3x24xf32>,
                          %o: tensor<1x10x13x24xf32>) -> tensor<1x10x13x24xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {strides = dense<1> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x12x15x3xf32>, tensor<3x3x3x24xf32>)
    outs(%o : tensor<1x10x13x24xf32>) -> tensor<1x10x13x24xf32>
  return %0 : tensor<1x10x13x24xf32>
}

func.func @conv_nhwc_prime(%i: tensor<1x15x13x5xf32>, %f: tensor<3x3x5x7xf32>,
                           %o: tensor<1x7x11x7xf32>) -> tensor<1x7x11x7xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 1]> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<1x15x13x5xf32>, tensor<3x3x5x7xf32>)
    outs(%o : tensor<1x7x11x7xf32>) -> tensor<1x7x11x7xf32>
  return %0 : tensor<1x7x11x7xf32>
}

func.func @conv_nchw_batch(%i: tensor<2x5x11x9xf32>, %f: tensor<6x5x3x3xf32>,
                           %o: tensor<2x6x5x4xf32>) -> tensor<2x6x5x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>, dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : tensor<2x5x11x9xf32>, tensor<6x5x3x3xf32>)
    outs(%o : tensor<2x6x5x4xf32>) -> tensor<2x6x5x4xf32>
  return %0 : tensor<2x6x5x4xf32>
}
