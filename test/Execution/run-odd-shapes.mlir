// Odd and prime matmul sizes with their default configs (which pad the
// loops, `pad`): the padded loops' last tiles are computed on zero-padded
// copies of the cache tile inside the forall, whole operands are never
// padded (docs/CPUSchedule.md, "Remainders"). Every shape (1, 2, 7, primes,
// 257x511x129, 1000x1000 (k = 96, to keep the test short; the bench
// verifies 1000^3), a size smaller than a tile), plain and transposed
// forms, matmul and batch_matmul, 1 and 2 threads (the default config is
// computed for the thread count; each shape at one or both), the host
// target and AVX2 (haswell), all verified against the C++ reference.

// RUN: tiletune-run %s --entry=one --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --num-threads=1 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=two --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=seven --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --num-threads=1 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=p127 --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --num-threads=1 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=p127 --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=p197 --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mixed --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --num-threads=1 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mixed --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=round --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=small_tile --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --num-threads=1 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=p127 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=mixed --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=p197 --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_tb_odd --mcpu=haswell --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=ta_p197 --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=tb_mixed --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --num-threads=1 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_odd --pipeline="tiletune-lower-cpu{default-configs=1 threads=2}" --num-threads=2 --verify --repeats=1 | FileCheck %s
// RUN: tiletune-run %s --entry=bmm_tb_odd --pipeline="tiletune-lower-cpu{default-configs=1 threads=1}" --num-threads=1 --verify --repeats=1 | FileCheck %s

// The default configs pad every one of these shapes but 1, 2 and 7 (for a
// 16-lane target: pinned to AVX-512):
// RUN: tiletune-opt %s --tiletune-default-config=mcpu=znver4 | FileCheck %s --check-prefix=PAD
// PAD-LABEL: func.func @p127
// PAD: pad = {k = 128, m = 128, n = 128}
// PAD-LABEL: func.func @p197
// PAD: pad = {k = 200, m = 200, n = 224}
// PAD-LABEL: func.func @mixed
// PAD: pad = {k = 136, m = 264, n = 512}
// PAD-LABEL: func.func @round
// PAD: pad = {n = 1024}

// At 2 threads a padded m takes the thread's whole extent as its cache tile
// (fewer copy steps: 197 -> 100 rows, not 50; 257 -> 132, not 12), while
// 1000 (m not padded) keeps its 50-row tiles:
// RUN: tiletune-opt %s --tiletune-default-config="mcpu=znver4 caches=48K,1M threads=2" | FileCheck %s --check-prefix=PAD2
// PAD2-LABEL: func.func @p197
// PAD2: parallel = {m = 100, n = 224}, cache = {k = 200, m = 100, n = 224}, register = {m = 10, n = 32}
// PAD2-LABEL: func.func @mixed
// PAD2: parallel = {m = 132, n = 512}, cache = {k = 136, m = 132, n = 512}, register = {m = 12, n = 32}
// PAD2-LABEL: func.func @round
// PAD2: cache = {k = 96, m = 50, n = 512}

// CHECK: verify: PASSED

func.func @one(%a: tensor<1x1xf32>, %b: tensor<1x1xf32>,
    %c: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1x1xf32>, tensor<1x1xf32>)
    outs(%c : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

func.func @two(%a: tensor<2x2xf32>, %b: tensor<2x2xf32>,
    %c: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<2x2xf32>, tensor<2x2xf32>)
    outs(%c : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

func.func @seven(%a: tensor<7x7xf32>, %b: tensor<7x7xf32>,
    %c: tensor<7x7xf32>) -> tensor<7x7xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<7x7xf32>, tensor<7x7xf32>)
    outs(%c : tensor<7x7xf32>) -> tensor<7x7xf32>
  return %0 : tensor<7x7xf32>
}

func.func @p127(%a: tensor<127x127xf32>, %b: tensor<127x127xf32>,
    %c: tensor<127x127xf32>) -> tensor<127x127xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<127x127xf32>, tensor<127x127xf32>)
    outs(%c : tensor<127x127xf32>) -> tensor<127x127xf32>
  return %0 : tensor<127x127xf32>
}

func.func @p197(%a: tensor<197x197xf32>, %b: tensor<197x197xf32>,
    %c: tensor<197x197xf32>) -> tensor<197x197xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<197x197xf32>, tensor<197x197xf32>)
    outs(%c : tensor<197x197xf32>) -> tensor<197x197xf32>
  return %0 : tensor<197x197xf32>
}

func.func @mixed(%a: tensor<257x129xf32>, %b: tensor<129x511xf32>,
    %c: tensor<257x511xf32>) -> tensor<257x511xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<257x129xf32>, tensor<129x511xf32>)
    outs(%c : tensor<257x511xf32>) -> tensor<257x511xf32>
  return %0 : tensor<257x511xf32>
}

func.func @round(%a: tensor<1000x96xf32>, %b: tensor<96x1000xf32>,
    %c: tensor<1000x1000xf32>) -> tensor<1000x1000xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<1000x96xf32>, tensor<96x1000xf32>)
    outs(%c : tensor<1000x1000xf32>) -> tensor<1000x1000xf32>
  return %0 : tensor<1000x1000xf32>
}

func.func @small_tile(%a: tensor<13x7xf32>, %b: tensor<7x29xf32>,
    %c: tensor<13x29xf32>) -> tensor<13x29xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<13x7xf32>, tensor<7x29xf32>)
    outs(%c : tensor<13x29xf32>) -> tensor<13x29xf32>
  return %0 : tensor<13x29xf32>
}

func.func @ta_p197(%a: tensor<197x197xf32>, %b: tensor<197x131xf32>,
    %c: tensor<197x131xf32>) -> tensor<197x131xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : tensor<197x197xf32>, tensor<197x131xf32>)
    outs(%c : tensor<197x131xf32>) -> tensor<197x131xf32>
  return %0 : tensor<197x131xf32>
}

func.func @tb_mixed(%a: tensor<257x129xf32>, %b: tensor<511x129xf32>,
    %c: tensor<257x511xf32>) -> tensor<257x511xf32> {
  %0 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
    ins(%a, %b : tensor<257x129xf32>, tensor<511x129xf32>)
    outs(%c : tensor<257x511xf32>) -> tensor<257x511xf32>
  return %0 : tensor<257x511xf32>
}

func.func @bmm_odd(%a: tensor<3x127x67xf32>, %b: tensor<3x67x97xf32>,
    %c: tensor<3x127x97xf32>) -> tensor<3x127x97xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<3x127x67xf32>, tensor<3x67x97xf32>)
    outs(%c : tensor<3x127x97xf32>) -> tensor<3x127x97xf32>
  return %0 : tensor<3x127x97xf32>
}

func.func @bmm_tb_odd(%a: tensor<5x61x131xf32>, %b: tensor<5x83x131xf32>,
    %c: tensor<5x61x83xf32>) -> tensor<5x61x83xf32> {
  %0 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>]
    ins(%a, %b : tensor<5x61x131xf32>, tensor<5x83x131xf32>)
    outs(%c : tensor<5x61x83xf32>) -> tensor<5x61x83xf32>
  return %0 : tensor<5x61x83xf32>
}
