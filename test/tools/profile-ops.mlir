// scripts/profile-ops.py attributes the samples of a JIT-compiled function
// to the input lines of its ops: here a matmul and the ReLU fused into it.
// REQUIRES: perf

// RUN: %python %tiletune_src/scripts/profile-ops.py %s --repeats 300 --top 0 | FileCheck %s
// RUN: %python %tiletune_src/scripts/profile-ops.py %s --repeats 300 --top 0 --line0=own | FileCheck %s --check-prefix=OWN
// RUN: %python %tiletune_src/scripts/profile-ops.py %s --repeats 300 --top 0 --threads 2 --pipeline="tiletune-lower-cpu{threads=2}" | FileCheck %s --check-prefix=THREADS
// RUN: not %python %tiletune_src/scripts/profile-ops.py %s --repeats 0 2>&1 | FileCheck %s --check-prefix=BAD
// RUN: not %python %tiletune_src/scripts/profile-ops.py %s --line0=bogus 2>&1 | FileCheck %s --check-prefix=BAD-LINE0

// CHECK: @mm_relu: {{[0-9]+}} samples over 300 calls, median call {{[0-9.]+}} ms
// CHECK: op kind share ms line 0
// CHECK: linalg.matmul {{[0-9.]+}}% {{[0-9.]+}} {{[0-9.]+}}%
// CHECK: line share ms line 0 op
func.func @mm_relu(%a: tensor<256x256xf32>, %b: tensor<256x256xf32>) -> tensor<256x256xf32> {
  %z = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<256x256xf32>
  %init = linalg.fill ins(%z : f32) outs(%e : tensor<256x256xf32>) -> tensor<256x256xf32>
  // CHECK: {{^ *}}[[#@LINE+1]] {{[0-9.]+}}% {{[0-9.]+}} {{[0-9.]+}}% linalg.matmul tensor<256x256xf32> tensor<256x256xf32> tensor<256x256xf32>
  %r = linalg.matmul ins(%a, %b : tensor<256x256xf32>, tensor<256x256xf32>) outs(%init : tensor<256x256xf32>) -> tensor<256x256xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(i, j) -> (i, j)>, affine_map<(i, j) -> (i, j)>], iterator_types = ["parallel", "parallel"]} ins(%r : tensor<256x256xf32>) outs(%e : tensor<256x256xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.maximumf %in, %z : f32
    linalg.yield %1 : f32
  } -> tensor<256x256xf32>
  return %m : tensor<256x256xf32>
}

// With --line0=own, code without a line is a row of its own ("(line 0)"),
// charged to no op.
// OWN: line share ms line 0 op
// OWN: {{[0-9.]+}}% {{[0-9.]+}} 0.0% linalg.matmul tensor<256x256xf32>

// At two threads the samples of both threads count: those of the parallel
// regions OpenMP outlined from the function, by their ops' lines, and the
// OpenMP runtime's as a row of their own.
// THREADS: @mm_relu: {{[0-9]+}} samples over 300 calls, median call {{[0-9.]+}} ms (tiletune-lower-cpu{threads=2}, 2 thread(s))
// THREADS: linalg.matmul {{[0-9.]+}}% {{[0-9.]+}} {{[0-9.]+}}%
// THREADS: line share ms line 0 op

// BAD: profile-ops: error: --repeats and --threads must be at least 1
// BAD-LINE0: argument --line0: invalid choice: 'bogus'
