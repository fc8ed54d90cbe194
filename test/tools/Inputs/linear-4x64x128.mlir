// An nn.Linear of 4 rows (B stored N x K) for the compute-model tests.
func.func @linear(%a: tensor<4x128xf32>, %b: tensor<64x128xf32>,
                  %c: tensor<4x64xf32>) -> tensor<4x64xf32> {
  %r = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                      affine_map<(m, n, k) -> (n, k)>,
                                      affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %b : tensor<4x128xf32>, tensor<64x128xf32>)
         outs(%c : tensor<4x64xf32>) -> tensor<4x64xf32>
  return %r : tensor<4x64xf32>
}
