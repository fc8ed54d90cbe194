// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu | FileCheck %s

// NCHW rows become linalg.conv_1d_ncw_fcw, vectorized with filters on the
// vector lanes (f = 16) and output columns unrolled (ow = 5, stride 2); the
// (transposed) accumulator is carried through the c, kh, kw loops. pack = b
// copies the filter once per thread (it does not depend on the tiled oh);
// the copy stays whole on tensors, marked to prefetch (it is copied row by
// row after bufferization).

// CHECK-LABEL: func.func @conv_nchw
//       CHECK:   scf.forall (%{{.*}}) = (0) to (4) step (2)
//       CHECK:     tensor.empty() : tensor<16x8x3x3xf32>
//       CHECK:     linalg.copy {tiletune.prefetch_next = {{[1-9][0-9]*}} : i64} ins(%{{.*}} : tensor<16x8x3x3xf32>)
//       CHECK:     scf.for %{{.*}} = %c0 to %c2 step %c1
//       CHECK:       scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}}) -> (vector<1x16x5xf32>)
//       CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1
//       CHECK:           scf.for %{{.*}} = %c0 to %c3 step %c1
//       CHECK:             vector.contract {{.*}} : vector<1x1x1xf32>, vector<1x16xf32> into vector<1x1x16xf32>
//   CHECK-NOT:   linalg.conv_2d
func.func @conv_nchw(%i: tensor<1x8x10x12xf32>, %f: tensor<16x8x3x3xf32>, %o: tensor<1x16x4x5xf32>) -> tensor<1x16x4x5xf32> {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, f = 16, oh = 2, ow = 5}, cache = {f = 16, oh = 2, ow = 5, c = 8, kh = 3, kw = 3}, register = {f = 16, oh = 1, ow = 5}, pack = b>}
    ins(%i, %f : tensor<1x8x10x12xf32>, tensor<16x8x3x3xf32>) outs(%o : tensor<1x16x4x5xf32>) -> tensor<1x16x4x5xf32>
  return %0 : tensor<1x16x4x5xf32>
}

// -----

// CHECK-LABEL: func.func @conv_nchw_memref
//       CHECK:   scf.forall (%{{.*}}) in (2)
//       CHECK:     vector.contract
//       CHECK:     vector.contract
//   CHECK-NOT:   linalg.conv_2d
func.func @conv_nchw_memref(%i: memref<2x4x6x6xf32>, %f: memref<8x4x3x3xf32>, %o: memref<2x8x4x4xf32>) {
  linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, f = 8, oh = 4, ow = 4}, cache = {f = 8, oh = 2, ow = 4, c = 4, kh = 3, kw = 3}, register = {f = 8, oh = 2, ow = 4}, unroll = 2>}
    ins(%i, %f : memref<2x4x6x6xf32>, memref<8x4x3x3xf32>) outs(%o : memref<2x8x4x4xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_nchw_no_config
//  CHECK-NEXT:   linalg.conv_2d_nchw_fchw
func.func @conv_nchw_no_config(%i: tensor<1x2x4x4xf32>, %f: tensor<4x2x3x3xf32>, %o: tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32> {
  %0 = linalg.conv_2d_nchw_fchw ins(%i, %f : tensor<1x2x4x4xf32>, tensor<4x2x3x3xf32>) outs(%o : tensor<1x4x2x2xf32>) -> tensor<1x4x2x2xf32>
  return %0 : tensor<1x4x2x2xf32>
}
