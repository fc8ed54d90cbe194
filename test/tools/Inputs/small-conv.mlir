// A small NHWC conv for end-to-end tuning tests.
func.func @conv(%in: tensor<1x10x10x8xf32>, %w: tensor<3x3x8x16xf32>,
                %out: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %r = linalg.conv_2d_nhwc_hwcf
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %w : tensor<1x10x10x8xf32>, tensor<3x3x8x16xf32>)
         outs(%out : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %r : tensor<1x8x8x16xf32>
}
