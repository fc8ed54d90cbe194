// Pointwise convs of one image whose pixels AVX2's 6-row register tiles do
// not divide: a 10x10 map (100 pixels, FHWC) and a 9x9 one (81, HWCF).
func.func @fhwc_10x10(%in: tensor<1x10x10x40xf32>, %w: tensor<64x1x1x40xf32>, %out: tensor<1x10x10x64xf32>) -> tensor<1x10x10x64xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x10x10x40xf32>, tensor<64x1x1x40xf32>) outs(%out : tensor<1x10x10x64xf32>) -> tensor<1x10x10x64xf32>
  return %r : tensor<1x10x10x64xf32>
}

func.func @hwcf_9x9(%in: tensor<1x9x9x24xf32>, %w: tensor<1x1x24x32xf32>, %out: tensor<1x9x9x32xf32>) -> tensor<1x9x9x32xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x9x9x24xf32>, tensor<1x1x24x32xf32>) outs(%out : tensor<1x9x9x32xf32>) -> tensor<1x9x9x32xf32>
  return %r : tensor<1x9x9x32xf32>
}
