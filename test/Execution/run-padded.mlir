// Matmuls whose loops are padded by the config (`pad`): the op is computed on
// zero-padded operands and the valid part of the result is kept. Primes, 1
// and sizes that no useful tile divides, on tensors and on buffers, 1 and 2
// threads, and the default configs of such shapes; every one must match the
// C++ reference.

// RUN: tiletune-run %s --entry=prime --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=OK
// RUN: tiletune-run %s --entry=prime --pipeline=tiletune-lower-cpu --verify --repeats=1 --num-threads=2 | FileCheck %s --check-prefix=OK
// RUN: tiletune-run %s --entry=buffers --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=OK
// RUN: tiletune-run %s --entry=ones --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=OK
// RUN: tiletune-run %s --entry=batch --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=OK
// RUN: tiletune-run %s --entry=default_prime --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s --check-prefix=OK
// RUN: tiletune-run %s --entry=default_1000 --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s --check-prefix=OK
// Padding copies of many short rows (issue 16, item 6: these took 104 s and
// 38 s to compile when each copy was one vector operation; now row by row):
// RUN: tiletune-run %s --entry=short_rows --pipeline=tiletune-lower-cpu --verify --repeats=1 | FileCheck %s --check-prefix=OK
// RUN: tiletune-run %s --entry=default_short_rows_batch --pipeline="tiletune-lower-cpu{default-configs=true}" --verify --repeats=1 | FileCheck %s --check-prefix=OK
// The default configs of these shapes pad:
// The padding follows the target's lanes: pinned to 16 (AVX-512).
// RUN: tiletune-opt %s --tiletune-default-config=mcpu=znver4 | FileCheck %s --check-prefix=DEFAULT
// DEFAULT-LABEL: func.func @default_prime
// DEFAULT: pad = {k = 144, m = 136, n = 160}
// DEFAULT-LABEL: func.func @default_1000
// DEFAULT: pad = {n = 1024}

// OK: verify: PASSED

func.func @prime(%a: tensor<131x67xf32>, %b: tensor<67x37xf32>,
                 %c: tensor<131x37xf32>) -> tensor<131x37xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         pad = {m = 136, n = 48, k = 80},
         parallel = {m = 68, n = 48}, cache = {m = 34, n = 48, k = 16},
         register = {m = 2, n = 16}, order = [n, k, m], pack = ab, unroll = 4>}
    ins(%a, %b : tensor<131x67xf32>, tensor<67x37xf32>)
    outs(%c : tensor<131x37xf32>) -> tensor<131x37xf32>
  return %0 : tensor<131x37xf32>
}

func.func @buffers(%a: memref<13x7xf32>, %b: memref<7x29xf32>,
                   %c: memref<13x29xf32>) {
  linalg.matmul {tiletune.config = #tiletune.config<cpu,
         pad = {m = 16, n = 32, k = 8},
         parallel = {m = 16, n = 32}, cache = {m = 8, n = 32, k = 8},
         register = {m = 4, n = 16}, order = [m, n, k], pack = b, unroll = 2>}
    ins(%a, %b : memref<13x7xf32>, memref<7x29xf32>)
    outs(%c : memref<13x29xf32>)
  return
}

func.func @ones(%a: tensor<1x1xf32>, %b: tensor<1x1xf32>,
                %c: tensor<1x1xf32>) -> tensor<1x1xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         pad = {m = 8, n = 16, k = 4},
         parallel = {m = 8, n = 16}, cache = {m = 8, n = 16, k = 4},
         register = {m = 8, n = 16}, unroll = 4>}
    ins(%a, %b : tensor<1x1xf32>, tensor<1x1xf32>)
    outs(%c : tensor<1x1xf32>) -> tensor<1x1xf32>
  return %0 : tensor<1x1xf32>
}

func.func @batch(%a: tensor<3x17x23xf32>, %b: tensor<3x23x41xf32>,
                 %c: tensor<3x17x41xf32>) -> tensor<3x17x41xf32> {
  %0 = linalg.batch_matmul {tiletune.config = #tiletune.config<cpu,
         pad = {m = 24, n = 48, k = 24},
         parallel = {b = 1, m = 24, n = 48}, cache = {m = 8, n = 48, k = 24},
         register = {m = 4, n = 16}, order = [n, k, m], pack = ab, unroll = 4>}
    ins(%a, %b : tensor<3x17x23xf32>, tensor<3x23x41xf32>)
    outs(%c : tensor<3x17x41xf32>) -> tensor<3x17x41xf32>
  return %0 : tensor<3x17x41xf32>
}

func.func @default_prime(%a: tensor<131x137xf32>, %b: tensor<137x139xf32>,
                         %c: tensor<131x139xf32>) -> tensor<131x139xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<131x137xf32>, tensor<137x139xf32>)
    outs(%c : tensor<131x139xf32>) -> tensor<131x139xf32>
  return %0 : tensor<131x139xf32>
}

func.func @default_1000(%a: tensor<40x1000xf32>, %b: tensor<1000x1000xf32>,
                        %c: tensor<40x1000xf32>) -> tensor<40x1000xf32> {
  %0 = linalg.matmul ins(%a, %b : tensor<40x1000xf32>, tensor<1000x1000xf32>)
    outs(%c : tensor<40x1000xf32>) -> tensor<40x1000xf32>
  return %0 : tensor<40x1000xf32>
}

func.func @short_rows(%a: tensor<1152x1xf32>, %b: tensor<1x3xf32>,
                      %c: tensor<1152x3xf32>) -> tensor<1152x3xf32> {
  %0 = linalg.matmul {tiletune.config = #tiletune.config<cpu,
         parallel = {m = 1152, n = 16}, cache = {m = 8, n = 16, k = 1},
         register = {m = 8, n = 16}, pad = {n = 16}>}
    ins(%a, %b : tensor<1152x1xf32>, tensor<1x3xf32>)
    outs(%c : tensor<1152x3xf32>) -> tensor<1152x3xf32>
  return %0 : tensor<1152x3xf32>
}

func.func @default_short_rows_batch(%a: tensor<8x254x2xf32>, %b: tensor<8x2x2xf32>,
                                    %c: tensor<8x254x2xf32>) -> tensor<8x254x2xf32> {
  %0 = linalg.batch_matmul ins(%a, %b : tensor<8x254x2xf32>, tensor<8x2x2xf32>)
    outs(%c : tensor<8x254x2xf32>) -> tensor<8x254x2xf32>
  return %0 : tensor<8x254x2xf32>
}
