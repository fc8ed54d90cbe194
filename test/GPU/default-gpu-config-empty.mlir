// Ops with a loop of size 0 compute nothing: tiletune-default-gpu-config
// leaves them without a config and says why, as tiletune-default-config does.
// RUN: tiletune-opt %s --tiletune-default-gpu-config --verify-diagnostics | FileCheck %s

// CHECK-LABEL: func.func @matmul_n0
//   CHECK-NOT:   tiletune.config
// CHECK: return
func.func @matmul_n0(%a: memref<16x8xf32>, %b: memref<8x0xf32>, %c: memref<16x0xf32>) {
  // expected-remark @+1 {{tiletune-default-gpu-config: left without a config: loop 'n' has size 0: the op computes nothing, there is nothing to tile or tune}}
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x0xf32>) outs(%c : memref<16x0xf32>)
  return
}

// The other ops of the module still get their config.
// CHECK-LABEL: func.func @matmul
// CHECK: tiletune.config = #tiletune.config<cuda
func.func @matmul(%a: memref<16x8xf32>, %b: memref<8x4xf32>, %c: memref<16x4xf32>) {
  linalg.matmul ins(%a, %b : memref<16x8xf32>, memref<8x4xf32>) outs(%c : memref<16x4xf32>)
  return
}
