// tiletune-pads-in-place (part of tiletune-lower-cpu, on by default): the
// producer of a padded tensor writes into the padded buffer and only the
// border is filled. ResNet's two forms: a conv with its fused epilogue
// before the -inf pad of a 3x3/2 max pool, and a 1x1 conv before the zero
// pad of a 3x3 conv (whose taps on the padding are skipped); also a pad on
// all four sides of an odd-sized map read by two consumers, and a pad of an
// argument (left as a copy). Each verified against upstream's untiled
// lowering, with the pass on and off, 1 and 2 threads, AVX-512 and AVX2.

// RUN: tiletune-run %s --entry=pool --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=pool --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=pool --pipeline="tiletune-lower-cpu{default-configs=1 threads=1 pads-in-place=0}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv3x3 --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=conv3x3 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=odd --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=odd --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=argument --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// CHECK: verify: passed against the untiled lowering

// The IR before bufferization: no pad left but the argument's.
// RUN: tiletune-opt %s --tiletune-default-config="threads=1" --tiletune-tile-cpu --canonicalize --cse --tiletune-pads-in-place | FileCheck %s --check-prefix=IR
// IR-LABEL: func.func @pool
//   IR-NOT: tensor.pad
// IR-LABEL: func.func @conv3x3
//   IR-NOT: tensor.pad
// IR-LABEL: func.func @odd
//   IR-NOT: tensor.pad
// IR-LABEL: func.func @argument
//       IR: tensor.pad %arg0

#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>

func.func @pool(%x: tensor<2x23x23x3xf32>, %w: tensor<16x3x3x3xf32>, %s: tensor<1x1x1x16xf32>) -> tensor<2x5x5x16xf32> {
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<2x11x11x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x11x11x16xf32>) -> tensor<2x11x11x16xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%x, %w : tensor<2x23x23x3xf32>, tensor<16x3x3x3xf32>) outs(%f : tensor<2x11x11x16xf32>) -> tensor<2x11x11x16xf32>
  %e2 = tensor.empty() : tensor<2x11x11x16xf32>
  %r = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %s : tensor<2x11x11x16xf32>, tensor<1x1x1x16xf32>) outs(%e2 : tensor<2x11x11x16xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %m = arith.mulf %a, %b : f32
    %q = arith.maximumf %m, %zero : f32
    linalg.yield %q : f32
  } -> tensor<2x11x11x16xf32>
  %p = tensor.pad %r low[0, 0, 0, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<2x11x11x16xf32> to tensor<2x12x12x16xf32>
  %e3 = tensor.empty() : tensor<2x5x5x16xf32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e3 : tensor<2x5x5x16xf32>) -> tensor<2x5x5x16xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %o = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %k : tensor<2x12x12x16xf32>, tensor<3x3xf32>) outs(%i0 : tensor<2x5x5x16xf32>) -> tensor<2x5x5x16xf32>
  return %o : tensor<2x5x5x16xf32>
}

func.func @conv3x3(%x: tensor<2x9x9x32xf32>, %w1: tensor<48x1x1x32xf32>, %w2: tensor<40x3x3x48xf32>) -> tensor<2x9x9x40xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x9x9x48xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<2x9x9x48xf32>) -> tensor<2x9x9x48xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w1 : tensor<2x9x9x32xf32>, tensor<48x1x1x32xf32>) outs(%f : tensor<2x9x9x48xf32>) -> tensor<2x9x9x48xf32>
  %e2 = tensor.empty() : tensor<2x9x9x48xf32>
  %r = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<2x9x9x48xf32>) outs(%e2 : tensor<2x9x9x48xf32>) {
  ^bb0(%a: f32, %o: f32):
    %q = arith.maximumf %a, %zero : f32
    linalg.yield %q : f32
  } -> tensor<2x9x9x48xf32>
  %p = tensor.pad %r low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<2x9x9x48xf32> to tensor<2x11x11x48xf32>
  %e3 = tensor.empty() : tensor<2x9x9x40xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<2x9x9x40xf32>) -> tensor<2x9x9x40xf32>
  %o = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<2x11x11x48xf32>, tensor<40x3x3x48xf32>) outs(%f3 : tensor<2x9x9x40xf32>) -> tensor<2x9x9x40xf32>
  return %o : tensor<2x9x9x40xf32>
}

// A 7x7 map of 5 channels padded on all sides (by 2 and 1), read by a conv
// and by an add of the unpadded value.
func.func @odd(%x: tensor<1x7x7x5xf32>, %w: tensor<7x1x1x5xf32>, %w2: tensor<6x3x3x7xf32>) -> (tensor<1x8x8x6xf32>, tensor<1x7x7x7xf32>) {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x7x7xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x7x7xf32>) -> tensor<1x7x7x7xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x7x7x5xf32>, tensor<7x1x1x5xf32>) outs(%f : tensor<1x7x7x7xf32>) -> tensor<1x7x7x7xf32>
  %p = tensor.pad %c low[0, 2, 1, 0] high[0, 1, 2, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x7x7x7xf32> to tensor<1x10x10x7xf32>
  %e3 = tensor.empty() : tensor<1x8x8x6xf32>
  %f3 = linalg.fill ins(%zero : f32) outs(%e3 : tensor<1x8x8x6xf32>) -> tensor<1x8x8x6xf32>
  %o = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w2 : tensor<1x10x10x7xf32>, tensor<6x3x3x7xf32>) outs(%f3 : tensor<1x8x8x6xf32>) -> tensor<1x8x8x6xf32>
  %e4 = tensor.empty() : tensor<1x7x7x7xf32>
  %d = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c : tensor<1x7x7x7xf32>) outs(%e4 : tensor<1x7x7x7xf32>) {
  ^bb0(%a: f32, %z: f32):
    %q = arith.addf %a, %a : f32
    linalg.yield %q : f32
  } -> tensor<1x7x7x7xf32>
  return %o, %d : tensor<1x8x8x6xf32>, tensor<1x7x7x7xf32>
}

func.func @argument(%x: tensor<1x6x6x8xf32>, %w: tensor<16x3x3x8xf32>) -> tensor<1x6x6x16xf32> {
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x6x6x8xf32> to tensor<1x8x8x8xf32>
  %e = tensor.empty() : tensor<1x6x6x16xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  %o = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%p, %w : tensor<1x8x8x8xf32>, tensor<16x3x3x8xf32>) outs(%f : tensor<1x6x6x16xf32>) -> tensor<1x6x6x16xf32>
  return %o : tensor<1x6x6x16xf32>
}
