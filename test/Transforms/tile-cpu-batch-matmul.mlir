// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu | FileCheck %s

// The batch dim is split across the scf.forall (2 threads of 2 problems),
// then walked by 1 per thread; B panels keep the unit batch dim.

// CHECK-LABEL: func.func @bmm
//       CHECK:   scf.forall (%{{.*}}) = (0) to (4) step (2)
//       CHECK:     scf.for %{{.*}} = %c0 to %c2 step %c1
//       CHECK:       tensor.expand_shape %{{.*}} {{\[}}[0], [1], [2, 3]] output_shape [1, 8, 2, 16]
//       CHECK:       tensor.empty() : tensor<1x2x8x16xf32>
//       CHECK:       linalg.transpose {{.*}} permutation = [0, 2, 1, 3]
//       CHECK:       scf.for %{{.*}} = %c0 to %c16 step %c8
//       CHECK:         scf.for %{{.*}} = %c0 to %c8 step %c4
//       CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c16
//       CHECK:             scf.for %{{.*}} = %c0 to %c8 step %c2 iter_args(%{{.*}}) -> (vector<1x4x16xf32>)
//       CHECK:               vector.transfer_read {{.*}} : tensor<4x16x8xf32>, vector<1x4x2xf32>
//       CHECK:               vector.transfer_read {{.*}} : tensor<1x2x8x16xf32>, vector<1x2x16xf32>
//       CHECK:               vector.contract {{.*}} : vector<1x4x2xf32>, vector<1x2x16xf32> into vector<1x4x16xf32>
func.func @bmm(%a: tensor<4x16x8xf32>, %b: tensor<4x8x32xf32>, %c: tensor<4x16x32xf32>) -> tensor<4x16x32xf32> {
  %0 = linalg.batch_matmul {tiletune.config = #tiletune.config<cpu, parallel = {b = 2, m = 16, n = 32}, cache = {m = 8, n = 32, k = 8}, register = {m = 4, n = 16}, order = [n, k, m], pack = b, unroll = 2>}
    ins(%a, %b : tensor<4x16x8xf32>, tensor<4x8x32xf32>) outs(%c : tensor<4x16x32xf32>) -> tensor<4x16x32xf32>
  return %0 : tensor<4x16x32xf32>
}

// -----

// CHECK-LABEL: func.func @bmm_memref
//       CHECK:   scf.forall (%{{.*}}) in (3)
//       CHECK:     %[[ACC:.*]] = vector.transfer_read %{{.*}} : memref<3x4x8xf32>, vector<1x4x8xf32>
//       CHECK:     scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<1x4x8xf32>)
//       CHECK:       vector.contract {{.*}} into vector<1x4x8xf32>
//       CHECK:     vector.transfer_write {{.*}} : vector<1x4x8xf32>, memref<3x4x8xf32>
func.func @bmm_memref(%a: memref<3x4x5xf32>, %b: memref<3x5x8xf32>, %c: memref<3x4x8xf32>) {
  linalg.batch_matmul {tiletune.config = #tiletune.config<cpu, parallel = {b = 1, m = 4, n = 8}, cache = {m = 4, n = 8, k = 5}, register = {m = 4, n = 8}>}
    ins(%a, %b : memref<3x4x5xf32>, memref<3x5x8xf32>) outs(%c : memref<3x4x8xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @bmm_no_config
//  CHECK-NEXT:   linalg.batch_matmul ins
func.func @bmm_no_config(%a: tensor<2x4x4xf32>, %b: tensor<2x4x4xf32>, %c: tensor<2x4x4xf32>) -> tensor<2x4x4xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<2x4x4xf32>, tensor<2x4x4xf32>) outs(%c : tensor<2x4x4xf32>) -> tensor<2x4x4xf32>
  return %0 : tensor<2x4x4xf32>
}
