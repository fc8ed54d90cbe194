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
