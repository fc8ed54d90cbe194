// An HWCF conv with a window larger than 1x1 copies its filter tile
// contiguous (`pack = b`) where each filter vector serves at most 4 pixels
// and the register tile's filter slice over the cache chunk (kh * kw * c *
// f elements) is larger than L1: every register tile then streams that
// slice from L2 (DefaultConfig.cpp; docs/CPUSchedule.md, "3x3 convs with 16
// registers"). AVX2 (16 registers: 16 filters x 4 pixels, a 36 KiB slice
// of 3x3 x 64 channels) takes it on the 28x28 3x3 convs; AVX-512 (32
// registers: 7 pixels) and ResNet's first conv (3 channels: a 9 KiB slice)
// do not. An NCHW conv computed through NHWC (its filter transposed to
// HWCF) follows the same rule.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=32K,1M" | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=znver4 caches=32K,1M" | FileCheck %s --check-prefixes=CHECK,AVX512

// CHECK-LABEL: func.func @hwcf_28x28_3x3_128
// AVX2: register = {f = 16, oh = 1, ow = 4}, order = [f, oh, ow, kh, kw, c], pack = b,
// AVX512: register = {f = 32, oh = 1, ow = 7}, order = [f, oh, ow, kh, kw, c], pack = none,
// CHECK: return
func.func @hwcf_28x28_3x3_128(%in: tensor<1x30x30x128xf32>, %w: tensor<3x3x128x128xf32>, %out: tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x30x30x128xf32>, tensor<3x3x128x128xf32>) outs(%out : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  return %r : tensor<1x28x28x128xf32>
}

// CHECK-LABEL: func.func @hwcf_28x28_3x3_s2_128
// AVX2: register = {f = 16, oh = 1, ow = 4}, order = [f, oh, ow, kh, kw, c], pack = b,
// AVX512: register = {f = 32, oh = 1, ow = 7}, order = [f, oh, ow, kh, kw, c], pack = none,
// CHECK: return
func.func @hwcf_28x28_3x3_s2_128(%in: tensor<1x57x57x128xf32>, %w: tensor<3x3x128x128xf32>, %out: tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x57x57x128xf32>, tensor<3x3x128x128xf32>) outs(%out : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  return %r : tensor<1x28x28x128xf32>
}

// CHECK-LABEL: func.func @hwcf_7x7_s2_3_64
// CHECK: pack = none,
// CHECK: return
func.func @hwcf_7x7_s2_3_64(%in: tensor<1x229x229x3xf32>, %w: tensor<7x7x3x64xf32>, %out: tensor<1x112x112x64xf32>) -> tensor<1x112x112x64xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x229x229x3xf32>, tensor<7x7x3x64xf32>) outs(%out : tensor<1x112x112x64xf32>) -> tensor<1x112x112x64xf32>
  return %r : tensor<1x112x112x64xf32>
}

// An NCHW conv computed through NHWC reads its filter transposed to HWCF:
// the same rule.
// CHECK-LABEL: func.func @nchw_28x28_3x3_128
// AVX2: register = {f = 16, oh = 1, ow = 4}, layout = nhwc, order = [f, oh, ow, kh, kw, c], pack = b,
// AVX512: register = {f = 32, oh = 1, ow = 7}, layout = nhwc, order = [f, oh, ow, kh, kw, c], pack = none,
// CHECK: return
func.func @nchw_28x28_3x3_128(%in: tensor<1x128x30x30xf32>, %w: tensor<128x128x3x3xf32>, %out: tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x128x30x30xf32>, tensor<128x128x3x3xf32>) outs(%out : tensor<1x128x28x28xf32>) -> tensor<1x128x28x28xf32>
  return %r : tensor<1x128x28x28xf32>
}

// Small convs of the rule run against the untiled lowering, at 1 and 2
// threads: a prime 13x13 map (its rows padded to 14) and a strided conv at
// batch 2 with two chunks of 64 channels.
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefix=SMALL
// SMALL-LABEL: func.func @small_13x13
// SMALL: pack = b,
// SMALL-LABEL: func.func @small_s2_b2
// SMALL: pack = b,
// SMALL-LABEL: func.func @small_nchw_s2
// SMALL: layout = nhwc, {{.*}}pack = b,
// RUN: tiletune-run %s --entry=small_13x13 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,512K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_13x13 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=32K,512K}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_s2_b2 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,512K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_s2_b2 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=32K,512K}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_nchw_s2 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,512K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_nchw_s2 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=32K,512K}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC: verify: passed against the untiled lowering
func.func @small_13x13(%in: tensor<1x15x15x64xf32>, %w: tensor<3x3x64x48xf32>, %out: tensor<1x13x13x48xf32>) -> tensor<1x13x13x48xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x15x15x64xf32>, tensor<3x3x64x48xf32>) outs(%out : tensor<1x13x13x48xf32>) -> tensor<1x13x13x48xf32>
  return %r : tensor<1x13x13x48xf32>
}
func.func @small_s2_b2(%in: tensor<2x17x17x128xf32>, %w: tensor<3x3x128x64xf32>, %out: tensor<2x8x8x64xf32>) -> tensor<2x8x8x64xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<2x17x17x128xf32>, tensor<3x3x128x64xf32>) outs(%out : tensor<2x8x8x64xf32>) -> tensor<2x8x8x64xf32>
  return %r : tensor<2x8x8x64xf32>
}
func.func @small_nchw_s2(%in: tensor<2x128x15x17xf32>, %w: tensor<64x128x3x3xf32>, %out: tensor<2x64x7x8xf32>) -> tensor<2x64x7x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<2x128x15x17xf32>, tensor<64x128x3x3xf32>) outs(%out : tensor<2x64x7x8xf32>) -> tensor<2x64x7x8xf32>
  return %r : tensor<2x64x7x8xf32>
}
