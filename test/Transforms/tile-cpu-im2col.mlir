// `compute = im2col_X` computes a conv as the GEMM of its im2col matrix
// (convertConvToIm2col): the windows are copied row by row (kw x c rows at
// unit stride along w, c rows otherwise; split over the GEMM's threads),
// the filter and the output are viewed as matrices, and the matmul is tiled
// by the conv's tiles multiplied per level: here m = n*oh*ow = 1*4*8 = 32
// per thread, 2*8 = 16 per cache tile, k = kh*kw*c = 3*3*8 = 72.
// RUN: tiletune-opt %s --tiletune-tile-cpu 2>&1 | FileCheck %s
// RUN: tiletune-opt %s --tiletune-tile-cpu=emit-remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK

// CHECK-LABEL: func.func @fhwc
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<1x8x8x3x3x16xf32>
// CHECK: scf.forall (%{{.*}}) = (0) to (8) step (4) shared_outs(%{{.*}} = %[[WIN]])
// CHECK: linalg.copy ins(%{{.*}} : tensor<3x16xf32>) outs(%{{.*}} : tensor<3x16xf32>)
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<1x8x8x3x3x16xf32> into tensor<64x144xf32>
// CHECK: tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<32x3x3x16xf32> into tensor<32x144xf32>
// CHECK: tensor.collapse_shape %arg2 {{\[\[}}0, 1, 2], [3]] : tensor<1x8x8x32xf32> into tensor<64x32xf32>
// CHECK: scf.forall (%{{.*}}) = (0) to (64) step (32)
// CHECK: scf.for %{{.*}} = %c0 to %c32 step %c16
// CHECK: scf.for %{{.*}} = %c0 to %c144 step %c72
// CHECK: vector.contract
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 8, 8, 32] : tensor<64x32xf32> into tensor<1x8x8x32xf32>
// CHECK-NOT: linalg.conv
func.func @fhwc(%i: tensor<1x10x10x16xf32>, %f: tensor<32x3x3x16xf32>,
                %o: tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32> {
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 8, f = 32},
         cache = {oh = 2, ow = 8, f = 32, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 4, f = 16}, compute = im2col_rpmmv>}
    ins(%i, %f : tensor<1x10x10x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x8x8x32xf32>) -> tensor<1x8x8x32xf32>
  return %0 : tensor<1x8x8x32xf32>
}

// Stride 2 along w: one row of c per (kh, kw); an HWCF filter is the GEMM's
// [KH*KW*C][F] B as it is. The epilogue stays after the expand_shape.
// REMARK: tile-cpu-im2col.mlir:[[@LINE+8]]:8: remark: epilogue not fused: the config computes the conv as an im2col GEMM ('im2col'): a reshape sits between the GEMM and the epilogue
// CHECK-LABEL: func.func @hwcf_strided
// CHECK: linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: tensor.collapse_shape %arg1 {{\[\[}}0, 1, 2], [3]] : tensor<3x3x4x8xf32> into tensor<36x8xf32>
// CHECK: tensor.expand_shape
// CHECK: linalg.generic
func.func @hwcf_strided(%i: tensor<1x9x9x4xf32>, %f: tensor<3x3x4x8xf32>,
                        %o: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 4, f = 8},
         cache = {oh = 4, ow = 4, f = 8, kh = 3, kw = 3, c = 4},
         register = {oh = 1, ow = 4, f = 8}, im2col = true>}
    ins(%i, %f : tensor<1x9x9x4xf32>, tensor<3x3x4x8xf32>)
    outs(%o : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%0 : tensor<1x4x4x8xf32>) outs(%e : tensor<1x4x4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}
