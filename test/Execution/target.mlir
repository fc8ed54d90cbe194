// The CPU target of tiletune-run: --print-target describes it (LLVM's names,
// whatever the host), --mcpu/--mattr make the JIT and the pipeline's default
// configs use it, and the peak line relates the speed to its peak.

// RUN: tiletune-run --print-target --mcpu=haswell | FileCheck %s --check-prefix=HASWELL
// HASWELL: cpu: haswell
// HASWELL: isa: avx2
// HASWELL: vector width: 256 bits (8 x f32)
// HASWELL: vector registers: 16
// HASWELL: fma: yes, 2.00 per cycle (LLVM scheduling model of haswell (VFMADD231PSYr: reciprocal throughput 0.50))
// HASWELL: flops per cycle and core (f32): 32
// HASWELL: caches: L1d {{[0-9]+}} KiB, L2 {{[0-9]+}} KiB, L3 {{[0-9]+}} KiB
// HASWELL: cores: {{[1-9]}}
// HASWELL: clock: {{[0-9.]+}} GHz
// HASWELL: measured fma throughput: {{[0-9.]+}} GFLOP/s f32 on 1 thread
// HASWELL: peak f32: {{[0-9.]+}} GFLOP/s on 1 thread
// HASWELL: runs here:

// RUN: tiletune-run --print-target --mcpu=znver4 | FileCheck %s --check-prefix=ZEN4
// ZEN4: cpu: znver4
// ZEN4: isa: avx512
// ZEN4: vector width: 512 bits (16 x f32)
// ZEN4: vector registers: 32
// ZEN4: fma: yes, 1.00 per cycle (LLVM scheduling model of znver4 (VFMADD231PSZr: reciprocal throughput 1.00))
// ZEN4: flops per cycle and core (f32): 32

// The host's own description.
// A target without FMA has no FMA throughput to measure; its peak is the
// multiply and add rates times the clock.
// RUN: tiletune-run --print-target --mcpu=sandybridge | FileCheck %s --check-prefix=NOFMA
// NOFMA: fma: no
// NOFMA: measured fma throughput: not measured (the target has no FMA)
// NOFMA: peak f32: {{[0-9.]+}} GFLOP/s on 1 thread
// RUN: tiletune-run --print-target | FileCheck %s --check-prefix=HOST
// HOST: cpu: {{.*}} (host)
// HOST: vector registers: {{16|32}}
// HOST: runs here: yes

// RUN: not tiletune-run --print-target --mcpu=bogus 2>&1 | FileCheck %s --check-prefix=BOGUS
// BOGUS: error: unknown CPU 'bogus'

// Compiled and run for AVX2 on any x86 host with AVX2: the default config is
// sized for 8 lanes, the JIT targets haswell, the result verifies.
// RUN: tiletune-run %s --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" \
// RUN:   --verify --repeats=2 --warmup=1 --num-threads=1 | FileCheck %s --check-prefix=RUN-AVX2
// RUN-AVX2: kernel: @matmul
// RUN-AVX2-NEXT: target: haswell
// RUN-AVX2: verify: PASSED
// RUN-AVX2: peak: {{[0-9.]+}} GFLOP/s (1 thread(s)); best is {{[0-9]+}}% of it

func.func @matmul(%a: memref<24x40xf32>, %b: memref<40x64xf32>, %c: memref<24x64xf32>) {
  linalg.matmul ins(%a, %b : memref<24x40xf32>, memref<40x64xf32>) outs(%c : memref<24x64xf32>)
  return
}
