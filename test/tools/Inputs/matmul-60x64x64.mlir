// A 60x64x64 matmul (m=60, n=64, k=64): near 64x64x64 (warm-start-db.test).
func.func @mm60(%a: tensor<60x64xf32>, %b: tensor<64x64xf32>,
                %c: tensor<60x64xf32>) -> tensor<60x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<60x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<60x64xf32>) -> tensor<60x64xf32>
  return %r : tensor<60x64xf32>
}
