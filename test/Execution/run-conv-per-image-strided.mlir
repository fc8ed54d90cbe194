// A strided 1x1 NCHW conv with the default config, which computes it per
// image (test/Transforms/default-config-per-image-strided.mlir): 15x15
// input, stride 2, 8x8 = 64 output pixels (whole vectors of 16 and 8 f32),
// 4 images (two per thread at 2 threads), prime channel counts. Matches
// the reference at 1 and 2 threads, as AVX-512 where the host has it and
// as AVX2.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1" | FileCheck %s --check-prefix=CONFIG
// RUN: tiletune-opt %s --tiletune-default-config="threads=2" | FileCheck %s --check-prefix=CONFIG
// RUN: for t in 1 2; do \
// RUN:   tiletune-run %s --pipeline="tiletune-lower-cpu{default-configs=1 threads=$t}" --num-threads=$t --verify --repeats=1; \
// RUN: done | FileCheck %s --check-prefix=VERIFY
// RUN: tiletune-run %s --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 mcpu=haswell}" --mcpu=haswell --num-threads=2 --verify --repeats=1 | FileCheck %s --check-prefix=VERIFY1

// CONFIG: compute = im2col_
// CONFIG-NOT: layout = nhwc
// VERIFY-COUNT-2: verify: PASSED
// VERIFY1: verify: PASSED
func.func @down(%x: tensor<4x13x15x15xf32>, %w: tensor<37x13x1x1xf32>,
                %o: tensor<4x37x8x8xf32>) -> tensor<4x37x8x8xf32> {
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<4x13x15x15xf32>, tensor<37x13x1x1xf32>)
    outs(%o : tensor<4x37x8x8xf32>) -> tensor<4x37x8x8xf32>
  return %r : tensor<4x37x8x8xf32>
}
