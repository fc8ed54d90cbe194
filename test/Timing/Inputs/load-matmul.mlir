// A small matmul for tuning under a background load (confirm-under-load.test).
func.func @small(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
                 %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
