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
// [KH*KW*C][F] B as it is. The epilogue moves into the GEMM's [N*OH*OW][F]
// space (finishNhwcIm2col) and is fused there, here by the register tile
// (the cache tile holds the whole reduction).
// REMARK: tile-cpu-im2col.mlir:[[@LINE+11]]:8: remark: fused 1 elementwise op at 1 loop level, the last by the register tile, vectorized
// CHECK-LABEL: func.func @hwcf_strided
// CHECK: linalg.copy ins(%{{.*}} : tensor<4xf32>) outs(%{{.*}} : tensor<4xf32>)
// CHECK: tensor.collapse_shape %arg1 {{\[\[}}0, 1, 2], [3]] : tensor<3x3x4x8xf32> into tensor<36x8xf32>
// CHECK: vector.contract
// CHECK: arith.maximumf %{{.*}} : vector<4x8xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 4, 4, 8] : tensor<16x8xf32> into tensor<1x4x4x8xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
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

// An unstrided 1x1 NHWC conv reads its input in place as the GEMM's A,
// [N*OH*OW][C] (no window copy). Its bias broadcast (the init) and its
// epilogue, a per-channel scale read with TOSA's constant 0s and a ReLU,
// move into the GEMM's space and are fused into the threads' loops.
// REMARK: tile-cpu-im2col.mlir:[[@LINE+23]]:8: remark: fused 1 elementwise op at 1 loop level, vectorized
// CHECK-LABEL: func.func @fhwc_1x1_in_place
// CHECK-NOT: linalg.copy
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2], [3]] : tensor<1x4x14x32xf32> into tensor<56x32xf32>
// CHECK: tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<16x1x1x32xf32> into tensor<16x32xf32>
// CHECK: tensor.collapse_shape %arg3 {{\[\[}}0, 1, 2, 3]] : tensor<1x1x1x16xf32> into tensor<16xf32>
// CHECK: scf.forall
// CHECK: vector.transfer_read %arg2
// CHECK: vector.contract
// CHECK: arith.mulf
// CHECK: arith.maximumf
// CHECK: scf.forall.in_parallel
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 4, 14, 16] : tensor<56x16xf32> into tensor<1x4x14x16xf32>
// CHECK-NEXT: return
func.func @fhwc_1x1_in_place(%i: tensor<1x4x14x32xf32>, %f: tensor<16x1x1x32xf32>,
                             %bias: tensor<16xf32>, %scale: tensor<1x1x1x16xf32>) -> tensor<1x4x14x16xf32> {
  %e = tensor.empty() : tensor<1x4x14x16xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%bias : tensor<16xf32>) outs(%e : tensor<1x4x14x16xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<1x4x14x16xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 2, ow = 14, f = 16},
         cache = {oh = 2, ow = 14, f = 16, kh = 1, kw = 1, c = 16},
         register = {oh = 2, ow = 2, f = 16}, compute = im2col_rpmmv>}
    ins(%i, %f : tensor<1x4x14x32xf32>, tensor<16x1x1x32xf32>)
    outs(%b : tensor<1x4x14x16xf32>) -> tensor<1x4x14x16xf32>
  %e2 = tensor.empty() : tensor<1x4x14x16xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (0, 0, 0, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%0, %scale : tensor<1x4x14x16xf32>, tensor<1x1x1x16xf32>) outs(%e2 : tensor<1x4x14x16xf32>) {
  ^bb0(%x: f32, %s: f32, %y: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.mulf %x, %s : f32
    %n = arith.maximumf %m, %z : f32
    linalg.yield %n : f32
  } -> tensor<1x4x14x16xf32>
  return %r : tensor<1x4x14x16xf32>
}

// A 1x1 NCHW conv through NHWC (`layout = nhwc`): the input, every second
// row and column of it (stride 2), is copied once into the transposed
// window matrix [C][N*OH*OW] (whole [OH][OW] blocks per channel and image);
// the FCHW filter is read in place as the [F][C] B of a matmul_transpose_ab
// (no filter transpose); a zero-filled output becomes a fill of the
// transposed accumulator (no transpose of the init), and the GEMM's result
// is transposed back into NCHW.
// CHECK-LABEL: func.func @nchw_1x1_nhwc
// CHECK: %[[SUB:.*]] = tensor.extract_slice %arg0[0, 0, 0, 0] [2, 16, 4, 4] [1, 1, 2, 2] : tensor<2x16x8x8xf32> to tensor<2x16x4x4xf32>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<{{.*}}>) outs(%{{.*}} : tensor<16x2x4x4xf32>) permutation = [1, 0, 2, 3]
// CHECK-NOT: permutation = [0, 2, 3, 1]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<16x1x1x2x4x4xf32> into tensor<16x32xf32>
// CHECK: tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<32x16x1x1xf32> into tensor<32x16xf32>
// CHECK-NOT: permutation = [0, 2, 3, 1]
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<32x32xf32>)
// CHECK: vector.contract
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [2, 4, 4, 32] : tensor<32x32xf32> into tensor<2x4x4x32xf32>
// CHECK: permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.conv
func.func @nchw_1x1_nhwc(%i: tensor<2x16x8x8xf32>, %f: tensor<32x16x1x1xf32>)
    -> tensor<2x32x4x4xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x32x4x4xf32>
  %o = linalg.fill ins(%z : f32) outs(%e : tensor<2x32x4x4xf32>) -> tensor<2x32x4x4xf32>
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
         parallel = {n = 2, oh = 4, ow = 4, f = 32},
         cache = {oh = 4, ow = 4, f = 32, kh = 1, kw = 1, c = 16},
         register = {oh = 1, ow = 4, f = 16}, layout = nhwc,
         compute = im2col_rpmmv>}
    ins(%i, %f : tensor<2x16x8x8xf32>, tensor<32x16x1x1xf32>)
    outs(%o : tensor<2x32x4x4xf32>) -> tensor<2x32x4x4xf32>
  return %0 : tensor<2x32x4x4xf32>
}

// At batch 1, an unstrided 1x1 NCHW conv's input [1][C][OH][OW] is the
// transposed window matrix [C][OH*OW] itself: the GEMM reads it in place.
// CHECK-LABEL: func.func @nchw_1x1_in_place
// CHECK-NOT: permutation = [1, 0, 2, 3]
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2, 3]] : tensor<1x16x4x4xf32> into tensor<16x16xf32>
// CHECK: vector.contract
// CHECK: permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.conv
func.func @nchw_1x1_in_place(%i: tensor<1x16x4x4xf32>, %f: tensor<32x16x1x1xf32>,
                             %o: tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 4, f = 32},
         cache = {oh = 4, ow = 4, f = 32, kh = 1, kw = 1, c = 16},
         register = {oh = 1, ow = 4, f = 16}, layout = nhwc,
         compute = im2col_rpmmv>}
    ins(%i, %f : tensor<1x16x4x4xf32>, tensor<32x16x1x1xf32>)
    outs(%o : tensor<1x32x4x4xf32>) -> tensor<1x32x4x4xf32>
  return %0 : tensor<1x32x4x4xf32>
}

// A 3x3 NCHW conv through NHWC: the windows are gathered in the FCHW
// filter's (c, kh, kw) order, one copy of the [N][C][OH][OW] pixels of each
// filter tap (offset (kh, kw), every second row and column) into
// windows[c][kh][kw][n][oh][ow], the transposed window matrix
// [C*KH*KW][N*OH*OW]; the filter is read in place as the [F][C*KH*KW] B of
// a matmul_transpose_ab: no filter transpose.
// CHECK-LABEL: func.func @nchw_3x3_nhwc
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<8x3x3x1x3x3xf32>
// CHECK: tensor.extract_slice %arg0[0, 0, 0, 0] [1, 8, 3, 3] [1, 1, 2, 2]
// CHECK: tensor.extract_slice %[[WIN]][0, 0, 0, 0, 0, 0] [8, 1, 1, 1, 3, 3] [1, 1, 1, 1, 1, 1] : tensor<8x3x3x1x3x3xf32> to tensor<8x1x3x3xf32>
// CHECK: permutation = [1, 0, 2, 3]
// CHECK-COUNT-7: permutation = [1, 0, 2, 3]
// CHECK: tensor.extract_slice %arg0[0, 0, 2, 2] [1, 8, 3, 3] [1, 1, 2, 2]
// CHECK: permutation = [1, 0, 2, 3]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<8x3x3x1x3x3xf32> into tensor<72x9xf32>
// CHECK: tensor.collapse_shape %arg1 {{\[\[}}0], [1, 2, 3]] : tensor<16x8x3x3xf32> into tensor<16x72xf32>
// CHECK-NOT: permutation = [2, 3, 1, 0]
// CHECK: vector.contract
// CHECK: permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.conv
func.func @nchw_3x3_nhwc(%i: tensor<1x8x7x7xf32>, %f: tensor<16x8x3x3xf32>,
                         %o: tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32> {
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 3, ow = 3, f = 16},
         cache = {oh = 3, ow = 3, f = 16, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 3, f = 16}, layout = nhwc,
         compute = im2col_rpmmv>}
    ins(%i, %f : tensor<1x8x7x7xf32>, tensor<16x8x3x3xf32>)
    outs(%o : tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}

// On two threads (parallel f = 8 of 16) each tap's copy is split over the
// same two threads along C (an scf.forall writing channels 0-3 and 4-7 of
// the window matrix), like the GEMM after it.
// CHECK-LABEL: func.func @nchw_3x3_threads
// CHECK-COUNT-9: scf.forall (%{{.*}}) = (0) to (8) step (4)
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x4x4x4xf32>) outs(%{{.*}} : tensor<4x1x4x4xf32>) permutation = [1, 0, 2, 3]
// CHECK: scf.forall (%{{.*}}) = (0) to (16) step (8)
// CHECK: vector.contract
func.func @nchw_3x3_threads(%i: tensor<1x8x6x6xf32>, %f: tensor<16x8x3x3xf32>,
                            %o: tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 4, f = 8},
         cache = {oh = 4, ow = 4, f = 8, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 4, f = 8}, layout = nhwc,
         compute = im2col_rpmmv>}
    ins(%i, %f : tensor<1x8x6x6xf32>, tensor<16x8x3x3xf32>)
    outs(%o : tensor<1x16x4x4xf32>) -> tensor<1x16x4x4xf32>
  return %0 : tensor<1x16x4x4xf32>
}

// Where the GEMM's cache tile holds part of an image's pixels (cache oh =
// 1 of 3), the windows are gathered untransposed as well: the A tile of a
// transposed window matrix would be short pieces of its rows.
// CHECK-LABEL: func.func @nchw_3x3_nhwc_rows
// CHECK: tensor.empty() : tensor<1x3x3x8x3x3xf32>
// CHECK-COUNT-9: permutation = [0, 2, 3, 1]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<1x3x3x8x3x3xf32> into tensor<9x72xf32>
// CHECK-NOT: permutation = [1, 0, 2, 3]
func.func @nchw_3x3_nhwc_rows(%i: tensor<1x8x7x7xf32>, %f: tensor<16x8x3x3xf32>,
                              %o: tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32> {
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 3, ow = 3, f = 16},
         cache = {oh = 1, ow = 3, f = 16, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 3, f = 16}, layout = nhwc,
         compute = im2col_rpmmv>}
    ins(%i, %f : tensor<1x8x7x7xf32>, tensor<16x8x3x3xf32>)
    outs(%o : tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}

// With dnmm332 (`pack = dn`), which reads both operands along k, the
// windows are gathered untransposed: each tap's pixels are transposed into
// windows[n][oh][ow][c][kh][kw], the [N*OH*OW][C*KH*KW] A of a
// matmul_transpose_b.
// CHECK-LABEL: func.func @nchw_3x3_nhwc_dn
// CHECK: %[[WIN:.*]] = tensor.empty() : tensor<1x3x3x8x3x3xf32>
// CHECK: tensor.extract_slice %[[WIN]][0, 0, 0, 0, 0, 0] [1, 3, 3, 8, 1, 1] [1, 1, 1, 1, 1, 1] : tensor<1x3x3x8x3x3xf32> to tensor<1x3x3x8xf32>
// CHECK-COUNT-9: permutation = [0, 2, 3, 1]
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3, 4, 5]] : tensor<1x3x3x8x3x3xf32> into tensor<9x72xf32>
// CHECK: permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.conv
func.func @nchw_3x3_nhwc_dn(%i: tensor<1x8x7x7xf32>, %f: tensor<16x8x3x3xf32>,
                            %o: tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32> {
  %0 = linalg.conv_2d_nchw_fchw {strides = dense<2> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 3, ow = 3, f = 16},
         cache = {oh = 3, ow = 3, f = 16, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 3, f = 16}, layout = nhwc,
         compute = im2col_dnmm332>}
    ins(%i, %f : tensor<1x8x7x7xf32>, tensor<16x8x3x3xf32>)
    outs(%o : tensor<1x16x3x3xf32>) -> tensor<1x16x3x3xf32>
  return %0 : tensor<1x16x3x3xf32>
}

// A 1x1 NCHW conv per image in its native layout: a loop over the images
// (an scf.forall over 2 threads of 2 images, each image in an scf.for)
// around out[F][OH*OW] += filter[F][C] x input[C][OH*OW], all views of the
// stored tensors: no transpose, no copy; the pixels are on the lanes
// (m = f = 32, n = oh*ow = 16 per register tile).
// CHECK-LABEL: func.func @nchw_1x1_per_image
// CHECK-NOT: linalg.transpose
// CHECK: scf.forall (%{{.*}}) = (0) to (4) step (2)
// CHECK: scf.for %{{.*}} = %{{.*}} to %c2 step %c1
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3]] : tensor<32x16x1x1xf32> into tensor<32x16xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<16x4x4xf32> into tensor<16x16xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2]] : tensor<32x4x4xf32> into tensor<32x16xf32>
// CHECK: vector.contract {{.*}} : vector<8x1xf32>, vector<1x16xf32> into vector<8x16xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2]] output_shape [32, 4, 4] : tensor<32x16xf32> into tensor<32x4x4xf32>
// CHECK-NOT: linalg.transpose
// CHECK-NOT: linalg.conv
func.func @nchw_1x1_per_image(%i: tensor<4x16x4x4xf32>, %f: tensor<32x16x1x1xf32>,
                              %o: tensor<4x32x4x4xf32>) -> tensor<4x32x4x4xf32> {
  %0 = linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 2, oh = 4, ow = 4, f = 32},
         cache = {oh = 4, ow = 4, f = 32, kh = 1, kw = 1, c = 16},
         register = {oh = 4, ow = 4, f = 8}, im2col = true>}
    ins(%i, %f : tensor<4x16x4x4xf32>, tensor<32x16x1x1xf32>)
    outs(%o : tensor<4x32x4x4xf32>) -> tensor<4x32x4x4xf32>
  return %0 : tensor<4x32x4x4xf32>
}
