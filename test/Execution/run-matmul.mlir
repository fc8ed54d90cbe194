// Runs a memref matmul lowered without tiling and verifies it against the
// C++ reference; the output reports the signature, FLOPs, error and time.

// RUN: tiletune-run %s --untiled --verify --repeats=2 --warmup=1 | FileCheck %s
// RUN: tiletune-run %s --untiled --verify --repeats=0 --seed=7 -O0 \
// RUN:   | FileCheck %s --check-prefix=NOTIME

// CHECK: kernel: @matmul(memref<24x40xf32>, memref<40x36xf32>, memref<24x36xf32>) -> ()
// CHECK-NEXT: target:
// CHECK-NEXT: op: linalg.matmul, 6.912e+04 FLOP
// CHECK-NEXT: verify: PASSED: max abs error
// CHECK-NEXT: time: mean {{.*}} (2 samples x {{[0-9]+}} calls)
// CHECK-NEXT: gflops: mean {{[0-9.]+}}, median {{[0-9.]+}}, best {{[0-9.]+}}

// NOTIME: verify: PASSED
// NOTIME-NOT: time:

func.func @matmul(%A: memref<24x40xf32>, %B: memref<40x36xf32>,
                  %C: memref<24x36xf32>) {
  linalg.matmul ins(%A, %B : memref<24x40xf32>, memref<40x36xf32>)
                outs(%C : memref<24x36xf32>)
  return
}
