// Convs whose output rows are padded (`pad = {oh = ...}`, an odd number of
// rows tiled by two-row register tiles): the last, partial tile runs in
// place with its register loops peeled. 1x1 and 3x3 windows, a zero
// tensor.pad input, stride 2, FHWC filters (packed), a fused epilogue, the
// filters split over 2 threads, AVX-512 and AVX2 targets; each verified
// against upstream's untiled lowering. The default config pads a small
// map's odd rows for an HWCF filter (test/Transforms/default-config-padded-rows.mlir).

// RUN: tiletune-run %s --entry=pointwise --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=pointwise --mcpu=haswell --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=window --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=fhwc --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=strided --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=defaults --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=defaults --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s

// CHECK: verify: passed against the untiled lowering

// A 1x1 conv on a 7x7 map with a bias and ReLU fused into its tiles.
func.func @pointwise(%in: tensor<1x7x7x48xf32>, %w: tensor<1x1x48x64xf32>, %bias: tensor<64xf32>) -> tensor<1x7x7x64xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x64xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %c = linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cpu, pad = {oh = 8}, parallel = {n = 1, oh = 8, ow = 7, f = 64}, cache = {oh = 8, ow = 7, f = 32, kh = 1, kw = 1, c = 16}, register = {oh = 2, ow = 7, f = 16}, order = [f, oh, ow, kh, kw, c], pack = none>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x7x7x48xf32>, tensor<1x1x48x64xf32>) outs(%init : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(n, h, w, f) -> (n, h, w, f)>, affine_map<(n, h, w, f) -> (f)>, affine_map<(n, h, w, f) -> (n, h, w, f)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%c, %bias : tensor<1x7x7x64xf32>, tensor<64xf32>) outs(%e : tensor<1x7x7x64xf32>) {
  ^bb0(%x: f32, %b: f32, %o: f32):
    %s = arith.addf %x, %b : f32
    %m = arith.maximumf %s, %zero : f32
    linalg.yield %m : f32
  } -> tensor<1x7x7x64xf32>
  return %r : tensor<1x7x7x64xf32>
}

// A 3x3 conv reading a zero tensor.pad, the filters split over 2 threads.
func.func @window(%in: tensor<1x7x7x24xf32>, %w: tensor<3x3x24x64xf32>, %out: tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %in low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%a: index, %b: index, %c: index, %d: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x24xf32> to tensor<1x9x9x24xf32>
  %r = linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cpu, pad = {oh = 8}, parallel = {n = 1, oh = 8, ow = 7, f = 32}, cache = {oh = 4, ow = 7, f = 32, kh = 3, kw = 3, c = 8}, register = {oh = 2, ow = 7, f = 16}, order = [f, oh, ow, kh, kw, c], pack = b>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%p, %w : tensor<1x9x9x24xf32>, tensor<3x3x24x64xf32>) outs(%out : tensor<1x7x7x64xf32>) -> tensor<1x7x7x64xf32>
  return %r : tensor<1x7x7x64xf32>
}

// TOSA's FHWC filter, packed (transposed tile by tile).
func.func @fhwc(%in: tensor<1x9x9x16xf32>, %w: tensor<32x3x3x16xf32>, %out: tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32> {
  %r = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu, pad = {oh = 8}, parallel = {n = 1, oh = 8, ow = 7, f = 32}, cache = {oh = 8, ow = 7, f = 32, kh = 3, kw = 3, c = 16}, register = {oh = 2, ow = 7, f = 32}, order = [f, oh, ow, kh, kw, c], pack = b>, dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x9x9x16xf32>, tensor<32x3x3x16xf32>) outs(%out : tensor<1x7x7x32xf32>) -> tensor<1x7x7x32xf32>
  return %r : tensor<1x7x7x32xf32>
}

// Stride 2, 5 rows padded to 6, a register tile of 5 columns.
func.func @strided(%in: tensor<1x11x11x8xf32>, %w: tensor<3x3x8x16xf32>, %out: tensor<1x5x5x16xf32>) -> tensor<1x5x5x16xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cpu, pad = {oh = 6}, parallel = {n = 1, oh = 6, ow = 5, f = 16}, cache = {oh = 6, ow = 5, f = 16, kh = 3, kw = 3, c = 8}, register = {oh = 2, ow = 5, f = 16}, order = [f, oh, ow, kh, kw, c]>, dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
    ins(%in, %w : tensor<1x11x11x8xf32>, tensor<3x3x8x16xf32>) outs(%out : tensor<1x5x5x16xf32>) -> tensor<1x5x5x16xf32>
  return %r : tensor<1x5x5x16xf32>
}

// ResNet-50's 7x7 1x1 conv, scaled down in channels: the default config
// pads its rows.
func.func @defaults(%in: tensor<1x7x7x64xf32>, %w: tensor<1x1x64x256xf32>, %out: tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32> {
  %r = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
    ins(%in, %w : tensor<1x7x7x64xf32>, tensor<1x1x64x256xf32>) outs(%out : tensor<1x7x7x256xf32>) -> tensor<1x7x7x256xf32>
  return %r : tensor<1x7x7x256xf32>
}
