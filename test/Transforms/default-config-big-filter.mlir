// The default config of an FHWC or HWCF conv whose filter is the big
// operand (more than L2 for the thread, an output within half of it:
// ResNet-50's 14x14 and 7x7 stages at batch 1) puts the reductions
// outermost: order [ow, kh, c, kw, f, oh], a packed filter tile of one
// register tile of filters x KH x 32 channels (L1; an HWCF tile is packed
// too), the output's partial sums kept in L2. Only for one thread, register
// tiles of two or more filter vectors and channels with a divisor of 16 to
// 32; the caches are overridden so that small convs qualify. Each form is
// verified against the untiled lowering on the host, with the AVX-512
// config and with the host's own default.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,32K" | FileCheck %s --check-prefix=OUTER
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=znver4 caches=48K,32K" | FileCheck %s --check-prefixes=KEEP,ODD-KEEP
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,32K" | FileCheck %s --check-prefixes=KEEP,ODD-OUTER
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,1M" | FileCheck %s --check-prefixes=KEEP,ODD-KEEP

// OUTER-LABEL: func.func @padded3x3
// OUTER: cache = {c = 32, f = 32, kh = 3, kw = 1, oh = 1, ow = 7}, register = {f = 32, oh = 1, ow = 7}, order = [ow, kh, c, kw, f, oh], pack = b
// A 24 KB filter stays in L2: unchanged.
// OUTER-LABEL: func.func @strided1x1
// OUTER: order = [f, oh, ow, kh, kw, c]
// OUTER-LABEL: func.func @odd
// OUTER: cache = {c = 24, f = 32, kh = 3, kw = 1, oh = 1, ow = 5}, register = {f = 32, oh = 1, ow = 5}, order = [ow, kh, c, kw, f, oh], pack = b
// OUTER-LABEL: func.func @prime_channels
// OUTER: order = [f, oh, ow, kh, kw, c]

// KEEP-LABEL: func.func @padded3x3
// KEEP: order = [f, oh, ow, kh, kw, c]
// KEEP-LABEL: func.func @strided1x1
// KEEP: order = [f, oh, ow, kh, kw, c]
// On AVX2 (8 lanes) @odd's 16 filters are two vectors: reductions outer;
// @padded3x3's one vector of 8 filters keeps the order.
// KEEP-LABEL: func.func @odd
// ODD-KEEP: order = [f, oh, ow, kh, kw, c]
// ODD-OUTER: register = {f = 16, oh = 1, ow = 5}, order = [ow, kh, c, kw, f, oh]
// KEEP-LABEL: func.func @prime_channels
// KEEP: order = [f, oh, ow, kh, kw, c]
// OUTER-LABEL: func.func @hwcf1x1
// OUTER: cache = {c = 32, f = 32, kh = 1, kw = 1, oh = 2, ow = 7}, register = {f = 32, oh = 2, ow = 7}, order = [ow, kh, c, kw, f, oh], pack = b, pad = {oh = 8}
// KEEP-LABEL: func.func @hwcf1x1
// KEEP: order = [f, oh, ow, kh, kw, c], pack = none

// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,32K" -o %t.mlir
// RUN: tiletune-run %t.mlir --entry=padded3x3 --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %t.mlir --entry=odd --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %t.mlir --entry=odd --pipeline="tiletune-lower-cpu{threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=padded3x3 --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=48K,32K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=odd --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,32K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %t.mlir --entry=hwcf1x1 --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %t.mlir --entry=hwcf1x1 --pipeline="tiletune-lower-cpu{threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// EXEC: verify: passed against the untiled lowering

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>

func.func @padded3x3(%x: tensor<1x7x7x64xf32>, %w: tensor<64x3x3x64xf32>, %b: tensor<1x1x1x64xf32>) -> tensor<1x7x7x64xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x64xf32> to tensor<1x9x9x64xf32>
  %e = tensor.empty() : tensor<1x7x7x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x9x9x64xf32>, tensor<64x3x3x64xf32>) outs(%f : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %e2 = tensor.empty() : tensor<1x7x7x64xf32>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %b : tensor<1x7x7x64xf32>, tensor<1x1x1x64xf32>) outs(%e2 : tensor<1x7x7x64xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %m = arith.addf %a, %s : f32
    %q = arith.maximumf %m, %zero : f32
    linalg.yield %q : f32
  } -> tensor<1x7x7x64xf32>
  return %r : tensor<1x7x7x64xf32>
}

func.func @strided1x1(%x: tensor<1x13x13x96xf32>, %w: tensor<64x1x1x96xf32>) -> tensor<1x7x7x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<1x13x13x96xf32>, tensor<64x1x1x96xf32>) outs(%f : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  return %c : tensor<1x7x7x64xf32>
}

func.func @odd(%x: tensor<1x7x7x48xf32>, %w: tensor<96x3x3x48xf32>) -> tensor<1x5x5x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x5x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x96xf32>) -> tensor<1x5x5x96xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x7x7x48xf32>, tensor<96x3x3x48xf32>) outs(%f : tensor<1x5x5x96xf32>) -> tensor<1x5x5x96xf32>
  return %c : tensor<1x5x5x96xf32>
}

func.func @prime_channels(%x: tensor<1x7x7x37xf32>, %w: tensor<96x3x3x37xf32>) -> tensor<1x5x5x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x5x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x96xf32>) -> tensor<1x5x5x96xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x7x7x37xf32>, tensor<96x3x3x37xf32>) outs(%f : tensor<1x5x5x96xf32>) -> tensor<1x5x5x96xf32>
  return %c : tensor<1x5x5x96xf32>
}

// An HWCF filter (linalg's own form) takes the rule too, its tile packed.
func.func @hwcf1x1(%x: tensor<1x7x7x160xf32>, %w: tensor<1x1x160x64xf32>) -> tensor<1x7x7x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x64xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x7x7x160xf32>, tensor<1x1x160x64xf32>) outs(%f : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  return %c : tensor<1x7x7x64xf32>
}
