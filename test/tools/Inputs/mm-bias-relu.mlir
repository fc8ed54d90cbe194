// A matmul followed by a bias add and ReLU (one generic) and a scaling
// (linalg.mul by a constant): one epilogue chain of two ops.
func.func @f(%a: tensor<96x128xf32>, %b: tensor<128x80xf32>, %bias: tensor<80xf32>) -> tensor<96x80xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x80xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<96x80xf32>) -> tensor<96x80xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<96x128xf32>, tensor<128x80xf32>) outs(%init : tensor<96x80xf32>) -> tensor<96x80xf32>
  %e2 = tensor.empty() : tensor<96x80xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %bias : tensor<96x80xf32>, tensor<80xf32>) outs(%e2 : tensor<96x80xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<96x80xf32>
  %half = arith.constant dense<0.5> : tensor<96x80xf32>
  %scaled = linalg.mul ins(%biased, %half : tensor<96x80xf32>, tensor<96x80xf32>) outs(%e2 : tensor<96x80xf32>) -> tensor<96x80xf32>
  return %scaled : tensor<96x80xf32>
}
