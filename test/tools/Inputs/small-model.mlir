// A small model for the whole-model tests: two distinct matmuls and a
// matvec, which TileTune does not tune (its share of the model's FLOPs is
// 2*24*8 / (2*16*32*24 + 2*16*24*8 + 2*24*8) = 384 / 31104 = 1.23%).
func.func @small(%x: tensor<16x32xf32>, %w1: tensor<32x24xf32>,
                 %w2: tensor<24x8xf32>, %v: tensor<8xf32>) -> tensor<24xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<16x24xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<16x32xf32>, tensor<32x24xf32>)
                      outs(%z1 : tensor<16x24xf32>) -> tensor<16x24xf32>
  %e2 = tensor.empty() : tensor<16x8xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %h2 = linalg.matmul ins(%h1, %w2 : tensor<16x24xf32>, tensor<24x8xf32>)
                      outs(%z2 : tensor<16x8xf32>) -> tensor<16x8xf32>
  %e3 = tensor.empty() : tensor<24xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<24xf32>) -> tensor<24xf32>
  %y = linalg.matvec ins(%w2, %v : tensor<24x8xf32>, tensor<8xf32>)
                     outs(%z3 : tensor<24xf32>) -> tensor<24xf32>
  return %y : tensor<24xf32>
}
