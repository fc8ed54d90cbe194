// RUN: tiletune-opt %s --split-input-file --verify-diagnostics

// Configs whose sizes do not fit the op: a pad far beyond the size (this one
// used to verify and then crash the compiled kernel, which allocated
// 2^34-row operands), and any config on an op that computes nothing.

func.func @pad_far_beyond_size(%a: tensor<64x64xf32>, %b: tensor<64x64xf32>, %c: tensor<64x64xf32>) -> tensor<64x64xf32> {
  // expected-error @+1 {{'pad' size 17179869184 of dimension 'm' is too large for its size (64): padding may at most double a loop or add 1024 to it (at most 1088)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 17179869184, n = 64}, cache = {m = 64, n = 64, k = 64}, register = {m = 8, n = 32}, pad = {m = 17179869184}>}
    ins(%a, %b : tensor<64x64xf32>, tensor<64x64xf32>) outs(%c : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %0 : tensor<64x64xf32>
}

// -----

// Just past the bound of a large loop: twice the size.
func.func @pad_more_than_double(%a: tensor<2048x8xf32>, %b: tensor<8x8xf32>, %c: tensor<2048x8xf32>) -> tensor<2048x8xf32> {
  // expected-error @+1 {{'pad' size 4104 of dimension 'm' is too large for its size (2048): padding may at most double a loop or add 1024 to it (at most 4096)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 4104, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, pad = {m = 4104}>}
    ins(%a, %b : tensor<2048x8xf32>, tensor<8x8xf32>) outs(%c : tensor<2048x8xf32>) -> tensor<2048x8xf32>
  return %0 : tensor<2048x8xf32>
}

// -----

// At the bound: legal.
func.func @pad_at_bound(%a: tensor<2048x8xf32>, %b: tensor<8x8xf32>, %c: tensor<2048x8xf32>) -> tensor<2048x8xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 4096, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, pad = {m = 4096}>}
    ins(%a, %b : tensor<2048x8xf32>, tensor<8x8xf32>) outs(%c : tensor<2048x8xf32>) -> tensor<2048x8xf32>
  return %0 : tensor<2048x8xf32>
}

// -----

// The largest int64 size: no overflow in the bound.
func.func @pad_int64_max(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>, %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  // expected-error @+1 {{'pad' size 9223372036854775807 of dimension 'k' is too large for its size (8)}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 8, n = 8}, cache = {m = 8, n = 8, k = 8}, register = {m = 8, n = 8}, pad = {k = 9223372036854775807}>}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>) outs(%c : tensor<8x8xf32>) -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}

// -----

func.func @config_on_empty_op(%a: tensor<0x8xf32>, %b: tensor<8x8xf32>, %c: tensor<0x8xf32>) -> tensor<0x8xf32> {
  // expected-error @+1 {{'tiletune.config' cannot be applied: loop 'm' has size 0: the op computes nothing, there is nothing to tile or tune}}
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 1, n = 8}, cache = {m = 1, n = 8, k = 8}, register = {m = 1, n = 8}>}
    ins(%a, %b : tensor<0x8xf32>, tensor<8x8xf32>) outs(%c : tensor<0x8xf32>) -> tensor<0x8xf32>
  return %0 : tensor<0x8xf32>
}
