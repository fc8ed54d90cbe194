// One BERT-base encoder layer's matrix work as linalg (sequence 128, hidden
// 768, 12 heads of 64, feed-forward 3072), batch 1, f32: the Q, K, V and
// output projections (four identical 128x768x768 matmuls, tuned once), the
// attention's two batched matmuls per head, the feed-forward's two matmuls,
// and a GELU-like elementwise op and the residual adds (not tuned). The
// reshapes between the projections and the heads are left out: the per-head
// operands come in as arguments (%qh, %kt, %vh), so every op's shape and
// FLOPs are those of the real layer.
// Tune:  tiletune tune examples/bert-layer.mlir --time-budget=10m -o bert-tuned.mlir
#id = affine_map<(i, j) -> (i, j)>
func.func @bert_layer(%x: tensor<128x768xf32>,
                      %wq: tensor<768x768xf32>, %wk: tensor<768x768xf32>,
                      %wv: tensor<768x768xf32>, %wo: tensor<768x768xf32>,
                      %qh: tensor<12x128x64xf32>, %kt: tensor<12x64x128xf32>,
                      %vh: tensor<12x128x64xf32>,
                      %w1: tensor<768x3072xf32>, %w2: tensor<3072x768xf32>)
    -> (tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>,
        tensor<12x128x64xf32>, tensor<128x768xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<128x768xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<128x768xf32>) -> tensor<128x768xf32>
  %q = linalg.matmul ins(%x, %wq : tensor<128x768xf32>, tensor<768x768xf32>)
                     outs(%z : tensor<128x768xf32>) -> tensor<128x768xf32>
  %k = linalg.matmul ins(%x, %wk : tensor<128x768xf32>, tensor<768x768xf32>)
                     outs(%z : tensor<128x768xf32>) -> tensor<128x768xf32>
  %v = linalg.matmul ins(%x, %wv : tensor<128x768xf32>, tensor<768x768xf32>)
                     outs(%z : tensor<128x768xf32>) -> tensor<128x768xf32>
  // Attention per head: scores = Q K^T, context = scores V.
  %es = tensor.empty() : tensor<12x128x128xf32>
  %zs = linalg.fill ins(%zero : f32) outs(%es : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %s = linalg.batch_matmul ins(%qh, %kt : tensor<12x128x64xf32>, tensor<12x64x128xf32>)
                           outs(%zs : tensor<12x128x128xf32>) -> tensor<12x128x128xf32>
  %ec = tensor.empty() : tensor<12x128x64xf32>
  %zc = linalg.fill ins(%zero : f32) outs(%ec : tensor<12x128x64xf32>) -> tensor<12x128x64xf32>
  %c = linalg.batch_matmul ins(%s, %vh : tensor<12x128x128xf32>, tensor<12x128x64xf32>)
                           outs(%zc : tensor<12x128x64xf32>) -> tensor<12x128x64xf32>
  // Output projection and residual.
  %o = linalg.matmul ins(%x, %wo : tensor<128x768xf32>, tensor<768x768xf32>)
                     outs(%z : tensor<128x768xf32>) -> tensor<128x768xf32>
  %r = linalg.generic {indexing_maps = [#id, #id, #id],
                       iterator_types = ["parallel", "parallel"]}
      ins(%o, %x : tensor<128x768xf32>, tensor<128x768xf32>) outs(%e : tensor<128x768xf32>) {
  ^bb0(%a: f32, %b: f32, %out: f32):
    %sum = arith.addf %a, %b : f32
    linalg.yield %sum : f32
  } -> tensor<128x768xf32>
  // Feed-forward: 768 -> 3072 (GELU approximated by x * sigmoid(1.702 x)) -> 768.
  %ef = tensor.empty() : tensor<128x3072xf32>
  %zf = linalg.fill ins(%zero : f32) outs(%ef : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %h = linalg.matmul ins(%r, %w1 : tensor<128x768xf32>, tensor<768x3072xf32>)
                     outs(%zf : tensor<128x3072xf32>) -> tensor<128x3072xf32>
  %g = linalg.generic {indexing_maps = [#id], iterator_types = ["parallel", "parallel"]}
      outs(%h : tensor<128x3072xf32>) {
  ^bb0(%a: f32):
    %one = arith.constant 1.0 : f32
    %k1 = arith.constant -1.702 : f32
    %t = arith.mulf %a, %k1 : f32
    %ex = math.exp %t : f32
    %den = arith.addf %ex, %one : f32
    %y = arith.divf %a, %den : f32
    linalg.yield %y : f32
  } -> tensor<128x3072xf32>
  %f = linalg.matmul ins(%g, %w2 : tensor<128x3072xf32>, tensor<3072x768xf32>)
                     outs(%z : tensor<128x768xf32>) -> tensor<128x768xf32>
  return %q, %k, %v, %c, %f : tensor<128x768xf32>, tensor<128x768xf32>, tensor<128x768xf32>, tensor<12x128x64xf32>, tensor<128x768xf32>
}
