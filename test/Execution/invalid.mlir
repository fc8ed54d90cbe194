// Bad input gets a clear error and a non-zero exit, never a crash.

// RUN: echo "func.func @broken(" | not tiletune-run - 2>&1 | FileCheck %s --check-prefix=PARSE
// PARSE: error: cannot parse the input '-'

// RUN: not tiletune-run %t.does-not-exist.mlir 2>&1 | FileCheck %s --check-prefix=NOFILE
// NOFILE: error: cannot open '{{.*}}does-not-exist.mlir'

// RUN: not tiletune-run %s --untiled 2>&1 | FileCheck %s --check-prefix=AMBIGUOUS
// AMBIGUOUS: error: the module has 5 candidate functions (@good, @dynamic, @ints, @two_ops, @not_lowered); choose one with --entry

// RUN: not tiletune-run %s --entry=nope --untiled 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: no function named @nope in the input

// RUN: not tiletune-run %s --entry=dynamic --untiled 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// DYNAMIC: error: unsupported signature: argument #0 of @dynamic of type memref<?x4xf32>: dynamic shapes are not supported

// RUN: not tiletune-run %s --entry=ints --untiled 2>&1 | FileCheck %s --check-prefix=INTS
// INTS: error: unsupported signature: argument #0 of @ints of type memref<4xi32>: only f32 and f64 elements are supported

// RUN: not tiletune-run %s --entry=two_ops --untiled --verify 2>&1 | FileCheck %s --check-prefix=TWOOPS
// TWOOPS: error: --verify: @two_ops is not a single-op kernel: it contains more than one linalg op

// RUN: not tiletune-run %s --entry=not_lowered 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// UNLOWERED: error: the module is not lowered to the LLVM dialect: it still contains 'func.func' (run a lowering pipeline first)

// RUN: not tiletune-run %s --entry=good --pipeline=no-such-pass 2>&1 | FileCheck %s --check-prefix=BADPASS
// BADPASS: error: cannot parse the pass pipeline 'no-such-pass'

// RUN: not tiletune-run %s --entry=good --untiled --pipeline=canonicalize 2>&1 | FileCheck %s --check-prefix=EXCLUSIVE
// EXCLUSIVE: error: --untiled and --pipeline are mutually exclusive

// RUN: not tiletune-run %s --entry=good --untiled --num-threads=-2 2>&1 | FileCheck %s --check-prefix=THREADS
// THREADS: error: --num-threads must be between 0 and 1024 (0: all cores), got -2

// Every option is checked before anything is read or compiled (the input
// below would be fine): the target CPU and features, and each number against
// its range, which the error names.
// RUN: not tiletune-run %s --entry=good --untiled --mcpu=bogus 2>&1 | FileCheck %s --check-prefix=MCPU
// MCPU: error: unknown CPU 'bogus' for {{.*}} (the host is '{{.*}}'; `llc -mtriple={{.*}} -mcpu=help` lists them)
// MCPU-NOT: LLVM ERROR
// RUN: not tiletune-run %s --entry=good --untiled --mattr=+bogus 2>&1 | FileCheck %s --check-prefix=MATTR
// MATTR: error: unknown CPU feature 'bogus' for
// RUN: not tiletune-run %s --entry=good --untiled --mattr=avx2 2>&1 | FileCheck %s --check-prefix=MATTR-SIGN
// MATTR-SIGN: error: CPU feature 'avx2' must start with '+' (enable) or '-' (disable)
// FMA4 and XOP (AMD Bulldozer only) are on no CPU this runs on: code using
// them would die with SIGILL, so they are refused up front.
// RUN: not tiletune-run %s --entry=good --untiled --mattr=+fma4,+xop 2>&1 | FileCheck %s --check-prefix=MATTR-HOST
// MATTR-HOST: error: this host's CPU ('{{.*}}') lacks fma4, {{.*}}xop, which the target CPU '{{.*}}' with features '+fma4,+xop' enables: the kernel would die with an illegal instruction
// Naming the host's own CPU, or removing features, is fine.
// RUN: tiletune-run %s --entry=good --untiled --repeats=0 --mattr=-avx512f,-evex512 | FileCheck %s --check-prefix=FEWER
// FEWER: kernel: @good
// RUN: not tiletune-run %s --entry=good --untiled --tolerance-factor=-1 2>&1 | FileCheck %s --check-prefix=TOLERANCE
// RUN: not tiletune-run %s --entry=good --untiled --tolerance-factor=nan 2>&1 | FileCheck %s --check-prefix=TOLERANCE
// TOLERANCE: error: --tolerance-factor must be between 0 and 1e+06, got
// RUN: not tiletune-run %s --entry=good --untiled --num-threads=100000 2>&1 | FileCheck %s --check-prefix=MANYTHREADS
// MANYTHREADS: error: --num-threads must be between 0 and 1024 (0: all cores), got 100000
// RUN: not tiletune-run %s --entry=good --untiled --repeats=4000000000 2>&1 | FileCheck %s --check-prefix=REPEATS
// REPEATS: error: the number of timed repeats must be between 1 and 100000, got 4000000000
// RUN: not tiletune-run %s --entry=good --untiled --min-sample-ms=1e12 2>&1 | FileCheck %s --check-prefix=SAMPLE
// RUN: not tiletune-run %s --entry=good --untiled --min-sample-ms=-5 2>&1 | FileCheck %s --check-prefix=SAMPLE
// SAMPLE: error: the minimum sample duration must be between 0 and 60000 ms, got
// RUN: not tiletune-run %s --entry=good --untiled --warmup=99999 2>&1 | FileCheck %s --check-prefix=WARMUP
// WARMUP: error: the number of warm-up runs must be between 0 and 10000, got 99999
// RUN: not tiletune-run %s --entry=good --untiled -O4 2>&1 | FileCheck %s --check-prefix=OPT
// OPT: error: the optimisation level must be between 0 and 3, got 4
// RUN: not tiletune-run %s --entry=good --untiled --codegen-opt-level=7 2>&1 | FileCheck %s --check-prefix=CODEGEN
// CODEGEN: tiletune-run: error: the code generation level must be between 0 and 3, got 7

func.func @good(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>) {
  linalg.matmul ins(%A, %B : memref<4x4xf32>, memref<4x4xf32>)
                outs(%C : memref<4x4xf32>)
  return
}

func.func @dynamic(%A: memref<?x4xf32>) {
  return
}

func.func @ints(%A: memref<4xi32>) {
  return
}

func.func @two_ops(%A: memref<4x4xf32>, %B: memref<4x4xf32>, %C: memref<4x4xf32>) {
  linalg.matmul ins(%A, %B : memref<4x4xf32>, memref<4x4xf32>)
                outs(%C : memref<4x4xf32>)
  linalg.matmul ins(%A, %B : memref<4x4xf32>, memref<4x4xf32>)
                outs(%C : memref<4x4xf32>)
  return
}

func.func @not_lowered(%A: memref<4xf32>) {
  return
}
