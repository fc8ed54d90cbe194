// A 197^3 matmul: on AVX2 its rows are padded for 6-row register tiles, to
// a size that depends on the threads that split them (thread-shares.test).
func.func @mm197(%a: tensor<197x197xf32>, %b: tensor<197x197xf32>,
                 %c: tensor<197x197xf32>) -> tensor<197x197xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<197x197xf32>, tensor<197x197xf32>)
                     outs(%c : tensor<197x197xf32>) -> tensor<197x197xf32>
  return %r : tensor<197x197xf32>
}
