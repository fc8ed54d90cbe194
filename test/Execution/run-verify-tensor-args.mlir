// --verify-untiled compares results and the buffers of memref arguments
// (outputs written in place), never what a tensor argument's buffer holds
// after the call: a tensor is a value the function cannot change, and a
// lowering may reuse its buffer. The untiled lowering writes this conv's
// init (the argument %init) in place; ours leaves it alone. A result ours
// writes into an argument's buffer (and drops) is compared with the untiled
// lowering's returned result.

// RUN: tiletune-run %s --entry=padded_conv_init_arg --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=returns_outs --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=OUTS
// RUN: tiletune-run %s --entry=returns_outs --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=OUTS
// RUN: tiletune-run %s --entry=memref_out --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=MEMREF

// CHECK: verify: result 0 against the untiled lowering: PASSED
// CHECK-NOT: argument
// CHECK: verify: passed against the untiled lowering (1 buffers compared
func.func @padded_conv_init_arg(%x: tensor<1x28x28x8xf32>, %w: tensor<16x3x3x8xf32>, %init: tensor<1x28x28x16xf32>) -> tensor<1x28x28x16xf32> {
  %z = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %z : f32
  } : tensor<1x28x28x8xf32> to tensor<1x30x30x8xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x30x30x8xf32>, tensor<16x3x3x8xf32>) outs(%init : tensor<1x28x28x16xf32>) -> tensor<1x28x28x16xf32>
  %e = tensor.empty() : tensor<1x28x28x16xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%r : tensor<1x28x28x16xf32>) outs(%e : tensor<1x28x28x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %1 = arith.maximumf %in, %z : f32
    linalg.yield %1 : f32
  } -> tensor<1x28x28x16xf32>
  return %m : tensor<1x28x28x16xf32>
}

// A memref argument written in place is an output, and is compared.
// MEMREF-NOT: FAILED
// MEMREF: verify: passed against the untiled lowering (3 buffers compared
func.func @memref_out(%a: memref<7x5xf32>, %b: memref<5x3xf32>, %c: memref<7x3xf32>) {
  linalg.matmul ins(%a, %b : memref<7x5xf32>, memref<5x3xf32>) outs(%c : memref<7x3xf32>)
  return
}

// The usual kernel form: the result is the `outs` argument's value. Ours
// writes it into that argument's buffer and drops the result; the untiled
// lowering returns it. The returned result is compared with the buffer.
// OUTS: kernel: @returns_outs(memref<37x64xf32>, memref<64x48xf32>, memref<37x48xf32>) -> ()
// OUTS: verify: result 0 against the untiled lowering: PASSED
// OUTS: verify: passed against the untiled lowering (1 buffers compared
func.func @returns_outs(%a: tensor<37x64xf32>, %b: tensor<64x48xf32>, %c: tensor<37x48xf32>) -> tensor<37x48xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<37x64xf32>, tensor<64x48xf32>) outs(%c : tensor<37x48xf32>) -> tensor<37x48xf32>
  return %r : tensor<37x48xf32>
}
