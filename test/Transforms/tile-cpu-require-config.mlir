// RUN: tiletune-opt %s --split-input-file --tiletune-tile-cpu="require-config" --verify-diagnostics

// With require-config, a tunable op without a config is an error; ops that
// are not tunable are fine.

func.func @missing(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{tunable op has no tiletune.config (require-config is set)}}
  %0 = linalg.matmul ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  %1 = linalg.add ins(%0, %c : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %1 : tensor<8x8xf32>
}

// -----

func.func @missing_conv(%i: memref<1x4x4x2xf32>, %f: memref<3x3x2x4xf32>, %o: memref<1x2x2x4xf32>) {
  // expected-error @+1 {{tunable op has no tiletune.config (require-config is set)}}
  linalg.conv_2d_nhwc_hwcf ins(%i, %f : memref<1x4x4x2xf32>, memref<3x3x2x4xf32>) outs(%o : memref<1x2x2x4xf32>)
  return
}

// -----

// Dynamic shapes are not tunable: no error, a remark saying why.
func.func @dynamic(%a: tensor<?x8xf32>, %b: tensor<8x8xf32>, %c: tensor<?x8xf32>) -> tensor<?x8xf32> {
  // expected-remark @+1 {{left untouched: operand #0 has a dynamic shape}}
  %0 = linalg.matmul ins(%a, %b : tensor<?x8xf32>, tensor<8x8xf32>) outs(%c : tensor<?x8xf32>) -> tensor<?x8xf32>
  return %0 : tensor<?x8xf32>
}
