// RUN: tiletune-opt %s --split-input-file --tiletune-reassociate-reductions | FileCheck %s

// The sum of a linalg.reduce (softmax's denominator, a layer norm's mean)
// may be reordered; the arithmetic before it keeps its flags.
// CHECK-LABEL: func.func @row_sum
//       CHECK:   linalg.reduce
//       CHECK:     arith.mulf %{{.*}}, %{{.*}} : f32
//       CHECK:     arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
func.func @row_sum(%x: memref<16x128xf32>, %y: memref<16xf32>) {
  linalg.reduce ins(%x : memref<16x128xf32>) outs(%y : memref<16xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %sq = arith.mulf %a, %a : f32
      %s = arith.addf %sq, %b : f32
      linalg.yield %s : f32
    }
  return
}

// -----

// A generic's product over a reduction loop, with flags already set: reassoc
// is added to them.
// CHECK-LABEL: func.func @col_product
//       CHECK:   arith.mulf %{{.*}}, %{{.*}} fastmath<reassoc,nnan> : f32
#in = affine_map<(d0, d1) -> (d1, d0)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @col_product(%x: memref<64x8xf32>, %y: memref<8xf32>) {
  linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]}
      ins(%x : memref<64x8xf32>) outs(%y : memref<8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %p = arith.mulf %b, %a fastmath<nnan> : f32
    linalg.yield %p : f32
  }
  return
}

// -----

// Left alone: a max (LLVM does not vectorize it with reassoc either), an
// elementwise op (no reduction loop), and a sum whose yielded value is not
// the accumulation of the output (here it is scaled after the add).
// CHECK-LABEL: func.func @kept
//   CHECK-NOT:   reassoc
//       CHECK:   return
#id = affine_map<(d0, d1) -> (d0, d1)>
func.func @kept(%x: memref<16x128xf32>, %y: memref<16xf32>, %z: memref<16x128xf32>) {
  linalg.reduce ins(%x : memref<16x128xf32>) outs(%y : memref<16xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }
  linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]}
      ins(%x : memref<16x128xf32>) outs(%z : memref<16x128xf32>) {
  ^bb0(%a: f32, %b: f32):
    %s = arith.addf %a, %b : f32
    linalg.yield %s : f32
  }
  linalg.reduce ins(%x : memref<16x128xf32>) outs(%y : memref<16xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %half = arith.constant 0.5 : f32
      %s = arith.addf %a, %b : f32
      %h = arith.mulf %s, %half : f32
      linalg.yield %h : f32
    }
  return
}
