// An NHWC conv computed as its im2col GEMM moves its init's producer and
// its elementwise epilogue into the GEMM's [N*OH*OW][F] space, where they
// are fused like a matmul's (convertConvToIm2col, finishNhwcIm2col); an
// unstrided 1x1 conv reads its input in place as the GEMM's A. Each entry
// runs at 1 and 2 threads and on AVX2, against the untiled lowering.
// RUN: for e in fhwc_1x1_chain hwcf_1x1_odd_chain hwcf_strided_chain hwcf_1x1_buffers; do \
// RUN:   tiletune-run %s --entry=$e --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1; \
// RUN:   tiletune-run %s --entry=$e --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 --num-threads=2; \
// RUN:   tiletune-run %s --entry=$e --pipeline=tiletune-lower-cpu --verify-untiled --repeats=1 --mcpu=haswell; \
// RUN: done | FileCheck %s
// CHECK-COUNT-12: verify: passed against the untiled lowering
// RUN: tiletune-opt %s --tiletune-tile-cpu=emit-remarks 2>&1 >/dev/null | FileCheck %s --check-prefix=REMARK
// REMARK-COUNT-3: remark: fused {{[12]}} elementwise op

// Bias broadcast init, TOSA's per-channel scale (constant 0s), a residual
// add and a ReLU; the threads split the pixels (m = N*OH*OW = 2*4*14).
func.func @fhwc_1x1_chain(%i: tensor<2x4x14x32xf32>, %f: tensor<24x1x1x32xf32>,
                          %bias: tensor<24xf32>, %scale: tensor<1x1x1x24xf32>,
                          %res: tensor<2x4x14x24xf32>) -> tensor<2x4x14x24xf32> {
  %e = tensor.empty() : tensor<2x4x14x24xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%bias : tensor<24xf32>) outs(%e : tensor<2x4x14x24xf32>) {
  ^bb0(%x: f32, %y: f32):
    linalg.yield %x : f32
  } -> tensor<2x4x14x24xf32>
  %0 = linalg.conv_2d_nhwc_fhwc {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 4, ow = 14, f = 24},
         cache = {oh = 2, ow = 14, f = 24, kh = 1, kw = 1, c = 16},
         register = {oh = 2, ow = 2, f = 8}, compute = im2col_rpmmv>}
    ins(%i, %f : tensor<2x4x14x32xf32>, tensor<24x1x1x32xf32>)
    outs(%b : tensor<2x4x14x24xf32>) -> tensor<2x4x14x24xf32>
  %e2 = tensor.empty() : tensor<2x4x14x24xf32>
  %s = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (0, 0, 0, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%0, %scale : tensor<2x4x14x24xf32>, tensor<1x1x1x24xf32>) outs(%e2 : tensor<2x4x14x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %m = arith.mulf %x, %y : f32
    linalg.yield %m : f32
  } -> tensor<2x4x14x24xf32>
  %e3 = tensor.empty() : tensor<2x4x14x24xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%s, %res : tensor<2x4x14x24xf32>, tensor<2x4x14x24xf32>) outs(%e3 : tensor<2x4x14x24xf32>) {
  ^bb0(%x: f32, %y: f32, %o: f32):
    %z = arith.constant 0.0 : f32
    %a = arith.addf %x, %y : f32
    %m = arith.maximumf %a, %z : f32
    linalg.yield %m : f32
  } -> tensor<2x4x14x24xf32>
  return %r : tensor<2x4x14x24xf32>
}

// Prime sizes, a zero fill init, a per-channel scale read as TOSA does at
// batch 1 ((n, 0, 0, f)), a scalar shift and a clamp.
func.func @hwcf_1x1_odd_chain(%i: tensor<1x7x13x11xf32>, %f: tensor<1x1x11x14xf32>,
                              %scale: tensor<1x1x1x14xf32>, %shift: tensor<1x1x1x1xf32>) -> tensor<1x7x13x14xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x7x13x14xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e : tensor<1x7x13x14xf32>) -> tensor<1x7x13x14xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 7, ow = 13, f = 7},
         cache = {oh = 7, ow = 13, f = 7, kh = 1, kw = 1, c = 11},
         register = {oh = 1, ow = 13, f = 7}, compute = im2col_dpmm>}
    ins(%i, %f : tensor<1x7x13x11xf32>, tensor<1x1x11x14xf32>)
    outs(%z : tensor<1x7x13x14xf32>) -> tensor<1x7x13x14xf32>
  %e2 = tensor.empty() : tensor<1x7x13x14xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, 0, 0, d)>, affine_map<(a, b, c, d) -> (0, 0, 0, 0)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%0, %scale, %shift : tensor<1x7x13x14xf32>, tensor<1x1x1x14xf32>, tensor<1x1x1x1xf32>) outs(%e2 : tensor<1x7x13x14xf32>) {
  ^bb0(%x: f32, %s: f32, %t: f32, %o: f32):
    %lo = arith.constant -0.5 : f32
    %hi = arith.constant 0.5 : f32
    %xs = arith.mulf %x, %s : f32
    %xt = arith.addf %xs, %t : f32
    %a = arith.maximumf %xt, %lo : f32
    %m = arith.minimumf %a, %hi : f32
    linalg.yield %m : f32
  } -> tensor<1x7x13x14xf32>
  return %r : tensor<1x7x13x14xf32>
}

// A strided 3x3 conv (its windows copied) with a ReLU.
func.func @hwcf_strided_chain(%i: tensor<1x9x9x4xf32>, %f: tensor<3x3x4x8xf32>,
                              %o: tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32> {
  %0 = linalg.conv_2d_nhwc_hwcf {strides = dense<2> : tensor<2xi64>,
         tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 2, ow = 4, f = 8},
         cache = {oh = 2, ow = 4, f = 8, kh = 3, kw = 3, c = 4},
         register = {oh = 1, ow = 4, f = 8}, im2col = true>}
    ins(%i, %f : tensor<1x9x9x4xf32>, tensor<3x3x4x8xf32>)
    outs(%o : tensor<1x4x4x8xf32>) -> tensor<1x4x4x8xf32>
  %e = tensor.empty() : tensor<1x4x4x8xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(a, b, c, d) -> (a, b, c, d)>, affine_map<(a, b, c, d) -> (a, b, c, d)>],
                       iterator_types = ["parallel", "parallel", "parallel", "parallel"]}
    ins(%0 : tensor<1x4x4x8xf32>) outs(%e : tensor<1x4x4x8xf32>) {
  ^bb0(%x: f32, %y: f32):
    %z = arith.constant 0.0 : f32
    %m = arith.maximumf %x, %z : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x8xf32>
  return %r : tensor<1x4x4x8xf32>
}

// On buffers: the input read in place, no epilogue.
func.func @hwcf_1x1_buffers(%i: memref<2x5x7x9xf64>, %f: memref<1x1x9x10xf64>,
                            %o: memref<2x5x7x10xf64>) {
  linalg.conv_2d_nhwc_hwcf {tiletune.config = #tiletune.config<cpu,
         parallel = {n = 1, oh = 5, ow = 7, f = 10},
         cache = {oh = 5, ow = 7, f = 10, kh = 1, kw = 1, c = 3},
         register = {oh = 1, ow = 7, f = 5}, compute = im2col_rpmmv>}
    ins(%i, %f : memref<2x5x7x9xf64>, memref<1x1x9x10xf64>)
    outs(%o : memref<2x5x7x10xf64>)
  return
}
