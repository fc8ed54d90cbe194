func.func @dyn(%a: tensor<?x32xf32>, %b: tensor<32x24xf32>,
               %c: tensor<?x24xf32>) -> tensor<?x24xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<?x32xf32>, tensor<32x24xf32>)
                     outs(%c : tensor<?x24xf32>) -> tensor<?x24xf32>
  return %r : tensor<?x24xf32>
}
