// linalg.generic ops that are matmuls, batch_matmuls or 2-D convolutions
// (recognised by upstream's contraction/convolution inference, their maps
// and a mul+add body) get the config of the named op they are and run
// through the same tiling; default configs at 1 and 2 threads and for AVX2,
// verified against the C++ reference of that op.

// RUN: tiletune-run %s --entry=generic_tb --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s --check-prefix=TB
// RUN: tiletune-run %s --entry=generic_tb --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=TB
// RUN: tiletune-run %s --entry=generic_bmm --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=BMM
// RUN: tiletune-run %s --entry=generic_conv --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s --check-prefix=CONV
// RUN: tiletune-run %s --entry=generic_conv --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=CONV
// RUN: tiletune-run %s --entry=generic_conv_fhwc --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=FHWC
// RUN: tiletune-opt %s --tiletune-default-config | FileCheck %s --check-prefix=CONFIG

// TB: op: linalg.matmul, 4.864e+04 FLOP
// TB: verify: PASSED
// BMM: op: linalg.batch_matmul
// BMM: verify: PASSED
// CONV: op: linalg.conv_2d_nhwc_hwcf
// CONV: verify: PASSED
// FHWC: op: linalg.conv_2d_nhwc_fhwc
// FHWC: verify: PASSED

// A generic that is a plain matmul gets the matmul config (loops m, n, k).
// CONFIG-LABEL: func.func @generic_tb
// CONFIG: linalg.generic
// CONFIG-SAME: tiletune.config = #tiletune.config<cpu, parallel = {m =
// CONFIG-LABEL: func.func @generic_conv
// CONFIG: tiletune.config = #tiletune.config<cpu, parallel = {f = {{[0-9]+}}, n = 1, oh =
// CONFIG-LABEL: func.func @not_a_matmul
// CONFIG-NOT: tiletune.config

func.func @generic_tb(%a: tensor<19x32xf32>, %b: tensor<40x32xf32>,
                      %c: tensor<19x40xf32>) -> tensor<19x40xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (n, k)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : tensor<19x32xf32>, tensor<40x32xf32>)
    outs(%c : tensor<19x40xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<19x40xf32>
  return %0 : tensor<19x40xf32>
}

func.func @generic_bmm(%a: memref<2x7x12xf32>, %b: memref<2x12x24xf32>,
                       %c: memref<2x7x24xf32>) {
  linalg.generic {indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>,
                                   affine_map<(b, m, n, k) -> (b, k, n)>,
                                   affine_map<(b, m, n, k) -> (b, m, n)>],
                  iterator_types = ["parallel", "parallel", "parallel", "reduction"]}
    ins(%a, %b : memref<2x7x12xf32>, memref<2x12x24xf32>)
    outs(%c : memref<2x7x24xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %y, %x : f32
    %s = arith.addf %p, %acc : f32
    linalg.yield %s : f32
  }
  return
}

// conv_2d_nhwc_hwcf with strides (2, 1) and dilations (1, 2) as a generic.
func.func @generic_conv(%i: tensor<1x11x13x5xf32>, %f: tensor<3x3x5x8xf32>,
                        %o: tensor<1x5x9x8xf32>) -> tensor<1x5x9x8xf32> {
  %0 = linalg.generic {indexing_maps = [
         affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh * 2 + kh, ow + kw * 2, c)>,
         affine_map<(n, oh, ow, f, kh, kw, c) -> (kh, kw, c, f)>,
         affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
       iterator_types = ["parallel", "parallel", "parallel", "parallel",
                         "reduction", "reduction", "reduction"]}
    ins(%i, %f : tensor<1x11x13x5xf32>, tensor<3x3x5x8xf32>)
    outs(%o : tensor<1x5x9x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<1x5x9x8xf32>
  return %0 : tensor<1x5x9x8xf32>
}

func.func @generic_conv_fhwc(%i: tensor<2x6x6x3xf32>, %f: tensor<5x3x3x3xf32>,
                             %o: tensor<2x4x4x5xf32>) -> tensor<2x4x4x5xf32> {
  %0 = linalg.generic {indexing_maps = [
         affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh + kh, ow + kw, c)>,
         affine_map<(n, oh, ow, f, kh, kw, c) -> (f, kh, kw, c)>,
         affine_map<(n, oh, ow, f, kh, kw, c) -> (n, oh, ow, f)>],
       iterator_types = ["parallel", "parallel", "parallel", "parallel",
                         "reduction", "reduction", "reduction"]}
    ins(%i, %f : tensor<2x6x6x3xf32>, tensor<5x3x3x3xf32>)
    outs(%o : tensor<2x4x4x5xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.addf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<2x4x4x5xf32>
  return %0 : tensor<2x4x4x5xf32>
}

// A contraction whose body is not a plain mul+add (a max) is no matmul.
func.func @not_a_matmul(%a: tensor<8x8xf32>, %b: tensor<8x8xf32>,
                        %c: tensor<8x8xf32>) -> tensor<8x8xf32> {
  %0 = linalg.generic {indexing_maps = [affine_map<(m, n, k) -> (m, k)>,
                                        affine_map<(m, n, k) -> (k, n)>,
                                        affine_map<(m, n, k) -> (m, n)>],
                       iterator_types = ["parallel", "parallel", "reduction"]}
    ins(%a, %b : tensor<8x8xf32>, tensor<8x8xf32>)
    outs(%c : tensor<8x8xf32>) {
  ^bb0(%x: f32, %y: f32, %acc: f32):
    %p = arith.mulf %x, %y : f32
    %s = arith.maximumf %acc, %p : f32
    linalg.yield %s : f32
  } -> tensor<8x8xf32>
  return %0 : tensor<8x8xf32>
}
