// Small FHWC and NCHW convs of one image on a 7x7 map: on AVX2 (6 register
// rows of two vectors, 49 pixels without a divisor from 4 to 6) their rows
// are padded to 12 for the im2col GEMM's register tiles.
func.func @convs(%x: tensor<1x9x9x16xf32>, %w: tensor<32x3x3x16xf32>,
                 %o: tensor<1x7x7x32xf32>, %y: tensor<1x16x7x7xf32>,
                 %v: tensor<32x16x1x1xf32>, %p: tensor<1x32x7x7xf32>)
    -> (tensor<1x7x7x32xf32>, tensor<1x32x7x7xf32>) {
  %a = linalg.conv_2d_nhwc_fhwc
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>)
         outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %b = linalg.conv_2d_nchw_fchw
         {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%y, %v : tensor<1x16x7x7xf32>, tensor<32x16x1x1xf32>)
         outs(%p : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %a, %b : tensor<1x7x7x32xf32>, tensor<1x32x7x7xf32>
}
