// The AutoMCL computes named by the `compute` option (tmm, lpmm, rpmmv,
// dpmm: the packings none, a, b, ab) on a prime shape (padded), 1x1x1, a
// shape no tile divides and a batch_matmul, on 1 and 2 threads and for an
// AVX2 target: every one must match the C++ reference.

// RUN: for e in tmm_prime lpmm_prime rpmmv_prime dpmm_prime rpmmv_ones lpmm_nondiv dpmm_batch; do \
// RUN:   tiletune-run %s --entry=$e --pipeline=tiletune-lower-cpu --verify --repeats=1; \
// RUN: done | FileCheck %s --check-prefix=OK7
// RUN: for e in lpmm_prime rpmmv_prime dpmm_batch; do \
// RUN:   tiletune-run %s --entry=$e --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2; \
// RUN: done | FileCheck %s --check-prefix=OK3
// RUN: for e in tmm_prime rpmmv_prime dpmm_prime; do \
// RUN:   tiletune-run %s --entry=$e --pipeline=tiletune-lower-cpu --verify --repeats=1 --mcpu=haswell; \
// RUN: done | FileCheck %s --check-prefix=OK3
// The compute is the packing: rpmmv packs B into panels, dpmm both operands.
// The padded B tile (67x37 in a 16x48 tile) is copied straight into its
// three 16x16 panels (no padded copy, no transpose of it).
// RUN: tiletune-opt %s --tiletune-tile-cpu | FileCheck %s --check-prefix=IR

// OK7-COUNT-7: verify: PASSED
// OK3-COUNT-3: verify: PASSED

// IR-LABEL: func.func @tmm_prime
// IR-NOT: linalg.transpose
// IR-LABEL: func.func @rpmmv_prime
// IR: tensor.empty() : tensor<3x16x16xf32>
// IR-NOT: tensor<16x48xf32>
// IR-NOT: linalg.transpose
// IR-LABEL: func.func @dpmm_prime

func.func @tmm_prime(%a: tensor<131x67xf32>, %b: tensor<67x37xf32>,
                     %c: tensor<131x37xf32>) -> tensor<131x37xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         pad = {m = 136, n = 48, k = 80},
         parallel = {m = 68, n = 48}, cache = {m = 34, n = 48, k = 16},
         register = {m = 2, n = 16}, order = [n, k, m], compute = tmm, unroll = 4>}
    ins(%a, %b : tensor<131x67xf32>, tensor<67x37xf32>)
    outs(%c : tensor<131x37xf32>) -> tensor<131x37xf32>
  return %0 : tensor<131x37xf32>
}

func.func @lpmm_prime(%a: tensor<131x67xf32>, %b: tensor<67x37xf32>,
                      %c: tensor<131x37xf32>) -> tensor<131x37xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         pad = {m = 136, n = 48, k = 80},
         parallel = {m = 68, n = 48}, cache = {m = 34, n = 48, k = 16},
         register = {m = 2, n = 16}, order = [n, k, m], compute = lpmm, unroll = 4>}
    ins(%a, %b : tensor<131x67xf32>, tensor<67x37xf32>)
    outs(%c : tensor<131x37xf32>) -> tensor<131x37xf32>
  return %0 : tensor<131x37xf32>
}

func.func @rpmmv_prime(%a: tensor<131x67xf32>, %b: tensor<67x37xf32>,
                       %c: tensor<131x37xf32>) -> tensor<131x37xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         pad = {m = 136, n = 48, k = 80},
         parallel = {m = 68, n = 48}, cache = {m = 34, n = 48, k = 16},
         register = {m = 2, n = 16}, order = [n, k, m], compute = rpmmv, pack = b, unroll = 4>}
    ins(%a, %b : tensor<131x67xf32>, tensor<67x37xf32>)
    outs(%c : tensor<131x37xf32>) -> tensor<131x37xf32>
  return %0 : tensor<131x37xf32>
}

func.func @dpmm_prime(%a: tensor<131x67xf32>, %b: tensor<67x37xf32>,
                      %c: tensor<131x37xf32>) -> tensor<131x37xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         pad = {m = 136, n = 48, k = 80},
         parallel = {m = 68, n = 48}, cache = {m = 34, n = 48, k = 16},
         register = {m = 2, n = 16}, order = [n, k, m], compute = dpmm, unroll = 4>}
    ins(%a, %b : tensor<131x67xf32>, tensor<67x37xf32>)
    outs(%c : tensor<131x37xf32>) -> tensor<131x37xf32>
  return %0 : tensor<131x37xf32>
}

func.func @rpmmv_ones(%a: memref<1x1xf32>, %b: memref<1x1xf32>, %c: memref<1x1xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu, parallel = {m = 1, n = 1}, cache = {k = 1, m = 1, n = 1}, register = {m = 1, n = 1}, compute = rpmmv>}
    ins(%a, %b : memref<1x1xf32>, memref<1x1xf32>) outs(%c : memref<1x1xf32>)
  return
}

func.func @lpmm_nondiv(%a: memref<13x7xf32>, %b: memref<7x29xf32>,
                       %c: memref<13x29xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu,
         pad = {m = 16, n = 32, k = 8},
         parallel = {m = 16, n = 32}, cache = {m = 8, n = 32, k = 8},
         register = {m = 4, n = 16}, order = [m, n, k], compute = lpmm, unroll = 2>}
    ins(%a, %b : memref<13x7xf32>, memref<7x29xf32>)
    outs(%c : memref<13x29xf32>)
  return
}

func.func @dpmm_batch(%a: tensor<3x20x12xf32>, %b: tensor<3x12x40xf32>,
                      %c: tensor<3x20x40xf32>) -> tensor<3x20x40xf32> {
  %0 = linalg.batch_matmul {tiletune.config = #tiletune.config<cpu,
         pad = {n = 48},
         parallel = {b = 1, m = 20, n = 48}, cache = {m = 10, n = 48, k = 12},
         register = {m = 2, n = 16}, compute = dpmm>}
    ins(%a, %b : tensor<3x20x12xf32>, tensor<3x12x40xf32>)
    outs(%c : tensor<3x20x40xf32>) -> tensor<3x20x40xf32>
  return %0 : tensor<3x20x40xf32>
}
