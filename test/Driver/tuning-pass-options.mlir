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

func.func @f(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>,
             %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>)
                     outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %r : tensor<8x8xf32>
}
