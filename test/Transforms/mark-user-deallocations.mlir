// RUN: tiletune-opt %s --split-input-file --tiletune-mark-user-deallocations | FileCheck %s

// A buffer the function frees itself: the allocation and the free are left
// to the module; a buffer nobody frees stays for the deallocation pass.

// CHECK-LABEL: func.func @temporary
//       CHECK:   %[[T:.*]] = memref.alloc() {bufferization.manual_deallocation} : memref<16xf32>
//       CHECK:   %[[U:.*]] = memref.alloc() : memref<8xf32>
//       CHECK:   memref.dealloc %[[T]] {bufferization.manual_deallocation}
//   CHECK-NOT:   memref.dealloc %[[U]]
func.func @temporary(%c: memref<16xf32>, %d: memref<8xf32>) {
  %t = memref.alloc() : memref<16xf32>
  %u = memref.alloc() : memref<8xf32>
  memref.copy %c, %t : memref<16xf32> to memref<16xf32>
  memref.copy %d, %u : memref<8xf32> to memref<8xf32>
  memref.dealloc %t : memref<16xf32>
  return
}

// -----

// Through a cast, an scf.for (ping-pong buffers), an scf.if and a select.

// CHECK-LABEL: func.func @control_flow
//       CHECK:   memref.alloc() {bufferization.manual_deallocation} : memref<4xf32>
//       CHECK:   scf.for
//       CHECK:     memref.alloc() {bufferization.manual_deallocation} : memref<4xf32>
//       CHECK:     memref.dealloc %{{.*}} {bufferization.manual_deallocation}
//       CHECK:   memref.alloc() {bufferization.manual_deallocation} : memref<4xf32>
//       CHECK:   scf.if
//       CHECK:   memref.cast
//       CHECK:   memref.dealloc %{{.*}} {bufferization.manual_deallocation}
//       CHECK:   memref.alloc() {bufferization.manual_deallocation} : memref<4xf32>
//       CHECK:   arith.select
//       CHECK:   memref.dealloc %{{.*}} {bufferization.manual_deallocation}
func.func @control_flow(%cond: i1, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %init = memref.alloc() : memref<4xf32>
  %last = scf.for %i = %c0 to %n step %c1 iter_args(%prev = %init) -> (memref<4xf32>) {
    %next = memref.alloc() : memref<4xf32>
    memref.dealloc %prev : memref<4xf32>
    scf.yield %next : memref<4xf32>
  }
  %other = memref.alloc() : memref<4xf32>
  %either = scf.if %cond -> (memref<4xf32>) {
    scf.yield %last : memref<4xf32>
  } else {
    scf.yield %other : memref<4xf32>
  }
  %cast = memref.cast %either : memref<4xf32> to memref<?xf32>
  memref.dealloc %cast : memref<?xf32>
  %third = memref.alloc() : memref<4xf32>
  %sel = arith.select %cond, %third, %third : memref<4xf32>
  memref.dealloc %sel : memref<4xf32>
  return
}

// -----

// A function that frees its argument: the buffers its callers pass are
// left to the module too.

// CHECK-LABEL: func.func @release
//       CHECK:   memref.dealloc %{{.*}} {bufferization.manual_deallocation}
// CHECK-LABEL: func.func @caller
//       CHECK:   memref.alloc() {bufferization.manual_deallocation} : memref<4xf32>
//       CHECK:   call @release
func.func @release(%m: memref<4xf32>) {
  memref.dealloc %m : memref<4xf32>
  return
}
func.func @caller() {
  %m = memref.alloc() : memref<4xf32>
  func.call @release(%m) : (memref<4xf32>) -> ()
  return
}

// -----

// memref.realloc frees its source and allocates a buffer the module frees.

// CHECK-LABEL: func.func @realloc
//       CHECK:   memref.alloc() {bufferization.manual_deallocation} : memref<4xf32>
//       CHECK:   memref.realloc %{{.*}} {bufferization.manual_deallocation}
//       CHECK:   memref.dealloc %{{.*}} {bufferization.manual_deallocation}
func.func @realloc() -> f32 {
  %c0 = arith.constant 0 : index
  %m = memref.alloc() : memref<4xf32>
  %r = memref.realloc %m : memref<4xf32> to memref<8xf32>
  %v = memref.load %r[%c0] : memref<8xf32>
  memref.dealloc %r : memref<8xf32>
  return %v : f32
}

// -----

// Nothing freed: untouched.

// CHECK-LABEL: func.func @no_free
//  CHECK-NEXT:   memref.alloc() : memref<4xf32>
//   CHECK-NOT:   manual_deallocation
func.func @no_free(%c: memref<4xf32>) {
  %m = memref.alloc() : memref<4xf32>
  memref.copy %m, %c : memref<4xf32> to memref<4xf32>
  return
}
