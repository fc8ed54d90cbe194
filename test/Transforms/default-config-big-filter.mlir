// The default config of an FHWC or HWCF conv whose filter is the big
// operand (more than L2 for the thread, an output within half of it:
// ResNet-50's 14x14 and 7x7 stages at batch 1) puts the reductions
// outermost: order [ow, kh, c, kw, f, oh], a packed filter tile of one
// register tile of filters x KH x 32 channels (L1; an HWCF tile is packed
// too), the output's partial sums kept in L2. Only for one thread, register
// tiles of two or more filter vectors and channels with a divisor of 16 to
// 32; the caches are overridden so that small convs qualify.
// A batch-1 FHWC conv with a window larger than 1x1 whose map x one register
// tile of filters fits an eighth of L2 and whose filter takes at least a
// quarter of it reads its filter one tap at a time instead, at any thread
// count: order [f, kh, kw, c, oh, ow], cache steps of one tap x up to 64
// channels x one register tile of filters over the whole map, threads
// splitting the filters (@odd and @prime_channels with a 32 KiB L2;
// @padded3x3 with AVX2's 8-filter tile; with a 1 MiB L2 the filters of
// 150-170 KB stay in L2). Each form is verified against the untiled
// lowering on the host, with the AVX-512 config and with the host's own
// default.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,32K" | FileCheck %s --check-prefix=OUTER
// RUN: tiletune-opt %s --tiletune-default-config="threads=2 mcpu=znver4 caches=48K,32K" | FileCheck %s --check-prefix=KEEP
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=haswell caches=32K,32K" | FileCheck %s --check-prefix=HSW
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,1M" | FileCheck %s --check-prefix=BIG
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,512K" | FileCheck %s --check-prefix=WIDE

// OUTER-LABEL: func.func @padded3x3
// OUTER: cache = {c = 32, f = 32, kh = 3, kw = 1, oh = 1, ow = 7}, register = {f = 32, oh = 1, ow = 7}, order = [ow, kh, c, kw, f, oh], pack = b
// A 24 KB filter stays in L2: unchanged.
// OUTER-LABEL: func.func @strided1x1
// OUTER: order = [f, oh, ow, kh, kw, c]
// OUTER-LABEL: func.func @odd
// OUTER: parallel = {f = 96, n = 1, oh = 5, ow = 5}, cache = {c = 48, f = 32, kh = 1, kw = 1, oh = 5, ow = 5}, register = {f = 32, oh = 1, ow = 5}, order = [f, kh, kw, c, oh, ow], pack = b
// OUTER-LABEL: func.func @prime_channels
// OUTER: cache = {c = 37, f = 32, kh = 1, kw = 1, oh = 5, ow = 5}, register = {f = 32, oh = 1, ow = 5}, order = [f, kh, kw, c, oh, ow], pack = b
// Three channels (ViT's patch embedding): steps of 3 multiply-adds per
// partial sum, not taken.
// OUTER-LABEL: func.func @few_channels
// OUTER: order = [f, oh, ow, kh, kw, c]
// OUTER-LABEL: func.func @hwcf1x1
// OUTER: cache = {c = 32, f = 32, kh = 1, kw = 1, oh = 2, ow = 7}, register = {f = 32, oh = 2, ow = 7}, order = [ow, kh, c, kw, f, oh], pack = b, pad = {oh = 8}

// Two threads: @odd's 3 tiles of 32 filters do not split in two.
// KEEP-LABEL: func.func @padded3x3
// KEEP: order = [f, oh, ow, kh, kw, c]
// KEEP-LABEL: func.func @strided1x1
// KEEP: order = [f, oh, ow, kh, kw, c]
// KEEP-LABEL: func.func @odd
// KEEP: order = [f, oh, ow, kh, kw, c]
// KEEP-LABEL: func.func @prime_channels
// KEEP: order = [f, oh, ow, kh, kw, c]
// KEEP-LABEL: func.func @hwcf1x1
// KEEP: order = [f, oh, ow, kh, kw, c], pack = none

// AVX2 (8 lanes): @padded3x3's one vector of 8 filters and @odd's two
// vectors of 8 read tap by tap; @hwcf1x1 (one vector) keeps the order,
// its filter tile packed (8 filters are half a cache line).
// HSW-LABEL: func.func @padded3x3
// HSW: register = {f = 8, oh = 1, ow = 7}, order = [f, kh, kw, c, oh, ow], pack = b
// HSW-LABEL: func.func @strided1x1
// HSW: order = [f, oh, ow, kh, kw, c]
// HSW-LABEL: func.func @odd
// HSW: register = {f = 16, oh = 1, ow = 5}, order = [f, kh, kw, c, oh, ow]
// HSW-LABEL: func.func @hwcf1x1
// HSW: order = [f, oh, ow, kh, kw, c], pack = b

// BIG-LABEL: func.func @padded3x3
// BIG: order = [f, oh, ow, kh, kw, c]
// BIG-LABEL: func.func @strided1x1
// BIG: order = [f, oh, ow, kh, kw, c]
// BIG-LABEL: func.func @odd
// BIG: order = [f, oh, ow, kh, kw, c]
// BIG-LABEL: func.func @hwcf1x1
// BIG: order = [f, oh, ow, kh, kw, c], pack = none

// 1024 filters: the output pixels lie 4 KiB apart, and two rows of 7 would
// put 14 lines of the partial sums that each channel chunk loads and
// stores in one L1 set. One row (the rows stay padded to 8).
// WIDE-LABEL: func.func @hwcf1x1_wide
// WIDE: cache = {c = 32, f = 32, kh = 1, kw = 1, oh = 1, ow = 7}, register = {f = 32, oh = 1, ow = 7}, order = [ow, kh, c, kw, f, oh], pack = b, pad = {oh = 8}

// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,32K" -o %t.mlir
// RUN: tiletune-run %t.mlir --entry=padded3x3 --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %t.mlir --entry=odd --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %t.mlir --entry=odd --pipeline="tiletune-lower-cpu{threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=padded3x3 --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=48K,32K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=odd --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,32K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %t.mlir --entry=hwcf1x1 --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=padded3x3 --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 caches=48K,128K}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %s --entry=padded3x3 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 caches=32K,32K}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-run %t.mlir --entry=hwcf1x1 --pipeline="tiletune-lower-cpu{threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
// RUN: tiletune-opt %s --tiletune-default-config="threads=1 mcpu=znver4 caches=48K,512K" -o %t.wide.mlir
// RUN: tiletune-run %t.wide.mlir --entry=hwcf1x1_wide --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s --check-prefix=EXEC
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

func.func @few_channels(%x: tensor<1x80x80x3xf32>, %w: tensor<96x16x16x3xf32>) -> tensor<1x5x5x96xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x5x5x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x96xf32>) -> tensor<1x5x5x96xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<16> : tensor<2xi64>} ins(%x, %w : tensor<1x80x80x3xf32>, tensor<96x16x16x3xf32>) outs(%f : tensor<1x5x5x96xf32>) -> tensor<1x5x5x96xf32>
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

// Its filter's 1024 output channels lie 4 KiB apart in the output: one row.
func.func @hwcf1x1_wide(%x: tensor<1x7x7x160xf32>, %w: tensor<1x1x160x1024xf32>) -> tensor<1x7x7x1024xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x1024xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x1024xf32>) -> tensor<1x7x7x1024xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x7x7x160xf32>, tensor<1x1x160x1024xf32>) outs(%f : tensor<1x7x7x1024xf32>) -> tensor<1x7x7x1024xf32>
  return %c : tensor<1x7x7x1024xf32>
}
