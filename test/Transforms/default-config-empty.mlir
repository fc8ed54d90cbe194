// Ops with a loop of size 0 compute nothing: tiletune-default-config leaves
// them without a config and says why (it used to divide by the zero size and
// die with SIGFPE), and the lowering still runs them correctly (no
// iteration; a matmul with k = 0 leaves its output as it was).

// RUN: tiletune-opt %s --split-input-file --tiletune-default-config=threads=2 --verify-diagnostics | FileCheck %s
// RUN: tiletune-opt %s --split-input-file --tiletune-default-config=threads=2 --tiletune-lower-cpu --verify-diagnostics -o /dev/null
// RUN: tiletune-run %s --entry=matmul_m0 --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=matmul_k0 --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=bmm_b0 --pipeline="tiletune-lower-cpu{default-configs=true threads=2}" --verify --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=conv_f0 --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=conv_n0 --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s --check-prefix=EXEC

// EXEC-NOT: FAILED
// EXEC: verify: PASSED

// CHECK-LABEL: func.func @matmul_m0
//   CHECK-NOT:   tiletune.config
func.func @matmul_m0(%a: tensor<0x64xf32>, %b: tensor<64x32xf32>, %c: tensor<0x32xf32>) -> tensor<0x32xf32> {
  // expected-remark @+1 {{tiletune-default-config: left without a config: loop 'm' has size 0: the op computes nothing, there is nothing to tile or tune}}
  %0 = linalg.matmul ins(%a, %b : tensor<0x64xf32>, tensor<64x32xf32>) outs(%c : tensor<0x32xf32>) -> tensor<0x32xf32>
  return %0 : tensor<0x32xf32>
}

// -----

// k = 0: nothing to accumulate; the output keeps its values.
// CHECK-LABEL: func.func @matmul_k0
//   CHECK-NOT:   tiletune.config
func.func @matmul_k0(%a: memref<16x0xf32>, %b: memref<0x32xf32>, %c: memref<16x32xf32>) {
  // expected-remark @+1 {{loop 'k' has size 0}}
  linalg.matmul ins(%a, %b : memref<16x0xf32>, memref<0x32xf32>) outs(%c : memref<16x32xf32>)
  return
}

// -----

// CHECK-LABEL: func.func @bmm_b0
//   CHECK-NOT:   tiletune.config
func.func @bmm_b0(%a: tensor<0x16x8xf32>, %b: tensor<0x8x32xf32>, %c: tensor<0x16x32xf32>) -> tensor<0x16x32xf32> {
  // expected-remark @+1 {{loop 'b' has size 0}}
  %0 = linalg.batch_matmul ins(%a, %b : tensor<0x16x8xf32>, tensor<0x8x32xf32>) outs(%c : tensor<0x16x32xf32>) -> tensor<0x16x32xf32>
  return %0 : tensor<0x16x32xf32>
}

// -----

// CHECK-LABEL: func.func @conv_f0
//   CHECK-NOT:   tiletune.config
func.func @conv_f0(%i: tensor<1x8x8x4xf32>, %f: tensor<3x3x4x0xf32>, %o: tensor<1x6x6x0xf32>) -> tensor<1x6x6x0xf32> {
  // expected-remark @+1 {{loop 'f' has size 0}}
  %0 = linalg.conv_2d_nhwc_hwcf ins(%i, %f : tensor<1x8x8x4xf32>, tensor<3x3x4x0xf32>) outs(%o : tensor<1x6x6x0xf32>) -> tensor<1x6x6x0xf32>
  return %0 : tensor<1x6x6x0xf32>
}

// -----

// CHECK-LABEL: func.func @conv_n0
//   CHECK-NOT:   tiletune.config
func.func @conv_n0(%i: memref<0x4x8x8xf32>, %f: memref<16x4x3x3xf32>, %o: memref<0x16x6x6xf32>) {
  // expected-remark @+1 {{loop 'n' has size 0}}
  linalg.conv_2d_nchw_fchw ins(%i, %f : memref<0x4x8x8xf32>, memref<16x4x3x3xf32>) outs(%o : memref<0x16x6x6xf32>)
  return
}

// -----

// The other ops of a module still get their configs.
// CHECK-LABEL: func.func @mixed
//       CHECK:   linalg.matmul ins
//       CHECK:   linalg.matmul {tiletune.config = #tiletune.config<cpu
func.func @mixed(%a: tensor<0x64xf32>, %b: tensor<64x32xf32>, %c: tensor<0x32xf32>,
                 %a2: tensor<16x64xf32>, %c2: tensor<16x32xf32>) -> (tensor<0x32xf32>, tensor<16x32xf32>) {
  // expected-remark @+1 {{loop 'm' has size 0}}
  %0 = linalg.matmul ins(%a, %b : tensor<0x64xf32>, tensor<64x32xf32>) outs(%c : tensor<0x32xf32>) -> tensor<0x32xf32>
  %1 = linalg.matmul ins(%a2, %b : tensor<16x64xf32>, tensor<64x32xf32>) outs(%c2 : tensor<16x32xf32>) -> tensor<16x32xf32>
  return %0, %1 : tensor<0x32xf32>, tensor<16x32xf32>
}
