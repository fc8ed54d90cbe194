// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu="emit-remarks" --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @missing
//       CHECK:   linalg.matmul ins
// expected-remark @+1 {{tiletune-tile-cpu: tiled 0 ops of @missing, left 1 matmul/conv op untouched (see the remarks on them)}}
func.func @missing(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-remark @+1 {{left untouched: no tiletune.config}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// CHECK-LABEL: func.func @other_target
//       CHECK:   linalg.matmul {tiletune.config = #tiletune.config<cuda
// expected-remark @+1 {{tiletune-tile-cpu: tiled 0 ops of @other_target, left 1 matmul/conv op untouched}}
func.func @other_target(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-remark @+1 {{left untouched: the config targets 'cuda'}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 32, n = 32}, vthread = {m = 32, n = 32}, thread = {m = 4, n = 4}, shared = {k = 16}, register = {k = 4}>}
    ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
