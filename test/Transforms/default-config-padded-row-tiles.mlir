// On a map of at most 14 columns, a conv whose input is a zero tensor.pad
// of its rows gets register tiles of one whole output row (1 x 14) instead
// of two half rows (2 x 7): as many accumulators, and skip-padding-taps
// drops the row taps on the padding of the top and bottom rows. Not where
// only the columns are padded, the pad is not zero, the window has one
// row, or the row's pixels would crowd an L1 set. AVX-512 at 1 and 2
// threads, AVX2; NHWC, FHWC and NCHW.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,1M" | FileCheck %s --check-prefixes=CHECK,T1
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=znver4 caches=48K,1M" | FileCheck %s --check-prefixes=CHECK,T2
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,1M" | FileCheck %s --check-prefix=AVX2

// The tuner's default config of the padded conv is the same (its space
// is built from the problem, whose key holds the pad).
// RUN: tiletune space %s --threads=1 --mcpu=znver4 | FileCheck %s --check-prefix=SPACE
// SPACE: problem conv_2d_nhwc_fhwc/f32/n=1,oh=14,ow=14,f=64,kh=3,kw=3,c=32/s=1x1/d=1x1/pad=0,1,1,0-0,1,1,0
// SPACE: default config: {{.*}};ow=[1,1,1,14];

// The configs compute the conv (against the untiled lowering).
// RUN: tiletune-run %s --entry=padded --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=padded --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=padded --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=strided --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=nchw --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC: verify: passed against the untiled lowering

// CHECK-LABEL: func.func @padded
// CHECK: register = {f = 32, oh = 1, ow = 14}
// AVX2-LABEL: func.func @padded
// AVX2: register = {f = 8, oh = 1, ow = 14}
func.func @padded(%x: tensor<1x14x14x32xf32>, %w: tensor<64x3x3x32xf32>) -> tensor<1x14x14x64xf32> {
  %z = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x14x14x32xf32> to tensor<1x16x16x32xf32>
  %e = tensor.empty() : tensor<1x14x14x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x16x16x32xf32>, tensor<64x3x3x32xf32>) outs(%f : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  return %r : tensor<1x14x14x64xf32>
}

// The same conv on an input given padded: two rows (one row of 7 at 2
// threads, each of which takes 7 rows).
// T1-LABEL: func.func @unpadded
// T1: register = {f = 32, oh = 2, ow = 7}
// T2-LABEL: func.func @unpadded
// T2: register = {f = 32, oh = 1, ow = 7}
// AVX2-LABEL: func.func @unpadded
// AVX2: register = {f = 8, oh = 2, ow = 7}
func.func @unpadded(%in: tensor<1x16x16x32xf32>, %w: tensor<64x3x3x32xf32>, %out: tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x16x16x32xf32>, tensor<64x3x3x32xf32>) outs(%out : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  return %r : tensor<1x14x14x64xf32>
}

// Only the columns padded: no row tap to skip, two rows.
// T1-LABEL: func.func @columns
// T1: register = {f = 32, oh = 2, ow = 7}
func.func @columns(%x: tensor<1x16x14x32xf32>, %w: tensor<64x3x3x32xf32>, %out: tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32> {
  %z = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 0, 1, 0] high[0, 0, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x16x14x32xf32> to tensor<1x16x16x32xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x16x16x32xf32>, tensor<64x3x3x32xf32>) outs(%out : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  return %r : tensor<1x14x14x64xf32>
}

// A pad of ones computes every tap: two rows.
// T1-LABEL: func.func @ones
// T1: register = {f = 32, oh = 2, ow = 7}
func.func @ones(%x: tensor<1x14x14x32xf32>, %w: tensor<64x3x3x32xf32>, %out: tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32> {
  %one = arith.constant 1.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %one : f32
  } : tensor<1x14x14x32xf32> to tensor<1x16x16x32xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x16x16x32xf32>, tensor<64x3x3x32xf32>) outs(%out : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  return %r : tensor<1x14x14x64xf32>
}

// A window of one row has no row tap to skip: two rows.
// T1-LABEL: func.func @onerow
// T1: register = {f = 32, oh = 2, ow = 7}
func.func @onerow(%x: tensor<1x14x14x32xf32>, %w: tensor<64x1x3x32xf32>, %out: tensor<1x16x14x64xf32>) -> tensor<1x16x14x64xf32> {
  %z = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x14x14x32xf32> to tensor<1x16x16x32xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x16x16x32xf32>, tensor<64x1x3x32xf32>) outs(%out : tensor<1x16x14x64xf32>) -> tensor<1x16x14x64xf32>
  return %r : tensor<1x16x14x64xf32>
}

// Strided, padded below and right only (ResNet-50's 3x3/2 convs): the
// bottom row's last tap is skipped; one row.
// CHECK-LABEL: func.func @strided
// CHECK: register = {f = 32, oh = 1, ow = 14}
func.func @strided(%x: tensor<1x28x28x32xf32>, %w: tensor<64x3x3x32xf32>) -> tensor<1x14x14x64xf32> {
  %z = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 0, 0, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x28x28x32xf32> to tensor<1x29x29x32xf32>
  %e = tensor.empty() : tensor<1x14x14x64xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x29x29x32xf32>, tensor<64x3x3x32xf32>) outs(%f : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  return %r : tensor<1x14x14x64xf32>
}

// Pixels 4 KiB apart (1024 channels) would all start in one L1 set: the
// row is not taken whole.
// T1-LABEL: func.func @crowded
// T1-NOT: ow = 14}, order
// T1: return
func.func @crowded(%x: tensor<1x14x14x1024xf32>, %w: tensor<64x3x3x1024xf32>, %out: tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32> {
  %z = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x14x14x1024xf32> to tensor<1x16x16x1024xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x16x16x1024xf32>, tensor<64x3x3x1024xf32>) outs(%out : tensor<1x14x14x64xf32>) -> tensor<1x14x14x64xf32>
  return %r : tensor<1x14x14x64xf32>
}

// NCHW (computed as NHWC): its rows are the input's third dim.
// CHECK-LABEL: func.func @nchw
// CHECK: register = {f = 32, oh = 1, ow = 14}
func.func @nchw(%x: tensor<1x32x14x14xf32>, %w: tensor<64x32x3x3xf32>) -> tensor<1x64x14x14xf32> {
  %z = arith.constant 0.0 : f32
  %in = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %z : f32
  } : tensor<1x32x14x14xf32> to tensor<1x32x16x16xf32>
  %e = tensor.empty() : tensor<1x64x14x14xf32>
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32>
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x32x16x16xf32>, tensor<64x32x3x3xf32>) outs(%f : tensor<1x64x14x14xf32>) -> tensor<1x64x14x14xf32>
  return %r : tensor<1x64x14x14xf32>
}
