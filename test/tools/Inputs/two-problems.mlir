// Three ops, two unique problems (the first two matmuls are identical), one
// of them on memrefs, plus a small conv.
func.func @two(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>,
               %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %s = linalg.matmul ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>)
                     outs(%r : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %s : tensor<8x8xf32>
}
func.func @conv(%i: memref<1x6x6x4xf32>, %f: memref<3x3x4x8xf32>,
                %o: memref<1x4x4x8xf32>) {
  linalg.conv_2d_nhwc_hwcf
      {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%i, %f : memref<1x6x6x4xf32>, memref<3x3x4x8xf32>)
      outs(%o : memref<1x4x4x8xf32>)
  return
}
