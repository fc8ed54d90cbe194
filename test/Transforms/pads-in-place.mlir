// tiletune-pads-in-place: the producer of a padded tensor writes into the
// padded buffer. The tensor.empty its loop nest (or linalg op) writes into
// becomes the interior of a new padded tensor whose border alone is filled,
// and the pad becomes an insert_slice into the same place, which
// bufferizes to no copy (the PIPE prefix: after bufferization and
// tiletune-optimize-cpu-buffers, the padded buffer is allocated once, the
// border stored a vector per row, and nothing copied).
// RUN: tiletune-opt %s --split-input-file --tiletune-pads-in-place | FileCheck %s
// RUN: tiletune-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tiletune-pads-in-place),one-shot-bufferize{bufferize-function-boundaries},canonicalize,cse,func.func(tiletune-optimize-cpu-buffers))" | FileCheck %s --check-prefix=PIPE

// A loop nest into an empty (the shape of tiletune-tile-cpu's output),
// padded by one row and column at the end with -inf (a max pool's pad).
// CHECK-LABEL: func.func @loop_nest
//       CHECK: tensor.empty() : tensor<2x16x16x32xf32>
//       CHECK: %[[NINF:.*]] = arith.constant -3.40282347E+38 : f32
//  CHECK-NEXT: %[[BIG:.*]] = tensor.empty() : tensor<2x17x17x32xf32>
//       CHECK: %[[ROW:.*]] = tensor.extract_slice %[[BIG]][0, 16, 0, 0] [2, 1, 17, 32] [1, 1, 1, 1]
//       CHECK: %[[ROWF:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%[[ROW]] : tensor<2x1x17x32xf32>)
//       CHECK: %[[B1:.*]] = tensor.insert_slice %[[ROWF]] into %[[BIG]][0, 16, 0, 0] [2, 1, 17, 32] [1, 1, 1, 1]
//       CHECK: %[[COL:.*]] = tensor.extract_slice %[[B1]][0, 0, 16, 0] [2, 16, 1, 32] [1, 1, 1, 1]
//       CHECK: %[[COLF:.*]] = linalg.fill ins(%[[NINF]] : f32) outs(%[[COL]] : tensor<2x16x1x32xf32>)
//       CHECK: %[[B2:.*]] = tensor.insert_slice %[[COLF]] into %[[B1]][0, 0, 16, 0] [2, 16, 1, 32] [1, 1, 1, 1]
//       CHECK: %[[IN:.*]] = tensor.extract_slice %[[B2]][0, 0, 0, 0] [2, 16, 16, 32] [1, 1, 1, 1]
//       CHECK: %[[R:.*]] = scf.for {{.*}} iter_args(%{{.*}} = %[[IN]])
//   CHECK-NOT: tensor.pad
//       CHECK: %[[P:.*]] = tensor.insert_slice %[[R]] into %[[B2]][0, 0, 0, 0] [2, 16, 16, 32] [1, 1, 1, 1]
//       CHECK: return %[[P]]
// PIPE-LABEL: func.func @loop_nest
//       PIPE: %[[ALLOC:.*]] = memref.alloc() {{.*}} : memref<2x17x17x32xf32>
//       PIPE: vector.transfer_write %{{.*}}, %[[ALLOC]]{{.*}} : vector<1x1x1x32xf32>, memref<2x17x17x32xf32>
//       PIPE: vector.transfer_write %{{.*}}, %[[ALLOC]]{{.*}} : vector<1x1x1x32xf32>, memref<2x17x17x32xf32>
//   PIPE-NOT: memref.alloc
//   PIPE-NOT: memref.copy
//       PIPE: return %[[ALLOC]]
func.func @loop_nest(%x: tensor<2x16x16x32xf32>) -> tensor<2x17x17x32xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c2 = arith.constant 2 : index
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<2x16x16x32xf32>
  %r = scf.for %i = %c0 to %c2 step %c1 iter_args(%acc = %e) -> (tensor<2x16x16x32xf32>) {
    %in = tensor.extract_slice %x[%i, 0, 0, 0] [1, 16, 16, 32] [1, 1, 1, 1] : tensor<2x16x16x32xf32> to tensor<1x16x16x32xf32>
    %out = tensor.extract_slice %acc[%i, 0, 0, 0] [1, 16, 16, 32] [1, 1, 1, 1] : tensor<2x16x16x32xf32> to tensor<1x16x16x32xf32>
    %relu = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%in : tensor<1x16x16x32xf32>) outs(%out : tensor<1x16x16x32xf32>) {
    ^bb0(%a: f32, %b: f32):
      %m = arith.maximumf %a, %zero : f32
      linalg.yield %m : f32
    } -> tensor<1x16x16x32xf32>
    %ins = tensor.insert_slice %relu into %acc[%i, 0, 0, 0] [1, 16, 16, 32] [1, 1, 1, 1] : tensor<1x16x16x32xf32> into tensor<2x16x16x32xf32>
    scf.yield %ins : tensor<2x16x16x32xf32>
  }
  %p = tensor.pad %r low[0, 0, 0, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %ninf : f32
  } : tensor<2x16x16x32xf32> to tensor<2x17x17x32xf32>
  return %p : tensor<2x17x17x32xf32>
}

// -----

// A linalg op into an empty that CSE shared with another op: only the use
// in the chain is replaced. Zero pads on both sides of H and W (a 3x3
// conv's): four slabs.
// CHECK-LABEL: func.func @shared_empty
//       CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x4x8xf32>
//       CHECK: %[[F:.*]] = linalg.fill {{.*}} outs(%[[E]] : tensor<1x4x4x8xf32>)
//       CHECK: %[[BIG:.*]] = tensor.empty() : tensor<1x6x6x8xf32>
//       CHECK: tensor.extract_slice %[[BIG]][0, 0, 0, 0] [1, 1, 6, 8]
//       CHECK: tensor.extract_slice %{{.*}}[0, 5, 0, 0] [1, 1, 6, 8]
//       CHECK: tensor.extract_slice %{{.*}}[0, 1, 0, 0] [1, 4, 1, 8]
//       CHECK: tensor.extract_slice %{{.*}}[0, 1, 5, 0] [1, 4, 1, 8]
//       CHECK: %[[IN:.*]] = tensor.extract_slice %[[B:.*]][0, 1, 1, 0] [1, 4, 4, 8] [1, 1, 1, 1]
//       CHECK: %[[R:.*]] = linalg.generic {{.*}} outs(%[[IN]] : tensor<1x4x4x8xf32>)
//       CHECK: tensor.insert_slice %[[R]] into %[[B]][0, 1, 1, 0] [1, 4, 4, 8] [1, 1, 1, 1]
func.func @shared_empty(%x: tensor<1x4x4x8xf32>) -> (tensor<1x6x6x8xf32>, tensor<1x4x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x4x8xf32>) outs(%e : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x8xf32>
  %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x8xf32> to tensor<1x6x6x8xf32>
  return %p, %f : tensor<1x6x6x8xf32>, tensor<1x4x4x8xf32>
}

// -----

// Left as they are: the pad of an argument, of a value computed into an
// argument, of a value whose init is read again, and a pad whose value is
// not a constant.
// CHECK-LABEL: func.func @untouched
//       CHECK: tensor.pad %arg0
//       CHECK: tensor.pad %{{.*}} low[0, 1, 1, 0]
//       CHECK: tensor.pad %{{.*}} low[1, 1, 0, 0]
//       CHECK: tensor.pad %{{.*}} low[0, 0, 1, 1]
func.func @untouched(%x: tensor<1x4x4x8xf32>, %y: tensor<1x4x4x8xf32>, %v: f32) -> (tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>, tensor<3x6x4x8xf32>, tensor<1x4x6x10xf32>, tensor<1x4x4x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %p0 = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x8xf32> to tensor<1x6x6x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x4x8xf32>) outs(%y : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x8xf32>
  %p1 = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x8xf32> to tensor<1x6x6x8xf32>
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x4x8xf32>) outs(%f : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.addf %a, %b : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x8xf32>
  %p2 = tensor.pad %s low[1, 1, 0, 0] high[1, 1, 0, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x4x4x8xf32> to tensor<3x6x4x8xf32>
  %e2 = tensor.empty() : tensor<1x4x4x8xf32>
  %t = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%x : tensor<1x4x4x8xf32>) outs(%e2 : tensor<1x4x4x8xf32>) {
  ^bb0(%a: f32, %b: f32):
    %m = arith.maximumf %a, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x8xf32>
  %p3 = tensor.pad %t low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %v : f32
  } : tensor<1x4x4x8xf32> to tensor<1x4x6x10xf32>
  return %p0, %p1, %p2, %p3, %f : tensor<1x6x6x8xf32>, tensor<1x6x6x8xf32>, tensor<3x6x4x8xf32>, tensor<1x4x6x10xf32>, tensor<1x4x4x8xf32>
}
