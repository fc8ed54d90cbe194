// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu | FileCheck %s

// On tensors: no operand is padded whole. The op is tiled at the padded
// sizes; the m loop (127 rows, tiles of 64) is peeled into a full tile and
// the 63-row last tile. A cache tile whose sizes are below the tile's (n and
// k: 127 of 128; m: 63 in the last tile) runs on zero-padded copies of
// static size made by masked 64-element row chunks (B's once, shared by both
// tiles), and the valid part of the result goes back into the output tile
// with masked writes.
// CHECK-LABEL: func.func @tensors
//   CHECK-NOT:  tensor.pad
//       CHECK:  %[[PB:.*]] = scf.for {{.*}} -> (tensor<128x128xf32>)
//       CHECK:    vector.create_mask %{{.*}} : vector<64xi1>
//       CHECK:    vector.transfer_read %arg1{{.*}} {in_bounds = [true]} : tensor<127x127xf32>, vector<64xf32>
// The full 64-row tile.
//       CHECK:  %[[C0:.*]] = tensor.extract_slice %arg2[0, 0] [64, 127] [1, 1]
//       CHECK:  %[[A0:.*]] = tensor.extract_slice %arg0[0, 0] [64, 127] [1, 1]
//       CHECK:  %[[PA0:.*]] = scf.for {{.*}} -> (tensor<64x128xf32>)
//       CHECK:    vector.transfer_read %[[A0]]{{.*}} : tensor<64x127xf32>, vector<64xf32>
//       CHECK:  %[[PC0:.*]] = scf.for {{.*}} -> (tensor<64x128xf32>)
//       CHECK:  %[[R0:.*]] = scf.for {{.*}} step %c8 iter_args(%{{.*}} = %[[PC0]])
//       CHECK:    vector.transfer_read %[[PA0]]{{.*}} : tensor<64x128xf32>, vector<8x4xf32>
//       CHECK:    vector.transfer_read %[[PB]]{{.*}} : tensor<128x128xf32>, vector<4x32xf32>
//       CHECK:  %[[V0:.*]] = scf.for %{{.*}} = %c0 to %c64 step %c1 iter_args(%{{.*}} = %[[C0]])
//       CHECK:    vector.transfer_read %[[R0]]
//       CHECK:    vector.transfer_write {{.*}} : vector<64xf32>, tensor<64x127xf32>
//       CHECK:  %[[OUT:.*]] = tensor.insert_slice %[[V0]] into %arg2[0, 0] [64, 127] [1, 1]
// The last tile, 63 rows: the rows past them are zero (masked off).
//       CHECK:  tensor.extract_slice %arg0[64, 0] [63, 127] [1, 1]
//       CHECK:  arith.cmpi slt, %{{.*}}, %c63
//       CHECK:  tensor.extract_slice %[[OUT]][64, 0] [63, 127] [1, 1]
//       CHECK:  vector.transfer_read %[[PB]]{{.*}} : tensor<128x128xf32>, vector<4x32xf32>
//       CHECK:  scf.for %{{.*}} = %c0 to %c63 step %c1
//       CHECK:  tensor.insert_slice %{{.*}} into %[[OUT]][64, 0] [63, 127] [1, 1]
//   CHECK-NOT:  tensor.extract_slice {{.*}} : tensor<128x128xf32> to tensor<127x127xf32>
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
