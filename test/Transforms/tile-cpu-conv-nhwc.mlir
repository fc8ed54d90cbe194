// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu | FileCheck %s
// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu="skip-padding-taps=0" | FileCheck %s --check-prefix=ALLTAPS

// A 2x5x16 register tile becomes two 1-D convolution rows, each vectorized
// to 5x16 accumulators carried through the kh, kw, c loops (c steps by
// unroll = 2).

// CHECK-LABEL: func.func @conv_nhwc
//       CHECK:   scf.forall (%{{.*}}) = (0) to (8) step (4)
//       CHECK:     scf.for %{{.*}} = %c0 to %c4 step %c2
//       CHECK:       scf.for %{{.*}} = %c0 to %c10 step %c5
//       CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args(%{{.*}}, %{{.*}}) -> (vector<1x5x16xf32>, vector<1x5x16xf32>)
//       CHECK:           scf.for %{{.*}} = %c0 to %c3 step %c1 iter_args
//       CHECK:             scf.for %{{.*}} = %c0 to %c8 step %c2 iter_args
//       CHECK:               vector.contract {{.*}} : vector<1x5x2xf32>, vector<2x16xf32> into vector<1x5x16xf32>
//       CHECK:               vector.contract {{.*}} : vector<1x5x2xf32>, vector<2x16xf32> into vector<1x5x16xf32>
//   CHECK-NOT:   linalg.conv
func.func @conv_nhwc(%i: tensor<1x10x12x8xf32>, %f: tensor<3x3x8x16xf32>, %o: tensor<1x8x10x16xf32>) -> tensor<1x8x10x16xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 10, f = 16}, cache = {oh = 4, ow = 10, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 2, ow = 5, f = 16}, order = [oh, ow, f, kh, kw, c], unroll = 2>}
    ins(%i, %f : tensor<1x10x12x8xf32>, tensor<3x3x8x16xf32>) outs(%o : tensor<1x8x10x16xf32>) -> tensor<1x8x10x16xf32>
  return %0 : tensor<1x8x10x16xf32>
}

// -----

// Strides and dilations carry over to the 1-D convolution; the batch dim is
// split across the forall; scalar register tiles stay 1-D convs.

// CHECK-LABEL: func.func @conv_nhwc_strided_scalar
//       CHECK:   scf.forall (%{{.*}}) in (2)
//       CHECK:     linalg.conv_1d_nwc_wcf {dilations = dense<2> : tensor<1xi64>, strides = dense<2> : tensor<1xi64>}
//  CHECK-SAME:       ins(%{{.*}}, %{{.*}} : tensor<1x1x1xf32>, tensor<1x1x4xf32>) outs(%{{.*}} : tensor<1x1x4xf32>)
func.func @conv_nhwc_strided_scalar(%i: tensor<2x9x9x2xf32>, %f: tensor<3x3x2x4xf32>, %o: tensor<2x4x3x4xf32>) -> tensor<2x4x3x4xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<[1, 2]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 3, f = 4}, cache = {oh = 2, ow = 3, f = 4, kh = 3, kw = 3, c = 2}, register = {oh = 1, ow = 1, f = 4}, vectorize = false>}
    ins(%i, %f : tensor<2x9x9x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<2x4x3x4xf32>) -> tensor<2x4x3x4xf32>
  return %0 : tensor<2x4x3x4xf32>
}

// -----

// Padding as frontends write it: the tensor.pad producer is left in place
// (bufferization materializes it once) and the conv reading it is tiled.
// With skip-padding-taps (the default), the kh loop of each one-row register tile runs
// over the taps that read inside the 8 unpadded rows: from max(0, 1 - row) to min(3, 9 - row), the
// row being the thread's offset plus the cache loop's (kw has no register
// loop: the tile holds the whole 8-wide row).

//   CHECK-DAG: #[[LB:.+]] = affine_map<()[s0, s1] -> (-s0 - s1 + 1, 0)>
//   CHECK-DAG: #[[UB:.+]] = affine_map<()[s0, s1] -> (-s0 - s1 + 9, 3)>
// CHECK-LABEL: func.func @conv_nhwc_padded
//       CHECK:   tensor.pad
//       CHECK:   scf.forall (%[[T:.+]]) =
//       CHECK:     scf.for %[[R:.+]] = %c0 to %c4 step %c1
//       CHECK:       %[[L:.+]] = affine.max #[[LB]]()[%[[R]], %[[T]]]
//       CHECK:       %[[U:.+]] = affine.min #[[UB]]()[%[[R]], %[[T]]]
//       CHECK:       scf.for %{{.*}} = %[[L]] to %[[U]] step %c1
//       CHECK:         scf.for %{{.*}} = %c0 to %c3 step %c1
//       CHECK:           vector.contract
// With skip-padding-taps=0 every tap is computed.
// ALLTAPS-LABEL: func.func @conv_nhwc_padded
//   ALLTAPS-NOT:   affine.max
//       ALLTAPS:   scf.for %{{.*}} = %c0 to %c3 step %c1
//       ALLTAPS:     scf.for %{{.*}} = %c0 to %c3 step %c1
//       ALLTAPS:   return
func.func @conv_nhwc_padded(%i: tensor<1x8x8x4xf32>, %f: tensor<3x3x4x16xf32>, %o: tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %i low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x4xf32> to tensor<1x10x10x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 8, f = 16}, cache = {oh = 1, ow = 8, f = 16, kh = 3, kw = 3, c = 4}, register = {oh = 1, ow = 8, f = 16}>}
    ins(%p, %f : tensor<1x10x10x4xf32>, tensor<3x3x4x16xf32>) outs(%o : tensor<1x8x8x16xf32>) -> tensor<1x8x8x16xf32>
  return %0 : tensor<1x8x8x16xf32>
}

// -----

// Memrefs: the rows are decomposed with rank-reducing subviews; pack = a
// copies the input tile into a per-thread buffer.

// CHECK-LABEL: func.func @conv_nhwc_memref
//       CHECK:   memref.alloc() {alignment = 64 : i64} : memref<1x6x12x8xf32>
//       CHECK:   scf.for {{.*}} iter_args(%{{.*}}, %{{.*}}) -> (vector<1x5x16xf32>, vector<1x5x16xf32>)
//       CHECK:     vector.contract {{.*}} into vector<1x5x16xf32>
//   CHECK-NOT:   linalg.conv
func.func @conv_nhwc_memref(%i: memref<1x10x12x8xf32>, %f: memref<3x3x8x16xf32>, %o: memref<1x8x10x16xf32>) {
  linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>, tiletune.config = #tiletune.config<cpu, parallel = {n = 1, oh = 4, ow = 10, f = 16}, cache = {oh = 4, ow = 10, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 2, ow = 5, f = 16}, pack = a>}
    ins(%i, %f : memref<1x10x12x8xf32>, memref<3x3x8x16xf32>) outs(%o : memref<1x8x10x16xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @conv_no_config
//  CHECK-NEXT:   linalg.conv_2d_nhwc_hwcf
//  CHECK-NEXT:   return
func.func @conv_no_config(%i: tensor<1x4x4x2xf32>, %f: tensor<3x3x2x4xf32>, %o: tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<1x4x4x2xf32>, tensor<3x3x2x4xf32>) outs(%o : tensor<1x2x2x4xf32>) -> tensor<1x2x2x4xf32>
  return %0 : tensor<1x2x2x4xf32>
}
