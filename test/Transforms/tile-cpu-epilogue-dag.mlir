// Elementwise DAGs after a tunable op (mergeEpilogueDAGs): where a value of
// the epilogue has several users that are elementwise ops reading it and
// each other's results and ending in one value, tiletune-tile-cpu merges
// them into one op of the chain and fuses it; users that form no such DAG
// (one result returned twice, a reduction) are left as they are.
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config --tiletune-tile-cpu="emit-remarks=1" 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config --tiletune-tile-cpu | FileCheck %s
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config --tiletune-tile-cpu="fuse-epilogues=0" | FileCheck %s --check-prefix=OFF

#id = affine_map<(d0, d1) -> (d0, d1)>
#col = affine_map<(d0, d1) -> (d1)>

// REMARK: remark: fused 2 elementwise ops
// The bias add, then x * sigmoid(x) with x read twice: one loop nest, the
// sigmoid's exp on vectors inside it, no whole-tensor op left.
// CHECK-LABEL: func.func @bias_silu
//       CHECK:   scf.for
//       CHECK:     math.exp {{.*}} : vector<
//   CHECK-NOT:   linalg.generic
//       CHECK:   return
// Without fusion nothing is merged: the two users stay.
// OFF-LABEL: func.func @bias_silu
// OFF-COUNT-3: linalg.generic
func.func @bias_silu(%a: tensor<29x40xf32>, %b: tensor<40x72xf32>, %bias: tensor<72xf32>) -> tensor<29x72xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<29x72xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<29x72xf32>) -> tensor<29x72xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<29x40xf32>, tensor<40x72xf32>) outs(%f : tensor<29x72xf32>) -> tensor<29x72xf32>
  %x = linalg.generic {indexing_maps = [#id, #col, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %bias : tensor<29x72xf32>, tensor<72xf32>) outs(%e : tensor<29x72xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %s = arith.addf %in, %c : f32
    linalg.yield %s : f32
  } -> tensor<29x72xf32>
  %sig = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : tensor<29x72xf32>) outs(%e : tensor<29x72xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<29x72xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sig : tensor<29x72xf32>, tensor<29x72xf32>) outs(%e : tensor<29x72xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.mulf %in, %in2 : f32
    linalg.yield %m : f32
  } -> tensor<29x72xf32>
  return %s : tensor<29x72xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>

// Two users whose results are both returned: no single end, no merge; the
// matmul is tiled alone.
// REMARK: remark: epilogue not fused: its result has several uses
// CHECK-LABEL: func.func @two_results
// CHECK-COUNT-2: linalg.generic
func.func @two_results(%a: tensor<16x32xf32>, %b: tensor<32x48xf32>) -> (tensor<16x48xf32>, tensor<16x48xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x48xf32>) -> tensor<16x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x48xf32>) outs(%f : tensor<16x48xf32>) -> tensor<16x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<16x48xf32>) outs(%e : tensor<16x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x48xf32>
  %q = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<16x48xf32>) outs(%e : tensor<16x48xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.mulf %in, %in : f32
    linalg.yield %m : f32
  } -> tensor<16x48xf32>
  return %r, %q : tensor<16x48xf32>, tensor<16x48xf32>
}

// -----

#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>

// A residual add read by a row reduction (a layer norm's mean) and by the
// subtraction of that mean: the reduction is no elementwise op, so the
// chain ends at the add, which is fused; the rest stays.
// REMARK: remark: fused 1 elementwise op
// CHECK-LABEL: func.func @residual_then_norm
// CHECK-COUNT-2: linalg.generic
func.func @residual_then_norm(%a: tensor<16x32xf32>, %b: tensor<32x48xf32>, %res: tensor<16x48xf32>) -> tensor<16x48xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<16x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<16x48xf32>) -> tensor<16x48xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<16x32xf32>, tensor<32x48xf32>) outs(%f : tensor<16x48xf32>) -> tensor<16x48xf32>
  %x = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %res : tensor<16x48xf32>, tensor<16x48xf32>) outs(%e : tensor<16x48xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %s = arith.addf %in, %r : f32
    linalg.yield %s : f32
  } -> tensor<16x48xf32>
  %er = tensor.empty() : tensor<16xf32>
  %fr = linalg.fill ins(%zero : f32) outs(%er : tensor<16xf32>) -> tensor<16xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]}
      ins(%x : tensor<16x48xf32>) outs(%fr : tensor<16xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %s = arith.addf %in, %acc : f32
    linalg.yield %s : f32
  } -> tensor<16xf32>
  %c = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x, %sum : tensor<16x48xf32>, tensor<16xf32>) outs(%e : tensor<16x48xf32>) {
  ^bb0(%in: f32, %m: f32, %out: f32):
    %s = arith.subf %in, %m : f32
    linalg.yield %s : f32
  } -> tensor<16x48xf32>
  return %c : tensor<16x48xf32>
}
