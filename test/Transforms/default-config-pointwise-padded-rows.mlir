// A pointwise NHWC conv (FHWC or HWCF filter, 1x1 window, unit strides) of
// one image on a map larger than 7x7 whose pixels give the GEMM's
// two-vector register tiles fewer than 12 accumulators (AVX2's 6 rows
// against 56x56, 28x28 or 14x14 pixels: 4) pads its output rows to a
// multiple of 6 / gcd(6, columns) and runs as the im2col GEMM (RPMMV) over
// them: 6 x 16 register tiles, the last rows peeled, nothing past the map
// computed (getCPUPaddedIm2colRows, pickIm2colPack; docs/CPUSchedule.md,
// "Ragged rows of the pointwise GEMMs"). The padded rows stay whole at the
// parallel level: the threads split the filters. AVX-512 (8 rows of two
// vectors divide 3136), batches, strided and larger windows keep their
// configs.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefixes=CHECK,AVX2,AVX2-T1
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefixes=CHECK,AVX2,AVX2-T2
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=32K,1M" | FileCheck %s --check-prefixes=CHECK,AVX512
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=znver4 caches=32K,1M" | FileCheck %s --check-prefixes=CHECK,AVX512

// The cache tile: 42 GEMM rows (3 x 14 pixels), the register tile 3 x 2.
// CHECK-LABEL: func.func @fhwc_56x56_256_128
// AVX2-T1: parallel = {f = 128, n = 1, oh = 57, ow = 56}, cache = {c = 256, f = 128, kh = 1, kw = 1, oh = 3, ow = 14}, register = {f = 16, oh = 3, ow = 2}, compute = im2col_rpmmv, order = [f, kh, kw, c, oh, ow], pad = {oh = 57}
// AVX2-T2: parallel = {f = 64, n = 1, oh = 57, ow = 56}, {{.*}}register = {f = 16, oh = 3, ow = 2}, compute = im2col_rpmmv, {{.*}}pad = {oh = 57}
// AVX512-NOT: pad =
// CHECK: return
func.func @fhwc_56x56_256_128(%in: tensor<1x56x56x256xf32>, %w: tensor<128x1x1x256xf32>, %out: tensor<1x56x56x128xf32>) -> tensor<1x56x56x128xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x56x56x256xf32>, tensor<128x1x1x256xf32>) outs(%out : tensor<1x56x56x128xf32>) -> tensor<1x56x56x128xf32>
  return %r : tensor<1x56x56x128xf32>
}

// CHECK-LABEL: func.func @hwcf_56x56_64_256
// AVX2: register = {f = 16, oh = 3, ow = 2}, compute = im2col_rpmmv, {{.*}}pad = {oh = 57}
// AVX512-NOT: pad =
// CHECK: return
func.func @hwcf_56x56_64_256(%in: tensor<1x56x56x64xf32>, %w: tensor<1x1x64x256xf32>, %out: tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x56x56x64xf32>, tensor<1x1x64x256xf32>) outs(%out : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  return %r : tensor<1x56x56x256xf32>
}

// CHECK-LABEL: func.func @fhwc_14x14_1024_256
// AVX2: register = {f = 16, oh = 3, ow = 2}, compute = im2col_rpmmv, {{.*}}pad = {oh = 15}
// AVX512-NOT: pad =
// CHECK: return
func.func @fhwc_14x14_1024_256(%in: tensor<1x14x14x1024xf32>, %w: tensor<256x1x1x1024xf32>, %out: tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x14x14x1024xf32>, tensor<256x1x1x1024xf32>) outs(%out : tensor<1x14x14x256xf32>) -> tensor<1x14x14x256xf32>
  return %r : tensor<1x14x14x256xf32>
}

// Not at batch 8, with a stride, or with a 3x3 window.
// CHECK-LABEL: func.func @b8_fhwc_56x56_256_128
// CHECK-NOT: pad =
// CHECK: return
func.func @b8_fhwc_56x56_256_128(%in: tensor<8x56x56x256xf32>, %w: tensor<128x1x1x256xf32>, %out: tensor<8x56x56x128xf32>) -> tensor<8x56x56x128xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<8x56x56x256xf32>, tensor<128x1x1x256xf32>) outs(%out : tensor<8x56x56x128xf32>) -> tensor<8x56x56x128xf32>
  return %r : tensor<8x56x56x128xf32>
}

// CHECK-LABEL: func.func @fhwc_s2_28x28_256_512
// CHECK-NOT: pad =
// CHECK: return
func.func @fhwc_s2_28x28_256_512(%in: tensor<1x55x55x256xf32>, %w: tensor<512x1x1x256xf32>, %out: tensor<1x28x28x512xf32>) -> tensor<1x28x28x512xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x55x55x256xf32>, tensor<512x1x1x256xf32>) outs(%out : tensor<1x28x28x512xf32>) -> tensor<1x28x28x512xf32>
  return %r : tensor<1x28x28x512xf32>
}

// CHECK-LABEL: func.func @fhwc_3x3_28x28_128
// CHECK-NOT: pad =
// CHECK: return
func.func @fhwc_3x3_28x28_128(%in: tensor<1x30x30x128xf32>, %w: tensor<128x3x3x128xf32>, %out: tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x30x30x128xf32>, tensor<128x3x3x128xf32>) outs(%out : tensor<1x28x28x128xf32>) -> tensor<1x28x28x128xf32>
  return %r : tensor<1x28x28x128xf32>
}

// Small pointwise convs with their default configs, run against the
// untiled lowering at 1 and 2 threads: a 10x10 map (100 pixels: 5 rows)
// padded to 12 rows, a 9x9 one (3 rows) to 10 (its few filters direct,
// the padded rows whole), and with 48 filters at 2
// threads, where the padded GEMM's threads could not split the filters
// (three vectors of 16), the unpadded tiles with the pixels split.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,512K" > %t.1.mlir
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,512K" > %t.2.mlir
// RUN: FileCheck %s --check-prefix=SMALL1 < %t.1.mlir
// RUN: FileCheck %s --check-prefix=SMALL2 < %t.2.mlir
// RUN: for e in small_fhwc_10x10 small_hwcf_9x9 small_fhwc_10x10_48; do tiletune-run %t.1.mlir --entry=$e --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1; done | FileCheck %s --check-prefix=EXEC
// RUN: for e in small_fhwc_10x10 small_hwcf_9x9 small_fhwc_10x10_48; do tiletune-run %t.2.mlir --entry=$e --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=2}" --num-threads=2 --verify-untiled --repeats=1; done | FileCheck %s --check-prefix=EXEC
// EXEC-COUNT-3: verify: passed against the untiled lowering
// EXEC-NOT: FAILED

// SMALL1-LABEL: func.func @small_fhwc_10x10(
// SMALL1: compute = im2col_rpmmv, {{.*}}pad = {oh = 12}
// SMALL1-LABEL: func.func @small_hwcf_9x9(
// SMALL1: pad = {oh = 10}
// SMALL1-LABEL: func.func @small_fhwc_10x10_48(
// SMALL1: compute = im2col_rpmmv, {{.*}}pad = {oh = 12}
// SMALL2-LABEL: func.func @small_fhwc_10x10(
// SMALL2: parallel = {f = 32, {{.*}}compute = im2col_rpmmv, {{.*}}pad = {oh = 12}
// SMALL2-LABEL: func.func @small_hwcf_9x9(
// SMALL2: pad = {oh = 10}
// SMALL2-LABEL: func.func @small_fhwc_10x10_48(
// SMALL2-NOT: pad =
// SMALL2: return
func.func @small_fhwc_10x10(%in: tensor<1x10x10x40xf32>, %w: tensor<64x1x1x40xf32>, %out: tensor<1x10x10x64xf32>) -> tensor<1x10x10x64xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x10x10x40xf32>, tensor<64x1x1x40xf32>) outs(%out : tensor<1x10x10x64xf32>) -> tensor<1x10x10x64xf32>
  return %r : tensor<1x10x10x64xf32>
}

func.func @small_hwcf_9x9(%in: tensor<1x9x9x24xf32>, %w: tensor<1x1x24x32xf32>, %out: tensor<1x9x9x32xf32>) -> tensor<1x9x9x32xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x9x9x24xf32>, tensor<1x1x24x32xf32>) outs(%out : tensor<1x9x9x32xf32>) -> tensor<1x9x9x32xf32>
  return %r : tensor<1x9x9x32xf32>
}

func.func @small_fhwc_10x10_48(%in: tensor<1x10x10x40xf32>, %w: tensor<48x1x1x40xf32>, %out: tensor<1x10x10x48xf32>) -> tensor<1x10x10x48xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x10x10x40xf32>, tensor<48x1x1x40xf32>) outs(%out : tensor<1x10x10x48xf32>) -> tensor<1x10x10x48xf32>
  return %r : tensor<1x10x10x48xf32>
}
