// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu | FileCheck %s

// Grouped convolutions: a loop over the groups (an scf.forall over
// g / (g's parallel tile) threads, an scf.for over each thread's groups)
// around the plain conv of one group on rank-reduced slices, tiled by the
// config without g. conv_2d_nhwgc_gfhwc -> conv_2d_nhwc_fhwc (filter slice
// transposed to HWCF); conv_2d_ngchw_fgchw -> conv_2d_nchw_fchw (computed as
// NHWC with layout = nhwc).

// CHECK-LABEL: func.func @nhwgc
//       CHECK:   scf.forall (%[[G:.*]]) = (0) to (4) step (2) shared_outs
//       CHECK:     tensor.extract_slice %arg0[0, 0, 0, %[[G]], 0] [1, 10, 10, 2, 8]
//       CHECK:     scf.for %[[G1:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args
//       CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 16, 3, 3, 8] [1, 1, 1, 1, 1] : tensor<1x16x3x3x8xf32> to tensor<16x3x3x8xf32>
//       CHECK:       tensor.extract_slice %{{.*}}[0, 0, 0, 0, 0] [1, 8, 8, 1, 16] [1, 1, 1, 1, 1] : tensor<1x8x8x1x16xf32> to tensor<1x8x8x16xf32>
//       CHECK:       linalg.transpose ins(%{{.*}} : tensor<16x3x3x8xf32>) outs(%{{.*}} : tensor<3x3x8x16xf32>) permutation = [1, 2, 3, 0]
//       CHECK:       scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}}) -> (tensor<1x8x8x16xf32>)
//       CHECK:         vector.contract {{.*}} : vector<1x4x2xf32>, vector<2x16xf32> into vector<1x4x16xf32>
//       CHECK:       tensor.insert_slice %{{.*}} into %{{.*}}[0, 0, 0, %[[G1]], 0] [1, 8, 8, 1, 16] [1, 1, 1, 1, 1] : tensor<1x8x8x16xf32> into tensor<1x8x8x2x16xf32>
//       CHECK:     tensor.parallel_insert_slice
//   CHECK-NOT:   linalg.conv
//   CHECK-NOT:   tiletune.config
func.func @nhwgc(%i: tensor<1x10x10x4x8xf32>, %f: tensor<4x16x3x3x8xf32>,
                 %o: tensor<1x8x8x4x16xf32>) -> tensor<1x8x8x4x16xf32> {
  %0 = linalg.conv_2d_nhwgc_gfhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, g = 2, oh = 8, ow = 8, f = 16},
         cache = {oh = 2, ow = 8, f = 16, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 4, f = 16}, unroll = 2>}
    ins(%i, %f : tensor<1x10x10x4x8xf32>, tensor<4x16x3x3x8xf32>)
    outs(%o : tensor<1x8x8x4x16xf32>) -> tensor<1x8x8x4x16xf32>
  return %0 : tensor<1x8x8x4x16xf32>
}

// -----

// On buffers, every group in one thread (no forall), the group's output
// rows over two threads; NHWC per group (transposes of the group's slices;
// the input's [C][H*W] to [H*W][C], its H and W merged).
// CHECK-LABEL: func.func @ngchw_buffers
//   CHECK-NOT:   scf.forall
//       CHECK:   scf.for %[[G:.*]] = %{{.*}} to %{{.*}} step
//       CHECK:     memref.subview %arg0[0, %[[G]], 0, 0, 0] [1, 1, 4, 6, 6]
//       CHECK:     memref.alloc() {alignment = 64 : i64} : memref<1x6x6x4xf32>
//       CHECK:     vector.transpose {{.*}} : vector<4x12xf32> to vector<12x4xf32>
//       CHECK:     scf.forall (%{{.*}}) = (0) to (4) step (2)
//       CHECK:       vector.contract {{.*}} : vector<1x2x1xf32>, vector<1x8xf32> into vector<1x2x8xf32>
//   CHECK-NOT:   linalg.conv
func.func @ngchw_buffers(%i: memref<1x2x4x6x6xf32>, %f: memref<8x2x4x3x3xf32>,
                         %o: memref<1x2x8x4x4xf32>) {
  linalg.conv_2d_ngchw_fgchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, g = 2, f = 8, oh = 2, ow = 4},
         cache = {f = 8, oh = 1, ow = 4, c = 4, kh = 3, kw = 3},
         register = {f = 8, oh = 1, ow = 2}, layout = nhwc>}
    ins(%i, %f : memref<1x2x4x6x6xf32>, memref<8x2x4x3x3xf32>)
    outs(%o : memref<1x2x8x4x4xf32>)
  return
}

// -----

// G = 1: no group loop, only the slices.
// CHECK-LABEL: func.func @one_group
//   CHECK-NOT:   scf.forall
//       CHECK:   tensor.extract_slice %arg1[0, 0, 0, 0, 0] [1, 16, 3, 3, 4] [1, 1, 1, 1, 1] : tensor<1x16x3x3x4xf32> to tensor<16x3x3x4xf32>
//       CHECK:   tensor.extract_slice %arg2[0, 0, 0, 0, 0] [1, 4, 4, 1, 16] [1, 1, 1, 1, 1] : tensor<1x4x4x1x16xf32> to tensor<1x4x4x16xf32>
//   CHECK-NOT:   scf.forall
//       CHECK:   vector.contract
func.func @one_group(%i: tensor<1x6x6x1x4xf32>, %f: tensor<1x16x3x3x4xf32>,
                     %o: tensor<1x4x4x1x16xf32>) -> tensor<1x4x4x1x16xf32> {
  %0 = linalg.conv_2d_nhwgc_gfhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, g = 1, oh = 4, ow = 4, f = 16},
         cache = {oh = 1, ow = 4, f = 16, kh = 3, kw = 3, c = 4},
         register = {oh = 1, ow = 4, f = 16}>}
    ins(%i, %f : tensor<1x6x6x1x4xf32>, tensor<1x16x3x3x4xf32>)
    outs(%o : tensor<1x4x4x1x16xf32>) -> tensor<1x4x4x1x16xf32>
  return %0 : tensor<1x4x4x1x16xf32>
}

// -----

// No config: untouched.
// CHECK-LABEL: func.func @no_config
//       CHECK:   linalg.conv_2d_ngchw_fgchw
//   CHECK-NOT:   scf.for
func.func @no_config(%i: tensor<1x2x3x6x6xf32>, %f: tensor<4x2x3x3x3xf32>,
                     %o: tensor<1x2x4x4x4xf32>) -> tensor<1x2x4x4x4xf32> {
  %0 = linalg.conv_2d_ngchw_fgchw
    ins(%i, %f : tensor<1x2x3x6x6xf32>, tensor<4x2x3x3x3xf32>)
    outs(%o : tensor<1x2x4x4x4xf32>) -> tensor<1x2x4x4x4xf32>
  return %0 : tensor<1x2x4x4x4xf32>
}
