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
// THREADS: error: invalid OpenMP thread count -2

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
