// The polynomial expansions of tiletune-approximate-math (on by default in
// tiletune-lower-cpu) against libm's functions in the untiled lowering, over
// the ranges models feed them: exp over [-80, 80) (softmax's shifted logits,
// sigmoid; exp overflows above 88.7), tanh over [-8, 8) (GELU saturates
// there), log over (0, 1e4). Scalar loops (elementwise ops that are not
// fused) and vectors (a sigmoid GELU fused into a matmul's tiles), AVX-512
// and AVX2, 1 and 2 threads.
// RUN: tiletune-run %s --entry=functions --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=functions --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_gelu_sigmoid --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_gelu_sigmoid --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// The libm calls are still there when asked for.
// RUN: tiletune-run %s --entry=functions --pipeline="tiletune-lower-cpu{threads=1 approximate-math=0}" --verify-untiled --repeats=1 | FileCheck %s
// CHECK: verify: passed against the untiled lowering


#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

func.func @functions(%x: tensor<37x301xf32>) -> (tensor<37x301xf32>, tensor<37x301xf32>, tensor<37x301xf32>) {
  %e0 = tensor.empty() : tensor<37x301xf32>
  %exp = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<37x301xf32>) outs(%e0 : tensor<37x301xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c80 = arith.constant 80.0 : f32
    %s = arith.mulf %a, %c80 : f32
    %r = math.exp %s : f32
    linalg.yield %r : f32
  } -> tensor<37x301xf32>
  %tanh = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<37x301xf32>) outs(%e0 : tensor<37x301xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c8 = arith.constant 8.0 : f32
    %s = arith.mulf %a, %c8 : f32
    %r = math.tanh %s : f32
    linalg.yield %r : f32
  } -> tensor<37x301xf32>
  %log = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<37x301xf32>) outs(%e0 : tensor<37x301xf32>) {
  ^bb0(%a: f32, %b: f32):
    %c = arith.constant 5000.0 : f32
    %one = arith.constant 1.0 : f32
    %p = arith.addf %a, %one : f32
    %s = arith.mulf %p, %c : f32
    %r = math.log %s : f32
    linalg.yield %r : f32
  } -> tensor<37x301xf32>
  return %exp, %tanh, %log : tensor<37x301xf32>, tensor<37x301xf32>, tensor<37x301xf32>
}

// GELU in its sigmoid form, x * sigmoid(1.702 x) = x / (1 + exp(-1.702 x)),
// after a matmul and its bias: fused into the tiles, so exp runs on vectors.
func.func @mm_gelu_sigmoid(%a: tensor<67x129xf32>, %b: tensor<129x96xf32>, %bias: tensor<96xf32>) -> tensor<67x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<67x96xf32>
  %acc = linalg.fill ins(%zero : f32) outs(%e : tensor<67x96xf32>) -> tensor<67x96xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<67x129xf32>, tensor<129x96xf32>) outs(%acc : tensor<67x96xf32>) -> tensor<67x96xf32>
  %g = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<67x96xf32>, tensor<96xf32>) outs(%e : tensor<67x96xf32>) {
  ^bb0(%v: f32, %c: f32, %o: f32):
    %one = arith.constant 1.0 : f32
    %k = arith.constant -1.702 : f32
    %x = arith.addf %v, %c : f32
    %s = arith.mulf %x, %k : f32
    %ex = math.exp %s : f32
    %d = arith.addf %ex, %one : f32
    %r = arith.divf %x, %d : f32
    linalg.yield %r : f32
  } -> tensor<67x96xf32>
  return %g : tensor<67x96xf32>
}
