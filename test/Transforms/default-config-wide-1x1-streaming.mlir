// An unstrided 1x1 conv on a map wider than 14 whose input streams from
// memory (more than 4x L2) copies its input tiles (`pack = a`) and takes all
// filters as one cache tile, output pixels outermost, where a chunk of all
// filters (c cache tile x f) is at most a quarter of L2 (docs/CPUSchedule.md,
// "Wide 1x1 convs streaming their input"). With a 512 KiB L2 (Zen 3): the
// 64 KiB and 128 KiB chunks take it, the 256 KiB one keeps the order
// [f, oh, ow, ...]; a batch-1 input (0.8 MB, within 4x L2) keeps it too.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,512K" | FileCheck %s
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,512K" | FileCheck %s --check-prefix=TWO

// CHECK-LABEL: func.func @c56_64_256
// CHECK: cache = {c = 64, f = 256, {{.*}}order = [oh, ow, f, kh, kw, c], pack = a
// All 64 channels are one chunk: two threads take it too.
// TWO-LABEL: func.func @c56_64_256
// TWO: parallel = {f = 256, n = 4, {{.*}}order = [oh, ow, f, kh, kw, c], pack = a
func.func @c56_64_256(%in: tensor<8x56x56x64xf32>, %w: tensor<1x1x64x256xf32>, %out: tensor<8x56x56x256xf32>) -> tensor<8x56x56x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<8x56x56x64xf32>, tensor<1x1x64x256xf32>) outs(%out : tensor<8x56x56x256xf32>) -> tensor<8x56x56x256xf32>
  return %r : tensor<8x56x56x256xf32>
}

// CHECK-LABEL: func.func @c28_128_512
// CHECK: cache = {c = 64, f = 512, {{.*}}order = [oh, ow, f, kh, kw, c], pack = a
// Two chunks of channels: one thread only.
// TWO-LABEL: func.func @c28_128_512
// TWO: order = [f, oh, ow, kh, kw, c], pack = none
func.func @c28_128_512(%in: tensor<8x28x28x128xf32>, %w: tensor<1x1x128x512xf32>, %out: tensor<8x28x28x512xf32>) -> tensor<8x28x28x512xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<8x28x28x128xf32>, tensor<1x1x128x512xf32>) outs(%out : tensor<8x28x28x512xf32>) -> tensor<8x28x28x512xf32>
  return %r : tensor<8x28x28x512xf32>
}

// CHECK-LABEL: func.func @c28_128_1024
// CHECK: order = [f, oh, ow, kh, kw, c], pack = none
func.func @c28_128_1024(%in: tensor<8x28x28x128xf32>, %w: tensor<1x1x128x1024xf32>, %out: tensor<8x28x28x1024xf32>) -> tensor<8x28x28x1024xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<8x28x28x128xf32>, tensor<1x1x128x1024xf32>) outs(%out : tensor<8x28x28x1024xf32>) -> tensor<8x28x28x1024xf32>
  return %r : tensor<8x28x28x1024xf32>
}

// CHECK-LABEL: func.func @b1_c56_64_256
// CHECK-NOT: pack = a
// CHECK: return
func.func @b1_c56_64_256(%in: tensor<1x56x56x64xf32>, %w: tensor<1x1x64x256xf32>, %out: tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x56x56x64xf32>, tensor<1x1x64x256xf32>) outs(%out : tensor<1x56x56x256xf32>) -> tensor<1x56x56x256xf32>
  return %r : tensor<1x56x56x256xf32>
}

// A small conv that takes the rule with a 32 KiB L2 (its 256 KiB input
// streams, an 8 KiB chunk) runs against the untiled lowering, AVX2, 1 and
// 2 threads.
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=haswell caches=32K,32K" | FileCheck %s --check-prefix=SMALL
// SMALL-LABEL: func.func @small
// SMALL: parallel = {f = 64, n = 1, {{.*}}order = [oh, ow, f, kh, kw, c], pack = a
// RUN: tiletune-run %s --entry=small --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=32K,32K}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=small --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,32K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC: verify: passed against the untiled lowering
func.func @small(%in: tensor<2x32x32x32xf32>, %w: tensor<1x1x32x64xf32>, %out: tensor<2x32x32x64xf32>) -> tensor<2x32x32x64xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<2x32x32x32xf32>, tensor<1x1x32x64xf32>) outs(%out : tensor<2x32x32x64xf32>) -> tensor<2x32x32x64xf32>
  return %r : tensor<2x32x32x64xf32>
}
