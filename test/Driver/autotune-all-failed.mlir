// A run in which every measurement fails is a pass failure, not a silent
// success: the kernels' 1024 OpenMP threads with 64 MiB stacks cannot start in an 8 GB
// address space, so every worker dies. An AddressSanitizer build cannot start
// under an address-space limit at all, hence not in sanitizer builds.
// UNSUPPORTED: asan
// RUN: rm -rf %t && mkdir -p %t
// RUN: not env OMP_STACKSIZE=64M %python -c "import resource, subprocess, sys; resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30)); sys.exit(subprocess.run(sys.argv[1:]).returncode)" tiletune-opt --tiletune-autotune="trials=2 threads=1024 db=%t/b.db" %S/../tools/Inputs/small-matmul.mlir 2>&1 | FileCheck %s --check-prefix=ALLFAILED
// ALLFAILED: error: every measurement of matmul/f32/m=16,n=24,k=32 failed (2 trial(s); the default config:
// ALLFAILED: its ops were not tuned

func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>,
             %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
