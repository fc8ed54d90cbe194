// RUN: tiletune-opt %s --split-input-file --tiletune-drop-returned-arguments | FileCheck %s

// CHECK-LABEL: func.func @kernel(%{{.*}}: memref<4xf32>, %{{.*}}: memref<4xf32>) {
//       CHECK:   return{{$}}
func.func @kernel(%a: memref<4xf32>, %c: memref<4xf32>) -> memref<4xf32> {
  linalg.copy ins(%a : memref<4xf32>) outs(%c : memref<4xf32>)
  return %c : memref<4xf32>
}

// -----

// A function with callers keeps its results; so do private functions.

// CHECK-LABEL: func.func @called(%{{.*}}: memref<4xf32>) -> memref<4xf32>
// CHECK-LABEL: func.func private @priv(%{{.*}}: memref<4xf32>) -> memref<4xf32>
func.func @called(%c: memref<4xf32>) -> memref<4xf32> {
  return %c : memref<4xf32>
}
func.func private @priv(%c: memref<4xf32>) -> memref<4xf32> {
  return %c : memref<4xf32>
}
func.func @caller(%c: memref<4xf32>) {
  %0 = func.call @called(%c) : (memref<4xf32>) -> memref<4xf32>
  %1 = func.call @priv(%c) : (memref<4xf32>) -> memref<4xf32>
  return
}
