// tiletune-run --cold-args: the listed arguments (a matmul's B here) are
// evicted from the caches before every timed call, outside the timed
// region; every sample is then one call. A bad index is a clear error
// before anything is timed.
// RUN: tiletune-run %s --pipeline="tiletune-lower-cpu{threads=1}" --repeats=3 --cold-args=1 --verify | FileCheck %s
// RUN: tiletune-run %s --pipeline="tiletune-lower-cpu{threads=1}" --repeats=2 --cold-args=0,1 | FileCheck %s --check-prefix=BOTH
// RUN: not tiletune-run %s --pipeline="tiletune-lower-cpu{threads=1}" --repeats=1 --cold-args=5 2>&1 | FileCheck %s --check-prefix=BAD

// CHECK: verify: PASSED
// CHECK: time: {{.*}}(3 samples x 1 calls)
// CHECK: cold: argument(s) 1 evicted from the caches before every call
// BOTH: time: {{.*}}(2 samples x 1 calls)
// BOTH: cold: argument(s) 0, 1 evicted
// BAD: error: cannot evict argument 5: the kernel has 3 arguments

func.func @mm(%a: tensor<64x96xf32>, %b: tensor<96x80xf32>,
              %c: tensor<64x80xf32>) -> tensor<64x80xf32> {
  %r = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 64, n = 80}, cache = {m = 32, n = 80, k = 96},
         register = {m = 4, n = 16}, order = [n, k, m]>}
    ins(%a, %b : tensor<64x96xf32>, tensor<96x80xf32>)
    outs(%c : tensor<64x80xf32>) -> tensor<64x80xf32>
  return %r : tensor<64x80xf32>
}
