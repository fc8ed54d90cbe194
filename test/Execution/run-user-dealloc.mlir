// A module that frees its own buffers, as upstream MLIR's memref integration
// tests do (a temporary in the kernel, ping-pong buffers in a loop, a
// function that frees its argument, the inputs at the end of @main), lowers
// with tiletune-lower-cpu, tiled or not, and runs: the module's frees stay,
// the packing buffers are freed by the deallocation pipeline.
// (Issue 16, item 5: "memory free side-effect on MemRef value not
// supported!".)

// RUN: tiletune-opt %s --tiletune-lower-cpu \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s
// RUN: tiletune-opt %s --tiletune-lower-cpu="tile=false" \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s
// RUN: tiletune-opt %s --tiletune-lower-cpu="default-configs=true" \
// RUN: | mlir-runner -e main -entry-point-result=void \
// RUN:     -shared-libs=%mlir_lib_dir/libmlir_c_runner_utils.so \
// RUN: | FileCheck %s

// The module's 6 allocations and the 2 packing buffers are each freed once.
// RUN: tiletune-opt %s --tiletune-lower-cpu | FileCheck %s --check-prefix=FREES
// FREES-COUNT-8: llvm.call @free
// FREES-NOT: llvm.call @free

// CHECK: 48
// CHECK-NEXT: 48

func.func @matmul(%a: memref<16x16xf32>, %b: memref<16x16xf32>, %c: memref<16x16xf32>) {
  %t = memref.alloc() : memref<16x16xf32>
  %z = arith.constant 0.0 : f32
  linalg.fill ins(%z : f32) outs(%t : memref<16x16xf32>)
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 16, n = 16}, cache = {m = 8, n = 16, k = 8}, register = {m = 4, n = 16}, pack = ab>}
    ins(%a, %b : memref<16x16xf32>, memref<16x16xf32>) outs(%t : memref<16x16xf32>)
  memref.copy %t, %c : memref<16x16xf32> to memref<16x16xf32>
  memref.dealloc %t : memref<16x16xf32>
  return
}

func.func @release(%m: memref<16x16xf32>) {
  memref.dealloc %m : memref<16x16xf32>
  return
}

func.func @main() {
  %A = memref.alloc() : memref<16x16xf32>
  %B = memref.alloc() : memref<16x16xf32>
  %C = memref.alloc() : memref<16x16xf32>
  %one = arith.constant 1.0 : f32
  %three = arith.constant 3.0 : f32
  linalg.fill ins(%one : f32) outs(%A : memref<16x16xf32>)
  linalg.fill ins(%three : f32) outs(%B : memref<16x16xf32>)
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  // Ping-pong: each iteration frees the previous buffer.
  %init = memref.alloc() : memref<16x16xf32>
  %last = scf.for %i = %c0 to %c4 step %c1 iter_args(%prev = %init) -> (memref<16x16xf32>) {
    %next = memref.alloc() : memref<16x16xf32>
    func.call @matmul(%A, %B, %next) : (memref<16x16xf32>, memref<16x16xf32>, memref<16x16xf32>) -> ()
    memref.dealloc %prev : memref<16x16xf32>
    scf.yield %next : memref<16x16xf32>
  }
  func.call @matmul(%A, %B, %C) : (memref<16x16xf32>, memref<16x16xf32>, memref<16x16xf32>) -> ()
  %v = memref.load %C[%c0, %c0] : memref<16x16xf32>
  %w = memref.load %last[%c1, %c1] : memref<16x16xf32>
  vector.print %v : f32
  vector.print %w : f32
  memref.dealloc %last : memref<16x16xf32>
  func.call @release(%A) : (memref<16x16xf32>) -> ()
  memref.dealloc %B : memref<16x16xf32>
  memref.dealloc %C : memref<16x16xf32>
  return
}
