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

// The A operand of a register tile unrolled over k (`unroll = 2`): each
// splatted element of a row's short load is loaded alone, so that x86
// splats it from memory instead of permuting it out of the loaded pair.

// CHECK-LABEL: func.func @contract_unrolled_k
//   CHECK-NOT:   vector.load {{.*}} vector<2xf32>
//       CHECK:   memref.load %arg0[%{{.*}}, %arg3] : memref<8x256xf32>
//       CHECK:   vector.broadcast {{.*}} : f32 to vector<32xf32>
//       CHECK:   vector.fma
//       CHECK:   %[[K1:.*]] = affine.apply #{{.*}}(%arg3)
//  CHECK-NEXT:   memref.load %arg0[%{{.*}}, %[[K1]]] : memref<8x256xf32>
//   CHECK-NOT:   vector.load {{.*}} vector<2xf32>
func.func @contract_unrolled_k(%a: memref<8x256xf32>, %b: memref<256x32xf32>, %c: memref<8x32xf32>, %k: index) {
  %c0 = arith.constant 0 : index
  %p = arith.constant 0.0 : f32
  %va = vector.transfer_read %a[%c0, %k], %p {in_bounds = [true, true]} : memref<8x256xf32>, vector<8x2xf32>
  %vb = vector.transfer_read %b[%k, %c0], %p {in_bounds = [true, true]} : memref<256x32xf32>, vector<2x32xf32>
  %vc = vector.transfer_read %c[%c0, %c0], %p {in_bounds = [true, true]} : memref<8x32xf32>, vector<8x32xf32>
  %r = vector.contract {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d2, d1)>, affine_map<(d0, d1, d2) -> (d0, d1)>], iterator_types = ["parallel", "parallel", "reduction"], kind = #vector.kind<add>} %va, %vb, %vc : vector<8x2xf32>, vector<2x32xf32> into vector<8x32xf32>
  vector.transfer_write %r, %c[%c0, %c0] {in_bounds = [true, true]} : vector<8x32xf32>, memref<8x32xf32>
  return
}

// A load with a use other than a splatted element stays a vector load.

// CHECK-LABEL: func.func @load_kept
//       CHECK:   vector.load {{.*}} vector<2xf32>
//   CHECK-NOT:   memref.load
func.func @load_kept(%a: memref<8xf32>) -> (vector<2xf32>, vector<16xf32>) {
  %c0 = arith.constant 0 : index
  %v = vector.load %a[%c0] : memref<8xf32>, vector<2xf32>
  %e = vector.extract %v[1] : f32 from vector<2xf32>
  %s = vector.broadcast %e : f32 to vector<16xf32>
  return %v, %s : vector<2xf32>, vector<16xf32>
}
