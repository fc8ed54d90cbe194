// RUN: tiletune-opt %s --split-input-file --pass-pipeline="builtin.module(func.func(tiletune-optimize-cpu-buffers))" | FileCheck %s

// After bufferization, the versions of a thread's tile (an scf.if yielding
// differently typed views of the thread's output rows) leave a copy of the
// if's result onto the same rows: same buffer, offsets and strides, so it
// is erased.
// CHECK-LABEL: func.func @onto_itself
//   CHECK-NOT:   memref.copy
//       CHECK:   return
func.func @onto_itself(%out: memref<127x8xf32>, %i: index, %size: index, %full: i1) {
  %r = scf.if %full -> (memref<?x8xf32, strided<[8, 1], offset: ?>>) {
    %v = memref.subview %out[%i, 0] [64, 8] [1, 1] : memref<127x8xf32> to memref<64x8xf32, strided<[8, 1], offset: ?>>
    %c = memref.cast %v : memref<64x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1], offset: ?>>
    scf.yield %c : memref<?x8xf32, strided<[8, 1], offset: ?>>
  } else {
    %v = memref.subview %out[%i, 0] [63, 8] [1, 1] : memref<127x8xf32> to memref<63x8xf32, strided<[8, 1], offset: ?>>
    %c = memref.cast %v : memref<63x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1], offset: ?>>
    scf.yield %c : memref<?x8xf32, strided<[8, 1], offset: ?>>
  }
  %dst = memref.subview %out[%i, 0] [%size, 8] [1, 1] : memref<127x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
  memref.copy %r, %dst : memref<?x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1], offset: ?>>
  return
}

// -----

// Different offsets in one branch: the copy moves data and stays.
// CHECK-LABEL: func.func @elsewhere
//       CHECK:   memref.copy
func.func @elsewhere(%out: memref<127x8xf32>, %i: index, %j: index, %size: index, %full: i1) {
  %r = scf.if %full -> (memref<?x8xf32, strided<[8, 1], offset: ?>>) {
    %v = memref.subview %out[%i, 0] [64, 8] [1, 1] : memref<127x8xf32> to memref<64x8xf32, strided<[8, 1], offset: ?>>
    %c = memref.cast %v : memref<64x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1], offset: ?>>
    scf.yield %c : memref<?x8xf32, strided<[8, 1], offset: ?>>
  } else {
    %v = memref.subview %out[%j, 0] [63, 8] [1, 1] : memref<127x8xf32> to memref<63x8xf32, strided<[8, 1], offset: ?>>
    %c = memref.cast %v : memref<63x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1], offset: ?>>
    scf.yield %c : memref<?x8xf32, strided<[8, 1], offset: ?>>
  }
  %dst = memref.subview %out[%i, 0] [%size, 8] [1, 1] : memref<127x8xf32> to memref<?x8xf32, strided<[8, 1], offset: ?>>
  memref.copy %r, %dst : memref<?x8xf32, strided<[8, 1], offset: ?>> to memref<?x8xf32, strided<[8, 1], offset: ?>>
  return
}
