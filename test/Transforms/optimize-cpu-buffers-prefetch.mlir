// RUN: tiletune-opt %s --split-input-file --tiletune-optimize-cpu-buffers | FileCheck %s

// A pack marked by tiletune-tile-cpu (tiletune.prefetch_next = line bytes)
// is copied in pieces, and each piece first prefetches into L2
// (locality<2>) one line per row of the same piece of the next step's
// tile: the c loop's next iteration, or the current one on the last.

// An FHWC filter tile transposed into HWCF, in 16x16 blocks: 16 rows of 16
// floats, one line each.
// CHECK-LABEL: func.func @transpose_pack
//       CHECK:   scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %[[C16:.*]] {
//       CHECK:     %[[STEP:.*]] = arith.addi %[[C]], %[[C16]] : index
//       CHECK:     %[[IN:.*]] = arith.cmpi slt, %[[STEP]], %{{.*}} : index
//       CHECK:     %[[NEXT:.*]] = arith.select %[[IN]], %[[STEP]], %[[C]] : index
//       CHECK:     %[[OFF:.*]] = affine.apply #{{.*}}()[%[[NEXT]], %{{.*}}]
//       CHECK:     %[[BLOCK:.*]] = memref.subview %arg0[%{{.*}}, %{{.*}}, %{{.*}}, %[[OFF]]] [16, 1, 1, 16]
// CHECK-COUNT-16:  memref.prefetch %[[BLOCK]][%{{.*}}], read, locality<2>, data
//   CHECK-NOT:     memref.prefetch
//       CHECK:     vector.transfer_read %arg0
func.func @transpose_pack(%w: memref<16x3x3x64xf32>, %packed: memref<3x3x16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %c = %c0 to %c64 step %c16 {
    %tile = memref.subview %w[0, 0, 0, %c] [16, 3, 3, 16] [1, 1, 1, 1] : memref<16x3x3x64xf32> to memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>
    linalg.transpose ins(%tile : memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>) outs(%packed : memref<3x3x16x16xf32>) permutation = [1, 2, 3, 0] {tiletune.prefetch_next = 64 : i64}
  }
  return
}

// -----

// A plain copy of many rows goes row by row: each row of 32 floats
// prefetches its two lines in the next k tile.
// CHECK-LABEL: func.func @copy_pack
//       CHECK:   scf.for %[[K:.*]] =
//       CHECK:     arith.select
//       CHECK:     scf.for
//       CHECK:       memref.prefetch {{.*}}, read, locality<2>, data
//       CHECK:       memref.prefetch {{.*}}, read, locality<2>, data
//   CHECK-NOT:       memref.prefetch
//       CHECK:       vector.transfer_read
func.func @copy_pack(%b: memref<256x32xf32>, %packed: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.for %k = %c0 to %c256 step %c64 {
    %tile = memref.subview %b[%k, 0] [64, 32] [1, 1] : memref<256x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    linalg.copy {tiletune.prefetch_next = 64 : i64} ins(%tile : memref<64x32xf32, strided<[32, 1], offset: ?>>) outs(%packed : memref<64x32xf32>)
  }
  return
}

// -----

// No prefetch without the mark, nor where no loop moves the source.
// CHECK-LABEL: func.func @no_prefetch
//   CHECK-NOT:   memref.prefetch
//       CHECK:   return
func.func @no_prefetch(%w: memref<16x3x3x64xf32>, %packed: memref<3x3x16x16xf32>, %b: memref<64x32xf32>, %bp: memref<64x32xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %c = %c0 to %c64 step %c16 {
    %tile = memref.subview %w[0, 0, 0, %c] [16, 3, 3, 16] [1, 1, 1, 1] : memref<16x3x3x64xf32> to memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>
    linalg.transpose ins(%tile : memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>) outs(%packed : memref<3x3x16x16xf32>) permutation = [1, 2, 3, 0]
  }
  linalg.copy {tiletune.prefetch_next = 64 : i64} ins(%b : memref<64x32xf32>) outs(%bp : memref<64x32xf32>)
  return
}
