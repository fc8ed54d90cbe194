// The kernel form of a problem whose output starts from a constant
// (buildKernelModule, Problem::initValue): the init is TOSA's broadcast of a
// splat bias over an empty tensor, the epilogue's result is materialized
// into %out, whose initial contents are never read. The C++ reference
// (analyzeSingleOpKernel) starts the output from the same constant; the
// output argument's random initial contents would fail it otherwise.

// RUN: tiletune-run %s --entry=conv_half_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_half_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_half_relu --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 mcpu=haswell}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=matmul_fill_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// CHECK: verify: PASSED

// A fill whose result the op does not use as its init is refused.
// RUN: not tiletune-run %s --entry=fill_not_init --verify --repeats=1 2>&1 | FileCheck %s --check-prefix=BAD
// BAD: is not a single-op kernel: it contains 'linalg.fill' that is not the only user of the op's init

#bias = affine_map<(d0, d1, d2, d3) -> (d3)>
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#id2 = affine_map<(d0, d1) -> (d0, d1)>

func.func @conv_half_relu(%x: memref<1x13x11x24xf32>, %w: memref<40x3x3x24xf32>, %out: memref<1x11x9x40xf32>) {
  %xt = bufferization.to_tensor %x restrict : memref<1x13x11x24xf32> to tensor<1x13x11x24xf32>
  %wt = bufferization.to_tensor %w restrict : memref<40x3x3x24xf32> to tensor<40x3x3x24xf32>
  %half = arith.constant dense<0.5> : tensor<40xf32>
  %e = tensor.empty() : tensor<1x11x9x40xf32>
  %b = linalg.generic {indexing_maps = [#bias, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%half : tensor<40xf32>) outs(%e : tensor<1x11x9x40xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x11x9x40xf32>
  %r = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%xt, %wt : tensor<1x13x11x24xf32>, tensor<40x3x3x24xf32>) outs(%b : tensor<1x11x9x40xf32>) -> tensor<1x11x9x40xf32>
  %e2 = tensor.empty() : tensor<1x11x9x40xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%r : tensor<1x11x9x40xf32>) outs(%e2 : tensor<1x11x9x40xf32>) {
  ^bb0(%in: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<1x11x9x40xf32>
  bufferization.materialize_in_destination %relu in restrict writable %out : (tensor<1x11x9x40xf32>, memref<1x11x9x40xf32>) -> ()
  return
}

func.func @matmul_fill_relu(%a: memref<37x29xf32>, %bm: memref<29x53xf32>, %out: memref<37x53xf32>) {
  %at = bufferization.to_tensor %a restrict : memref<37x29xf32> to tensor<37x29xf32>
  %bt = bufferization.to_tensor %bm restrict : memref<29x53xf32> to tensor<29x53xf32>
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<37x53xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<37x53xf32>) -> tensor<37x53xf32>
  %r = linalg.matmul ins(%at, %bt : tensor<37x29xf32>, tensor<29x53xf32>) outs(%f : tensor<37x53xf32>) -> tensor<37x53xf32>
  %e2 = tensor.empty() : tensor<37x53xf32>
  %relu = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%r : tensor<37x53xf32>) outs(%e2 : tensor<37x53xf32>) {
  ^bb0(%in: f32, %o: f32):
    %zero = arith.constant 0.0 : f32
    %y = arith.maximumf %in, %zero : f32
    linalg.yield %y : f32
  } -> tensor<37x53xf32>
  bufferization.materialize_in_destination %relu in restrict writable %out : (tensor<37x53xf32>, memref<37x53xf32>) -> ()
  return
}

func.func @fill_not_init(%a: memref<8x8xf32>, %bm: memref<8x8xf32>, %c: memref<8x8xf32>, %out: memref<8x8xf32>) {
  %at = bufferization.to_tensor %a restrict : memref<8x8xf32> to tensor<8x8xf32>
  %bt = bufferization.to_tensor %bm restrict : memref<8x8xf32> to tensor<8x8xf32>
  %ct = bufferization.to_tensor %c restrict : memref<8x8xf32> to tensor<8x8xf32>
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<8x8xf32>
  %f = linalg.fill ins(%one : f32) outs(%e : tensor<8x8xf32>) -> tensor<8x8xf32>
  %r = linalg.matmul ins(%at, %bt : tensor<8x8xf32>, tensor<8x8xf32>) outs(%ct : tensor<8x8xf32>) -> tensor<8x8xf32>
  bufferization.materialize_in_destination %r in restrict writable %out : (tensor<8x8xf32>, memref<8x8xf32>) -> ()
  return
}
