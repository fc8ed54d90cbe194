// The default config of an HWCF conv on a small map with an odd number of
// rows that one cache step takes whole pads the rows by one, for register
// tiles of two rows (on AVX2 to the 12 rows of the im2col GEMM's 6-row
// tiles since 2026-12-07, which tiles of two rows divide too), and reads the filter in place where the register
// tile's filters fill whole cache lines (AVX-512's 32); AVX2's 8 filters are
// half a line, and the filter tile is packed. With an FHWC filter
// (transposed into packed tiles) it keeps one row. AVX-512 and AVX2, and
// the AVX2 config run against the untiled lowering at 2 threads.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4" | FileCheck %s --check-prefix=AVX512
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell" | FileCheck %s --check-prefix=AVX2
// RUN: tiletune-run %s --entry=hwcf --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC: verify: passed against the untiled lowering

// AVX512-LABEL: func.func @hwcf
// AVX512: parallel = {f = 256, n = 1, oh = 8, ow = 7}, cache = {c = 64, f = 64, kh = 1, kw = 1, oh = 8, ow = 7}, register = {f = 32, oh = 2, ow = 7}, order = [f, oh, ow, kh, kw, c], pack = none, pad = {oh = 8}
// AVX2-LABEL: func.func @hwcf
// AVX2: parallel = {f = 128, n = 1, oh = 12, ow = 7}, cache = {c = 64, f = 64, kh = 1, kw = 1, oh = 12, ow = 7}, register = {f = 8, oh = 2, ow = 7}, order = [f, oh, ow, kh, kw, c], pack = b, pad = {oh = 12}
func.func @hwcf(%in: tensor<1x7x7x64xf32>, %w: tensor<1x1x64x256xf32>, %out: tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x7x7x64xf32>, tensor<1x1x64x256xf32>) outs(%out : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  return %r : tensor<1x7x7x256xf32>
}

// AVX512-LABEL: func.func @fhwc
// AVX512-NOT: pad =
// AVX512: register = {f = 32, oh = 1, ow = 7}
// AVX512-SAME: pack = b
// AVX2-LABEL: func.func @fhwc
// AVX2-NOT: pad =
// AVX2: register = {f = 8, oh = 1, ow = 7}
func.func @fhwc(%in: tensor<1x7x7x64xf32>, %w: tensor<256x1x1x64xf32>, %out: tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x7x7x64xf32>, tensor<256x1x1x64xf32>) outs(%out : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  return %r : tensor<1x7x7x256xf32>
}
