func.func @bad(%a: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %r = linalg.matmul ins(%a, %a : tensor<4x4xf32>, tensor<4x4xf32>)
  return %r : tensor<4x4xf32>
}
