// tiletune-interchange-reductions: an untiled reduction on buffers whose
// output's innermost dim is walked by a parallel loop with a reduction
// loop inside it, and along which every operand is contiguous (or
// broadcast), becomes a linalg.generic with that loop innermost.
// RUN: tiletune-opt %s --split-input-file --tiletune-interchange-reductions | FileCheck %s

// A max pool: loops (n, oh, ow, c, kh, kw) -> (n, oh, ow, kh, kw, c); the
// window operand does not depend on c.
// CHECK-DAG: #[[IN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4, d5)>
// CHECK-DAG: #[[WIN:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4)>
// CHECK-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d5)>
// CHECK-LABEL: func.func @max_pool
//   CHECK-NOT: linalg.pooling_nhwc_max
//       CHECK: linalg.generic {indexing_maps = [#[[IN]], #[[WIN]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "parallel"]}
//       CHECK:   arith.maximumf
func.func @max_pool(%in: memref<2x9x9x16xf32>, %window: memref<3x3xf32>, %out: memref<2x4x4x16xf32>) {
  linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%in, %window : memref<2x9x9x16xf32>, memref<3x3xf32>) outs(%out : memref<2x4x4x16xf32>)
  return
}

// -----

// An untiled matmul: (m, n, k) -> (m, k, n), A broadcast along n.
// CHECK-LABEL: func.func @matmul
//       CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction", "parallel"]
func.func @matmul(%a: memref<5x7xf32>, %b: memref<7x9xf32>, %c: memref<5x9xf32>) {
  linalg.matmul ins(%a, %b : memref<5x7xf32>, memref<7x9xf32>) outs(%c : memref<5x9xf32>)
  return
}

// -----

// Left alone: a row sum (the input is read along the reduction), an NCHW
// pool (its input is strided along ow), an elementwise op (no reduction)
// and ops on tensors.
// CHECK-LABEL: func.func @untouched
//       CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]
//       CHECK: linalg.pooling_nchw_max
//       CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]
//       CHECK: linalg.pooling_nhwc_sum {{.*}} -> tensor<1x2x2x8xf32>
func.func @untouched(%x: memref<4x8xf32>, %s: memref<4xf32>, %in: memref<1x8x9x9xf32>, %window: memref<3x3xf32>, %out: memref<1x8x4x4xf32>, %y: memref<4x8xf32>, %t: tensor<1x4x4x8xf32>, %w: tensor<3x3xf32>, %o: tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32> {
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : memref<4x8xf32>) outs(%s : memref<4xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  }
  linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%in, %window : memref<1x8x9x9xf32>, memref<3x3xf32>) outs(%out : memref<1x8x4x4xf32>)
  linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x : memref<4x8xf32>) outs(%y : memref<4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %r = arith.addf %a, %a : f32
    linalg.yield %r : f32
  }
  %r = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%t, %w : tensor<1x4x4x8xf32>, tensor<3x3xf32>) outs(%o : tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  return %r : tensor<1x2x2x8xf32>
}
