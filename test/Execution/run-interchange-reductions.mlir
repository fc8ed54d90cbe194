// tiletune-interchange-reductions (part of tiletune-lower-cpu, on by
// default) moves the channel loop of untiled pools (and the n loop of an
// untiled matmul) innermost. Each verified against upstream's untiled
// lowering, with the pass on and off, 1 and 2 threads, AVX-512 and AVX2:
// a 3x3/2 max pool behind its -inf pad (odd map, 13 channels), a global
// average pool (7x7 window, its sum divided), an NCHW pool (left alone)
// and a matmul without a config, of prime sizes.

// RUN: tiletune-run %s --entry=max_pool --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=max_pool --pipeline="tiletune-lower-cpu{threads=1 interchange-reductions=0}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=max_pool --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=2}" --verify-untiled --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=avg_pool --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=avg_pool --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=nchw_pool --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=matmul --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=matmul --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// CHECK: verify: passed against the untiled lowering

func.func @max_pool(%x: tensor<2x15x15x13xf32>) -> tensor<2x7x7x13xf32> {
  %ninf = arith.constant -3.40282347E+38 : f32
  %p = tensor.pad %x low[0, 0, 0, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<2x15x15x13xf32> to tensor<2x16x16x13xf32>
  %e = tensor.empty() : tensor<2x7x7x13xf32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<2x7x7x13xf32>) -> tensor<2x7x7x13xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %o = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%p, %k : tensor<2x16x16x13xf32>, tensor<3x3xf32>) outs(%i0 : tensor<2x7x7x13xf32>) -> tensor<2x7x7x13xf32>
  return %o : tensor<2x7x7x13xf32>
}

func.func @avg_pool(%x: tensor<3x7x7x100xf32>) -> tensor<3x1x1x100xf32> {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 49.0 : f32
  %e = tensor.empty() : tensor<3x1x1x100xf32>
  %i0 = linalg.fill ins(%zero : f32) outs(%e : tensor<3x1x1x100xf32>) -> tensor<3x1x1x100xf32>
  %k = tensor.empty() : tensor<7x7xf32>
  %s = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %k : tensor<3x7x7x100xf32>, tensor<7x7xf32>) outs(%i0 : tensor<3x1x1x100xf32>) -> tensor<3x1x1x100xf32>
  %e2 = tensor.empty() : tensor<3x1x1x100xf32>
  %m = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%s : tensor<3x1x1x100xf32>) outs(%e2 : tensor<3x1x1x100xf32>) {
  ^bb0(%a: f32, %b: f32):
    %d = arith.divf %a, %n : f32
    linalg.yield %d : f32
  } -> tensor<3x1x1x100xf32>
  return %m : tensor<3x1x1x100xf32>
}

func.func @nchw_pool(%x: tensor<1x5x11x11xf32>) -> tensor<1x5x5x5xf32> {
  %ninf = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x5x5x5xf32>
  %i0 = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32>
  %k = tensor.empty() : tensor<3x3xf32>
  %o = linalg.pooling_nchw_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%x, %k : tensor<1x5x11x11xf32>, tensor<3x3xf32>) outs(%i0 : tensor<1x5x5x5xf32>) -> tensor<1x5x5x5xf32>
  return %o : tensor<1x5x5x5xf32>
}

func.func @matmul(%a: tensor<13x29xf32>, %b: tensor<29x37xf32>, %c: tensor<13x37xf32>) -> tensor<13x37xf32> {
  %r = linalg.matmul ins(%a, %b : tensor<13x29xf32>, tensor<29x37xf32>) outs(%c : tensor<13x37xf32>) -> tensor<13x37xf32>
  return %r : tensor<13x37xf32>
}
