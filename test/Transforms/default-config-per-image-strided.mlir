// A strided 1x1 NCHW conv (ResNet-50's downsampling shortcut) whose output
// pixels fill whole vectors is computed per image where the threads divide
// the batch: each image's every second row and column are copied into
// [C][OH][OW] (the pixels the conv reads, 1/4 of the input), then the GEMM
// runs on the layouts as they are. Through NHWC it would transpose those
// pixels and the output twice. At batch 1 on two threads, which would
// split the GEMM's filters after a copy made by one thread, it stays
// through NHWC (docs/TileConfig.md, "Strided 1x1 NCHW convs per image").
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=znver4 caches=48K,1M threads=1" | FileCheck %s --check-prefixes=CHECK,ONE
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=znver4 caches=48K,1M threads=2" | FileCheck %s --check-prefixes=CHECK,TWO
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=haswell caches=48K,1M threads=1" | FileCheck %s --check-prefixes=CHECK,ONE

// CHECK-LABEL: func.func @down_b8
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK-SAME: compute = im2col_dpmm, order
// CHECK-NOT: layout = nhwc
// CHECK: return
func.func @down_b8(%x: tensor<8x256x56x56xf32>, %w: tensor<512x256x1x1xf32>,
                   %o: tensor<8x512x28x28xf32>) -> tensor<8x512x28x28xf32> {
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<8x256x56x56xf32>, tensor<512x256x1x1xf32>)
    outs(%o : tensor<8x512x28x28xf32>) -> tensor<8x512x28x28xf32>
  return %r : tensor<8x512x28x28xf32>
}

// CHECK-LABEL: func.func @down_b1
// CHECK: linalg.conv_2d_nchw_fchw
// ONE-SAME: compute = im2col_dpmm, order
// TWO-SAME: compute = im2col_dpmm, layout = nhwc, order
// ONE-NOT: layout = nhwc
// CHECK: return
func.func @down_b1(%x: tensor<1x256x56x56xf32>, %w: tensor<512x256x1x1xf32>,
                   %o: tensor<1x512x28x28xf32>) -> tensor<1x512x28x28xf32> {
  %r = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>}
    ins(%x, %w : tensor<1x256x56x56xf32>, tensor<512x256x1x1xf32>)
    outs(%o : tensor<1x512x28x28xf32>) -> tensor<1x512x28x28xf32>
  return %r : tensor<1x512x28x28xf32>
}
