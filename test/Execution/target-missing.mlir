// A target naming features this host lacks is an error before anything is
// compiled or run (never an illegal instruction).

// On a host without AVX-512, an AVX-512 CPU; on one with AVX-512 (but no
// AMX), a CPU with AMX. Both say what is missing.
// UNSUPPORTED: amx
// RUN: not tiletune-run %s --untiled --mcpu=%missing_cpu 2>&1 | FileCheck %s
// RUN: tiletune-run --print-target --mcpu=%missing_cpu | FileCheck %s --check-prefix=PRINT
// CHECK: error: this host's CPU ('{{.*}}') lacks {{.*}}[[MISSING:avx512f|amx-tile]]{{.*}}, which the target CPU '{{skylake-avx512|sapphirerapids}}' enables: the kernel would die with an illegal instruction
// PRINT: runs here: no (this host's CPU ('{{.*}}') lacks

// The same through --mattr on top of the host.
// RUN: not tiletune-run %s --untiled --mattr=+%missing_feature 2>&1 | FileCheck %s --check-prefix=MATTR
// MATTR: error: this host's CPU ('{{.*}}') lacks {{.*}}, which the target CPU '{{.*}}' with features '+{{avx512f|amx-tile}}' enables

func.func @matmul(%a: memref<4x4xf32>, %b: memref<4x4xf32>, %c: memref<4x4xf32>) {
  linalg.matmul ins(%a, %b : memref<4x4xf32>, memref<4x4xf32>) outs(%c : memref<4x4xf32>)
  return
}
