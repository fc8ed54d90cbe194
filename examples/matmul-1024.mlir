// A 1024x1024x1024 f32 matmul with the hand-picked config of
// docs/CPUSchedule.md (two row halves run on two threads; 64x512x256 cache
// tiles in n, k, m order; an 8x32 register tile; both operands packed).
// Run:   tiletune-run examples/matmul-1024.mlir --pipeline=tiletune-lower-cpu --verify
// Lower: tiletune-opt examples/matmul-1024.mlir --tiletune-lower-cpu
func.func @matmul(%a: tensor<1024x1024xf32>, %b: tensor<1024x1024xf32>,
                  %c: tensor<1024x1024xf32>) -> tensor<1024x1024xf32> {
  %r = linalg.matmul {tiletune.config = #tiletune.config<cpu,
          parallel = {m = 512, n = 1024}, cache = {m = 64, n = 512, k = 256},
          register = {m = 8, n = 32}, order = [n, k, m], pack = ab, unroll = 4>}
      ins(%a, %b : tensor<1024x1024xf32>, tensor<1024x1024xf32>)
      outs(%c : tensor<1024x1024xf32>) -> tensor<1024x1024xf32>
  return %r : tensor<1024x1024xf32>
}
