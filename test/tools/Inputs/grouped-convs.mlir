// Two small grouped convolutions for end-to-end tuning tests: NHWGC with
// 4 groups of 6 channels and 5 filters, NGCHW with 2 groups on buffers.
func.func @nhwgc(%i: tensor<1x10x10x4x6xf32>, %f: tensor<4x5x3x3x6xf32>,
                 %o: tensor<1x8x8x4x5xf32>) -> tensor<1x8x8x4x5xf32> {
  %r = linalg.conv_2d_nhwgc_gfhwc
    ins(%i, %f : tensor<1x10x10x4x6xf32>, tensor<4x5x3x3x6xf32>)
    outs(%o : tensor<1x8x8x4x5xf32>) -> tensor<1x8x8x4x5xf32>
  return %r : tensor<1x8x8x4x5xf32>
}

func.func @ngchw(%i: memref<1x2x8x9x9xf32>, %f: memref<16x2x8x3x3xf32>,
                 %o: memref<1x2x16x4x4xf32>) {
  linalg.conv_2d_ngchw_fgchw {strides = dense<2> : tensor<2xi64>,
                              dilations = dense<1> : tensor<2xi64>}
    ins(%i, %f : memref<1x2x8x9x9xf32>, memref<16x2x8x3x3xf32>)
    outs(%o : memref<1x2x16x4x4xf32>)
  return
}
