// Elementwise epilogues fused into the tiled loop nest (fuse-epilogues):
// every result is compared with the same module lowered untiled and unfused
// by upstream passes. Default configs at 1 and 2 threads and for AVX2;
// shapes with 1, primes and sizes the tiles do not divide; consumers that
// cannot be fused (two uses, a transposed read, a reduction) stay separate
// and still give the right result.

// RUN: tiletune-run %s --entry=mm_bias_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_bias_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_bias_relu --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_row_clamp --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_prime_residual --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_scale --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_scale --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_tosa_bias --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=two_branches --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_bias_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_bias_relu --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_prime_bias_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_tosa_bias_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_tosa_bias_relu --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv_nchw_bias_relu --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_gelu_tanh --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=not_fusable --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=padded_bias_relu --pipeline="tiletune-lower-cpu{fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tokens_scale_bias_residual --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tokens_scale_bias_residual --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tokens_scale_bias_residual --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tokens_gelu --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tokens_gelu --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tokens_gelu --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_silu --pipeline="tiletune-lower-cpu{default-configs=1 threads=2 fuse-epilogues=1}" --num-threads=2 --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mm_silu --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 fuse-epilogues=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-opt %s --pass-pipeline="builtin.module(tiletune-default-config{threads=2},func.func(tiletune-tile-cpu{fuse-epilogues=1 emit-remarks=1}))" -o /dev/null 2>&1 | FileCheck %s --check-prefix=PADDED

// CHECK: verify: passed against the untiled lowering

#id2 = affine_map<(d0, d1) -> (d0, d1)>
#tr2 = affine_map<(d0, d1) -> (d1, d0)>
#col = affine_map<(d0, d1) -> (d1)>
#row = affine_map<(d0, d1) -> (d0)>
#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#bias3 = affine_map<(d0, d1, d2) -> (0, 0, d2)>
#splat3 = affine_map<(d0, d1, d2) -> (0, 0, 0)>
#id4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch4 = affine_map<(d0, d1, d2, d3) -> (d3)>
#ch4nchw = affine_map<(d0, d1, d2, d3) -> (d1)>

// Bias (broadcast along rows) then ReLU, two generics.
func.func @mm_bias_relu(%a: tensor<96x64xf32>, %b: tensor<64x128xf32>, %bias: tensor<128xf32>) -> tensor<96x128xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<96x128xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<96x128xf32>) -> tensor<96x128xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<96x64xf32>, tensor<64x128xf32>) outs(%f : tensor<96x128xf32>) -> tensor<96x128xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<96x128xf32>, tensor<128xf32>) outs(%e : tensor<96x128xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<96x128xf32>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<96x128xf32>) outs(%e : tensor<96x128xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<96x128xf32>
  return %2 : tensor<96x128xf32>
}

// One row (M = 1), a per-row bias, then clamp(0, 6) written in place into
// the matmul's own result (the consumer's init is the matmul result).
func.func @mm_row_clamp(%a: tensor<1x96xf32>, %b: tensor<96x80xf32>, %bias: tensor<1xf32>) -> tensor<1x80xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<1x80xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x80xf32>) -> tensor<1x80xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<1x96xf32>, tensor<96x80xf32>) outs(%f : tensor<1x80xf32>) -> tensor<1x80xf32>
  %1 = linalg.generic {indexing_maps = [#row, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%bias : tensor<1xf32>) outs(%0 : tensor<1x80xf32>) {
  ^bb0(%y: f32, %x: f32):
    %s = arith.addf %x, %y : f32
    %lo = arith.maximumf %s, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<1x80xf32>
  return %1 : tensor<1x80xf32>
}

// Prime sizes (padded by the default config) and a residual add.
func.func @mm_prime_residual(%a: tensor<37x29xf32>, %b: tensor<29x53xf32>, %res: tensor<37x53xf32>) -> tensor<37x53xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x53xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x53xf32>) -> tensor<37x53xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<37x29xf32>, tensor<29x53xf32>) outs(%f : tensor<37x53xf32>) -> tensor<37x53xf32>
  %1 = linalg.add ins(%0, %res : tensor<37x53xf32>, tensor<37x53xf32>) outs(%e : tensor<37x53xf32>) -> tensor<37x53xf32>
  return %1 : tensor<37x53xf32>
}

// batch_matmul then a scaling by a constant (attention's 1/sqrt(d)).
func.func @bmm_scale(%a: tensor<3x40x24xf32>, %b: tensor<3x24x48xf32>) -> tensor<3x40x48xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant 0.125 : f32
  %e = tensor.empty() : tensor<3x40x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<3x40x48xf32>) -> tensor<3x40x48xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x40x24xf32>, tensor<3x24x48xf32>) outs(%f : tensor<3x40x48xf32>) -> tensor<3x40x48xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%0 : tensor<3x40x48xf32>) outs(%e : tensor<3x40x48xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.mulf %x, %scale : f32
    linalg.yield %s : f32
  } -> tensor<3x40x48xf32>
  return %1 : tensor<3x40x48xf32>
}

// TOSA's form: a batch_matmul of batch 1 whose bias (dense constant) and
// scale are broadcast with constant-0 map results for their size-1 dims,
// then a residual add.
#tosa_b = affine_map<(d0, d1, d2) -> (d0, 0, d2)>
func.func @bmm_tosa_bias(%a: tensor<1x20x24xf32>, %b: tensor<1x24x36xf32>, %res: tensor<1x20x36xf32>) -> tensor<1x20x36xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant dense<0.0625> : tensor<1x1x36xf32>
  %bias = arith.constant dense<[[[0.5, -0.25, 1.0, 0.0, 0.125, -1.0, 2.0, 0.75, -0.5, 0.25, 1.5, -2.0,
                                  0.5, -0.25, 1.0, 0.0, 0.125, -1.0, 2.0, 0.75, -0.5, 0.25, 1.5, -2.0,
                                  0.5, -0.25, 1.0, 0.0, 0.125, -1.0, 2.0, 0.75, -0.5, 0.25, 1.5, -2.0]]]> : tensor<1x1x36xf32>
  %e = tensor.empty() : tensor<1x20x36xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x20x36xf32>) -> tensor<1x20x36xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<1x20x24xf32>, tensor<1x24x36xf32>) outs(%f : tensor<1x20x36xf32>) -> tensor<1x20x36xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #tosa_b, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%0, %scale : tensor<1x20x36xf32>, tensor<1x1x36xf32>) outs(%e : tensor<1x20x36xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x20x36xf32>
  %2 = linalg.generic {indexing_maps = [#id3, #tosa_b, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%1, %bias : tensor<1x20x36xf32>, tensor<1x1x36xf32>) outs(%e : tensor<1x20x36xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x20x36xf32>
  %3 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%2, %res : tensor<1x20x36xf32>, tensor<1x20x36xf32>) outs(%e : tensor<1x20x36xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x20x36xf32>
  return %3 : tensor<1x20x36xf32>
}

// Two branches joined by an add (ResNet's downsample blocks): the add joins
// the chain of the later matmul only, whichever the tiling fuses first.
func.func @two_branches(%a: tensor<24x16xf32>, %b: tensor<16x40xf32>, %c: tensor<24x8xf32>, %d: tensor<8x40xf32>, %bias: tensor<40xf32>) -> tensor<24x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<24x40xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<24x40xf32>) -> tensor<24x40xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<24x16xf32>, tensor<16x40xf32>) outs(%f : tensor<24x40xf32>) -> tensor<24x40xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<24x40xf32>, tensor<40xf32>) outs(%e : tensor<24x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<24x40xf32>
  %2 = linalg.matmul ins(%c, %d : tensor<24x8xf32>, tensor<8x40xf32>) outs(%f : tensor<24x40xf32>) -> tensor<24x40xf32>
  %3 = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1, %2 : tensor<24x40xf32>, tensor<24x40xf32>) outs(%e : tensor<24x40xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<24x40xf32>
  return %3 : tensor<24x40xf32>
}

// conv_2d_nhwc_hwcf + per-channel bias + ReLU.
func.func @conv_bias_relu(%in: tensor<1x12x12x16xf32>, %w: tensor<3x3x16x32xf32>, %bias: tensor<32xf32>) -> tensor<1x10x10x32xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x10x10x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x10x10x32xf32>) -> tensor<1x10x10x32xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x12x12x16xf32>, tensor<3x3x16x32xf32>) outs(%f : tensor<1x10x10x32xf32>) -> tensor<1x10x10x32xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<1x10x10x32xf32>, tensor<32xf32>) outs(%e : tensor<1x10x10x32xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x10x10x32xf32>
  return %1 : tensor<1x10x10x32xf32>
}

// Prime sizes everywhere, batch 2, stride 2.
func.func @conv_prime_bias_relu(%in: tensor<2x15x11x5xf32>, %w: tensor<3x3x5x7xf32>, %bias: tensor<7xf32>) -> tensor<2x7x5x7xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x7x5x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x7x5x7xf32>) -> tensor<2x7x5x7xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<2x15x11x5xf32>, tensor<3x3x5x7xf32>) outs(%f : tensor<2x7x5x7xf32>) -> tensor<2x7x5x7xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #ch4, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<2x7x5x7xf32>, tensor<7xf32>) outs(%e : tensor<2x7x5x7xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x7x5x7xf32>
  return %1 : tensor<2x7x5x7xf32>
}

// NCHW: the default config converts the conv to NHWC (transposes around
// it), so the epilogue follows a transpose and is not fused; still right.
func.func @conv_nchw_bias_relu(%in: tensor<1x8x10x10xf32>, %w: tensor<16x8x3x3xf32>, %bias: tensor<16xf32>) -> tensor<1x16x8x8xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x16x8x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
      ins(%in, %w : tensor<1x8x10x10xf32>, tensor<16x8x3x3xf32>) outs(%f : tensor<1x16x8x8xf32>) -> tensor<1x16x8x8xf32>
  %1 = linalg.generic {indexing_maps = [#id4, #ch4nchw, #id4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0, %bias : tensor<1x16x8x8xf32>, tensor<16xf32>) outs(%e : tensor<1x16x8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    %r = arith.maximumf %s, %zero : f32
    linalg.yield %r : f32
  } -> tensor<1x16x8x8xf32>
  return %1 : tensor<1x16x8x8xf32>
}

// GELU, tanh form: x * 0.5 * (1 + tanh(0.79788456 * (x + 0.044715 x^3))).
func.func @mm_gelu_tanh(%a: tensor<64x48xf32>, %b: tensor<48x96xf32>) -> tensor<64x96xf32> {
  %zero = arith.constant 0.0 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %c = arith.constant 0.7978845608 : f32
  %k = arith.constant 0.044715 : f32
  %e = tensor.empty() : tensor<64x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<64x96xf32>) -> tensor<64x96xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<64x48xf32>, tensor<48x96xf32>) outs(%f : tensor<64x96xf32>) -> tensor<64x96xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<64x96xf32>) outs(%e : tensor<64x96xf32>) {
  ^bb0(%x: f32, %o: f32):
    %x3 = arith.mulf %x, %x : f32
    %x3b = arith.mulf %x3, %x : f32
    %t0 = arith.mulf %x3b, %k : f32
    %t1 = arith.addf %x, %t0 : f32
    %t2 = arith.mulf %t1, %c : f32
    %t3 = math.tanh %t2 : f32
    %t4 = arith.addf %t3, %one : f32
    %t5 = arith.mulf %t4, %half : f32
    %y = arith.mulf %x, %t5 : f32
    linalg.yield %y : f32
  } -> tensor<64x96xf32>
  return %1 : tensor<64x96xf32>
}

// Consumers that cannot be fused: a transposed read, a result with two uses
// (both elementwise), a row reduction. Each stays a separate op.
func.func @not_fusable(%a: tensor<32x48xf32>, %b: tensor<48x64xf32>, %c: tensor<64x48xf32>, %d: tensor<48x32xf32>)
    -> (tensor<64x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<32x64xf32>
  %et = tensor.empty() : tensor<64x32xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<32x64xf32>) -> tensor<32x64xf32>
  %0 = linalg.matmul ins(%a, %b : tensor<32x48xf32>, tensor<48x64xf32>) outs(%f : tensor<32x64xf32>) -> tensor<32x64xf32>
  %t = linalg.generic {indexing_maps = [#tr2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0 : tensor<32x64xf32>) outs(%et : tensor<64x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<64x32xf32>
  %e2 = tensor.empty() : tensor<32x32xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %1 = linalg.matmul ins(%a, %d : tensor<32x48xf32>, tensor<48x32xf32>) outs(%f2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %u1 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<32x32xf32>) outs(%e2 : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<32x32xf32>
  %e3 = tensor.empty() : tensor<32x32xf32>
  %u2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<32x32xf32>) outs(%e3 : tensor<32x32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<32x32xf32>
  %e4 = tensor.empty() : tensor<32xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : tensor<32xf32>) -> tensor<32xf32>
  %f5 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %2 = linalg.matmul ins(%a, %d : tensor<32x48xf32>, tensor<48x32xf32>) outs(%f5 : tensor<32x32xf32>) -> tensor<32x32xf32>
  %s = linalg.generic {indexing_maps = [#id2, #row], iterator_types = ["parallel", "reduction"]}
      ins(%2 : tensor<32x32xf32>) outs(%f4 : tensor<32xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %o : f32
    linalg.yield %r : f32
  } -> tensor<32xf32>
  return %t, %u1, %u2, %s : tensor<64x32xf32>, tensor<32x32xf32>, tensor<32x32xf32>, tensor<32xf32>
}

// TOSA's conv: FHWC filter (packed tile by tile by the default config), the
// init a broadcast of the bias (fused into the tiles like a fill), stride 2
// and odd sizes, then ReLU.
func.func @conv_tosa_bias_relu(%in: tensor<2x17x13x6xf32>, %w: tensor<20x3x3x6xf32>, %bias: tensor<20xf32>) -> tensor<2x8x6x20xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x8x6x20xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%bias : tensor<20xf32>) outs(%e : tensor<2x8x6x20xf32>) {
  ^bb0(%x: f32, %o: f32):
    linalg.yield %x : f32
  } -> tensor<2x8x6x20xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
      ins(%in, %w : tensor<2x17x13x6xf32>, tensor<20x3x3x6xf32>) outs(%b : tensor<2x8x6x20xf32>) -> tensor<2x8x6x20xf32>
  %1 = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
      ins(%0 : tensor<2x8x6x20xf32>) outs(%e : tensor<2x8x6x20xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<2x8x6x20xf32>
  return %1 : tensor<2x8x6x20xf32>
}

// A padded config with the chain fused into both versions of the thread
// tile (20 and 17 rows) and into the peeled 21-column cache tiles
// (test/Transforms/tile-cpu-epilogue.mlir shows the structure).
func.func @padded_bias_relu(%a: tensor<37x64xf32>, %b: tensor<64x85xf32>, %bias: tensor<85xf32>) -> tensor<37x85xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<37x85xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<37x85xf32>) -> tensor<37x85xf32>
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 20, n = 96}, cache = {m = 20, n = 32, k = 64}, register = {m = 4, n = 16}, order = [n, k, m], pad = {m = 40, n = 96}>}
    ins(%a, %b : tensor<37x64xf32>, tensor<64x85xf32>) outs(%f : tensor<37x85xf32>) -> tensor<37x85xf32>
  %1 = linalg.generic {indexing_maps = [#id2, #col, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%0, %bias : tensor<37x85xf32>, tensor<85xf32>) outs(%e : tensor<37x85xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<37x85xf32>
  %2 = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%1 : tensor<37x85xf32>) outs(%e : tensor<37x85xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.maximumf %x, %zero : f32
    linalg.yield %r : f32
  } -> tensor<37x85xf32>
  return %2 : tensor<37x85xf32>
}

// A ViT projection as TOSA writes it, on 197 tokens (the default config
// pads them): scale and bias along the columns, then the residual add.
// PADDED: run-epilogue.mlir:[[@LINE+6]]:8: remark: fused 3 elementwise ops
func.func @tokens_scale_bias_residual(%a: tensor<1x197x64xf32>, %b: tensor<1x64x96xf32>, %res: tensor<1x197x96xf32>) -> tensor<1x197x96xf32> {
  %zero = arith.constant 0.0 : f32
  %scale = arith.constant dense<0.125> : tensor<1x1x96xf32>
  %e = tensor.empty() : tensor<1x197x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x197x96xf32>) -> tensor<1x197x96xf32>
  %0 = linalg.batch_matmul ins(%a, %b : tensor<1x197x64xf32>, tensor<1x64x96xf32>) outs(%f : tensor<1x197x96xf32>) -> tensor<1x197x96xf32>
  %1 = linalg.generic {indexing_maps = [#id3, #tosa_b, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%0, %scale : tensor<1x197x96xf32>, tensor<1x1x96xf32>) outs(%e : tensor<1x197x96xf32>) {
  ^bb0(%x: f32, %s: f32, %o: f32):
    %m = arith.mulf %x, %s : f32
    linalg.yield %m : f32
  } -> tensor<1x197x96xf32>
  %2 = linalg.generic {indexing_maps = [#id3, #tosa_b, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%1, %scale : tensor<1x197x96xf32>, tensor<1x1x96xf32>) outs(%e : tensor<1x197x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x197x96xf32>
  %3 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%2, %res : tensor<1x197x96xf32>, tensor<1x197x96xf32>) outs(%e : tensor<1x197x96xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %s = arith.addf %x, %y : f32
    linalg.yield %s : f32
  } -> tensor<1x197x96xf32>
  return %3 : tensor<1x197x96xf32>
}

// A GELU written out as frontends emit it (ViT's and BERT's FFN, TOSA):
// x * sigmoid(c (x + 0.044715 x^3)) reads the bias add x four times, so x
// has several users. They form one elementwise DAG that ends in one value:
// mergeEpilogueDAGs makes it one op, and the chain bias + GELU is fused.
// 37 tokens: the rows are padded.
func.func @tokens_gelu(%a: tensor<1x37x64xf32>, %w: tensor<1x64x96xf32>) -> tensor<1x37x96xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %bias = arith.constant dense<0.25> : tensor<1x1x96xf32>
  %c1 = arith.constant dense<0.044715> : tensor<1x1x1xf32>
  %c2 = arith.constant dense<1.5957691> : tensor<1x1x1xf32>
  %e0 = tensor.empty() : tensor<1x37x96xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x37x96xf32>) -> tensor<1x37x96xf32>
  %mm = linalg.batch_matmul ins(%a, %w : tensor<1x37x64xf32>, tensor<1x64x96xf32>) outs(%f : tensor<1x37x96xf32>) -> tensor<1x37x96xf32>
  %e1 = tensor.empty() : tensor<1x37x96xf32>
  %x = linalg.generic {indexing_maps = [#id3, #bias3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%mm, %bias : tensor<1x37x96xf32>, tensor<1x1x96xf32>) outs(%e1 : tensor<1x37x96xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x37x96xf32>
  %e2 = tensor.empty() : tensor<1x37x96xf32>
  %x2 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %x : tensor<1x37x96xf32>, tensor<1x37x96xf32>) outs(%e2 : tensor<1x37x96xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.mulf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x37x96xf32>
  %e3 = tensor.empty() : tensor<1x37x96xf32>
  %x3 = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x2, %x : tensor<1x37x96xf32>, tensor<1x37x96xf32>) outs(%e3 : tensor<1x37x96xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.mulf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x37x96xf32>
  %e4 = tensor.empty() : tensor<1x37x96xf32>
  %y = linalg.generic {indexing_maps = [#id3, #splat3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x3, %c1, %x : tensor<1x37x96xf32>, tensor<1x1x1xf32>, tensor<1x37x96xf32>) outs(%e4 : tensor<1x37x96xf32>) {
  ^bb0(%in: f32, %c: f32, %xx: f32, %out: f32):
    %s = arith.mulf %in, %c : f32
    %t = arith.addf %xx, %s : f32
    linalg.yield %t : f32
  } -> tensor<1x37x96xf32>
  %e5 = tensor.empty() : tensor<1x37x96xf32>
  %sig = linalg.generic {indexing_maps = [#id3, #splat3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%y, %c2 : tensor<1x37x96xf32>, tensor<1x1x1xf32>) outs(%e5 : tensor<1x37x96xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %s = arith.mulf %in, %c : f32
    %n = arith.negf %s : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<1x37x96xf32>
  %e6 = tensor.empty() : tensor<1x37x96xf32>
  %g = linalg.generic {indexing_maps = [#id3, #id3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %sig : tensor<1x37x96xf32>, tensor<1x37x96xf32>) outs(%e6 : tensor<1x37x96xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %s = arith.mulf %in, %in2 : f32
    linalg.yield %s : f32
  } -> tensor<1x37x96xf32>
  return %g : tensor<1x37x96xf32>
}

// SiLU on the matmul's own result, x * sigmoid(x): the DAG starts at the
// op (its result has two users) and ends in a ReLU-free chain of one op.
func.func @mm_silu(%a: tensor<29x40xf32>, %b: tensor<40x72xf32>) -> tensor<29x72xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<29x72xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<29x72xf32>) -> tensor<29x72xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<29x40xf32>, tensor<40x72xf32>) outs(%f : tensor<29x72xf32>) -> tensor<29x72xf32>
  %e1 = tensor.empty() : tensor<29x72xf32>
  %sig = linalg.generic {indexing_maps = [#id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm : tensor<29x72xf32>) outs(%e1 : tensor<29x72xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %ex = math.exp %n : f32
    %d = arith.addf %ex, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<29x72xf32>
  %e2 = tensor.empty() : tensor<29x72xf32>
  %s = linalg.generic {indexing_maps = [#id2, #id2, #id2], iterator_types = ["parallel", "parallel"]}
      ins(%mm, %sig : tensor<29x72xf32>, tensor<29x72xf32>) outs(%e2 : tensor<29x72xf32>) {
  ^bb0(%in: f32, %in2: f32, %out: f32):
    %m = arith.mulf %in, %in2 : f32
    linalg.yield %m : f32
  } -> tensor<29x72xf32>
  return %s : tensor<29x72xf32>
}
