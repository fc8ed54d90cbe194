// One 512x512x512 f32 matmul on tensors (the README example).
// Tune:  tiletune tune examples/matmul.mlir -o matmul-tuned.mlir --trials 64
// Then:  tiletune-opt --tiletune-apply-db --tiletune-lower-cpu examples/matmul.mlir
func.func @matmul(%a: tensor<512x512xf32>, %b: tensor<512x512xf32>,
                  %c: tensor<512x512xf32>) -> tensor<512x512xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<512x512xf32>, tensor<512x512xf32>)
                     outs(%c : tensor<512x512xf32>) -> tensor<512x512xf32>
  return %r : tensor<512x512xf32>
}
