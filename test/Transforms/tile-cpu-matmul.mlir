// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu | FileCheck %s

// Parallel level -> scf.forall, cache level -> scf.for in order [n, k, m],
// register level -> 8x32 vector tile whose accumulator is carried by the k
// loop (hoisted transfers).

// CHECK-LABEL: func.func @matmul_basic
//       CHECK:   scf.forall (%{{.*}}) = (0) to (128) step (64)
//       CHECK:     scf.for %{{.*}} = %c0 to %c256 step %c128
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c32
//       CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c32
//       CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c8
//       CHECK:             scf.for %{{.*}} = %c0 to %c128 step %c32
//       CHECK:               %[[ACC:.*]] = vector.transfer_read {{.*}} : tensor<32x128xf32>, vector<8x32xf32>
//       CHECK:               scf.for %{{.*}} = %c0 to %c32 step %c1 iter_args(%[[IT:.*]] = %[[ACC]]) -> (vector<8x32xf32>)
//       CHECK:                 vector.transfer_read {{.*}} vector<8x1xf32>
//       CHECK:                 vector.transfer_read {{.*}} vector<1x32xf32>
//       CHECK:                 vector.contract {{.*}} %[[IT]] : vector<8x1xf32>, vector<1x32xf32> into vector<8x32xf32>
//       CHECK:               vector.transfer_write {{.*}} : vector<8x32xf32>, tensor<32x128xf32>
//       CHECK:     scf.forall.in_parallel
//   CHECK-NOT:   linalg.matmul
//   CHECK-NOT:   tiletune.config
func.func @matmul_basic(%a: tensor<128x64xf32>, %b: tensor<64x256xf32>, %c: tensor<128x256xf32>) -> tensor<128x256xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 64, n = 256}, cache = {m = 32, n = 128, k = 32}, register = {m = 8, n = 32}, order = [n, k, m]>}
    ins(%a, %b : tensor<128x64xf32>, tensor<64x256xf32>) outs(%c : tensor<128x256xf32>) -> tensor<128x256xf32>
  return %0 : tensor<128x256xf32>
}

// -----

// pack = b: the B cache tile (32x64) becomes 4 panels of 32x16 filled by a
// row-wise transpose once per (n, k) tile; unroll = 4 steps k by 4.

// CHECK-LABEL: func.func @matmul_pack_b_unroll
//   CHECK-NOT:   scf.forall
//       CHECK:   scf.for %{{.*}} = %c0 to %c128 step %c64
//       CHECK:     scf.for %[[K:.*]] = %c0 to %c64 step %c32
//       CHECK:       %[[BT:.*]] = tensor.extract_slice %{{.*}}[%[[K]], %{{.*}}] [32, 64] [1, 1] : tensor<64x128xf32> to tensor<32x64xf32>
//       CHECK:       tensor.expand_shape %[[BT]] {{\[}}[0], [1, 2]] output_shape [32, 4, 16]
//       CHECK:       tensor.empty() : tensor<4x32x16xf32>
//       CHECK:       linalg.transpose ins(%{{.*}} : tensor<32x4x16xf32>) outs(%{{.*}} : tensor<4x32x16xf32>) permutation = [1, 0, 2] {tiletune.prefetch_next = {{[1-9][0-9]*}} : i64}
//       CHECK:       scf.for %{{.*}} = %c0 to %c64 step %c4
//       CHECK:         scf.for %{{.*}} = %c0 to %c64 step %c16
//       CHECK:           scf.for %{{.*}} = %c0 to %c32 step %c4 iter_args(%{{.*}}) -> (vector<4x16xf32>)
//       CHECK:             vector.transfer_read {{.*}} : tensor<64x64xf32>, vector<4x4xf32>
//       CHECK:             vector.transfer_read {{.*}} : tensor<4x32x16xf32>, vector<4x16xf32>
//       CHECK:             vector.contract {{.*}} : vector<4x4xf32>, vector<4x16xf32> into vector<4x16xf32>
func.func @matmul_pack_b_unroll(%a: tensor<64x64xf32>, %b: tensor<64x128xf32>, %c: tensor<64x128xf32>) -> tensor<64x128xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 64, n = 128}, cache = {m = 64, n = 64, k = 32}, register = {m = 4, n = 16}, order = [n, k, m], pack = b, unroll = 4>}
    ins(%a, %b : tensor<64x64xf32>, tensor<64x128xf32>) outs(%c : tensor<64x128xf32>) -> tensor<64x128xf32>
  return %0 : tensor<64x128xf32>
}

// -----

// pack = a: a plain contiguous copy of the A cache tile (whole on tensors,
// marked to prefetch; tiletune-optimize-cpu-buffers copies it row by row).

// CHECK-LABEL: func.func @matmul_pack_a
//       CHECK:   tensor.empty() : tensor<8x16xf32>
//       CHECK:   linalg.copy {tiletune.prefetch_next = {{[1-9][0-9]*}} : i64} ins(%{{.*}} : tensor<8x16xf32>) outs(%{{.*}} : tensor<8x16xf32>)
//       CHECK:   vector.contract {{.*}} : vector<2x1xf32>, vector<1x16xf32> into vector<2x16xf32>
func.func @matmul_pack_a(%a: tensor<8x16xf32>, %b: tensor<16x16xf32>, %c: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 16}, cache = {m = 8, n = 16, k = 16}, register = {m = 2, n = 16}, pack = a>}
    ins(%a, %b : tensor<8x16xf32>, tensor<16x16xf32>) outs(%c : tensor<8x16xf32>) -> tensor<8x16xf32>
  return %0 : tensor<8x16xf32>
}

// -----

// vectorize = false keeps the register tile as a linalg.matmul.

// CHECK-LABEL: func.func @matmul_scalar
//       CHECK:   scf.for %{{.*}} = %c0 to %c8 step %c4
//       CHECK:     scf.for %{{.*}} = %c0 to %c16 step %c1
//       CHECK:       linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<4x1xf32>, tensor<1x8xf32>) outs(%{{.*}} : tensor<4x8xf32>)
//   CHECK-NOT:   vector.contract
func.func @matmul_scalar(%a: tensor<8x16xf32>, %b: tensor<16x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 16}, register = {m = 4, n = 8}, unroll = 1, vectorize = false>}
    ins(%a, %b : tensor<8x16xf32>, tensor<16x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// Prime sizes and a size-1 dim: exact factorizations only. The 7 columns
// are computed as 8 lanes (reads and write out of bounds, i.e. masked).

// CHECK-LABEL: func.func @matmul_primes
//       CHECK:   scf.forall (%{{.*}}) in (13)
//       CHECK:     vector.transfer_read {{.*}} {in_bounds = [true, false]} : tensor<1x7xf32>, vector<1x8xf32>
//       CHECK:     vector.contract {{.*}} : vector<1x1xf32>, vector<1x8xf32> into vector<1x8xf32>
//       CHECK:     vector.transfer_write {{.*}} {in_bounds = [true, false]} : vector<1x8xf32>, tensor<1x7xf32>
func.func @matmul_primes(%a: tensor<13x1xf32>, %b: tensor<1x7xf32>, %c: tensor<13x7xf32>) -> tensor<13x7xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 1, n = 7}, cache = {m = 1, n = 7, k = 1}, register = {m = 1, n = 7}>}
    ins(%a, %b : tensor<13x1xf32>, tensor<1x7xf32>) outs(%c : tensor<13x7xf32>) -> tensor<13x7xf32>
  return %0 : tensor<13x7xf32>
}

// -----

// Memrefs: the output tile is hoisted out of the k loop on buffers too, and
// the packing buffer is allocated once per thread, outside the cache loops.

// CHECK-LABEL: func.func @matmul_memref
//       CHECK:   scf.forall
//       CHECK:     %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x48x16xf32>
//       CHECK:     scf.for
//       CHECK:       vector.transfer_read {{.*}} vector<1x1x16xf32>
//       CHECK:       vector.transfer_write {{.*}}, %[[BUF]]
//       CHECK:       %[[ACC:.*]] = vector.transfer_read %{{.*}} : memref<64x32xf32>, vector<8x16xf32>
//       CHECK:       scf.for {{.*}} iter_args(%{{.*}} = %[[ACC]]) -> (vector<8x16xf32>)
//       CHECK:         vector.transfer_read %[[BUF]]
//       CHECK:         vector.contract
//       CHECK:       vector.transfer_write {{.*}} : vector<8x16xf32>, memref<64x32xf32>
//   CHECK-NOT:   linalg.matmul
func.func @matmul_memref(%a: memref<64x48xf32>, %b: memref<48x32xf32>, %c: memref<64x32xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 32, n = 32}, cache = {m = 16, n = 32, k = 48}, register = {m = 8, n = 16}, order = [n, k, m], pack = b>}
    ins(%a, %b : memref<64x48xf32>, memref<48x32xf32>) outs(%c : memref<64x32xf32>)
  return
}

// -----

// Memrefs, the whole op one tile (no parallel split, no cache loop): the
// packing buffers are allocated before the op and filled after their
// allocation (the copies used to be placed at the top of the function,
// before the alloc: "operand #1 does not dominate this use").

// CHECK-LABEL: func.func @matmul_memref_one_tile_pack_ab
//   CHECK-NOT:   scf.forall
//   CHECK-NOT:   vector.transfer_write
//       CHECK:   %[[A:.*]] = memref.alloc() {alignment = 64 : i64} : memref<16x16xf32>
//       CHECK:   scf.for
//       CHECK:     vector.transfer_write {{.*}}, %[[A]]
//   CHECK-NOT:   vector.transfer_write
//       CHECK:   %[[B:.*]] = memref.alloc() {alignment = 64 : i64} : memref<2x16x8xf32>
//       CHECK:   memref.expand_shape
//       CHECK:   scf.for
//       CHECK:     scf.for
//       CHECK:       vector.transfer_write {{.*}}, %[[B]]
//       CHECK:   vector.transfer_read %[[A]]
//       CHECK:   vector.transfer_read %[[B]]
//       CHECK:   vector.contract
//   CHECK-NOT:   linalg.matmul
func.func @matmul_memref_one_tile_pack_ab(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 16, n = 16}, cache = {m = 16, n = 16, k = 16}, register = {m = 4, n = 8}, order = [n, k, m], pack = ab>}
    ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%c : memref<16x16xf32>)
  return
}

// -----

// No config: untouched.

// CHECK-LABEL: func.func @no_config
//  CHECK-NEXT:   linalg.matmul ins
//  CHECK-NEXT:   return
func.func @no_config(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

// Dynamic shapes are not tunable: untouched.

// CHECK-LABEL: func.func @dynamic
//  CHECK-NEXT:   linalg.matmul ins
//  CHECK-NEXT:   return
func.func @dynamic(%a: tensor<?x16xf32>, %b: tensor<16x16xf32>, %c: tensor<?x16xf32>) -> tensor<?x16xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<?x16xf32>, tensor<16x16xf32>) outs(%c : tensor<?x16xf32>) -> tensor<?x16xf32>
  return %0 : tensor<?x16xf32>
}

// -----

// A config for another target: untouched (the GPU passes handle it).

// CHECK-LABEL: func.func @cuda_config
//  CHECK-NEXT:   linalg.matmul {tiletune.config = #tiletune.config<cuda
func.func @cuda_config(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cuda, block = {m = 32, n = 32}, vthread = {m = 32, n = 32}, thread = {m = 4, n = 4}, shared = {k = 16}, register = {k = 4}>}
    ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}
