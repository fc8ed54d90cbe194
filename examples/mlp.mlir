// A small MLP on tensors: three matmuls of different shapes (batch 64,
// 256 -> 512 -> 256 -> 16 features) with bias-free ReLU layers, plus one
// more layer of the same shape as the second (tuned once: identical
// problems share one tuning run).
// Tune:  tiletune tune examples/mlp.mlir -o mlp-tuned.mlir --trials 32
func.func @mlp(%x: tensor<64x256xf32>, %w1: tensor<256x512xf32>,
               %w2: tensor<512x256xf32>, %w2b: tensor<512x256xf32>,
               %w3: tensor<256x16xf32>) -> tensor<64x16xf32> {
  %zero = arith.constant 0.0 : f32
  %e1 = tensor.empty() : tensor<64x512xf32>
  %z1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %h1 = linalg.matmul ins(%x, %w1 : tensor<64x256xf32>, tensor<256x512xf32>)
                      outs(%z1 : tensor<64x512xf32>) -> tensor<64x512xf32>
  %r1 = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>],
                        iterator_types = ["parallel", "parallel"]}
      outs(%h1 : tensor<64x512xf32>) {
  ^bb0(%v: f32):
    %m = arith.maximumf %v, %zero : f32
    linalg.yield %m : f32
  } -> tensor<64x512xf32>
  %e2 = tensor.empty() : tensor<64x256xf32>
  %z2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %h2 = linalg.matmul ins(%r1, %w2 : tensor<64x512xf32>, tensor<512x256xf32>)
                      outs(%z2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %h2b = linalg.matmul ins(%r1, %w2b : tensor<64x512xf32>, tensor<512x256xf32>)
                       outs(%h2 : tensor<64x256xf32>) -> tensor<64x256xf32>
  %e3 = tensor.empty() : tensor<64x16xf32>
  %z3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<64x16xf32>) -> tensor<64x16xf32>
  %y = linalg.matmul ins(%h2b, %w3 : tensor<64x256xf32>, tensor<256x16xf32>)
                     outs(%z3 : tensor<64x16xf32>) -> tensor<64x16xf32>
  return %y : tensor<64x16xf32>
}
