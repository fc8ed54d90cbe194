// The numeric options of the tuning passes are range-checked before any
// work: an error naming the range, no database written.
// RUN: rm -rf %t && mkdir -p %t
// RUN: not tiletune-opt --tiletune-autotune="threads=100000 db=%t/a.db" %s 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: the thread count must be between 0 and 1024 (0: all cores), got 100000
// RUN: not tiletune-opt --tiletune-autotune="trials=-1 db=%t/a.db" %s 2>&1 | FileCheck %s --check-prefix=TRIALS
// TRIALS: error: the trial budget must be between 0 and 10000000 (0: no limit), got -1
// RUN: not tiletune-opt --tiletune-autotune="seconds=nan db=%t/a.db" %s 2>&1 | FileCheck %s --check-prefix=SECONDS
// RUN: not tiletune-opt --tiletune-autotune="trials=0 seconds=inf db=%t/a.db" %s 2>&1 | FileCheck %s --check-prefix=SECONDS
// SECONDS: error: the time budget must be between 0 and 31622400 seconds (0: no limit), got
// RUN: not test -e %t/a.db
// RUN: not tiletune-opt --tiletune-apply-db="threads=100000 db=%t/a.db" %s 2>&1 | FileCheck %s --check-prefix=APPLY
// APPLY: error: tiletune-apply-db threads must be between 0 and 1024 (0: all cores), got 100000

// A run in which every measurement fails is a pass failure, not a silent
// success: the kernels' 1024 OpenMP threads with 64 MiB stacks cannot start in an 8 GB
// address space, so every worker dies.
// RUN: not env OMP_STACKSIZE=64M %python -c "import resource, subprocess, sys; resource.setrlimit(resource.RLIMIT_AS, (8 << 30, 8 << 30)); sys.exit(subprocess.run(sys.argv[1:]).returncode)" tiletune-opt --tiletune-autotune="trials=2 threads=1024 db=%t/b.db" %S/../tools/Inputs/small-matmul.mlir 2>&1 | FileCheck %s --check-prefix=ALLFAILED
// ALLFAILED: error: every measurement of matmul/f32/m=16,n=24,k=32 failed (2 trial(s); the default config:
// ALLFAILED: its ops were not tuned

func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>,
             %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
