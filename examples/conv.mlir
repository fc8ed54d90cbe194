// A conv layer (NHWC, 3x3, 32 -> 64 channels on a 1x30x30 padded input,
// i.e. 28x28 outputs) followed by a 1x1 conv (64 -> 32 channels).
// Tune:  tiletune tune examples/conv.mlir -o conv-tuned.mlir --trials 32
func.func @conv(%in: tensor<1x30x30x32xf32>, %f1: tensor<3x3x32x64xf32>,
                %f2: tensor<1x1x64x32xf32>) -> tensor<1x28x28x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<1x28x28x64xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %c1 = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %f1 : tensor<1x30x30x32xf32>, tensor<3x3x32x64xf32>)
      outs(%z1 : tensor<1x28x28x64xf32>) -> tensor<1x28x28x64xf32>
  %e2 = tensor.empty() : tensor<1x28x28x32xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x28x28x32xf32>) -> tensor<1x28x28x32xf32>
  %c2 = linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%c1, %f2 : tensor<1x28x28x64xf32>, tensor<1x1x64x32xf32>)
      outs(%z2 : tensor<1x28x28x32xf32>) -> tensor<1x28x28x32xf32>
  return %c2 : tensor<1x28x28x32xf32>
}
