// The im2col GEMM of one image (FHWC, HWCF, NCHW) whose pixels have no divisor of at least
// half the rows of a two-vector register tile (a 7x7 map's 49 pixels
// against AVX2's 6 rows: 1) pads the conv's output rows to a multiple of
// those rows (7 -> 12), which pads the end of the GEMM's pixel loop: its
// register tiles are 6 x 16, the last one shorter, nothing past the 49
// pixels computed (DefaultConfig.cpp, computeIm2colDefaultCPUConfig;
// docs/CPUSchedule.md, "Ragged rows of the 7x7 im2col GEMMs"). Until
// 2026-12-06 these GEMMs ran 7 x 8 tiles. AVX-512 (7 rows of two vectors
// divide 49) and batch 8 keep their tiles. Its cache steps take a k chunk
// whose A slice fills L1 and two panels of filters (since 2026-12-07).
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=32K,1M" | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=znver4 caches=32K,1M" | FileCheck %s --check-prefixes=CHECK,AVX512

// CHECK-LABEL: func.func @nchw_512_2048
// AVX2: register = {f = 16, oh = 6, ow = 1}, compute = im2col_rpmmv, layout = nhwc, {{.*}}pad = {oh = 12}
// AVX512-NOT: pad =
// CHECK: return
func.func @nchw_512_2048(%in: tensor<1x512x7x7xf32>, %w: tensor<2048x512x1x1xf32>, %out: tensor<1x2048x7x7xf32>) -> tensor<1x2048x7x7xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x512x7x7xf32>, tensor<2048x512x1x1xf32>) outs(%out : tensor<1x2048x7x7xf32>) -> tensor<1x2048x7x7xf32>
  return %r : tensor<1x2048x7x7xf32>
}

// CHECK-LABEL: func.func @nchw_3x3_512
// AVX2: register = {f = 16, oh = 6, ow = 1}, compute = im2col_rpmmv, layout = nhwc, {{.*}}pad = {oh = 12}
// AVX512-NOT: pad =
// CHECK: return
func.func @nchw_3x3_512(%in: tensor<1x512x9x9xf32>, %w: tensor<512x512x3x3xf32>, %out: tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x512x9x9xf32>, tensor<512x512x3x3xf32>) outs(%out : tensor<1x512x7x7xf32>) -> tensor<1x512x7x7xf32>
  return %r : tensor<1x512x7x7xf32>
}

// CHECK-LABEL: func.func @fhwc_512_2048
// AVX2: register = {f = 16, oh = 6, ow = 1}, compute = im2col_rpmmv, {{.*}}pad = {oh = 12}
// AVX512-NOT: pad =
// CHECK: return
func.func @fhwc_512_2048(%in: tensor<1x7x7x512xf32>, %w: tensor<2048x1x1x512xf32>, %out: tensor<1x7x7x2048xf32>) -> tensor<1x7x7x2048xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x7x7x512xf32>, tensor<2048x1x1x512xf32>) outs(%out : tensor<1x7x7x2048xf32>) -> tensor<1x7x7x2048xf32>
  return %r : tensor<1x7x7x2048xf32>
}

// One HWCF image takes the GEMM on AVX2 since 2026-12-07 (the direct
// conv's tiles were 2 x 7 pixels x one vector of filters; docs/CPUSchedule.md,
// "Small maps on AVX2"); AVX-512 keeps its direct 2 x 7 x 32 tiles over
// 8 rows.
// CHECK-LABEL: func.func @hwcf_3x3_512
// AVX2: cache = {c = 128, f = 32, kh = 1, kw = 1, oh = 12, ow = 7}, register = {f = 16, oh = 6, ow = 1}, compute = im2col_rpmmv, {{.*}}pad = {oh = 12}
// AVX512-NOT: compute =
// AVX512: pad = {oh = 8}
// CHECK: return
func.func @hwcf_3x3_512(%in: tensor<1x9x9x512xf32>, %w: tensor<3x3x512x512xf32>, %out: tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x9x9x512xf32>, tensor<3x3x512x512xf32>) outs(%out : tensor<1x7x7x512xf32>) -> tensor<1x7x7x512xf32>
  return %r : tensor<1x7x7x512xf32>
}

// Batch 8: the GEMM's rows are the pixels of all images (392 = 8 x 49).
// CHECK-LABEL: func.func @b8_nchw_512_2048
// CHECK-NOT: pad =
// CHECK: return
func.func @b8_nchw_512_2048(%in: tensor<8x512x7x7xf32>, %w: tensor<2048x512x1x1xf32>, %out: tensor<8x2048x7x7xf32>) -> tensor<8x2048x7x7xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<8x512x7x7xf32>, tensor<2048x512x1x1xf32>) outs(%out : tensor<8x2048x7x7xf32>) -> tensor<8x2048x7x7xf32>
  return %r : tensor<8x2048x7x7xf32>
}

// Small convs of the rule's forms with its padded rows (a 7x7 map: 12
// rows; a 13x13 one: 18), run against the untiled lowering at 1 and 2
// threads, computes forced so that the small channel counts take im2col.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,512K compute=im2col_rpmmv" | FileCheck %s --check-prefix=SMALL
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,512K compute=im2col_rpmmv" > %t.1.mlir
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,512K compute=im2col_tmm" > %t.2.mlir
// RUN: for e in small_nchw_7x7 small_nchw_3x3_13x13 small_hwcf_7x7 small_fhwc_3x3_7x7; do tiletune-run %t.1.mlir --entry=$e --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1; done | FileCheck %s --check-prefix=EXEC
// RUN: for e in small_nchw_7x7 small_nchw_3x3_13x13 small_hwcf_7x7 small_fhwc_3x3_7x7; do tiletune-run %t.2.mlir --entry=$e --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=2}" --num-threads=2 --verify-untiled --repeats=1; done | FileCheck %s --check-prefix=EXEC
// EXEC-COUNT-4: verify: passed against the untiled lowering
// EXEC-NOT: FAILED

// SMALL-LABEL: func.func @small_nchw_7x7
// SMALL: pad = {oh = 12}
// SMALL-LABEL: func.func @small_nchw_3x3_13x13
// SMALL: pad = {oh = 18}
// HWCF convs too since 2026-12-07 (here strided: unstrided ones pad the
// same rows for the direct conv, getCPUPaddedConvRows).
// SMALL-LABEL: func.func @small_hwcf_7x7
// SMALL: pad = {oh = 12}
// SMALL-LABEL: func.func @small_fhwc_3x3_7x7
// SMALL: pad = {oh = 12}
func.func @small_nchw_7x7(%in: tensor<1x24x7x7xf32>, %w: tensor<40x24x1x1xf32>, %out: tensor<1x40x7x7xf32>) -> tensor<1x40x7x7xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x24x7x7xf32>, tensor<40x24x1x1xf32>) outs(%out : tensor<1x40x7x7xf32>) -> tensor<1x40x7x7xf32>
  return %r : tensor<1x40x7x7xf32>
}

func.func @small_nchw_3x3_13x13(%in: tensor<1x8x15x15xf32>, %w: tensor<32x8x3x3xf32>, %out: tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32> {
  %r = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x8x15x15xf32>, tensor<32x8x3x3xf32>) outs(%out : tensor<1x32x13x13xf32>) -> tensor<1x32x13x13xf32>
  return %r : tensor<1x32x13x13xf32>
}

func.func @small_hwcf_7x7(%in: tensor<1x13x13x24xf32>, %w: tensor<1x1x24x48xf32>, %out: tensor<1x7x7x48xf32>) -> tensor<1x7x7x48xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x13x13x24xf32>, tensor<1x1x24x48xf32>) outs(%out : tensor<1x7x7x48xf32>) -> tensor<1x7x7x48xf32>
  return %r : tensor<1x7x7x48xf32>
}

func.func @small_fhwc_3x3_7x7(%in: tensor<1x9x9x16xf32>, %w: tensor<32x3x3x16xf32>, %out: tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>) outs(%out : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %r : tensor<1x7x7x32xf32>
}
