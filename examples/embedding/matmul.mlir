// Input of the embedding example: one small f32 matmul on tensors.
func.func @matmul(%a: tensor<32x64xf32>, %b: tensor<64x48xf32>,
                  %c: tensor<32x48xf32>) -> tensor<32x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<32x64xf32>, tensor<64x48xf32>)
                     outs(%c : tensor<32x48xf32>) -> tensor<32x48xf32>
  return %r : tensor<32x48xf32>
}
