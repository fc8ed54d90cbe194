// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu | FileCheck %s

// On tensors: no operand is padded or copied. The op is tiled at the padded
// sizes; the m loop (127 rows, tiles of 64) is peeled into a full tile and
// the 63-row last tile, both of static sizes. Their register loops are
// peeled as well: 8x32 tiles, the k remainder (3 of unroll 4), the n
// remainder (31 columns computed as 32 lanes: reads and writes out of
// bounds, i.e. masked) and the 7-row m remainder of the last tile.
// CHECK-LABEL: func.func @tensors
//   CHECK-NOT:  tensor.pad
//   CHECK-NOT:  vector.create_mask
// The full 64-row tile.
//       CHECK:  tensor.extract_slice %arg2[0, 0] [64, 127] [1, 1]
//       CHECK:  scf.for %{{.*}} = %c0 to %c64 step %c8
//       CHECK:    scf.for %{{.*}} = %c0 to %c96 step %c32
//       CHECK:      scf.for %{{.*}} = %c0 to %c124 step %c4 {{.*}} -> (vector<8x32xf32>)
//       CHECK:        vector.contract {{.*}} : vector<8x4xf32>, vector<4x32xf32> into vector<8x32xf32>
//       CHECK:      vector.contract {{.*}} : vector<8x3xf32>, vector<3x32xf32> into vector<8x32xf32>
//       CHECK:    vector.transfer_read {{.*}} {in_bounds = [true, false]} : tensor<8x31xf32>, vector<8x32xf32>
//       CHECK:    scf.for %{{.*}} = %c0 to %c124 step %c4
//       CHECK:      vector.transfer_read {{.*}} {in_bounds = [true, false]} : tensor<4x31xf32>, vector<4x32xf32>
//       CHECK:    vector.transfer_write {{.*}} {in_bounds = [true, false]} : vector<8x32xf32>, tensor<8x31xf32>
//       CHECK:  tensor.insert_slice %{{.*}} into %arg2[0, 0] [64, 127] [1, 1]
// The last tile, 63 rows: 7 register rows of 8, then one of 7.
//       CHECK:  tensor.extract_slice %{{.*}}[64, 0] [63, 127] [1, 1]
//       CHECK:  scf.for %{{.*}} = %c0 to %c56 step %c8
//       CHECK:  vector.contract {{.*}} : vector<7x4xf32>, vector<4x32xf32> into vector<7x32xf32>
//       CHECK:  vector.transfer_read {{.*}} {in_bounds = [true, false]} : tensor<7x31xf32>, vector<7x32xf32>
//       CHECK:  vector.contract {{.*}} : vector<7x3xf32>, vector<3x32xf32> into vector<7x32xf32>
//       CHECK:  tensor.insert_slice %{{.*}}[64, 0] [63, 127] [1, 1]
//   CHECK-NOT:  vector.create_mask
func.func @tensors(%a: tensor<127x127xf32>, %b: tensor<127x127xf32>, %c: tensor<127x127xf32>) -> tensor<127x127xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, pad = {m = 128, n = 128, k = 128}, parallel = {m = 128, n = 128}, cache = {m = 64, n = 128, k = 128}, register = {m = 8, n = 32}, order = [n, k, m], unroll = 4>}
    ins(%a, %b : tensor<127x127xf32>, tensor<127x127xf32>) outs(%c : tensor<127x127xf32>) -> tensor<127x127xf32>
  return %0 : tensor<127x127xf32>
}

// -----

// On buffers: only padded operands get a zero-filled buffer (n and k are
// not padded here, so B is used as it is); the output's valid part is
// copied back row by row with vector transfers.
// CHECK-LABEL: func.func @buffers
// CHECK:      %[[PA:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x7xf32>
// CHECK:      linalg.fill ins(%{{.*}} : f32) outs(%[[PA]] : memref<16x7xf32>)
// CHECK:      %[[PC:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x32xf32>
// CHECK:      linalg.fill ins(%{{.*}} : f32) outs(%[[PC]] : memref<16x32xf32>)
// CHECK-NOT:  memref.alloc() {{.*}} : memref<7x32xf32>
// CHECK:      vector.transfer_read %[[PA]]{{.*}} : memref<16x7xf32>, vector<4x1xf32>
// CHECK:      vector.transfer_read %arg1{{.*}} : memref<7x32xf32>, vector<1x16xf32>
// CHECK:      vector.transfer_write {{.*}}, %[[PC]]
// CHECK:      scf.for %{{.*}} = %c0 to %c13 step %c1
// CHECK-NEXT:   vector.transfer_read %[[PC]]{{.*}} : memref<16x32xf32>, vector<1x32xf32>
// CHECK-NEXT:   vector.transfer_write {{.*}}, %arg2{{.*}} : vector<1x32xf32>, memref<13x32xf32>
func.func @buffers(%a: memref<13x7xf32>, %b: memref<7x32xf32>, %c: memref<13x32xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu, pad = {m = 16}, parallel = {m = 16, n = 32}, cache = {m = 8, n = 32, k = 7}, register = {m = 4, n = 16}>}
    ins(%a, %b : memref<13x7xf32>, memref<7x32xf32>) outs(%c : memref<13x32xf32>)
  return
}

// -----

// Two threads over a padded loop (127 rows, 64 per thread): the last
// thread's tile has 63 rows, so the forall's body holds two versions of the
// op, chosen by the tile's size, each on static tiles (the 63-row one ends
// in a 7-row register tile), nothing copied.
// CHECK-LABEL: func.func @tensors_threads
//       CHECK:  scf.forall (%[[T:.*]]) = (0) to (127) step (64)
//       CHECK:    %[[SIZE:.*]] = affine.min
//       CHECK:    %[[FULL:.*]] = arith.cmpi eq, %[[SIZE]], %c64
//       CHECK:    scf.if %[[FULL]] -> (tensor<?x127xf32>)
//       CHECK:      scf.for %{{.*}} = %c0 to %c64 step %c8
//       CHECK:      tensor.cast %{{.*}} : tensor<64x127xf32> to tensor<?x127xf32>
//       CHECK:    } else {
//       CHECK:      scf.for %{{.*}} = %c0 to %c56 step %c8
//       CHECK:      vector.contract {{.*}} into vector<7x32xf32>
//       CHECK:      tensor.cast %{{.*}} : tensor<63x127xf32> to tensor<?x127xf32>
//   CHECK-NOT:  vector.create_mask
func.func @tensors_threads(%a: tensor<127x127xf32>, %b: tensor<127x127xf32>, %c: tensor<127x127xf32>) -> tensor<127x127xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, pad = {m = 128, n = 128, k = 128}, parallel = {m = 64, n = 128}, cache = {m = 64, n = 128, k = 128}, register = {m = 8, n = 32}, order = [n, k, m], unroll = 4>}
    ins(%a, %b : tensor<127x127xf32>, tensor<127x127xf32>) outs(%c : tensor<127x127xf32>) -> tensor<127x127xf32>
  return %0 : tensor<127x127xf32>
}
