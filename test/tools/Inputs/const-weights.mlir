// Weights inlined as constants (as frontends that import parameters emit):
// %w (8x2 f32, 64 bytes) and %w3 (2x3, 24 bytes), dense constants, are
// weights of the first and the third matmul; %s, a splat, is not one of the
// second.
func.func @const_weights(%x: tensor<4x8xf32>) -> tensor<4x3xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[1.0, 2.0], [3.0, 4.0], [5.0, 6.0], [7.0, 8.0],
                             [-1.0, -2.0], [-3.0, -4.0], [-5.0, -6.0], [-7.0, -8.0]]> : tensor<8x2xf32>
  %s = arith.constant dense<0.5> : tensor<2x2xf32>
  %w3 = arith.constant dense<[[1.0, 0.5, -1.0], [2.0, -0.5, 1.0]]> : tensor<2x3xf32>
  %e = tensor.empty() : tensor<4x2xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %h = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x2xf32>)
                     outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  %y = linalg.matmul ins(%h, %s : tensor<4x2xf32>, tensor<2x2xf32>)
                     outs(%z : tensor<4x2xf32>) -> tensor<4x2xf32>
  %e3 = tensor.empty() : tensor<4x3xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = linalg.matmul ins(%y, %w3 : tensor<4x2xf32>, tensor<2x3xf32>)
                     outs(%z3 : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
