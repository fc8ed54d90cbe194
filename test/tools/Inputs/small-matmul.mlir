// A tiny matmul for end-to-end tuning tests.
func.func @small(%a: tensor<16x32xf32>, %b: tensor<32x24xf32>,
                 %c: tensor<16x24xf32>) -> tensor<16x24xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x24xf32>)
                     outs(%c : tensor<16x24xf32>) -> tensor<16x24xf32>
  return %r : tensor<16x24xf32>
}
