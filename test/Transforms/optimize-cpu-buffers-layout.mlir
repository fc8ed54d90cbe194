// RUN: tiletune-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tiletune-optimize-cpu-buffers))" | FileCheck %s

// The output of an NCHW conv computed as NHWC (`layout = nhwc`) after
// bufferization: the NCHW output copied into an NHWC buffer
// (tiletune.layout_copy_in), the conv's register tiles read and written there,
// and the buffer copied back (tiletune.layout_copy_out). The pair folds into
// the tiles' transfers: they read and write the NCHW buffer with a permuted
// map (buffer dims n, h, w, c are NCHW dims 0, 2, 3, 1; the tile's vector
// dims are buffer dims 1, 2, 3), and the NHWC buffer and both transposes go.
// CHECK-DAG: #[[$PERM:.*]] = affine_map<(d0, d1, d2, d3) -> (d2, d3, d1)>
// CHECK-LABEL: func.func @folded
//   CHECK-NOT:   memref.alloc
//   CHECK-NOT:   linalg.transpose
//       CHECK:   scf.for %[[H:.*]] =
//       CHECK:     scf.for %[[W:.*]] =
//       CHECK:       %[[ACC:.*]] = vector.transfer_read %[[OUT:.*]][%c0, %c0, %[[H]], %[[W]]], %{{.*}} {in_bounds = [true, true, true], permutation_map = #[[$PERM]]} : memref<1x32x4x16xf32>, vector<1x8x32xf32>
//       CHECK:       %[[SUM:.*]] = arith.addf %[[ACC]]
//       CHECK:       vector.transfer_write %[[SUM]], %[[OUT]][%c0, %c0, %[[H]], %[[W]]] {in_bounds = [true, true, true], permutation_map = #[[$PERM]]} : vector<1x8x32xf32>, memref<1x32x4x16xf32>
//   CHECK-NOT:   linalg.transpose
//       CHECK:   return
func.func @folded(%out: memref<1x32x4x16xf32>, %x: vector<1x8x32xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c8 = arith.constant 8 : index
  %c16 = arith.constant 16 : index
  %cst = arith.constant 0.0 : f32
  %nhwc = memref.alloc() {alignment = 64 : i64} : memref<1x4x16x32xf32>
  linalg.transpose ins(%out : memref<1x32x4x16xf32>) outs(%nhwc : memref<1x4x16x32xf32>) permutation = [0, 2, 3, 1] {tiletune.layout_copy_in}
  scf.for %h = %c0 to %c4 step %c1 {
    %row = memref.subview %nhwc[0, %h, 0, 0] [1, 1, 16, 32] [1, 1, 1, 1] : memref<1x4x16x32xf32> to memref<1x1x16x32xf32, strided<[2048, 512, 32, 1], offset: ?>>
    scf.for %w = %c0 to %c16 step %c8 {
      %acc = vector.transfer_read %row[%c0, %c0, %w, %c0], %cst {in_bounds = [true, true, true]} : memref<1x1x16x32xf32, strided<[2048, 512, 32, 1], offset: ?>>, vector<1x8x32xf32>
      %sum = arith.addf %acc, %x : vector<1x8x32xf32>
      vector.transfer_write %sum, %row[%c0, %c0, %w, %c0] {in_bounds = [true, true, true]} : vector<1x8x32xf32>, memref<1x1x16x32xf32, strided<[2048, 512, 32, 1], offset: ?>>
    }
  }
  linalg.transpose ins(%nhwc : memref<1x4x16x32xf32>) outs(%out : memref<1x32x4x16xf32>) permutation = [0, 3, 1, 2] {tiletune.layout_copy_out}
  return
}

// -----

// Split over two threads (scf.forall around each piece), and the NHWC
// buffer filled instead of copied in: the fill goes to the NCHW buffer, the
// foralls of the pieces go.
// CHECK-LABEL: func.func @threads_and_fill
//       CHECK:   linalg.fill ins(%{{.*}} : f32) outs(%[[OUT:.*]] : memref<1x32x4x16xf32>)
//   CHECK-NOT:   scf.forall
//       CHECK:   vector.transfer_read %[[OUT]]
//       CHECK:   vector.transfer_write %{{.*}}, %[[OUT]]
//   CHECK-NOT:   scf.forall
//   CHECK-NOT:   linalg.transpose
//       CHECK:   return
func.func @threads_and_fill(%out: memref<1x32x4x16xf32>, %x: vector<1x8x32xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %nhwc = memref.alloc() {alignment = 64 : i64} : memref<1x4x16x32xf32>
  linalg.fill ins(%cst : f32) outs(%nhwc : memref<1x4x16x32xf32>)
  %acc = vector.transfer_read %nhwc[%c0, %c0, %c0, %c0], %cst {in_bounds = [true, true, true]} : memref<1x4x16x32xf32>, vector<1x8x32xf32>
  %sum = arith.addf %acc, %x : vector<1x8x32xf32>
  vector.transfer_write %sum, %nhwc[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x8x32xf32>, memref<1x4x16x32xf32>
  scf.forall (%i) = (0) to (32) step (16) {
    %from = memref.subview %nhwc[0, 0, 0, %i] [1, 4, 16, 16] [1, 1, 1, 1] : memref<1x4x16x32xf32> to memref<1x4x16x16xf32, strided<[2048, 512, 32, 1], offset: ?>>
    %to = memref.subview %out[0, %i, 0, 0] [1, 16, 4, 16] [1, 1, 1, 1] : memref<1x32x4x16xf32> to memref<1x16x4x16xf32, strided<[2048, 64, 16, 1], offset: ?>>
    linalg.transpose ins(%from : memref<1x4x16x16xf32, strided<[2048, 512, 32, 1], offset: ?>>) outs(%to : memref<1x16x4x16xf32, strided<[2048, 64, 16, 1], offset: ?>>) permutation = [0, 3, 1, 2] {tiletune.layout_copy_out}
  }
  return
}

// -----

// The NCHW buffer is read between the copy in and the copy back: the pair
// stays (and is moved in vector blocks like any layout transpose).
// CHECK-LABEL: func.func @read_between
//       CHECK:   %[[NHWC:.*]] = memref.alloc() {{.*}} : memref<1x4x16x32xf32>
//       CHECK:   vector.transfer_read %[[NHWC]]
//       CHECK:   memref.load %{{.*}} : memref<1x32x4x16xf32>
//       CHECK:   vector.transfer_write %{{.*}}, %[[NHWC]]
//       CHECK:   vector.transfer_read %{{.*}} : memref<64x32xf32>, vector<16x16xf32>
func.func @read_between(%out: memref<1x32x4x16xf32>, %x: vector<1x8x32xf32>) -> f32 {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %nhwc = memref.alloc() {alignment = 64 : i64} : memref<1x4x16x32xf32>
  linalg.transpose ins(%out : memref<1x32x4x16xf32>) outs(%nhwc : memref<1x4x16x32xf32>) permutation = [0, 2, 3, 1] {tiletune.layout_copy_in}
  %acc = vector.transfer_read %nhwc[%c0, %c0, %c0, %c0], %cst {in_bounds = [true, true, true]} : memref<1x4x16x32xf32>, vector<1x8x32xf32>
  %v = memref.load %out[%c0, %c0, %c0, %c0] : memref<1x32x4x16xf32>
  %sum = arith.addf %acc, %x : vector<1x8x32xf32>
  vector.transfer_write %sum, %nhwc[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x8x32xf32>, memref<1x4x16x32xf32>
  linalg.transpose ins(%nhwc : memref<1x4x16x32xf32>) outs(%out : memref<1x32x4x16xf32>) permutation = [0, 3, 1, 2] {tiletune.layout_copy_out}
  return %v : f32
}

// -----

// The NHWC buffer has a user that is not a vector transfer (a copy): the
// pair stays.
// CHECK-LABEL: func.func @other_user
//       CHECK:   memref.alloc() {{.*}} : memref<1x4x16x32xf32>
//       CHECK:   memref.copy
func.func @other_user(%out: memref<1x32x4x16xf32>, %tile: memref<1x4x16x32xf32>) {
  %nhwc = memref.alloc() {alignment = 64 : i64} : memref<1x4x16x32xf32>
  linalg.transpose ins(%out : memref<1x32x4x16xf32>) outs(%nhwc : memref<1x4x16x32xf32>) permutation = [0, 2, 3, 1] {tiletune.layout_copy_in}
  memref.copy %tile, %nhwc : memref<1x4x16x32xf32> to memref<1x4x16x32xf32>
  linalg.transpose ins(%nhwc : memref<1x4x16x32xf32>) outs(%out : memref<1x32x4x16xf32>) permutation = [0, 3, 1, 2] {tiletune.layout_copy_out}
  return
}

// -----

// The NCHW buffer is written after the conv's last access and before the
// copy back (which overwrites that write): folded, the write would
// survive. The pair stays.
// CHECK-LABEL: func.func @write_before_copy_back
//       CHECK:   %[[NHWC:.*]] = memref.alloc() {{.*}} : memref<1x4x16x32xf32>
//       CHECK:   vector.transfer_write %{{.*}}, %[[NHWC]]
//       CHECK:   memref.store
//       CHECK:   vector.transfer_read %{{.*}} : memref<64x32xf32>, vector<16x16xf32>
func.func @write_before_copy_back(%out: memref<1x32x4x16xf32>, %x: vector<1x8x32xf32>) {
  %c0 = arith.constant 0 : index
  %cst = arith.constant 0.0 : f32
  %nhwc = memref.alloc() {alignment = 64 : i64} : memref<1x4x16x32xf32>
  linalg.transpose ins(%out : memref<1x32x4x16xf32>) outs(%nhwc : memref<1x4x16x32xf32>) permutation = [0, 2, 3, 1] {tiletune.layout_copy_in}
  %acc = vector.transfer_read %nhwc[%c0, %c0, %c0, %c0], %cst {in_bounds = [true, true, true]} : memref<1x4x16x32xf32>, vector<1x8x32xf32>
  %sum = arith.addf %acc, %x : vector<1x8x32xf32>
  vector.transfer_write %sum, %nhwc[%c0, %c0, %c0, %c0] {in_bounds = [true, true, true]} : vector<1x8x32xf32>, memref<1x4x16x32xf32>
  memref.store %cst, %out[%c0, %c0, %c0, %c0] : memref<1x32x4x16xf32>
  linalg.transpose ins(%nhwc : memref<1x4x16x32xf32>) outs(%out : memref<1x32x4x16xf32>) permutation = [0, 3, 1, 2] {tiletune.layout_copy_out}
  return
}
