// A small HWCF conv on a 7x7 map: its odd rows are padded (pad = {oh = 8},
// on AVX2 pad = {oh = 12}).
func.func @conv(%in: tensor<1x9x9x16xf32>, %w: tensor<3x3x16x32xf32>,
                %out: tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32> {
  %r = linalg.conv_2d_nhwc_hwcf
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%in, %w : tensor<1x9x9x16xf32>, tensor<3x3x16x32xf32>)
         outs(%out : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %r : tensor<1x7x7x32xf32>
}
