// RUN: tiletune-opt %s --split-input-file --mlir-very-unsafe-disable-verifier-on-parsing --tiletune-tile-cpu --verify-diagnostics

// The errors of tiletune-tile-cpu itself: a config it cannot apply is
// reported at the op ("cannot apply tiletune.config: <why>") and the pass
// fails. The dialect verifier rejects these configs when the IR is verified,
// so the input is parsed without verification here: the pass must not rely
// on it (IR built in C++ or a config attached without verifying).

func.func @dynamic_shape(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-error @+1 {{cannot apply tiletune.config: operand #0 has a dynamic shape}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}>}
    ins(%a, %b : tensor<?x8xf32>, tensor<8x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}

// -----

func.func @not_tunable(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{cannot apply tiletune.config: 'linalg.add' is not a tunable op}}
  %0 = linalg.add {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @cache_not_dividing(%a: tensor<16x16xf32>, %b: tensor<16x16xf32>, %c: tensor<16x16xf32>) -> tensor<16x16xf32> {
  // expected-error @+1 {{cannot apply tiletune.config: invalid config: tile size 3 of dimension 'm' at level 'cache' does not divide parallel (8)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 16}, cache = {m = 3, n = 16, k = 16}, register = {m = 1, n = 16}>}
    ins(%a, %b : tensor<16x16xf32>, tensor<16x16xf32>) outs(%c : tensor<16x16xf32>) -> tensor<16x16xf32>
  return %0 : tensor<16x16xf32>
}

// -----

func.func @layout_on_matmul(%a: memref<8x8xf32>, %b: memref<8x8xf32>, %c: memref<8x8xf32>) {
  // expected-error @+1 {{cannot apply tiletune.config: 'layout = nhwc' needs a linalg.conv_2d_nchw_fchw on tensors or on buffers}}
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, layout = "nhwc">}
    ins(%a, %b : memref<8x8xf32>, memref<8x8xf32>) outs(%c : memref<8x8xf32>)
  return
}

// -----

func.func @pad_below_size(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{cannot apply tiletune.config: 'pad' of 'm' is below its size}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 4, n = 8}, cache = {m = 4, n = 8, k = 8}, register = {m = 4, n = 8}, pad = {m = 4}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

// The NCHW conv is first converted to NHWC (that succeeds); its config
// cannot pad a conv loop, and the error is reported at the new conv (same
// location).
func.func @pad_conv_after_layout(%i: tensor<1x2x6x6xf32>, %f: tensor<4x2x3x3xf32>, %o: tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32> {
  // expected-error @+1 {{cannot apply tiletune.config: invalid config: 'pad' cannot pad dimension 'ow' of conv_2d_nhwc_hwcf}}
  %0 = linalg.conv_2d_nchw_fchw {tiletune.config = #tiletune.config<cpu, parallel = {n = 1, f = 4, oh = 4, ow = 8}, cache = {f = 4, oh = 4, ow = 8, c = 2, kh = 3, kw = 3}, register = {f = 4, oh = 1, ow = 8}, layout = "nhwc", pad = {ow = 8}>}
    ins(%i, %f : tensor<1x2x6x6xf32>, tensor<4x2x3x3xf32>) outs(%o : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  return %0 : tensor<1x4x4x4xf32>
}

// -----

// Ops after a failing one are still processed, and reported.
func.func @two_errors(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{cannot apply tiletune.config: 'pad' of 'm' is below its size}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 4, n = 8}, cache = {m = 4, n = 8, k = 8}, register = {m = 4, n = 8}, pad = {m = 4}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  // expected-error @+1 {{cannot apply tiletune.config: 'pad' of 'n' is below its size}}
  %1 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 4}, cache = {m = 8, n = 4, k = 8}, register = {m = 8, n = 4}, pad = {n = 4}>}
    ins(%0, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}
