// Convs reading a zero tensor.pad (the form
// frontends emit) skip the filter taps that fall on the padding only
// (tiletune-tile-cpu's skip-padding-taps, on by default, bounds the kh/kw
// register loops of each register tile, or, where the taps are cache-level
// loops, skips the register tiles of output rows that read only padding
// for the tap): stride 1 and 2, asymmetric pads
// (TOSA's stride-2 convs), dilation, odd sizes, NHWC/FHWC/NCHW, explicit
// register tiles of one row and one column, 1 and 2 threads, AVX-512 and
// AVX2 targets; each verified against upstream's untiled lowering of the
// same function. A pad value other than zero computes every tap.

// RUN: tiletune-run %s --entry=rows --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=rows --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=columns --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=strided --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=strided --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=dilated --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=dilated --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=nchw --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=nchw --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=ones --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=cache_taps --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=cache_taps --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=cache_taps --mcpu=haswell --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=reference --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=REF
// RUN: tiletune-run %s --entry=reference --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=REF
// RUN: tiletune-opt %s --tiletune-tile-cpu 2>/dev/null | FileCheck %s --check-prefix=IR
// RUN: tiletune-opt %s --tiletune-tile-cpu="skip-padding-taps=0" 2>/dev/null | FileCheck %s --check-prefix=ALLTAPS
// ALLTAPS-NOT: affine.max

// CHECK: verify: passed against the untiled lowering

// The single-op kernel form (the tuner's): the C++ reference pads the
// argument, and the FLOPs count the taps inside the image only
// (2 * 7 * 7 * 32 * 16 * 9 * (19/21)^2 = 3.697e5 of 4.516e5).
// REF: op: linalg.conv_2d_nhwc_fhwc, 3.697e+05 FLOP
// REF: verify: PASSED

// One output row per register tile (7x7 map, kh bounded per row) and, for
// the second conv, one column (kw bounded per column).
// IR-LABEL: func.func @rows
//       IR:   affine.max
//       IR:   affine.min
//       IR:   scf.for %{{.*}} = %{{.*}} to %{{.*}} step %c1 iter_args
func.func @rows(%x: tensor<1x7x7x16xf32>, %f: tensor<32x3x3x16xf32>) -> tensor<1x7x7x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x7x7x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 7, ow = 7, f = 16},
         cache = {oh = 7, ow = 7, f = 16, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 7, f = 16}, pack = b>}
    ins(%p, %f : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}

// IR-LABEL: func.func @columns
//       IR:   affine.max
//       IR:   affine.min
func.func @columns(%x: tensor<2x6x6x8xf32>, %f: tensor<3x3x8x16xf32>) -> tensor<2x6x6x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<2x6x6x8xf32> to tensor<2x8x8x8xf32>
  %e = tensor.empty() : tensor<2x6x6x16xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<2x6x6x16xf32>) -> tensor<2x6x6x16xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 6, ow = 6, f = 16},
         cache = {oh = 6, ow = 6, f = 16, kh = 3, kw = 3, c = 8},
         register = {oh = 3, ow = 1, f = 16}, unroll = 2>}
    ins(%p, %f : tensor<2x8x8x8xf32>, tensor<3x3x8x16xf32>)
    outs(%o : tensor<2x6x6x16xf32>) -> tensor<2x6x6x16xf32>
  return %0 : tensor<2x6x6x16xf32>
}

// Stride 2 with the pad only at the end (14 -> 7), and a 7x7/2 stem-like
// conv with pads 2 and 3 on an odd 19x19 image.
func.func @strided(%x: tensor<1x14x14x16xf32>, %f: tensor<24x3x3x16xf32>,
                   %y: tensor<1x19x19x3xf32>, %g: tensor<8x7x7x3xf32>)
    -> (tensor<1x7x7x24xf32>, tensor<1x9x9x8xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x14x14x16xf32> to tensor<1x15x15x16xf32>
  %e = tensor.empty() : tensor<1x7x7x24xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x24xf32>) -> tensor<1x7x7x24xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%p, %f : tensor<1x15x15x16xf32>, tensor<24x3x3x16xf32>)
    outs(%o : tensor<1x7x7x24xf32>) -> tensor<1x7x7x24xf32>
  %q = tensor.pad %y low[0, 2, 2, 0] high[0, 3, 3, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x19x19x3xf32> to tensor<1x24x24x3xf32>
  %e1 = tensor.empty() : tensor<1x9x9x8xf32>
  %o1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x9x9x8xf32>) -> tensor<1x9x9x8xf32>
  %1 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%q, %g : tensor<1x24x24x3xf32>, tensor<8x7x7x3xf32>)
    outs(%o1 : tensor<1x9x9x8xf32>) -> tensor<1x9x9x8xf32>
  return %0, %1 : tensor<1x7x7x24xf32>, tensor<1x9x9x8xf32>
}

// Dilation 2, pad 2, odd sizes.
func.func @dilated(%x: tensor<1x11x13x5xf32>, %f: tensor<3x3x5x7xf32>) -> tensor<1x11x13x7xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 2, 2, 0] high[0, 2, 2, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x11x13x5xf32> to tensor<1x15x17x5xf32>
  %e = tensor.empty() : tensor<1x11x13x7xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x11x13x7xf32>) -> tensor<1x11x13x7xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<2> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %f : tensor<1x15x17x5xf32>, tensor<3x3x5x7xf32>)
    outs(%o : tensor<1x11x13x7xf32>) -> tensor<1x11x13x7xf32>
  return %0 : tensor<1x11x13x7xf32>
}

func.func @nchw(%x: tensor<1x32x7x7xf32>, %f: tensor<32x32x3x3xf32>) -> tensor<1x32x7x7xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x32x7x7xf32> to tensor<1x32x9x9xf32>
  %e = tensor.empty() : tensor<1x32x7x7xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %f : tensor<1x32x9x9xf32>, tensor<32x32x3x3xf32>)
    outs(%o : tensor<1x32x7x7xf32>) -> tensor<1x32x7x7xf32>
  return %0 : tensor<1x32x7x7xf32>
}

// The taps as cache-level loops (cache kh = kw = 1, as the default config
// of a batch-1 FHWC conv on a small map has them): the register loop over
// the rows keeps its static bounds, and each row runs under an scf.if
// whether its input row of the tap is inside the image. The first conv has
// one-row tiles (pad 1: the first row for kh = 0, the last for kh = 2); the
// second two-row tiles of a 5x5 conv with pad 2 (for kh = 0 the tile of
// rows 0-1 reads only padding; a tile with one row inside runs whole), and
// stride 2 on columns.
// IR-LABEL: func.func @cache_taps
//       IR:   affine.max
//       IR:   affine.min
//       IR:   scf.for %[[ROW:.+]] = %c0 to %c7 step %c1 iter_args
//       IR:     arith.cmpi sge, %[[ROW]]
//       IR:     arith.cmpi slt, %[[ROW]]
//       IR:     scf.if
//       IR:   } else {
func.func @cache_taps(%x: tensor<1x7x7x16xf32>, %f: tensor<32x3x3x16xf32>,
                      %y: tensor<1x6x11x8xf32>, %g: tensor<16x5x5x8xf32>)
    -> (tensor<1x7x7x32xf32>, tensor<1x6x6x16xf32>) {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x7x7x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 7, ow = 7, f = 32},
         cache = {oh = 7, ow = 7, f = 16, kh = 1, kw = 1, c = 8},
         register = {oh = 1, ow = 7, f = 16},
         order = [f, kh, kw, c, oh, ow], pack = b>}
    ins(%p, %f : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %q = tensor.pad %y low[0, 2, 2, 0] high[0, 2, 2, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x6x11x8xf32> to tensor<1x10x15x8xf32>
  %e1 = tensor.empty() : tensor<1x6x6x16xf32>
  %o1 = linalg.fill ins(%zero : f32) outs(%e1 : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %1 = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>,
         strides = dense<[1, 2]> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 6, ow = 6, f = 16},
         cache = {oh = 6, ow = 6, f = 16, kh = 1, kw = 1, c = 8},
         register = {oh = 2, ow = 3, f = 16},
         order = [f, kh, kw, c, oh, ow], pack = b>}
    ins(%q, %g : tensor<1x10x15x8xf32>, tensor<16x5x5x8xf32>)
    outs(%o1 : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %0, %1 : tensor<1x7x7x32xf32>, tensor<1x6x6x16xf32>
}

// Padded with ones: every tap counts, no loop is bounded.
// IR-LABEL: func.func @ones
//   IR-NOT:   affine.max
//       IR:   return
func.func @ones(%x: tensor<1x7x7x16xf32>, %f: tensor<32x3x3x16xf32>) -> tensor<1x7x7x32xf32> {
  %zero = arith.constant 0.0 : f32
  %one = arith.constant 1.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %one : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %e = tensor.empty() : tensor<1x7x7x32xf32>
  %o = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 7, ow = 7, f = 32},
         cache = {oh = 7, ow = 7, f = 32, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 7, f = 16}, pack = b>}
    ins(%p, %f : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}

func.func @reference(%x: tensor<1x7x7x16xf32>, %f: tensor<32x3x3x16xf32>, %o: tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x16xf32> to tensor<1x9x9x16xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 7, ow = 7, f = 16},
         cache = {oh = 7, ow = 7, f = 16, kh = 3, kw = 3, c = 8},
         register = {oh = 1, ow = 7, f = 16}, pack = b>}
    ins(%p, %f : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>)
    outs(%o : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %0 : tensor<1x7x7x32xf32>
}
