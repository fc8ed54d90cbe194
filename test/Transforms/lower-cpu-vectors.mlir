// RUN: tiletune-opt %s --tiletune-lower-cpu-vectors | FileCheck %s

// A contraction becomes one broadcast + FMA per accumulator row; the 2-D
// transfers become 1-D loads and stores.

// CHECK-LABEL: func.func @contract
//   CHECK-NOT:   vector.contract
//   CHECK-NOT:   vector.outerproduct
//   CHECK-COUNT-8: vector.fma {{.*}} : vector<32xf32>
//   CHECK-NOT:   vector.from_elements
//       CHECK:   vector.store {{.*}} : memref<8x32xf32>, vector<32xf32>
func.func @contract(%a: memref<8x1xf32>, %b: memref<1x32xf32>, %c: memref<8x32xf32>) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %va = vector.transfer_read %a[%c0, %c0], %p {in_bounds = [true, true]} : memref<8x1xf32>, vector<8x1xf32>
  %vb = vector.transfer_read %b[%c0, %c0], %p {in_bounds = [true, true]} : memref<1x32xf32>, vector<1x32xf32>
  %vc = vector.transfer_read %c[%c0, %c0], %p {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
  %r = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  return
}

// A 16x16 block of a packing or layout transpose becomes the 16x16 shuffle
// network on 16-element rows (64 two-source shuffles), not one shuffle of
// the flattened 256-element vector.

// CHECK-LABEL: func.func @transpose16x16
//   CHECK-NOT:   vector<256xf32>
//   CHECK-COUNT-64: vector.shuffle {{.*}} : vector<16xf32>, vector<16xf32>
//   CHECK-NOT:   vector<256xf32>
//       CHECK:   return
func.func @transpose16x16(%v: vector<16x16xf32>) -> vector<16x16xf32> {
  %t = vector.transpose %v, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
  return %t : vector<16x16xf32>
}

// Other shapes keep the flat shuffle.

// CHECK-LABEL: func.func @transpose8x16
//       CHECK:   vector.shuffle {{.*}} : vector<128xf32>, vector<128xf32>
func.func @transpose8x16(%v: vector<8x16xf32>) -> vector<16x8xf32> {
  %t = vector.transpose %v, [1, 0] : vector<8x16xf32> to vector<16x8xf32>
  return %t : vector<16x8xf32>
}
