// linalg.matmul / linalg.batch_matmul with transposing indexing_maps (A^T,
// B^T, both; the form of nn.Linear and of attention's Q*K^T): each tiled by
// an explicit config (B^T packed into panels: the packing copy reads through
// the transpose) and by the default configs (shapes 1, primes, non-divisible: padded), at 1 and
// 2 threads and for AVX2 (haswell), on tensors and buffers, all verified
// against the C++ reference.

// RUN: tiletune-run %s --entry=tb_packed --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=TB
// RUN: tiletune-run %s --entry=tb_packed --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=TB
// RUN: tiletune-run %s --entry=tb_packed --mcpu=haswell --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=TB
// RUN: tiletune-run %s --entry=ta_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_tb_packed --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=BMM
// RUN: tiletune-run %s --entry=bmm_tab_buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s
// Default configs, 1 and 2 threads, host and AVX2.
// RUN: tiletune-run %s --entry=d_ta --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=d_ta --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=d_tb --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=d_tb --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=d_tab --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=d_tab --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=d_tb_gemv --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=d_tb_gemv --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=d_bmm_ta --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=d_bmm_ta --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=d_bmm_tb --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=d_bmm_tb --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=d_bmm_tab --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=d_bmm_tab --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=d_tb --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=d_tab --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s
// RUN: tiletune-run %s --entry=d_bmm_tb --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --verify --repeats=1 --num-threads=2 | FileCheck %s

// TB: op: linalg.matmul, 4.915e+04 FLOP
// TB: verify: PASSED
// BMM: op: linalg.batch_matmul
// BMM: verify: PASSED
// CHECK: verify: PASSED


func.func @tb_packed(%a: tensor<32x24xf32>, %b: tensor<32x24xf32>,
                     %c: tensor<32x32xf32>) -> tensor<32x32xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 16, n = 32}, cache = {m = 8, n = 32, k = 8},
         register = {m = 4, n = 16}, order = [n, k, m], pack = b, unroll = 2>}
    ins(%a, %b : tensor<32x24xf32>, tensor<32x24xf32>)
    outs(%c : tensor<32x32xf32>) -> tensor<32x32xf32>
  return %0 : tensor<32x32xf32>
}

func.func @ta_buffers(%a: memref<24x16xf64>, %b: memref<24x32xf64>,
                      %c: memref<16x32xf64>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 16, n = 16}, cache = {m = 8, n = 16, k = 12},
         register = {m = 4, n = 8}, pack = ab>}
    ins(%a, %b : memref<24x16xf64>, memref<24x32xf64>)
    outs(%c : memref<16x32xf64>)
  return
}

func.func @bmm_tb_packed(%a: tensor<3x8x20xf32>, %b: tensor<3x32x20xf32>,
                         %c: tensor<3x8x32xf32>) -> tensor<3x8x32xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {b = 1, m = 8, n = 32}, cache = {m = 8, n = 32, k = 10},
         register = {m = 4, n = 16}, pack = b>}
    ins(%a, %b : tensor<3x8x20xf32>, tensor<3x32x20xf32>)
    outs(%c : tensor<3x8x32xf32>) -> tensor<3x8x32xf32>
  return %0 : tensor<3x8x32xf32>
}

func.func @bmm_tab_buffers(%a: memref<2x12x8xf32>, %b: memref<2x16x12xf32>,
                           %c: memref<2x8x16xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] {tiletune.config = #tiletune.config<cpu,
         parallel = {b = 1, m = 8, n = 16}, cache = {m = 8, n = 16, k = 4},
         register = {m = 2, n = 8}, pack = ab, unroll = 2>}
    ins(%a, %b : memref<2x12x8xf32>, memref<2x16x12xf32>)
    outs(%c : memref<2x8x16xf32>)
  return
}

func.func @d_ta(%a: tensor<13x17xf32>, %b: tensor<13x19xf32>,
                %c: tensor<17x19xf32>) -> tensor<17x19xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : tensor<13x17xf32>, tensor<13x19xf32>)
    outs(%c : tensor<17x19xf32>) -> tensor<17x19xf32>
  return %0 : tensor<17x19xf32>
}

func.func @d_tb(%a: tensor<37x64xf32>, %b: tensor<96x64xf32>,
                %c: tensor<37x96xf32>) -> tensor<37x96xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : tensor<37x64xf32>, tensor<96x64xf32>)
    outs(%c : tensor<37x96xf32>) -> tensor<37x96xf32>
  return %0 : tensor<37x96xf32>
}

func.func @d_tab(%a: memref<11x7xf64>, %b: memref<5x11xf64>,
                 %c: memref<7x5xf64>) {
  linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : memref<11x7xf64>, memref<5x11xf64>)
    outs(%c : memref<7x5xf64>)
  return
}

// One row (a GEMV against a weight stored [out, in]).
func.func @d_tb_gemv(%a: tensor<1x64xf32>, %b: tensor<33x64xf32>,
                     %c: tensor<1x33xf32>) -> tensor<1x33xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : tensor<1x64xf32>, tensor<33x64xf32>)
    outs(%c : tensor<1x33xf32>) -> tensor<1x33xf32>
  return %0 : tensor<1x33xf32>
}

func.func @d_bmm_ta(%a: tensor<2x9x5xf32>, %b: tensor<2x9x6xf32>,
                    %c: tensor<2x5x6xf32>) -> tensor<2x5x6xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, k, n)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %b : tensor<2x9x5xf32>, tensor<2x9x6xf32>)
    outs(%c : tensor<2x5x6xf32>) -> tensor<2x5x6xf32>
  return %0 : tensor<2x5x6xf32>
}

// Attention's Q*K^T: 4 heads, 29 tokens, head size 16.
func.func @d_bmm_tb(%q: tensor<4x29x16xf32>, %k: tensor<4x29x16xf32>,
                    %s: tensor<4x29x29xf32>) -> tensor<4x29x29xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%q, %k : tensor<4x29x16xf32>, tensor<4x29x16xf32>)
    outs(%s : tensor<4x29x29xf32>) -> tensor<4x29x29xf32>
  return %0 : tensor<4x29x29xf32>
}

func.func @d_bmm_tab(%a: memref<1x3x1xf32>, %b: memref<1x7x3xf32>,
                     %c: memref<1x1x7xf32>) {
  linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, k, m)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %b : memref<1x3x1xf32>, memref<1x7x3xf32>)
    outs(%c : memref<1x1x7xf32>)
  return
}
