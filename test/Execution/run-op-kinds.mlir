// Every op kind with a C++ reference, in memref and tensor form, f32 and
// f64, with strides and dilations: each is lowered without tiling, run and
// verified.

// RUN: tiletune-run %s --entry=bmm_f64 --untiled --verify --repeats=1 | FileCheck %s --check-prefix=BMM
// RUN: tiletune-run %s --entry=conv_nhwc --untiled --verify --repeats=1 | FileCheck %s --check-prefix=NHWC
// RUN: tiletune-run %s --entry=conv_nchw --untiled --verify --repeats=1 | FileCheck %s --check-prefix=NCHW
// RUN: tiletune-run %s --entry=matmul_tensor --untiled --verify --repeats=1 | FileCheck %s --check-prefix=TENSOR

// BMM: kernel: @bmm_f64(memref<3x5x9xf64>, memref<3x9x7xf64>, memref<3x5x7xf64>) -> ()
// BMM: op: linalg.batch_matmul, 1.890e+03 FLOP
// BMM: verify: PASSED
func.func @bmm_f64(%A: memref<3x5x9xf64>, %B: memref<3x9x7xf64>,
                   %C: memref<3x5x7xf64>) {
  linalg.batch_matmul ins(%A, %B : memref<3x5x9xf64>, memref<3x9x7xf64>)
                      outs(%C : memref<3x5x7xf64>)
  return
}

// NHWC: op: linalg.conv_2d_nhwc_hwcf, 1.728e+04 FLOP
// NHWC: verify: PASSED
func.func @conv_nhwc(%I: memref<2x11x13x4xf32>, %F: memref<3x3x4x6xf32>,
                     %O: memref<2x4x5x6xf32>) {
  linalg.conv_2d_nhwc_hwcf {strides = dense<[2, 2]> : tensor<2xi64>,
                            dilations = dense<[1, 2]> : tensor<2xi64>}
    ins(%I, %F : memref<2x11x13x4xf32>, memref<3x3x4x6xf32>)
    outs(%O : memref<2x4x5x6xf32>)
  return
}

// NCHW: op: linalg.conv_2d_nchw_fchw, 6.720e+03 FLOP
// NCHW: verify: PASSED
func.func @conv_nchw(%I: memref<1x5x9x9xf64>, %F: memref<4x5x3x2xf64>,
                     %O: memref<1x4x7x4xf64>) {
  linalg.conv_2d_nchw_fchw {strides = dense<[1, 2]> : tensor<2xi64>,
                            dilations = dense<[1, 1]> : tensor<2xi64>}
    ins(%I, %F : memref<1x5x9x9xf64>, memref<4x5x3x2xf64>)
    outs(%O : memref<1x4x7x4xf64>)
  return
}

// The tensor function returns its result as a memref, which the runner
// copies out and verifies.
// TENSOR: kernel: @matmul_tensor(memref<16x8xf32>, memref<8x12xf32>, memref<16x12xf32>) -> (memref<16x12xf32>)
// TENSOR: verify: PASSED
func.func @matmul_tensor(%A: tensor<16x8xf32>, %B: tensor<8x12xf32>,
                         %C: tensor<16x12xf32>) -> tensor<16x12xf32> {
  %r = linalg.matmul ins(%A, %B : tensor<16x8xf32>, tensor<8x12xf32>)
                     outs(%C : tensor<16x12xf32>) -> tensor<16x12xf32>
  return %r : tensor<16x12xf32>
}
