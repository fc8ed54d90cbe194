// The reductions tiletune-lower-cpu leaves untiled (softmax, layer norm) are
// summed in vector lanes (tiletune-reassociate-reductions, on by default):
// the results match the in-order sums of the untiled lowering within the
// tolerance of a reduction of that length. Lengths 1, a prime and a multiple
// of the vector width; AVX-512 and AVX2.
// RUN: tiletune-run %s --entry=softmax --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=softmax --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=layer_norm --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=layer_norm --mcpu=haswell --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=sums --pipeline="tiletune-lower-cpu{threads=1}" --verify-untiled --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=sums --pipeline="tiletune-lower-cpu{threads=1 reassociate-reductions=0}" --verify-untiled --repeats=1 | FileCheck %s
// CHECK: verify: passed against the untiled lowering

#id3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1)>

// Softmax over the last dim of 12 x 128 x 128 (BERT's attention scores).
func.func @softmax(%x: tensor<12x128x128xf32>) -> tensor<12x128x128xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e2 = tensor.empty() : tensor<12x128xf32>
  %e3 = tensor.empty() : tensor<12x128x128xf32>
  %mi = linalg.fill ins(%ninf : f32) outs(%e2 : tensor<12x128xf32>) -> tensor<12x128xf32>
  %max = linalg.reduce ins(%x : tensor<12x128x128xf32>) outs(%mi : tensor<12x128xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %m = arith.maximumf %a, %b : f32
      linalg.yield %m : f32
    }
  %ex = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %max : tensor<12x128x128xf32>, tensor<12x128xf32>) outs(%e3 : tensor<12x128x128xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<12x128x128xf32>
  %si = linalg.fill ins(%zero : f32) outs(%e2 : tensor<12x128xf32>) -> tensor<12x128xf32>
  %sum = linalg.reduce ins(%ex : tensor<12x128x128xf32>) outs(%si : tensor<12x128xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %r = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%ex, %sum : tensor<12x128x128xf32>, tensor<12x128xf32>) outs(%e3 : tensor<12x128x128xf32>) {
  ^bb0(%a: f32, %s: f32, %o: f32):
    %q = arith.divf %a, %s : f32
    linalg.yield %q : f32
  } -> tensor<12x128x128xf32>
  return %r : tensor<12x128x128xf32>
}

// Mean and variance over 767 channels (a prime-free odd length).
func.func @layer_norm(%x: tensor<1x97x767xf32>) -> (tensor<1x97xf32>, tensor<1x97xf32>) {
  %zero = arith.constant 0.0 : f32
  %n = arith.constant 767.0 : f32
  %e2 = tensor.empty() : tensor<1x97xf32>
  %e3 = tensor.empty() : tensor<1x97x767xf32>
  %z = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x97xf32>) -> tensor<1x97xf32>
  %sum = linalg.reduce ins(%x : tensor<1x97x767xf32>) outs(%z : tensor<1x97xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %mean = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]}
      ins(%sum : tensor<1x97xf32>) outs(%e2 : tensor<1x97xf32>) {
  ^bb0(%s: f32, %o: f32):
    %m = arith.divf %s, %n : f32
    linalg.yield %m : f32
  } -> tensor<1x97xf32>
  %sq = linalg.generic {indexing_maps = [#id3, #row3, #id3], iterator_types = ["parallel", "parallel", "parallel"]}
      ins(%x, %mean : tensor<1x97x767xf32>, tensor<1x97xf32>) outs(%e3 : tensor<1x97x767xf32>) {
  ^bb0(%a: f32, %m: f32, %o: f32):
    %d = arith.subf %a, %m : f32
    %d2 = arith.mulf %d, %d : f32
    linalg.yield %d2 : f32
  } -> tensor<1x97x767xf32>
  %var = linalg.reduce ins(%sq : tensor<1x97x767xf32>) outs(%z : tensor<1x97xf32>) dimensions = [2]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %mean, %var : tensor<1x97xf32>, tensor<1x97xf32>
}

// Sums over lengths 1, 13 and 64, and over the outer dim.
func.func @sums(%x: tensor<64x13xf32>, %y: tensor<5x1xf32>) -> (tensor<64xf32>, tensor<13xf32>, tensor<5xf32>) {
  %zero = arith.constant 0.0 : f32
  %e64 = tensor.empty() : tensor<64xf32>
  %e13 = tensor.empty() : tensor<13xf32>
  %e5 = tensor.empty() : tensor<5xf32>
  %z64 = linalg.fill ins(%zero : f32) outs(%e64 : tensor<64xf32>) -> tensor<64xf32>
  %z13 = linalg.fill ins(%zero : f32) outs(%e13 : tensor<13xf32>) -> tensor<13xf32>
  %z5 = linalg.fill ins(%zero : f32) outs(%e5 : tensor<5xf32>) -> tensor<5xf32>
  %rows = linalg.reduce ins(%x : tensor<64x13xf32>) outs(%z64 : tensor<64xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %cols = linalg.reduce ins(%x : tensor<64x13xf32>) outs(%z13 : tensor<13xf32>) dimensions = [0]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  %ones = linalg.reduce ins(%y : tensor<5x1xf32>) outs(%z5 : tensor<5xf32>) dimensions = [1]
    (%a: f32, %b: f32) {
      %s = arith.addf %a, %b : f32
      linalg.yield %s : f32
    }
  return %rows, %cols, %ones : tensor<64xf32>, tensor<13xf32>, tensor<5xf32>
}
