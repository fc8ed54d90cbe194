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

// -----

// When the loops that read the pack follow it, the next step's rows are
// prefetched there instead, spread over their bodies: the nest i (4), j (3)
// has 12 bodies for the next tile's 16x3x3 = 144 rows of one line, so each
// j body prefetches 12 rows, from row 12 (3 i + j), the last clamped to
// row 143 (delinearized into the 16x3x3 rows). The k loop would run 192
// bodies, more than there are rows: the prefetches stay above it. The
// transposed blocks prefetch nothing.
// CHECK-LABEL: func.func @spread_over_compute
//   CHECK-DAG:   %[[C12:.*]] = arith.constant 12 : index
//   CHECK-DAG:   %[[C143:.*]] = arith.constant 143 : index
//       CHECK:   scf.for %[[C:.*]] = %{{.*}} to %{{.*}} step %[[C16:.*]] {
//       CHECK:     %[[NEXT:.*]] = memref.subview %arg0[0, 0, 0, %{{.*}}] [16, 3, 3, 16]
//   CHECK-NOT:     memref.prefetch
//       CHECK:     vector.transfer_read %arg0
//   CHECK-NOT:     memref.prefetch
//       CHECK:     scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
//       CHECK:       %[[I3:.*]] = arith.muli %[[I]], %{{.*}} : index
//       CHECK:       scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
//       CHECK:         %[[LIN:.*]] = arith.addi %[[I3]], %[[J]] : index
//       CHECK:         %[[FIRST:.*]] = arith.muli %[[LIN]], %[[C12]] : index
//       CHECK:         %[[ROW:.*]] = arith.minui %[[FIRST]], %[[C143]] : index
//       CHECK:         %[[KW:.*]] = arith.remui %[[ROW]], %{{.*}} : index
//       CHECK:         %[[Q:.*]] = arith.divui %[[ROW]], %{{.*}} : index
//       CHECK:         %[[KH:.*]] = arith.remui %[[Q]], %{{.*}} : index
//       CHECK:         %[[F:.*]] = arith.divui %[[Q]], %{{.*}} : index
//       CHECK:         memref.prefetch %[[NEXT]][%[[F]], %[[KH]], %[[KW]], %{{.*}}], read, locality<2>, data
// CHECK-COUNT-11:      memref.prefetch %[[NEXT]]
//   CHECK-NOT:         memref.prefetch
//       CHECK:         scf.for
//   CHECK-NOT:           memref.prefetch
//       CHECK:           memref.load %arg1
func.func @spread_over_compute(%w: memref<16x3x3x64xf32>, %packed: memref<3x3x16x16xf32>, %out: memref<4x3x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c4 = arith.constant 4 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %c = %c0 to %c64 step %c16 {
    %tile = memref.subview %w[0, 0, 0, %c] [16, 3, 3, 16] [1, 1, 1, 1] : memref<16x3x3x64xf32> to memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>
    linalg.transpose ins(%tile : memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>) outs(%packed : memref<3x3x16x16xf32>) permutation = [1, 2, 3, 0] {tiletune.prefetch_next = 64 : i64}
    scf.for %i = %c0 to %c4 step %c1 {
      scf.for %j = %c0 to %c3 step %c1 {
        scf.for %k = %c0 to %c16 step %c1 {
          %v = memref.load %packed[%j, %j, %k, %i] : memref<3x3x16x16xf32>
          memref.store %v, %out[%i, %j, %k] : memref<4x3x16xf32>
        }
      }
    }
  }
  return
}

// -----

// 144 rows over 100 bodies: 2 rows a body, so the last 28 bodies would only
// prefetch the clamped last row again; they skip behind a branch.
// CHECK-LABEL: func.func @surplus_runs_skip
//   CHECK-DAG:   %[[C2:.*]] = arith.constant 2 : index
//   CHECK-DAG:   %[[C144:.*]] = arith.constant 144 : index
//   CHECK-DAG:   %[[C143:.*]] = arith.constant 143 : index
//       CHECK:   scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step
//       CHECK:     scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step
//       CHECK:       %[[FIRST:.*]] = arith.muli %{{.*}}, %[[C2]] : index
//       CHECK:       %[[IN:.*]] = arith.cmpi ult, %[[FIRST]], %[[C144]] : index
//       CHECK:       scf.if %[[IN]] {
//       CHECK:         arith.minui %[[FIRST]], %[[C143]] : index
// CHECK-COUNT-2:       memref.prefetch
//   CHECK-NOT:         memref.prefetch
//       CHECK:       }
//       CHECK:       scf.for
//   CHECK-NOT:         memref.prefetch
//       CHECK:         memref.load %arg1
func.func @surplus_runs_skip(%w: memref<16x3x3x64xf32>, %packed: memref<3x3x16x16xf32>, %out: memref<10x10x16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %c = %c0 to %c64 step %c16 {
    %tile = memref.subview %w[0, 0, 0, %c] [16, 3, 3, 16] [1, 1, 1, 1] : memref<16x3x3x64xf32> to memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>
    linalg.transpose ins(%tile : memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>) outs(%packed : memref<3x3x16x16xf32>) permutation = [1, 2, 3, 0] {tiletune.prefetch_next = 64 : i64}
    scf.for %i = %c0 to %c10 step %c1 {
      scf.for %j = %c0 to %c10 step %c1 {
        scf.for %k = %c0 to %c16 step %c1 {
          %v = memref.load %packed[%k, %k, %k, %i] : memref<3x3x16x16xf32>
          memref.store %v, %out[%i, %j, %k] : memref<10x10x16xf32>
        }
      }
    }
  }
  return
}

// -----

// A copy whose readers run under a loop of dynamic bounds keeps its
// prefetches in its pieces, as do copies whose readers would each need more
// than 32 prefetches (here 64 rows of 8 lines over 2 bodies).
// CHECK-LABEL: func.func @stays_in_pieces
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       memref.prefetch {{.*}}, read, locality<2>, data
//       CHECK:       vector.transfer_read
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %arg4
//   CHECK-NOT:       memref.prefetch
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       memref.prefetch {{.*}}, read, locality<2>, data
//       CHECK:       vector.transfer_read
//       CHECK:     scf.for %{{.*}} = %{{.*}} to %{{.*}} step
//   CHECK-NOT:       memref.prefetch
//       CHECK:   return
func.func @stays_in_pieces(%b: memref<256x32xf32>, %packed: memref<64x32xf32>, %c: memref<256x128xf32>, %cp: memref<64x128xf32>, %n: index, %out: memref<64xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %c64 = arith.constant 64 : index
  %c256 = arith.constant 256 : index
  scf.for %k = %c0 to %c256 step %c64 {
    %tile = memref.subview %b[%k, 0] [64, 32] [1, 1] : memref<256x32xf32> to memref<64x32xf32, strided<[32, 1], offset: ?>>
    linalg.copy {tiletune.prefetch_next = 64 : i64} ins(%tile : memref<64x32xf32, strided<[32, 1], offset: ?>>) outs(%packed : memref<64x32xf32>)
    scf.for %i = %c0 to %n step %c1 {
      %v = memref.load %packed[%i, %i] : memref<64x32xf32>
      memref.store %v, %out[%i] : memref<64xf32>
    }
  }
  scf.for %k = %c0 to %c256 step %c64 {
    %tile = memref.subview %c[%k, 0] [64, 128] [1, 1] : memref<256x128xf32> to memref<64x128xf32, strided<[128, 1], offset: ?>>
    linalg.copy {tiletune.prefetch_next = 64 : i64} ins(%tile : memref<64x128xf32, strided<[128, 1], offset: ?>>) outs(%cp : memref<64x128xf32>)
    scf.for %i = %c0 to %c2 step %c1 {
      %v = memref.load %cp[%i, %i] : memref<64x128xf32>
      memref.store %v, %out[%i] : memref<64xf32>
    }
  }
  return
}

// -----

// On the last c step the next tile is the next f block's first: the f loop
// steps (or, on its own last step, stays) and c starts again at 0.
// CHECK-LABEL: func.func @wrap_to_outer
//       CHECK:   scf.for %[[F:.*]] = %[[C0:.*]] to %[[C64:.*]] step %[[C16:.*]] {
//       CHECK:     %[[FS:.*]] = arith.addi %[[F]], %[[C16]] : index
//       CHECK:     %[[FIN:.*]] = arith.cmpi slt, %[[FS]], %[[C64]] : index
//       CHECK:     %[[FN:.*]] = arith.select %[[FIN]], %[[FS]], %[[F]] : index
//       CHECK:     scf.for %[[C:.*]] = %[[C0]] to %[[C64]] step %[[C16]] {
//       CHECK:       %[[CS:.*]] = arith.addi %[[C]], %[[C16]] : index
//       CHECK:       %[[CIN:.*]] = arith.cmpi slt, %[[CS]], %[[C64]] : index
//       CHECK:       %[[NF:.*]] = arith.select %[[CIN]], %[[F]], %[[FN]] : index
//       CHECK:       %[[NC:.*]] = arith.select %[[CIN]], %[[CS]], %[[C0]] : index
//       CHECK:       affine.apply #{{.*}}()[%[[NC]], %{{.*}}]
//       CHECK:       affine.apply #{{.*}}()[%[[NF]], %{{.*}}]
//       CHECK:       memref.prefetch
func.func @wrap_to_outer(%w: memref<64x3x3x64xf32>, %packed: memref<3x3x16x16xf32>) {
  %c0 = arith.constant 0 : index
  %c16 = arith.constant 16 : index
  %c64 = arith.constant 64 : index
  scf.for %f = %c0 to %c64 step %c16 {
    scf.for %c = %c0 to %c64 step %c16 {
      %tile = memref.subview %w[%f, 0, 0, %c] [16, 3, 3, 16] [1, 1, 1, 1] : memref<64x3x3x64xf32> to memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>
      linalg.transpose ins(%tile : memref<16x3x3x16xf32, strided<[576, 192, 64, 1], offset: ?>>) outs(%packed : memref<3x3x16x16xf32>) permutation = [1, 2, 3, 0] {tiletune.prefetch_next = 64 : i64}
    }
  }
  return
}
