// An NHWC conv (FHWC or HWCF filter) of at least 256 channels in and out
// on a map of 50 to 196 pixels takes the im2col GEMM with RPMMV, at any
// batch and thread count, where two vectors of filters get less than half
// the register rows the register file holds for them in a row of the map
// (DefaultConfig.cpp, pickIm2colPack; docs/CPUSchedule.md, "1x1 convs on
// 14x14 maps with 16 registers"); so does an NCHW conv with a window larger
// than 1x1 at batch 1 (its 1x1 form has its own rules). AVX2 (16
// registers: 6 rows of two vectors, 2 columns of a 14-wide row) takes it;
// AVX-512 (32: 14 rows) and the 28x28 maps do not (one HWCF image on a
// 7x7 map does on AVX2, see below). Until 2026-12-06 only 1x1 windows took
// it.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=32K,1M" | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=znver4 caches=32K,1M" | FileCheck %s --check-prefixes=CHECK,AVX512

// On AVX2 its 196 pixels (4-row divisors) are padded to 15 rows of 14 for
// the GEMM's 6-row tiles (a pointwise conv: getCPUPaddedIm2colRows).
// CHECK-LABEL: func.func @hwcf_256_1024
// AVX2: register = {f = 16, oh = 3, ow = 2}, compute = im2col_rpmmv, order = [f, kh, kw, c, oh, ow], pad = {oh = 15}
// AVX512-NOT: compute = im2col
// CHECK: return
func.func @hwcf_256_1024(%in: tensor<1x14x14x256xf32>, %w: tensor<1x1x256x1024xf32>, %out: tensor<1x14x14x1024xf32>) -> tensor<1x14x14x1024xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x14x14x256xf32>, tensor<1x1x256x1024xf32>) outs(%out : tensor<1x14x14x1024xf32>) -> tensor<1x14x14x1024xf32>
  return %r : tensor<1x14x14x1024xf32>
}

// CHECK-LABEL: func.func @fhwc_1024_256
// AVX2: compute = im2col_rpmmv
// AVX512-NOT: compute = im2col
// CHECK: return
func.func @fhwc_1024_256(%in: tensor<1x14x14x1024xf32>, %w: tensor<256x1x1x1024xf32>, %out: tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x14x14x1024xf32>, tensor<256x1x1x1024xf32>) outs(%out : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  return %r : tensor<1x14x14x256xf32>
}

// The strided downsampling conv, at batch 8.
// CHECK-LABEL: func.func @b8_hwcf_s2_512_1024
// AVX2: compute = im2col_rpmmv
// AVX512-NOT: compute = im2col
// CHECK: return
func.func @b8_hwcf_s2_512_1024(%in: tensor<8x28x28x512xf32>, %w: tensor<1x1x512x1024xf32>, %out: tensor<8x14x14x1024xf32>) -> tensor<8x14x14x1024xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<8x28x28x512xf32>, tensor<1x1x512x1024xf32>) outs(%out : tensor<8x14x14x1024xf32>) -> tensor<8x14x14x1024xf32>
  return %r : tensor<8x14x14x1024xf32>
}

// Not for a 3x3 filter on 28x28 or with fewer than 256 channels. Pointwise
// ones on 28x28 maps or with fewer channels take it on AVX2 since
// 2026-12-07, over rows padded for 6-row tiles (28 -> 30, 14 -> 15;
// docs/CPUSchedule.md, "Ragged rows of the pointwise GEMMs"); AVX-512's
// tiles divide the pixels. One HWCF image on a 7x7 map takes it on AVX2
// too since 2026-12-07, over 12 rows (docs/CPUSchedule.md, "Small maps on
// AVX2"); AVX-512's 2 x 7 direct tiles stay.
// CHECK-LABEL: func.func @hwcf_7x7_2048_512
// AVX2: register = {f = 16, oh = 6, ow = 1}, compute = im2col_rpmmv, order = [f, kh, kw, c, oh, ow], pad = {oh = 12}
// AVX512-NOT: compute = im2col
// AVX512: pad = {oh = 8}
// CHECK: return
func.func @hwcf_7x7_2048_512(%in: tensor<1x7x7x2048xf32>, %w: tensor<1x1x2048x512xf32>, %out: tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x7x7x2048xf32>, tensor<1x1x2048x512xf32>) outs(%out : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %r : tensor<1x7x7x512xf32>
}

// CHECK-LABEL: func.func @hwcf_28x28_512_256
// AVX2: cache = {c = 256, f = {{128|256}}, kh = 1, kw = 1, oh = 15, ow = 4}, register = {f = 16, oh = 3, ow = 2}, compute = im2col_rpmmv, order = [f, kh, kw, c, oh, ow], pad = {oh = 30}
// AVX512-NOT: compute = im2col
// CHECK: return
func.func @hwcf_28x28_512_256(%in: tensor<1x28x28x512xf32>, %w: tensor<1x1x512x256xf32>, %out: tensor<1x28x28x256xf32>) -> tensor<1x28x28x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x28x28x512xf32>, tensor<1x1x512x256xf32>) outs(%out : tensor<1x28x28x256xf32>) -> tensor<1x28x28x256xf32>
  return %r : tensor<1x28x28x256xf32>
}

// CHECK-LABEL: func.func @hwcf_128_1024
// AVX2: compute = im2col_rpmmv, order = [f, kh, kw, c, oh, ow], pad = {oh = 15}
// AVX512-NOT: compute = im2col
// CHECK: return
func.func @hwcf_128_1024(%in: tensor<1x14x14x128xf32>, %w: tensor<1x1x128x1024xf32>, %out: tensor<1x14x14x1024xf32>) -> tensor<1x14x14x1024xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x14x14x128xf32>, tensor<1x1x128x1024xf32>) outs(%out : tensor<1x14x14x1024xf32>) -> tensor<1x14x14x1024xf32>
  return %r : tensor<1x14x14x1024xf32>
}

// CHECK-LABEL: func.func @hwcf_3x3_256
// AVX2: compute = im2col_rpmmv
// AVX512-NOT: compute = im2col
// CHECK: return
func.func @hwcf_3x3_256(%in: tensor<1x16x16x256xf32>, %w: tensor<3x3x256x256xf32>, %out: tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x16x16x256xf32>, tensor<3x3x256x256xf32>) outs(%out : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  return %r : tensor<1x14x14x256xf32>
}

// CHECK-LABEL: func.func @nchw_3x3s2_256
// AVX2: compute = im2col_rpmmv
// CHECK: return
func.func @nchw_3x3s2_256(%in: tensor<1x256x29x29xf32>, %w: tensor<256x256x3x3xf32>, %out: tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x256x29x29xf32>, tensor<256x256x3x3xf32>) outs(%out : tensor<1x256x14x14xf32>) -> tensor<1x256x14x14xf32>
  return %r : tensor<1x256x14x14xf32>
}

// NCHW at batch 8 stays direct.
// CHECK-LABEL: func.func @b8_nchw_3x3_256
// CHECK-NOT: compute = im2col
// CHECK: return
func.func @b8_nchw_3x3_256(%in: tensor<8x256x16x16xf32>, %w: tensor<256x256x3x3xf32>, %out: tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<8x256x16x16xf32>, tensor<256x256x3x3xf32>) outs(%out : tensor<8x256x14x14xf32>) -> tensor<8x256x14x14xf32>
  return %r : tensor<8x256x14x14xf32>
}

// Small convs that take the rule on AVX2 run against the untiled lowering,
// 1 and 2 threads: a 4x14 map, a prime 13x13 one (FHWC) and a strided one
// (HWCF, 4x14 out of 7x27).
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefix=SMALL
// SMALL-LABEL: func.func @small_4x14
// SMALL: compute = im2col_rpmmv
// SMALL-LABEL: func.func @small_13x13
// SMALL: compute = im2col_rpmmv
// SMALL-LABEL: func.func @small_s2
// SMALL: compute = im2col_rpmmv
// SMALL-LABEL: func.func @small_3x3_13x13
// SMALL: compute = im2col_rpmmv
// SMALL-LABEL: func.func @small_nchw_3x3s2
// SMALL: compute = im2col_rpmmv
// RUN: tiletune-run %s --entry=small_4x14 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=32K,512K}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_13x13 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,512K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_13x13 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=32K,512K}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_s2 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,512K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_3x3_13x13 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=32K,512K}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small_nchw_3x3s2 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,512K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC: verify: passed against the untiled lowering
func.func @small_4x14(%in: tensor<1x4x14x256xf32>, %w: tensor<1x1x256x256xf32>, %out: tensor<1x4x14x256xf32>) -> tensor<1x4x14x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x4x14x256xf32>, tensor<1x1x256x256xf32>) outs(%out : tensor<1x4x14x256xf32>) -> tensor<1x4x14x256xf32>
  return %r : tensor<1x4x14x256xf32>
}

func.func @small_13x13(%in: tensor<1x13x13x256xf32>, %w: tensor<264x1x1x256xf32>, %out: tensor<1x13x13x264xf32>) -> tensor<1x13x13x264xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x13x13x256xf32>, tensor<264x1x1x256xf32>) outs(%out : tensor<1x13x13x264xf32>) -> tensor<1x13x13x264xf32>
  return %r : tensor<1x13x13x264xf32>
}

func.func @small_s2(%in: tensor<1x7x27x256xf32>, %w: tensor<1x1x256x256xf32>, %out: tensor<1x4x14x256xf32>) -> tensor<1x4x14x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x7x27x256xf32>, tensor<1x1x256x256xf32>) outs(%out : tensor<1x4x14x256xf32>) -> tensor<1x4x14x256xf32>
  return %r : tensor<1x4x14x256xf32>
}

func.func @small_3x3_13x13(%in: tensor<1x15x15x256xf32>, %w: tensor<3x3x256x264xf32>, %out: tensor<1x13x13x264xf32>) -> tensor<1x13x13x264xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x15x15x256xf32>, tensor<3x3x256x264xf32>) outs(%out : tensor<1x13x13x264xf32>) -> tensor<1x13x13x264xf32>
  return %r : tensor<1x13x13x264xf32>
}

func.func @small_nchw_3x3s2(%in: tensor<1x256x9x29xf32>, %w: tensor<256x256x3x3xf32>, %out: tensor<1x256x4x14xf32>) -> tensor<1x256x4x14xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x256x9x29xf32>, tensor<256x256x3x3xf32>) outs(%out : tensor<1x256x4x14xf32>) -> tensor<1x256x4x14xf32>
  return %r : tensor<1x256x4x14xf32>
}
