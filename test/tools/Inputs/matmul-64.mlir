// A 64x64x64 matmul: the problem whose results seed nearby shapes
// (warm-start-db.test).
func.func @mm64(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>,
                %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>)
                     outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
