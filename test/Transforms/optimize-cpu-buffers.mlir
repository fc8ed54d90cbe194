// RUN: tiletune-opt %s --split-input-file --tiletune-optimize-cpu-buffers | FileCheck %s

// The output tile's transfers move out of the reduction loop once the
// subviews are folded; the packing buffer moves out of the cache loop; the
// self-copy left by bufferization disappears and the small packing copy is
// vectorized.

// CHECK-LABEL: func.func @hoist
//       CHECK:   %[[BUF:.*]] = memref.alloc() : memref<4x16xf32>
//       CHECK:   scf.for
//       CHECK:     vector.transfer_read {{.*}} vector<4x16xf32>
//       CHECK:     vector.transfer_write {{.*}}, %[[BUF]]
//       CHECK:     %[[ACC:.*]] = vector.transfer_read %{{.*}} : memref<16x16xf32>, vector<4x16xf32>
//       CHECK:     %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<4x16xf32>)
//       CHECK:     vector.transfer_write %[[R]]
//   CHECK-NOT:   memref.copy
func.func @hoist(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %p = arith.constant 0.0 : f32
  scf.for %i = %c0 to %c16 step %c4 {
    %buf = memref.alloc() : memref<4x16xf32>
    %sa = memref.subview %a[%i, 0] [4, 16] [1, 1] : memref<16x16xf32> to memref<4x16xf32, strided<[16, 1], offset: ?>>
    memref.copy %sa, %buf : memref<4x16xf32, strided<[16, 1], offset: ?>> to memref<4x16xf32>
    %sc = memref.subview %c[%i, 0] [4, 16] [1, 1] : memref<16x16xf32> to memref<4x16xf32, strided<[16, 1], offset: ?>>
    scf.for %k = %c0 to %c16 step %c1 {
      %acc = vector.transfer_read %sc[%c0, %c0], %p {in_bounds = [true, true]} : memref<4x16xf32, strided<[16, 1], offset: ?>>, vector<4x16xf32>
      %va = vector.transfer_read %buf[%c0, %k], %p {in_bounds = [true]} : memref<4x16xf32>, vector<4xf32>
      %vb = vector.transfer_read %b[%k, %c0], %p {in_bounds = [true]} : memref<16x16xf32>, vector<16xf32>
      %o = vector.outerproduct %va, %vb, %acc {kind = #vector.kind<add>} : vector<4xf32>, vector<16xf32>
      vector.transfer_write %o, %sc[%c0, %c0] {in_bounds = [true, true]} : vector<4x16xf32>, memref<4x16xf32, strided<[16, 1], offset: ?>>
    }
    memref.copy %sc, %sc : memref<4x16xf32, strided<[16, 1], offset: ?>> to memref<4x16xf32, strided<[16, 1], offset: ?>>
  }
  return
}

// -----

// Copies of more than 16 rows go one row per vector transfer, in loops: one
// vector over the whole copy is unrolled into one transfer per row and
// compiles in quadratic time (issue 16, item 6). A strided memref.copy (into
// a padded buffer) and a linalg.copy of short rows:

// CHECK-LABEL: func.func @many_short_rows
//   CHECK-NOT:   vector<1x64x17x3xf32>
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       vector.transfer_read {{.*}} vector<1x1x1x3xf32>
//       CHECK:       vector.transfer_write {{.*}} vector<1x1x1x3xf32>
//   CHECK-NOT:   memref.copy
//   CHECK-NOT:   vector<8x254x2xf32>
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       vector.transfer_read {{.*}} vector<1x1x2xf32>
//       CHECK:       vector.transfer_write {{.*}} vector<1x1x2xf32>
//   CHECK-NOT:   linalg.copy
func.func @many_short_rows(%src: memref<1x64x17x3xf32>, %dst: memref<1x64x19x5xf32>,
                           %a: memref<8x254x2xf32>, %b: memref<8x256x2xf32>) {
  %view = memref.subview %dst[0, 0, 1, 1] [1, 64, 17, 3] [1, 1, 1, 1] : memref<1x64x19x5xf32> to memref<1x64x17x3xf32, strided<[6080, 95, 5, 1], offset: 6>>
  memref.copy %src, %view : memref<1x64x17x3xf32> to memref<1x64x17x3xf32, strided<[6080, 95, 5, 1], offset: 6>>
  %bview = memref.subview %b[0, 0, 0] [8, 254, 2] [1, 1, 1] : memref<8x256x2xf32> to memref<8x254x2xf32, strided<[512, 2, 1]>>
  linalg.copy ins(%a : memref<8x254x2xf32>) outs(%bview : memref<8x254x2xf32, strided<[512, 2, 1]>>)
  return
}

// -----

// A contiguous copy of many rows stays a memref.copy (a memcpy); up to 16
// rows, a copy is one vector transfer.

// CHECK-LABEL: func.func @contiguous_and_few_rows
//       CHECK:   memref.copy %{{.*}}, %{{.*}} : memref<64x17x3xf32> to memref<64x17x3xf32>
//       CHECK:   vector.transfer_read {{.*}} vector<16x3xf32>
//       CHECK:   vector.transfer_write {{.*}} vector<16x3xf32>
func.func @contiguous_and_few_rows(%a: memref<64x17x3xf32>, %b: memref<64x17x3xf32>,
                                   %c: memref<16x3xf32>, %d: memref<16x5xf32>) {
  memref.copy %a, %b : memref<64x17x3xf32> to memref<64x17x3xf32>
  %view = memref.subview %d[0, 1] [16, 3] [1, 1] : memref<16x5xf32> to memref<16x3xf32, strided<[5, 1], offset: 1>>
  memref.copy %c, %view : memref<16x3xf32> to memref<16x3xf32, strided<[5, 1], offset: 1>>
  return
}

// -----

// A 1x1 conv filter FCHW -> HWCF: its unit dims dropped, a 2-D transpose of
// [F][C] in 16x16 vector blocks.

// CHECK-LABEL: func.func @filter_1x1
//       CHECK:   %[[IN:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : memref<64x32x1x1xf32> into memref<64x32xf32>
//       CHECK:   %[[OUT:.*]] = memref.collapse_shape %{{.*}} {{\[}}[0, 1, 2], [3]] : memref<1x1x32x64xf32> into memref<32x64xf32>
//       CHECK:   vector.transfer_read %[[IN]]{{.*}}permutation_map = {{.*}} : memref<64x32xf32>, vector<16x16xf32>
//       CHECK:   vector.transfer_write %{{.*}}, %[[OUT]]{{.*}} : vector<16x16xf32>, memref<32x64xf32>
func.func @filter_1x1(%f: memref<64x32x1x1xf32>, %o: memref<1x1x32x64xf32>) {
  linalg.transpose ins(%f : memref<64x32x1x1xf32>) outs(%o : memref<1x1x32x64xf32>) permutation = [2, 3, 1, 0]
  return
}

// -----

// A 3x3 one: KH and KW stay adjacent, so runs of 9 elements move ([F][C][9]
// to [9][C][F]) in 9x16 blocks.

// CHECK-LABEL: func.func @filter_3x3
//       CHECK:   memref.collapse_shape %{{.*}} {{\[}}[0], [1], [2, 3]] : memref<32x16x3x3xf32> into memref<32x16x9xf32>
//       CHECK:   memref.collapse_shape %{{.*}} {{\[}}[0, 1], [2], [3]] : memref<3x3x16x32xf32> into memref<9x16x32xf32>
//       CHECK:   vector.transfer_read {{.*}} : memref<32x16x9xf32>, vector<9x1x16xf32>
func.func @filter_3x3(%f: memref<32x16x3x3xf32>, %o: memref<3x3x16x32xf32>) {
  linalg.transpose ins(%f : memref<32x16x3x3xf32>) outs(%o : memref<3x3x16x32xf32>) permutation = [2, 3, 1, 0]
  return
}

// -----

// A view whose KH and KW cannot be merged (every other column) keeps its
// dims.

// CHECK-LABEL: func.func @strided_view
//   CHECK-NOT:   memref.collapse_shape
//       CHECK:   vector.transfer_read {{.*}} vector<1x2x1x16xf32>
func.func @strided_view(%f: memref<64x32x3x3xf32>, %o: memref<3x2x32x64xf32>) {
  %v = memref.subview %f[0, 0, 0, 0] [64, 32, 3, 2] [1, 1, 1, 2] : memref<64x32x3x3xf32> to memref<64x32x3x2xf32, strided<[288, 9, 3, 2]>>
  linalg.transpose ins(%v : memref<64x32x3x2xf32, strided<[288, 9, 3, 2]>>) outs(%o : memref<3x2x32x64xf32>) permutation = [2, 3, 1, 0]
  return
}
