// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu | FileCheck %s

// On tensors: the operands are padded with zeros (tensor.pad), the op is
// tiled at the padded sizes (register tile 8x32 of the 128x128 result) and
// the 127x127 result is the valid slice of the padded one.
// CHECK-LABEL: func.func @tensors
// CHECK-DAG:  %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK:      tensor.pad %{{.*}} low[0, 0] high[1, 1]
// CHECK:        tensor.yield %[[ZERO]]
// CHECK:      } : tensor<127x127xf32> to tensor<128x128xf32>
// CHECK:      tensor.pad %{{.*}} low[0, 0] high[1, 1]
// CHECK:      tensor.pad %{{.*}} low[0, 0] high[1, 1]
// CHECK:      scf.for {{.*}} -> (tensor<128x128xf32>)
// CHECK:        vector.transfer_read {{.*}} : tensor<64x128xf32>, vector<8x32xf32>
// CHECK:      %[[VALID:.*]] = tensor.extract_slice %{{.*}}[0, 0] [127, 127] [1, 1] : tensor<128x128xf32> to tensor<127x127xf32>
// CHECK:      return %[[VALID]]
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
